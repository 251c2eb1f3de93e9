package embedded

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"commentbench/store"
)

// scanKeys runs a scan and returns the row keys and metrics.
func scanKeys(t *testing.T, e *Engine, table string, sc store.Scan) ([]string, store.ScanMetrics) {
	t.Helper()
	var keys []string
	m, err := e.Scan(ctx, table, sc, func(r store.Row) bool {
		keys = append(keys, string(r.Key))
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	return keys, m
}

func rowNames(from, to, step int) []string {
	var out []string
	for i := from; i != to+step; i += step {
		out = append(out, fmt.Sprintf("r%02d", i))
	}
	return out
}

// newScanTable makes table "s" with regions [,r10) [r10,r20) [r20,) and
// rows r00..r29.
func newScanTable(t *testing.T) *Engine {
	e := openMem(t, Options{DisableSplits: true})
	mustCreate(t, e, "s", "r10", "r20")
	var muts []store.Mutation
	for _, k := range rowNames(0, 29, 1) {
		muts = append(muts, store.Put([]byte(k), cell("q", "v"+k)))
	}
	if err := e.Mutate(ctx, "s", muts...); err != nil {
		t.Fatal(err)
	}
	return e
}

func TestScanSemantics(t *testing.T) {
	e := newScanTable(t)
	cases := []struct {
		name    string
		sc      store.Scan
		want    []string
		metrics store.ScanMetrics
	}{
		{"whole table", store.Scan{}, rowNames(0, 29, 1), store.ScanMetrics{RowsScanned: 30, Regions: 3, CellsScanned: 30}},
		{"start inclusive stop exclusive", store.Scan{Start: []byte("r05"), Stop: []byte("r15")},
			rowNames(5, 14, 1), store.ScanMetrics{RowsScanned: 10, Regions: 2, CellsScanned: 10}},
		{"stop at region start", store.Scan{Start: []byte("r05"), Stop: []byte("r10")},
			rowNames(5, 9, 1), store.ScanMetrics{RowsScanned: 5, Regions: 1, CellsScanned: 5}},
		{"start between rows", store.Scan{Start: []byte("r05x")}, rowNames(6, 29, 1), store.ScanMetrics{RowsScanned: 24, Regions: 3, CellsScanned: 24}},
		{"reversed start highest inclusive, stop exclusive", store.Scan{Start: []byte("r15"), Stop: []byte("r05"), Reversed: true},
			rowNames(15, 6, -1), store.ScanMetrics{RowsScanned: 10, Regions: 2, CellsScanned: 10}},
		{"reversed whole table", store.Scan{Reversed: true}, rowNames(29, 0, -1), store.ScanMetrics{RowsScanned: 30, Regions: 3, CellsScanned: 30}},
		{"reversed start past rows", store.Scan{Start: []byte("zz"), Stop: []byte("r27"), Reversed: true},
			rowNames(29, 28, -1), store.ScanMetrics{RowsScanned: 2, Regions: 1, CellsScanned: 2}},
		{"limit across a region", store.Scan{Start: []byte("r08"), Limit: 5},
			rowNames(8, 12, 1), store.ScanMetrics{RowsScanned: 5, Regions: 2, CellsScanned: 5}},
		{"reversed limit", store.Scan{Reversed: true, Limit: 3}, rowNames(29, 27, -1), store.ScanMetrics{RowsScanned: 3, Regions: 1, CellsScanned: 3}},
		{"empty range", store.Scan{Start: []byte("r15"), Stop: []byte("r15")}, nil, store.ScanMetrics{}},
		// RowFilter never ends a scan: ">= r25" without a start row reads
		// the table from its start.
		{"row filter >=", store.Scan{Filter: store.RowFilter{Op: store.GreaterOrEqual, Value: []byte("r25")}},
			rowNames(25, 29, 1), store.ScanMetrics{RowsScanned: 30, RowsFiltered: 25, Regions: 3, CellsScanned: 30}},
		{"row filter with limit", store.Scan{Filter: store.RowFilter{Op: store.GreaterOrEqual, Value: []byte("r15")}, Limit: 2},
			rowNames(15, 16, 1), store.ScanMetrics{RowsScanned: 17, RowsFiltered: 15, Regions: 2, CellsScanned: 17}},
		// PrefixFilter reads up to the prefix, then stops at the first row
		// past it (r20, or r09 reversed), which is in the next region.
		{"prefix filter", store.Scan{Filter: store.PrefixFilter{Prefix: []byte("r1")}},
			rowNames(10, 19, 1), store.ScanMetrics{RowsScanned: 21, RowsFiltered: 11, Regions: 3, CellsScanned: 21}},
		{"prefix filter with start", store.Scan{Start: []byte("r1"), Filter: store.PrefixFilter{Prefix: []byte("r1")}},
			rowNames(10, 19, 1), store.ScanMetrics{RowsScanned: 11, RowsFiltered: 1, Regions: 3, CellsScanned: 11}},
		{"reversed prefix filter", store.Scan{Reversed: true, Filter: store.PrefixFilter{Prefix: []byte("r1")}},
			rowNames(19, 10, -1), store.ScanMetrics{RowsScanned: 21, RowsFiltered: 11, Regions: 3, CellsScanned: 21}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := readRequests(t, e)
			got, m := scanKeys(t, e, "s", c.sc)
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("rows = %v, want %v", got, c.want)
			}
			if m != c.metrics {
				t.Fatalf("metrics = %+v, want %+v", m, c.metrics)
			}
			if d := readRequests(t, e) - before; d != uint64(c.metrics.Regions) {
				t.Fatalf("ReadRequests grew by %d, want %d (regions visited)", d, c.metrics.Regions)
			}
		})
	}

	t.Run("each stops the scan", func(t *testing.T) {
		n := 0
		m, err := e.Scan(ctx, "s", store.Scan{}, func(store.Row) bool { n++; return n < 3 })
		if err != nil || n != 3 || m.RowsScanned != 3 {
			t.Fatalf("n=%d metrics=%+v err=%v", n, m, err)
		}
	})
	t.Run("cells come with the row", func(t *testing.T) {
		var rows []store.Row
		e.Scan(ctx, "s", store.Scan{Start: []byte("r03"), Limit: 1}, func(r store.Row) bool { rows = append(rows, r); return true })
		if len(rows) != 1 || cellsOf(rows[0]) != "q=vr03" {
			t.Fatalf("rows = %+v", rows)
		}
	})
	t.Run("deleted rows are skipped", func(t *testing.T) {
		e.Mutate(ctx, "s", store.Delete([]byte("r11")), store.Delete([]byte("r12")))
		got, m := scanKeys(t, e, "s", store.Scan{Start: []byte("r10"), Stop: []byte("r14")})
		if !reflect.DeepEqual(got, []string{"r10", "r13"}) || m.RowsScanned != 2 {
			t.Fatalf("rows %v metrics %+v", got, m)
		}
	})
	t.Run("cancelled context", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		_, err := e.Scan(cctx, "s", store.Scan{}, func(store.Row) bool { return true })
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v", err)
		}
	})
}

