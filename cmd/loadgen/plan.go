package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"commentbench/comments"
	"commentbench/entry"
	"commentbench/faults"
	"commentbench/keys"
	"commentbench/model"
	"commentbench/plan"
	"commentbench/results"
	"commentbench/servermodel"
	"commentbench/store"
	"commentbench/store/nop"
	"commentbench/workload"
)

// Bounds of the plan's counts: far past any shop, small enough that rows
// and bytes stay exact in int64 and float64.
const (
	maxPlanCount = 1_000_000_000_000
	maxPlanDays  = 36_500
)

// planFlags are the plan's inputs as given.
type planFlags struct {
	layout, preset, scenario string
	perDay, days             countFlag
	users, products, sellers countFlag
	ordersPer                ratioFlag
	regionSize, maxRowSize   sizeFlag
	asJSON                   bool
}

// planCmd prints the storage plan of a key design: bytes per comment in
// each table, each table's rows, bytes and regions after some days, and
// new regions a day. It runs nothing against a store.
func planCmd(args []string, stdout, stderr io.Writer) int {
	f, fs, code := parsePlan(args, stderr)
	if f == nil {
		return code
	}
	rep, err := f.report(context.Background(), fs)
	if err != nil {
		return fail(stderr, err)
	}
	if f.asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		err = enc.Encode(rep)
	} else {
		err = rep.Print(stdout)
	}
	if err != nil {
		return fail(stderr, err)
	}
	return 0
}

func parsePlan(args []string, stderr io.Writer) (*planFlags, *pflag.FlagSet, int) {
	f := &planFlags{perDay: countFlag{max: maxPlanCount}, days: countFlag{max: maxPlanDays},
		users: countFlag{max: maxPlanCount}, products: countFlag{max: maxPlanCount}, sellers: countFlag{max: maxPlanCount},
		regionSize: sizeFlag(10 << 30), maxRowSize: sizeFlag(store.DefaultMaxRowSize)}
	fs := pflag.NewFlagSet("loadgen plan", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.layout, "layout", "", "key design: a built-in ("+strings.Join(keys.BuiltinNames(), ", ")+") or a design file")
	fs.Var(&f.perDay, "comments-per-day", "comments written a day (required)")
	fs.Var(&f.days, "days", "days of comments to plan for (required)")
	fs.Var(&f.users, "users", "users (default: the scenario's)")
	fs.Var(&f.products, "products", "products (default: the scenario's)")
	fs.Var(&f.sellers, "sellers", "sellers (default: the scenario's)")
	fs.Var(&f.ordersPer, "orders-per-comment", "orders per comment, below 1 when orders hold several commented products (default: from the scenario's mix)")
	fs.Var(&f.regionSize, "region-size", "size at which a region splits: "+plan.SizeSyntax)
	fs.Var(&f.maxRowSize, "max-row-size", "HBase's hbase.table.max.rowsize, past which a whole-row read fails (wide rows)")
	fs.StringVar(&f.preset, "preset", "steady", "scenario whose comment texts, entities, mix and population are planned for: "+strings.Join(workload.PresetNames(), ", "))
	fs.StringVar(&f.scenario, "scenario", "", "YAML scenario file, instead of --preset")
	fs.BoolVar(&f.asJSON, "json", false, "print the plan as a JSON document")
	fs.Usage = func() {
		fmt.Fprint(stderr, "usage: loadgen plan --layout NAME|FILE --comments-per-day N --days D [--users U --products P --sellers S]\n"+
			"                    [--region-size 10GiB] [--orders-per-comment X] [--preset NAME | --scenario FILE] [--json]\n\n"+
			"Models each table's bytes (HBase's KeyValue per cell, values encoded from the scenario's own\n"+
			"generators), rows, regions and new regions a day. Runs nothing. Exit 2 on bad input.\n\n")
		fmt.Fprint(stderr, fs.FlagUsages())
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return nil, nil, 0
		}
		return nil, nil, fail(stderr, err)
	}
	if err := f.check(fs); err != nil {
		return nil, nil, fail(stderr, err)
	}
	return f, fs, 0
}

