// Package pace owns when operations are meant to start. It produces the
// intended start offsets of an open-loop run: constant or Poisson arrivals
// at a rate that may step up over time. It must not know what the
// operations are; callers pair each arrival with whatever work they issue,
// and measure latency from the intended start so a stalled system cannot
// hide its queueing delay (coordinated omission).
package pace

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Rate is a target arrival rate that may change over the run.
type Rate interface {
	// At is the rate in operations per second at elapsed time into the run.
	At(elapsed time.Duration) float64
	// Step numbers the rate's steps (0 for a constant rate), so reports can
	// group results by the rate they were offered.
	Step(elapsed time.Duration) int
	String() string
}

// Constant is a fixed rate in operations per second.
type Constant float64

// At returns c whatever the elapsed time.
func (c Constant) At(time.Duration) float64 { return float64(c) }

// Step is always 0: a constant rate has one step.
func (c Constant) Step(time.Duration) int { return 0 }

func (c Constant) String() string { return formatRate(float64(c)) + "/s" }

// Validate rejects rates that would never produce an arrival.
func (c Constant) Validate() error {
	return positive("rate", float64(c))
}

// Ramp is a stepped ramp: From for the first Every, then By more each
// Every, holding at To once it is reached (the last step is clipped to To).
// The increment is called By, not Step, because Rate's Step method needs
// the name; ParseRamp's syntax still calls it Step.
type Ramp struct {
	From, To, By float64
	Every        time.Duration
}

// At is the rate of the step that elapsed falls in.
func (r Ramp) At(elapsed time.Duration) float64 {
	return math.Min(r.From+float64(r.Step(elapsed))*r.By, r.To)
}

// Step is 0 for the first Every, 1 for the next, ..., Steps()-1 from the
// step that reaches To onwards.
func (r Ramp) Step(elapsed time.Duration) int {
	if elapsed < 0 || r.Every <= 0 {
		return 0
	}
	return min(int(elapsed/r.Every), r.Steps()-1)
}

// Steps is how many distinct rates the ramp offers, the last being To.
func (r Ramp) Steps() int {
	if r.By <= 0 || r.To <= r.From {
		return 1
	}
	// The epsilon keeps an exact fit (1000..10000 by 1000) from rounding up
	// to a spurious extra step.
	return 1 + int(math.Ceil((r.To-r.From)/r.By-1e-9))
}

// String returns the ramp in ParseRamp's syntax, so it can be pasted back.
func (r Ramp) String() string {
	return fmt.Sprintf("%s:%s:%s/%s", formatRate(r.From), formatRate(r.To), formatRate(r.By), r.Every)
}

// Validate checks what ParseRamp checks, for ramps built in code.
func (r Ramp) Validate() error {
	for _, p := range []struct {
		name string
		v    float64
	}{{"From", r.From}, {"To", r.To}, {"Step", r.By}} {
		if err := positive(p.name, p.v); err != nil {
			return err
		}
	}
	if r.To < r.From {
		return fmt.Errorf("To %s is below From %s", formatRate(r.To), formatRate(r.From))
	}
	if r.Every <= 0 {
		return fmt.Errorf("Every %s must be > 0", r.Every)
	}
	return nil
}

// ParseRamp reads From:To:Step/Every, e.g. "1000:10000:1000/30s": 1000 ops/s
// for 30 s, then 2000, ... up to 10000, which holds to the end.
func ParseRamp(s string) (Ramp, error) {
	r, err := parseRamp(s)
	if err != nil {
		return Ramp{}, fmt.Errorf("--ramp %q: %w", s, err)
	}
	return r, nil
}

func parseRamp(s string) (Ramp, error) {
	rates, every, ok := strings.Cut(strings.TrimSpace(s), "/")
	parts := strings.Split(rates, ":")
	if !ok || len(parts) != 3 {
		return Ramp{}, fmt.Errorf("want From:To:Step/Every, e.g. 1000:10000:1000/30s")
	}
	var r Ramp
	for i, dst := range []*float64{&r.From, &r.To, &r.By} {
		v, err := strconv.ParseFloat(strings.TrimSpace(parts[i]), 64)
		if err != nil {
			return Ramp{}, fmt.Errorf("%s %q is not a number", rampParts[i], parts[i])
		}
		*dst = v
	}
	d, err := time.ParseDuration(strings.TrimSpace(every))
	if err != nil {
		return Ramp{}, fmt.Errorf("Every %q is not a duration like 30s", every)
	}
	r.Every = d
	return r, r.Validate()
}

var rampParts = []string{"From", "To", "Step"}

var (
	_ Rate = Constant(1)
	_ Rate = Ramp{}
)

func positive(name string, v float64) error {
	if !(v > 0) || math.IsInf(v, 0) {
		return fmt.Errorf("%s %s must be > 0", name, formatRate(v))
	}
	return nil
}

func formatRate(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// Delayed is a rate that starts By late: before By it holds the rate's
// start. A ramp after a warm-up begins its first step with the steady
// phase, so no step is spent warming up.
type Delayed struct {
	Rate
	By time.Duration
}

// At is the rate at elapsed − By.
func (d Delayed) At(elapsed time.Duration) float64 { return d.Rate.At(elapsed - d.By) }

// Step is the step at elapsed − By.
func (d Delayed) Step(elapsed time.Duration) int { return d.Rate.Step(elapsed - d.By) }
