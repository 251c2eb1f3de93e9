package results

import (
	"fmt"
	"slices"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"commentbench/spread"
)

// A stepped ramp (--ramp FROM:TO:STEP/EVERY) is a capacity search: each
// step holds one target rate, and the knee is the last step at which every
// SLO held. Steps gathers a run's intervals by step and finds it.

// Step is one step of a ramp, over its steady-phase intervals.
type Step struct {
	// Start is when the step's first arrival was due (a ramp's steps).
	Start    time.Time    `json:"start,omitzero"`
	Target   float64      `json:"target_rate"`
	Achieved float64      `json:"achieved_rate"`
	Seconds  float64      `json:"seconds"`
	Ops      []StepOp     `json:"ops"`
	SLOs     []SLOResult  `json:"slos,omitempty"`
	Met      bool         `json:"slos_met"`
	Busiest  *ServerShare `json:"busiest_server,omitempty"`
	Hottest  float64      `json:"hottest_region_share"` // of the step's requests
	// HottestRegion names the region that took that share.
	HottestRegion string `json:"hottest_region,omitempty"`
}

// RegionHeat is the region that took the most of an interval's requests,
// and its share.
type RegionHeat struct {
	Region string
	Share  float64
}

// StepOp is one op within a step.
type StepOp struct {
	Op        string  `json:"op"`
	Count     int64   `json:"count"`
	P50       float64 `json:"p50"`
	P99       float64 `json:"p99"`
	P999      float64 `json:"p999"`
	ErrorRate float64 `json:"error_rate"` // percent
}

// ServerShare is the busiest server of a step: its utilization when the
// server model is on (Modeled), else its share of the step's requests.
type ServerShare struct {
	Server  string  `json:"server"`
	Value   float64 `json:"value"`
	Modeled bool    `json:"modeled"`
}

// Capacity is the ramp's answer: the knee, and what broke first.
type Capacity struct {
	// KneeRate is the target of the last step at which every SLO held; 0
	// when even the first step breached.
	KneeRate float64 `json:"knee_rate"`
	// FirstBreach is the first SLO to fail, at which step, and the busiest
	// server and hottest region share there. In a search it is the
	// breach of the lowest rate that breached.
	FirstBreach *Breach `json:"first_breach,omitempty"`
	// Search is set when the knee was searched for (--find-capacity)
	// rather than ramped to: the range, and how close it got.
	Search *SearchNote `json:"search,omitempty"`
}

// SearchNote is a capacity search: its range, the closeness it stopped
// at, and where the capacity lies.
type SearchNote struct {
	From   float64 `json:"from"`
	To     float64 `json:"to"`
	Within float64 `json:"within"`
	Probes int     `json:"probes"`
	Note   string  `json:"note"`
}

// Breach is an SLO that failed at a step.
type Breach struct {
	SLO           string       `json:"slo"`
	Actual        float64      `json:"actual"`
	Unit          string       `json:"unit"`
	Target        float64      `json:"target_rate"`
	Busiest       *ServerShare `json:"busiest_server,omitempty"`
	Hottest       float64      `json:"hottest_region_share"`
	HottestRegion string       `json:"hottest_region,omitempty"`
}

// Steps gathers intervals by their step's target rate.
type Steps struct {
	order []float64
	acc   map[float64]*stepAcc
}

type stepAcc struct {
	seconds float64
	lat     map[string]*hdr.Histogram
	errs    map[string]int64
	busiest *ServerShare
	hottest RegionHeat // the hottest region's share of an interval's requests, the step's most
}

// NewSteps starts with no step.
func NewSteps() *Steps { return &Steps{acc: map[float64]*stepAcc{}} }

// Add files one steady-phase interval at target: its ops, its busiest
// server, and the hottest region's share of its requests.
func (s *Steps) Add(target float64, iv Interval, busiest *ServerShare, hottest RegionHeat) {
	a, ok := s.acc[target]
	if !ok {
		a = &stepAcc{lat: map[string]*hdr.Histogram{}, errs: map[string]int64{}}
		s.acc[target] = a
		s.order = append(s.order, target)
	}
	a.seconds += iv.End.Sub(iv.Start).Seconds()
	for _, o := range iv.Ops {
		if o.Hist != nil {
			if a.lat[o.Op] == nil {
				a.lat[o.Op] = newHist()
			}
			a.lat[o.Op].Merge(o.Hist)
		}
		a.errs[o.Op] += o.Errors
	}
	if busiest != nil && (a.busiest == nil || busiest.Value > a.busiest.Value) {
		a.busiest = busiest
	}
	if hottest.Share > a.hottest.Share {
		a.hottest = hottest
	}
}

// BreachedNow evaluates slos on one interval, for --stop-on-breach.
func BreachedNow(slos []SLO, iv Interval) bool {
	s, err := intervalSummary(iv.Start, iv.End, func(yield func(string, *hdr.Histogram, int64)) {
		for _, o := range iv.Ops {
			yield(o.Op, o.Hist, o.Errors)
		}
	})
	if err != nil {
		return false
	}
	for _, r := range Evaluate(slos, s) {
		if !r.Met && r.Note == "" {
			return true
		}
	}
	return false
}

// intervalSummary is a Summary of a stretch of a run, for SLO evaluation.
func intervalSummary(start, end time.Time, each func(func(op string, lat *hdr.Histogram, errs int64))) (Summary, error) {
	s := newSummary(start, end)
	var err error
	each(func(op string, lat *hdr.Histogram, errs int64) {
		if lat == nil {
			lat = newHist()
		}
		o, oerr := opSummary(op, lat, newHist(), errs, nil)
		if oerr != nil && err == nil {
			err = oerr
		}
		s.add(o)
	})
	s.setRates()
	return s, err
}

