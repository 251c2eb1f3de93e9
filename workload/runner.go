package workload

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"commentbench/comments"
	"commentbench/keys"
	"commentbench/pace"
	"commentbench/results"
	"commentbench/spread"
	"commentbench/store"
)

// Config is one run: a validated scenario and what the command decided.
type Config struct {
	Scenario Scenario
	Sys      *comments.System
	Results  *results.Set
	// WorkerIndex of WorkersTotal processes loading one cluster: each gets
	// its own order ids, all share the population (made from the seed).
	WorkerIndex, WorkersTotal int
	// OnTick is called from one goroutine at every interval.
	OnTick func(Tick)
	// Target, if set, paces the open loop instead of the scenario's rate
	// or ramp, at whatever its owner sets it to (a capacity search); a new
	// setting starts the schedule anew from that instant.
	Target *pace.Target
	// OnSteady, if set, is called as the warm-up ends, before any steady
	// interval is collected: what a caller counts from the steady phase's
	// start is snapshot there (a first tick comes an interval late).
	OnSteady func()
	// Abort, when done, cancels the operations still in flight after the
	// run has stopped issuing (a second Ctrl-C). Nil: wait DrainTimeout.
	Abort <-chan struct{}
	// Ledger, if set, gets the outcome of every comment write.
	Ledger *results.Ledger
	// Flaws, if set, watches the run for colliding keys and stale ranks;
	// Sys must report its index puts to it (see System).
	Flaws *Flaws
	// Append: the data holds earlier runs; this one draws order ids of its
	// own (by the run's index in the data) so it overwrites none of theirs.
	Append bool
	// RunID names the run in the data it writes (see comments.RecordRun).
	RunID string
	// Load, if set, fills the store in the load phase in bulk rather than
	// put by put (see LoadPlan).
	Load *LoadPlan
	// StartAt, if set, is asked once the load phase is over for the
	// instant the warm-up begins (a fleet's shared start), and the run
	// waits for it: every timer after (warm-up, ramp steps, the end)
	// counts from there. An error ends the run before it issues anything.
	StartAt func(ctx context.Context) (time.Time, error)
}

// DrainTimeout bounds how long a stopped run waits for in-flight operations.
const DrainTimeout = 30 * time.Second

// LateAfter is how far behind its intended start an open-loop arrival may
// begin before it counts as late.
const LateAfter = time.Millisecond

// Tick is one interval of a run.
type Tick struct {
	Phase    string        // "load", "warmup" or "steady"
	Elapsed  time.Duration // since the phase began
	Loaded   int64         // load-phase comments started so far
	Interval results.Interval
	Regions  []store.RegionStat // the interval's counter deltas
	Arrivals int64              // operations started in the steady phase so far
	Target   float64            // the open loop's arrival rate now; 0 in a closed loop
}

// Outcome is what a run did beyond its histograms.
type Outcome struct {
	Start, End  time.Time // the steady phase
	Pacing      results.Pacing
	Violations  map[string]*results.Violation
	Loads       []spread.Load // per region over the steady phase
	Interrupted bool          // stopped by the caller's context
	// Loaded is the comments the load phase wrote (acknowledged or not),
	// in LoadTime.
	Loaded   int64
	LoadTime time.Duration
	// LoadedBy says how: LoadPuts, LoadBulk, LoadBatched or LoadReused
	// (Base then names the base); SaveTime is what keeping the load as a
	// base took after it; LoadErr, a load that failed (the run then ends).
	LoadedBy string
	Base     string
	SaveTime time.Duration
	LoadErr  error
	// HotKeys are the top products and users; LocateHotKeys places them.
	HotKeys *results.HotKeys
	// Began is when the warm-up (or, without one, the steady phase)
	// began; StartErr, why it never did when StartAt failed.
	Began    time.Time
	StartErr error
	// StepStarts are when each step of a ramp had its first arrival due.
	StepStarts []time.Time
}

