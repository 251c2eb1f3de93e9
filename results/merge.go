package results

import (
	"fmt"
	"maps"
	"slices"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Merge combines several runs' summaries exactly: histograms are decoded
// and merged, so merged percentiles equal those of one run that recorded
// everything. Counts, errors, violations and pacing are summed; Start is
// the earliest, End the latest, and rates are over that span. Config,
// Spread and Backend come from the first summary; SLOs are dropped, to be evaluated
// again on the merged result. Hot keys sum per key (mergeHotKeys). names
// become Merged.
func Merge(sums []Summary, names []string) (Summary, error) {
	if len(sums) == 0 {
		return Summary{}, fmt.Errorf("results: merge: no summaries")
	}
	out := newSummary(sums[0].Start, sums[0].End)
	out.Config, out.Spread, out.Backend, out.Merged = sums[0].Config, sums[0].Spread, sums[0].Backend, slices.Clone(names)
	out.Stores, out.BiggestRows, out.MaxRowSize = sums[0].Stores, sums[0].BiggestRows, sums[0].MaxRowSize
	acc := map[string]*opAcc{}
	var order []string
	for i, s := range sums {
		if err := checkMergeable(s); err != nil {
			return Summary{}, fmt.Errorf("results: merge %s: %w", nameOf(names, i), err)
		}
		out.Start, out.End = minTime(out.Start, s.Start), maxTime(out.End, s.End)
		out.Pacing = addPacing(out.Pacing, s.Pacing, i == 0)
		out.Violations = addViolations(out.Violations, s.Violations)
		for _, o := range s.entries() {
			if acc[o.Op] == nil {
				acc[o.Op] = &opAcc{lat: newHist(), svc: newHist(), byKind: map[string]int64{}}
				order = append(order, o.Op)
			}
			if err := acc[o.Op].add(o); err != nil {
				return Summary{}, fmt.Errorf("results: merge %s: op %s: %w", nameOf(names, i), o.Op, err)
			}
		}
	}
	out.DurationSec = out.End.Sub(out.Start).Seconds()
	for _, op := range order {
		a := acc[op]
		o, err := opSummary(op, a.lat, a.svc, a.errs, a.byKind)
		if err != nil {
			return Summary{}, err
		}
		o.Clamped = a.clamped
		o.Listing = listingCost(a.cost)
		out.add(o)
	}
	out.setRates()
	mergeFlaws(&out, sums)
	out.Consistency = mergeConsistency(sums)
	out.HotKeys = mergeHotKeys(sums)
	out.HotRows = mergeHotRows(sums)
	out.Load = mergeLoad(sums)
	out.Fleet = mergeFleet(sums)
	if out.Fleet != nil {
		out.RunID = sums[0].RunID
	}
	return out, nil
}

// mergeLoad is the load phases of processes that ran side by side as one
// load: their comments summed, over the longest one's time. Nil when none
// had one.
func mergeLoad(sums []Summary) *LoadPhase {
	var out *LoadPhase
	for _, s := range sums {
		if s.Load == nil {
			continue
		}
		if out == nil {
			out = &LoadPhase{}
		}
		out.Comments += s.Load.Comments
		out.Seconds = max(out.Seconds, s.Load.Seconds)
	}
	return out
}

func nameOf(names []string, i int) string {
	if i < len(names) {
		return names[i]
	}
	return fmt.Sprintf("summary %d", i+1)
}

// checkMergeable rejects what cannot merge: another format, or an op named
// twice in one run (its two entries could not be told apart).
func checkMergeable(s Summary) error {
	if s.Version != FormatVersion {
		return fmt.Errorf("format version %d, want %d", s.Version, FormatVersion)
	}
	seen := map[string]bool{}
	for _, o := range s.entries() {
		if seen[o.Op] {
			return fmt.Errorf("op %s appears twice", o.Op)
		}
		seen[o.Op] = true
	}
	return nil
}

// opAcc accumulates one op over several summaries.
type opAcc struct {
	lat, svc      *hdr.Histogram
	errs, clamped int64
	byKind        map[string]int64
	cost          Cost
}

func (a *opAcc) add(o OpSummary) error {
	lat, err := decode(o.LatencyHist)
	if err != nil {
		return fmt.Errorf("latency: %w", err)
	}
	// A count its histogram does not hold would merge into wrong percentiles.
	if lat.TotalCount() != o.Count {
		return fmt.Errorf("count %d but latency histogram holds %d", o.Count, lat.TotalCount())
	}
	svc, err := decode(o.ServiceHist)
	if err != nil {
		return fmt.Errorf("service: %w", err)
	}
	a.lat.Merge(lat)
	a.svc.Merge(svc)
	a.errs += o.Errors
	a.clamped += o.Clamped
	if o.Listing != nil {
		a.cost.add(o.Listing.Cost)
	}
	for k, n := range o.ErrorsByKind {
		a.byKind[k] += n
	}
	return nil
}

func addPacing(a, b Pacing, first bool) Pacing {
	if first {
		return b.Judged()
	}
	if a.Mode != b.Mode {
		a.Mode = "mixed"
	}
	a.Rate += b.Rate
	a.Arrivals += b.Arrivals
	a.Late += b.Late
	a.Unstarted += b.Unstarted
	a.WarmupDropped += b.WarmupDropped
	a.MaxLateMs = max(a.MaxLateMs, b.MaxLateMs)
	return a.Judged()
}

// addViolations adds b's counts and samples (capped) into a, making a if
// nil. b's Violations are never changed: a holds only its own.
func addViolations(a, b map[string]*Violation) map[string]*Violation {
	if len(b) == 0 {
		return a
	}
	if a == nil {
		a = map[string]*Violation{}
	}
	for _, k := range slices.Sorted(maps.Keys(b)) {
		v := b[k]
		if v == nil {
			continue
		}
		m := a[k]
		if m == nil {
			m = &Violation{}
			a[k] = m
		}
		m.Count += v.Count
		room := max(0, MaxSamples-len(m.Samples))
		m.Samples = append(m.Samples, v.Samples[:min(room, len(v.Samples))]...)
	}
	return a
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
