// Command verify proves that a data set's index tables and comments agree,
// reconciles it with what a loadgen run acknowledged, shows how the data
// spreads over regions and servers, and repairs what can be repaired.
//
// Exit codes: 0 consistent, 1 inconsistencies found, 2 could not check
// (bad usage, a store that cannot be opened, an unknown or wrong layout).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/spf13/pflag"

	"commentbench/backend"
	"commentbench/buildinfo"
	"commentbench/check"
	"commentbench/comments"
	"commentbench/keys"
	"commentbench/progress"
	"commentbench/results"
	"commentbench/store"
)

type options struct {
	backend    backend.Flags
	layout     string
	cpuProfile string // --cpuprofile: where the check's CPU profile goes
	json       bool
	run        string
	repair     bool
	yes        bool
	quiet      bool
	noSpread   bool
	tmp        string
	out        string
}

func main() {
	tuneGC()
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// tuneGC: a check's live heap is small and its garbage plenty (a row for
// every row read), so the collector runs at five times the live heap
// rather than twice, and at 256 MiB of heap whatever the live heap: fewer
// collections, and a bounded heap at any data size. GOGC and GOMEMLIMIT,
// when set, decide instead.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(256 << 20)
	}
}

func run(args []string, stdout, stderr io.Writer) int {
	var o options
	fs := pflag.NewFlagSet("verify", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.SortFlags = false
	o.backend.RegisterRead(fs)
	fs.Usage = func() { usage(fs, stdout) }
	fs.StringVar(&o.layout, "layout", "", "key design: a built-in ("+strings.Join(keys.BuiltinNames(), ", ")+") or a design file; default: the design recorded in the data")
	fs.BoolVar(&o.json, "json", false, "print the report as a JSON document")
	fs.StringVar(&o.run, "run", "", "a loadgen results directory: also check that every comment it acknowledged exists")
	fs.BoolVar(&o.repair, "repair", false, "write missing index rows, delete dangling and mismatched ones, rebuild broken rankings (dry run without --yes)")
	fs.BoolVar(&o.yes, "yes", false, "with --repair: carry the repair out")
	fs.BoolVar(&o.quiet, "quiet", false, "no progress, and only the verdict line")
	fs.BoolVar(&o.noSpread, "no-spread", false, "skip the data spread (a full extra pass over every table)")
	fs.StringVar(&o.tmp, "tmp", "", "directory for the external sorts' spill files (default: the system's)")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the check to this file (go tool pprof reads it)")
	fs.StringVar(&o.out, "out", "", "also write the report as DIR/"+check.ReportFile+" (a run directory, for loadgen flaws and reports)")
	version := fs.Bool("version", false, "print the version and exit")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "verify: %v\nrun 'verify --help' for the flags\n", err)
		return 2
	}
	if *version {
		fmt.Fprintln(stdout, "verify", buildinfo.Version())
		return 0
	}
	if fs.NArg() > 0 {
		return fail(stderr, fmt.Errorf("unexpected argument %q (flags only)", fs.Arg(0)))
	}
	if o.yes && !o.repair {
		return fail(stderr, errors.New("--yes applies to --repair; give both"))
	}
	if o.backend.ReuseTables && !o.yes {
		return fail(stderr, errors.New("--reuse-tables lets --repair --yes write into tables the harness did not create; a check without them only reads, and reads any table"))
	}
	return o.verify(stdout, stderr)
}

func fail(stderr io.Writer, err error) int {
	fmt.Fprintln(stderr, "verify:", err)
	return 2
}

