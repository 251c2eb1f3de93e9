package embedded

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"commentbench/store"

	"github.com/cockroachdb/pebble/v2"
)

// renderRow renders a row as "key: q=v@ts ..." with every byte quoted, so
// that two rows compare as strings whatever their slices alias.
func renderRow(r store.Row) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%q:", r.Key)
	for _, c := range r.Cells {
		fmt.Fprintf(&b, " %q=%q@%d", c.Qualifier, c.Value, c.Timestamp)
	}
	return b.String()
}

// wantCells is what Read must report passing over for rd of row ref (the
// whole row as Get reads it): the cells it returns, and for a slice those
// its offset skipped of the columns in its range.
func wantCells(ref store.Row, rd store.Read) int64 {
	got := int64(len(store.Select(ref, rd).Cells))
	sl := rd.Slice
	if sl == nil {
		return got
	}
	in := 0
	for _, c := range ref.Cells {
		if bytes.Compare(c.Qualifier, sl.Start) >= 0 && (sl.Stop == nil || bytes.Compare(c.Qualifier, sl.Stop) < 0) {
			in++
		}
	}
	return got + int64(min(sl.Offset, in))
}

// checkSelect runs reads in one Read call and checks each row against
// store.Select of the row Get returns, and the metrics against what the
// reads passed over.
func checkSelect(t *testing.T, e *Engine, table string, reads []store.Read) {
	t.Helper()
	got, m, err := e.Read(ctx, table, reads)
	if err != nil {
		t.Fatalf("read %+v: %v", reads, err)
	}
	if len(got) != len(reads) {
		t.Fatalf("%d rows for %d reads", len(got), len(reads))
	}
	var want store.ScanMetrics
	for i, rd := range reads {
		ref, err := e.Get(ctx, table, rd.Row)
		if err != nil {
			t.Fatal(err)
		}
		sel := store.Select(ref, rd)
		if g, w := renderRow(got[i]), renderRow(sel); g != w {
			t.Fatalf("table %s, read %s:\n got %s\nwant %s\n(whole row %s)", table, describeRead(rd), g, w, renderRow(ref))
		}
		if sel.Found() {
			want.RowsScanned++
		}
		want.CellsScanned += wantCells(ref, rd)
	}
	if m != want {
		t.Fatalf("table %s, reads %d: metrics %+v, want %+v", table, len(reads), m, want)
	}
}

func describeRead(rd store.Read) string {
	switch {
	case rd.Columns != nil:
		return fmt.Sprintf("%q columns %q", rd.Row, rd.Columns)
	case rd.Slice != nil:
		sl := rd.Slice
		return fmt.Sprintf("%q slice [%q, %q) offset %d limit %d (nil start %v, nil stop %v)", rd.Row, sl.Start, sl.Stop, sl.Offset, sl.Limit, sl.Start == nil, sl.Stop == nil)
	}
	return fmt.Sprintf("%q whole", rd.Row)
}

// randQualifier is a short qualifier over the bytes the key escaping
// treats specially, and the empty one.
func randQualifier(r *rand.Rand) []byte {
	alphabet := []byte{0x00, 0x01, 'a', 'b', 0xff}
	q := make([]byte, r.Intn(4))
	for i := range q {
		q[i] = alphabet[r.Intn(len(alphabet))]
	}
	return q
}

// propTable is a table the property test fills: its name and what it has
// beyond one family.
type propTable struct {
	name   string
	others []string // families besides the default "cf"
	ttl    bool
}

