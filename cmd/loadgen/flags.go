package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"golang.org/x/term"

	"commentbench/backend"
	"commentbench/buildinfo"
	"commentbench/comments"
	"commentbench/fleet"
	"commentbench/keys"
	"commentbench/pace"
	"commentbench/results"
	"commentbench/store/embedded"
	"commentbench/workload"
)

// options is everything a run needs, validated.
type options struct {
	backend      backend.Flags
	sc           workload.Scenario
	design       *keys.Design    // sc.Layout, loaded
	flaws        *workload.Flaws // what the run saw of the seed's flaws
	sys          *comments.System
	out          string
	slos         []results.SLO
	quiet        bool
	noReport     bool // no report.html at the end of the run
	metricsAddr  string
	appendRun    bool // add to data that holds earlier runs
	color        bool // paint severities on the console
	stopOnBreach bool
	// A capacity search (--find-capacity): its range, and each probe's
	// settle and judged time.
	findCapacity  string
	search        *pace.Search
	settle, probe time.Duration
	modelNote     string // why a scenario's server model is off
	stopRun       func() // ends the run early (--stop-on-breach)
	breachStopped bool
	searchDone    bool // the capacity search ended the run
	runID         string
	// A fleet member's (fleet.go): --coordinate, its timeouts, and, once
	// validated, what it joins with and, once joined, its place.
	coordinate    string
	joinTimeout   time.Duration
	maxSkew       time.Duration
	memberTimeout time.Duration
	fleetCfg      *fleet.Config
	member        *member
	fresh         bool // wipe the harness's data first
	workerIndex   int
	workersTotal  int
	cpuProfile    string // --cpuprofile: where the run's CPU profile goes
	// The load phase: how it is written (--load), whether a kept base may
	// stand for it (--fresh-load), where bases are kept (--base-cache),
	// and what was decided (see bulk.go).
	loadMethod string
	freshLoad  bool
	baseCache  string
	bases      *basePlan
	engine     *embedded.Engine // the store, when it is the embedded engine
	openTime   time.Duration    // opening the store (from a base: restoring it)
	flags      *pflag.FlagSet   // the command line as parsed (loadgen kube reads it back)
}

// binder registers flags that override scenario fields. Each flag writes
// into a scratch scenario; only the flags the user set are copied over the
// preset or file, so a file's value is not clobbered by a flag's default.
type binder struct {
	fs      *pflag.FlagSet
	scratch workload.Scenario
	apply   map[string]func(*workload.Scenario)
}

func bind[T any](b *binder, name string, field func(*workload.Scenario) *T,
	reg func(*pflag.FlagSet, *T, string, T, string), usage string) {
	reg(b.fs, field(&b.scratch), name, *field(&b.scratch), usage)
	b.apply[name] = func(dst *workload.Scenario) { *field(dst) = *field(&b.scratch) }
}

func bindDuration(b *binder, name string, field func(*workload.Scenario) *workload.Duration, usage string) {
	b.fs.Var((*durationFlag)(field(&b.scratch)), name, usage)
	b.apply[name] = func(dst *workload.Scenario) { *field(dst) = *field(&b.scratch) }
}

// durationFlag is a duration flag whose errors say what to write.
type durationFlag time.Duration

func (d *durationFlag) String() string { return time.Duration(*d).String() }
func (d *durationFlag) Type() string   { return "duration" }
func (d *durationFlag) Set(s string) error {
	v, err := time.ParseDuration(s)
	if err != nil {
		if _, nerr := strconv.ParseFloat(s, 64); nerr == nil {
			return fmt.Errorf("%s has no unit: write e.g. %ss or %sm", s, s, s)
		}
		return fmt.Errorf("%q is not a duration: write e.g. 30s, 2m or 1h30m", s)
	}
	if v < 0 {
		return fmt.Errorf("%s is negative", s)
	}
	*d = durationFlag(v)
	return nil
}

var (
	intVar    = (*pflag.FlagSet).IntVar
	int64Var  = (*pflag.FlagSet).Int64Var
	uint64Var = (*pflag.FlagSet).Uint64Var
	floatVar  = (*pflag.FlagSet).Float64Var
	stringVar = (*pflag.FlagSet).StringVar
)

