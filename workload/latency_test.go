package workload

import (
	"context"
	"math"
	"testing"
	"time"

	"commentbench/results"
)

// writeRun runs only the write actor (an order, then a comment: five
// backend calls of `delay` each) at rate arrivals/s on 2 workers, and
// returns its summary.
func writeRun(t *testing.T, rate float64, delay time.Duration) results.Summary {
	t.Helper()
	return mixRun(t, map[string]float64{"write": 1}, rate, delay, nil)
}

// mixRun runs the actors of mix at rate arrivals/s on 2 workers over a
// store whose every call takes delay, and returns the summary; shape, if
// given, changes the scenario first.
func mixRun(t *testing.T, mix map[string]float64, rate float64, delay time.Duration, shape func(*Scenario)) results.Summary {
	t.Helper()
	sc := testScenario(t, "unique")
	sc.Mix = mix
	sc.Workers, sc.Rate, sc.Ops, sc.RankEvery = 2, rate, 0, 0
	sc.Burst.Every = 0
	sc.Duration, sc.Warmup = Duration(2*time.Second), 0
	if shape != nil {
		shape(&sc)
	}
	if err := sc.Validate(); err != nil {
		t.Fatal(err)
	}
	set := results.NewSet(ResultNames())
	start := time.Now()
	out, _ := runScenarioSet(t, context.Background(), slowStore{openEngine(t), delay}, sc, set)
	sum, err := set.Summary(start, time.Now(), nil)
	if err != nil {
		t.Fatal(err)
	}
	sum.Pacing = out.Pacing
	return sum
}

func opOf(t *testing.T, ops []results.OpSummary, name string) results.OpSummary {
	t.Helper()
	for _, o := range ops {
		if o.Op == name {
			return o
		}
	}
	t.Fatalf("no %s", name)
	return results.OpSummary{}
}