// fillRow writes a random row: versions of random qualifiers, then one of
// each kind of delete marker at random (some on columns without cells),
// columns deleted by Mutation.DeleteColumns, puts after the deletes (some
// masked by them), cells in other families and, on a TTL table, cells
// that expire. It returns the qualifiers it used.
func fillRow(t *testing.T, r *rand.Rand, e *Engine, clk *testClock, pt propTable, row string) [][]byte {
	var pool [][]byte
	for range 3 + r.Intn(12) {
		pool = append(pool, randQualifier(r))
	}
	slices.SortFunc(pool, bytes.Compare)
	pool = slices.CompactFunc(pool, bytes.Equal)
	pick := func() []byte { return pool[r.Intn(len(pool))] }
	clk.set(1000)
	for i, q := range pool {
		for v := range 1 + r.Intn(3) {
			ts := int64(1 + r.Intn(30))
			put := Put{Qualifier: q, Value: []byte(fmt.Sprintf("v%d.%d", i, v)), Timestamp: ts}
			if pt.ttl && r.Intn(3) == 0 {
				put.TTL = int64(1 + r.Intn(4000)) // read at 3000: some expire
			}
			mustUpdate(t, e, pt.name, row, RowMutation{Puts: []Put{put}})
		}
		for _, f := range pt.others {
			mustUpdate(t, e, pt.name, row, puts(int64(1+r.Intn(30)), f+":"+string(q)+"=other"))
		}
	}
	var marks []DeleteMarker
	markTs := []int64{0} // 0: now, above every marker
	for range r.Intn(6) {
		ts := int64(1 + r.Intn(30))
		markTs = append(markTs, ts)
		switch r.Intn(5) {
		case 0:
			marks = append(marks, DeleteMarker{Kind: DeleteColumn, Qualifier: pick(), Timestamp: ts})
		case 1:
			marks = append(marks, DeleteMarker{Kind: DeleteVersion, Qualifier: pick(), Timestamp: ts})
		case 2:
			marks = append(marks, DeleteMarker{Kind: DeleteFamilyVersion, Timestamp: ts})
		case 3:
			marks = append(marks, DeleteMarker{Kind: DeleteFamily, Timestamp: int64(1 + r.Intn(8))})
		default: // a column without cells
			marks = append(marks, DeleteMarker{Kind: DeleteColumn, Qualifier: append(randQualifier(r), 'z'), Timestamp: ts})
		}
	}
	for _, f := range pt.others {
		marks = append(marks, DeleteMarker{Kind: DeleteFamily, Family: f, Timestamp: 30})
	}
	if len(marks) > 0 {
		if err := e.DeleteCells(ctx, pt.name, []byte(row), marks...); err != nil {
			t.Fatal(err)
		}
	}
	if r.Intn(2) == 0 { // at 1000: hides every version so far
		del := store.Mutation{Row: []byte(row), DeleteColumns: [][]byte{pick()}}
		if err := e.Mutate(ctx, pt.name, del); err != nil {
			t.Fatal(err)
		}
	}
	clk.set(2000)
	// A delete removes what it hides, so only puts after it show that its
	// marker masks them: some at the markers' timestamps.
	for range 1 + r.Intn(6) {
		ts := markTs[r.Intn(len(markTs))]
		mustPut(t, e, pt.name, row, store.Cell{Qualifier: pick(), Value: []byte("late"), Timestamp: ts})
	}
	clk.set(3000)
	return pool
}

// fillWideRow writes 300 columns and deletes most of them, so that a read
// meets more columns with markers than a cursor's window holds, then puts
// every column again below its markers: masked where deleted.
func fillWideRow(t *testing.T, r *rand.Rand, e *Engine, table, row string) [][]byte {
	var cells []store.Cell
	var pool [][]byte
	for i := range 300 {
		q := []byte(fmt.Sprintf("w%03d", i))
		pool = append(pool, q)
		cells = append(cells, store.Cell{Qualifier: q, Value: []byte(fmt.Sprint(i)), Timestamp: 5})
	}
	mustPut(t, e, table, row, cells...)
	var marks []DeleteMarker
	for _, q := range pool {
		if r.Intn(4) != 0 {
			marks = append(marks, DeleteMarker{Kind: DeleteColumn, Qualifier: q, Timestamp: 5})
		}
	}
	if err := e.DeleteCells(ctx, table, []byte(row), marks...); err != nil {
		t.Fatal(err)
	}
	for i := range cells {
		cells[i].Timestamp, cells[i].Value = 3, []byte("masked")
	}
	mustPut(t, e, table, row, cells...)
	return pool
}

// randBound is a slice bound: nil, a qualifier of the row (a bound equal
// to a column), one between them, or the empty qualifier.
func randBound(r *rand.Rand, pool [][]byte) []byte {
	switch r.Intn(5) {
	case 0:
		return nil
	case 1:
		return []byte{}
	case 2:
		return randQualifier(r)
	}
	return pool[r.Intn(len(pool))]
}

