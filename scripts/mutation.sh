#!/usr/bin/env bash
# Mutation testing of the core packages with gremlins: each package's own
# tests against mutants of its own code (a mutant is killed when a test
# fails). Prints, per package, the mutants killed, lived, timed out and not
# viable, and the efficacy (killed over killed + lived, as gremlins counts
# it), then every mutant that lived. docs/mutation.md lists the survivors
# that are equivalent (no behaviour can tell them apart) and why.
#
#   bash scripts/mutation.sh                  # every core package, the working tree
#   bash scripts/mutation.sh check keys       # some of them
#   REV=HEAD bash scripts/mutation.sh         # a commit instead of the working tree
#   bash scripts/mutation.sh --report [PKG..] # the table again, from the last logs
#
# Environment:
#   REV       a git revision to test instead of the working tree
#   OUT       where the logs and JSON reports go (default .data/mutation)
#   WORKERS   mutants tested at once (default: gremlins', one per CPU)
#   BUDGET    time bound per package, as timeout(1) takes it (default none);
#             store/embedded has its own, BUDGET_EMBEDDED (default 40m):
#             its 500-odd mutants each build and run the engine's tests, an
#             hour and more on two CPUs. A bounded package's line says how
#             many of its mutants were tested before time ran out.
#
# The source is copied first (the working tree's tracked and untracked
# files, or REV's tree) and mutated in the copy, so edits made while it runs
# change nothing, and nothing in the tree is touched.
set -eu

GREMLINS_VERSION=v0.6.0
CORE="keys check entry results spread comments pace extsort workload store/embedded"

# workload: its pure parts only, against their own tests. The runner,
# actors, pagers, environment, seeding and collector drive a store in real
# time from many goroutines; their tests run whole loads through the runner
# (half a minute a time) and measure timing, which a machine busy with
# mutants upsets, so a mutant would die of the load rather than of a test
# that saw it. What is left decides a run's shape and is tested alone:
# scenarios and presets (parsing, validation, overlays), the popularity and
# content generators, the live flaw counts and the comment system a scenario
# builds. RUN_<pkg> is the tests that run (go test -run); a new test of
# those parts needs a name it matches.
EXCLUDE_workload='runner\.go$|actors\.go$|pager\.go$|env\.go$|seed\.go$|collector\.go$|doc\.go$'
RUN_workload='^Test(Content|Popularity|NewPopularity|Preset|CIPreset|LoadScenario|Validate|Duration|ParseDuration|Scenario|Describe|Flaws|RankOptions|System|Sketch|MergeSketches)'

strip() { sed 's/\x1b\[[0-9;]*m//g' "$@"; }

gremlins_bin() {
	GREMLINS=$(command -v gremlins || true)
	if [ -z "$GREMLINS" ] || ! go version -m "$GREMLINS" 2>/dev/null | grep -q "gremlins[[:space:]]*$GREMLINS_VERSION[[:space:]]"; then
		echo "installing gremlins $GREMLINS_VERSION"
		go install github.com/go-gremlins/gremlins/cmd/gremlins@$GREMLINS_VERSION
		GREMLINS=$(go env GOPATH)/bin/gremlins
	fi
}

# snapshot copies the source to test into $SRC.
snapshot() {
	SRC=$(mktemp -d "${TMPDIR:-/tmp}/commentbench-mutation.XXXXXX")
	trap 'rm -rf "$SRC"' EXIT
	cd "$ROOT"
	if [ -n "${REV:-}" ]; then
		git archive "$REV" | tar -x -C "$SRC"
		WHAT="$(git rev-parse --short "$REV")"
	else
		git ls-files -z --cached --others --exclude-standard |
			while IFS= read -r -d '' f; do [ -f "$f" ] && printf '%s\0' "$f"; done |
			tar --null -T - -cf - | tar -x -C "$SRC"
		WHAT="the working tree at $(git rev-parse --short HEAD)"
	fi
}