// TestScanVisitsEmptyRegions: a scan opens every region its range covers,
// as the HBase client does, even regions without rows.
func TestScanVisitsEmptyRegions(t *testing.T) {
	e := openMem(t, Options{DisableSplits: true})
	mustCreate(t, e, "e", "b", "c", "d")
	mustPut(t, e, "e", "a1", cell("q", "v"))
	mustPut(t, e, "e", "d1", cell("q", "v"))
	for _, c := range []struct {
		sc      store.Scan
		regions int
	}{
		{store.Scan{}, 4},
		{store.Scan{Reversed: true}, 4},
		{store.Scan{Start: []byte("b"), Stop: []byte("c5")}, 2},
		{store.Scan{Start: []byte("c5"), Stop: []byte("b"), Reversed: true}, 2},
		{store.Scan{Limit: 1}, 1},
	} {
		_, m := scanKeys(t, e, "e", c.sc)
		if m.Regions != c.regions {
			t.Errorf("%+v: visited %d regions, want %d", c.sc, m.Regions, c.regions)
		}
	}
}

func readRequests(t *testing.T, e *Engine) uint64 {
	stats, err := e.RegionStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var n uint64
	for _, s := range stats {
		n += s.ReadRequests
	}
	return n
}

func sumCounters(t *testing.T, e *Engine, table string) (sum store.Counters, per map[string]store.Counters) {
	t.Helper()
	stats, err := e.RegionStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	per = map[string]store.Counters{}
	for _, s := range stats {
		if s.Table != table {
			continue
		}
		per[string(s.Start)] = s.Counters
		sum.ReadRequests += s.ReadRequests
		sum.WriteRequests += s.WriteRequests
		sum.RowsScanned += s.RowsScanned
		sum.BytesIn += s.BytesIn
		sum.BytesOut += s.BytesOut
	}
	return sum, per
}