func randRead(r *rand.Rand, row string, pool [][]byte) store.Read {
	rd := store.Read{Row: []byte(row)}
	switch r.Intn(4) {
	case 0:
	case 1:
		rd.Columns = [][]byte{}
		for range r.Intn(5) {
			if r.Intn(3) == 0 {
				rd.Columns = append(rd.Columns, randQualifier(r))
			} else {
				rd.Columns = append(rd.Columns, pool[r.Intn(len(pool))])
			}
		}
	default:
		n := len(pool)
		rd.Slice = &store.Slice{Start: randBound(r, pool), Stop: randBound(r, pool), Offset: r.Intn(n + 3), Limit: r.Intn(n + 3)}
		if r.Intn(3) == 0 {
			rd.Slice.Offset = 0
		}
	}
	return rd
}

// Every kind of Read returns what store.Select keeps of the row Get
// returns, over rows with every kind of delete marker, several versions,
// cells in other families and cells that expire, and counts what it
// passed over.
func TestReadMatchesSelect(t *testing.T) {
	clk := newClock(1000)
	e := openMem(t, Options{Now: clk.now, DisableSplits: true})
	tables := []propTable{{name: "p"}, {name: "m", others: []string{"a", "z"}}, {name: "ttl", ttl: true}}
	for _, pt := range tables {
		spec := store.TableSpec{Name: pt.name, Family: "cf", SplitKeys: [][]byte{[]byte("r05")}}
		if pt.others != nil {
			spec.Families = append([]string{"cf"}, pt.others...)
		}
		if err := e.CreateTableWith(ctx, spec, TableOptions{CellTTL: pt.ttl}); err != nil {
			t.Fatal(err)
		}
	}
	seeds := int64(4)
	if raceOn {
		seeds = 1 // one goroutine's reads: the race detector's time on one seed is enough
	}
	for seed := range seeds {
		r := rand.New(rand.NewSource(seed))
		for _, pt := range tables {
			pools := map[string][][]byte{}
			for i := range 10 {
				row := fmt.Sprintf("r%02d-%d", i, seed)
				pools[row] = fillRow(t, r, e, clk, pt, row)
			}
			wide := fmt.Sprintf("wide-%d", seed)
			pools[wide] = fillWideRow(t, r, e, pt.name, wide)
			var all []store.Read
			for row, pool := range pools {
				rowReads := edgeReads(row, pool)
				for range 40 {
					rowReads = append(rowReads, randRead(r, row, pool))
				}
				checkSelect(t, e, pt.name, rowReads)
				for _, rd := range rowReads[:10] { // a read alone bounds its iterator to the row
					checkSelect(t, e, pt.name, []store.Read{rd})
				}
				all = append(all, rowReads[len(rowReads)-5:]...)
			}
			all = append(all, store.Read{Row: []byte("missing")}, store.Read{Row: []byte("missing"), Slice: &store.Slice{}})
			r.Shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
			checkSelect(t, e, pt.name, all) // reads of many rows share one iterator
			checkBatches(t, e, pt.name)
		}
	}
}

// checkBatches scans table in batches, forward and reversed, and checks
// the chunks join into the rows the scan without batches hands over.
func checkBatches(t *testing.T, e *Engine, table string) {
	t.Helper()
	for _, rev := range []bool{false, true} {
		whole, wm := chunks(t, e, table, store.Scan{Reversed: rev})
		for _, batch := range []int{1, 3, markWindow + 1, 1000} {
			got, m := chunks(t, e, table, store.Scan{Reversed: rev, Batch: batch})
			if g, w := renderRows(reassemble(t, got, batch)), renderRows(whole); g != w {
				t.Fatalf("table %s, batches of %d (reversed %v):\n%s\nwant\n%s", table, batch, rev, g, w)
			}
			if m != wm {
				t.Fatalf("table %s, batches of %d (reversed %v): metrics %+v, want %+v", table, batch, rev, m, wm)
			}
		}
	}
}

// edgeReads are the slices at the edges of a row's columns: bounds equal
// to its first and last columns, an empty range, an offset at and past
// the end, a limit of one, and the column lists that select nothing.
func edgeReads(row string, pool [][]byte) []store.Read {
	first, last := pool[0], pool[len(pool)-1]
	n := len(pool)
	sl := func(s store.Slice) store.Read { return store.Read{Row: []byte(row), Slice: &s} }
	return []store.Read{
		{Row: []byte(row)},
		sl(store.Slice{Start: first}),
		sl(store.Slice{Start: last}),
		sl(store.Slice{Stop: last}),
		sl(store.Slice{Stop: first}),
		sl(store.Slice{Start: first, Stop: first}),
		sl(store.Slice{Start: last, Stop: first}),
		sl(store.Slice{Stop: []byte{}}),
		sl(store.Slice{Offset: n}),
		sl(store.Slice{Offset: n + 5}),
		sl(store.Slice{Offset: n - 1, Limit: 5}),
		sl(store.Slice{Limit: 1}),
		sl(store.Slice{Start: append(slices.Clone(last), 0), Limit: 1}),
		{Row: []byte(row), Columns: [][]byte{}},
		{Row: []byte(row), Columns: [][]byte{last, first, last, []byte("none")}},
	}
}

