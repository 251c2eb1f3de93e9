#!/usr/bin/env bash
# `make test`: every test, with progress as it goes. The prerequisites are
# checked (or, as root, installed) before anything runs; then go vet, the
# tests of every package at once (a line per package as it finishes, a
# line per end-to-end test, whatever fails in full), then the race
# detector over the packages that share state between goroutines, then
# each failure again in a few lines.
#   bash scripts/test.sh      (from the repository's root)
# Environment: HDRJS_VERSION, the npm package's version to install.
set -euo pipefail
zkdir=.data/zookeeper hdrjs=.data/hdrjs recap=.data/test-recap
begin=$(date +%s)

bash scripts/prereqs.sh
if [ ! -d "$hdrjs/node_modules/hdr-histogram-js" ]; then
	mkdir -p "$hdrjs"
	npm install --prefix "$hdrjs" --no-audit --no-fund --loglevel=error "hdr-histogram-js@${HDRJS_VERSION:?}"
fi
go build -o .data/bin/testfmt ./scripts/testfmt
rm -f "$recap"
echo "go vet"
go vet ./...

rm -rf "$zkdir"
bash scripts/zookeeper.sh start "$zkdir"
trap 'bash scripts/zookeeper.sh stop "$zkdir"' EXIT
echo "go test: every package (the e2e package test by test, about four minutes)"
status=0
export COMMENTBENCH_ZK COMMENTBENCH_HDRJS COMMENTBENCH_CHROMIUM
COMMENTBENCH_ZK=$(cat "$zkdir/addr")
COMMENTBENCH_HDRJS=$PWD/$hdrjs/node_modules
COMMENTBENCH_CHROMIUM=$(bash scripts/chromium.sh)
# -parallel 4: the end-to-end tests mostly wait on the processes they
# start (a Kerberos ticket's expiry, a run's seconds), so two at a time,
# the default on two cores, leaves the cores idle.
go test -count=1 -parallel 4 -json ./... | .data/bin/testfmt -each commentbench/e2e -recap "$recap" || status=1

echo "go test -race: the packages whose goroutines share state"
go test -count=1 -json -race ./store/... ./comments/... ./workload/... ./results/... ./check/... ./extsort/... \
	./hbase/... ./hbasetest/... ./fleet/... | .data/bin/testfmt -recap "$recap" || status=1

# The failures again, short, as the last lines: a CI page shows a log's end.
if [ -s "$recap" ]; then
	echo "what failed (in full above):"
	cat "$recap"
fi
verdict=passed
[ $status = 0 ] || verdict=FAILED
echo "make test $verdict in $(( $(date +%s) - begin ))s"
exit $status