// Prepare creates the tables and seeds the population the actors use.
func Prepare(ctx context.Context, cfg Config) (*Env, error) {
	sc := cfg.Scenario
	scheme, err := keys.SchemeByName(sc.IDs)
	if err != nil {
		return nil, err
	}
	if err := cfg.Sys.CreateTables(ctx, scheme, sc.Regions); err != nil {
		return nil, err
	}
	run, err := cfg.Sys.BeginRun(ctx)
	if err != nil {
		return nil, err
	}
	if cfg.RunID != "" {
		if err := cfg.Sys.RecordRun(ctx, cfg.RunID); err != nil {
			return nil, err
		}
	}
	if !cfg.Append {
		run = 0 // the ids of a first run, or of a process joining one
	}
	pop, err := seedPopulation(ctx, cfg.Sys, sc, scheme)
	if err != nil {
		return nil, err
	}
	ps := sc.Popularity
	popularity, err := NewPopularity(len(pop.Products), ps.Exponent, ps.HotProducts, ps.HotShare)
	if err != nil {
		return nil, err
	}
	clock := NewClock()
	if sc.Clock == "logical" {
		clock = NewLogicalClock()
	}
	return &Env{Sys: cfg.Sys, Scenario: sc, Pop: pop, Products: popularity, Clock: clock,
		Acked: NewAcked(len(pop.Products), len(pop.Users), stampsToKeep(sc)), Checks: &Violations{}, Recent: newRecentProducts(len(pop.Products)),
		Flaws: cfg.Flaws, run: run, corpus: newCorpus(sc.Content, rand.New(rand.NewPCG(sc.Seed, 0xc0)))}, nil
}

// run is the state of one Run call.
type run struct {
	cfg        Config
	began      time.Time   // when the warm-up began (Outcome.Began)
	stepStarts []time.Time // the dispatcher's: see Outcome.StepStarts
	env        *Env
	opCtx      context.Context
	stopped    chan struct{}
	stop       func()
	budget     atomic.Int64 // steady-phase arrivals left; unlimited when ops == 0
	arrived    atomic.Int64
	loaded     atomic.Int64 // load-phase comments started, and one more per worker at its end
	late       atomic.Int64
	unstart    atomic.Int64
	dropped    atomic.Int64 // warm-up arrivals the warm-up never started
	maxLate    atomic.Int64 // ns: the latest a counted arrival started
	// steadyAt is when the steady phase began, ns since the epoch.
	steadyAt atomic.Int64
	mix      *mix
	orders   func(worker int) keys.IDGen
}

// Run drives the actors until the scenario's duration or op count, or until
// ctx is done; then it stops issuing, drains what is in flight, and returns.
func (e *Env) Run(ctx context.Context, cfg Config) (Outcome, error) {
	sc := cfg.Scenario
	m, err := newMix(runnable(sc.Mix, e.Sys.Layout()))
	if err != nil {
		return Outcome{}, err
	}
	opCtx, cancelOps := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelOps()
	r := &run{cfg: cfg, env: e, opCtx: opCtx, stopped: make(chan struct{}), mix: m}
	var once sync.Once
	r.stop = func() { once.Do(func() { close(r.stopped) }) }
	r.budget.Store(sc.Ops)
	if r.orders, err = orderIDs(sc, cfg.WorkerIndex, e.run); err != nil {
		return Outcome{}, err
	}

	workers, err := r.newWorkers()
	if err != nil {
		return Outcome{}, err
	}
	col := newCollector(r)
	out := Outcome{}
	col.start()
	interrupted := r.load(ctx, workers[:sc.Workers], col, &out)
	if !interrupted && cfg.StartAt != nil {
		interrupted = r.waitStart(ctx, col, &out)
	}
	out.Began = time.Now()
	if interrupted {
		r.stop() // no warm-up, no steady phase
	} else if sc.Warmup == 0 { // steady from the first operation
		out.Start = r.beginSteady(col)
		out.Began = out.Start
	}
	// The arrivals' schedule counts from here: the warm-up's start, or,
	// without one, once the steady phase is set up (its counters reset,
	// which takes a while under -race), so no arrival is due before.
	r.began = time.Now()
	var wg sync.WaitGroup
	r.startWorkers(&wg, workers)
	if !interrupted {
		interrupted = r.waitForEnd(ctx, col, &out)
	}
	drained := make(chan struct{})
	go func() { wg.Wait(); close(drained) }()
	r.drain(drained, cancelOps)
	out.End = time.Now()
	if out.Start.IsZero() { // stopped during the warm-up: no steady phase
		out.Start = out.End
	}
	out.Loads = col.finish(out.End)
	out.Interrupted = interrupted
	out.Violations = e.Checks.Snapshot()
	out.HotKeys = e.hot.summary(HotTop)
	out.Pacing = r.pacing()
	out.StepStarts = r.stepStarts
	return out, nil
}

