package embedded

import (
	"bytes"
	"fmt"
	"testing"

	"commentbench/store"
)

// Exact counts for every counter a region keeps: read and write requests,
// rows scanned, bytes in and out, and the size the split policy reads.
// Each test makes the condition a counter counts and checks the number.

// regionAt is the region of table holding row, in the current routing.
func regionAt(t *testing.T, e *Engine, table, row string) *region {
	t.Helper()
	tb, err := e.table(table)
	if err != nil {
		t.Fatal(err)
	}
	return tb.routing.Load().find([]byte(row))
}

// countersAt snapshots the counters and size of the region holding row.
func countersAt(t *testing.T, e *Engine, table, row string) (store.Counters, int64) {
	t.Helper()
	r := regionAt(t, e, table, row)
	return r.stats.snapshot(), r.stats.size.Load()
}

// escLen is the length of a row or qualifier escaped and terminated.
func escLen(b string) int { return len(b) + bytes.Count([]byte(b), []byte{0}) + 2 }

// cellKeyLen is the length of a cell's data key.
func cellKeyLen(row, q string) int { return tablePrefixLen + escLen(row) + 2 + escLen(q) + tsLen }

func TestMutateChargesEachRowToItsRegion(t *testing.T) {
	e := openMem(t, Options{DisableSplits: true})
	mustCreate(t, e, "c", "m")
	err := e.Mutate(ctx, "c",
		store.Put([]byte("a"), cell("qq", "value")),
		store.Delete([]byte("b")),
		store.Put([]byte("n\x00"), cell("q1", "x"), cell("", "")),
	)
	if err != nil {
		t.Fatal(err)
	}
	low, lowSize := countersAt(t, e, "c", "a")
	if want := (store.Counters{WriteRequests: 2, BytesIn: 1 + 2 + 5 + 1}); low != want {
		t.Fatalf("region [,m): %+v, want %+v", low, want)
	}
	if want := int64(cellKeyLen("a", "qq") + 5); lowSize != want {
		t.Fatalf("region [,m) size %d, want %d", lowSize, want)
	}
	high, highSize := countersAt(t, e, "c", "n")
	if want := (store.Counters{WriteRequests: 1, BytesIn: 2 + 2 + 1 + 2}); high != want {
		t.Fatalf("region [m,): %+v, want %+v", high, want)
	}
	if want := int64(cellKeyLen("n\x00", "q1") + 1 + cellKeyLen("n\x00", "")); highSize != want {
		t.Fatalf("region [m,) size %d, want %d", highSize, want)
	}
	// A failed Mutate (an invalid mutation) charges nothing.
	if err := e.Mutate(ctx, "c", store.Put([]byte("a"), cell("q", "v")), store.Put([]byte("z"))); err == nil {
		t.Fatal("a put without cells was accepted")
	}
	if again, size := countersAt(t, e, "c", "a"); again != low || size != lowSize {
		t.Fatalf("a refused Mutate charged: %+v size %d", again, size)
	}
}

// Get costs its region one read request; a found row also a row scanned
// and its bytes: the key once per cell, plus each cell's qualifier and
// value. BatchGet charges each row to its own region.
func TestGetChargesReadsRowsAndBytes(t *testing.T) {
	e := openMem(t, Options{DisableSplits: true})
	mustCreate(t, e, "first") // g is not the first table: its id is not 0
	mustPut(t, e, "first", "ab", cell("q", "other table"))
	mustCreate(t, e, "g", "m")
	mustPut(t, e, "g", "ab", cell("q", "12345"), cell("qq", ""))
	mustPut(t, e, "g", "xy", cell("q", "1"))
	base, _ := countersAt(t, e, "g", "a")
	mustGet(t, e, "g", "ab")
	got, _ := countersAt(t, e, "g", "a")
	if d := got.Sub(base); d != (store.Counters{ReadRequests: 1, RowsScanned: 1, BytesOut: 2*2 + 1 + 5 + 2}) {
		t.Fatalf("get of a row with two cells: %+v", d)
	}
	mustGet(t, e, "g", "absent")
	again, _ := countersAt(t, e, "g", "a")
	if d := again.Sub(got); d != (store.Counters{ReadRequests: 1}) {
		t.Fatalf("get of a missing row: %+v", d)
	}

	lowBefore, _ := countersAt(t, e, "g", "a")
	highBefore, _ := countersAt(t, e, "g", "x")
	rows, err := e.BatchGet(ctx, "g", [][]byte{[]byte("xy"), []byte("ab"), []byte("nope"), []byte("xy")})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 || !rows[0].Found() || !rows[1].Found() || rows[2].Found() || !rows[3].Found() {
		t.Fatalf("batch get rows: %+v", rows)
	}
	low, _ := countersAt(t, e, "g", "a")
	high, _ := countersAt(t, e, "g", "x")
	if d := low.Sub(lowBefore); d != (store.Counters{ReadRequests: 1, RowsScanned: 1, BytesOut: 2*2 + 1 + 5 + 2}) {
		t.Fatalf("batch get, region [,m): %+v", d)
	}
	if d := high.Sub(highBefore); d != (store.Counters{ReadRequests: 3, RowsScanned: 2, BytesOut: 2 * (2 + 1 + 1)}) {
		t.Fatalf("batch get, region [m,): %+v", d)
	}
}

