package main

import (
	"fmt"
	"io"
	"time"

	"commentbench/pace"
	"commentbench/results"
	"commentbench/workload"
)

// A capacity run gathers its steady intervals by the rate they were
// offered at: a --ramp by its steps, a --find-capacity search by its
// probes. stepper is the one a run has.
type stepper interface {
	// add files a steady interval, its busiest server and hottest region.
	add(t workload.Tick, busiest *results.ServerShare, hottest results.RegionHeat)
	// finish gives the steps (or probes) and the capacity found.
	finish(slos []results.SLO) ([]results.Step, *results.Capacity)
}

// ramp gathers a stepped ramp's intervals by step.
type ramp struct{ steps *results.Steps }

func (r *ramp) add(t workload.Tick, busiest *results.ServerShare, hottest results.RegionHeat) {
	r.steps.Add(t.Target, t.Interval, busiest, hottest)
}

func (r *ramp) finish(slos []results.SLO) ([]results.Step, *results.Capacity) {
	return r.steps.Finish(slos)
}

// search runs a capacity search: each probe holds its rate for a settle
// time (its queues fill, an earlier probe's backlog drains; nothing is
// judged), then a probe time judged against the SLOs; the next rate is the
// bisection's. The run ends when the search does.
type search struct {
	s      *pace.Search
	target *pace.Target
	slos   []results.SLO
	stop   func()
	log    io.Writer

	settleTicks, probeTicks int // settle and probe, in results intervals

	rate   float64
	ticks  int // intervals into this probe
	acc    *results.Steps
	probes []results.Step
	first  *results.Breach // the lowest rate's breach
}

func newSearch(s *pace.Search, slos []results.SLO, settle, probe, interval time.Duration, stop func(), log io.Writer) *search {
	sr := &search{s: s, target: pace.NewTarget(s.From), slos: slos, stop: stop, log: log,
		settleTicks: int((settle + interval/2) / interval), probeTicks: max(1, int((probe+interval/2)/interval))}
	sr.begin(s.From)
	return sr
}

func (sr *search) begin(rate float64) {
	sr.rate, sr.ticks, sr.acc = rate, 0, results.NewSteps()
	sr.target.Set(rate)
}

func (sr *search) add(t workload.Tick, busiest *results.ServerShare, hottest results.RegionHeat) {
	if sr.acc == nil {
		return // over: the run is stopping
	}
	// Counted in intervals, not summed time: a tick a hair late would make
	// a settle interval a judged one.
	sr.ticks++
	if sr.ticks <= sr.settleTicks {
		return
	}
	sr.acc.Add(sr.rate, t.Interval, busiest, hottest)
	if sr.ticks < sr.settleTicks+sr.probeTicks {
		return
	}
	steps, c := sr.acc.Finish(sr.slos)
	st := steps[0]
	sr.probes = append(sr.probes, st)
	if !st.Met && (sr.first == nil || st.Target < sr.first.Target) {
		sr.first = c.FirstBreach
	}
	verdict := "held"
	if !st.Met {
		verdict = "BREACHED"
	}
	fmt.Fprintf(sr.log, "loadgen: capacity search: probe %d at %.1f/s %s\n", len(sr.probes), sr.rate, verdict)
	sr.s.Done(sr.rate, st.Met)
	next, ok := sr.s.Next()
	if !ok {
		sr.acc = nil
		sr.stop()
		return
	}
	sr.begin(next)
}

func (sr *search) finish([]results.SLO) ([]results.Step, *results.Capacity) {
	knee, note := sr.s.Result()
	return sr.probes, &results.Capacity{KneeRate: knee, FirstBreach: sr.first,
		Search: &results.SearchNote{From: sr.s.From, To: sr.s.To, Within: sr.s.Within, Probes: len(sr.probes), Note: note}}
}

// searchBound is how long a search can take at the most: From, To, and
// the halvings from the range down to Within, each a settle and a probe.
func searchBound(s *pace.Search, settle, probe time.Duration) time.Duration {
	n := 2
	for lo, hi := s.From, s.To; hi > lo*(1+s.Within); n++ {
		hi = (lo + hi) / 2
	}
	return time.Duration(n+1) * (settle + probe)
}