func (f *planFlags) check(fs *pflag.FlagSet) error {
	switch {
	case fs.NArg() > 0:
		return fmt.Errorf("plan: unexpected argument %q", fs.Arg(0))
	case f.layout == "":
		return fmt.Errorf("plan: --layout is required (%s, or a design file)", strings.Join(keys.BuiltinNames(), ", "))
	case !fs.Changed("comments-per-day"):
		return fmt.Errorf("plan: --comments-per-day is required (%s)", f.perDay.want())
	case !fs.Changed("days"):
		return fmt.Errorf("plan: --days is required (%s)", f.days.want())
	case f.scenario != "" && fs.Changed("preset"):
		return fmt.Errorf("plan: --preset and --scenario: give one (a scenario file starts from its own base)")
	}
	return nil
}

// report models the plan the flags ask for.
func (f *planFlags) report(ctx context.Context, fs *pflag.FlagSet) (plan.Report, error) {
	sc, err := f.loadScenario()
	if err != nil {
		return plan.Report{}, err
	}
	d, err := keys.Load(f.layout)
	if err != nil {
		return plan.Report{}, fmt.Errorf("--layout %s: %w", f.layout, err)
	}
	sc.Layout = f.layout
	m, err := storageModel(ctx, sc, d)
	if err != nil {
		return plan.Report{}, err
	}
	in := plan.Inputs{CommentsPerDay: f.perDay.v, Days: int(f.days.v), Users: int64(sc.Users),
		Products: int64(sc.Products), Sellers: int64(sc.Sellers), OrdersPerComment: ordersPerComment(sc),
		RegionSize: int64(f.regionSize), MaxRowSize: int64(f.maxRowSize)}
	override := map[string]func(){"users": func() { in.Users = f.users.v }, "products": func() { in.Products = f.products.v },
		"sellers": func() { in.Sellers = f.sellers.v }, "orders-per-comment": func() { in.OrdersPerComment = float64(f.ordersPer) }}
	for name, set := range override {
		if fs.Changed(name) {
			set()
		}
	}
	if in.HottestProductShare, in.HottestUserShare, err = hottestShares(sc, in.Products, in.Users); err != nil {
		return plan.Report{}, err
	}
	return m.Plan(in), nil
}

// hottestShares are the parts of all comments the scenario's hottest
// product and hottest user write, among products and users as many as
// the plan's: the product by its popularity, the user by the hot users'
// share or, without hot users, as one of all.
func hottestShares(sc workload.Scenario, products, users int64) (product, user float64, err error) {
	ps := sc.Popularity
	pop, err := workload.NewPopularity(int(min(products, maxPopularityItems)), ps.Exponent, ps.HotProducts, ps.HotShare)
	if err != nil {
		return 0, 0, fmt.Errorf("the scenario's popularity over %d products: %w", products, err)
	}
	user = 1 / float64(users)
	if ps.HotUsers > 0 {
		user = ps.HotUserShare/float64(ps.HotUsers) + (1-ps.HotUserShare)*user
	}
	return pop.Share(0), user, nil
}

// maxPopularityItems bounds the products the hottest's share is computed
// over: a Zipf law's top share hardly moves past millions, and its table
// is made item by item.
const maxPopularityItems = 10_000_000

func (f *planFlags) loadScenario() (workload.Scenario, error) {
	if f.scenario != "" {
		sc, err := workload.LoadScenario(f.scenario)
		if err != nil {
			return sc, fmt.Errorf("--scenario %s: %w", f.scenario, err)
		}
		return sc, nil
	}
	sc, err := workload.Preset(f.preset)
	if err != nil {
		return sc, fmt.Errorf("--preset: %w", err)
	}
	return sc, nil
}

