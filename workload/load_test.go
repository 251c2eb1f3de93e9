package workload

import (
	"context"
	"strings"
	"testing"
	"time"

	"commentbench/comments"
	"commentbench/keys"
	"commentbench/results"
	"commentbench/store"
)

// runLoaded runs sc on st as runStopped does and returns the outcome, the
// recorded totals and the comments acknowledged.
func runLoaded(t *testing.T, st store.Store, sc Scenario, stopAfter time.Duration) (Outcome, map[string]results.OpTotals, int64) {
	t.Helper()
	env, out, tot := runStopped(t, st, sc, stopAfter)
	return out, tot, ackedComments(env)
}

// The load phase writes Users x LoadPerUser comments, however the workers
// share them out, records none of them, and the steady phase runs after it.
func TestLoadPhaseWritesItsCountUnrecorded(t *testing.T) {
	sc := testScenario(t, "unique")
	sc.Users, sc.LoadPerUser, sc.Workers = 101, 7, 3 // 707 comments over 3 workers
	sc.Mix = map[string]float64{"list": 1}
	sc.Ops, sc.Warmup = 40, 0
	out, tot, acked := runLoaded(t, openEngine(t), sc, 0)
	if out.Loaded != 707 || acked != 707 {
		t.Errorf("load phase wrote %d, %d acknowledged; want 707 and 707", out.Loaded, acked)
	}
	if n := tot["comment-write"].Count + tot["order-create"].Count; n != 0 {
		t.Errorf("%d load-phase writes were recorded; want 0", n)
	}
	if n := tot["product-latest"].Count; n != 40 {
		t.Errorf("steady phase recorded %d listings; want its 40", n)
	}
	if out.LoadTime <= 0 || out.Start.IsZero() {
		t.Errorf("load time %v, steady start %v: want both set", out.LoadTime, out.Start)
	}
}

// Without load_per_user there is no load phase.
func TestNoLoadPhase(t *testing.T) {
	sc := testScenario(t, "unique")
	sc.Mix = map[string]float64{"list": 1}
	sc.Ops, sc.Warmup = 10, 0
	out, _, acked := runLoaded(t, openEngine(t), sc, 0)
	if out.Loaded != 0 || out.LoadTime != 0 || acked != 0 {
		t.Errorf("loaded %d in %v, %d acknowledged; want no load phase", out.Loaded, out.LoadTime, acked)
	}
}

// Cancelling during the load phase ends the run there: no steady phase,
// nothing recorded, the load cut short.
func TestLoadPhaseInterrupted(t *testing.T) {
	sc := testScenario(t, "unique")
	sc.LoadPerUser = 1000 // 500,000 comments, 1 ms each: far more than the 300 ms allowed
	sc.Ops, sc.Duration = 0, Duration(time.Hour)
	out, tot, _ := runLoaded(t, slowStore{openEngine(t), time.Millisecond}, sc, 300*time.Millisecond)
	if !out.Interrupted || out.Loaded == 0 || out.Loaded >= 500_000 {
		t.Errorf("interrupted=%v, loaded %d; want interrupted part way", out.Interrupted, out.Loaded)
	}
	var recorded int64
	for _, o := range tot {
		recorded += o.Count
	}
	if recorded != 0 || out.Pacing.Arrivals != 0 || !out.Start.Equal(out.End) {
		t.Errorf("recorded %d ops, %d arrivals, steady %v to %v; want no steady phase", recorded, out.Pacing.Arrivals, out.Start, out.End)
	}
}

// Processes sharing a load write it once between them: their shares add
// up to the whole and differ by at most one.
func TestLoadTotalSplits(t *testing.T) {
	for _, users := range []int{1, 7, 100, 20_000} {
		for _, per := range []int{0, 1, 3, 50} {
			for total := 1; total <= 9; total++ {
				var sum, lo, hi int64 = 0, 1 << 62, -1
				for i := range total {
					n := Config{Scenario: Scenario{Users: users, LoadPerUser: per}, WorkerIndex: i, WorkersTotal: total}.LoadTotal()
					sum, lo, hi = sum+n, min(lo, n), max(hi, n)
				}
				if want := int64(users * per); sum != want || hi-lo > 1 {
					t.Fatalf("users %d x %d over %d processes: shares sum to %d (want %d), spread %d..%d", users, per, total, sum, want, lo, hi)
				}
			}
		}
	}
}

// The ticks say the phase: the load first, counting up its comments, then
// the warm-up, then the steady phase, each in one stretch.
func TestLoadPhaseTicks(t *testing.T) {
	sc := testScenario(t, "unique")
	sc.Users, sc.LoadPerUser, sc.Workers = 50, 4, 2
	sc.Mix = map[string]float64{"list": 1}
	sc.Ops, sc.Warmup, sc.Interval = 20, Duration(60*time.Millisecond), Duration(10*time.Millisecond)
	st := slowStore{openEngine(t), time.Millisecond} // 200 comments take a few intervals
	layout, _ := keys.Load(sc.Layout)
	var phases []string
	var loaded []int64
	cfg := Config{Scenario: sc, Results: results.NewSet(ResultNames()), WorkersTotal: 1,
		Sys: comments.New(st, comments.Options{Layout: layout}),
		OnTick: func(tk Tick) {
			if len(phases) == 0 || phases[len(phases)-1] != tk.Phase {
				phases = append(phases, tk.Phase)
			}
			loaded = append(loaded, tk.Loaded)
		}}
	env, err := Prepare(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.Run(context.Background(), cfg); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(phases, " "); got != "load warmup steady" {
		t.Errorf("phases %q, want %q", got, "load warmup steady")
	}
	for i := 1; i < len(loaded); i++ {
		if loaded[i] < loaded[i-1] || loaded[i] > 200 {
			t.Fatalf("loaded per tick %v: want it rising to 200, never past", loaded)
		}
	}
	if last := loaded[len(loaded)-1]; last != 200 {
		t.Errorf("loaded at the end %d, want 200", last)
	}
}
