package embedded

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"sync"
	"testing"

	"commentbench/store"

	"github.com/cockroachdb/pebble/v2"
)

// wideCells are n cells "q000".. with values of vlen bytes.
func wideCells(n, vlen int) []store.Cell {
	cells := make([]store.Cell, n)
	for i := range cells {
		cells[i] = store.Cell{Qualifier: []byte(fmt.Sprintf("q%03d", i)), Value: bytes.Repeat([]byte{'v'}, vlen)}
	}
	return cells
}

// rowWeight is what a row's cells weigh against the max row size.
func rowWeight(row string, cells []store.Cell) int64 {
	var n int64
	for _, c := range cells {
		n += store.CellSize(len(row), len("cf"), len(c.Qualifier), len(c.Value))
	}
	return n
}

// chunks scans with sc and returns the rows it was handed, in order.
func chunks(t *testing.T, e *Engine, table string, sc store.Scan) ([]store.Row, store.ScanMetrics) {
	t.Helper()
	var got []store.Row
	m, err := e.Scan(ctx, table, sc, func(r store.Row) bool {
		got = append(got, r)
		return true
	})
	if err != nil {
		t.Fatalf("scan %+v: %v", sc, err)
	}
	return got, m
}

// reassemble joins consecutive chunks of one row, checking that each
// holds at most batch cells and only a row's last holds fewer.
func reassemble(t *testing.T, got []store.Row, batch int) []store.Row {
	t.Helper()
	var rows []store.Row
	for i, r := range got {
		if len(r.Cells) == 0 || len(r.Cells) > batch {
			t.Fatalf("chunk %d of row %q holds %d cells, batch %d", i, r.Key, len(r.Cells), batch)
		}
		if n := len(rows); n > 0 && bytes.Equal(rows[n-1].Key, r.Key) {
			if len(got[i-1].Cells) != batch {
				t.Fatalf("row %q: a chunk of %d cells before another, batch %d", r.Key, len(got[i-1].Cells), batch)
			}
			rows[n-1].Cells = append(rows[n-1].Cells, r.Cells...)
			continue
		}
		rows = append(rows, store.Row{Key: r.Key, Cells: append([]store.Cell(nil), r.Cells...)})
	}
	return rows
}

func renderRows(rows []store.Row) string {
	var parts []string
	for _, r := range rows {
		parts = append(parts, renderRow(r))
	}
	return strings.Join(parts, "\n")
}