func (b *binder) register() {
	b.fs.StringVar(&b.scratch.System, "system", "", "the seed's whole design: seed (its keys, scans and rank upsert) or fixed (unique keys, bounded scans, ranks replaced); --layout and --scan override it")
	b.apply["system"] = func(dst *workload.Scenario) { dst.SetSystem(b.scratch.System) }
	bind(b, "ranks", func(s *workload.Scenario) *string { return &s.Ranks }, stringVar, "how the ranking job writes: upsert (the seed's: a shorter ranking leaves stale ranks) or replace")
	bind(b, "rank-shrink", func(s *workload.Scenario) *float64 { return &s.RankShrink }, floatVar, "how often (0..1) the ranking job writes a product a shorter ranking than before")
	bind(b, "layout", func(s *workload.Scenario) *string { return &s.Layout }, stringVar, "key design: a built-in ("+strings.Join(keys.BuiltinNames(), ", ")+") or a design file; see 'loadgen lint'")
	bind(b, "scan", func(s *workload.Scenario) *string { return &s.Scan }, stringVar, "listing scans: bounded (start/stop rows) or seed (filters from the table's start)")
	bind(b, "writes", func(s *workload.Scenario) *string { return &s.Writes }, stringVar,
		"how a comment write keeps its listing entries in step: non-atomic (the seed's), one-row (the entries in the comment's row in one row mutation), verified (Phoenix's verified index) or transactional (Haeinsa's transactions)")
	bind(b, "fail-writes", func(s *workload.Scenario) *float64 { return &s.Faults.FailWrites }, floatVar,
		"inject: the odds (0..1) that a request of a comment write fails before it is applied")
	bind(b, "lose-replies", func(s *workload.Scenario) *float64 { return &s.Faults.LoseReplies }, floatVar,
		"inject: the odds (0..1) that a request of a comment write is applied and its reply lost")
	bind(b, "abandon", func(s *workload.Scenario) *float64 { return &s.Faults.Abandon }, floatVar,
		"inject: the odds (0..1) that a comment write's writer stops partway, as a crashed client")
	bind(b, "ids", func(s *workload.Scenario) *string { return &s.IDs }, stringVar, "id scheme: "+strings.Join(keys.SchemeNames(), ", "))
	bind(b, "seed", func(s *workload.Scenario) *uint64 { return &s.Seed }, uint64Var, "random seed: the same seed gives the same operation sequence per worker")
	bind(b, "users", func(s *workload.Scenario) *int { return &s.Users }, intVar, "users seeded before the run")
	bind(b, "products", func(s *workload.Scenario) *int { return &s.Products }, intVar, "products seeded before the run")
	bind(b, "sellers", func(s *workload.Scenario) *int { return &s.Sellers }, intVar, "sellers seeded before the run")
	bind(b, "regions", func(s *workload.Scenario) *int { return &s.Regions }, intVar, "regions each table is pre-split into")
	bindDuration(b, "duration", func(s *workload.Scenario) *workload.Duration { return &s.Duration }, "steady phase length (0: until --ops or Ctrl-C)")
	bind(b, "ops", func(s *workload.Scenario) *int64 { return &s.Ops }, int64Var, "operations in the steady phase (0: until --duration)")
	bind(b, "load-per-user", func(s *workload.Scenario) *int { return &s.LoadPerUser }, intVar,
		"load phase: before the warm-up, write this many comments a user on average, unrecorded, so the run starts with full listings and timelines (0: none)")
	bindDuration(b, "warmup", func(s *workload.Scenario) *workload.Duration { return &s.Warmup }, "warm-up before recording starts")
	bind(b, "workers", func(s *workload.Scenario) *int { return &s.Workers }, intVar, "closed loop: concurrent workers; open loop: the cap on operations in flight")
	bind(b, "rate", func(s *workload.Scenario) *float64 { return &s.Rate }, floatVar, "open loop: arrivals per second (0: closed loop)")
	bind(b, "arrival", func(s *workload.Scenario) *string { return &s.Arrival }, stringVar, "open loop arrivals: constant or poisson")
	bind(b, "ramp", func(s *workload.Scenario) *string { return &s.Ramp }, stringVar, "open loop stepped ramp FROM:TO:STEP/EVERY, e.g. 1000:10000:1000/30s")
	bindDuration(b, "interval", func(s *workload.Scenario) *workload.Duration { return &s.Interval }, "results interval for timeline.csv and regions.csv")
	bind(b, "page-size", func(s *workload.Scenario) *int { return &s.PageSize }, intVar, "comments per listing page")
	bind(b, "max-pages", func(s *workload.Scenario) *int { return &s.MaxPages }, intVar, "pager depth (0: to the end)")
	bind(b, "zipf", func(s *workload.Scenario) *float64 { return &s.Popularity.Exponent }, floatVar, "product popularity Zipf exponent (0: uniform)")
	bind(b, "hot-products", func(s *workload.Scenario) *int { return &s.Popularity.HotProducts }, intVar, "size of an explicit hot set of products")
	bind(b, "hot-share", func(s *workload.Scenario) *float64 { return &s.Popularity.HotShare }, floatVar, "share (0..1) of picks that go to the hot set")
	bind(b, "hot-users", func(s *workload.Scenario) *int { return &s.Popularity.HotUsers }, intVar, "size of a hot set of users who comment in a streak")
	bind(b, "hot-user-share", func(s *workload.Scenario) *float64 { return &s.Popularity.HotUserShare }, floatVar, "share (0..1) of user picks that go to the hot users")
	bindDuration(b, "rank-every", func(s *workload.Scenario) *workload.Duration { return &s.RankEvery }, "run the ranking job on this period (0: only from the mix)")
	bind(b, "server-capacity", func(s *workload.Scenario) *float64 { return &s.ServerModel.Capacity }, floatVar,
		"embedded: model each region server as taking this many requests a second at the base cost (0: no model); its queueing is in the latency")
	bind(b, "server-handlers", func(s *workload.Scenario) *int { return &s.ServerModel.Handlers }, intVar,
		"embedded, with a server model: handlers per modeled server")
	bind(b, "server-cost", func(s *workload.Scenario) *string { return &s.ServerModel.Cost }, stringVar,
		"embedded, with a server model: service time per row and byte touched (row=, byte=; base= overrides --server-capacity's)")
}

