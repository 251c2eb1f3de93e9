package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"commentbench/backend"
	"commentbench/buildinfo"
	"commentbench/comments"
	"commentbench/hbase"
	"commentbench/keys"
	"commentbench/metrics"
	"commentbench/progress"
	"commentbench/results"
	"commentbench/servermodel"
	"commentbench/spread"
	"commentbench/store"
	"commentbench/workload"
)

// load runs the scenario and writes every result file, also when the run is
// interrupted: the first Ctrl-C stops issuing and drains, a second one
// cancels what is still in flight.
func load(o *options, stdout, stderr io.Writer) int {
	signalled := interrupts(stderr)
	ctx, stopRun := context.WithCancel(signalled)
	defer stopRun()
	o.stopRun = stopRun
	if o.runID == "" {
		o.runID = newRunID()
	}

	if err := o.precheck(ctx); err != nil {
		return fail(stderr, err)
	}
	// A fleet meets before anything is written: a member missing leaves
	// the cluster as it was.
	mem, err := o.joinFleet(ctx, signalled, stderr)
	if err != nil {
		return fail(stderr, err)
	}
	defer mem.finish()
	o.member = mem
	if err := mem.awaitTables(ctx); err != nil {
		return fail(stderr, err)
	}
	if o.cpuProfile != "" {
		stop, err := startCPUProfile(o.cpuProfile)
		if err != nil {
			return fail(stderr, err)
		}
		defer stop()
	}
	o.backend.Expect = append(o.design.StoreTables(), comments.MetaTable) // checked before any is created
	opened := time.Now()
	st, err := o.backend.Open(backend.Create)
	if err != nil {
		return fail(stderr, err)
	}
	defer st.Close()
	o.engine, o.openTime = engineOf(st), time.Since(opened)
	storageFailed := watchStorage(st, stopRun)
	if err := o.dropTables(ctx, st, stderr); err != nil {
		return fail(stderr, err)
	}
	var model *servermodel.Store
	if o.sc.ServerModel.On() {
		mo, _ := o.sc.ServerModel.Options() // checked with the scenario
		model = servermodel.Wrap(st, mo)
		st = model
	}
	if o.modelNote != "" {
		fmt.Fprintln(stderr, "loadgen:", o.modelNote)
	}
	if err := o.checkLayout(ctx, st); err != nil {
		return fail(stderr, err)
	}
	if err := o.checkReuse(ctx, st); err != nil {
		return fail(stderr, err)
	}
	live, err := o.serveMetrics(stderr)
	if err != nil {
		return fail(stderr, err)
	}
	if live != nil {
		defer live.Close()
	}
	out, err := newOutputs(o.out)
	if err != nil {
		return fail(stderr, err)
	}
	defer out.close()
	out.live, out.model, out.interval = live, model, time.Duration(o.sc.Interval)

	code, err := o.execute(ctx, st, out, stdout, stderr)
	if serr := storageFailed(); serr != nil {
		// The run stopped at the failure; what it did is written.
		return fail(stderr, fmt.Errorf("the run stopped: %w", serr))
	}
	if err != nil {
		fmt.Fprintln(stderr, "loadgen:", err)
		if ctx.Err() != nil {
			return ExitInterrupted
		}
		if errors.Is(err, backend.ErrRefused) || fleetFailed(err) {
			return 2
		}
		return 1
	}
	if err := st.Close(); err != nil {
		fmt.Fprintln(stderr, "loadgen: close store:", err)
		return 1
	}
	return code
}

// precheck refuses a run into an embedded data dir that holds data it
// must not touch (another design, an earlier run) before that dir is
// opened for writing: opening it so would already rewrite its files.
func (o *options) precheck(ctx context.Context) error {
	if o.backend.Backend != "embedded" || o.backend.DataDir == "" || o.backend.DropTables {
		return nil
	}
	if entries, err := os.ReadDir(o.backend.DataDir); err != nil || len(entries) == 0 {
		return nil // nothing there yet: the open creates it
	}
	st, err := o.backend.Open(backend.ReadOnly)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := o.checkLayout(ctx, st); err != nil {
		return err
	}
	return o.checkReuse(ctx, st)
}

// faulty is a store that reports the failure of the storage under it (the
// embedded engine's full disk, say).
type faulty interface {
	Fault() <-chan struct{}
	Err() error
}