// Finish evaluates each step against slos and finds the knee.
func (s *Steps) Finish(slos []SLO) ([]Step, *Capacity) {
	var out []Step
	capa := &Capacity{}
	breached := false
	for _, target := range s.order {
		a := s.acc[target]
		st := Step{Target: target, Seconds: a.seconds, Busiest: a.busiest, Hottest: a.hottest.Share, HottestRegion: a.hottest.Region, Met: true}
		ops := slices.Sorted(mapKeys(a.lat, a.errs))
		sum, err := intervalSummary(time.Time{}, time.Time{}.Add(time.Duration(a.seconds*float64(time.Second))),
			func(yield func(string, *hdr.Histogram, int64)) {
				for _, op := range ops {
					yield(op, a.lat[op], a.errs[op])
				}
			})
		if err != nil {
			continue
		}
		for _, o := range sum.Ops {
			if o.Count+o.Errors == 0 {
				continue
			}
			st.Ops = append(st.Ops, StepOp{Op: o.Op, Count: o.Count, P50: o.Latency.P50, P99: o.Latency.P99, P999: o.Latency.P999,
				ErrorRate: 100 * float64(o.Errors) / float64(o.Count+o.Errors)})
		}
		var arrivals int64 // served, as Interval.Achieved counts them
		for _, a := range sum.Actions {
			arrivals += a.Count + a.Errors
		}
		if a.seconds > 0 {
			st.Achieved = float64(arrivals) / a.seconds
		}
		st.SLOs = Evaluate(slos, sum)
		for _, r := range st.SLOs {
			if !r.Met && r.Note == "" {
				st.Met = false
				if capa.FirstBreach == nil {
					capa.FirstBreach = &Breach{SLO: r.SLO, Actual: r.Actual, Unit: r.Unit, Target: target, Busiest: a.busiest,
						Hottest: a.hottest.Share, HottestRegion: a.hottest.Region}
				}
			}
		}
		if st.Met && !breached {
			capa.KneeRate = target
		}
		breached = breached || !st.Met
		out = append(out, st)
	}
	if len(slos) == 0 {
		capa = nil
	}
	return out, capa
}

func mapKeys(a map[string]*hdr.Histogram, b map[string]int64) func(func(string) bool) {
	return func(yield func(string) bool) {
		seen := map[string]bool{}
		for k := range a {
			seen[k] = true
		}
		for k := range b {
			seen[k] = true
		}
		for k := range seen {
			if !yield(k) {
				return
			}
		}
	}
}

// printSteps writes the ramp's step table (or the search's probes) and
// its knee.
func printSteps(b *strings.Builder, steps []Step, c *Capacity) {
	if len(steps) == 0 {
		return
	}
	what := "ramp step"
	if c != nil && c.Search != nil {
		what = "probe    "
	}
	line(b, "%s  target/s  achieved/s  worst p99  errors  SLOs      busiest    hottest", what)
	for i, st := range steps {
		var worst float64
		var errRate float64
		for _, o := range st.Ops {
			worst, errRate = max(worst, o.P99), max(errRate, o.ErrorRate)
		}
		slos := "met"
		switch {
		case len(st.SLOs) == 0:
			slos = "-"
		case !st.Met:
			slos = "BREACHED"
		}
		line(b, "  %-7d %9s %11s %10s %6.1f%%  %-8s  %-9s  %5.0f%%", i+1, rate(st.Target), rate(st.Achieved),
			human(worst), errRate, slos, cut(serverText(st.Busiest), 9), 100*st.Hottest)
	}
	line(b, "  (* utilization of a modeled server; otherwise its share of requests)")
	if c == nil {
		return
	}
	printKnee(b, steps, c)
}

func serverText(s *ServerShare) string {
	if s == nil {
		return "-"
	}
	t := fmt.Sprintf("%s %.0f%%", s.Server, 100*s.Value)
	if s.Modeled {
		t += "*"
	}
	return t
}

// printKnee says where the SLOs broke: the knee, the first breach, and the
// busiest server and hottest region there.
func printKnee(b *strings.Builder, steps []Step, c *Capacity) {
	if s := c.Search; s != nil {
		line(b, "capacity: %s/s (searched to within %.0f%%, %d probes)", rate(c.KneeRate), 100*s.Within, s.Probes)
		line(b, "  %s", s.Note)
	}
	fb := c.FirstBreach
	if fb == nil {
		if c.Search == nil {
			line(b, "knee: not reached: every SLO held up to %s/s", rate(steps[len(steps)-1].Target))
		}
		return
	}
	knee := "none (the first step breached)"
	if c.KneeRate > 0 {
		knee = rate(c.KneeRate) + "/s"
	}
	if c.Search == nil {
		line(b, "knee: %s; first breach at %s/s: %s (%s)", knee, rate(fb.Target), fb.SLO, formatActual(SLOResult{Actual: fb.Actual, Unit: fb.Unit}))
	} else {
		line(b, "lowest breach at %s/s: %s (%s)", rate(fb.Target), fb.SLO, formatActual(SLOResult{Actual: fb.Actual, Unit: fb.Unit}))
	}
	at := "  there: busiest server " + serverText(fb.Busiest)
	if fb.HottestRegion != "" {
		at += fmt.Sprintf(", hottest region %.0f%% of requests (in %s)", 100*fb.Hottest, spread.RegionTable(fb.HottestRegion))
	}
	line(b, "%s", at)
}