// GetRow with several versions hands out, and charges, every version it
// returns.
func TestGetRowChargesEveryVersionOut(t *testing.T) {
	e := openMem(t, Options{DisableSplits: true})
	mustCreate(t, e, "v")
	for ts := int64(1); ts <= 3; ts++ {
		mustPut(t, e, "v", "row", store.Cell{Qualifier: []byte("q"), Value: []byte(fmt.Sprint("v", ts)), Timestamp: ts})
	}
	before, _ := countersAt(t, e, "v", "row")
	r, err := e.GetRow(ctx, "v", []byte("row"), Read{MaxVersions: 2})
	if err != nil || len(r.Cells) != 2 {
		t.Fatalf("two versions: %+v, %v", r, err)
	}
	after, _ := countersAt(t, e, "v", "row")
	if d := after.Sub(before); d != (store.Counters{ReadRequests: 1, RowsScanned: 1, BytesOut: 2 * (3 + 1 + 2)}) {
		t.Fatalf("GetRow of two versions: %+v", d)
	}
}

// A scan charges each row and its bytes to the region holding it, and a
// read request to every region it enters, forward and reversed, with a
// limit and a filter.
func TestScanChargesEachRegionItsRows(t *testing.T) {
	e := openMem(t, Options{DisableSplits: true})
	mustCreate(t, e, "s", "b", "c", "d")
	for _, r := range []string{"a1", "a2", "c1", "d1", "d2", "d3"} {
		mustPut(t, e, "s", r, cell("q", "vv"))
	}
	const rowOut = 2 + 1 + 2 // a row's bytes out: key, qualifier, value
	type counts struct{ reads, rows uint64 }
	snap := func() map[string]store.Counters {
		stats, err := e.RegionStats(ctx)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]store.Counters{}
		for _, s := range stats {
			out[string(s.Start)] = s.Counters
		}
		return out
	}
	for _, c := range []struct {
		name string
		sc   store.Scan
		want map[string]counts // by region start
		m    store.ScanMetrics
	}{
		{"whole table", store.Scan{},
			map[string]counts{"": {1, 2}, "b": {1, 0}, "c": {1, 1}, "d": {1, 3}},
			store.ScanMetrics{RowsScanned: 6, Regions: 4, CellsScanned: 6}},
		{"reversed", store.Scan{Reversed: true},
			map[string]counts{"": {1, 2}, "b": {1, 0}, "c": {1, 1}, "d": {1, 3}},
			store.ScanMetrics{RowsScanned: 6, Regions: 4, CellsScanned: 6}},
		{"from b to d1", store.Scan{Start: []byte("b"), Stop: []byte("d1")},
			map[string]counts{"b": {1, 0}, "c": {1, 1}, "d": {1, 0}},
			store.ScanMetrics{RowsScanned: 1, Regions: 3, CellsScanned: 1}},
		{"from b to d", store.Scan{Start: []byte("b"), Stop: []byte("d")},
			map[string]counts{"b": {1, 0}, "c": {1, 1}},
			store.ScanMetrics{RowsScanned: 1, Regions: 2, CellsScanned: 1}},
		{"reversed from c1 to b", store.Scan{Start: []byte("c1"), Stop: []byte("b"), Reversed: true},
			map[string]counts{"b": {1, 0}, "c": {1, 1}},
			store.ScanMetrics{RowsScanned: 1, Regions: 2, CellsScanned: 1}},
		{"reversed from c1 to c", store.Scan{Start: []byte("c1"), Stop: []byte("c"), Reversed: true},
			map[string]counts{"c": {1, 1}},
			store.ScanMetrics{RowsScanned: 1, Regions: 1, CellsScanned: 1}},
		{"reversed from c1 to a9", store.Scan{Start: []byte("c1"), Stop: []byte("a9"), Reversed: true},
			map[string]counts{"": {1, 0}, "b": {1, 0}, "c": {1, 1}},
			store.ScanMetrics{RowsScanned: 1, Regions: 3, CellsScanned: 1}},
		{"reversed from d2 to a1", store.Scan{Start: []byte("d2"), Stop: []byte("a1"), Reversed: true},
			map[string]counts{"": {1, 1}, "b": {1, 0}, "c": {1, 1}, "d": {1, 2}},
			store.ScanMetrics{RowsScanned: 4, Regions: 4, CellsScanned: 4}},
		{"limit 3", store.Scan{Limit: 3},
			map[string]counts{"": {1, 2}, "b": {1, 0}, "c": {1, 1}},
			store.ScanMetrics{RowsScanned: 3, Regions: 3, CellsScanned: 3}},
		{"reversed limit 1", store.Scan{Reversed: true, Limit: 1},
			map[string]counts{"d": {1, 1}},
			store.ScanMetrics{RowsScanned: 1, Regions: 1, CellsScanned: 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			before := snap()
			_, m := scanKeys(t, e, "s", c.sc)
			if m != c.m {
				t.Fatalf("metrics %+v, want %+v", m, c.m)
			}
			after := snap()
			for start, b := range before {
				w := c.want[start]
				d := after[start].Sub(b)
				if want := (store.Counters{ReadRequests: w.reads, RowsScanned: w.rows, BytesOut: w.rows * rowOut}); d != want {
					t.Errorf("region %q: %+v, want %+v", start, d, want)
				}
			}
		})
	}
	t.Run("filtered rows are scanned, not sent", func(t *testing.T) {
		before := snap()
		_, m := scanKeys(t, e, "s", store.Scan{Filter: store.RowFilter{Op: store.Equal, Value: []byte("d2")}})
		if m != (store.ScanMetrics{RowsScanned: 6, RowsFiltered: 5, Regions: 4, CellsScanned: 6}) {
			t.Fatalf("metrics %+v", m)
		}
		after := snap()
		if d := after["d"].Sub(before["d"]); d != (store.Counters{ReadRequests: 1, RowsScanned: 3, BytesOut: rowOut}) {
			t.Fatalf("region d: %+v", d)
		}
		if d := after[""].Sub(before[""]); d != (store.Counters{ReadRequests: 1, RowsScanned: 2}) {
			t.Fatalf("region \"\": %+v", d)
		}
	})
}

