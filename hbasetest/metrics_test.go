package hbasetest

import (
	"testing"
	"time"

	"commentbench/hbase/pb"

	"google.golang.org/protobuf/proto"
)

// metricsOf returns a response's ROWS_SCANNED and ROWS_FILTERED, and
// whether it carried scan_metrics at all.
func metricsOf(resp *pb.ScanResponse) (scanned, filtered int64, ok bool) {
	if resp.ScanMetrics == nil {
		return 0, 0, false
	}
	for _, p := range resp.GetScanMetrics().GetMetrics() {
		switch p.GetName() {
		case "ROWS_SCANNED":
			scanned = p.GetValue()
		case "ROWS_FILTERED":
			filtered = p.GetValue()
		}
	}
	return scanned, filtered, true
}

// A scan that asks for scan metrics gets, in every answer, the rows that
// call read (filtered or not) and the rows its filter dropped; one that
// does not ask gets none.
func TestScanMetrics(t *testing.T) {
	c, rs := scanTable(t) // rows r00..r29; rs[1] = [r10, r20)
	cl := rsClient(t, c, rs[1].Server, true)
	call := func(req *pb.ScanRequest) (*pb.ScanResponse, []string) {
		t.Helper()
		resp := &pb.ScanResponse{}
		block := cl.mustCall("Scan", req, nil, resp)
		return resp, scanRows(t, resp, block, true)
	}
	cases := []struct {
		name              string
		sc                *pb.Scan
		rows              int
		scanned, filtered int64
	}{
		// The seed's "row >= cursor": the whole region is read for 3 rows.
		{"row filter keeps the last rows", &pb.Scan{Filter: rowFilter(pb.CompareType_GREATER_OR_EQUAL, "r17")}, 3, 10, 7},
		{"reversed row filter", &pb.Scan{Reversed: proto.Bool(true), Filter: rowFilter(pb.CompareType_LESS_OR_EQUAL, "r12")}, 3, 10, 7},
		{"no filter", &pb.Scan{StartRow: []byte("r15")}, 5, 5, 0},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			resp, rows := call(&pb.ScanRequest{Region: spec(rs[1].Name), Scan: tt.sc, NumberOfRows: proto.Uint32(100),
				ClientHandlesPartials: proto.Bool(true), ClientHandlesHeartbeats: proto.Bool(true), TrackScanMetrics: proto.Bool(true)})
			scanned, filtered, ok := metricsOf(resp)
			if !ok || len(rows) != tt.rows || scanned != tt.scanned || filtered != tt.filtered {
				t.Fatalf("rows %v, metrics %v scanned %d filtered %d; want %d rows, scanned %d filtered %d",
					rows, ok, scanned, filtered, tt.rows, tt.scanned, tt.filtered)
			}
			if resp.GetMoreResultsInRegion() {
				t.Fatal("scanner left open at the region's end")
			}
		})
	}

	t.Run("per call", func(t *testing.T) {
		// Batches of 4 over the region's 10 rows: each call counts only
		// the rows it read, not the one it stopped at.
		req := &pb.ScanRequest{Region: spec(rs[1].Name), Scan: &pb.Scan{}, NumberOfRows: proto.Uint32(4), TrackScanMetrics: proto.Bool(true)}
		var got []int64
		for range 5 {
			resp, rows := call(req)
			scanned, filtered, ok := metricsOf(resp)
			if !ok || filtered != 0 || scanned != int64(len(rows)) {
				t.Fatalf("call %d: %d rows, metrics %v scanned %d filtered %d", len(got), len(rows), ok, scanned, filtered)
			}
			got = append(got, scanned)
			if !resp.GetMoreResultsInRegion() {
				break
			}
			// Later calls ask for metrics by the open call's flag.
			req = next(resp.GetScannerId(), rs[1].Name, 4)
		}
		if len(got) != 3 || got[0]+got[1]+got[2] != 10 {
			t.Fatalf("per-call ROWS_SCANNED %v; want 4, 4, 2", got)
		}
	})

	t.Run("not tracked", func(t *testing.T) {
		resp, rows := call(&pb.ScanRequest{Region: spec(rs[1].Name), Scan: &pb.Scan{Filter: rowFilter(pb.CompareType_GREATER_OR_EQUAL, "r17")},
			NumberOfRows: proto.Uint32(100)})
		if len(rows) != 3 || resp.ScanMetrics != nil {
			t.Fatalf("rows %v, scan_metrics %v; want 3 rows and no metrics", rows, resp.ScanMetrics)
		}
	})
}

// Calls cut by the scan time limit count each row once over the scan: the
// row the time ran out at is read by the next call, not by both.
func TestScanMetricsWithHeartbeats(t *testing.T) {
	c, rs := scanTable(t) // rs[2] = [r20, ""): rows r20..r29
	c.SetScanTimeLimit(time.Nanosecond)
	cl := rsClient(t, c, rs[2].Server, true)
	for _, sc := range []*pb.Scan{
		{Filter: rowFilter(pb.CompareType_GREATER_OR_EQUAL, "r28")},
		{Reversed: proto.Bool(true), Filter: rowFilter(pb.CompareType_LESS_OR_EQUAL, "r21")},
	} {
		req := &pb.ScanRequest{Region: spec(rs[2].Name), Scan: sc, NumberOfRows: proto.Uint32(100),
			ClientHandlesPartials: proto.Bool(true), ClientHandlesHeartbeats: proto.Bool(true), TrackScanMetrics: proto.Bool(true)}
		var rows, calls int
		var scanned, filtered int64
		for ; calls < 100; calls++ {
			resp := &pb.ScanResponse{}
			block := cl.mustCall("Scan", req, nil, resp)
			rows += len(scanRows(t, resp, block, true))
			s, f, ok := metricsOf(resp)
			if !ok {
				t.Fatalf("call %d: no scan_metrics", calls)
			}
			scanned, filtered = scanned+s, filtered+f
			if !resp.GetMoreResultsInRegion() {
				break
			}
			req = next(resp.GetScannerId(), rs[2].Name, 100)
			req.ClientHandlesHeartbeats = proto.Bool(true)
		}
		if rows != 2 || scanned != 10 || filtered != 8 || calls < 3 {
			t.Fatalf("reversed=%v: %d rows in %d calls, scanned %d filtered %d; want 2 rows, 10 scanned, 8 filtered",
				sc.GetReversed(), rows, calls, scanned, filtered)
		}
	}
}