// waitStart waits for the instant StartAt gives, and starts the warm-up's
// clock (and a ramp's) there; it says whether the run must end instead
// (StartAt failed, or ctx ended first).
func (r *run) waitStart(ctx context.Context, col *collector, out *Outcome) (interrupted bool) {
	at, err := r.cfg.StartAt(ctx)
	if err != nil {
		out.StartErr = err
		return true
	}
	col.endLoad() // now, not at the instant: every member begins as close to it as it can
	if !sleepUntil(ctx, at) {
		return true
	}
	col.restart(time.Now())
	return false
}

// sleepUntil returns at the instant at, to well within a millisecond (a
// timer to just before it, then a spin), or false when ctx ends first.
func sleepUntil(ctx context.Context, at time.Time) bool {
	const spin = 2 * time.Millisecond
	t := time.NewTimer(time.Until(at) - spin)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		return false
	}
	for time.Now().Before(at) {
		runtime.Gosched()
	}
	return true
}

// LoadTotal is the comments this process writes in the load phase: its
// share of Users x LoadPerUser when several processes split the load.
func (c Config) LoadTotal() int64 {
	n := int64(c.Scenario.Users) * int64(c.Scenario.LoadPerUser)
	if c.WorkersTotal > 1 {
		n = (n + int64(c.WorkersTotal) - 1 - int64(c.WorkerIndex)) / int64(c.WorkersTotal)
	}
	return n
}

// load runs the load phase, when the scenario has one: every worker
// writes comments back to back until LoadTotal are started. Nothing is
// recorded; the comments are acknowledged and in the ledger as any other.
// It says whether ctx ended it early.
func (r *run) load(ctx context.Context, ws []*Worker, col *collector, out *Outcome) (interrupted bool) {
	n := r.cfg.LoadTotal()
	if n == 0 {
		return false
	}
	if r.cfg.Load != nil {
		return r.loadInBulk(ctx, ws, col, out)
	}
	start := time.Now()
	out.LoadedBy = LoadPuts
	defer func() { out.Loaded, out.LoadTime = r.loadedSoFar(), time.Since(start) }()
	write := actOf("write")
	var wg sync.WaitGroup
	for _, w := range ws {
		wg.Go(func() {
			w.counting = false
			for ctx.Err() == nil && r.loaded.Add(1) <= n {
				w.arrive(r.opCtx, write, time.Now(), false)
			}
		})
	}
	wg.Wait()
	if ctx.Err() != nil {
		return true
	}
	col.endLoad()
	return false
}

// loadedSoFar is the load-phase comments started: the counter without
// the one each worker adds past the end as it stops.
func (r *run) loadedSoFar() int64 { return min(r.loaded.Load(), r.cfg.LoadTotal()) }

// waitForEnd runs the warm-up, then the steady phase, until the duration
// passes, the op budget is spent, or ctx is done.
func (r *run) waitForEnd(ctx context.Context, col *collector, out *Outcome) (interrupted bool) {
	sc := r.cfg.Scenario
	if w := time.Duration(sc.Warmup); w > 0 {
		select {
		case <-time.After(time.Until(r.began.Add(w))): // the schedule's own steady start
		case <-ctx.Done():
			r.stop()
			return true
		case <-r.stopped:
		}
		out.Start = r.beginSteady(col)
	}
	var deadline <-chan time.Time
	if d := time.Duration(sc.Duration); d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		deadline = t.C
	}
	select {
	case <-deadline:
	case <-ctx.Done():
		interrupted = true
	case <-r.stopped:
	}
	r.stop()
	return interrupted
}