// watchStorage stops the run at the store's first storage failure, and
// returns how to ask, at the end, whether there was one.
func watchStorage(st store.Store, stop func()) func() error {
	f, ok := st.(faulty)
	if !ok {
		return func() error { return nil }
	}
	go func() {
		<-f.Fault()
		stop()
	}()
	return f.Err
}

// serveMetrics starts the live metrics when --metrics-addr asks for them.
func (o *options) serveMetrics(stderr io.Writer) (*metrics.Server, error) {
	if o.metricsAddr == "" {
		return nil, nil
	}
	s, err := metrics.Listen(o.metricsAddr, metrics.Identity{RunID: o.runID, Worker: o.workerIndex})
	if err != nil {
		return nil, err
	}
	if !o.quiet {
		fmt.Fprintf(stderr, "loadgen: live metrics at http://%s/metrics\n", s.Addr())
	}
	return s, nil
}

// checkReuse refuses, before anything is written, to write into data that
// holds an earlier run: the same seed would overwrite its rows, and verify
// could no longer tell the runs apart. A process joining a load of several
// (--worker-index above 0) finds the first one's tables and goes on.
func (o *options) checkReuse(ctx context.Context, st store.Store) error {
	if o.appendRun || o.workerIndex > 0 || (o.bases != nil && o.bases.reuse) {
		return nil // a base holds the run that loaded it, and nothing else
	}
	n, err := comments.Runs(ctx, st)
	if err != nil {
		return err
	}
	if n > 0 {
		return fmt.Errorf("the %s already holds %d run(s)%s: give --append to add this one (with order ids of its own), or --fresh to wipe what the harness wrote first",
			o.backend.Describe(), n, o.namedRuns(ctx, st))
	}
	return nil
}

// namedRuns names the runs a data set records, for a refusal: " (run
// 3f2a… of 2026-11-24 10:12:03 UTC, ...)", or "" when none is named.
func (o *options) namedRuns(ctx context.Context, st store.Store) string {
	runs, err := comments.RecordedRuns(ctx, st)
	if err != nil || len(runs) == 0 {
		return ""
	}
	var names []string
	for _, r := range runs {
		names = append(names, fmt.Sprintf("run %s of %s", r.ID, r.At.UTC().Format("2006-01-02 15:04:05 UTC")))
	}
	return " (" + strings.Join(names, ", ") + ")"
}

// checkLayout refuses, before anything is written, to add to data written
// with another key design, naming the first table and part that differ.
func (o *options) checkLayout(ctx context.Context, st store.Store) error {
	got, found, err := comments.RecordedLayout(ctx, st)
	if err != nil {
		return err
	}
	if !found {
		return nil
	}
	if diff := o.design.Diff(got); diff != "" {
		return fmt.Errorf("--layout %s: the data in the %s was written with design %s (%s): %w",
			o.sc.Layout, o.backend.Describe(), got.Name(), diff, comments.ErrLayoutMismatch)
	}
	return nil
}

// dropTables removes the harness's own tables before a fresh run, when
// asked; another owner's tables stay, and are named.
func (o *options) dropTables(ctx context.Context, st store.Store, stderr io.Writer) error {
	dropped, kept, err := o.backend.DropOwn(ctx, st)
	if len(dropped) > 0 {
		fmt.Fprintf(stderr, "loadgen: dropped the harness's tables %v\n", dropped)
	}
	if len(kept) > 0 {
		fmt.Fprintf(stderr, "loadgen: left %v alone: not created by commentbench\n", kept)
	}
	return err
}

// interrupts turns the first SIGINT or SIGTERM into a cancelled context and
// the second into a closed abort channel.
func interrupts(stderr io.Writer) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sigs
		cancel()
		<-sigs
		// The results stream as the run goes (the CSVs and interval logs
		// are flushed every interval, the ledger as it is written): what
		// is on disk stays.
		fmt.Fprintln(stderr, "loadgen: second interrupt: exiting now; the results written so far stay")
		os.Exit(ExitInterrupted)
	}()
	return ctx
}

// ExitInterrupted is the exit code of a run stopped by SIGINT or SIGTERM
// (128 + SIGINT, as shells report it).
const ExitInterrupted = 130