// parse reads the command line into options, or returns the exit code.
func parse(args []string, stdout, stderr io.Writer) (*options, int) {
	o := &options{}
	fs := pflag.NewFlagSet("loadgen", pflag.ContinueOnError)
	o.flags = fs
	fs.SetOutput(stderr)
	fs.SortFlags = false
	preset := fs.String("preset", "steady", "scenario preset: "+strings.Join(workload.PresetNames(), ", "))
	file := fs.String("scenario", "", "YAML scenario file (its values override the preset; flags override both)")
	b := &binder{fs: fs, apply: map[string]func(*workload.Scenario){}}
	b.scratch, _ = workload.Preset("steady")
	b.register()
	o.backend.Register(fs)
	o.backend.RegisterDrop(fs)
	fs.StringVar(&o.out, "out", "", "results directory (default results/<timestamp>)")
	sloExprs := fs.StringArray("slo", nil, "service level check, repeatable: OP:METRIC<=VALUE, e.g. product-latest:p99<=200ms, *:error-rate<1%, comment-write:throughput>=500/s")
	fs.BoolVar(&o.quiet, "quiet", false, "no progress bar or status lines")
	fs.BoolVar(&o.noReport, "no-report", false, "do not write report.html into the results dir at the end")
	fs.BoolVar(&o.stopOnBreach, "stop-on-breach", false, "with --ramp and --slo: end the ramp after two intervals in a row breach an SLO")
	fs.StringVar(&o.findCapacity, "find-capacity", "", "search FROM:TO arrivals/s by bisection for the highest rate at which every --slo holds, to within 5%")
	fs.DurationVar(&o.settle, "settle", 3*time.Second, "with --find-capacity: each probe's time to settle before it is judged")
	fs.DurationVar(&o.probe, "probe", 10*time.Second, "with --find-capacity: each probe's judged time")
	colorMode := fs.String("color", "auto", "colour on the console: auto (a terminal without NO_COLOR), always or never; severities are words either way")
	fs.BoolVar(&o.appendRun, "append", false, "add this run to data that holds earlier runs (its order ids are new)")
	fs.BoolVar(&o.fresh, "fresh", false, "wipe the data the harness wrote (its own tables only) before the run; same as --drop-tables")
	fs.StringVar(&o.metricsAddr, "metrics-addr", "", "serve live Prometheus metrics at HOST:PORT/metrics during the run (an empty host is loopback)")
	fs.IntVar(&o.workerIndex, "worker-index", 0, "this process's index among --workers-total loading one cluster")
	fs.IntVar(&o.workersTotal, "workers-total", 1, "processes loading one cluster; each gets its own order ids")
	o.registerFleet(fs)
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the whole run to this file (go tool pprof reads it)")
	fs.StringVar(&o.loadMethod, "load", "bulk", "how the load phase (--load-per-user) is written: bulk (embedded: sorted tables ingested; hbase: batched multi-puts) or puts (comment by comment through the write path)")
	fs.BoolVar(&o.freshLoad, "fresh-load", false, "load afresh even when a base of this load is kept (--base-cache), and keep the new one")
	fs.StringVar(&o.baseCache, "base-cache", "", "embedded: where loaded bases are kept and reused (default $XDG_CACHE_HOME/commentbench/bases, for loads of 100k comments or more; off: none)")
	version := fs.Bool("version", false, "print the version and exit")
	fs.Usage = func() { usage(fs, stdout) } // asked for help: the answer is the output
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return nil, 0
		}
		fmt.Fprintf(stderr, "loadgen: %v\nrun 'loadgen --help' for the flags\n", plainFlagError(fs, err))
		return nil, 2
	}
	if *version {
		fmt.Fprintln(stdout, "loadgen", buildinfo.Version())
		return nil, 0
	}
	if fs.NArg() > 0 {
		return nil, fail(stderr, fmt.Errorf("unexpected argument %q (flags only; or 'loadgen merge DIR...')", fs.Arg(0)))
	}
	if err := o.indexFromEnv(fs); err != nil {
		return nil, fail(stderr, err)
	}
	if err := o.resolve(fs, b, *preset, *file, *sloExprs); err != nil {
		return nil, fail(stderr, err)
	}
	var err error
	if o.color, err = results.UseColor(*colorMode, term.IsTerminal(int(os.Stdout.Fd())), os.Getenv("NO_COLOR")); err != nil {
		return nil, fail(stderr, err)
	}
	return o, 0
}