// UpdateRow: each read of the row is a read request (a row scanned when
// it has cells); a write is one write request whose bytes in are the row,
// each delete's qualifier and each put's qualifier and value, and whose
// size is each put's key and value (markers add none); no mutations, no
// write. A DeleteVersion at LATEST reads the row once per update, however
// many it has.
func TestUpdateRowCharges(t *testing.T) {
	clk := newClock(1000)
	e := openMem(t, Options{Now: clk.now, DisableSplits: true})
	mustCreate(t, e, "u")
	step := func(name string, f func(read RowReader, now int64) ([]RowMutation, error), want store.Counters, wantSize int64) {
		t.Helper()
		before, size0 := countersAt(t, e, "u", "r")
		if err := e.UpdateRow(ctx, "u", []byte("r"), f); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		after, size1 := countersAt(t, e, "u", "r")
		if d := after.Sub(before); d != want || size1-size0 != wantSize {
			t.Fatalf("%s: %+v size +%d, want %+v size +%d", name, d, size1-size0, want, wantSize)
		}
	}
	step("two reads of a missing row, a delete and a put", func(read RowReader, now int64) ([]RowMutation, error) {
		for range 2 {
			if r, err := read(Read{}); err != nil || r.Found() {
				return nil, fmt.Errorf("read %+v, %v", r, err)
			}
		}
		return []RowMutation{{
			Deletes: []DeleteMarker{{Kind: DeleteColumn, Qualifier: []byte("dq")}},
			Puts:    []Put{{Qualifier: []byte("ab"), Value: []byte("xyz")}},
		}}, nil
	}, store.Counters{ReadRequests: 2, WriteRequests: 1, BytesIn: 1 + 2 + 2 + 3}, int64(cellKeyLen("r", "ab")+3))

	step("a read of the row, no mutations", func(read RowReader, now int64) ([]RowMutation, error) {
		_, err := read(Read{})
		return nil, err
	}, store.Counters{ReadRequests: 1, RowsScanned: 1}, 0)

	step("two puts in two mutations", func(read RowReader, now int64) ([]RowMutation, error) {
		return []RowMutation{puts(5, "cf:a=1"), puts(0, "cf:bb=22")}, nil
	}, store.Counters{WriteRequests: 1, BytesIn: 1 + 1 + 1 + 2 + 2}, int64(cellKeyLen("r", "a")+1+cellKeyLen("r", "bb")+2))

	step("two DeleteVersions at LATEST", func(read RowReader, now int64) ([]RowMutation, error) {
		return []RowMutation{{Deletes: []DeleteMarker{
			{Kind: DeleteVersion, Qualifier: []byte("a")},
			{Kind: DeleteVersion, Qualifier: []byte("bb")},
		}}}, nil
	}, store.Counters{ReadRequests: 1, RowsScanned: 1, WriteRequests: 1, BytesIn: 1 + 1 + 2}, 0)
	if got := mustGetRow(t, e, "u", "r", Read{}); got != "cf:ab=xyz@1000" {
		t.Fatalf("after deleting a and bb at LATEST: %s", got)
	}

	// CheckAndPut: the check is a read request; a put, if made, a write.
	before, _ := countersAt(t, e, "u", "r")
	if ok, err := e.CheckAndPut(ctx, "u", []byte("r"), []byte("ab"), []byte("no"), cell("ab", "new")); ok || err != nil {
		t.Fatalf("mismatched CheckAndPut: %v %v", ok, err)
	}
	mid, _ := countersAt(t, e, "u", "r")
	if d := mid.Sub(before); d != (store.Counters{ReadRequests: 1, RowsScanned: 1}) {
		t.Fatalf("CheckAndPut that does not put: %+v", d)
	}
	if ok, err := e.CheckAndPut(ctx, "u", []byte("r"), []byte("ab"), []byte("xyz"), cell("ab", "new")); !ok || err != nil {
		t.Fatalf("matching CheckAndPut: %v %v", ok, err)
	}
	after, _ := countersAt(t, e, "u", "r")
	if d := after.Sub(mid); d != (store.Counters{ReadRequests: 1, RowsScanned: 1, WriteRequests: 1, BytesIn: 1 + 2 + 3}) {
		t.Fatalf("CheckAndPut that puts: %+v", d)
	}
}