// countFlag is a whole number from 1 to max.
type countFlag struct {
	v, max int64
}

func (c *countFlag) want() string { return fmt.Sprintf("want a whole number from 1 to %d", c.max) }
func (c *countFlag) String() string {
	if c.v == 0 {
		return ""
	}
	return strconv.FormatInt(c.v, 10)
}
func (c *countFlag) Type() string { return "int" }
func (c *countFlag) Set(s string) error {
	v, err := strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 10, 64)
	if err != nil || v < 1 || v > c.max {
		return errors.New(c.want())
	}
	c.v = v
	return nil
}

// ratioFlag is orders per comment: positive, and at most a few hundred.
type ratioFlag float64

const maxOrdersPerComment = 1000

func (r *ratioFlag) String() string {
	if *r == 0 {
		return ""
	}
	return strconv.FormatFloat(float64(*r), 'g', -1, 64)
}
func (r *ratioFlag) Type() string { return "float" }
func (r *ratioFlag) Set(s string) error {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !(v > 0 && v <= maxOrdersPerComment) {
		return fmt.Errorf("want a number above 0 and at most %d (1: an order per comment; 0.5: two commented products per order)", maxOrdersPerComment)
	}
	*r = ratioFlag(v)
	return nil
}

// sizeFlag is a size in bytes, written as plan.ParseSize reads it.
type sizeFlag int64

func (z *sizeFlag) String() string { return plan.FormatSize(float64(*z)) }
func (z *sizeFlag) Type() string   { return "size" }
func (z *sizeFlag) Set(s string) error {
	v, err := plan.ParseSize(s)
	if err != nil {
		return err
	}
	*z = sizeFlag(v)
	return nil
}

// ordersPerComment is what the scenario's mix makes: a comment writer, and
// each comment of a burst, has an order of its own; a multi-product order
// holds MultiOrder comments. Bursts on a clock (Burst.Every) are left out:
// they too are one order per comment.
func ordersPerComment(sc workload.Scenario) float64 {
	w, b, m := sc.Mix["write"], sc.Mix["burst"], sc.Mix["multi-order"]
	burst := b * float64(sc.Burst.Size)
	all := w + burst + m*float64(sc.MultiOrder)
	if all == 0 {
		return 1
	}
	return (w + burst + m) / all
}

// Sampling the values: the plan prices the values a run writes by writing
// them, through the comment system, into a store that keeps only sizes.
const (
	valueSamples = 10_000 // comments: their mean settles to about 1%
	// The population sampled: every user, product and seller is encoded
	// alike, so a few hundred say what millions would.
	sampleUsers, sampleProducts, sampleSellers = 1000, 500, 100
)

// storageModel prices the tables of design d with the values scenario sc
// writes.
func storageModel(ctx context.Context, sc workload.Scenario, d *keys.Design) (*plan.Model, error) {
	v, err := sampleValues(ctx, sc)
	if err != nil {
		return nil, fmt.Errorf("sample values: %w", err)
	}
	return plan.NewModel(d, v)
}

// sampleValues seeds a small population as the workload seeds it, then
// writes orders and comments whose texts come from the scenario's content
// generators, all with a fixed seed: the same scenario gives the same
// means every time.
func sampleValues(ctx context.Context, sc workload.Scenario) (plan.Values, error) {
	sc.Users, sc.Products, sc.Sellers = min(sc.Users, sampleUsers), min(sc.Products, sampleProducts), min(sc.Sellers, sampleSellers)
	// An entity's value is its JSON whatever the design's keys: sampled on
	// the seed's design, every value is a row of its own table, put.
	sc.Layout = "seed"
	sc.Writes, sc.Faults = comments.NonAtomic.String(), faults.Spec{} // the values, not how they are kept in step
	rec := &sizeRecorder{Store: nop.New()}
	sys, err := workload.System(rec, sc, nil)
	if err != nil {
		return plan.Values{}, err
	}
	env, err := workload.Prepare(ctx, workload.Config{Scenario: sc, Sys: sys})
	if err != nil {
		return plan.Values{}, err
	}
	if err := sampleComments(ctx, sys, env.Pop, sc); err != nil {
		return plan.Values{}, err
	}
	return plan.Values{Mean: rec.means(), Source: fmt.Sprintf("the means of %s comments and orders and of %d users, %d products and "+
		"%d sellers as scenario %s writes them (the seed's JSON)", plan.Count(valueSamples), sc.Users, sc.Products, sc.Sellers, sc.Name)}, nil
}