// A slice of 11 columns of a row of 100,000 costs 11 cells (16 with an
// offset of 5), one read request on the region holding the row, and one
// row scanned; the iterator steps about as many keys, with or without
// deleted columns around the slice.
func TestReadSliceOfWideRow(t *testing.T) {
	e := openMem(t, Options{DisableSplits: true})
	mustCreate(t, e, "w", "m", "x")
	const n = 100_000
	cells := make([]store.Cell, n)
	for i := range cells {
		cells[i] = store.Cell{Qualifier: []byte(fmt.Sprintf("c%06d", i)), Value: []byte("v")}
	}
	mustPut(t, e, "w", "row", cells...)
	var marks []DeleteMarker
	for i := 50_000; i < 60_000; i += 2 {
		marks = append(marks, DeleteMarker{Kind: DeleteColumn, Qualifier: cells[i].Qualifier})
	}
	if err := e.DeleteCells(ctx, "w", []byte("row"), marks...); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name         string
		sl           store.Slice
		first, cells int
	}{
		{"a page", store.Slice{Start: []byte("c040000"), Limit: 11}, 40_000, 11},
		{"past an offset", store.Slice{Start: []byte("c040000"), Offset: 5, Limit: 11}, 40_005, 16},
		{"among deleted columns", store.Slice{Start: []byte("c055000"), Limit: 11}, 55_001, 11},
		{"to a stop", store.Slice{Start: []byte("c099990"), Stop: []byte("c099999")}, 99_990, 9},
	} {
		t.Run(c.name, func(t *testing.T) {
			before, _ := countersAt(t, e, "w", "row")
			rows, m, err := e.Read(ctx, "w", []store.Read{{Row: []byte("row"), Slice: &c.sl}})
			if err != nil {
				t.Fatal(err)
			}
			if m != (store.ScanMetrics{RowsScanned: 1, CellsScanned: int64(c.cells)}) {
				t.Fatalf("metrics %+v, want 1 row and %d cells", m, c.cells)
			}
			got := rows[0].Cells
			if len(got) == 0 || string(got[0].Qualifier) != fmt.Sprintf("c%06d", c.first) {
				t.Fatalf("slice %s, want it from c%06d", renderRow(rows[0]), c.first)
			}
			after, _ := countersAt(t, e, "w", "row")
			d := after.Sub(before)
			if d.ReadRequests != 1 || d.RowsScanned != 1 || d.BytesOut != uint64(len(got)*(3+7+1)) {
				t.Fatalf("region of the row: %+v, want one read request, one row and %d cells out", d, len(got))
			}
			// Its cells and deleted columns, and one window of markers.
			if steps := readSteps(t, e, "w", store.Read{Row: []byte("row"), Slice: &c.sl}); steps > 150 {
				t.Fatalf("the slice moved the iterator %d times", steps)
			}
		})
	}
	for _, other := range []string{"a", "x"} {
		if c, _ := countersAt(t, e, "w", other); c.ReadRequests != 0 {
			t.Fatalf("region of %q charged %+v", other, c)
		}
	}
}

// readSteps is how many times a Read's cursor moves a Pebble iterator
// (seeks and steps) reading rd.
func readSteps(t *testing.T, e *Engine, table string, rd store.Read) int {
	t.Helper()
	tb, err := e.table(table)
	if err != nil {
		t.Fatal(err)
	}
	it, err := e.db.NewIter(&pebble.IterOptions{LowerBound: tableStart(tb.id), UpperBound: tableEnd(tb.id)})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var cs colScratch
	cs.c.it, cs.c.point, cs.c.ro = it, true, e.latestOpts(tb)
	if _, err := cs.readRow(tb, rd); err != nil {
		t.Fatal(err)
	}
	st := it.Stats()
	return st.ForwardSeekCount[pebble.InterfaceCall] + st.ForwardStepCount[pebble.InterfaceCall]
}

