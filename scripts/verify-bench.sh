#!/bin/sh
# Measures verify at scale: for each size (comments), fills a data set with
# the bulk-write scenario, then runs verify under /usr/bin/time -v and prints
# rows verified per second and peak memory.
#   sh scripts/verify-bench.sh 1000000 4000000
set -e
go build -o bin/ ./cmd/...
work=${WORK:-$(mktemp -d)}
for n in "${@:-1000000}"; do
	data=$work/data-$n res=$work/run-$n
	if [ ! -d "$data" ]; then
		bin/loadgen --scenario scenarios/bulk-write.yaml --ops "$n" --data-dir "$data" --out "$res" --quiet >/dev/null
	fi
	/usr/bin/time -v bin/verify --data-dir "$data" --run "$res" --quiet >"$work/verify-$n.out" 2>"$work/time-$n.txt" || true
	secs=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$work/time-$n.txt")
	rss=$(awk -F': ' '/Maximum resident/ { print int($2 / 1024) }' "$work/time-$n.txt")
	awk -v n="$n" -v s="$secs" -v rss="$rss" -v v="$(cat "$work/verify-$n.out")" \
		'BEGIN { printf "%d comments: %s\n  %.1f s, %.0f comments verified/s, peak RSS %d MiB\n", n, v, s, n / s, rss }'
done