// sampleComments writes valueSamples orders and comments by users and on
// products of pop.
func sampleComments(ctx context.Context, sys *comments.System, pop workload.Population, sc workload.Scenario) error {
	r := rand.New(rand.NewPCG(sc.Seed, 0x9a1e5))
	ids := keys.NewRandom(r)
	equal := equalLengthShare(sc)
	now := time.Now().UnixMilli()
	for i := range valueSamples {
		o := model.Order{ID: ids.Next(), UserID: pop.Users[r.IntN(len(pop.Users))]}
		if err := sys.CreateOrder(ctx, o); err != nil {
			return err
		}
		c := comments.NewComment{OrderID: o.ID, ProductID: pop.Products[r.IntN(len(pop.Products))], UserID: o.UserID,
			Content: sampleText(sc.Content, r, equal), Timestamp: now + int64(i)}
		if _, err := sys.WriteComment(ctx, c); err != nil {
			return err
		}
	}
	return nil
}

// equalLengthShare is the share of comments a burst writes with one byte
// length (ContentOfBytes) rather than as free text, by the mix's weights.
func equalLengthShare(sc workload.Scenario) float64 {
	w, b, m := sc.Mix["write"], sc.Mix["burst"], sc.Mix["multi-order"]
	size := float64(sc.Burst.Size)
	all := w + b*size + m*float64(sc.MultiOrder)
	if all == 0 {
		return 0
	}
	return b * math.Floor(size*sc.Burst.EqualLength+0.5) / all
}

// sampleText draws a comment's text as the workload's actors do.
func sampleText(cs workload.ContentSpec, r *rand.Rand, equalShare float64) string {
	if r.Float64() < equalShare {
		return workload.ContentOfBytes(r, cs.Chars(r))
	}
	return cs.Text(r, cs.Chars(r))
}

// sizeRecorder is a store that counts, per table, the rows put and their
// values' bytes. The no-op store under it answers the order check a
// comment write makes.
type sizeRecorder struct {
	*nop.Store
	mu     sync.Mutex
	rows   map[string]int64
	values map[string]int64
}

// Mutate implements store.Store.
func (s *sizeRecorder) Mutate(ctx context.Context, table string, muts ...store.Mutation) error {
	s.mu.Lock()
	if s.rows == nil {
		s.rows, s.values = map[string]int64{}, map[string]int64{}
	}
	for _, m := range muts {
		if m.DeleteRow {
			continue
		}
		s.rows[table]++
		for _, c := range m.Cells {
			s.values[table] += int64(len(c.Value))
		}
	}
	s.mu.Unlock()
	return s.Store.Mutate(ctx, table, muts...)
}

// means is each of the system's tables' mean value bytes per row put.
func (s *sizeRecorder) means() map[string]float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]float64{}
	for _, t := range keys.Tables {
		if n := s.rows[t]; n > 0 {
			out[t] = float64(s.values[t]) / float64(n)
		}
	}
	return out
}

