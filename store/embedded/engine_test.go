package embedded

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"commentbench/store"

	"github.com/cockroachdb/pebble/v2"
)

var ctx = context.Background()

// testClock is a settable clock (ms) for tests that need to order writes.
type testClock struct{ ms atomic.Int64 }

func newClock(ms int64) *testClock {
	c := &testClock{}
	c.ms.Store(ms)
	return c
}
func (c *testClock) now() int64   { return c.ms.Load() }
func (c *testClock) set(ms int64) { c.ms.Store(ms) }

func openMem(t testing.TB, opts Options) *Engine {
	t.Helper()
	opts.Dir = ""
	e, err := Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func mustCreate(t testing.TB, e *Engine, name string, splits ...string) {
	t.Helper()
	spec := store.TableSpec{Name: name, Family: "cf"}
	for _, s := range splits {
		spec.SplitKeys = append(spec.SplitKeys, []byte(s))
	}
	if err := e.CreateTable(ctx, spec); err != nil {
		t.Fatal(err)
	}
}

func cell(q, v string) store.Cell { return store.Cell{Qualifier: []byte(q), Value: []byte(v)} }

func mustPut(t testing.TB, e *Engine, table, row string, cells ...store.Cell) {
	t.Helper()
	if err := e.Mutate(ctx, table, store.Put([]byte(row), cells...)); err != nil {
		t.Fatal(err)
	}
}

func mustGet(t testing.TB, e *Engine, table, row string) store.Row {
	t.Helper()
	r, err := e.Get(ctx, table, []byte(row))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// cellsOf renders a row's cells as "q=v" strings.
func cellsOf(r store.Row) string {
	var parts []string
	for _, c := range r.Cells {
		parts = append(parts, fmt.Sprintf("%s=%s", c.Qualifier, c.Value))
	}
	return strings.Join(parts, ",")
}

func TestRowSemantics(t *testing.T) {
	clk := newClock(1000)
	e := openMem(t, Options{Now: clk.now, DisableSplits: true})
	mustCreate(t, e, "t")

	t.Run("put then get", func(t *testing.T) {
		mustPut(t, e, "t", "a", cell("q", "1"))
		r := mustGet(t, e, "t", "a")
		if !r.Found() || string(r.Key) != "a" || cellsOf(r) != "q=1" || r.Cells[0].Timestamp != 1000 {
			t.Fatalf("got %+v", r)
		}
		if r := mustGet(t, e, "t", "nope"); r.Found() || string(r.Key) != "nope" {
			t.Fatalf("missing row: %+v", r)
		}
	})
	t.Run("overwrite", func(t *testing.T) {
		clk.set(1001)
		mustPut(t, e, "t", "a", cell("q", "2"))
		if got := cellsOf(mustGet(t, e, "t", "a")); got != "q=2" {
			t.Fatalf("newer version: %s", got)
		}
		// Same coordinate (explicit ts) replaces; an older ts does not win.
		mustPut(t, e, "t", "a", store.Cell{Qualifier: []byte("q"), Value: []byte("3"), Timestamp: 1001})
		mustPut(t, e, "t", "a", store.Cell{Qualifier: []byte("q"), Value: []byte("old"), Timestamp: 10})
		if got := cellsOf(mustGet(t, e, "t", "a")); got != "q=3" {
			t.Fatalf("same-ts put: %s", got)
		}
	})
	t.Run("multiple qualifiers in order", func(t *testing.T) {
		mustPut(t, e, "t", "m", cell("z", "1"), cell("a", "2"), cell("m\x00x", "3"), cell("m", "4"))
		if got := cellsOf(mustGet(t, e, "t", "m")); got != "a=2,m=4,m\x00x=3,z=1" {
			t.Fatalf("cells: %q", got)
		}
	})
	t.Run("delete row", func(t *testing.T) {
		clk.set(2000)
		mustPut(t, e, "t", "d", cell("q", "1"), cell("r", "2"))
		mustPut(t, e, "t", "d", store.Cell{Qualifier: []byte("f"), Value: []byte("future"), Timestamp: 5000})
		if err := e.Mutate(ctx, "t", store.Delete([]byte("d"))); err != nil {
			t.Fatal(err)
		}
		// The cell from the future outlives a delete at 2000 (DeleteFamily at T hides ts <= T).
		if got := cellsOf(mustGet(t, e, "t", "d")); got != "f=future" {
			t.Fatalf("after delete: %q", got)
		}
		if err := e.Mutate(ctx, "t", store.Delete([]byte("a"))); err != nil {
			t.Fatal(err)
		}
		if r := mustGet(t, e, "t", "a"); r.Found() {
			t.Fatalf("deleted row found: %+v", r)
		}
		// A put at the marker's time stays masked (HBase: deletes mask puts).
		mustPut(t, e, "t", "a", cell("q", "same-ms"))
		mustPut(t, e, "t", "a", store.Cell{Qualifier: []byte("q"), Value: []byte("past"), Timestamp: 1500})
		if r := mustGet(t, e, "t", "a"); r.Found() {
			t.Fatalf("put at ts <= marker is visible: %+v", r)
		}
		// A later put is visible.
		clk.set(2001)
		mustPut(t, e, "t", "a", cell("q", "later"))
		if got := cellsOf(mustGet(t, e, "t", "a")); got != "q=later" {
			t.Fatalf("put after delete: %q", got)
		}
		// Put and delete of one row in one Mutate: applied in order.
		clk.set(3000)
		if err := e.Mutate(ctx, "t", store.Put([]byte("pd"), cell("q", "1")), store.Delete([]byte("pd"))); err != nil {
			t.Fatal(err)
		}
		if r := mustGet(t, e, "t", "pd"); r.Found() {
			t.Fatalf("put then delete in one call: %+v", r)
		}
	})
	t.Run("check and put", func(t *testing.T) {
		put := func(expected []byte, v string) bool {
			t.Helper()
			ok, err := e.CheckAndPut(ctx, "t", []byte("c"), []byte("q"), expected, cell("q", v))
			if err != nil {
				t.Fatal(err)
			}
			return ok
		}
		if !put(nil, "v1") {
			t.Fatal("absent: expected nil should match")
		}
		if put(nil, "v2") {
			t.Fatal("present: expected nil should not match")
		}
		if put([]byte("other"), "v2") {
			t.Fatal("mismatch should not put")
		}
		clk.set(3001)
		if !put([]byte("v1"), "v2") {
			t.Fatal("equal should put")
		}
		if got := cellsOf(mustGet(t, e, "t", "c")); got != "q=v2" {
			t.Fatalf("after CheckAndPut: %q", got)
		}
		// An empty value counts as absent for expected nil.
		mustPut(t, e, "t", "ce", cell("q", ""))
		if ok, _ := e.CheckAndPut(ctx, "t", []byte("ce"), []byte("q"), nil, cell("q", "x")); !ok {
			t.Fatal("empty value: expected nil should match")
		}
	})
	t.Run("batch get", func(t *testing.T) {
		mustPut(t, e, "t", "b1", cell("q", "1"))
		mustPut(t, e, "t", "b3", cell("q", "3"))
		rows, err := e.BatchGet(ctx, "t", [][]byte{[]byte("b3"), []byte("b2"), []byte("b1"), []byte("b3")})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range rows {
			got = append(got, string(r.Key)+":"+cellsOf(r))
		}
		if want := []string{"b3:q=3", "b2:", "b1:q=1", "b3:q=3"}; !reflect.DeepEqual(got, want) {
			t.Fatalf("BatchGet = %q, want %q", got, want)
		}
	})
}

// TestVersionedReads exercises the parameterised read path the HBase test
// server uses: several versions and a time range.
func TestVersionedReads(t *testing.T) {
	clk := newClock(100)
	e := openMem(t, Options{Now: clk.now})
	mustCreate(t, e, "t")
	for ts := int64(1); ts <= 4; ts++ {
		mustPut(t, e, "t", "r", store.Cell{Qualifier: []byte("q"), Value: []byte(fmt.Sprint("v", ts)), Timestamp: ts * 10})
	}
	read := func(rd Read) string {
		row, err := e.GetRow(ctx, "t", []byte("r"), rd)
		if err != nil {
			t.Fatal(err)
		}
		var parts []string
		for _, c := range row.Cells {
			parts = append(parts, fmt.Sprintf("%s@%d", c.Value, c.Timestamp))
		}
		return strings.Join(parts, ",")
	}
	if got := read(Read{MaxVersions: 3}); got != "v4@40,v3@30,v2@20" {
		t.Fatalf("3 versions: %s", got)
	}
	if got := read(Read{MaxVersions: 10, MinTs: 20, MaxTs: 40}); got != "v3@30,v2@20" {
		t.Fatalf("time range [20,40): %s", got)
	}
	if got := read(Read{}); got != "v4@40" {
		t.Fatalf("latest: %s", got)
	}
}

// TestCheckAndPutConcurrent: goroutines increment one cell with
// CheckAndPut while others put other cells of the same row; no increment
// may be lost or applied twice.
func TestCheckAndPutConcurrent(t *testing.T) {
	e := openMem(t, Options{})
	e.testAfterCheck = func() { time.Sleep(50 * time.Microsecond) }
	mustCreate(t, e, "t")
	mustPut(t, e, "t", "ctr", cell("n", "0"))
	var wins atomic.Int64
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				if g == 3 { // a plain writer on the same row
					mustPut(t, e, "t", "ctr", cell("other", fmt.Sprint(i)))
					continue
				}
				cur, _ := mustGet(t, e, "t", "ctr").Value([]byte("n"))
				n, _ := strconv.Atoi(string(cur))
				ok, err := e.CheckAndPut(ctx, "t", []byte("ctr"), []byte("n"), cur, cell("n", strconv.Itoa(n+1)))
				if err != nil {
					t.Error(err)
					return
				}
				if ok {
					wins.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	v, _ := mustGet(t, e, "t", "ctr").Value([]byte("n"))
	if string(v) != strconv.FormatInt(wins.Load(), 10) {
		t.Fatalf("counter %s after %d successful CheckAndPuts", v, wins.Load())
	}
	if wins.Load() == 0 {
		t.Fatal("no CheckAndPut succeeded")
	}
}

func TestBadInput(t *testing.T) {
	e := openMem(t, Options{})
	mustCreate(t, e, "t", "m")
	isErr := func(err, target error, mention string) {
		t.Helper()
		if !errors.Is(err, target) {
			t.Fatalf("got %v, want %v", err, target)
		}
		if !strings.Contains(err.Error(), mention) {
			t.Fatalf("error %q does not mention %q", err, mention)
		}
	}
	_, err := e.Get(ctx, "ghost", []byte("r"))
	isErr(err, store.ErrTableNotFound, "ghost")
	isErr(e.Mutate(ctx, "ghost", store.Put([]byte("r"), cell("q", "v"))), store.ErrTableNotFound, "ghost")
	_, err = e.Scan(ctx, "ghost", store.Scan{}, func(store.Row) bool { return true })
	isErr(err, store.ErrTableNotFound, "ghost")
	_, err = e.Regions(ctx, "ghost")
	isErr(err, store.ErrTableNotFound, "ghost")
	isErr(e.DropTable(ctx, "ghost"), store.ErrTableNotFound, "ghost")
	_, err = e.CheckAndPut(ctx, "ghost", []byte("r"), []byte("q"), nil, cell("q", "v"))
	isErr(err, store.ErrTableNotFound, "ghost")

	bad := map[string][]string{
		"not strictly increasing": {"b", "a"},
		"duplicate":               {"a", "a"},
		"is empty":                {"a", ""},
	}
	for want, keys := range bad {
		spec := store.TableSpec{Name: "bad", Family: "cf"}
		for _, k := range keys {
			spec.SplitKeys = append(spec.SplitKeys, []byte(k))
		}
		err := e.CreateTable(ctx, spec)
		if want == "duplicate" {
			want = "not strictly increasing"
		}
		isErr(err, store.ErrInvalid, want)
	}
	isErr(e.CreateTable(ctx, store.TableSpec{Name: "t", Family: "cf"}), store.ErrTableExists, "t")
	isErr(e.CreateTable(ctx, store.TableSpec{Name: "a,b", Family: "cf"}), store.ErrInvalid, "a,b")

	isErr(e.Mutate(ctx, "t", store.Put(nil, cell("q", "v"))), store.ErrInvalid, "empty row key")
	isErr(e.Mutate(ctx, "t", store.Delete([]byte{})), store.ErrInvalid, "empty row key")
	_, err = e.Get(ctx, "t", nil)
	isErr(err, store.ErrInvalid, "empty row key")
	_, err = e.CheckAndPut(ctx, "t", nil, []byte("q"), nil, cell("q", "v"))
	isErr(err, store.ErrInvalid, "empty row key")
	isErr(e.SplitRegion(ctx, "t", []byte("m")), store.ErrInvalid, "boundary")
	isErr(e.SplitRegion(ctx, "t", nil), store.ErrInvalid, "two rows")
	isErr(e.MoveRegion("nope", "rs1"), store.ErrInvalid, "nope")
	regions, _ := e.Regions(ctx, "t")
	isErr(e.MoveRegion(regions[0].Name, "rs9"), store.ErrInvalid, "rs9")
}

func TestOpenDirChecks(t *testing.T) {
	base := t.TempDir()

	missing := filepath.Join(base, "missing")
	_, err := Open(Options{Dir: missing})
	if !errors.Is(err, ErrNotDataDir) || !strings.Contains(err.Error(), missing) {
		t.Fatalf("missing dir: %v", err)
	}
	if _, serr := os.Stat(missing); !os.IsNotExist(serr) {
		t.Fatal("Open created a dir it was told must exist")
	}

	// A directory with other files is refused even with CreateIfMissing,
	// and nothing is created in it.
	other := filepath.Join(base, "other")
	os.MkdirAll(other, 0o755)
	os.WriteFile(filepath.Join(other, "notes.txt"), []byte("hi"), 0o644)
	for _, create := range []bool{false, true} {
		_, err = Open(Options{Dir: other, CreateIfMissing: create})
		if !errors.Is(err, ErrNotDataDir) || !strings.Contains(err.Error(), other) {
			t.Fatalf("dir with other files (create=%v): %v", create, err)
		}
	}
	if entries, _ := os.ReadDir(other); len(entries) != 1 {
		t.Fatalf("Open wrote into a foreign dir: %d entries", len(entries))
	}

	// A Pebble DB that is not ours.
	foreign := filepath.Join(base, "foreign")
	db, err := pebble.Open(foreign, pebbleOptions(nil, nil))
	if err != nil {
		t.Fatal(err)
	}
	db.Set([]byte("x"), []byte("y"), pebble.Sync)
	db.Close()
	_, err = Open(Options{Dir: foreign, CreateIfMissing: true})
	if !errors.Is(err, ErrNotDataDir) || !strings.Contains(err.Error(), "marker") {
		t.Fatalf("foreign pebble db: %v", err)
	}

	// The happy path: create, close, reopen without CreateIfMissing.
	good := filepath.Join(base, "good")
	e, err := Open(Options{Dir: good, CreateIfMissing: true})
	if err != nil {
		t.Fatal(err)
	}
	e.Close()
	e, err = Open(Options{Dir: good})
	if err != nil {
		t.Fatal(err)
	}
	e.Close()
}

// A data dir held open is refused saying so, for reading as for writing;
// the e2e tests show the same across processes.
func TestOpenInUse(t *testing.T) {
	dir := t.TempDir()
	e, err := Open(Options{Dir: dir, CreateIfMissing: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	for _, o := range []Options{{Dir: dir, ReadOnly: true}, {Dir: dir}} {
		_, err := Open(o)
		if !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "in use by another process") {
			t.Errorf("open %+v while open: %v", o, err)
		}
	}
}

func TestClose(t *testing.T) {
	e, err := Open(Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, e, "t")
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	_, err = e.Get(ctx, "t", []byte("r"))
	if !errors.Is(err, store.ErrClosed) {
		t.Fatalf("Get after Close: %v", err)
	}
	if err := e.Mutate(ctx, "t", store.Put([]byte("r"), cell("q", "v"))); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("Mutate after Close: %v", err)
	}
	if _, err := e.Scan(ctx, "t", store.Scan{}, func(store.Row) bool { return true }); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("Scan after Close: %v", err)
	}
	if err := e.CreateTable(ctx, store.TableSpec{Name: "u", Family: "cf"}); !errors.Is(err, store.ErrClosed) {
		t.Fatalf("CreateTable after Close: %v", err)
	}
	e.WaitIdle() // must not hang
}

func TestDropTable(t *testing.T) {
	e := openMem(t, Options{})
	mustCreate(t, e, "t", "m")
	mustPut(t, e, "t", "a", cell("q", "1"))
	if err := e.DropTable(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Get(ctx, "t", []byte("a")); !errors.Is(err, store.ErrTableNotFound) {
		t.Fatalf("Get on dropped table: %v", err)
	}
	// Recreated, the table is empty: the old data had another table id.
	mustCreate(t, e, "t")
	if r := mustGet(t, e, "t", "a"); r.Found() {
		t.Fatalf("dropped data reappeared: %+v", r)
	}
	specs, _ := e.ListTables(ctx)
	if len(specs) != 1 || specs[0].Name != "t" || len(specs[0].SplitKeys) != 0 {
		t.Fatalf("ListTables = %+v", specs)
	}
}

// A read-only engine reads what another wrote, writes nothing, and leaves
// the directory's files as they were.
func TestReadOnly(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	e, err := Open(Options{Dir: dir, CreateIfMissing: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.CreateTable(ctx, store.TableSpec{Name: "t", Family: "cf"}); err != nil {
		t.Fatal(err)
	}
	if err := e.Mutate(ctx, "t", store.Put([]byte("r"), store.Cell{Qualifier: []byte("q"), Value: []byte("v")})); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	before := dirState(t, dir)
	ro, err := Open(Options{Dir: dir, ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if row, err := ro.Get(ctx, "t", []byte("r")); err != nil || !row.Found() {
		t.Fatalf("read-only get: %+v, %v", row, err)
	}
	if err := ro.Mutate(ctx, "t", store.Put([]byte("x"), store.Cell{Qualifier: []byte("q"), Value: []byte("v")})); err == nil {
		t.Error("a read-only engine accepted a write")
	}
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}
	if after := dirState(t, dir); after != before {
		t.Errorf("read-only open changed the directory:\nbefore %s\nafter  %s", before, after)
	}
}

func dirState(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, d := range entries {
		info, _ := d.Info()
		fmt.Fprintf(&b, "%s:%d ", d.Name(), info.Size())
	}
	return b.String()
}