# unleash runs gremlins over one package and keeps what each mutant did.
unleash() {
	local pkg=$1 name log ex run budget flags status=0
	name=$(echo "$pkg" | tr / _)
	log="$OUT/$name.log"
	eval "ex=\${EXCLUDE_$name:-}"
	eval "run=\${RUN_$name:-}"
	budget=$BUDGET
	[ "$pkg" = store/embedded ] && budget=$BUDGET_EMBEDDED
	echo "== $pkg${budget:+ (bounded to $budget)}${ex:+ (files excluded: $ex)}${run:+ (tests: $run)}"
	set -- unleash --output "$OUT/$name.json"
	[ -n "${WORKERS:-}" ] && set -- "$@" --workers "$WORKERS"
	[ -n "$ex" ] && set -- "$@" --exclude-files "$ex"
	flags=${GOFLAGS:-}
	[ -n "$run" ] && flags="$flags -run=$run"
	rm -f "$OUT/$name".*
	if [ -n "$budget" ]; then
		(cd "$SRC/$pkg" && GOFLAGS="$flags" timeout --foreground "$budget" "$GREMLINS" "$@") >"$log" 2>&1 || status=$?
	else
		(cd "$SRC/$pkg" && GOFLAGS="$flags" "$GREMLINS" "$@") >"$log" 2>&1 || status=$?
	fi
	if [ "$status" = 124 ]; then
		# Out of time: count what it finished, and how many there were.
		echo "time ran out after $budget" >"$OUT/$name.bounded"
		(cd "$SRC/$pkg" && GOFLAGS="$flags" "$GREMLINS" unleash --dry-run ${ex:+--exclude-files "$ex"}) 2>&1 |
			strip | grep -c '^ *RUNNABLE ' >>"$OUT/$name.bounded" || true
	elif [ "$status" != 0 ]; then
		echo "gremlins exit $status" >"$OUT/$name.failed"
		echo "$pkg: gremlins failed (exit $status); the end of $log:"
		tail -20 "$log"
	fi
	# A mutant whose tests were cut short by the time bound reads as lived:
	# count only what finished before gremlins began shutting down.
	strip "$log" | sed '/Shutting down gracefully/q' |
		grep -E '^ *(KILLED|LIVED|TIMED OUT|NOT VIABLE|NOT COVERED|SKIPPED) ' >"$OUT/$name.mutants" || true
}

report() {
	local pkg name m k l t v eff note
	echo
	printf '%-16s %7s %6s %6s %7s %9s  %s\n' package killed lived timed "!viable" efficacy note
	for pkg in "$@"; do
		name=$(echo "$pkg" | tr / _)
		m="$OUT/$name.mutants"
		[ -f "$m" ] || continue
		k=$(grep -c '^ *KILLED ' "$m" || true)
		l=$(grep -c '^ *LIVED ' "$m" || true)
		t=$(grep -c '^ *TIMED OUT ' "$m" || true)
		v=$(grep -c '^ *NOT VIABLE ' "$m" || true)
		note=""
		if [ -f "$OUT/$name.bounded" ]; then
			note="$((k + l + t + v)) of $(tail -1 "$OUT/$name.bounded") covered mutants, then $(head -1 "$OUT/$name.bounded")"
		elif [ -f "$OUT/$name.failed" ]; then
			note="FAILED: $(cat "$OUT/$name.failed"), see $OUT/$name.log"
		fi
		eff=$(awk -v k="$k" -v l="$l" 'BEGIN { if (k + l) printf "%.2f%%", 100 * k / (k + l); else print "-" }')
		printf '%-16s %7s %6s %6s %7s %9s  %s\n' "$pkg" "$k" "$l" "$t" "$v" "$eff" "$note"
	done
	echo
	echo "lived:"
	for pkg in "$@"; do
		name=$(echo "$pkg" | tr / _)
		m="$OUT/$name.mutants"
		[ -f "$m" ] || continue
		grep '^ *LIVED ' "$m" | sed "s|^ *LIVED \(.*\) at \(.*\)|  $pkg/\2 \1|" | sort -t: -k1,1 -k2,2n || true
	done
}

main() {
	ROOT=$(cd "$(dirname "$0")/.." && pwd)
	OUT=${OUT:-$ROOT/.data/mutation}
	BUDGET=${BUDGET:-}
	BUDGET_EMBEDDED=${BUDGET_EMBEDDED:-40m}
	local only_report=false
	if [ "${1:-}" = --report ]; then
		only_report=true
		shift
	fi
	local pkgs="$*"
	[ -n "$pkgs" ] || pkgs=$CORE
	if ! $only_report; then
		gremlins_bin
		snapshot
		mkdir -p "$OUT"
		echo "mutation testing $WHAT with gremlins $GREMLINS_VERSION; logs in $OUT"
		for pkg in $pkgs; do
			unleash "$pkg"
		done
	fi
	# shellcheck disable=SC2086
	report $pkgs
}

# Everything runs from main, read whole before it starts: editing this file
# while it runs changes nothing.
main "$@"
exit
