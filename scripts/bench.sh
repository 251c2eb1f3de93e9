#!/bin/sh
# Runs every Go benchmark once and prints the engine's own overhead: embedded
# engine puts per second over raw Pebble puts per second, same keys, values
# and batch size, measured in this run.
set -e
out=$(mktemp)
trap 'rm -f "$out"' EXIT
go test -run '^$' -bench . -benchmem -benchtime "${BENCHTIME:-1s}" ./... | tee "$out"
awk '
/^BenchmarkEnginePut/    { for (i = 1; i < NF; i++) if ($(i+1) == "rows/s") e = $i }
/^BenchmarkRawPebblePut/ { for (i = 1; i < NF; i++) if ($(i+1) == "rows/s") p = $i }
END {
	if (e == "" || p == "") { print "ratio: missing BenchmarkEnginePut or BenchmarkRawPebblePut"; exit 1 }
	printf "\nengine puts/s %.0f / raw pebble puts/s %.0f = %.2f (engine overhead: %.0f%%)\n", e, p, e / p, (1 - e / p) * 100
}' "$out"