// resolve builds the scenario (preset, then file, then flags) and checks
// every input before anything is opened or written.
func (o *options) resolve(fs *pflag.FlagSet, b *binder, preset, file string, sloExprs []string) error {
	var err error
	if file != "" {
		if fs.Changed("preset") {
			return fmt.Errorf("--preset and --scenario: give one (a scenario file starts from its own base)")
		}
		if o.sc, err = workload.LoadScenario(file); err != nil {
			return fmt.Errorf("--scenario: %w", err) // the error names the file
		}
	} else if o.sc, err = workload.Preset(preset); err != nil {
		return fmt.Errorf("--preset: %w", err)
	}
	// --system first: it sets layout, scan and ranks, which their own
	// flags then override.
	if fs.Changed("system") {
		b.apply["system"](&o.sc)
	}
	fs.Visit(func(f *pflag.Flag) {
		if apply, ok := b.apply[f.Name]; ok && f.Name != "system" {
			apply(&o.sc)
		}
	})
	if err := o.checkModel(fs); err != nil {
		return err
	}
	if o.stopOnBreach && (o.sc.Ramp == "" || len(sloExprs) == 0) {
		return fmt.Errorf("--stop-on-breach ends a ramp at an SLO's breach: give --ramp and --slo")
	}
	if err := o.searchOptions(fs, o.findCapacity, len(sloExprs)); err != nil {
		return err
	}
	if o.appendRun && (o.fresh || o.backend.DropTables) {
		return errors.New("--append and --fresh: give one (append keeps the data, fresh wipes it)")
	}
	if o.fresh {
		o.backend.DropTables = true
	}
	if fs.Changed("ramp") && fs.Changed("rate") {
		return fmt.Errorf("--ramp %s and --rate %v: give one (a ramp sets the rate step by step)", o.sc.Ramp, o.sc.Rate)
	}
	if err := o.sc.Validate(); err != nil {
		return err
	}
	if fs.Changed("arrival") && o.sc.Rate == 0 && o.sc.Ramp == "" {
		return fmt.Errorf("--arrival %s: arrivals are for an open loop; give --rate or --ramp (a closed loop has none)", o.sc.Arrival)
	}
	o.design, _ = keys.Load(o.sc.Layout) // Validate loaded it
	if err := o.backend.Validate(); err != nil {
		return err
	}
	if o.workersTotal < 1 || o.workersTotal > 64 {
		return fmt.Errorf("--workers-total %d: want 1..64", o.workersTotal)
	}
	if o.workerIndex < 0 || o.workerIndex >= o.workersTotal {
		return fmt.Errorf("--worker-index %d: want 0..%d (below --workers-total)", o.workerIndex, o.workersTotal-1)
	}
	if err := o.validateFleet(fs); err != nil {
		return err
	}
	for _, e := range sloExprs {
		s, err := results.ParseSLO(e)
		if err != nil {
			return fmt.Errorf("--slo: %w", err)
		}
		if err := s.CheckOp(workload.ResultNames()); err != nil {
			return fmt.Errorf("--slo: %w", err)
		}
		o.slos = append(o.slos, s)
	}
	if err := o.planLoad(); err != nil {
		return err
	}
	return o.checkOut()
}

