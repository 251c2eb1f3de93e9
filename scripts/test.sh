#!/usr/bin/env bash
# `make test` and `make race`, with progress as they go.
#   bash scripts/test.sh        every test once: go vet, then the end-to-end
#                               package beside every other package
#   bash scripts/test.sh race   the race detector over the packages whose
#                               goroutines share state (CI runs it after
#                               make test; it takes two to three minutes more)
# The prerequisites are checked (or, as root, installed) before anything
# runs; a line shows each package as it finishes and each end-to-end test,
# whatever fails in full, and at the end each failure again in a few lines.
# Run from the repository's root. Environment: HDRJS_VERSION, the npm
# package's version to install.
set -euo pipefail
mode=${1:-all}
case $mode in
all | race) ;;
*)
	echo "usage: bash scripts/test.sh [race]" >&2
	exit 2
	;;
esac
zkdir=.data/zookeeper hdrjs=.data/hdrjs recap=.data/test-recap
begin=$(date +%s)

bash scripts/prereqs.sh
if [ ! -d "$hdrjs/node_modules/hdr-histogram-js" ]; then
	mkdir -p "$hdrjs"
	npm install --prefix "$hdrjs" --no-audit --no-fund --loglevel=error "hdr-histogram-js@${HDRJS_VERSION:?}"
fi
go build -o .data/bin/testfmt ./scripts/testfmt
rm -f "$recap"
if [ "$mode" = all ]; then
	echo "go vet"
	go vet ./...
fi

rm -rf "$zkdir"
bash scripts/zookeeper.sh start "$zkdir"
trap 'bash scripts/zookeeper.sh stop "$zkdir"' EXIT
export COMMENTBENCH_ZK COMMENTBENCH_HDRJS COMMENTBENCH_CHROMIUM
COMMENTBENCH_ZK=$(cat "$zkdir/addr")
COMMENTBENCH_HDRJS=$PWD/$hdrjs/node_modules
COMMENTBENCH_CHROMIUM=$(bash scripts/chromium.sh)
since=$(date +%s)
show() { .data/bin/testfmt -since "$since" -recap "$recap" "$@"; }
export -f show
export since recap
status=0
if [ "$mode" = race ]; then
	echo "go test -race: the packages whose goroutines share state"
	go test -count=1 -json -race ./workload ./check ./store/embedded ./comments ./results ./extsort ./hbase ./fleet \
		./hbasetest ./store ./store/hbase ./hbase/sasl | show -tag -race || status=1
else
	# Two runs side by side, on one clock: the end-to-end package, which
	# is the long one and mostly waits on the processes it starts, and
	# every other package, one at a time (-p 1), the longest first.
	# -parallel 4: two end-to-end tests at a time, the default on two
	# cores, would leave the cores idle (a Kerberos ticket's expiry, a
	# run's seconds).
	echo "go test: the end-to-end package test by test (about five minutes), beside every other package"
	long=(./workload ./report ./check ./keys ./store/embedded ./fleet)
	others=$(go list ./... | grep -vxF -e commentbench/e2e "${long[@]/#./-ecommentbench}")
	# In a session of its own, so that on an interrupt or an early exit
	# the trap below stops all of it, the processes its tests started
	# too; a job put in the background ignores the terminal's Ctrl-C.
	setsid -w bash -c 'set -o pipefail; go test -count=1 -parallel 4 -json ./e2e | show -each commentbench/e2e' &
	e2e=$!
	trap 'kill -TERM -- -$e2e 2>/dev/null || true; bash scripts/zookeeper.sh stop "$zkdir"' EXIT
	# go test exits by itself on Ctrl-C, so without this bash would go on
	# to wait for the end-to-end run.
	trap 'exit 130' INT TERM
	# One at a time: the end-to-end tests that measure latency or start
	# members together run first, and what they measure is the machine's
	# lag too (a modeled server's p99 doubled beside two other packages
	# compiling and testing). Not niced: the parallel end-to-end tests
	# that follow take every core they are given, and a niced run's last
	# packages waited minutes for their turn.
	# shellcheck disable=SC2086
	go test -p 1 -count=1 -json "${long[@]}" $others | show || status=1
	wait $e2e || status=1
fi

# The failures again, short, as the last lines: a CI page shows a log's end.
if [ -s "$recap" ]; then
	echo "what failed (in full above):"
	cat "$recap"
fi
verdict=passed
[ $status = 0 ] || verdict=FAILED
name=test
[ "$mode" = all ] || name=$mode
echo "make $name $verdict in $(( $(date +%s) - begin ))s"
exit $status
