package embedded

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"commentbench/store"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// Tests of the engine's defaults, counters and boundaries that the rest of
// the suite exercises only in passing: each pins an exact value, so an
// off-by-one or a flipped comparison in the code fails here.

// Every zero or negative option takes its documented default; a positive
// one is kept as given.
func TestOptionDefaults(t *testing.T) {
	var zero Options
	zero.setDefaults()
	if zero.Servers != 3 || zero.CacheSize != 2<<30 || zero.InitialSplitSize != 1<<20 || zero.MaxRegionSize != 16<<20 || zero.Now == nil {
		t.Fatalf("zero options: %+v", zero)
	}
	neg := Options{Servers: -1, CacheSize: -1, InitialSplitSize: -1, MaxRegionSize: -1}
	neg.setDefaults()
	if neg.Servers != 3 || neg.CacheSize != 2<<30 || neg.InitialSplitSize != 1<<20 || neg.MaxRegionSize != 16<<20 {
		t.Fatalf("negative options: %+v", neg)
	}
	ro := Options{ReadOnly: true}
	ro.setDefaults()
	if ro.CacheSize != 8<<20 {
		t.Fatalf("read-only cache %d, want %d", ro.CacheSize, 8<<20)
	}
	one := Options{Servers: 1, CacheSize: 1, InitialSplitSize: 1, MaxRegionSize: 1, Now: func() int64 { return 7 }}
	one.setDefaults()
	if one.Servers != 1 || one.CacheSize != 1 || one.InitialSplitSize != 1 || one.MaxRegionSize != 1 || one.Now() != 7 {
		t.Fatalf("explicit options changed: %+v", one)
	}
}

// closedEngine is an engine whose splitter has stopped, so a kick stays in
// splitKick for the test to see.
func closedEngine(t *testing.T, opts Options) *Engine {
	t.Helper()
	e, err := Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	kicked(e) // Open's own kick, if the splitter had not taken it
	return e
}

// kicked reports (and takes) a pending splitter kick.
func kicked(e *Engine) bool {
	select {
	case <-e.splitKick:
		return true
	default:
		return false
	}
}

// grow adds to the region's size and kicks the splitter exactly when the
// size first goes over the threshold, not at it, not after.
func TestGrowKicksSplitterOncePerCrossing(t *testing.T) {
	e := closedEngine(t, Options{})
	r := &region{stats: &regionStats{}}
	r.splitAt.Store(100)
	for i, c := range []struct {
		n    int64
		size int64
		kick bool
	}{
		{100, 100, false}, // at the threshold: not over it
		{1, 101, true},    // crosses
		{1, 102, false},   // already over
		{-50, 52, false},  // shrinks
		{48, 100, false},
		{5, 105, true}, // crosses again
	} {
		e.grow(r, c.n)
		if got := r.stats.size.Load(); got != c.size {
			t.Fatalf("step %d: size %d, want %d", i, got, c.size)
		}
		if got := kicked(e); got != c.kick {
			t.Fatalf("step %d (size %d): kicked %v, want %v", i, c.size, got, c.kick)
		}
	}
	never := &region{stats: &regionStats{}} // splitAt 0: never splits
	e.grow(never, 1<<30)
	if kicked(e) {
		t.Fatal("a region with no split threshold kicked the splitter")
	}
}

// publish kicks the splitter for a region already over its threshold (one
// whose threshold dropped under it), and only then.
func TestPublishKicksSplitterForOversizedRegion(t *testing.T) {
	e := closedEngine(t, Options{InitialSplitSize: 100, MaxRegionSize: 1000})
	tb := &table{name: "t"}
	for _, c := range []struct {
		size int64
		kick bool
	}{{100, false}, {101, true}, {0, false}} {
		r := newRegion(tb, []byte{}, nil, 1, "rs1", &regionStats{})
		r.stats.size.Store(c.size)
		gen := e.Generation()
		e.publish(tb, []*region{r})
		if got := r.splitAt.Load(); got != 100 {
			t.Fatalf("one region on its server: split at %d, want 100", got)
		}
		if got := kicked(e); got != c.kick {
			t.Fatalf("size %d: kicked %v, want %v", c.size, got, c.kick)
		}
		if got := e.Generation(); got != gen+1 {
			t.Fatalf("generation %d after publish, want %d", got, gen+1)
		}
	}
	off := closedEngine(t, Options{DisableSplits: true, InitialSplitSize: 100})
	r := newRegion(tb, []byte{}, nil, 1, "rs1", &regionStats{})
	r.stats.size.Store(1 << 20)
	off.publish(tb, []*region{r})
	if r.splitAt.Load() != 0 || kicked(off) {
		t.Fatalf("splits disabled: split at %d, kicked", r.splitAt.Load())
	}
}

