package pace

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

func TestConstantArrivalsFirstSecond(t *testing.T) {
	for _, rate := range []float64{1000, 3, 7777} {
		a := NewArrivals(Constant(rate), false, nil)
		n := countUntil(a, time.Second)
		if math.Abs(float64(n)-rate) > 1 {
			t.Errorf("rate %v: %d arrivals in the first second, want %v±1", rate, n, rate)
		}
	}
}

func TestConstantArrivalsDoNotDrift(t *testing.T) {
	a := NewArrivals(Constant(3), false, nil)
	var last time.Duration
	for range 3 * 3600 {
		last = a.Next()
	}
	if want := time.Hour - time.Second/3; absDur(last-want) > time.Microsecond {
		t.Errorf("arrival 10800 at %v, want %v", last, want)
	}
}

func TestPoissonRateAndVariation(t *testing.T) {
	const rate, n = 5000.0, 100_000
	a := NewArrivals(Constant(rate), true, rand.New(rand.NewPCG(1, 2)))
	prev := a.Next()
	var sum, sumSq float64
	for range n {
		next := a.Next()
		g := (next - prev).Seconds()
		sum, sumSq, prev = sum+g, sumSq+g*g, next
	}
	mean := sum / n
	if got := 1 / mean; math.Abs(got-rate)/rate > 0.03 {
		t.Errorf("mean rate %.1f, want %v±3%%", got, rate)
	}
	cv := math.Sqrt(sumSq/n-mean*mean) / mean
	if math.Abs(cv-1) > 0.03 {
		t.Errorf("coefficient of variation of gaps %.3f, want ≈1", cv)
	}
}

func TestPoissonReproducible(t *testing.T) {
	a := NewArrivals(Constant(100), true, rand.New(rand.NewPCG(7, 7)))
	b := NewArrivals(Constant(100), true, rand.New(rand.NewPCG(7, 7)))
	for i := range 1000 {
		if x, y := a.Next(), b.Next(); x != y {
			t.Fatalf("arrival %d: %v != %v with the same seed", i, x, y)
		}
	}
}

func TestRampStepBoundaries(t *testing.T) {
	r := Ramp{From: 100, To: 450, By: 100, Every: 2 * time.Second}
	want := []float64{100, 200, 300, 400, 450, 450}
	a := NewArrivals(r, false, nil)
	counts := make([]int, len(want))
	for {
		at := a.Next()
		i := int(at / r.Every)
		if i >= len(counts) {
			break
		}
		counts[i]++
		if got := r.Step(at); got != min(i, 4) {
			t.Fatalf("Step(%v) = %d, want %d", at, got, min(i, 4))
		}
	}
	for i, rate := range want {
		if exp := rate * r.Every.Seconds(); math.Abs(float64(counts[i])-exp) > 1 {
			t.Errorf("step %d: %d arrivals in %v, want %v±1", i, counts[i], r.Every, exp)
		}
	}
}

func TestRampAt(t *testing.T) {
	r := Ramp{From: 1000, To: 10000, By: 1000, Every: 30 * time.Second}
	cases := map[time.Duration]float64{
		0: 1000, 29 * time.Second: 1000, 30 * time.Second: 2000,
		270 * time.Second: 10000, time.Hour: 10000,
	}
	for at, want := range cases {
		if got := r.At(at); got != want {
			t.Errorf("At(%v) = %v, want %v", at, got, want)
		}
	}
	if r.Steps() != 10 {
		t.Errorf("Steps() = %d, want 10", r.Steps())
	}
}

func TestParseRamp(t *testing.T) {
	good := map[string]Ramp{
		"1000:10000:1000/30s": {1000, 10000, 1000, 30 * time.Second},
		"0.5:2:0.5/1m30s":     {0.5, 2, 0.5, 90 * time.Second},
		"100:100:1/1s":        {100, 100, 1, time.Second},
	}
	for in, want := range good {
		got, err := ParseRamp(in)
		if err != nil || got != want {
			t.Errorf("ParseRamp(%q) = %+v, %v; want %+v", in, got, err, want)
		}
		if again, err := ParseRamp(got.String()); err != nil || again != got {
			t.Errorf("ParseRamp(%q.String()) = %+v, %v", in, again, err)
		}
	}
	bad := map[string]string{
		"":                     "want From:To:Step/Every",
		"1000:10000:1000":      "want From:To:Step/Every",
		"1000:10000/30s":       "want From:To:Step/Every",
		"1:2:3:4/1s":           "want From:To:Step/Every",
		"garbage":              "want From:To:Step/Every",
		"x:10000:1000/30s":     `From "x" is not a number`,
		"1000:ten:1000/30s":    `To "ten" is not a number`,
		"1000:10000:/30s":      `Step "" is not a number`,
		"1000:10000:1000/soon": `Every "soon" is not a duration`,
		"1000:10000:1000/":     `Every "" is not a duration`,
		"0:10000:1000/30s":     "From 0 must be > 0",
		"-5:10000:1000/30s":    "From -5 must be > 0",
		"NaN:10000:1000/30s":   "From NaN must be > 0",
		"1000:10:1000/30s":     "To 10 is below From 1000",
		"1000:10000:0/30s":     "Step 0 must be > 0",
		"1000:10000:-1/30s":    "Step -1 must be > 0",
		"1000:10000:1000/0s":   "Every 0s must be > 0",
		"1000:10000:1000/-1s":  "Every -1s must be > 0",
	}
	for in, want := range bad {
		_, err := ParseRamp(in)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "--ramp ") {
			t.Errorf("ParseRamp(%q) error %v, want it to contain %q", in, err, want)
		}
	}
}

