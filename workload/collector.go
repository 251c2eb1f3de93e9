package workload

import (
	"context"
	"sync"
	"time"

	"commentbench/spread"
	"commentbench/store"
)

// collector closes an interval every Scenario.Interval: it gathers the
// workers' interval histograms and the regions' counter deltas and hands
// them to Config.OnTick.
type collector struct {
	r       *run
	tracker *spread.Tracker
	ticker  *time.Ticker
	quit    chan struct{}
	done    sync.WaitGroup

	mu         sync.Mutex // one tick at a time: the ticker's, a phase change's, the last
	phase      string
	phaseStart time.Time
	last       time.Time
	begin      time.Time // the run's start, which the arrival schedule counts from
}

func newCollector(r *run) *collector {
	now := time.Now()
	phase := "warmup"
	if r.cfg.LoadTotal() > 0 {
		phase = "load" // from the first tick: the load phase starts as the collector does
	}
	c := &collector{r: r, tracker: spread.NewTracker(), quit: make(chan struct{}),
		phase: phase, phaseStart: now, last: now, begin: now}
	c.tracker.Reset(c.stats())
	return c
}

func (c *collector) start() {
	c.ticker = time.NewTicker(time.Duration(c.r.cfg.Scenario.Interval))
	c.done.Go(func() {
		for {
			select {
			case now := <-c.ticker.C:
				c.tick(now)
			case <-c.quit:
				return
			}
		}
	})
}

// endLoad ends the load phase in the warm-up, whose clock and arrival
// schedule start here.
func (c *collector) endLoad() {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	c.r.cfg.Results.Collect(c.last, now) // nothing was recorded; keeps intervals aligned
	c.phase, c.phaseStart, c.last, c.begin = "warmup", now, now, now
}

// restart moves the warm-up's start, clock and schedule, to now: a
// fleet's shared instant, waited for after endLoad. Nothing is recorded
// while it waits, so nothing is collected.
func (c *collector) restart(now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.phaseStart, c.last, c.begin = now, now, now
}

// beginSteady ends the warm-up: what it did is dropped, counters restart
// from here.
func (c *collector) beginSteady() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	c.r.cfg.Results.Collect(c.last, now) // nothing was recorded; keeps intervals aligned
	c.tracker.Reset(c.stats())
	c.phase, c.phaseStart, c.last = "steady", now, now
	return now
}

// finish closes the last, partial interval and returns the run's loads.
func (c *collector) finish(end time.Time) []spread.Load {
	c.ticker.Stop()
	close(c.quit)
	c.done.Wait()
	c.tick(end)
	return c.tracker.Totals()
}

func (c *collector) tick(now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !now.After(c.last) {
		return
	}
	t := Tick{Phase: c.phase, Elapsed: now.Sub(c.phaseStart), Arrivals: c.r.arrived.Load(),
		Loaded:   c.r.loadedSoFar(),
		Interval: c.r.cfg.Results.Collect(c.last, now)}
	if sc := c.r.cfg.Scenario; sc.Rate > 0 || sc.Ramp != "" {
		// The rate in the interval's middle: at its end a ramp may have
		// stepped up already.
		t.Target = c.r.rate().At(c.last.Add(now.Sub(c.last) / 2).Sub(c.begin))
	}
	if c.phase == "steady" {
		t.Regions = c.tracker.Observe(c.stats())
	}
	c.last = now
	if c.r.cfg.OnTick != nil {
		c.r.cfg.OnTick(t)
	}
}

// stats snapshots the region counters; a backend that cannot answer
// leaves the interval without region figures rather than stopping the run.
func (c *collector) stats() []store.RegionStat {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s, err := c.r.env.Sys.Store().RegionStats(ctx)
	if err != nil {
		return nil
	}
	return s
}