func (o *options) execute(ctx context.Context, st store.Store, out *outputs, stdout, stderr io.Writer) (int, error) {
	sc := o.sc
	layout := o.design
	o.flaws = workload.NewFlaws()
	rows := workload.CountRows(st) // the system's writes alone: what the harness itself does is not counted
	sys, err := workload.System(rows, sc, o.flaws)
	if err != nil {
		return 0, err
	}
	o.sys = sys
	set := results.NewSet(workload.ResultNames())
	rep := progress.New(os.Stderr, o.quiet)
	ledger := results.NewLedger(o.out, o.backend.Sync)
	cfg := workload.Config{Scenario: sc, Results: set, WorkerIndex: o.workerIndex, WorkersTotal: o.workersTotal,
		Sys: sys, Ledger: ledger, Flaws: o.flaws, Append: o.appendRun, RunID: o.runID}
	if cfg.Load, err = o.loadPlan(o.engine, ledger); err != nil {
		return 0, err
	}
	if o.member != nil {
		cfg.StartAt = o.member.startAt
	}
	fmt.Fprintf(stdout, "commentbench loadgen %s: scenario %s, design %s, %s scans, ranks %s, writes %s, %s, seed %d%s\n",
		buildinfo.Version(), sc.Name, layout.Name(), sc.Scan, sc.Ranks, writesLine(sc, layout), o.backend.Describe(), sc.Seed, o.bases.loadLine())
	for _, a := range workload.Unrunnable(sc.Mix, layout) {
		fmt.Fprintf(stdout, "actor %s left out: design %s keeps no %s listing for it to read\n", a, layout.Name(), keys.LatestComment)
	}
	if !o.quiet {
		fmt.Fprintf(stderr, "loadgen: seeding %d users, %d products...\n", sc.Users, sc.Products)
	}
	if out.model != nil {
		out.model.SetOn(false) // seeding is setting up, not the modeled load
	}
	env, err := workload.Prepare(ctx, cfg)
	if err != nil {
		return 0, fmt.Errorf("prepare: %w", err)
	}
	if err := o.member.tablesMade(ctx); err != nil {
		return 0, err
	}
	if out.model != nil {
		out.model.SetOn(true)
	}
	var errs int64
	breached := 0
	var steps stepper
	switch {
	case o.search != nil:
		sr := newSearch(o.search, o.slos, o.settle, o.probe, time.Duration(sc.Interval), func() { o.searchDone = true; o.stopRun() }, stderr)
		steps, cfg.Target = sr, sr.target
	case sc.Ramp != "":
		steps = &ramp{results.NewSteps()}
	}
	cfg.OnSteady = func() {
		rows.SetOn(true)
		out.steadyStarts()
	}
	cfg.OnTick = func(t workload.Tick) {
		if t.Phase == "steady" && o.stopOnBreach {
			if breached++; !results.BreachedNow(o.slos, t.Interval) {
				breached = 0
			}
			if breached >= 2 && !o.breachStopped {
				o.breachStopped = true
				fmt.Fprintln(stderr, "loadgen: two intervals in a row breached an SLO: ending the ramp (--stop-on-breach)")
				o.stopRun()
			}
		}
		if err := ledger.Err(); err != nil && out.err == nil {
			out.err = err
		}
		out.tick(t)
		if t.Phase == "steady" && steps != nil { // after tick: the busiest server is this interval's
			steps.add(t, busiest(t.Regions, out), hottestRegion(t.Regions))
		}
		errs += intervalErrors(t.Interval)
		st := status(sc, t, errs, cfg.LoadTotal())
		st.Servers = busiestLine(out, t.Regions)
		rep.Update(st)
	}
	res, err := env.Run(ctx, cfg)
	rows.SetOn(false)
	rep.Finish()
	if res.LoadErr != nil {
		_ = ledger.Close()
		return 0, fmt.Errorf("load phase: %w", res.LoadErr)
	}
	if res.StartErr != nil {
		_ = ledger.Close()
		return 0, res.StartErr
	}
	if res.Loaded > 0 {
		fmt.Fprintln(stdout, loadDone(res, o.openTime))
	}
	if o.breachStopped || o.searchDone {
		res.Interrupted = false // it ended where it was told to
	}
	if lerr := ledger.Close(); err == nil {
		err = lerr
	}
	if err != nil {
		return 0, err
	}
	sum, err := o.summarize(context.WithoutCancel(ctx), st, set, res, layout, rows)
	if err != nil {
		return 0, err
	}
	if out.model != nil {
		sum.Servers = modeledServers(out.model, out.steadyBase(), sum.End.Sub(sum.Start))
	}
	if steps != nil {
		sum.Steps, sum.Capacity = steps.finish(o.slos)
		if _, isRamp := steps.(*ramp); isRamp {
			for k := range min(len(sum.Steps), len(res.StepStarts)) {
				sum.Steps[k].Start = res.StepStarts[k]
			}
		}
		sum.Judge(o.sc.PageSize) // again: a ramp's answer is its knee
	}
	if err := out.finish(sum); err != nil {
		return 0, err
	}
	if o.member != nil {
		o.member.completed = true
	}
	if res.Interrupted {
		fmt.Fprintln(stdout, "interrupted: stopped issuing, drained, results written")
	}
	if err := results.PrintSummaryWith(stdout, sum, results.Painter{Color: o.color}); err != nil {
		return 0, err
	}
	if cc, ok := st.(interface{ ClientCounters() hbase.Counters }); ok {
		fmt.Fprintln(stdout, clientLine(cc.ClientCounters()))
	}
	o.writeReport(stdout, stderr)
	fmt.Fprintf(stdout, "results in %s\n", o.out)
	if res.Interrupted {
		return ExitInterrupted, nil
	}
	if c := sum.Capacity; c != nil {
		// A ramp or search is there to find where the SLOs break: that they
		// break past the knee is its answer, not a failure. It fails when
		// not even its first rate held.
		if c.KneeRate > 0 {
			return 0, nil
		}
		return 1, nil
	}
	return sloExit(sum.SLOs), nil
}