// A Read refuses what it cannot mean, returns keys the caller owns, and
// reads nothing of a table that is not there.
func TestReadChecks(t *testing.T) {
	e := openMem(t, Options{DisableSplits: true})
	mustCreate(t, e, "t")
	mustPut(t, e, "t", "r", cell("q", "v"))
	for _, rd := range []store.Read{
		{},
		{Row: []byte("r"), Columns: [][]byte{[]byte("q")}, Slice: &store.Slice{}},
		{Row: []byte("r"), Slice: &store.Slice{Offset: -1}},
		{Row: []byte("r"), Slice: &store.Slice{Limit: -1}},
	} {
		if _, _, err := e.Read(ctx, "t", []store.Read{{Row: []byte("r")}, rd}); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("read %+v: %v, want ErrInvalid", rd, err)
		}
	}
	if _, _, err := e.Read(ctx, "nope", []store.Read{{Row: []byte("r")}}); !errors.Is(err, store.ErrTableNotFound) {
		t.Errorf("read of a missing table: %v", err)
	}
	row, missing := []byte("r"), []byte("s")
	got, _, err := e.Read(ctx, "t", []store.Read{{Row: row}, {Row: missing}})
	if err != nil {
		t.Fatal(err)
	}
	row[0], missing[0] = 'x', 'x'
	if string(got[0].Key) != "r" || string(got[1].Key) != "s" || got[1].Found() {
		t.Fatalf("keys %q %q: not the caller's own copies", got[0].Key, got[1].Key)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, _, err := e.Read(cancelled, "t", []store.Read{{Row: []byte("r")}}); err == nil {
		t.Error("a read with a cancelled context went ahead")
	}
}

var fuzzRows atomic.Int64

// FuzzRead builds a row from the input (puts of a few columns at a few
// timestamps, then delete markers) and checks a read of it, which the
// input also gives, against store.Select of the row Get returns.
func FuzzRead(f *testing.F) {
	f.Add([]byte("\x01a\x05\x01b\x07\x02a\x06\x01c\x03"), []byte("a"), []byte("c"), uint8(0), uint8(2), uint8(2))
	f.Add([]byte("\x01\x00\x01\x01\x00\x02\x03\x00\x02\x04\x00\x01"), []byte{}, []byte(nil), uint8(1), uint8(0), uint8(0))
	f.Add([]byte("\x01ab\x09\x05\x00\x04\x01ab\x03"), []byte("ab"), []byte("ab\x00"), uint8(0), uint8(0), uint8(1))
	e, err := Open(Options{DisableSplits: true})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { e.Close() })
	if err := e.CreateTable(ctx, store.TableSpec{Name: "f", Family: "cf"}); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, ops, start, stop []byte, offset, limit, kind uint8) {
		row := []byte(fmt.Sprintf("row%d", fuzzRows.Add(1)))
		if err := applyFuzzOps(e, row, ops); err != nil {
			t.Skip(err)
		}
		rd := store.Read{Row: row}
		switch kind % 3 {
		case 1:
			rd.Columns = [][]byte{start, stop}
		case 2:
			rd.Slice = &store.Slice{Start: start, Stop: stop, Offset: int(offset % 8), Limit: int(limit % 8)}
		}
		checkSelect(t, e, "f", []store.Read{rd})
	})
}

// applyFuzzOps applies ops, records of three bytes: a kind (1 put, 2
// DeleteColumn, 3 DeleteVersion, 4 DeleteFamilyVersion, 5 DeleteFamily;
// any other ends them), a one-byte qualifier and a timestamp.
func applyFuzzOps(e *Engine, row, ops []byte) error {
	for len(ops) >= 3 {
		q, ts := ops[1:2], int64(ops[2]%16)+1
		var err error
		switch ops[0] {
		case 1:
			err = e.Mutate(ctx, "f", store.Put(row, store.Cell{Qualifier: q, Value: []byte{ops[2]}, Timestamp: ts}))
		case 2, 3, 4, 5:
			kind := map[byte]DeleteKind{2: DeleteColumn, 3: DeleteVersion, 4: DeleteFamilyVersion, 5: DeleteFamily}[ops[0]]
			err = e.DeleteCells(ctx, "f", row, DeleteMarker{Kind: kind, Qualifier: q, Timestamp: ts})
		default:
			return nil
		}
		if err != nil {
			return err
		}
		ops = ops[3:]
	}
	return nil
}