// checkOut refuses a results directory that already holds files, so two
// runs' results never mix.
func (o *options) checkOut() error {
	if o.out == "" {
		o.out = "results/" + time.Now().Format("20060102-150405")
	}
	entries, err := os.ReadDir(o.out)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("--out %s: %w", o.out, err)
	case len(entries) > 0:
		return fmt.Errorf("--out %s: directory is not empty; give a new one", o.out)
	}
	return nil
}

func usage(fs *pflag.FlagSet, w io.Writer) {
	fmt.Fprint(w, `loadgen drives the comment system and records what it saw.

usage: loadgen [flags]
       loadgen merge [--out DIR] [--slo EXPR]... RUN_DIR...
       loadgen lint --layout NAME|FILE [--json] [--print]
       loadgen flaws RUN_DIR...   (the seed's four flaws, one line each, across runs)
       loadgen plan --layout NAME|FILE --comments-per-day N --days D [flags]   (storage, modeled)
       loadgen report RUN_DIR... [-o FILE] [--force]   (one run's HTML page, or runs compared)
       loadgen kube --image IMG --results-claim PVC [flags] [--] FLAGS...   (a fleet's Kubernetes objects)

flags:
`)
	fmt.Fprint(w, fs.FlagUsages())
	fmt.Fprintln(w, "\npresets:")
	for _, name := range workload.PresetNames() {
		p, _ := workload.Preset(name)
		fmt.Fprintln(w, wrap(p.Describe(), "  ", "      ", 78))
	}
	fmt.Fprintln(w, "\nkey designs (--layout; 'loadgen lint --layout NAME --print' prints one):")
	for _, name := range keys.BuiltinNames() {
		d, _ := keys.Builtin(name)
		fmt.Fprintln(w, wrap(name+": "+d.Description(), "  ", "      ", 78))
	}
	fmt.Fprintln(w, wrap("operations (for --slo): "+strings.Join(workload.OpNames, ", "), "\n", "  ", 78))
	fmt.Fprintln(w, wrap("actions, end to end from when the arrival was due (for --slo as action:NAME:p99<=300ms): "+
		strings.Join(workload.ActionNames, ", "), "", "  ", 78))
}

