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

// A step keeps its intervals' busiest server and hottest region: the most
// of each, the first of equals.
func TestStepsKeepTheMost(t *testing.T) {
	s := NewSteps()
	iv := intervalOf("w", 0, 1000)
	s.Add(100, iv, &ServerShare{Server: "rs1", Value: 0.5}, RegionHeat{"a", 0.3})
	s.Add(100, iv, &ServerShare{Server: "rs2", Value: 0.5}, RegionHeat{"b", 0.3}) // equal: the first stays
	s.Add(100, iv, nil, RegionHeat{})
	s.Add(100, iv, &ServerShare{Server: "rs3", Value: 0.4}, RegionHeat{"c", 0.2})
	steps, _ := s.Finish(nil)
	if st := steps[0]; st.Busiest.Server != "rs1" || st.HottestRegion != "a" || st.Hottest != 0.3 {
		t.Errorf("step kept %+v and %s %v, want rs1 and a at 0.3", st.Busiest, st.HottestRegion, st.Hottest)
	}
	s.Add(100, iv, &ServerShare{Server: "rs4", Value: 0.6}, RegionHeat{"d", 0.7})
	steps, _ = s.Finish(nil)
	if st := steps[0]; st.Busiest.Server != "rs4" || st.HottestRegion != "d" {
		t.Errorf("step kept %+v and %s, want rs4 and d: the most", st.Busiest, st.HottestRegion)
	}
}

// An op that only failed in a step is in its table at a 100% error rate,
// one that did nothing is not; the step's seconds make its rates, and an
// SLO on throughput reads them; a step of no time has no rate.
func TestStepsOpsAndRates(t *testing.T) {
	s := NewSteps()
	iv := intervalOf("w", 0, 1000, 2000)
	iv.End = iv.Start.Add(2 * time.Second)
	iv.Ops = append(iv.Ops, OpInterval{Op: "f", Errors: 2}, OpInterval{Op: "idle"})
	s.Add(100, iv, nil, RegionHeat{})
	s.Add(200, Interval{Start: t0, End: t0, Ops: []OpInterval{{Op: ActionPrefix + "x", Count: 3}}}, nil, RegionHeat{})
	steps, _ := s.Finish([]SLO{mustSLO(t, "w:throughput<=1.5/s")})
	st := steps[0]
	if len(st.Ops) != 2 || st.Ops[0].Op != "f" || st.Ops[0].ErrorRate != 100 || st.Ops[1].Op != "w" || st.Ops[1].ErrorRate != 0 {
		t.Errorf("step ops %+v, want f at 100%% errors and w at 0, idle left out", st.Ops)
	}
	if st.Seconds != 2 || !st.Met || st.Achieved != 1 {
		t.Errorf("step of 2 s: seconds %v, throughput SLO met %v (%+v), achieved %v; want 2, met (1/s), 1", st.Seconds, st.Met, st.SLOs, st.Achieved)
	}
	if st := steps[1]; st.Achieved != 0 || st.Seconds != 0 {
		t.Errorf("a step of no time: achieved %v over %v s, want 0", st.Achieved, st.Seconds)
	}
}

// A searched capacity's console: its probes under "probe", the answer with
// its closeness and where it lies, the lowest breach, and there the busiest
// server and the hottest region by its table.
func TestStepsConsoleSearch(t *testing.T) {
	steps := []Step{
		{Target: 500, Achieved: 499.5, Met: true, SLOs: []SLOResult{{Met: true}}, Hottest: 0.125,
			Ops: []StepOp{{Op: "w", P99: 5.5, ErrorRate: 0.5}}, Busiest: &ServerShare{Server: "rs1", Value: 0.626, Modeled: true}},
		{Target: 1200, Achieved: 799, Met: false, SLOs: []SLOResult{{}}, Hottest: 0.11,
			Ops: []StepOp{{Op: "w", P99: 1660}}, Busiest: &ServerShare{Server: "rs1", Value: 1}},
	}
	c := &Capacity{KneeRate: 806.25, Search: &SearchNote{Within: 0.05, Probes: 2, Note: "between 806.25/s (held) and 828.125/s (breached)"},
		FirstBreach: &Breach{SLO: "w:p99<=100ms", Actual: 244, Unit: "ms", Target: 828.125,
			Busiest: &ServerShare{Server: "rs1", Value: 0.998, Modeled: true}, Hottest: 0.104, HottestRegion: "order,aAA,1795.0123abcd."}}
	var b strings.Builder
	printSteps(&b, steps, c)
	want := `probe      target/s  achieved/s  worst p99  errors  SLOs      busiest    hottest
  1           500.0       499.5     5.50ms    0.5%  met       rs1 63%*      12%
  2          1200.0       799.0      1.66s    0.0%  BREACHED  rs1 100%      11%
  (* utilization of a modeled server; otherwise its share of requests)
capacity: 806.2/s (searched to within 5%, 2 probes)
  between 806.25/s (held) and 828.125/s (breached)
lowest breach at 828.1/s: w:p99<=100ms (244ms)
  there: busiest server rs1 100%*, hottest region 10% of requests (in order)
`
	if got := b.String(); got != want {
		t.Errorf("console:\n%s\nwant\n%s", got, want)
	}
	b.Reset()
	c.KneeRate, c.Search = 0, nil
	printSteps(&b, steps, c)
	if got := b.String(); !strings.Contains(got, "knee: none (the first step breached); first breach at 828.1/s") || !strings.HasPrefix(got, "ramp step") {
		t.Errorf("ramp console:\n%s", got)
	}
}
