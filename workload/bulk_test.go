package workload

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"commentbench/comments"
	"commentbench/keys"
	"commentbench/results"
	"commentbench/store"
	"commentbench/store/embedded"
)

// ingestInto is a LoadPlan's Ingest on the embedded engine: its bulk load.
func ingestInto(e *embedded.Engine) func(context.Context, string, []func() (store.BulkRow, bool)) error {
	return func(ctx context.Context, table string, parts []func() (store.BulkRow, bool)) error {
		_, err := e.BulkLoad(ctx, table, parts...)
		return err
	}
}

// loadOnly runs sc's load phase and one listing read after it on a new
// in-memory engine, loaded as plan says (nil: put by put), keeping the
// ledger in dir; it returns the engine and the outcome.
func loadOnly(t *testing.T, sc Scenario, plan func(*embedded.Engine) *LoadPlan, dir string) (*embedded.Engine, Outcome) {
	t.Helper()
	return loadWith(t, embedded.Options{MaxRegionSize: 64 << 10, InitialSplitSize: 16 << 10}, sc, plan, dir)
}

func loadWith(t *testing.T, o embedded.Options, sc Scenario, plan func(*embedded.Engine) *LoadPlan, dir string) (*embedded.Engine, Outcome) {
	t.Helper()
	e, err := embedded.Open(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e, loadInto(t, e, sc, plan, dir)
}

func loadInto(t *testing.T, e *embedded.Engine, sc Scenario, plan func(*embedded.Engine) *LoadPlan, dir string) Outcome {
	t.Helper()
	sys, err := System(e, sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	ledger := results.NewLedger(dir, false)
	cfg := Config{Scenario: sc, Results: results.NewSet(ResultNames()), WorkersTotal: 1, Sys: sys, Ledger: ledger}
	if plan != nil {
		cfg.Load = plan(e)
	}
	env, err := Prepare(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	env.Clock.base = 1_800_000_000_000 // the runs compared stamp alike
	out, err := env.Run(context.Background(), cfg)
	if err != nil || out.LoadErr != nil {
		t.Fatalf("run: %v, load: %v", err, out.LoadErr)
	}
	if err := ledger.Close(); err != nil {
		t.Fatal(err)
	}
	if err := e.WaitIdle(); err != nil {
		t.Fatal(err)
	}
	return out
}

// loadScenario is the ci preset's with a load phase and one read after.
func loadScenario(t *testing.T, layout string, workers int) Scenario {
	sc := testScenario(t, layout)
	sc.Users, sc.Products, sc.LoadPerUser, sc.Workers = 300, 40, 6, workers // 1800 comments
	sc.Mix = map[string]float64{"list": 1}
	sc.Ops, sc.Warmup = 1, 0
	if err := sc.Validate(); err != nil {
		t.Fatal(err)
	}
	return sc
}

// dump is every cell of every table but the harness's run records, one
// line each, sorted; the products' values, which carry the time they
// were seeded, are left out.
func dump(t *testing.T, st store.Store) []string {
	t.Helper()
	ctx := context.Background()
	specs, err := st.ListTables(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, spec := range specs {
		if spec.Name == comments.MetaTable {
			continue
		}
		_, err := st.Scan(ctx, spec.Name, store.Scan{}, func(r store.Row) bool {
			for _, c := range r.Cells {
				v := fmt.Sprintf("%x", c.Value)
				if strings.Contains(string(c.Value), `"createdAt":`) { // a product, stamped as seeded
					v = "(seeded)"
				}
				out = append(out, fmt.Sprintf("%s|%x|%x|%s", spec.Name, r.Key, c.Qualifier, v))
			}
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(out)
	return out
}

// ledgerLines are a run's ledger records, sorted.
func ledgerLines(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	if _, err := results.ReadLedger(dir, func(r results.LedgerRecord) error {
		out = append(out, fmt.Sprintf("%c %x %d", r.Status, r.Key, r.Len))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

func sameLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d lines, want %d", what, len(got), len(want))
	}
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			t.Fatalf("%s: line %d is %s, want %s", what, i, got[i], want[i])
		}
	}
}

// A bulk load writes the rows a put-by-put load writes, cell for cell,
// on tall and wide designs (a wide one's listing joins the product's
// seeded row, and its count sums every comment), and its ledger holds
// the same records, every comment acknowledged.
func TestBulkLoadMatchesPuts(t *testing.T) {
	layouts := []string{"seed", "unique", "between", "feed"}
	if raceOn {
		layouts = []string{"between"} // a wide row's merge: the race detector's time on one is enough
	}
	for _, layout := range layouts {
		t.Run(layout, func(t *testing.T) { assertBulkMatchesPuts(t, layout) })
	}
}

// The paths a big load takes (cells sorted in buckets, a table cut into
// parts written side by side, each part's rows merged on a goroutine of
// their own) give what the small one's do: their thresholds lowered, the
// same loads match the put loads.
func TestBulkLoadBigPaths(t *testing.T) {
	defer bigPaths()()
	layouts := []string{"seed", "between"}
	if raceOn {
		layouts = layouts[:1] // the parts' goroutines are the same on either
	}
	for _, layout := range layouts {
		t.Run(layout, func(t *testing.T) { assertBulkMatchesPuts(t, layout) })
	}
}

// bigPaths lowers the thresholds of a big load's paths to a test's
// loads, and returns what puts them back.
func bigPaths() (restore func()) {
	b, p, w := bucketSortFrom, pipelineFrom, writeParts
	bucketSortFrom, pipelineFrom, writeParts = 16, 16, 3
	return func() { bucketSortFrom, pipelineFrom, writeParts = b, p, w }
}

func assertBulkMatchesPuts(t *testing.T, layout string) {
	sc := loadScenario(t, layout, 1)
	putDir, bulkDir, batchDir := t.TempDir(), t.TempDir(), t.TempDir()
	put, putOut := loadOnly(t, sc, nil, putDir)
	bulk, bulkOut := loadOnly(t, sc, func(e *embedded.Engine) *LoadPlan { return &LoadPlan{Ingest: ingestInto(e)} }, bulkDir)
	batch, _ := loadOnly(t, sc, func(*embedded.Engine) *LoadPlan { return &LoadPlan{} }, batchDir)
	if putOut.LoadedBy != LoadPuts || bulkOut.LoadedBy != LoadBulk || bulkOut.Loaded != 1800 {
		t.Errorf("loaded by %q and %q, %d comments; want puts, bulk load, 1800", putOut.LoadedBy, bulkOut.LoadedBy, bulkOut.Loaded)
	}
	want := dump(t, put)
	if len(want) < 4*1800 {
		t.Fatalf("the put load left %d cells; want at least 4 a comment", len(want))
	}
	sameLines(t, "bulk load's cells", dump(t, bulk), want)
	sameLines(t, "batched puts' cells", dump(t, batch), want)
	wantLedger := ledgerLines(t, putDir)
	sameLines(t, "bulk load's ledger", ledgerLines(t, bulkDir), wantLedger)
	sameLines(t, "batched puts' ledger", ledgerLines(t, batchDir), wantLedger)
}

// A bulk load charges the regions the writes puts would (without splits,
// which start their daughters' counters from zero), and splits a region
// it fills as puts would have: into about as many regions.
func TestBulkLoadRegions(t *testing.T) {
	sc := loadScenario(t, "unique", 2)
	sc.LoadPerUser = 20 // 6000 comments, a few hundred KiB a table
	bulkPlan := func(e *embedded.Engine) *LoadPlan { return &LoadPlan{Ingest: ingestInto(e)} }
	put, _ := loadOnly(t, sc, nil, t.TempDir())
	bulk, _ := loadOnly(t, sc, bulkPlan, t.TempDir())
	unsplit, _ := loadWith(t, embedded.Options{DisableSplits: true}, sc, bulkPlan, t.TempDir())
	restore := bigPaths()
	inParts, _ := loadWith(t, embedded.Options{DisableSplits: true}, sc, bulkPlan, t.TempDir())
	restore()
	writes := func(e *embedded.Engine, table string) (regions int, n uint64) {
		stats, err := e.RegionStats(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range stats {
			if s.Table == table {
				regions++
				n += s.WriteRequests
			}
		}
		return regions, n
	}
	for _, table := range []string{keys.Comment, keys.Order} {
		pr, _ := writes(put, table)
		br, _ := writes(bulk, table)
		if _, n := writes(unsplit, table); n != 6000 {
			t.Errorf("%s: bulk load charged %d writes; want 6000", table, n)
		}
		if _, n := writes(inParts, table); n != 6000 {
			t.Errorf("%s: bulk load in parts charged %d writes; want 6000", table, n)
		}
		if br < pr/2 || br > pr*2 {
			t.Errorf("%s: bulk load left %d regions, puts %d: want about as many", table, br, pr)
		}
	}
}

// A bulk load replayed over the data it made (a reused base) moves the
// generators on as the load did: the steady phase's first order ids are
// the same after either.
func TestBulkReplayMovesGeneratorsOn(t *testing.T) {
	sc := loadScenario(t, "unique", 2)
	ids := func(plan *LoadPlan) []string {
		e, err := embedded.Open(embedded.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		if plan != nil && plan.Ingest == nil && !plan.Reuse {
			plan.Ingest = ingestInto(e)
		}
		sys, _ := System(e, sc, nil)
		cfg := Config{Scenario: sc, Results: results.NewSet(ResultNames()), WorkersTotal: 1, Sys: sys, Load: plan}
		env, err := Prepare(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		r := &run{cfg: cfg, env: env}
		r.orders, _ = orderIDs(sc, 0, 0)
		ws, _ := r.newWorkers()
		if plan.Reuse {
			err = r.replay(context.Background(), ws[:sc.Workers], nil)
		} else {
			_, err = r.bulkLoad(context.Background(), ws[:sc.Workers], plan)
		}
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, w := range ws[:sc.Workers] {
			out = append(out, w.orders.Next(), fmt.Sprint(w.r.Uint64()), fmt.Sprint(len(w.recent)))
		}
		return append(out, fmt.Sprint(ackedComments(env)))
	}
	loaded, replayed := ids(&LoadPlan{}), ids(&LoadPlan{Reuse: true})
	if strings.Join(loaded, " ") != strings.Join(replayed, " ") {
		t.Errorf("after the load: %v; after its replay: %v; want the same", loaded, replayed)
	}
}

// What the load cannot make in bulk it says, and the capture refuses a
// delete rather than drop it.
func TestBulkRefusals(t *testing.T) {
	sc := loadScenario(t, "unique", 1)
	if r := BulkRefusal(sc, 1); r != "" {
		t.Errorf("plain load refused: %s", r)
	}
	if r := BulkRefusal(sc, 2); r == "" {
		t.Error("a load shared between processes: want refused")
	}
	sc.Writes = comments.Transactional.String()
	if r := BulkRefusal(sc, 1); r == "" {
		t.Error("transactional writes: want refused")
	}
	c := newCapture()
	if err := c.Mutate(context.Background(), "t", store.Delete([]byte("r"))); err == nil {
		t.Error("a delete into the capture: want an error")
	}
}

// A load ledger that cannot be opened (the second worker's, here) fails
// the bulk load, saying so, before anything is generated or written; the
// ledgers opened before it are closed.
func TestBulkLoadLedgerRefused(t *testing.T) {
	sc := loadScenario(t, "unique", 3)
	e, err := embedded.Open(embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	sys, err := System(e, sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "ledger-load-0001.bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	ledger := results.NewLedger(dir, false)
	cfg := Config{Scenario: sc, Results: results.NewSet(ResultNames()), WorkersTotal: 1, Sys: sys, Ledger: ledger,
		Load: &LoadPlan{Ingest: ingestInto(e)}}
	env, err := Prepare(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	out, err := env.Run(context.Background(), cfg)
	if err != nil || out.LoadErr == nil || !strings.Contains(out.LoadErr.Error(), "ledger-load-0001.bin") || out.Loaded != 0 {
		t.Fatalf("run: %v, load: %v after %d comments; want the second load ledger's error before any", err, out.LoadErr, out.Loaded)
	}
}
