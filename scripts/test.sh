#!/usr/bin/env bash
# `make test`: every test, with progress as it goes. The prerequisites are
# checked (or, as root, installed) before anything runs; then go vet, the
# tests of every package at once (a line per package as it finishes, a
# line per end-to-end test, whatever fails in full), then the race
# detector over the packages that share state between goroutines.
#   bash scripts/test.sh      (from the repository's root)
# Environment: HDRJS_VERSION, the npm package's version to install.
set -euo pipefail
zkdir=.data/zookeeper hdrjs=.data/hdrjs
begin=$(date +%s)

bash scripts/prereqs.sh
if [ ! -d "$hdrjs/node_modules/hdr-histogram-js" ]; then
	mkdir -p "$hdrjs"
	npm install --prefix "$hdrjs" --no-audit --no-fund --loglevel=error "hdr-histogram-js@${HDRJS_VERSION:?}"
fi
go build -o .data/bin/testfmt ./scripts/testfmt
echo "go vet"
go vet ./...

rm -rf "$zkdir"
bash scripts/zookeeper.sh start "$zkdir"
trap 'bash scripts/zookeeper.sh stop "$zkdir"' EXIT
echo "go test: every package (the e2e package test by test, about two minutes)"
status=0
export COMMENTBENCH_ZK COMMENTBENCH_HDRJS COMMENTBENCH_CHROMIUM
COMMENTBENCH_ZK=$(cat "$zkdir/addr")
COMMENTBENCH_HDRJS=$PWD/$hdrjs/node_modules
COMMENTBENCH_CHROMIUM=$(bash scripts/chromium.sh)
go test -count=1 -json ./... | .data/bin/testfmt -each commentbench/e2e || status=1

echo "go test -race: the packages whose goroutines share state"
go test -count=1 -json -race ./store/... ./comments/... ./workload/... ./results/... ./check/... ./extsort/... \
	./hbase/... ./hbasetest/... | .data/bin/testfmt || status=1

verdict=passed
[ $status = 0 ] || verdict=FAILED
echo "make test $verdict in $(( $(date +%s) - begin ))s"
exit $status