// storage measures, at the end of a run, each table's live entries as
// HBase stores them (a cell each), beside the model's bytes for as many
// entries, and each store table's biggest rows. On the hbase backend it
// is skipped: a full scan of every table of a real cluster is not the end
// of a load run's business.
func (o *options) storage(ctx context.Context, st store.Store, layout *keys.Design) ([]results.TableStorage, []results.TableRows, error) {
	if o.backend.Backend == "hbase" {
		return nil, nil, nil
	}
	if m, ok := st.(*servermodel.Store); ok {
		st = m.Store // the harness measuring is not modeled load: no queue, no count
	}
	m, err := storageModel(ctx, o.sc, layout)
	if err != nil {
		return nil, nil, fmt.Errorf("storage: %w", err)
	}
	measured := map[string]entrySize{}
	var biggest []results.TableRows
	for _, table := range layout.StoreTables() {
		rows, err := measureStore(ctx, st, layout, table, measured)
		if err != nil {
			return nil, nil, fmt.Errorf("storage: %w", err)
		}
		if len(rows.Rows) > 0 && rows.Rows[0].Cells > 1 { // a row of one cell is no wide row
			biggest = append(biggest, rows)
		}
	}
	var out []results.TableStorage
	for _, t := range layout.Tables() {
		e := measured[t]
		ts := results.TableStorage{Table: t, Rows: e.entries, MeasuredBytes: e.bytes,
			ModeledBytes: int64(math.Round(m.Bytes(t, e.entries)))}
		if host := layout.Table(t).Store; host != t {
			ts.Store = host
		}
		out = append(out, ts)
	}
	return out, biggest, nil
}

// entrySize is a table's entries and their bytes as cells.
type entrySize struct{ entries, bytes int64 }

// measureStore reads a store table a batch of cells at a time, sums
// plan.CellBytes over each design table's entries there into sizes, and
// returns the table's biggest rows by the same measure.
func measureStore(ctx context.Context, st store.Store, layout *keys.Design, table string, sizes map[string]entrySize) (results.TableRows, error) {
	tables := layout.InStore(table)
	top := results.TableRows{Table: table}
	var key []byte
	var cells, size int64
	flush := func() {
		// Described only when kept: a key's words cost more than its scan.
		if key != nil && kept(top.Rows, size) {
			top.Rows = keepBiggest(top.Rows, results.RowSize{Row: layout.Describe(table, key), Cells: cells, Bytes: size})
		}
	}
	_, err := st.Scan(ctx, table, store.Scan{Batch: entry.Batch}, func(r store.Row) bool {
		if !bytes.Equal(r.Key, key) {
			flush()
			key, cells, size = append(key[:0], r.Key...), 0, 0
		}
		for _, c := range r.Cells {
			if len(c.Qualifier) == 0 {
				continue // a transaction's lock (txn.LockColumn): the strategy's, not the design's
			}
			n := int64(plan.CellBytes(len(r.Key), len(keys.Family), len(c.Qualifier), len(c.Value)))
			cells, size = cells+1, size+n
			for _, t := range tables {
				if entry.Of(t, r.Key, c.Qualifier) {
					e := sizes[t.Table]
					sizes[t.Table] = entrySize{e.entries + 1, e.bytes + n}
					break
				}
			}
		}
		return true
	})
	if err != nil {
		return top, fmt.Errorf("scan %s: %w", table, err)
	}
	flush()
	return top, nil
}

// kept says whether a row of size bytes is among the biggest rows.
func kept(rows []results.RowSize, bytes int64) bool {
	return len(rows) < biggestRows || bytes > rows[biggestRows-1].Bytes
}

// keepBiggest files r among the biggest rows, biggest first.
func keepBiggest(rows []results.RowSize, r results.RowSize) []results.RowSize {
	if !kept(rows, r.Bytes) {
		return rows
	}
	i, _ := slices.BinarySearchFunc(rows, r, func(a, b results.RowSize) int { return cmp.Compare(b.Bytes, a.Bytes) })
	rows = slices.Insert(rows, i, r)
	return rows[:min(len(rows), biggestRows)]
}

// biggestRows is how many of each table's biggest rows summary.json keeps.
const biggestRows = 3