// Past the max row size a whole-row read fails, naming the table, the
// row and the limit: Get, BatchGet, Read of the row, its columns or an
// unbounded slice, Scan; a slice with a limit, a scan with a batch (unless
// one batch is too big) and the test server's reads do not meet it. A row
// weighing exactly the limit reads.
func TestRowTooBig(t *testing.T) {
	const limit = 10 << 10
	e := openMem(t, Options{DisableSplits: true, MaxRowSize: limit})
	mustCreate(t, e, "t")
	big := wideCells(100, 100)
	if rowWeight("big", big) <= limit {
		t.Fatal("test setup: the big row is not over the limit")
	}
	mustPut(t, e, "t", "big", big...)
	edge := wideCells(10, int(limit/10-store.CellSize(len("edge"), len("cf"), len("q000"), 0)))
	if rowWeight("edge", edge) != limit {
		t.Fatalf("test setup: the edge row weighs %d", rowWeight("edge", edge))
	}
	mustPut(t, e, "t", "edge", edge...)
	over := wideCells(10, len(edge[0].Value))
	over[9].Value = append(over[9].Value, 'v')
	mustPut(t, e, "t", "over", over...)

	tooBig := func(what, row string, err error) {
		t.Helper()
		if !errors.Is(err, store.ErrRowTooBig) {
			t.Fatalf("%s of %s: %v, want ErrRowTooBig", what, row, err)
		}
		for _, want := range []string{`"t"`, fmt.Sprintf("%q", row), fmt.Sprint(limit)} {
			if !strings.Contains(err.Error(), want) {
				t.Fatalf("%s of %s: %q does not name %s", what, row, err, want)
			}
		}
	}
	for _, row := range []string{"big", "over"} {
		_, err := e.Get(ctx, "t", []byte(row))
		tooBig("get", row, err)
		_, err = e.BatchGet(ctx, "t", [][]byte{[]byte("edge"), []byte(row)})
		tooBig("batch get", row, err)
		all := make([][]byte, 100)
		for i := range all {
			all[i] = []byte(fmt.Sprintf("q%03d", i))
		}
		for _, rd := range []store.Read{
			{Row: []byte(row)},
			{Row: []byte(row), Slice: &store.Slice{Start: []byte("q000")}},
			{Row: []byte(row), Columns: all},
		} {
			_, _, err = e.Read(ctx, "t", []store.Read{rd})
			tooBig("read "+describeRead(rd), row, err)
		}
		_, err = e.Scan(ctx, "t", store.Scan{Start: []byte(row)}, func(store.Row) bool { return true })
		tooBig("scan", row, err)
	}

	if r := mustGet(t, e, "t", "edge"); len(r.Cells) != 10 {
		t.Fatalf("the row at the limit: %d cells", len(r.Cells))
	}
	rows, _, err := e.Read(ctx, "t", []store.Read{
		{Row: []byte("big"), Slice: &store.Slice{Limit: 10}},
		{Row: []byte("big"), Slice: &store.Slice{Offset: 90}},
		{Row: []byte("big"), Columns: [][]byte{[]byte("q000"), []byte("q050"), []byte("q099")}},
		{Row: []byte("edge")},
	})
	if err != nil || len(rows[0].Cells) != 10 || len(rows[1].Cells) != 10 || len(rows[2].Cells) != 3 || len(rows[3].Cells) != 10 {
		t.Fatalf("slices and columns of the big row, and the row at the limit: %v", err)
	}

	whole, err := e.GetRow(ctx, "t", []byte("big"), Read{})
	if err != nil || len(whole.Cells) != 100 {
		t.Fatalf("GetRow of the big row: %d cells, %v", len(whole.Cells), err)
	}
	got, _ := chunks(t, e, "t", store.Scan{Start: []byte("big"), Stop: []byte("big\x00"), Batch: 7})
	want := store.Row{Key: []byte("big"), Cells: big}
	for i := range want.Cells {
		want.Cells[i].Timestamp = whole.Cells[i].Timestamp
	}
	if g, w := renderRows(reassemble(t, got, 7)), renderRow(want); g != w {
		t.Fatalf("the big row in batches of 7:\n got %s\nwant %s", g, w)
	}
	_, err = e.Scan(ctx, "t", store.Scan{Start: []byte("big"), Batch: 100}, func(store.Row) bool { return true })
	tooBig("scan in batches of 100", "big", err)
	if _, err := e.ScanRows(ctx, "t", store.Scan{}, Read{}, func(Row) bool { return true }); err != nil {
		t.Fatalf("ScanRows: %v", err)
	}
	if _, err := e.CheckAndPut(ctx, "t", []byte("big"), []byte("q000"), big[0].Value, cell("new", "x")); err != nil {
		t.Fatalf("CheckAndPut on the big row: %v", err)
	}
}

// A read past the max row size stops there: it does not read the rest of
// the row.
func TestRowTooBigStopsReading(t *testing.T) {
	e := openMem(t, Options{DisableSplits: true, MaxRowSize: 10 << 10})
	mustCreate(t, e, "t")
	mustPut(t, e, "t", "big", wideCells(5000, 100)...)
	tb, _ := e.table("t")
	it, err := e.db.NewIter(&pebble.IterOptions{LowerBound: tableStart(tb.id), UpperBound: tableEnd(tb.id)})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var rb rowBuf
	if !it.First() {
		t.Fatal("no row")
	}
	if err := rb.read(it, e.latestOpts(tb)); !errors.Is(err, store.ErrRowTooBig) {
		t.Fatalf("read: %v", err)
	}
	if steps := it.Stats().ForwardStepCount[pebble.InterfaceCall]; steps > 100 {
		t.Fatalf("read %d cells of a row that passed the limit at about 80", steps)
	}
}

