package results

import (
	"strings"
	"testing"
	"time"
)

func intervalOf(op string, errs int64, lat ...int64) Interval {
	h := newHist()
	for _, v := range lat {
		_ = h.RecordValue(v)
	}
	// Each value is one arrival's op, and its action: an arrival served.
	return Interval{Start: t0, End: t0.Add(time.Second), Ops: []OpInterval{{Op: op, Count: h.TotalCount(), Errors: errs, Hist: h},
		{Op: ActionPrefix + "do-" + op, Count: h.TotalCount(), Errors: errs, Hist: h}}}
}

// A ramp's steps: the knee is the last step at which every SLO held, the
// first breach names the SLO, its step and the busiest server there.
func TestStepsKnee(t *testing.T) {
	s := NewSteps()
	fast, slow := []int64{1000, 2000, 3000}, []int64{1000, 300000, 400000}
	s.Add(100, intervalOf("w", 0, fast...), &ServerShare{Server: "rs1", Value: 0.3, Modeled: true}, RegionHeat{"r4", 0.4})
	s.Add(100, intervalOf("w", 0, fast...), nil, RegionHeat{"r5", 0.5})
	s.Add(200, intervalOf("w", 0, fast...), &ServerShare{Server: "rs2", Value: 0.7, Modeled: true}, RegionHeat{"r5", 0.5})
	s.Add(300, intervalOf("w", 1, slow...), &ServerShare{Server: "rs2", Value: 0.99, Modeled: true}, RegionHeat{"r9", 0.9})
	s.Add(400, intervalOf("w", 0, fast...), nil, RegionHeat{"r1", 0.1}) // past the knee: not the knee, whatever it did
	steps, c := s.Finish([]SLO{mustSLO(t, "w:p99<=100ms")})
	if len(steps) != 4 || steps[0].Seconds != 2 || steps[0].Ops[0].Count != 6 || steps[0].Achieved != 3 || steps[0].Hottest != 0.5 {
		t.Fatalf("steps %+v", steps)
	}
	if len(steps[0].Ops) != 1 {
		t.Errorf("a step's ops %+v: want the op alone, its action apart", steps[0].Ops)
	}
	// Achieved counts arrivals served, failed ones too: 3 + 1 in 1 s.
	if steps[2].Achieved != 4 {
		t.Errorf("step at 300/s achieved %v/s, want 4 (its actions, the failed one too)", steps[2].Achieved)
	}
	if !steps[1].Met || steps[2].Met || steps[2].Ops[0].ErrorRate != 25 {
		t.Errorf("step verdicts %v %v, error rate %v", steps[1].Met, steps[2].Met, steps[2].Ops[0].ErrorRate)
	}
	if c == nil || c.KneeRate != 200 || c.FirstBreach == nil || c.FirstBreach.Target != 300 ||
		c.FirstBreach.SLO != "w:p99<=100ms" || c.FirstBreach.Busiest.Server != "rs2" || c.FirstBreach.Hottest != 0.9 || c.FirstBreach.HottestRegion != "r9" {
		t.Fatalf("capacity %+v %+v", c, c.FirstBreach)
	}
	var b strings.Builder
	printSteps(&b, steps, c)
	if !strings.Contains(b.String(), "knee: 200.0/s; first breach at 300.0/s: w:p99<=100ms") {
		t.Errorf("console:\n%s", b.String())
	}
	if !BreachedNow([]SLO{mustSLO(t, "w:p99<=100ms")}, intervalOf("w", 0, slow...)) || BreachedNow([]SLO{mustSLO(t, "w:p99<=100ms")}, intervalOf("w", 0, fast...)) {
		t.Error("BreachedNow")
	}
}

// An interval's achieved rate counts arrivals (actions), not their ops.
func TestIntervalAchieved(t *testing.T) {
	iv := Interval{Start: t0, End: t0.Add(2 * time.Second), Ops: []OpInterval{
		{Op: "order-create", Count: 10}, {Op: "comment-write", Count: 9, Errors: 1},
		{Op: ActionPrefix + "post-comment", Count: 9, Errors: 1}, {Op: ActionPrefix + "read-listing", Count: 4},
	}}
	if got := iv.Achieved(); got != 7 {
		t.Errorf("achieved %v/s, want 7: (9+1+4) actions over 2 s", got)
	}
	if got := (Interval{Start: t0, End: t0}).Achieved(); got != 0 {
		t.Errorf("achieved over no time %v, want 0", got)
	}
}