// drain waits for in-flight operations, cancelling them on Abort or after
// DrainTimeout so a hung backend cannot keep the results from being written.
func (r *run) drain(drained <-chan struct{}, cancel func()) {
	t := time.NewTimer(DrainTimeout)
	defer t.Stop()
	select {
	case <-drained:
		return
	case <-r.cfg.Abort:
	case <-t.C:
	}
	cancel()
	<-drained
}

// beginSteady ends the warm-up: from here arrivals are counted.
func (r *run) beginSteady(col *collector) time.Time {
	if r.cfg.OnSteady != nil {
		r.cfg.OnSteady()
	}
	start := col.beginSteady()
	r.steadyAt.Store(start.UnixNano())
	r.env.recording.Store(true)
	return start
}

// inSteady says whether an arrival due at `at` belongs to the steady phase:
// one due in the warm-up never does, however late it starts.
func (r *run) inSteady(at time.Time) bool {
	return r.env.recording.Load() && at.UnixNano() >= r.steadyAt.Load()
}

// warmupOver says an arrival due in the warm-up comes after it ended.
func (r *run) warmupOver(at time.Time) bool {
	return r.env.recording.Load() && at.UnixNano() < r.steadyAt.Load()
}

func (r *run) isStopped() bool {
	select {
	case <-r.stopped:
		return true
	default:
		return false
	}
}

// ticket admits one arrival due at `at` and says whether it counts: an
// arrival due in the steady phase is recorded whole, one due in the
// warm-up never is, whenever it starts or its operations end. The steady
// phase spends the op budget.
func (r *run) ticket(at time.Time) (ok, counted bool) {
	if r.isStopped() {
		return false, false
	}
	if !r.inSteady(at) {
		return true, false
	}
	if r.cfg.Scenario.Ops > 0 && r.budget.Add(-1) < 0 {
		r.stop()
		return false, false
	}
	return true, true
}

// newWorkers makes the loop workers, then one for each periodic actor.
func (r *run) newWorkers() ([]*Worker, error) {
	seed := r.cfg.Scenario.Seed
	ws := make([]*Worker, r.cfg.Scenario.Workers+2)
	for i := range ws {
		ws[i] = &Worker{env: r.env, r: rand.New(rand.NewPCG(seed, uint64(r.cfg.WorkerIndex)<<32|uint64(i+1))),
			orders: r.orders(i), rec: r.cfg.Results.NewRecorder()}
		if r.cfg.Ledger != nil {
			lw, err := r.cfg.Ledger.Writer(i)
			if err != nil {
				return nil, err
			}
			ws[i].ledger = lw
		}
	}
	return ws, nil
}

func (r *run) startWorkers(wg *sync.WaitGroup, ws []*Worker) {
	sc := r.cfg.Scenario
	var arrivals <-chan arrival
	if sc.Rate > 0 || sc.Ramp != "" {
		ch := make(chan arrival, sc.Workers)
		arrivals = ch
		wg.Go(func() { r.dispatch(ch) })
	}
	for _, w := range ws[:sc.Workers] {
		if arrivals == nil {
			wg.Go(func() { r.closedLoop(w) })
		} else {
			wg.Go(func() { r.openLoop(w, arrivals) })
		}
	}
	r.startPeriodic(wg, ws[sc.Workers], time.Duration(sc.RankEvery), "ranker")
	r.startPeriodic(wg, ws[sc.Workers+1], time.Duration(sc.Burst.Every), "burst")
}

// closedLoop runs actors back to back, as fast as the backend answers.
func (r *run) closedLoop(w *Worker) {
	for {
		at := now() // the ticket's instant is the arrival's
		ok, counted := r.ticket(at)
		if !ok {
			return
		}
		w.counting = counted
		if counted {
			r.arrived.Add(1)
		}
		w.arrive(r.opCtx, r.mix.pick(w.r), at, false)
	}
}