// A scan with Batch hands each row over in chunks of at most Batch cells,
// one after another, forward and reversed, through filters, limits and
// regions: joined, they are the rows the scan without it hands over, for
// the same metrics (a filtered row costs the cells of its first chunk)
// and the same region counters.
func TestScanBatch(t *testing.T) {
	e := openMem(t, Options{DisableSplits: true})
	mustCreate(t, e, "s", "r05", "r10")
	r := rand.New(rand.NewSource(1))
	for i := range 15 {
		row := fmt.Sprintf("r%02d", i)
		n := r.Intn(12)
		if i == 7 {
			n = 0 // a row with only a marker is no row
		}
		if n > 0 {
			mustPut(t, e, "s", row, wideCells(n, 1+r.Intn(3))...)
		}
		if i%3 == 0 || n == 0 {
			if err := e.DeleteColumnAt(ctx, "s", []byte(row), []byte("q001"), 0); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, sc := range []store.Scan{
		{},
		{Reversed: true},
		{Start: []byte("r03"), Stop: []byte("r12")},
		{Start: []byte("r12"), Stop: []byte("r03"), Reversed: true},
		{Limit: 4},
		{Reversed: true, Limit: 3},
		{Filter: store.RowFilter{Op: store.GreaterOrEqual, Value: []byte("r08")}, Limit: 3},
		{Filter: store.PrefixFilter{Prefix: []byte("r0")}},
		{Filter: store.PrefixFilter{Prefix: []byte("r1")}, Reversed: true},
	} {
		before := regionCounters(t, e)
		whole, wm := chunks(t, e, "s", sc)
		wholeCounters := subCounters(regionCounters(t, e), before)
		for _, batch := range []int{1, 2, 5, 100} {
			t.Run(fmt.Sprintf("%+v batch %d", sc, batch), func(t *testing.T) {
				bs := sc
				bs.Batch = batch
				before := regionCounters(t, e)
				got, m := chunks(t, e, "s", bs)
				counters := subCounters(regionCounters(t, e), before)
				if g, w := renderRows(reassemble(t, got, batch)), renderRows(whole); g != w {
					t.Fatalf("joined chunks:\n%s\nwant\n%s", g, w)
				}
				want := wm
				if sc.Filter != nil {
					want.CellsScanned = filteredCost(t, e, sc, batch)
				}
				if m != want {
					t.Fatalf("metrics %+v, want %+v", m, want)
				}
				if counters != wholeCounters {
					t.Fatalf("region counters %v, want %v", counters, wholeCounters)
				}
			})
		}
	}
	t.Run("each stops mid-row", func(t *testing.T) {
		n := 0
		_, err := e.Scan(ctx, "s", store.Scan{Batch: 1}, func(store.Row) bool { n++; return n < 3 })
		if err != nil || n != 3 {
			t.Fatalf("handed %d chunks after each said stop at 3: %v", n, err)
		}
	})
}

// filteredCost is what a scan with a filter and batch passes over: every
// cell of the rows it keeps, the first chunk of the rows it drops.
func filteredCost(t *testing.T, e *Engine, sc store.Scan, batch int) int64 {
	t.Helper()
	all := sc
	all.Filter, all.Limit = nil, 0
	rows, _ := chunks(t, e, "s", all)
	var n int64
	kept := 0
	for _, r := range rows {
		keep, done := sc.Filter.Decide(r.Key, sc.Reversed)
		switch {
		case keep:
			n += int64(len(r.Cells))
			kept++
		default:
			n += int64(min(len(r.Cells), batch))
		}
		if done || (keep && sc.Limit > 0 && kept == sc.Limit) {
			break
		}
	}
	return n
}

// regionCounters snapshots every region's counters by name.
func regionCounters(t *testing.T, e *Engine) map[string]store.Counters {
	t.Helper()
	stats, err := e.RegionStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]store.Counters{}
	for _, s := range stats {
		out[s.Name] = s.Counters
	}
	return out
}

func subCounters(after, before map[string]store.Counters) string {
	var parts []string
	for name, c := range after {
		if d := c.Sub(before[name]); d != (store.Counters{}) {
			parts = append(parts, fmt.Sprintf("%s %+v", name, d))
		}
	}
	slices.Sort(parts)
	return strings.Join(parts, "; ")
}

// Mutation.DeleteColumns hides every version of its columns from Get,
// Read and Scan, in the same commit as the mutation's puts; a later put
// of a column shows again, one below the marker stays hidden; a mutation
// that puts and deletes one column is refused with nothing written.
func TestMutateDeleteColumns(t *testing.T) {
	clk := newClock(10)
	e := openMem(t, Options{Now: clk.now, DisableSplits: true})
	mustCreate(t, e, "t")
	mustPut(t, e, "t", "r", cell("a", "1"), cell("b", "2"), cell("c", "3"))
	mustPut(t, e, "t", "r", store.Cell{Qualifier: []byte("a"), Value: []byte("0"), Timestamp: 5})
	seen := func() string {
		t.Helper()
		g := cellsOf(mustGet(t, e, "t", "r"))
		rows, _, err := e.Read(ctx, "t", []store.Read{
			{Row: []byte("r"), Columns: [][]byte{[]byte("a"), []byte("b"), []byte("c"), []byte("d")}},
			{Row: []byte("r"), Slice: &store.Slice{}},
		})
		if err != nil {
			t.Fatal(err)
		}
		var s []string
		_, err = e.Scan(ctx, "t", store.Scan{}, func(r store.Row) bool { s = append(s, cellsOf(r)); return true })
		if err != nil {
			t.Fatal(err)
		}
		if c, sl, sc := cellsOf(rows[0]), cellsOf(rows[1]), strings.Join(s, "|"); c != g || sl != g || sc != g {
			t.Fatalf("Get %q, Read of columns %q, of a slice %q, Scan %q", g, c, sl, sc)
		}
		return g
	}

	// Readers see the puts and deletes of one mutation together or not at
	// all.
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
			}
			r, err := e.Get(ctx, "t", []byte("r"))
			if err != nil {
				t.Error(err)
				return
			}
			_, hasA := r.Value([]byte("a"))
			_, hasD := r.Value([]byte("d"))
			if hasA == hasD {
				t.Errorf("a reader saw %q: the put of d and the delete of a apart", cellsOf(r))
				return
			}
		}
	})
	clk.set(20)
	before, _ := countersAt(t, e, "t", "r")
	err := e.Mutate(ctx, "t", store.Mutation{Row: []byte("r"), Cells: []store.Cell{cell("d", "4")}, DeleteColumns: [][]byte{[]byte("a"), []byte("b"), []byte("never")}})
	close(done)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if after, _ := countersAt(t, e, "t", "r"); after.Sub(before).WriteRequests != 1 {
		t.Fatalf("the mutation cost %+v, want one write request", after.Sub(before))
	}
	if got := seen(); got != "c=3,d=4" {
		t.Fatalf("after deleting a and b: %q", got)
	}
	for _, en := range strings.Fields(rawEntries(t, e, "t", "r")) {
		if strings.HasPrefix(en, "a@") || strings.HasPrefix(en, "b@") {
			t.Fatalf("a deleted column's cell %s is still there", en)
		}
	}

	mustPut(t, e, "t", "r", store.Cell{Qualifier: []byte("b"), Value: []byte("old"), Timestamp: 20})
	clk.set(30)
	mustPut(t, e, "t", "r", cell("a", "again"))
	if got := seen(); got != "a=again,c=3,d=4" {
		t.Fatalf("after a later put of a and a put of b at the marker: %q", got)
	}

	if err := e.Mutate(ctx, "t", store.Mutation{Row: []byte("r"), DeleteColumns: [][]byte{[]byte("d")}}); err != nil {
		t.Fatalf("a mutation that only deletes: %v", err)
	}
	for _, muts := range [][]store.Mutation{
		{{Row: []byte("r"), Cells: []store.Cell{cell("x", "1"), cell("c", "9")}, DeleteColumns: [][]byte{[]byte("y"), []byte("c")}}},
		{store.Put([]byte("s"), cell("q", "v")), {Row: []byte("r"), Cells: []store.Cell{cell("", "1")}, DeleteColumns: [][]byte{{}}}},
	} {
		if err := e.Mutate(ctx, "t", muts...); !errors.Is(err, store.ErrInvalid) {
			t.Fatalf("put and delete of one column: %v, want ErrInvalid", err)
		}
	}
	if got := seen(); got != "a=again,c=3" {
		t.Fatalf("after the refused mutations: %q", got)
	}
	if r := mustGet(t, e, "t", "s"); r.Found() {
		t.Fatal("a refused Mutate call wrote its other rows")
	}
}
