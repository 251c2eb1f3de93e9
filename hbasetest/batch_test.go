package hbasetest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"commentbench/hbase/pb"
	"commentbench/hbase/wire"
	"commentbench/store"

	"google.golang.org/protobuf/proto"
)

// Rows cut into several results, as HBase 2.5's RSRpcServices.scan,
// RegionScannerImpl.populateResult and StoreScanner cut them: by a
// batch_size, or by max_result_size when the client handles partials;
// partial_flag_per_result is mayHaveMoreCellsInRow.

// cellBytes is the size every test cell here weighs against the limits:
// HBase's serialized KeyValue, 24 + row 2 + family 2 + qualifier 3 +
// value 9.
const cellBytes = 40

// wideTable makes table "w" of one region on one server: row r1 of n1
// cells q00.., row r2 of n2, each valued "value-NNN".
func wideTable(t *testing.T, n1, n2 int) (*Cluster, store.Region) {
	t.Helper()
	c, eng := newCluster(t, 1)
	rs := createTable(t, eng, "w")
	for _, r := range []struct {
		row string
		n   int
	}{{"r1", n1}, {"r2", n2}} {
		var cells []store.Cell
		for i := range r.n {
			cells = append(cells, store.Cell{Qualifier: fmt.Appendf(nil, "q%02d", i), Value: fmt.Appendf(nil, "value-%03d", i)})
		}
		if store.CellSize(2, 2, 3, 9) != cellBytes {
			t.Fatal("cell size changed")
		}
		if len(cells) > 0 {
			if err := eng.Mutate(context.Background(), "w", store.Put([]byte(r.row), cells...)); err != nil {
				t.Fatal(err)
			}
		}
	}
	return c, rs[0]
}

// shaped is one scan call's answer: its results as row:cells, "+" after a
// partial one, and the qualifiers in order.
type shaped struct {
	shape, quals  string
	more, moreAll bool
	scanned       int64
	filtered      int64
	id            uint64
}

func shapeScan(t *testing.T, cl *client, req *pb.ScanRequest) shaped {
	t.Helper()
	resp := &pb.ScanResponse{}
	block := cl.mustCall("Scan", req, nil, resp)
	flags := resp.GetPartialFlagPerResult()
	if len(flags) != len(resp.GetCellsPerResult()) {
		t.Fatalf("%d partial flags for %d results", len(flags), len(resp.GetCellsPerResult()))
	}
	var parts, quals []string
	for i, n := range resp.GetCellsPerResult() {
		cells, rest, err := wire.ReadCells(block, int(n))
		if err != nil {
			t.Fatal(err)
		}
		block = rest
		part := fmt.Sprintf("%s:%d", cells[0].Row, n)
		if flags[i] {
			part += "+"
		}
		parts = append(parts, part)
		for _, c := range cells {
			quals = append(quals, string(c.Qualifier))
		}
	}
	s := shaped{shape: strings.Join(parts, " "), quals: strings.Join(quals, " "), more: resp.GetMoreResultsInRegion(), moreAll: resp.GetMoreResults(), id: resp.GetScannerId()}
	for _, m := range resp.GetScanMetrics().GetMetrics() {
		switch m.GetName() {
		case metricRowsScanned:
			s.scanned = m.GetValue()
		case metricRowsFiltered:
			s.filtered = m.GetValue()
		}
	}
	return s
}

func openScan(region string, sc *pb.Scan, rows uint32) *pb.ScanRequest {
	return &pb.ScanRequest{Region: spec(region), Scan: sc, NumberOfRows: proto.Uint32(rows), TrackScanMetrics: proto.Bool(true)}
}