// openLoop runs an actor per arrival, measured from the arrival's time.
func (r *run) openLoop(w *Worker, arrivals <-chan arrival) {
	for a := range arrivals {
		if t := r.cfg.Target; t != nil && a.gen != t.Gen() {
			// Scheduled under an earlier probe: not this one's to serve.
			if a.counted {
				r.notStarted(a.at, time.Now())
			}
			continue
		}
		if r.isStopped() {
			if a.counted {
				r.notStarted(a.at, time.Now())
			}
			continue
		}
		w.counting = a.counted
		if a.counted {
			r.arrived.Add(1)
			if late := time.Since(a.at); late > LateAfter {
				r.late.Add(1)
				r.noteLateness(late)
			}
		}
		w.arrive(r.opCtx, r.mix.pick(w.r), a.at, true)
	}
}

// noteLateness keeps the largest lateness of a counted arrival.
func (r *run) noteLateness(d time.Duration) {
	for {
		cur := r.maxLate.Load()
		if int64(d) <= cur || r.maxLate.CompareAndSwap(cur, int64(d)) {
			return
		}
	}
}

// notStarted counts an arrival the run ended before it could start; its
// lateness then is how far behind the run was.
func (r *run) notStarted(at, end time.Time) {
	r.unstart.Add(1)
	r.noteLateness(end.Sub(at))
}

// arrival is an open-loop arrival: when it was due, and whether it counts.
type arrival struct {
	at      time.Time
	counted bool
	gen     int64 // the Target setting it was scheduled under
}

// dispatch releases arrivals at their intended times. When every worker is
// busy it blocks, and the arrivals due meanwhile go out late, with their
// latency counted from when they were due (coordinated omission corrected).
func (r *run) dispatch(ch chan<- arrival) {
	defer close(ch)
	sc := r.cfg.Scenario
	rnd := rand.New(rand.NewPCG(sc.Seed, 0xa77))
	arr := pace.NewArrivals(r.rate(), sc.Arrival == "poisson", rnd)
	begin := r.began // not when this goroutine got going: a fleet's members share the instant
	var gen int64
	if r.cfg.Target != nil {
		gen = r.cfg.Target.Gen()
	}
	rate, step := r.rate(), -1
	for {
		at := begin.Add(arr.Next())
		if t := r.cfg.Target; t != nil && t.Gen() != gen {
			// A new probe: what the old one left due is never started, and
			// the new schedule begins now.
			r.countUnstarted(arr, begin, at)
			gen, begin = t.Gen(), time.Now()
			arr = pace.NewArrivals(t, sc.Arrival == "poisson", rnd)
			at = begin.Add(arr.Next())
		}
		if r.warmupOver(at) {
			// The steady phase has begun and this warm-up arrival has not:
			// the backlog of an overloaded warm-up would take the steady
			// phase's workers, and it would record nothing.
			r.dropped.Add(1)
			continue
		}
		if d := time.Until(at); d > 0 {
			select {
			case <-time.After(d):
			case <-r.stopped:
				return
			}
		}
		ok, counted := r.ticket(at)
		if !ok {
			r.countUnstarted(arr, begin, at)
			return
		}
		if k := rate.Step(at.Sub(begin)); r.cfg.Target == nil && k != step && at.Sub(begin) >= time.Duration(sc.Warmup) {
			step = k
			r.stepStarts = append(r.stepStarts, at) // when it was due: how late it began is its latency's
		}
		select {
		case ch <- arrival{at, counted, gen}:
		case <-r.stopped:
			r.countUnstarted(arr, begin, at)
			return
		}
	}
}

// countUnstarted counts the arrivals that were due but never started, so a
// backend that falls behind shows up in the numbers.
func (r *run) countUnstarted(arr *pace.Arrivals, begin, at time.Time) {
	now := time.Now()
	for ; !at.After(now); at = begin.Add(arr.Next()) {
		if r.inSteady(at) {
			r.notStarted(at, now)
		}
	}
}

