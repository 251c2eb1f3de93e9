package workload

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"commentbench/comments"
	"commentbench/keys"
	"commentbench/results"
	"commentbench/store"
	"commentbench/store/embedded"
)

// slowStore delays every call, as an overloaded region server would.
type slowStore struct {
	store.Store
	delay time.Duration
}

func (s slowStore) Mutate(ctx context.Context, t string, m ...store.Mutation) error {
	time.Sleep(s.delay)
	return s.Store.Mutate(ctx, t, m...)
}

func (s slowStore) Scan(ctx context.Context, t string, sc store.Scan, each func(store.Row) bool) (store.ScanMetrics, error) {
	time.Sleep(s.delay)
	return s.Store.Scan(ctx, t, sc, each)
}

func (s slowStore) BatchGet(ctx context.Context, t string, rows [][]byte) ([]store.Row, error) {
	time.Sleep(s.delay)
	return s.Store.BatchGet(ctx, t, rows)
}

func testScenario(t testing.TB, layout string) Scenario {
	t.Helper()
	sc, err := Preset("ci")
	if err != nil {
		t.Fatal(err)
	}
	sc.Layout = layout
	return sc
}

func openEngine(t testing.TB) store.Store {
	t.Helper()
	e, err := embedded.Open(embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// runScenario prepares and runs sc on st and returns the outcome and the
// recorded totals by op name. ctx is the run's alone: the tables are made
// first, so a test's deadline is not spent on them when the machine is
// too busy to make them fast.
func runScenario(t testing.TB, ctx context.Context, st store.Store, sc Scenario) (Outcome, map[string]results.OpTotals) {
	t.Helper()
	if err := sc.Validate(); err != nil {
		t.Fatal(err)
	}
	return runScenarioSet(t, ctx, st, sc, results.NewSet(ResultNames()))
}

// runScenarioSet is runScenario recording into set.
func runScenarioSet(t testing.TB, ctx context.Context, st store.Store, sc Scenario, set *results.Set) (Outcome, map[string]results.OpTotals) {
	t.Helper()
	layout, err := keys.Load(sc.Layout)
	if err != nil {
		t.Fatal(err)
	}
	mode, _ := comments.ParseScanMode(sc.Scan)
	cfg := Config{Scenario: sc, Results: set, WorkersTotal: 1,
		Sys: comments.New(st, comments.Options{Layout: layout, Scan: mode})}
	env, err := Prepare(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	out, err := env.Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	tot := map[string]results.OpTotals{}
	for _, o := range set.Totals() {
		tot[o.Op] = o
	}
	return out, tot
}

// Against a backend slower than the arrival rate, latency measured from the
// intended start shows the queue; service time, from the actual start, does
// not.
func TestOpenLoopShowsQueueing(t *testing.T) {
	sc := testScenario(t, "unique")
	sc.Mix = map[string]float64{"list": 1}
	sc.Workers, sc.Rate, sc.Ops = 1, 200, 0 // capacity ~100/s: two 5 ms calls per listing
	sc.Duration, sc.Warmup = Duration(1500*time.Millisecond), 0
	out, tot := runScenario(t, context.Background(), slowStore{openEngine(t), 5 * time.Millisecond}, sc)
	lat, svc := tot["product-latest"].Latency.ValueAtQuantile(50), tot["product-latest"].Service.ValueAtQuantile(50)
	if lat < 5*svc {
		t.Errorf("p50 latency %dµs, service %dµs: want the queue (latency ≥ 5× service)", lat, svc)
	}
	if out.Pacing.Mode != "open" || out.Pacing.Late == 0 || out.Pacing.Unstarted == 0 {
		t.Errorf("pacing %+v: want late and unstarted arrivals counted", out.Pacing)
	}
	// Every arrival is accounted for: started (and recorded) or unstarted.
	if got := tot["product-latest"].Count + tot["product-latest"].Errors; got != out.Pacing.Arrivals {
		t.Errorf("%d listings recorded for %d arrivals", got, out.Pacing.Arrivals)
	}
}

// On the seed layout the bursts' same-millisecond, same-length comments
// collide and the pagers find comments missing; on every other built-in,
// whose listing keys hold the order, they find nothing. Every run also
// costs its listing pages (see checkListingCost).
func TestPagersSeeSeedCollisions(t *testing.T) {
	for _, layout := range keys.BuiltinNames() {
		t.Run(layout, func(t *testing.T) {
			if raceOn && !slices.Contains([]string{"seed", "salted", "between"}, layout) {
				// The race detector sees the same goroutines on every design:
				// a tall, a scatter-gather and a wide one are enough of them.
				t.Skip("the race detector's run covers seed, salted and between")
			}
			t.Parallel() // each on its own engine
			sc := testScenario(t, layout)
			if layout == "time-led" {
				// Its product listings read the whole table: a shorter run
				// keeps the test quick.
				sc.Ops = 1000
			}
			out, tot := runScenario(t, context.Background(), openEngine(t), sc)
			checkListingCost(t, sc, tot)
			missing := out.Violations[VMissing]
			if layout == "seed" {
				if missing == nil || missing.Count == 0 {
					t.Fatalf("violations %v: want missing comments on the seed layout", out.Violations)
				}
				return
			}
			for k, v := range out.Violations {
				t.Errorf("%s: %d, e.g. %v", k, v.Count, v.Samples)
			}
		})
	}
}

// checkListingCost checks that every listing page a run read is costed
// under its op: one page per listing or ranking read and per page a pager
// fetched. A salted listing's first page scans all 8 buckets (later pages
// skip the buckets that ran dry); other designs and every ranking scan once
// a page. A bounded page of a listing whose prefix holds its owner reads at
// most limit+1 rows a scan.
func checkListingCost(t *testing.T, sc Scenario, tot map[string]results.OpTotals) {
	t.Helper()
	design, err := keys.Load(sc.Layout)
	if err != nil {
		t.Fatal(err)
	}
	const owner = "AAAAAAAAAA" // any valid id: the plan does not depend on it
	plans := map[string]string{"product-latest": keys.ProductComment, "product-page": keys.ProductComment,
		"user-timeline": keys.UserComment, "ranked": keys.ProductRank}
	rowsPerScan := int64(sc.PageSize + 1)
	for op, table := range plans {
		l, err := design.Listing(table, owner)
		if err != nil {
			t.Fatal(err)
		}
		branches := int64(len(l.Branches))
		if want := map[bool]int64{true: 8, false: 1}[sc.Layout == "salted" && table != keys.ProductRank]; branches != want {
			t.Errorf("%s: %s listing has %d branches, want %d", op, table, branches, want)
		}
		o := tot[op]
		c := o.Cost
		if o.Count == 0 || o.Errors != 0 || c.Pages != o.Count {
			t.Errorf("%s: %d pages costed for %d ops (%d errors); want one per op and no errors", op, c.Pages, o.Count, o.Errors)
			continue
		}
		switch {
		case op == "product-latest" || op == "ranked": // first pages only: every branch
			if c.Scans != c.Pages*branches {
				t.Errorf("%s: %d scans over %d pages, want %d", op, c.Scans, c.Pages, c.Pages*branches)
			}
		case c.Scans < c.Pages || c.Scans > c.Pages*branches:
			t.Errorf("%s: %d scans over %d pages, want %d..%d", op, c.Scans, c.Pages, c.Pages, c.Pages*branches)
		case branches > 1 && c.Scans == c.Pages:
			t.Errorf("%s: %d scans over %d pages; want a salted pager's first pages to scan every bucket", op, c.Scans, c.Pages)
		}
		if c.Rows < c.MaxRows || !l.Filtered && (c.MaxRows > branches*rowsPerScan || c.Rows > c.Scans*rowsPerScan) {
			t.Errorf("%s: %d rows read (max %d a page) in %d scans; want at most %d a scan", op, c.Rows, c.MaxRows, c.Scans, rowsPerScan)
		}
	}
	for _, op := range []string{"comment-write", "order-create", "rank-job", "comment-edit"} {
		if c := tot[op].Cost; c != (results.Cost{}) {
			t.Errorf("%s: listing cost %+v; want none for an op that reads no page", op, c)
		}
	}
}

// The same seed gives one worker the same sequence of operations.
func TestSeedReproducesOperations(t *testing.T) {
	counts := func() map[string]int64 {
		sc := testScenario(t, "unique")
		sc.Workers, sc.Ops = 1, 500
		_, tot := runScenario(t, context.Background(), openEngine(t), sc)
		m := map[string]int64{}
		for op, o := range tot {
			m[op] = o.Count + o.Errors
		}
		return m
	}
	a, b := counts(), counts()
	for op := range a {
		if a[op] != b[op] {
			t.Errorf("%s: %d then %d operations with one seed", op, a[op], b[op])
		}
	}
}

// Warm-up runs but is not recorded: the op budget is spent after it.
func TestWarmupNotRecorded(t *testing.T) {
	sc := testScenario(t, "unique")
	sc.Mix = map[string]float64{"list": 1}
	sc.Warmup, sc.Ops = Duration(200*time.Millisecond), 300
	out, tot := runScenario(t, context.Background(), openEngine(t), sc)
	if n := tot["product-latest"].Count; n != 300 || out.Pacing.Arrivals != 300 {
		t.Errorf("recorded %d listings, %d arrivals; want exactly the 300 of the steady phase", n, out.Pacing.Arrivals)
	}
}

// Cancelling the run's context stops issuing and drains promptly.
func TestInterruptDrains(t *testing.T) {
	sc := testScenario(t, "unique")
	sc.Ops, sc.Duration = 0, Duration(time.Hour)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	out, tot := runScenario(t, ctx, openEngine(t), sc)
	if !out.Interrupted || time.Since(start) > 10*time.Second {
		t.Fatalf("interrupted=%v after %v; want a prompt, interrupted stop", out.Interrupted, time.Since(start))
	}
	if tot["comment-write"].Count == 0 {
		t.Error("nothing was recorded before the interrupt")
	}
}

// The scenario files shipped in scenarios/ load and validate.
func TestShippedScenarios(t *testing.T) {
	files, _ := filepath.Glob("../scenarios/*.yaml")
	if len(files) == 0 {
		t.Fatal("no scenario files found")
	}
	for _, f := range files {
		if _, err := LoadScenario(f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// Processes loading one cluster (--worker-index) draw order ids that never
// collide, for both id schemes; the population is the same for all.
func TestWorkerIndexPartitionsOrderIDs(t *testing.T) {
	for _, scheme := range []string{"random", "sequential"} {
		sc := testScenario(t, "unique")
		sc.IDs = scheme
		// Two processes of one run, and a run appended after them: no id
		// drawn twice, by any two of them.
		seen := map[string]string{}
		for _, who := range []struct {
			proc int
			run  int64
		}{{0, 0}, {1, 0}, {0, 1}} {
			gen, err := orderIDs(sc, who.proc, who.run)
			if err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("process %d of run %d", who.proc, who.run)
			for w := range 2 {
				g := gen(w)
				for range 2000 {
					id := g.Next()
					if by, dup := seen[id]; dup && by != name {
						t.Fatalf("%s: id %s drawn by %s and %s", scheme, id, by, name)
					}
					seen[id] = name
				}
			}
		}
	}
}

// An overloaded warm-up leaves a backlog that would fill the steady phase
// with its own, unrecorded arrivals: it is dropped when the steady phase
// begins, so the steady phase records its arrivals and their waits.
func TestOverloadedWarmupDropped(t *testing.T) {
	sc := testScenario(t, "unique")
	sc.Mix = map[string]float64{"list": 1}
	sc.Workers, sc.Rate, sc.Ops = 2, 100_000, 0 // capacity ~200/s: two 5 ms calls per listing
	sc.Duration, sc.Warmup = Duration(time.Second), Duration(time.Second)
	out, tot := runScenario(t, context.Background(), slowStore{openEngine(t), 5 * time.Millisecond}, sc)
	p := out.Pacing
	if n := tot["product-latest"].Count; n < 50 || p.WarmupDropped < 10_000 || p.Late < 50 || !p.FellBehind {
		t.Errorf("%d listings recorded, pacing %+v: want the steady phase's, late, and the warm-up's backlog dropped", n, p)
	}
	if lat := tot["product-latest"].Latency.ValueAtQuantile(50); lat < 100_000 {
		t.Errorf("p50 latency %dµs: want the steady arrivals' waits in it", lat)
	}
}

// A fleet's start: the run waits for the instant StartAt gives and begins
// there; a StartAt that fails ends the run before it issues anything.
func TestStartAt(t *testing.T) {
	sc := testScenario(t, "unique")
	sc.Ops, sc.Warmup = 20, 0
	if err := sc.Validate(); err != nil {
		t.Fatal(err)
	}
	run := func(startAt func(context.Context) (time.Time, error)) (Outcome, map[string]results.OpTotals) {
		layout, _ := keys.Load(sc.Layout)
		set := results.NewSet(ResultNames())
		cfg := Config{Scenario: sc, Results: set, WorkersTotal: 1, StartAt: startAt,
			Sys: comments.New(openEngine(t), comments.Options{Layout: layout})}
		env, err := Prepare(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		out, err := env.Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		tot := map[string]results.OpTotals{}
		for _, o := range set.Totals() {
			tot[o.Op] = o
		}
		return out, tot
	}
	var at time.Time
	out, tot := run(func(context.Context) (time.Time, error) {
		at = time.Now().Add(300 * time.Millisecond)
		return at, nil
	})
	if out.Began.Before(at) || out.Start.Before(at) || out.StartErr != nil {
		t.Errorf("began %v, steady from %v, err %v: want from the instant %v", out.Began, out.Start, out.StartErr, at)
	}
	var n int64
	for _, o := range tot {
		n += o.Count
	}
	if n < 20 {
		t.Errorf("%d ops recorded, want the 20 arrivals' and more", n)
	}
	failed := errors.New("member 2 of 3 did not join")
	out, tot = run(func(context.Context) (time.Time, error) { return time.Time{}, failed })
	n = 0
	for _, o := range tot {
		n += o.Count
	}
	if !errors.Is(out.StartErr, failed) || n != 0 {
		t.Errorf("StartErr %v, %d ops: want the error and nothing issued", out.StartErr, n)
	}
}
