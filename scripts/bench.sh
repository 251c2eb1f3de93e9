#!/bin/sh
# Runs every Go benchmark once, then prints the figures the issues ask for,
# each measured in this run:
# - the embedded engine's own overhead: engine puts/s over raw Pebble puts/s
#   (same keys, values and batch size);
# - the harness's own speed: arrivals/s through the full actor and recording
#   path against a no-op store, on one core;
# - comment writes/s on the embedded engine with 1 and 2 workers.
set -e
out=$(mktemp)
trap 'rm -f "$out"' EXIT
go test -run '^$' -bench . -benchmem -benchtime "${BENCHTIME:-1s}" ./... | tee "$out"
go test -run '^$' -bench 'HarnessNop' -cpu 1 -benchtime "${BENCHTIME:-1s}" ./workload | tee -a "$out"
awk '
function metric(unit,   i) { for (i = 1; i < NF; i++) if ($(i+1) == unit) return $i; return "" }
/^BenchmarkEnginePut/    { e = metric("rows/s") }
/^BenchmarkRawPebblePut/ { p = metric("rows/s") }
/^BenchmarkHarnessNop /  { h1 = metric("arrivals/s") }
/^BenchmarkHarnessNop-/  { h2 = metric("arrivals/s/core") }
/^BenchmarkCommentWriteEmbedded\/workers=1-/ { w1 = metric("comment-write/s") }
/^BenchmarkCommentWriteEmbedded\/workers=2-/ { w2 = metric("comment-write/s") }
END {
	if (e == "" || p == "") { print "missing BenchmarkEnginePut or BenchmarkRawPebblePut"; exit 1 }
	printf "\nengine puts/s %.0f / raw pebble puts/s %.0f = %.2f\n", e, p, e / p
	printf "harness on a no-op store: %.0f arrivals/s on one core, %.0f per core with all cores\n", h1, h2
	printf "comment writes/s on the embedded engine: %.0f with 1 worker, %.0f with 2 (ratio %.2f)\n", w1, w2, w2 / w1
}' "$out"