// Pebble giving up (Fatalf) reports the failure to the engine before it
// ends the caller; a logger without a fail func only ends it.
func TestFatalfReportsFailure(t *testing.T) {
	var got error
	exited := 0
	l := quietLogger{fail: func(err error) { got = err }, where: "test", exit: func() { exited++ }}
	l.Fatalf("wal %s failed", "000001")
	if got == nil || got.Error() != "wal 000001 failed" || exited != 1 {
		t.Fatalf("fail got %v, exit called %d times", got, exited)
	}
	quietLogger{exit: func() { exited++ }}.Fatalf("no fail func")
	if exited != 2 {
		t.Fatalf("exit called %d times, want 2", exited)
	}
	if errors.Unwrap(got) != nil {
		t.Fatalf("Fatalf wrapped its message: %v", got)
	}
}

// With an injected file system the data lives under Dir, or "engine" when
// Dir is empty.
func TestOpenOnInjectedFSUsesDir(t *testing.T) {
	for _, c := range []struct{ dir, want string }{{"", "engine"}, {"data", "data"}} {
		fs := vfs.NewMem()
		e, err := Open(Options{FS: fs, Dir: c.dir, CreateIfMissing: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		names, err := fs.List(c.want)
		if err != nil || !slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, "MANIFEST-") }) {
			t.Fatalf("Dir %q: %q holds %q (%v), want a Pebble DB", c.dir, c.want, names, err)
		}
		if !strings.Contains(e.where(), c.dir) {
			t.Fatalf("Dir %q: where() = %q", c.dir, e.where())
		}
	}
}