func TestConstantValidate(t *testing.T) {
	if err := Constant(1).Validate(); err != nil {
		t.Error(err)
	}
	for _, c := range []Constant{0, -1, Constant(math.NaN()), Constant(math.Inf(1))} {
		if c.Validate() == nil {
			t.Errorf("Constant(%v).Validate() = nil", float64(c))
		}
	}
}

func TestZeroRateStopsArrivals(t *testing.T) {
	a := NewArrivals(Constant(0), false, nil)
	if first, second := a.Next(), a.Next(); first != 0 || second != math.MaxInt64 {
		t.Errorf("arrivals at %v, %v; want 0 then never", first, second)
	}
}

func countUntil(a *Arrivals, end time.Duration) int {
	n := 0
	for a.Next() < end {
		n++
	}
	return n
}

func absDur(d time.Duration) time.Duration { return max(d, -d) }

// A rate so low that the next arrival would fall at the largest Duration or
// past it never arrives: Next says so, and never wraps around to a time
// before the run's start.
func TestArrivalAtTheLargestDuration(t *testing.T) {
	// 1e9·2⁻⁶³ per second is a gap of exactly 2⁶³ ns, one past MaxInt64.
	for _, rate := range []float64{1e9 * math.Exp2(-63), 1e9 * math.Exp2(-64), 1e-300} {
		a := NewArrivals(Constant(rate), false, nil)
		if first, second, third := a.Next(), a.Next(), a.Next(); first != 0 || second != math.MaxInt64 || third != math.MaxInt64 {
			t.Errorf("rate %g: arrivals at %d, %d, %d; want 0, then never", rate, first, second, third)
		}
	}
}

// A ramp that cannot climb (no step, no room, or no width to its steps)
// offers one rate and stays on its first step, whatever the time.
func TestFlatRamps(t *testing.T) {
	for _, c := range []struct {
		r     Ramp
		steps int
		at    float64
	}{
		{Ramp{From: 10, To: 20, By: 0, Every: time.Second}, 1, 10},
		{Ramp{From: 10, To: 20, By: -5, Every: time.Second}, 1, 10},
		{Ramp{From: 10, To: 10, By: 5, Every: time.Second}, 1, 10},
		{Ramp{From: 10, To: 5, By: 5, Every: time.Second}, 1, 5},
		{Ramp{From: 10, To: 20, By: 5, Every: 0}, 3, 10},
		{Ramp{From: 10, To: 20, By: 5, Every: -time.Second}, 3, 10},
	} {
		for _, at := range []time.Duration{-time.Second, 0, time.Second, time.Hour} {
			if s, rate := c.r.Step(at), c.r.At(at); s != 0 || rate != c.at {
				t.Errorf("%+v at %v: step %d, rate %v; want 0 and %v", c.r, at, s, rate, c.at)
			}
		}
		if n := c.r.Steps(); n != c.steps {
			t.Errorf("%+v: %d steps, want %d", c.r, n, c.steps)
		}
	}
}

// A ramp delayed by a warm-up holds its first rate through the warm-up and
// begins its steps after it.
func TestDelayedRamp(t *testing.T) {
	d := Delayed{Rate: Ramp{From: 100, To: 300, By: 100, Every: time.Second}, By: 2 * time.Second}
	for _, c := range []struct {
		at   time.Duration
		rate float64
		step int
	}{{0, 100, 0}, {1500 * time.Millisecond, 100, 0}, {2 * time.Second, 100, 0}, {3 * time.Second, 200, 1}, {9 * time.Second, 300, 2}} {
		if r, st := d.At(c.at), d.Step(c.at); r != c.rate || st != c.step {
			t.Errorf("at %v: rate %v step %d, want %v and %d", c.at, r, st, c.rate, c.step)
		}
	}
}