// A row of 25 cells with batch 10 comes as results of 10, 10 and 5 cells,
// flagged partial, partial, whole; number_of_rows counts the results.
func TestScanBatchSplitsRows(t *testing.T) {
	c, reg := wideTable(t, 25, 3)
	cl := rsClient(t, c, reg.Server, true)
	s := shapeScan(t, cl, openScan(reg.Name, &pb.Scan{BatchSize: proto.Uint32(10)}, 100))
	if s.shape != "r1:10+ r1:10+ r1:5 r2:3" || s.more || s.scanned != 2 {
		t.Fatalf("batch 10: %+v", s)
	}
	want := "q00 q01 q02 q03 q04 q05 q06 q07 q08 q09 q10 q11 q12 q13 q14 q15 q16 q17 q18 q19 q20 q21 q22 q23 q24 q00 q01 q02"
	if s.quals != want {
		t.Fatalf("cells out of order: %s", s.quals)
	}

	s = shapeScan(t, cl, openScan(reg.Name, &pb.Scan{BatchSize: proto.Uint32(10)}, 2))
	if s.shape != "r1:10+ r1:10+" || !s.more || s.scanned != 0 {
		t.Fatalf("first two results: %+v", s)
	}
	s = shapeScan(t, cl, next(s.id, reg.Name, 100))
	if s.shape != "r1:5 r2:3" || s.more || s.scanned != 2 {
		t.Fatalf("the rest: %+v", s)
	}

	// A row of exactly two batches ends whole: nothing of it is left.
	c, reg = wideTable(t, 20, 0)
	cl = rsClient(t, c, reg.Server, true)
	if s := shapeScan(t, cl, openScan(reg.Name, &pb.Scan{BatchSize: proto.Uint32(10)}, 100)); s.shape != "r1:10+ r1:10" {
		t.Fatalf("20 cells, batch 10: %+v", s)
	}
}

// Without a codec the partial flag rides on each inline Result.
func TestScanBatchInline(t *testing.T) {
	c, reg := wideTable(t, 25, 0)
	cl := rsClient(t, c, reg.Server, false)
	resp := &pb.ScanResponse{}
	cl.mustCall("Scan", openScan(reg.Name, &pb.Scan{BatchSize: proto.Uint32(10)}, 100), nil, resp)
	var got []string
	for _, r := range resp.GetResults() {
		got = append(got, fmt.Sprint(len(r.GetCell()), r.GetPartial()))
	}
	if strings.Join(got, " ") != "10 true 10 true 5 false" {
		t.Fatalf("inline results: %v", got)
	}
}

// limit_of_rows counts whole rows, not results: the parts of a row count
// once, when its last is returned.
func TestScanBatchRowLimit(t *testing.T) {
	c, reg := wideTable(t, 25, 3)
	cl := rsClient(t, c, reg.Server, true)
	req := openScan(reg.Name, &pb.Scan{BatchSize: proto.Uint32(10)}, 100)
	req.LimitOfRows = proto.Uint32(1)
	if s := shapeScan(t, cl, req); s.shape != "r1:10+ r1:10+ r1:5" || s.more || s.moreAll {
		t.Fatalf("limit 1: %+v", s)
	}
	req = openScan(reg.Name, &pb.Scan{BatchSize: proto.Uint32(10)}, 2)
	req.LimitOfRows = proto.Uint32(2)
	s := shapeScan(t, cl, req)
	if s.shape != "r1:10+ r1:10+" || !s.more {
		t.Fatalf("limit 2, first call: %+v", s)
	}
	if s = shapeScan(t, cl, next(s.id, reg.Name, 100)); s.shape != "r1:5 r2:3" || s.more || s.moreAll {
		t.Fatalf("limit 2, second call: %+v", s)
	}
}

