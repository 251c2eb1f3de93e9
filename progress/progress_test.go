package progress

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

func TestLinesEveryInterval(t *testing.T) {
	var b strings.Builder
	r := NewTo(&b, Lines)
	for s := 0; s <= 25; s++ {
		r.Update(Status{Phase: "steady", Elapsed: time.Duration(s) * time.Second, Total: 30 * time.Second,
			Ops: int64(s * 100), Rate: 100, WorstP99: 1234 * time.Microsecond, Errors: 2})
	}
	r.Finish()
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 { // at 0 s, 10 s, 20 s
		t.Fatalf("%d lines, want 3:\n%s", len(lines), b.String())
	}
	want := "loadgen: steady  10s/30s  ops 1000  100/s  worst p99 1.23ms  errors 2"
	if lines[1] != want {
		t.Errorf("line %q\nwant %q", lines[1], want)
	}
	// With modeled servers and an open loop, the line says what the
	// busiest did and the rate aimed at.
	b.Reset()
	r = NewTo(&b, Lines)
	r.Update(Status{Phase: "steady", Elapsed: 10 * time.Second, Ops: 5, Rate: 90, Target: 120, Servers: "busiest rs2 97% (modeled), 12 queued"})
	r.Finish()
	if got := strings.TrimSpace(b.String()); got != "loadgen: steady  10s  ops 5  90/s (target 120/s)  worst p99 0s  errors 0  busiest rs2 97% (modeled), 12 queued" {
		t.Errorf("line %q", got)
	}
}

// run is a 3 s warm-up then a 4 s steady phase, one status a second, with
// Elapsed counted from the run's start as loadgen passes it.
func run(warmupOps int64) []Status {
	var ss []Status
	for s := 1; s <= 7; s++ {
		st := Status{Phase: "steady", Elapsed: time.Duration(s) * time.Second, Warmup: 3 * time.Second,
			Total: 7 * time.Second, Ops: int64(s-3) * 100, Rate: 100}
		if s <= 3 {
			st.Phase, st.Ops, st.Rate = "warmup", warmupOps*int64(s), 0
		}
		ss = append(ss, st)
	}
	return ss
}

// The warm-up shows its own clock and what it did; the clock then runs on
// through the steady phase without a jump.
func TestWarmupVisibleAndClockContinuous(t *testing.T) {
	var b strings.Builder
	r := NewTo(&b, Lines)
	lines := r.d.(*lines)
	lines.every = 0 // every status
	for _, s := range run(40) {
		r.Update(s)
	}
	got := strings.Split(strings.TrimSpace(b.String()), "\n")
	want := []string{
		"loadgen: warm-up 1s/3s (not recorded)  ops 40",
		"loadgen: warm-up 2s/3s (not recorded)  ops 80",
		"loadgen: warm-up 3s/3s (not recorded)  ops 120",
		"loadgen: steady  4s/7s incl. 3s warm-up  ops 100  100/s  worst p99 0s  errors 0",
	}
	for i, w := range want {
		if i >= len(got) || got[i] != w {
			t.Fatalf("lines:\n%s\nwant, from the first:\n%s", b.String(), strings.Join(want, "\n"))
		}
	}
	clocks := regexp.MustCompile(`(?m) (\d+)s/\d+s`).FindAllStringSubmatch(b.String(), -1)
	for i, c := range clocks {
		if c[1] != string(rune('1'+i)) {
			t.Errorf("clock %d reads %ss: elapsed jumps\n%s", i+1, c[1], b.String())
		}
	}
}

