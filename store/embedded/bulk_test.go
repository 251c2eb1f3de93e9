package embedded

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"commentbench/store"
)

// bulkRows are n rows of a few cells each, in key order.
func bulkRows(n int) []store.BulkRow {
	var rows []store.BulkRow
	for i := range n {
		row := store.BulkRow{Key: fmt.Appendf(nil, "row%06d", i), Writes: 2}
		for q := range 3 {
			row.Cells = append(row.Cells, store.Cell{Qualifier: fmt.Appendf(nil, "q%d", q), Value: fmt.Appendf(nil, "value %d/%d", i, q)})
		}
		rows = append(rows, row)
	}
	return rows
}

func feed(rows []store.BulkRow) func() (store.BulkRow, bool) {
	i := 0
	return func() (store.BulkRow, bool) {
		if i == len(rows) {
			return store.BulkRow{}, false
		}
		i++
		return rows[i-1], true
	}
}

// cells is every cell of table as "row q value", in order.
func cells(t *testing.T, st store.Store, table string) []string {
	t.Helper()
	var out []string
	if _, err := st.Scan(context.Background(), table, store.Scan{}, func(r store.Row) bool {
		for _, c := range r.Cells {
			out = append(out, fmt.Sprintf("%s %s %s", r.Key, c.Qualifier, c.Value))
		}
		return true
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func newBulkEngine(t *testing.T, o Options) *Engine {
	t.Helper()
	e, err := Open(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	if err := e.CreateTable(context.Background(), store.TableSpec{Name: "t", Family: "f", SplitKeys: [][]byte{[]byte("row005")}}); err != nil {
		t.Fatal(err)
	}
	return e
}

// A bulk load reads back as the same rows put one by one, joins cells the
// rows held already, charges each region its rows' writes, and splits a
// region it fills past the split size into ones that fit.
func TestBulkLoadReadsAsPuts(t *testing.T) {
	ctx := context.Background()
	rows := bulkRows(20_000)
	o := Options{InitialSplitSize: 64 << 10, MaxRegionSize: 256 << 10}
	put, bulk := newBulkEngine(t, o), newBulkEngine(t, o)
	for _, e := range []*Engine{put, bulk} { // a cell the load must leave beside its own
		if err := e.Mutate(ctx, "t", store.Put([]byte("row000007"), store.Cell{Qualifier: []byte("entity"), Value: []byte("x")})); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range rows {
		if err := put.Mutate(ctx, "t", store.Put(r.Key, r.Cells...)); err != nil {
			t.Fatal(err)
		}
	}
	st, err := bulk.BulkLoad(ctx, "t", feed(rows))
	if err != nil {
		t.Fatal(err)
	}
	if st.Rows != 20_000 || st.Cells != 60_000 || st.Files < 2 || st.Splits == 0 {
		t.Errorf("stats %+v: want 20000 rows, 60000 cells, a file a region, splits", st)
	}
	if got, want := cells(t, bulk, "t"), cells(t, put, "t"); !slices.Equal(got, want) {
		t.Fatalf("bulk load reads %d cells, puts %d: not the same", len(got), len(want))
	}
	if err := bulk.WaitIdle(); err != nil {
		t.Fatal(err)
	}
	stats, _ := bulk.RegionStats(ctx)
	var writes uint64
	for _, s := range stats {
		writes += s.WriteRequests
	}
	regions, _ := bulk.Regions(ctx, "t")
	if len(regions) < 4 {
		t.Errorf("%d regions after loading ~2 MB at a 256 KiB split size; want it split", len(regions))
	}
	if writes == 0 || writes > 40_001 {
		t.Errorf("regions charged %d writes; want up to the load's 40000 (2 a row) and the put", writes)
	}
}

// Rows out of order, or a read-only engine, are refused.
func TestBulkLoadRefusals(t *testing.T) {
	e := newBulkEngine(t, Options{})
	rows := bulkRows(3)
	rows[1], rows[2] = rows[2], rows[1]
	if _, err := e.BulkLoad(context.Background(), "t", feed(rows)); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("rows out of order: %v, want ErrInvalid", err)
	}
	if _, err := e.BulkLoad(context.Background(), "nope", feed(nil)); !errors.Is(err, store.ErrTableNotFound) {
		t.Errorf("no such table: %v, want ErrTableNotFound", err)
	}
}

// A checkpoint opens, on disk or in memory, as the engine it was taken
// from: the same rows and regions; the base is left as it was by what the
// engine opened on it writes; a base that is not one, or a data dir that
// is not empty, is refused.
func TestCheckpointBase(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	src := newBulkEngine(t, Options{Dir: filepath.Join(dir, "src"), CreateIfMissing: true, InitialSplitSize: 64 << 10, MaxRegionSize: 256 << 10})
	if _, err := src.BulkLoad(ctx, "t", feed(bulkRows(10_000))); err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(dir, "base")
	if err := src.Checkpoint(base); err != nil {
		t.Fatal(err)
	}
	want, wantRegions := cells(t, src, "t"), regionNames(t, src)
	for _, into := range []string{filepath.Join(dir, "copy"), ""} {
		e, err := Open(Options{Dir: into, CreateIfMissing: true, Base: base})
		if err != nil {
			t.Fatal(err)
		}
		if got := cells(t, e, "t"); !slices.Equal(got, want) {
			t.Errorf("opened on the base in %q: %d cells, want %d", into, len(got), len(want))
		}
		if got := regionNames(t, e); !slices.Equal(got, wantRegions) {
			t.Errorf("opened on the base in %q: regions %v, want %v", into, got, wantRegions)
		}
		if err := e.Mutate(ctx, "t", store.Put([]byte("zzz"), store.Cell{Qualifier: []byte("q"), Value: []byte("new")})); err != nil {
			t.Fatal(err)
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
	}
	again, err := Open(Options{Base: base})
	if err != nil {
		t.Fatal(err)
	}
	if got := cells(t, again, "t"); !slices.Equal(got, want) {
		t.Errorf("the base after two engines wrote on copies of it: %d cells, want %d", len(got), len(want))
	}
	again.Close()
	if _, err := Open(Options{Base: t.TempDir()}); !errors.Is(err, ErrBase) {
		t.Errorf("an empty base: %v, want ErrBase", err)
	}
	full := filepath.Join(dir, "copy") // holds the first copy
	if _, err := Open(Options{Dir: full, CreateIfMissing: true, Base: base}); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("a base into a data dir that holds data: %v, want ErrInvalid", err)
	}
}

func regionNames(t *testing.T, e *Engine) []string {
	t.Helper()
	rs, err := e.Regions(context.Background(), "t")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rs {
		out = append(out, r.Name+"@"+r.Server)
	}
	return out
}

// A load in parts, written side by side, is the load in one: the same
// cells, each region charged the same writes and bytes (a region two
// parts wrote into charged both), and with splits on, cut about alike.
func TestBulkLoadInParts(t *testing.T) {
	ctx := context.Background()
	rows := bulkRows(20_000)
	// Cut inside the second region (row005000 on), so two parts write
	// into it; and an empty part, as a table's merge may leave.
	parts := [][]store.BulkRow{rows[:3000], rows[3000:12000], nil, rows[12000:]}
	for _, splits := range []bool{false, true} {
		o := Options{DisableSplits: !splits, InitialSplitSize: 64 << 10, MaxRegionSize: 256 << 10}
		one, split := newBulkEngine(t, o), newBulkEngine(t, o)
		whole, err := one.BulkLoad(ctx, "t", feed(rows))
		if err != nil {
			t.Fatal(err)
		}
		st, err := split.BulkLoad(ctx, "t", feed(parts[0]), feed(parts[1]), feed(parts[2]), feed(parts[3]))
		if err != nil {
			t.Fatal(err)
		}
		// A file a region a part: the first part's in the first region,
		// the second's in both, the last's in the second.
		if st.Rows != 20_000 || st.Cells != 60_000 || st.Files != 4 || st.Bytes != whole.Bytes || whole.Bytes <= 60_000 {
			t.Errorf("splits %v: stats %+v, want 20000 rows, 60000 cells, 4 files and the whole load's %d bytes, over a byte a cell", splits, st, whole.Bytes)
		}
		if got, want := cells(t, split, "t"), cells(t, one, "t"); !slices.Equal(got, want) {
			t.Fatalf("splits %v: the load in parts reads %d cells, in one %d: not the same", splits, len(got), len(want))
		}
		for _, e := range []*Engine{one, split} {
			if err := e.WaitIdle(); err != nil {
				t.Fatal(err)
			}
		}
		got, want := regionCharges(t, split), regionCharges(t, one)
		if splits {
			if len(got) < len(want)-1 || len(got) > len(want)+1 {
				t.Errorf("the load in parts left %d regions, in one %d: want about as many", len(got), len(want))
			}
			continue
		}
		if !slices.Equal(got, want) {
			t.Errorf("regions after the load in parts:\n%s\nin one:\n%s", got, want)
		}
		if len(want) != 2 || want[1] != "row005-: 30000 writes, 1065000 bytes in" {
			t.Errorf("regions %q: want two, the second charged its 15000 rows' 30000 writes and 1065000 bytes", want)
		}
	}
}

// regionCharges is each region of table t: its start, writes and bytes in, in order.
func regionCharges(t *testing.T, e *Engine) []string {
	t.Helper()
	stats, err := e.RegionStats(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range stats {
		if s.Table == "t" {
			out = append(out, fmt.Sprintf("%s-: %d writes, %d bytes in", s.Start, s.WriteRequests, s.BytesIn))
		}
	}
	slices.Sort(out)
	return out
}

// Parts that overlap, or come out of order, are refused, naming them.
func TestBulkLoadPartsOutOfOrder(t *testing.T) {
	rows := bulkRows(10)
	for _, parts := range [][2][]store.BulkRow{{rows[5:], rows[:5]}, {rows[:6], rows[5:]}} {
		e := newBulkEngine(t, Options{})
		_, err := e.BulkLoad(context.Background(), "t", feed(parts[0]), feed(parts[1]))
		if !errors.Is(err, store.ErrInvalid) || !strings.Contains(err.Error(), `part 1 starts at row "row00000`) ||
			!strings.Contains(err.Error(), "not after part 0's last") {
			t.Errorf("parts %s.. then %s..: %v, want ErrInvalid naming part 1", parts[0][0].Key, parts[1][0].Key, err)
		}
		if got := cells(t, e, "t"); len(got) != 0 {
			t.Errorf("a refused load left %d cells", len(got))
		}
	}
}

// A region two parts wrote into is charged as one: the second part's
// sizes and cut rows follow the first's, its first row a cut too.
func TestBulkRegionJoin(t *testing.T) {
	a := &bulkRegion{size: 10, writes: 2, bytesIn: 5, samples: []bulkSample{{row: []byte("r1"), size: 4, writes: 1, bytesIn: 2}}}
	b := &bulkRegion{first: []byte("r2"), size: 6, writes: 3, bytesIn: 4, samples: []bulkSample{{row: []byte("r3"), size: 2, writes: 1, bytesIn: 1}}}
	a.join(b)
	got := fmt.Sprintf("%d %d %d", a.size, a.writes, a.bytesIn)
	for _, s := range a.samples {
		got += fmt.Sprintf(" %s:%d/%d/%d", s.row, s.size, s.writes, s.bytesIn)
	}
	if want := "16 5 9 r1:4/1/2 r2:10/2/5 r3:12/3/6"; got != want {
		t.Errorf("joined region %s, want %s", got, want)
	}
}
