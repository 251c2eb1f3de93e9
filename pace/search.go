package pace

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Target is a rate its owner sets as the run goes (a capacity search
// probing one rate after another). Gen counts the settings, so a
// dispatcher can tell a new rate from the old and start its schedule anew:
// the arrivals an overloaded probe left behind are not the next probe's.
type Target struct {
	bits atomic.Uint64 // math.Float64bits of the rate
	gen  atomic.Int64
}

// NewTarget starts at rate.
func NewTarget(rate float64) *Target {
	t := &Target{}
	t.Set(rate)
	return t
}

// Set changes the rate from the next arrival on.
func (t *Target) Set(rate float64) {
	t.bits.Store(math.Float64bits(rate))
	t.gen.Add(1)
}

// Gen is how many times the rate was set.
func (t *Target) Gen() int64 { return t.gen.Load() }

// At is the rate now, whatever the elapsed time.
func (t *Target) At(time.Duration) float64 { return math.Float64frombits(t.bits.Load()) }

// Step is the setting's number.
func (t *Target) Step(time.Duration) int { return int(t.gen.Load()) }

func (t *Target) String() string { return formatRate(t.At(0)) + "/s (searched)" }

// Search finds the highest rate at which every SLO holds, to within
// Within, by bisection between From and To: it probes From, then To, then
// the middle of the highest rate that held and the lowest that did not,
// until the two are within Within of each other. It knows nothing of how a
// probe is run: the caller runs each Next and reports it with Done.
type Search struct {
	From, To float64
	Within   float64 // relative: 0.05 stops when fail/pass ≤ 1.05

	pass, fail float64 // the highest rate that held, the lowest that did not; 0: none yet
	begun      bool    // From was probed
}

// DefaultWithin is how close the search gets: 5%.
const DefaultWithin = 0.05

// ParseSearch reads FROM:TO, e.g. 100:5000.
func ParseSearch(s string) (*Search, error) {
	lo, hi, ok := strings.Cut(strings.TrimSpace(s), ":")
	from, err1 := strconv.ParseFloat(lo, 64)
	to, err2 := strconv.ParseFloat(hi, 64)
	switch {
	case !ok || err1 != nil || err2 != nil:
		return nil, fmt.Errorf("--find-capacity %q: want FROM:TO arrivals a second, e.g. 100:5000", s)
	case positive("FROM", from) != nil || positive("TO", to) != nil:
		return nil, fmt.Errorf("--find-capacity %q: FROM and TO must be above 0", s)
	case to <= from:
		return nil, fmt.Errorf("--find-capacity %q: TO %s is not above FROM %s", s, formatRate(to), formatRate(from))
	}
	return &Search{From: from, To: to, Within: DefaultWithin}, nil
}

// Next is the rate to probe next, and false when the search is over.
func (s *Search) Next() (float64, bool) {
	switch {
	case !s.begun:
		return s.From, true
	case s.pass == 0: // even From breached: the capacity is below the range
		return 0, false
	case s.fail == 0 && s.pass < s.To:
		return s.To, true
	case s.fail == 0: // To held: the capacity is above the range
		return 0, false
	case s.fail <= s.pass*(1+s.Within):
		return 0, false
	}
	return (s.pass + s.fail) / 2, true
}

// Done reports the probe at rate: whether every SLO held.
func (s *Search) Done(rate float64, held bool) {
	s.begun = true
	switch {
	case held && rate > s.pass:
		s.pass = rate
	case !held && (s.fail == 0 || rate < s.fail):
		s.fail = rate
	}
}

// Result is the search's answer: Capacity, the highest rate probed at
// which every SLO held (0 when none did), and where the truth lies:
// below From, above To, or within Within of Capacity.
func (s *Search) Result() (capacity float64, note string) {
	switch {
	case s.pass == 0:
		return 0, fmt.Sprintf("below %s/s: the search's lowest rate breached", formatRate(s.From))
	case s.fail == 0:
		return s.pass, fmt.Sprintf("at least %s/s: the search's highest rate held", formatRate(s.To))
	}
	return s.pass, fmt.Sprintf("between %s/s (held) and %s/s (breached)", formatRate(s.pass), formatRate(s.fail))
}