// The bar fills through the warm-up and on at the same pace, and each
// drawing carries the status it was drawn for.
func TestBarFillsThroughWarmup(t *testing.T) {
	var b strings.Builder
	r := NewTo(&b, Bar)
	var fills []int
	for _, s := range run(0) {
		r.Update(s)
		fills = append(fills, int(r.d.(*bar).b.State().CurrentNum))
		if last := lastDrawn(b.String()); !strings.Contains(last, s.clock()) {
			t.Errorf("at %v the bar reads %q, want %q in it", s.Elapsed, last, s.clock())
		}
	}
	for i, f := range fills {
		want := min((i+1)*barSteps/7, barSteps-1)
		if f < want-1 || f > want+1 {
			t.Errorf("fill after %ds: %d of %d, want %d", i+1, f, barSteps, want)
		}
	}
	r.Finish()
	if lastDrawn(b.String()) != "" {
		t.Errorf("the bar stays after Finish: %q", lastDrawn(b.String()))
	}
}

// lastDrawn is what a terminal's last line shows after out: a carriage
// return moves back to the line's start, later text overwrites.
func lastDrawn(out string) string {
	var line []rune
	col := 0
	for _, r := range out {
		switch r {
		case '\r':
			col = 0
		case '\n':
			line, col = nil, 0
		default:
			if col < len(line) {
				line[col] = r
			} else {
				line = append(line, r)
			}
			col++
		}
	}
	return strings.TrimRight(string(line), " ")
}

func TestQuietShowsNothing(t *testing.T) {
	var b strings.Builder
	r := NewTo(&b, Quiet)
	m := NewMeter(&b, Quiet, "verify")
	for _, s := range run(10) {
		r.Update(s)
		m.Update(Count{Done: 10, Estimate: 20, Elapsed: s.Elapsed})
	}
	r.Finish()
	m.Finish()
	if b.Len() != 0 {
		t.Errorf("quiet wrote %q", b.String())
	}
}

func TestMeterLines(t *testing.T) {
	var b strings.Builder
	m := NewMeter(&b, Lines, "verify")
	for s := 1; s <= 21; s++ {
		m.Update(Count{Done: int64(s) * 50_000, Estimate: 2_000_000, Elapsed: time.Duration(s) * time.Second})
	}
	m.Finish()
	got := strings.Split(strings.TrimSpace(b.String()), "\n")
	want := []string{
		"verify: 50k rows read, 50k rows/s, ETA ~39s",
		"verify: 550k rows read, 50k rows/s, ETA ~29s",
		"verify: 1.1M rows read, 50k rows/s, ETA ~19s",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("lines:\n%s\nwant:\n%s", b.String(), strings.Join(want, "\n"))
	}
}

// The estimate grows while comments are counted: the bar never overflows,
// and no ETA is shown while what is done is not below the estimate.
func TestMeterBarBeyondEstimate(t *testing.T) {
	var b strings.Builder
	m := NewMeter(&b, Bar, "verify")
	m.Update(Count{Done: 300, Estimate: 100, Elapsed: time.Second})
	if got := m.d.(*bar).b.State().CurrentNum; got != barSteps-1 {
		t.Errorf("fill %d, want all but the last step (%d): a full bar is finished and draws no more", got, barSteps-1)
	}
	if last := lastDrawn(b.String()); !strings.Contains(last, "300 rows read, 300 rows/s") || strings.Contains(last, "ETA") {
		t.Errorf("drawn %q", last)
	}
}

// The load phase says how many comments of how many it has written, and
// the bar fills with that share.
func TestLoadPhaseShown(t *testing.T) {
	var b strings.Builder
	r := NewTo(&b, Lines)
	r.Update(Status{Phase: "load", Elapsed: 12 * time.Second, Ops: 250_000, OpsTotal: 1_000_000, Errors: 3})
	if got, want := strings.TrimSpace(b.String()), "loadgen: load 12s  comments 250000/1000000 (not recorded)  errors 3"; got != want {
		t.Errorf("line %q\nwant %q", got, want)
	}
	b.Reset()
	r = NewTo(&b, Bar)
	r.Update(Status{Phase: "load", Elapsed: 12 * time.Second, Ops: 250_000, OpsTotal: 1_000_000, Total: time.Hour})
	if f := r.d.(*bar).b.State().CurrentNum; f != barSteps/4 {
		t.Errorf("bar at a quarter of the load: %d of %d, want %d", f, barSteps, barSteps/4)
	}
}