func (o *options) verify(stdout, stderr io.Writer) int {
	if o.run != "" {
		if _, err := os.Stat(o.run); err != nil {
			return fail(stderr, fmt.Errorf("--run: %w", err))
		}
	}
	var given *keys.Design // a bad design file is bad usage: said before the data is opened
	if o.layout != "" {
		var err error
		if given, err = keys.Load(o.layout); err != nil {
			return fail(stderr, fmt.Errorf("--layout: %w", err))
		}
	}
	mode := backend.ReadOnly
	if o.repair && o.yes {
		mode = backend.Existing
	}
	st, err := o.backend.Open(mode)
	if err != nil {
		return fail(stderr, err)
	}
	defer st.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	layout, how, err := o.resolveLayout(ctx, st, given)
	if err != nil {
		return fail(stderr, err)
	}
	if err := requireTables(ctx, st, layout); err != nil {
		return fail(stderr, err)
	}
	if err := o.checkRunOf(ctx, st); err != nil {
		return fail(stderr, err)
	}
	writes, _, err := comments.RecordedWrites(ctx, st)
	if err != nil {
		return fail(stderr, err)
	}
	var rows, seen atomic.Int64
	opts := check.Options{Layout: layout, TempDir: o.tmp, RunDir: o.run, Writes: writes,
		Spread: !o.noSpread, Repair: o.repair, Rows: &rows, Comments: &seen}
	if o.cpuProfile != "" {
		f, err := os.Create(o.cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			return fail(stderr, fmt.Errorf("--cpuprofile: %w", err))
		}
		defer func() {
			pprof.StopCPUProfile()
			f.Close()
		}()
	}
	prog := startProgress(os.Stderr, progress.ModeOf(os.Stderr, o.quiet || o.json), &rows, &seen, opts.ReadsPerComment())
	rep, err := check.Run(ctx, st, opts)
	prog.stop()
	if err != nil {
		fmt.Fprintln(stderr, "verify:", err)
		return 2
	}
	if o.repair && o.yes {
		if err := rep.Repair.Apply(ctx, st, layout); err != nil {
			fmt.Fprintln(stderr, "verify:", err)
			return 1
		}
	}
	if o.out != "" {
		if err := check.WriteReport(o.out, rep); err != nil {
			fmt.Fprintln(stderr, "verify:", err)
			return 2
		}
	}
	if err := o.print(stdout, rep, how); err != nil {
		fmt.Fprintln(stderr, "verify:", err)
		return 2
	}
	if !rep.Consistent {
		return 1
	}
	return 0
}

// resolveLayout takes the design the data recorded; a --layout that
// contradicts it is refused, naming the first table and part that differ,
// since every index key would read wrong.
func (o *options) resolveLayout(ctx context.Context, st store.Store, given *keys.Design) (*keys.Design, string, error) {
	recorded, found, err := comments.RecordedLayout(ctx, st)
	if err != nil {
		return nil, "", err
	}
	if given == nil {
		if !found {
			return nil, "", errors.New("the data does not record its design: give --layout (" + strings.Join(keys.BuiltinNames(), ", ") + ", or a design file)")
		}
		return recorded, "recorded in the data", nil
	}
	if !found {
		return given, "from --layout", nil
	}
	if diff := given.Diff(recorded); diff != "" {
		return nil, "", fmt.Errorf("--layout %s: the data was written with design %s (%s): %w", o.layout, recorded.Name(), diff, comments.ErrLayoutMismatch)
	}
	return recorded, "recorded in the data", nil
}

// requireTables fails early on a store that holds no comment system of
// the design.
func requireTables(ctx context.Context, st store.Store, layout *keys.Design) error {
	tables, err := st.ListTables(ctx)
	if err != nil {
		return err
	}
	have := map[string]bool{}
	for _, t := range tables {
		have[t.Name] = true
	}
	for _, t := range layout.StoreTables() {
		if !have[t] {
			return fmt.Errorf("table %s is missing: is this a loadgen data directory?", t)
		}
	}
	return nil
}

func (o *options) print(w io.Writer, rep check.Report, how string) error {
	switch {
	case o.json:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	case o.quiet:
		_, err := fmt.Fprintln(w, rep.Verdict)
		return err
	}
	return printReport(w, rep, how, o.repair && !o.yes)
}

func usage(fs *pflag.FlagSet, w io.Writer) {
	fmt.Fprint(w, `verify checks a comment data set loadgen wrote: every index row against
every comment, the rankings, the references between entities, and, with
--run, every comment the run acknowledged; it shows how the data spreads
over regions and servers, and can repair what is repairable.

usage: verify --data-dir DIR [--run RESULTS_DIR] [flags]
       verify --backend hbase --hbase-zk HOST:PORT,... [flags]

exit codes: 0 consistent, 1 inconsistencies found, 2 could not check

flags:
`)
	fmt.Fprint(w, fs.FlagUsages())
}

// checkRunOf refuses a --run whose results are another data set's: every
// comment it acknowledged would count as lost here.
func (o *options) checkRunOf(ctx context.Context, st store.Store) error {
	if o.run == "" {
		return nil
	}
	sum, err := results.ReadSummary(o.run)
	if err != nil || sum.RunID == "" {
		return nil // an interrupted run, or one from before run ids: the ledger decides
	}
	wrote, known, err := comments.WroteData(ctx, st, sum.RunID)
	if err != nil {
		return err
	}
	if known && !wrote {
		return fmt.Errorf("--run %s: run %s did not write this data (%s): give the results of a run into it", o.run, sum.RunID, o.backend.Describe())
	}
	return nil
}