// wrap folds text into lines of at most width columns.
func wrap(text, first, rest string, width int) string {
	var b strings.Builder
	line := first
	for _, word := range strings.Fields(text) {
		if len(line)+1+len(word) > width && strings.TrimSpace(line) != "" {
			b.WriteString(line + "\n")
			line = rest
		}
		if strings.TrimSpace(line) != "" {
			line += " "
		}
		line += word
	}
	return b.String() + line
}

// checkModel refuses a server model asked of a real cluster; one a preset
// or scenario file carries is left off there, and said so.
func (o *options) checkModel(fs *pflag.FlagSet) error {
	if !o.sc.ServerModel.On() || o.backend.Backend == "embedded" {
		return nil
	}
	if fs.Changed("server-capacity") {
		return fmt.Errorf("--server-capacity models the embedded engine's servers; a real cluster's servers are real (--backend %s)", o.backend.Backend)
	}
	o.sc.ServerModel.Capacity = 0
	o.modelNote = fmt.Sprintf("scenario %s's modeled servers are left off: the %s backend's servers are real", o.sc.Name, o.backend.Backend)
	return nil
}

// searchOptions checks --find-capacity and, given, makes the run an open
// loop as long as the search can take.
func (o *options) searchOptions(fs *pflag.FlagSet, spec string, slos int) error {
	if spec == "" {
		for _, f := range []string{"settle", "probe"} {
			if fs.Changed(f) {
				return fmt.Errorf("--%s is a capacity search's: give --find-capacity FROM:TO", f)
			}
		}
		return nil
	}
	s, err := pace.ParseSearch(spec)
	switch {
	case err != nil:
		return err
	case slos == 0:
		return fmt.Errorf("--find-capacity %s searches for where an SLO breaks: give at least one --slo", spec)
	case fs.Changed("rate") || fs.Changed("ramp") || o.stopOnBreach:
		return fmt.Errorf("--find-capacity %s sets the rate itself: leave out --rate, --ramp and --stop-on-breach", spec)
	case o.probe < time.Duration(o.sc.Interval) || o.settle < 0:
		return fmt.Errorf("--probe %v --settle %v: want a probe of at least one --interval (%v) and a settle of 0 or more",
			o.probe, o.settle, time.Duration(o.sc.Interval))
	}
	o.search = s
	o.sc.Rate, o.sc.Ramp, o.sc.Ops = s.From, "", 0 // open loop; the search sets the rate
	o.sc.Duration = workload.Duration(searchBound(s, o.settle, o.probe))
	return nil
}

// badValue is how pflag words a value its type does not parse.
var badValue = regexp.MustCompile(`^invalid argument "(.*)" for "(?:-\w, )?--([\w-]+)" flag: `)

// plainFlagError says what a flag wants where pflag would pass on a
// strconv error: "--rate 1k: want a number".
func plainFlagError(fs *pflag.FlagSet, err error) error {
	m := badValue.FindStringSubmatch(err.Error())
	if m == nil || !strings.Contains(err.Error(), "strconv.") {
		return err // a flag's own Value already said what it wants
	}
	f := fs.Lookup(m[2])
	if f == nil {
		return err
	}
	want, ok := map[string]string{
		"float64":  "a number, like 1000 or 0.5",
		"int":      "a whole number",
		"int64":    "a whole number",
		"uint64":   "a whole number, 0 or more",
		"duration": "a duration, like 30s, 1m30s or 200ms",
		"bool":     "true or false",
	}[f.Value.Type()]
	if !ok {
		return err
	}
	return fmt.Errorf("--%s %s: want %s", m[2], m[1], want)
}

// indexFromEnv takes the worker index from JOB_COMPLETION_INDEX when
// --worker-index is not given: a pod of an Indexed Job (loadgen kube's
// members) holds its completion index there.
func (o *options) indexFromEnv(fs *pflag.FlagSet) error {
	v := os.Getenv("JOB_COMPLETION_INDEX")
	if v == "" || fs.Changed("worker-index") || o.workersTotal < 1 { // resolve says what is wrong with the last
		return nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n >= o.workersTotal {
		return fmt.Errorf("JOB_COMPLETION_INDEX=%q: want this worker's index, 0..%d (below --workers-total %d)",
			v, o.workersTotal-1, o.workersTotal)
	}
	o.workerIndex = n
	return nil
}