// With the client handling partials, max_result_size cuts a row between
// cells: a call stops at the first cell that reaches it and the next call
// goes on with the rest of the row. Metrics count the row once, in the
// call that returns its end.
func TestScanPartialBySize(t *testing.T) {
	c, reg := wideTable(t, 25, 3)
	cl := rsClient(t, c, reg.Server, true)
	req := openScan(reg.Name, &pb.Scan{MaxResultSize: proto.Uint64(3*cellBytes - 20)}, 100)
	req.ClientHandlesPartials = proto.Bool(true)
	var shapes, quals []string
	var scanned, filtered int64
	more := func(id uint64) *pb.ScanRequest {
		req := next(id, reg.Name, 100)
		req.ClientHandlesPartials = proto.Bool(true)
		return req
	}
	for s := shapeScan(t, cl, req); ; s = shapeScan(t, cl, more(s.id)) {
		shapes, quals = append(shapes, s.shape), append(quals, s.quals)
		scanned, filtered = scanned+s.scanned, filtered+s.filtered
		if len(shapes) == 1 && s.scanned != 0 {
			t.Errorf("the first call counted %d rows scanned, before the row ended", s.scanned)
		}
		if !s.more {
			break
		}
	}
	want := strings.Repeat("r1:3+|", 8) + "r1:1 r2:2+|r2:1"
	if got := strings.Join(shapes, "|"); got != want {
		t.Fatalf("calls:\n got %s\nwant %s", got, want)
	}
	if !strings.HasPrefix(strings.Join(quals, " "), "q00 q01 q02 q03 q04 q05 q06") || scanned != 2 || filtered != 0 {
		t.Fatalf("cells %v, %d rows scanned, %d filtered", quals, scanned, filtered)
	}

	// Partials asked for by the scan (allow_partial_results) count too.
	req = openScan(reg.Name, &pb.Scan{MaxResultSize: proto.Uint64(3*cellBytes - 20), AllowPartialResults: proto.Bool(true)}, 100)
	if s := shapeScan(t, cl, req); s.shape != "r1:3+" {
		t.Fatalf("allow_partial_results: %+v", s)
	}

	// A client that does not handle partials gets whole rows: the size
	// is checked between rows only. The flag is the call's: a call
	// without it returns the rest of a cut row whole.
	req = openScan(reg.Name, &pb.Scan{MaxResultSize: proto.Uint64(3*cellBytes - 20)}, 100)
	s := shapeScan(t, cl, req)
	if s.shape != "r1:25" || !s.more {
		t.Fatalf("whole rows: %+v", s)
	}
	if s = shapeScan(t, cl, next(s.id, reg.Name, 100)); s.shape != "r2:3" || s.more {
		t.Fatalf("whole rows, second call: %+v", s)
	}
	req = openScan(reg.Name, &pb.Scan{MaxResultSize: proto.Uint64(3*cellBytes - 20)}, 100)
	req.ClientHandlesPartials = proto.Bool(true)
	if s = shapeScan(t, cl, req); s.shape != "r1:3+" {
		t.Fatalf("cut row: %+v", s)
	}
	if s = shapeScan(t, cl, next(s.id, reg.Name, 100)); s.shape != "r1:22" || !s.more || s.scanned != 1 {
		t.Fatalf("its rest, to a call without partials: %+v", s)
	}
}

// A filter's state carries over the parts of a row: a pagination paging
// 15 columns from the 5th, with batch 10, goes on counting in the second
// result.
func TestScanBatchKeepsFilterState(t *testing.T) {
	c, reg := wideTable(t, 25, 0)
	cl := rsClient(t, c, reg.Server, true)
	page, _ := proto.Marshal(&pb.ColumnPaginationFilter{Limit: proto.Int32(15), Offset: proto.Int32(5)})
	f := &pb.Filter{Name: proto.String(filterPkg + "ColumnPaginationFilter"), SerializedFilter: page}
	s := shapeScan(t, cl, openScan(reg.Name, &pb.Scan{BatchSize: proto.Uint32(10), Filter: f}, 100))
	if s.shape != "r1:10+ r1:5+" && s.shape != "r1:10+ r1:5" {
		t.Fatalf("paged, batched: %+v", s)
	}
	if !strings.HasPrefix(s.quals, "q05 ") || !strings.HasSuffix(s.quals, " q19") {
		t.Fatalf("paged cells: %s", s.quals)
	}
}

// When a batch ends at a row's last included cell and the row's other
// cells are all filtered out, the result is still flagged partial (cells
// were left); the next read finds the rest empty and counts the row
// scanned and filtered, and when no row follows in the region the flag is
// cleared (HBASE-21206).
func TestScanBatchEmptyRest(t *testing.T) {
	c, reg := wideTable(t, 12, 3)
	cl := rsClient(t, c, reg.Server, true)
	vf, _ := proto.Marshal(&pb.ValueFilter{CompareFilter: &pb.CompareFilter{CompareOp: pb.CompareType_LESS.Enum(),
		Comparator: &pb.Comparator{Name: proto.String(binaryComparatorClass), SerializedComparator: binaryValue(t, "value-010")}}})
	f := &pb.Filter{Name: proto.String(filterPkg + "ValueFilter"), SerializedFilter: vf}
	s := shapeScan(t, cl, openScan(reg.Name, &pb.Scan{BatchSize: proto.Uint32(10), Filter: f}, 100))
	if s.shape != "r1:10+ r2:3" || s.scanned != 2 || s.filtered != 1 {
		t.Fatalf("two rows: %+v", s)
	}
	s = shapeScan(t, cl, openScan(reg.Name, &pb.Scan{BatchSize: proto.Uint32(10), Filter: f, StopRow: []byte("r2")}, 100))
	if s.shape != "r1:10" || s.more || s.scanned != 1 || s.filtered != 1 {
		t.Fatalf("last row of the region: %+v", s)
	}
}