func (o *options) summarize(ctx context.Context, st store.Store, set *results.Set, res workload.Outcome, layout *keys.Design, rows *workload.RowWrites) (results.Summary, error) {
	sum, err := set.Summary(res.Start, res.End, o.config())
	if err != nil {
		return sum, err
	}
	sum.Leave(workload.Unrun(o.sc.Mix, layout)...)
	sum.Pacing, sum.Violations, sum.Interrupted, sum.RunID = res.Pacing, res.Violations, res.Interrupted, o.runID
	if o.member != nil {
		sum.Fleet = o.member.record(res.Began)
	}
	if res.Loaded > 0 {
		sum.Load = &results.LoadPhase{Comments: res.Loaded, Seconds: res.LoadTime.Seconds(), Method: res.LoadedBy,
			Base: res.Base, SaveSeconds: res.SaveTime.Seconds()}
		if res.LoadedBy == workload.LoadReused {
			sum.Load.RestoreSeconds = o.openTime.Seconds()
		}
	}
	sum.Design = &results.DesignRecord{Name: layout.Name(), Source: string(layout.Source())}
	for _, t := range layout.Tables() {
		if store := layout.Table(t).Store; store != t {
			if sum.Stores == nil {
				sum.Stores = map[string]string{}
			}
			sum.Stores[t] = store
		}
	}
	sum.Durability = o.backend.Durability()
	servers, err := serverNames(ctx, st)
	if err != nil {
		return sum, err
	}
	describe := describeKey(layout)
	sum.Spread = spread.Tables(res.Loads, servers, describe, 3)
	if sum.HotKeys, err = workload.LocateHotKeys(ctx, st, layout, describe, res.HotKeys); err != nil {
		return sum, err
	}
	if sum.HotRows, err = workload.PlaceRows(ctx, st, rows.Top(hotRowsKept), res.Loads, describe, sum.DurationSec); err != nil {
		return sum, err
	}
	spread.MarkUnsplittable(sum.Spread, res.Loads, workload.RowLoads(sum.HotRows), describe)
	if sum.Storage, sum.BiggestRows, err = o.storage(ctx, st, layout); err != nil {
		return sum, err
	}
	if o.backend.Backend != "hbase" {
		sum.MaxRowSize = o.backend.MaxRowSize
	}
	if f := o.flaws; f != nil {
		sum.FillFlaws(f.Collided(), f.CollidedComments(), f.StaleRanks())
	}
	sum.Consistency = workload.ConsistencyOf(o.sys)
	sum.SLOs = results.Evaluate(o.slos, sum)
	sum.Judge(o.sc.PageSize) // last: it reads the flaws and SLOs
	if cc, ok := st.(interface{ ClientCounters() hbase.Counters }); ok {
		if sum.Backend, err = json.Marshal(cc.ClientCounters()); err != nil {
			return sum, err
		}
	}
	return sum, nil
}

// hotRowsKept is how many hot rows of each table summary.json keeps.
const hotRowsKept = 5

