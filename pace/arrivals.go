package pace

import (
	"math"
	"math/rand/v2"
	"time"
)

// Arrivals yields the intended start offsets, from the run's start, of an
// open-loop run's operations. It is not safe for concurrent use: one
// goroutine dispatches arrivals to the workers.
type Arrivals struct {
	rate    Rate
	poisson bool
	r       *rand.Rand
	// next is kept in float64 nanoseconds so that gaps like 1/3 s do not
	// lose a fraction of a nanosecond each and drift over a long run.
	next float64
}

// NewArrivals starts a schedule at offset 0. With poisson the gaps are
// exponential (drawn from r, so a seeded r reproduces the schedule);
// otherwise they are exactly 1/rate and r may be nil.
func NewArrivals(rate Rate, poisson bool, r *rand.Rand) *Arrivals {
	if poisson && r == nil {
		panic("pace: Poisson arrivals need a *rand.Rand")
	}
	return &Arrivals{rate: rate, poisson: poisson, r: r}
}

// Next returns the next intended start offset. The gap after an arrival
// uses the rate at that arrival, so a rate change takes effect from the
// next arrival on. A rate that is not > 0 stops arrivals: Next then returns
// the largest Duration, which no run reaches.
func (a *Arrivals) Next() time.Duration {
	at := a.next
	if at >= math.MaxInt64 {
		return time.Duration(math.MaxInt64)
	}
	a.next += a.gap(time.Duration(at))
	return time.Duration(at)
}

func (a *Arrivals) gap(at time.Duration) float64 {
	rate := a.rate.At(at)
	if !(rate > 0) {
		return math.Inf(1)
	}
	mean := float64(time.Second) / rate
	if a.poisson {
		return a.r.ExpFloat64() * mean
	}
	return mean
}
