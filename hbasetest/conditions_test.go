package hbasetest

import (
	"context"
	"testing"

	"commentbench/hbase/pb"
	"commentbench/hbase/wire"

	"google.golang.org/protobuf/proto"
)

// condEquals is a condition cf:q == v on row.
func condEquals(row, v string) *pb.Condition {
	bc, _ := proto.Marshal(&pb.BinaryComparator{Comparable: &pb.ByteArrayComparable{Value: []byte(v)}})
	return &pb.Condition{Row: []byte(row), Family: []byte("cf"), Qualifier: []byte("q"), CompareType: pb.CompareType_EQUAL.Enum(),
		Comparator: &pb.Comparator{Name: proto.String(binaryComparatorClass), SerializedComparator: bc}}
}

// inlinePut is a Put of row cf:qual=v in the inline form.
func inlinePut(row, qual, v string) *pb.MutationProto {
	return &pb.MutationProto{Row: []byte(row), MutateType: pb.MutationProto_PUT.Enum(),
		ColumnValue: []*pb.MutationProto_ColumnValue{{Family: []byte("cf"),
			QualifierValue: []*pb.MutationProto_ColumnValue_QualifierValue{{Qualifier: []byte(qual), Value: []byte(v)}}}}}
}

// A conditional atomic RegionAction is decided from the condition in the
// RegionAction (HBase 2.4+) or, failing that, in the MultiRequest (before
// 2.4); its outcome comes back in both places, every action answered.
func TestConditionalMulti(t *testing.T) {
	c, eng := newCluster(t, 1)
	rs := createTable(t, eng, "t")
	cl := rsClient(t, c, rs[0].Server, true)
	req, block := putReq(rs[0].Name, "r", "q", "v1")
	cl.mustCall("Mutate", req, block, &pb.MutateResponse{})

	multi := func(legacy bool, expected, mark string) *pb.MultiResponse {
		t.Helper()
		ra := &pb.RegionAction{Region: spec(rs[0].Name), Atomic: proto.Bool(true), Action: []*pb.Action{
			{Index: proto.Uint32(1), Mutation: inlinePut("r", "a", mark)},
			{Index: proto.Uint32(2), Mutation: inlinePut("r", "b", mark)},
		}}
		req := &pb.MultiRequest{RegionAction: []*pb.RegionAction{ra}}
		if legacy {
			req.Condition = condEquals("r", expected)
		} else {
			ra.Condition = condEquals("r", expected)
		}
		resp := &pb.MultiResponse{}
		cl.mustCall("Multi", req, nil, resp)
		rar := resp.GetRegionActionResult()[0]
		if rar.Exception != nil || len(rar.GetResultOrException()) != 2 || rar.Processed == nil || resp.Processed == nil ||
			rar.GetProcessed() != resp.GetProcessed() {
			t.Fatalf("legacy=%v: answer %v", legacy, resp)
		}
		return resp
	}
	marks := func() string {
		row, _ := eng.Get(context.Background(), "t", []byte("r"))
		a, _ := row.Value([]byte("a"))
		b, _ := row.Value([]byte("b"))
		return string(a) + "," + string(b)
	}
	for _, legacy := range []bool{false, true} {
		mark := map[bool]string{false: "new", true: "old"}[legacy]
		if multi(legacy, "nope", mark).GetProcessed() || marks() == mark+","+mark {
			t.Fatalf("legacy=%v: applied under a false condition: %s", legacy, marks())
		}
		if !multi(legacy, "v1", mark).GetProcessed() || marks() != mark+","+mark {
			t.Fatalf("legacy=%v: not applied under a true condition: %s", legacy, marks())
		}
	}

	// An atomic RegionAction without a condition is HBase's mutateRow:
	// every mutation must name the same row.
	ra := &pb.RegionAction{Region: spec(rs[0].Name), Atomic: proto.Bool(true), Action: []*pb.Action{
		{Index: proto.Uint32(1), Mutation: inlinePut("r", "c", "1")},
		{Index: proto.Uint32(2), Mutation: inlinePut("other", "c", "1")},
	}}
	resp := &pb.MultiResponse{}
	cl.mustCall("Multi", &pb.MultiRequest{RegionAction: []*pb.RegionAction{ra}}, nil, resp)
	if ex := resp.GetRegionActionResult()[0].GetException(); ex == nil || ex.GetName() != wire.ExcDoNotRetryIO {
		t.Fatalf("row mutations over two rows: %v", resp)
	}
	if row, _ := eng.Get(context.Background(), "t", []byte("r")); func() bool { _, ok := row.Value([]byte("c")); return ok }() {
		t.Fatal("half of a refused row mutation applied")
	}
	// One that applies is processed, in both places HBase says so.
	ra.Action[1].Mutation = inlinePut("r", "d", "1")
	resp = &pb.MultiResponse{}
	cl.mustCall("Multi", &pb.MultiRequest{RegionAction: []*pb.RegionAction{ra}}, nil, resp)
	if rar := resp.GetRegionActionResult()[0]; rar.GetException() != nil || !rar.GetProcessed() || !resp.GetProcessed() || len(rar.GetResultOrException()) != 2 {
		t.Fatalf("row mutations of one row: %v", resp)
	}
}

