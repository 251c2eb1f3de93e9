package e2e

import (
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// benchLine is a goal's line of make bench: two figures, their ratio, the
// goal and whether it is met.
var benchLine = regexp.MustCompile(`^(\w+) +.+? ([0-9.e+]+) · .+? ([0-9.e+]+) · ratio ([0-9.]+) · goal (.+) · (met|NOT MET|reported)$`)

// make bench at the smallest sizes, one round: the speeds mean nothing
// here, but every goal the issue asks for must print its line, in order,
// with a ratio that is its two figures' and a verdict that is its goal's.
// A benchmark renamed, a unit no longer reported or a step of the script
// broken fails here, not in the next long run.
func TestBenchPrintsEveryGoal(t *testing.T) {
	t.Parallel()
	if os.Getenv("COMMENTBENCH_BENCH_TEST") == "" {
		// It builds every benchmark: two minutes of a busy machine's six.
		t.Skip("builds and runs every benchmark once: .ci/run runs it, with COMMENTBENCH_BENCH_TEST=1")
	}
	cmd := exec.Command("bash", "scripts/bench.sh")
	cmd.Dir = ".."
	// The side-by-side lines against this tree itself (BASE=.): their form
	// is what is tested, and building the old code took three minutes.
	cmd.Env = append(cmd.Environ(), "ROUNDS=1", "BENCHTIME=1x", "STEADY=3s", "STEADY_LOAD=1", "VERIFY_COMMENTS=2000", "WRITES=300", "STRATEGY_RUN=1s",
		"STRATEGY_FLAGS=--warmup 0s --users 300 --products 30", "BASE=.", "LOAD_PER_USER=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("make bench: %v\n%s", err, out)
	}
	_, summary, ok := strings.Cut(string(out), "make bench: medians of 1 rounds each\n")
	if !ok {
		t.Fatalf("no summary in:\n%s", out)
	}
	lines := strings.Split(strings.TrimSpace(summary), "\n")
	var goals []string
	for _, l := range lines {
		if strings.HasPrefix(l, "steady   bytes the engine") { // the cause beside the steady goal
			if !regexp.MustCompile(`: [0-9.]+$`).MatchString(l) {
				t.Errorf("steady's cause line has no figure: %q", l)
			}
			continue
		}
		m := benchLine.FindStringSubmatch(l)
		if m == nil {
			t.Errorf("not a goal's line: %q", l)
			continue
		}
		goals = append(goals, m[1])
		a, b, ratio := num(t, m[2]), num(t, m[3]), num(t, m[4])
		if want := a / b; ratio < want*0.98-0.01 || ratio > want*1.02+0.01 {
			t.Errorf("%s: ratio %v, want %v / %v = %.3f", m[1], ratio, a, b, want)
		}
		met := m[6] == "met"
		if (m[6] == "reported") != (m[5] == "none: a price, not a goal" || strings.HasPrefix(m[5], "reported")) {
			t.Errorf("%s: a line reported against %q", m[1], m[5])
		}
		switch goal := m[5]; {
		case strings.HasPrefix(goal, "<= 40 µs"):
			if met != (a <= 40) {
				t.Errorf("rtt: %v µs said %s against %q", a, m[6], goal)
			}
		case regexp.MustCompile(`^>= [0-9.]+$`).MatchString(goal):
			if min := num(t, strings.TrimPrefix(goal, ">= ")); met != (ratio >= min) {
				t.Errorf("%s: ratio %v said %s against %q", m[1], ratio, m[6], goal)
			}
		case sideBySide.MatchString(goal):
			g := sideBySide.FindStringSubmatch(goal)
			bound := num(t, g[2])
			if met != ((g[1] == ">=" && ratio >= bound) || (g[1] == "<=" && ratio <= bound)) {
				t.Errorf("%s: ratio %v said %s against %q", m[1], ratio, m[6], goal)
			}
			if !strings.Contains(l, "· at . ") {
				t.Errorf("%s: a side-by-side goal not against the base it was given: %q", m[1], l)
			}
		}
	}
	// The three absolute goals each have a second line against a base.
	want := "write write steady verify verify harness harness scan rtt rtt shape" + strings.Repeat(" writes", 6) + " load load"
	if got := strings.Join(goals, " "); got != want {
		t.Fatalf("goals %q, want %q:\n%s", got, want, summary)
	}
}

// sideBySide is a goal against a base.
var sideBySide = regexp.MustCompile(`^(>=|<=) ([0-9.]+) \(the issue's .+, side by side\)$`)

func num(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("figure %q: %v", s, err)
	}
	return v
}

// Unless told otherwise, make bench takes each figure as the median of 5
// rounds, the least, and says so.
func TestBenchDefaultsToFiveRounds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the benchmarks")
	}
	cmd := exec.Command("bash", "scripts/bench.sh")
	cmd.Dir = ".."
	var stderr strings.Builder
	cmd.Stderr = &stderr
	cmd.Env = append(slices.DeleteFunc(cmd.Environ(), func(v string) bool { return strings.HasPrefix(v, "ROUNDS=") }),
		"GOALS=rtt", "BENCHTIME=1x", "BASE=none") // no base: its build is not what this test is about
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("make bench: %v\n%s%s", err, out, stderr.String())
	}
	if !strings.Contains(string(out), "make bench: medians of 5 rounds each\n") {
		t.Errorf("no 5-round summary in:\n%s", out)
	}
	var rounds []string
	for _, l := range strings.Split(stderr.String(), "\n") {
		if r, ok := strings.CutPrefix(strings.TrimSpace(l), "rtt: round "); ok {
			rounds = append(rounds, r)
		}
	}
	if got, want := strings.Join(rounds, ", "), "1 of 5, 2 of 5, 3 of 5, 4 of 5, 5 of 5"; got != want {
		t.Errorf("rounds %q, want %q", got, want)
	}
}
