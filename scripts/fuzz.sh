#!/bin/sh
# Runs each fuzz target for a while ($1, default 20s): go test -fuzz takes
# one target per run.
set -e
t=${1:-20s}
for pkg in $(go list ./...); do
	for f in $(go test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
		echo "== $pkg $f"
		go test -run "^$" -fuzz "^$f\$" -fuzztime "$t" -fuzzminimizetime 200x "$pkg"
	done
done