// rate paces the open loop: the search's target, or the scenario's.
func (r *run) rate() pace.Rate {
	if r.cfg.Target != nil {
		return r.cfg.Target
	}
	return rateOf(r.cfg.Scenario)
}

func rateOf(sc Scenario) pace.Rate {
	if sc.Ramp != "" {
		ramp, _ := pace.ParseRamp(sc.Ramp) // validated with the scenario
		return pace.Delayed{Rate: ramp, By: time.Duration(sc.Warmup)}
	}
	return pace.Constant(sc.Rate)
}

// startPeriodic runs an actor every period on its own worker, apart from
// the mix: the ranking job and flash-sale bursts run on a clock.
func (r *run) startPeriodic(wg *sync.WaitGroup, w *Worker, period time.Duration, name string) {
	if period <= 0 {
		return
	}
	a := actOf(name)
	wg.Go(func() {
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case at := <-t.C:
				w.counting = r.env.recording.Load()
				w.arrive(r.opCtx, a, at, true)
			case <-r.stopped:
				return
			}
		}
	})
}

func (r *run) pacing() results.Pacing {
	sc := r.cfg.Scenario
	p := results.Pacing{Mode: "closed", Arrivals: r.arrived.Load()}
	if sc.Rate > 0 || sc.Ramp != "" {
		p.Mode, p.Rate, p.Ramp, p.Late, p.Unstarted = "open", sc.Rate, sc.Ramp, r.late.Load(), r.unstart.Load()
		p.WarmupDropped = r.dropped.Load()
		if sc.Ramp != "" {
			p.Rate = 0 // the ramp overrides it
		}
		p.MaxLateMs = float64(r.maxLate.Load()) / float64(time.Millisecond)
	}
	return p.Judged()
}

// mix picks actors by the scenario's weights.
type mix struct {
	acts []act
	cum  []float64
}

// Unrunnable are the actors of a mix a design gives nothing to do: the
// latest reader where the design keeps no latest-comment listing. Run
// leaves them out, and the run's first lines say so.
func Unrunnable(mix map[string]float64, d *keys.Design) []string {
	if mix["latest"] > 0 && d.Table(keys.LatestComment) == nil {
		return []string{"latest"}
	}
	return nil
}

// Unrun are the results (ops and actions) only the actors Unrunnable
// leaves out record: a run's summary leaves them out too.
func Unrun(mix map[string]float64, d *keys.Design) []string {
	var out []string
	for _, a := range Unrunnable(mix, d) {
		if a == "latest" {
			out = append(out, OpNames[OpSiteLatest])
		}
		out = append(out, results.ActionPrefix+actionOf[a])
	}
	return out
}

// runnable is mix without the actors the design gives nothing to do.
func runnable(mix map[string]float64, d *keys.Design) map[string]float64 {
	drop := Unrunnable(mix, d)
	if len(drop) == 0 {
		return mix
	}
	out := maps.Clone(mix)
	for _, name := range drop {
		delete(out, name)
	}
	return out
}

func newMix(weights map[string]float64) (*mix, error) {
	m := &mix{}
	total := 0.0
	for _, name := range ActorNames { // fixed order: the same seed picks the same actors
		wt := weights[name]
		if wt <= 0 {
			continue
		}
		if _, ok := actors[name]; !ok {
			return nil, fmt.Errorf("mix: no actor %q", name)
		}
		total += wt
		m.acts, m.cum = append(m.acts, actOf(name)), append(m.cum, total)
	}
	if len(m.acts) == 0 {
		return nil, fmt.Errorf("mix: no actor has a weight above 0")
	}
	return m, nil
}

func (m *mix) pick(r *rand.Rand) act {
	x := r.Float64() * m.cum[len(m.cum)-1]
	for i, c := range m.cum {
		if x < c {
			return m.acts[i]
		}
	}
	return m.acts[len(m.acts)-1]
}