func TestCounters(t *testing.T) {
	e := openMem(t, Options{DisableSplits: true})
	mustCreate(t, e, "c", "m")
	mustCreate(t, e, "other")

	// N rows in batches, both regions; bytes = row + qualifier + value.
	const n = 50
	var wantIn uint64
	var muts []store.Mutation
	for i := range n {
		row := fmt.Sprintf("%c%03d", 'a'+byte(i%26), i)
		muts = append(muts, store.Put([]byte(row), cell("qq", "value")))
		wantIn += uint64(len(row) + 2 + 5)
		if len(muts) == 7 || i == n-1 {
			if err := e.Mutate(ctx, "c", muts...); err != nil {
				t.Fatal(err)
			}
			muts = nil
		}
	}
	sum, per := sumCounters(t, e, "c")
	if sum.WriteRequests != n || sum.BytesIn != wantIn || sum.ReadRequests != 0 {
		t.Fatalf("after %d puts: %+v (want BytesIn %d)", n, sum, wantIn)
	}
	if per[""].WriteRequests == 0 || per["m"].WriteRequests == 0 {
		t.Fatalf("writes not charged per region: %+v", per)
	}

	// A scan of every row over both regions.
	_, m := scanKeys(t, e, "c", store.Scan{})
	after, _ := sumCounters(t, e, "c")
	d := after.Sub(sum)
	if m.RowsScanned != n || m.Regions != 2 || d.RowsScanned != n || d.ReadRequests != 2 || d.BytesOut != wantIn || d.WriteRequests != 0 {
		t.Fatalf("scan: metrics %+v, counter delta %+v (want BytesOut %d)", m, d, wantIn)
	}

	// A filtered scan still counts rows scanned but not bytes out.
	_, m = scanKeys(t, e, "c", store.Scan{Filter: store.RowFilter{Op: store.Equal, Value: []byte("zzz")}})
	after2, _ := sumCounters(t, e, "c")
	if d := after2.Sub(after); d.RowsScanned != n || d.BytesOut != 0 || m.RowsFiltered != n {
		t.Fatalf("filtered scan: delta %+v metrics %+v", d, m)
	}

	// A get: one read request in the row's region, one row, its bytes;
	// a missing row is a read request only.
	_, before := sumCounters(t, e, "c")
	mustGet(t, e, "c", "a000")
	mustGet(t, e, "c", "a001-missing")
	_, now := sumCounters(t, e, "c")
	if d := now[""].Sub(before[""]); d.ReadRequests != 2 || d.RowsScanned != 1 || d.BytesOut != 4+2+5 {
		t.Fatalf("get delta %+v", d)
	}
	if now["m"] != before["m"] {
		t.Fatal("get charged the wrong region")
	}

	// The other table saw nothing.
	if s, _ := sumCounters(t, e, "other"); s != (store.Counters{}) {
		t.Fatalf("other table counters: %+v", s)
	}
}