// config is the resolved run as summary.json records it.
func (o *options) config() any {
	return struct {
		Scenario workload.Scenario `json:"scenario"`
		Backend  string            `json:"backend"`
		DataDir  string            `json:"data_dir,omitempty"`
		Servers  int               `json:"servers,omitempty"`
		// RegionCounters says where the region spread's figures come from.
		RegionCounters string   `json:"region_counters"`
		WorkerIndex    int      `json:"worker_index"`
		WorkersTotal   int      `json:"workers_total"`
		SLOs           []string `json:"slos,omitempty"`
		Version        string   `json:"version"` // the build that ran it, for reports
	}{o.sc, o.backend.Backend, o.backend.DataDir, o.backend.Servers, o.regionCounters(), o.workerIndex, o.workersTotal, sloTexts(o.slos),
		buildinfo.Version()}
}

// regionCounters names the source of the per-region figures.
func (o *options) regionCounters() string {
	if o.backend.Backend == "hbase" {
		return "client-side: each request attributed to the region hbase:meta says holds its row"
	}
	return "server-side: the embedded engine's per-region counters"
}

// clientLine summarizes the HBase client's counters in one line.
func clientLine(c hbase.Counters) string {
	var rpcs, retries int64
	for _, n := range c.RPCs {
		rpcs += n
	}
	for _, n := range c.Retries {
		retries += n
	}
	return fmt.Sprintf("hbase client: %d RPCs (%s), %d retries (%s), %d meta lookups, %d cache misses",
		rpcs, counts(c.RPCs), retries, counts(c.Retries), c.MetaLookups, c.CacheMisses)
}

// counts prints a count map as "a 1, b 2", sorted by name.
func counts(m map[string]int64) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

func sloTexts(slos []results.SLO) []string {
	var out []string
	for _, s := range slos {
		out = append(out, s.Text)
	}
	return out
}

func sloExit(rs []results.SLOResult) int {
	for _, r := range rs {
		if !r.Met {
			return 1
		}
	}
	return 0
}

// serverNames lists every server hosting a region, so idle ones count in
// the spread.
func serverNames(ctx context.Context, st store.Store) ([]string, error) {
	stats, err := st.RegionStats(ctx)
	if err != nil {
		return nil, fmt.Errorf("region stats: %w", err)
	}
	var names []string
	for _, s := range stats {
		if !slices.Contains(names, s.Server) {
			names = append(names, s.Server)
		}
	}
	slices.Sort(names)
	return names, nil
}

// describeKey decodes a region boundary with the layout when it is a whole
// key; pre-split boundaries are id prefixes and print quoted.
func describeKey(l *keys.Design) spread.Describe {
	return func(table string, k []byte) string {
		if s, ok := l.Decoded(table, k); ok {
			return s
		}
		return keys.QuoteBytes(k)
	}
}

func intervalErrors(iv results.Interval) int64 {
	var n int64
	for _, op := range iv.Ops {
		n += op.Errors
	}
	return n
}

func status(sc workload.Scenario, t workload.Tick, errs int64, loadTotal int64) progress.Status {
	if t.Phase == "load" {
		return progress.Status{Phase: t.Phase, Elapsed: t.Elapsed, Ops: t.Loaded, OpsTotal: loadTotal, Errors: errs}
	}
	s := progress.Status{Phase: t.Phase, Elapsed: t.Elapsed, Ops: t.Arrivals, Errors: errs, OpsTotal: sc.Ops, Warmup: time.Duration(sc.Warmup)}
	if t.Phase == "steady" {
		s.Elapsed += time.Duration(sc.Warmup)
	}
	if sc.Duration > 0 {
		s.Total = time.Duration(sc.Warmup + sc.Duration)
	}
	for _, op := range t.Interval.Ops {
		s.WorstP99 = max(s.WorstP99, op.P99)
	}
	s.Rate, s.Target = t.Interval.Achieved(), t.Target
	return s
}

// outputs are the result files: two streamed as the run goes, the rest
// written at the end.
type outputs struct {
	dir             string
	timelineF, regF *os.File
	timelineB, regB *bufio.Writer
	timeline        *results.TimelineWriter
	regions         *results.RegionsWriter
	hlog            *results.HlogWriter
	interval        time.Duration      // the run's results interval: a shorter last one is marked partial
	model           *servermodel.Store // nil: no server model
	servers         *serversCSV
	baseMu          sync.Mutex
	modelBase       map[string]servermodel.ServerStat // at the steady phase's start
	live            *metrics.Server                   // nil without --metrics-addr
	err             error
}