// Above capacity every op of a late arrival carries the wait, the second
// op (comment-write) as much as the first (order-create), and so does the
// action; SLOs on the second op and on the action fail. Below capacity
// latency is service time (within LateAfter: an arrival that starts that
// close to its time is on time), and the same SLOs pass.
func TestEveryOpCarriesTheWait(t *testing.T) {
	const delay = 2 * time.Millisecond // capacity: 2 workers / (5 calls × 2 ms) = 200 arrivals/s
	over := writeRun(t, 1000, delay)
	order, write := opOf(t, over.Ops, "order-create"), opOf(t, over.Ops, "comment-write")
	action := opOf(t, over.Actions, "post-comment")
	if !over.Pacing.FellBehind || over.Pacing.MaxLateMs < 100 {
		t.Fatalf("overload run kept up: %+v", over.Pacing)
	}
	for _, o := range []results.OpSummary{order, write, action} {
		if o.Latency.P50 < 10*o.Service.P50 || o.Latency.P50 < 50 {
			t.Errorf("overload %s: p50 latency %.2f ms, service %.2f ms: want the wait in every op", o.Op, o.Latency.P50, o.Service.P50)
		}
	}
	if write.Latency.P50 < order.Latency.P50 {
		t.Errorf("overload: comment-write p50 %.1f ms below order-create's %.1f: the second op lost the wait",
			write.Latency.P50, order.Latency.P50)
	}
	if action.Latency.P50 < write.Latency.P50 {
		t.Errorf("overload: post-comment p50 %.1f ms below its last op's %.1f", action.Latency.P50, write.Latency.P50)
	}

	// Well below: under -race a 2 ms call takes several, and arrivals must
	// not queue behind each other on 2 workers.
	under := writeRun(t, 10, delay)
	if under.Pacing.FellBehind {
		t.Fatalf("the run below capacity fell behind: %+v", under.Pacing)
	}
	// An op's wait is its arrival's lateness: the second op starts the
	// instant the first ends, so it waits as long as the first, no more
	// (the harness's own work between them, the comment's text, is done
	// before the first). That holds however late the timers ran; the
	// figures compared are differences of medians, which a machine busy
	// with other tests moves apart by a fraction of LateAfter (0.66 ms
	// seen), so the bound is LateAfter. A wait lost in the second op is
	// the overload run's to catch, above, where the wait is large.
	within := LateAfter
	if raceOn {
		within *= 3
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	wait := func(name string) float64 { o := opOf(t, under.Ops, name); return o.Latency.P50 - o.Service.P50 }
	first, second := wait("order-create"), wait("comment-write")
	if first < 0 || math.Abs(second-first) > ms(within) {
		t.Errorf("below capacity: p50 latency over service %.3f ms for order-create, %.3f for comment-write: want them equal", first, second)
	}
	// And an arrival that starts within LateAfter of its time is on time:
	// where most did (a machine busy with other tests' timers can make most
	// start late), the median wait is within it, and half as much again:
	// the wait here is the difference of two medians (latency's and
	// service's), not the median of the differences (1.36 ms seen with 7 of
	// 21 late).
	if under.Pacing.Late*2 < under.Pacing.Arrivals && first > 1.5*ms(within) {
		t.Errorf("below capacity, %d of %d arrivals late: p50 wait %.3f ms, want within 1.5 × %v", under.Pacing.Late, under.Pacing.Arrivals, first, within)
	}

	slos := []string{"comment-write:p99<=200ms", "action:post-comment:p99<=300ms"}
	for _, c := range []struct {
		sum  results.Summary
		want bool
	}{{over, false}, {under, true}} {
		for _, text := range slos {
			s, err := results.ParseSLO(text)
			if err != nil {
				t.Fatal(err)
			}
			r := results.Evaluate([]results.SLO{s}, c.sum)[0]
			if r.Met != c.want || r.Note != "" {
				t.Errorf("%s on the %v run: met %v (actual %.1f %s, %q), want %v", text,
					map[bool]string{true: "under", false: "over"}[c.want], r.Met, r.Actual, r.Unit, r.Note, c.want)
			}
		}
	}
}

// A closed loop has no schedule: each op is due when it starts, so its
// latency is its service time, to the microsecond.
func TestClosedLoopLatencyIsService(t *testing.T) {
	sc := testScenario(t, "unique")
	sc.Ops = 300
	_, tot := runScenario(t, context.Background(), openEngine(t), sc)
	for _, name := range append([]string{"order-create", "comment-write", "product-page"}, results.ActionPrefix+"post-comment") {
		o := tot[name]
		if o.Count == 0 {
			t.Errorf("%s did not run", name)
			continue
		}
		if name == results.ActionPrefix+"post-comment" {
			continue // an action spans ops: its latency is theirs together
		}
		if !o.Latency.Equals(o.Service) {
			t.Errorf("%s: latency and service histograms differ in a closed loop", name)
		}
	}
}

// An open loop that falls behind in its warm-up still counts only the
// arrivals due in the steady phase: started and never started together are
// the rate times the phase, within 1%.
func TestOpenLoopCountsTheSteadyPhaseOnly(t *testing.T) {
	sc := testScenario(t, "unique")
	sc.Mix = map[string]float64{"list": 1}
	sc.Workers, sc.Rate, sc.Ops, sc.RankEvery, sc.Burst.Every = 1, 400, 0, 0, 0
	sc.Warmup, sc.Duration = Duration(time.Second), Duration(time.Second)
	out, _ := runScenario(t, context.Background(), slowStore{openEngine(t), 5 * time.Millisecond}, sc)
	p := out.Pacing
	due := 400 * out.End.Sub(out.Start).Seconds()
	if got := float64(p.Arrivals + p.Unstarted); got < 0.99*due || got > 1.01*due {
		t.Errorf("steady phase of %v at 400/s: %d started + %d never = %.0f, want %.0f within 1%%",
			out.End.Sub(out.Start), p.Arrivals, p.Unstarted, got, due)
	}
}

// Every op of a late arrival carries the wait, whatever the actor: each
// page of a walk (the later pages too), each write of a burst, each order
// of a multi-product order, each page of a timeline. Small pages make the
// walks several pages deep.
func TestEveryActorCarriesTheWait(t *testing.T) {
	const delay = time.Millisecond
	mix := map[string]float64{"write": 4, "burst": 1, "multi-order": 1, "list": 1, "pager": 2, "timeline": 2}
	over := mixRun(t, mix, 2000, delay, func(sc *Scenario) { sc.PageSize, sc.MaxPages = 2, 0 })
	if !over.Pacing.FellBehind {
		t.Fatalf("overload run kept up: %+v", over.Pacing)
	}
	for _, name := range []string{"product-latest", "product-page", "burst-write", "multi-order-write", "user-timeline"} {
		o := opOf(t, over.Ops, name)
		if o.Count < 3 {
			t.Errorf("%s ran %d times: too few to judge", name, o.Count)
			continue
		}
		if o.Latency.P50 < 10*o.Service.P50 || o.Latency.P50 < 50 {
			t.Errorf("overload %s: p50 latency %.2f ms, service %.2f ms: want the wait in every op", name, o.Latency.P50, o.Service.P50)
		}
	}
}

// Far past capacity, with a warm-up whose backlog spills into the steady
// phase: an arrival counts only when it was due in the steady phase, so no
// latency exceeds the phase plus the service time of one arrival, however
// far behind the warm-up left the run.
func TestOpenLoopLatencyBoundedByThePhase(t *testing.T) {
	const delay = 2 * time.Millisecond
	sum := mixRun(t, map[string]float64{"write": 1}, 2000, delay, func(sc *Scenario) {
		sc.Warmup, sc.Duration = Duration(time.Second), Duration(time.Second)
	})
	if !sum.Pacing.FellBehind {
		t.Fatalf("the run kept up: %+v", sum.Pacing)
	}
	// An arrival is five backend calls of delay each; a few ms for timers.
	// The phase is as long as it ran: a loaded machine stops it late.
	phase := max(time.Second, sum.End.Sub(sum.Start))
	bound := float64(phase+5*delay+50*time.Millisecond) / float64(time.Millisecond)
	for _, o := range append(sum.Ops, sum.Actions...) {
		if o.Count > 0 && o.Latency.Max > bound {
			t.Errorf("%s: max latency %.1f ms, past the steady phase plus one arrival (%.0f ms)", o.Op, o.Latency.Max, bound)
		}
	}
}
