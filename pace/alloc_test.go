//go:build !race

package pace

import (
	"math/rand/v2"
	"testing"
	"time"
)

// An open-loop run asks for an arrival per operation: the schedule must not
// allocate, whatever rate drives it (the race detector's instrumentation
// allocates, hence the build tag).
func TestNextDoesNotAllocate(t *testing.T) {
	target := &Target{}
	target.Set(1000)
	for name, rate := range map[string]Rate{
		"constant": Constant(1000),
		"ramp":     Delayed{Rate: Ramp{From: 100, To: 1000, By: 100, Every: time.Millisecond}, By: time.Millisecond},
		"searched": target,
	} {
		for _, poisson := range []bool{false, true} {
			a := NewArrivals(rate, poisson, rand.New(rand.NewPCG(1, 2)))
			if n := testing.AllocsPerRun(1000, func() { a.Next() }); n != 0 {
				t.Errorf("%s (poisson %v): %v allocations per arrival, want 0", name, poisson, n)
			}
		}
	}
}

func BenchmarkNext(b *testing.B) {
	a := NewArrivals(Delayed{Rate: Ramp{From: 100, To: 1e6, By: 100, Every: time.Millisecond}}, true, rand.New(rand.NewPCG(1, 2)))
	b.ReportAllocs()
	for b.Loop() {
		a.Next()
	}
}