// On a CellTTL table a stored value carries its header: one byte, or nine
// when the cell expires; the size counts it, bytes in do not.
func TestCellTTLSizeCountsHeader(t *testing.T) {
	clk := newClock(1000)
	e := openMem(t, Options{Now: clk.now, DisableSplits: true})
	if err := e.CreateTableWith(ctx, store.TableSpec{Name: "t", Family: "f"}, TableOptions{CellTTL: true}); err != nil {
		t.Fatal(err)
	}
	_, s0 := countersAt(t, e, "t", "r")
	mustPut(t, e, "t", "r", cell("q", "vvv"))
	c1, s1 := countersAt(t, e, "t", "r")
	if s1-s0 != int64(cellKeyLen("r", "q")+1+3) || c1.BytesIn != 1+1+3 {
		t.Fatalf("plain put: size +%d, %+v", s1-s0, c1)
	}
	mustUpdate(t, e, "t", "r", RowMutation{Puts: []Put{{Qualifier: []byte("q"), Value: []byte("vvv"), TTL: 10}, {Qualifier: []byte("p"), Value: []byte("w")}}})
	c2, s2 := countersAt(t, e, "t", "r")
	if s2-s1 != int64(cellKeyLen("r", "q")+9+3+cellKeyLen("r", "p")+1+1) || c2.BytesIn-c1.BytesIn != 1+1+3+1+1 {
		t.Fatalf("expiring put: size +%d, %+v", s2-s1, c2.Sub(c1))
	}
	if got := mustGetRow(t, e, "t", "r", Read{MaxVersions: 3}); got != "f:p=w@1000 f:q=vvv@1000" {
		t.Fatalf("row: %s", got)
	}
	clk.set(1010) // the last ms the cell lives
	if got := mustGetRow(t, e, "t", "r", Read{}); got != "f:p=w@1000 f:q=vvv@1000" {
		t.Fatalf("at its last ms: %s", got)
	}
	clk.set(1011)
	if got := mustGetRow(t, e, "t", "r", Read{}); got != "f:p=w@1000" {
		t.Fatalf("expired: %s", got)
	}
}
