#!/bin/sh
# Measures verify at scale: for each size (comments), fills a data set with
# the bulk-write scenario, then runs verify under scripts/peakrss and prints
# rows verified per second and peak memory.
#   sh scripts/verify-bench.sh 1000000 4000000
set -e
go build -o bin/ ./cmd/... ./scripts/peakrss
work=${WORK:-$(mktemp -d)}
for n in "${@:-1000000}"; do
	data=$work/data-$n res=$work/run-$n
	if [ ! -d "$data" ]; then
		bin/loadgen --scenario scenarios/bulk-write.yaml --ops "$n" --data-dir "$data" --out "$res" --quiet >/dev/null
	fi
	t0=$(date +%s.%N)
	bin/peakrss -o "$work/rss-$n" bin/verify --data-dir "$data" --run "$res" --quiet >"$work/verify-$n.out" || true
	t1=$(date +%s.%N)
	awk -v n="$n" -v a="$t0" -v b="$t1" -v kib="$(cat "$work/rss-$n")" -v v="$(cat "$work/verify-$n.out")" \
		'BEGIN { s = b - a; printf "%d comments: %s\n  %.1f s, %.0f comments verified/s, peak RSS %d MiB\n", n, v, s, n / s, kib / 1024 }'
done