// HBase counts the row at which a PrefixFilter ends a scan as filtered,
// and returns before counting it as scanned (RegionScannerImpl); a row a
// cell filter empties is both scanned and filtered.
func TestScanMetricsWhereFiltersEnd(t *testing.T) {
	c, rs := scanTable(t) // rows r00..r29; rs[1] = [r10, r20)
	cl := rsClient(t, c, rs[1].Server, true)
	pf, _ := proto.Marshal(&pb.PrefixFilter{Prefix: []byte("r12")})
	prefix := &pb.Filter{Name: proto.String(filterPkg + "PrefixFilter"), SerializedFilter: pf}
	vf, _ := proto.Marshal(&pb.ValueFilter{CompareFilter: &pb.CompareFilter{CompareOp: pb.CompareType_EQUAL.Enum(),
		Comparator: &pb.Comparator{Name: proto.String(binaryComparatorClass), SerializedComparator: mustMarshal(t, &pb.BinaryComparator{Comparable: &pb.ByteArrayComparable{Value: []byte("nothing")}})}}})
	values := &pb.Filter{Name: proto.String(filterPkg + "ValueFilter"), SerializedFilter: vf}
	cases := []struct {
		name              string
		sc                *pb.Scan
		rows              int
		scanned, filtered int64
		more              bool
	}{
		// r10, r11 dropped by key; r12 returned; r13 ends the scan.
		{"prefix from the region start", &pb.Scan{Filter: prefix}, 1, 3, 3, false},
		{"prefix from its own start", &pb.Scan{StartRow: []byte("r12"), Filter: prefix}, 1, 1, 1, false},
		{"reversed prefix", &pb.Scan{Reversed: proto.Bool(true), StartRow: []byte("r19"), Filter: prefix}, 1, 8, 8, false},
		{"cell filter empties every row", &pb.Scan{Filter: values}, 0, 10, 10, true},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			resp := &pb.ScanResponse{}
			block := cl.mustCall("Scan", &pb.ScanRequest{Region: spec(rs[1].Name), Scan: tt.sc, NumberOfRows: proto.Uint32(100),
				ClientHandlesPartials: proto.Bool(true), ClientHandlesHeartbeats: proto.Bool(true), TrackScanMetrics: proto.Bool(true)}, nil, resp)
			rows := scanRows(t, resp, block, true)
			scanned, filtered, _ := metricsOf(resp)
			if len(rows) != tt.rows || scanned != tt.scanned || filtered != tt.filtered || resp.GetMoreResults() != tt.more {
				t.Fatalf("rows %v, scanned %d, filtered %d, more_results %v; want %d rows, %d scanned, %d filtered, more %v",
					rows, scanned, filtered, resp.GetMoreResults(), tt.rows, tt.scanned, tt.filtered, tt.more)
			}
		})
	}
}

func mustMarshal(t *testing.T, m proto.Message) []byte {
	t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