// Reopened with fewer servers, every region of a server that is gone is
// reassigned round-robin, continuing the counter the last run left; the
// others stay where they were.
func TestReopenAdoptsEveryOrphan(t *testing.T) {
	fs := vfs.NewMem()
	e, err := Open(Options{FS: fs, CreateIfMissing: true, DisableSplits: true, Servers: 4})
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, e, "t", "b", "c", "d", "e", "f", "g") // rs1 rs2 rs3 rs4 rs1 rs2 rs3
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e, err = Open(Options{FS: fs, DisableSplits: true, Servers: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	var got []string
	for _, r := range mustRegions(t, e, "t") {
		got = append(got, r.Server)
	}
	// The round-robin stood at 7 (rs4 of four): 7 % 2 = rs2, then rs1, rs2.
	if want := []string{"rs1", "rs2", "rs2", "rs1", "rs1", "rs2", "rs2"}; !slices.Equal(got, want) {
		t.Fatalf("servers after reopen with 2: %v, want %v", got, want)
	}
}

// Close records every region's size, and a reopen seeds the split policy
// with it.
func TestCloseRecordsRegionSizes(t *testing.T) {
	fs := vfs.NewMem()
	e, err := Open(Options{FS: fs, CreateIfMissing: true, DisableSplits: true})
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, e, "t", "m")
	mustPut(t, e, "t", "a", cell("q", "v"))
	mustPut(t, e, "t", "n", cell("q", "vv"), cell("r", "w"))
	_, want, _ := regionInfo(t, e, "t")
	if want[0] == 0 || want[1] == 0 {
		t.Fatalf("sizes before close: %v", want)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e, err = Open(Options{FS: fs, DisableSplits: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, got, _ := regionInfo(t, e, "t"); !slices.Equal(got, want) {
		t.Fatalf("sizes after reopen %v, want %v", got, want)
	}
}

// After a storage failure every operation fails with it and leaves nothing
// in flight, so Close still completes; it writes nothing more.
func TestFailedEngineRefusesAndCloses(t *testing.T) {
	e, err := Open(Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, e, "t")
	cause := errors.New("injected")
	e.failed(cause)
	e.failed(errors.New("a second failure is not recorded"))
	select {
	case <-e.Fault():
	default:
		t.Fatal("Fault not closed")
	}
	if _, err := e.Get(ctx, "t", []byte("r")); !errors.Is(err, cause) || !errors.Is(err, store.ErrStorage) {
		t.Fatalf("Get after the failure: %v", err)
	}
	if err := e.Mutate(ctx, "t", store.Put([]byte("r"), cell("q", "v"))); !errors.Is(err, cause) {
		t.Fatalf("Mutate after the failure: %v", err)
	}
	if n := e.inflight.Load(); n != 0 {
		t.Fatalf("%d operations left in flight", n)
	}
	if err := e.Close(); err != nil {
		t.Fatalf("Close after the failure: %v", err)
	}
	if n := e.inflight.Load(); n != 0 {
		t.Fatalf("%d operations left in flight after Close", n)
	}
}

// An operation turned away by a closed engine leaves nothing in flight.
func TestClosedEngineLeavesNothingInFlight(t *testing.T) {
	e, err := Open(Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, e, "t")
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, err := e.Get(ctx, "t", []byte("r")); !errors.Is(err, store.ErrClosed) {
			t.Fatalf("Get after Close: %v", err)
		}
	}
	if _, err := e.RegionStats(ctx); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("RegionStats after Close: %v", err)
	}
	if n := e.inflight.Load(); n != 0 {
		t.Fatalf("%d operations in flight after Close", n)
	}
}

// ListTables and RegionStats give tables in name order, whatever order they
// were created in.
func TestTablesListedByName(t *testing.T) {
	e := openMem(t, Options{DisableSplits: true})
	for _, n := range []string{"m", "b", "z", "a"} {
		mustCreate(t, e, n)
	}
	specs, err := e.ListTables(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range specs {
		got = append(got, s.Name)
	}
	if want := []string{"a", "b", "m", "z"}; !slices.Equal(got, want) {
		t.Fatalf("ListTables: %v, want %v", got, want)
	}
	stats, err := e.RegionStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got = got[:0]
	for _, s := range stats {
		got = append(got, s.Table)
	}
	if want := []string{"a", "b", "m", "z"}; !slices.Equal(got, want) {
		t.Fatalf("RegionStats: %v, want %v", got, want)
	}
}

// A region id is the clock, but above every id issued before and above
// the floor (a parent's id), whatever the clock does.
func TestNewRegionIDAlwaysGrows(t *testing.T) {
	clk := newClock(100)
	e := closedEngine(t, Options{Now: clk.now})
	e.lastRegionID = 0
	for i, c := range []struct {
		now   int64
		floor uint64
		want  uint64
	}{
		{100, 0, 100},   // the clock
		{100, 0, 101},   // the clock again: one past the last
		{50, 0, 102},    // the clock went back
		{200, 0, 200},   // ahead again
		{200, 500, 501}, // a parent above them all
		{-7, 0, 502},    // a negative clock
	} {
		clk.set(c.now)
		if got := e.newRegionID(c.floor); got != c.want {
			t.Fatalf("step %d: id %d, want %d", i, got, c.want)
		}
	}
}

// A write refused by a read-only engine is the caller's mistake, not a
// storage failure: it fails alone, and reads go on. (Pebble's own refusal
// used to fail the engine, and every read after it.)
func TestReadOnlyWriteRefusedWithoutFailing(t *testing.T) {
	dir := t.TempDir()
	e, err := Open(Options{Dir: dir, CreateIfMissing: true})
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, e, "t")
	mustPut(t, e, "t", "r", cell("q", "v"))
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	ro, err := Open(Options{Dir: dir, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if err := ro.Mutate(ctx, "t", store.Put([]byte("x"), cell("q", "v"))); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("Mutate on a read-only engine: %v, want ErrInvalid", err)
	}
	if err := ro.Mutate(ctx, "t", store.Delete([]byte("r"))); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("a delete on a read-only engine: %v, want ErrInvalid", err)
	}
	if err := ro.Err(); err != nil {
		t.Fatalf("the refused write failed the engine: %v", err)
	}
	if got := cellsOf(mustGet(t, ro, "t", "r")); got != "q=v" {
		t.Fatalf("read after a refused write: %q", got)
	}
	// A data write that Pebble refuses is a storage failure, reported as
	// one (wrapping Pebble's error) from then on.
	b := ro.db.NewBatch()
	defer b.Close()
	_ = b.Set([]byte{spaceData, 1}, nil, nil)
	err = ro.commit(b)
	if !errors.Is(err, store.ErrStorage) || !errors.Is(err, pebble.ErrReadOnly) || !errors.Is(ro.Err(), pebble.ErrReadOnly) {
		t.Fatalf("a failed commit: %v (engine: %v), want the storage failure", err, ro.Err())
	}
}

// A row equal to a region's start key belongs to that region, for writes,
// reads and scans alike.
func TestRowAtRegionStartBelongsToIt(t *testing.T) {
	e := openMem(t, Options{DisableSplits: true})
	mustCreate(t, e, "t", "m")
	mustPut(t, e, "t", "m", cell("q", "v"))
	mustGet(t, e, "t", "m")
	scanKeys(t, e, "t", store.Scan{Start: []byte("m")})
	low, _ := countersAt(t, e, "t", "a")
	high, _ := countersAt(t, e, "t", "m")
	if low != (store.Counters{}) {
		t.Fatalf("region [,m) charged %+v", low)
	}
	if want := (store.Counters{WriteRequests: 1, BytesIn: 3, ReadRequests: 2, RowsScanned: 2, BytesOut: 6}); high != want {
		t.Fatalf("region [m,): %+v, want %+v", high, want)
	}
}

// A put's TTL must not be negative, and only a CellTTL table takes one.
func TestPutTTLChecks(t *testing.T) {
	e := openMem(t, Options{DisableSplits: true})
	if err := e.CreateTableWith(ctx, store.TableSpec{Name: "ttl", Family: "f"}, TableOptions{CellTTL: true}); err != nil {
		t.Fatal(err)
	}
	mustCreate(t, e, "plain")
	put := func(table string, p Put) error {
		return e.UpdateRow(ctx, table, []byte("r"), func(RowReader, int64) ([]RowMutation, error) {
			return []RowMutation{{Puts: []Put{p}}}, nil
		})
	}
	for _, c := range []struct {
		table string
		p     Put
		ok    bool
	}{
		{"ttl", Put{Qualifier: []byte("q"), TTL: -1}, false},
		{"ttl", Put{Qualifier: []byte("q"), TTL: 0}, true},
		{"ttl", Put{Qualifier: []byte("q"), TTL: 1}, true},
		{"plain", Put{Qualifier: []byte("q"), TTL: 1}, false},
		{"plain", Put{Qualifier: []byte("q"), TTL: -1}, false},
		{"plain", Put{Qualifier: []byte("q")}, true},
		{"plain", Put{Qualifier: []byte("q"), Timestamp: -1}, false},
		{"plain", Put{Family: "nope", Qualifier: []byte("q")}, false},
	} {
		err := put(c.table, c.p)
		if c.ok != (err == nil) {
			t.Errorf("%s %+v: %v", c.table, c.p, err)
		}
	}
	if err := e.Mutate(ctx, "plain", store.Put([]byte("r"), store.Cell{Qualifier: []byte("q"), Timestamp: -1})); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("Mutate with a negative timestamp: %v", err)
	}
}