func newOutputs(dir string) (*outputs, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("--out: %w", err)
	}
	o := &outputs{dir: dir}
	var err error
	if o.timelineF, err = os.Create(filepath.Join(dir, "timeline.csv")); err != nil {
		return nil, err
	}
	if o.regF, err = os.Create(filepath.Join(dir, "regions.csv")); err != nil {
		o.timelineF.Close()
		return nil, err
	}
	o.timelineB, o.regB = bufio.NewWriter(o.timelineF), bufio.NewWriter(o.regF)
	return o, nil
}

// tick streams one steady-phase interval; the warm-up is not recorded in
// the files, only shown live.
func (o *outputs) tick(t workload.Tick) {
	if o.live != nil {
		o.live.Update(metrics.Update{Phase: t.Phase, Interval: t.Interval, Regions: t.Regions,
			Target: t.Target, Achieved: t.Interval.Achieved()})
	}
	if t.Phase != "steady" || o.err != nil {
		return
	}
	o.open(t.Interval.End.Add(-t.Elapsed))
	if err := o.timeline.Write(t.Interval); err != nil {
		o.err = err
	}
	if err := o.regions.Write(t.Interval.Start, t.Interval.End, t.Regions); err != nil {
		o.err = err
	}
	if err := o.hlog.Write(t.Interval); err != nil {
		o.err = err
	}
	if o.servers != nil {
		if err := o.servers.write(t.Interval); err != nil {
			o.err = err
		}
	}
	// Flushed every interval so an abrupt end still leaves whole rows.
	o.timelineB.Flush()
	o.regB.Flush()
}

// steadyStarts snapshots the modeled servers as the steady phase begins:
// their figures count from there (workload.Config.OnSteady).
func (o *outputs) steadyStarts() {
	if o.model == nil {
		return
	}
	base := map[string]servermodel.ServerStat{}
	for _, st := range o.model.Stats() {
		base[st.Server] = st
	}
	o.baseMu.Lock()
	o.modelBase = base
	o.baseMu.Unlock()
}

// steadyBase is the snapshot steadyStarts took (none: every count is the
// steady phase's).
func (o *outputs) steadyBase() map[string]servermodel.ServerStat {
	o.baseMu.Lock()
	defer o.baseMu.Unlock()
	return o.modelBase
}

// open starts the CSV files (their headers) once the steady phase's start
// is known.
func (o *outputs) open(steadyStart time.Time) {
	if o.timeline == nil {
		o.timeline = results.NewTimelineWriter(o.timelineB, steadyStart, o.interval)
		o.regions = results.NewRegionsWriter(o.regB, steadyStart, o.interval)
		o.hlog = results.NewHlogWriter(o.dir, steadyStart)
		if o.model != nil {
			o.servers = newServersCSV(o.dir, o.model, steadyStart, o.steadyBase())
		}
	}
}

func (o *outputs) finish(sum results.Summary) error {
	if o.live != nil {
		o.live.SetPhase("done")
	}
	o.open(sum.Start) // a run stopped in its warm-up still gets headed files
	if o.err != nil {
		return fmt.Errorf("write results: %w", o.err)
	}
	for _, f := range []func() error{o.timelineB.Flush, o.regB.Flush, o.timelineF.Sync, o.regF.Sync, o.hlog.Close,
		func() error { return results.WriteSummary(o.dir, sum) },
		func() error { return results.WriteHgrm(o.dir, sum) }} {
		if err := f(); err != nil {
			return fmt.Errorf("write results: %w", err)
		}
	}
	return nil
}

func (o *outputs) close() {
	o.timelineF.Close()
	o.regF.Close()
	if o.servers != nil {
		o.servers.close()
	}
}

// newRunID is a run's random name: 16 hex digits.
func newRunID() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // never fails on Linux
	return hex.EncodeToString(b[:])
}

// startCPUProfile profiles the process into path until the returned func.
func startCPUProfile(path string) (func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--cpuprofile %s: %w", path, err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// writesLine says how comments are written, and, for one-row, which
// listings the comment's row mutation covers and which it cannot; then
// the failures injected, if any.
func writesLine(sc workload.Scenario, layout *keys.Design) string {
	s := sc.Writes
	if sc.Writes == comments.OneRow.String() {
		in, apart := comments.OneRowSplit(layout)
		s += " (" + strings.Join(in, ", ") + " in the comment's row"
		if len(apart) > 0 {
			s += "; " + strings.Join(apart, ", ") + " apart"
		}
		s += ")"
	}
	if f := sc.Faults; f.Any() {
		s += fmt.Sprintf(" (injected: %g failed, %g lost replies, %g abandoned)", f.FailWrites, f.LoseReplies, f.Abandon)
	}
	return s
}