func binaryValue(t *testing.T, v string) []byte {
	t.Helper()
	b, err := proto.Marshal(&pb.BinaryComparator{Comparable: &pb.ByteArrayComparable{Value: []byte(v)}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A filter that must see rows whole (SingleColumnValueFilter) cannot be
// cut by a batch: HBase throws IncompatibleFilterException once a row
// reaches the batch.
func TestScanBatchWholeRowFilter(t *testing.T) {
	c, reg := wideTable(t, 25, 3)
	cl := rsClient(t, c, reg.Server, true)
	scvf, _ := proto.Marshal(&pb.SingleColumnValueFilter{ColumnFamily: []byte("cf"), ColumnQualifier: []byte("q00"),
		CompareOp: pb.CompareType_EQUAL.Enum(), Comparator: &pb.Comparator{Name: proto.String(binaryComparatorClass), SerializedComparator: binaryValue(t, "value-000")}})
	f := &pb.Filter{Name: proto.String(filterPkg + "SingleColumnValueFilter"), SerializedFilter: scvf}
	_, exc := cl.call("Scan", openScan(reg.Name, &pb.Scan{BatchSize: proto.Uint32(10), Filter: f}, 100), nil, &pb.ScanResponse{})
	wantExc(t, exc, wire.ExcIncompatibleFilter)
	if s := shapeScan(t, cl, openScan(reg.Name, &pb.Scan{BatchSize: proto.Uint32(30), Filter: f}, 100)); s.shape != "r1:25 r2:3" {
		t.Fatalf("rows below the batch: %+v", s)
	}
}

// The max row size counts what one read of a family returns: a Get the
// whole row, a scan call each of its results, so a batch under the max
// reads a row a Get cannot.
func TestMaxRowSize(t *testing.T) {
	c, reg := wideTable(t, 25, 3)
	cl := rsClient(t, c, reg.Server, true)
	c.SetMaxRowSize(24 * cellBytes)
	_, exc := cl.call("Get", getReq(reg.Name, "r1"), nil, &pb.GetResponse{})
	wantExc(t, exc, wire.ExcRowTooBig)
	want := fmt.Sprintf("Max row size allowed: %d, but the row is bigger than that, the row info: r1/cf:q24/", 24*cellBytes)
	if !strings.Contains(exc.GetStackTrace(), want) || !strings.Contains(exc.GetStackTrace(), "/Put/vlen=9/seqid=0, already have process row cells = 25, it belong to region = "+reg.Name) {
		t.Fatalf("message %q", exc.GetStackTrace())
	}
	cl.mustCall("Get", getReq(reg.Name, "r2"), nil, &pb.GetResponse{})

	req := openScan(reg.Name, &pb.Scan{}, 100)
	_, exc = cl.call("Scan", req, nil, &pb.ScanResponse{})
	wantExc(t, exc, wire.ExcRowTooBig)
	if n := c.OpenScanners(); n != 0 {
		t.Fatalf("%d scanners left open after the failure", n)
	}
	if s := shapeScan(t, cl, openScan(reg.Name, &pb.Scan{BatchSize: proto.Uint32(24)}, 100)); s.shape != "r1:24+ r1:1 r2:3" {
		t.Fatalf("batch 24: %+v", s)
	}
	_, exc = cl.call("Scan", openScan(reg.Name, &pb.Scan{BatchSize: proto.Uint32(25)}, 100), nil, &pb.ScanResponse{})
	wantExc(t, exc, wire.ExcRowTooBig)

	c.SetMaxRowSize(0)
	cl.mustCall("Get", getReq(reg.Name, "r1"), nil, &pb.GetResponse{})
}