// ListTables names the families of a table with several, and none of a
// table with one (its spec is the one-family form).
func TestListTablesFamilies(t *testing.T) {
	e := openMem(t, Options{DisableSplits: true})
	mustCreate(t, e, "one", "k")
	if err := e.CreateTable(ctx, store.TableSpec{Name: "two", Families: []string{"b", "a"}, Family: "b"}); err != nil {
		t.Fatal(err)
	}
	specs, err := e.ListTables(ctx)
	if err != nil || len(specs) != 2 {
		t.Fatalf("ListTables: %+v %v", specs, err)
	}
	if s := specs[0]; s.Name != "one" || s.Family != "cf" || s.Families != nil || len(s.SplitKeys) != 1 || string(s.SplitKeys[0]) != "k" {
		t.Fatalf("one-family spec %+v", s)
	}
	if s := specs[1]; s.Name != "two" || s.Family != "b" || !slices.Equal(s.Families, []string{"a", "b"}) || s.SplitKeys != nil {
		t.Fatalf("two-family spec %+v", s)
	}
}

// DeleteCells without markers deletes nothing but still checks the row
// key and the table.
func TestDeleteCellsWithoutMarkers(t *testing.T) {
	e := openMem(t, Options{DisableSplits: true})
	mustCreate(t, e, "t")
	mustPut(t, e, "t", "r", cell("q", "v"))
	if err := e.DeleteCells(ctx, "t", []byte("r")); err != nil {
		t.Fatal(err)
	}
	if got := cellsOf(mustGet(t, e, "t", "r")); got != "q=v" {
		t.Fatalf("after an empty delete: %q", got)
	}
	if c, _ := countersAt(t, e, "t", "r"); c.WriteRequests != 1 {
		t.Fatalf("an empty delete was charged: %+v", c)
	}
	if err := e.DeleteCells(ctx, "t", nil); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("empty row: %v", err)
	}
	if err := e.DeleteCells(ctx, "ghost", []byte("r")); !errors.Is(err, store.ErrTableNotFound) {
		t.Fatalf("no table: %v", err)
	}
}
