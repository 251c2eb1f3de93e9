package hbasetest

import (
	"fmt"
	"strings"
	"testing"

	"commentbench/hbase/pb"
	"commentbench/hbase/wire"

	"google.golang.org/protobuf/proto"
)

// mutation builds a Mutate of row in the cellblock form.
func mutation(region, row string, typ pb.MutationProto_MutationType, cells ...wire.Cell) (*pb.MutateRequest, []byte) {
	var block []byte
	for _, cl := range cells {
		cl.Row, cl.Family = []byte(row), []byte("cf")
		block = wire.AppendCell(block, cl)
	}
	return &pb.MutateRequest{Region: spec(region), Mutation: &pb.MutationProto{
		Row: []byte(row), MutateType: typ.Enum(), AssociatedCellCount: proto.Int32(int32(len(cells))),
	}}, block
}

func putAt(q string, ts uint64) wire.Cell {
	return wire.Cell{Qualifier: []byte(q), Value: []byte(fmt.Sprint(ts)), Timestamp: ts, Type: wire.TypePut}
}

func delCell(typ byte, q string, ts uint64) wire.Cell {
	return wire.Cell{Qualifier: []byte(q), Timestamp: ts, Type: typ}
}

// versionsGet reads every version of row through Get, as "q@ts".
func versionsGet(t *testing.T, cl *client, region, row string) string {
	t.Helper()
	g := getReq(region, row)
	g.Get.MaxVersions = proto.Uint32(10)
	gr := &pb.GetResponse{}
	out := cl.mustCall("Get", g, nil, gr)
	cells, _ := resultCells(t, gr.GetResult(), out)
	var parts []string
	for _, c := range cells {
		parts = append(parts, fmt.Sprintf("%s@%d", c.Qualifier, c.Timestamp))
	}
	return strings.Join(parts, ",")
}

// versionsScan reads every version of every row through one Scan, as
// "row:q@ts" (inline results: the connection has no codec).
func versionsScan(t *testing.T, cl *client, region string) string {
	t.Helper()
	resp := &pb.ScanResponse{}
	cl.mustCall("Scan", &pb.ScanRequest{Region: spec(region), Scan: &pb.Scan{MaxVersions: proto.Uint32(10)},
		NumberOfRows: proto.Uint32(100), CloseScanner: proto.Bool(true)}, nil, resp)
	var parts []string
	for _, r := range resp.GetResults() {
		for _, c := range r.GetCell() {
			parts = append(parts, fmt.Sprintf("%s:%s@%d", c.Row, c.Qualifier, c.GetTimestamp()))
		}
	}
	return strings.Join(parts, ",")
}

func TestDeleteTypes(t *testing.T) {
	c, eng := newCluster(t, 1)
	rs := createVersioned(t, eng, "t", 10)
	reg := rs[0].Name
	cl := rsClient(t, c, rs[0].Server, true)
	plain := rsClient(t, c, rs[0].Server, false)
	var cells []wire.Cell
	for _, q := range []string{"q", "r", "s"} {
		for _, ts := range []uint64{10, 20, 30} {
			cells = append(cells, putAt(q, ts))
		}
	}
	for _, row := range []string{"a", "b"} {
		req, block := mutation(reg, row, pb.MutationProto_PUT, cells...)
		cl.mustCall("Mutate", req, block, &pb.MutateResponse{})
	}
	mutate := func(row string, cells ...wire.Cell) {
		t.Helper()
		req, block := mutation(reg, row, pb.MutationProto_DELETE, cells...)
		cl.mustCall("Mutate", req, block, &pb.MutateResponse{})
	}
	check := func(row, want string) {
		t.Helper()
		if got := versionsGet(t, cl, reg, row); got != want {
			t.Fatalf("row %s: %s, want %s", row, got, want)
		}
	}
	all := "q@30,q@20,q@10,r@30,r@20,r@10,s@30,s@20,s@10"
	check("a", all)

	// Delete (8), exact and at LATEST (the newest visible version).
	mutate("a", delCell(wire.TypeDelete, "q", 20))
	check("a", "q@30,q@10,r@30,r@20,r@10,s@30,s@20,s@10")
	mutate("a", delCell(wire.TypeDelete, "q", wire.LatestTimestamp))
	check("a", "q@10,r@30,r@20,r@10,s@30,s@20,s@10")
	// DeleteColumn (12) inline, the qualifier's timestamp winning over the
	// mutation's.
	req := &pb.MutateRequest{Region: spec(reg), Mutation: &pb.MutationProto{Row: []byte("a"), MutateType: pb.MutationProto_DELETE.Enum(),
		Timestamp: proto.Uint64(5),
		ColumnValue: []*pb.MutationProto_ColumnValue{{Family: []byte("cf"), QualifierValue: []*pb.MutationProto_ColumnValue_QualifierValue{{
			Qualifier: []byte("r"), Timestamp: proto.Uint64(20), DeleteType: pb.MutationProto_DELETE_MULTIPLE_VERSIONS.Enum()}}}}}}
	plain.mustCall("Mutate", req, nil, &pb.MutateResponse{})
	check("a", "q@10,r@30,s@30,s@20,s@10")
	// DeleteFamilyVersion (10): every column at exactly 30.
	mutate("a", delCell(wire.TypeDeleteFamilyVersion, "", 30))
	check("a", "q@10,s@20,s@10")
	// DeleteColumn (12) at LATEST inside a Multi: everything of s.
	mreq := &pb.MultiRequest{RegionAction: []*pb.RegionAction{{Region: spec(reg), Action: []*pb.Action{{Index: proto.Uint32(0),
		Mutation: &pb.MutationProto{Row: []byte("a"), MutateType: pb.MutationProto_DELETE.Enum(), AssociatedCellCount: proto.Int32(1)}}}}}}
	mresp := &pb.MultiResponse{}
	block := wire.AppendCell(nil, wire.Cell{Row: []byte("a"), Family: []byte("cf"), Qualifier: []byte("s"), Timestamp: wire.LatestTimestamp, Type: wire.TypeDeleteColumn})
	cl.mustCall("Multi", mreq, block, mresp)
	if roe := mresp.GetRegionActionResult()[0].GetResultOrException()[0]; roe.Exception != nil {
		t.Fatalf("multi delete: %v", roe.Exception)
	}
	check("a", "q@10")
	check("b", all)

	// Later puts at or below a marker stay hidden; newer ones show.
	req2, block2 := mutation(reg, "a", pb.MutationProto_PUT, putAt("q", 20), putAt("q", 30), putAt("r", 15),
		putAt("r", 30), putAt("s", 1000))
	cl.mustCall("Mutate", req2, block2, &pb.MutateResponse{})
	check("a", "q@10")
	req2, block2 = mutation(reg, "a", pb.MutationProto_PUT, putAt("q", 25), putAt("r", 31), putAt("s", wire.LatestTimestamp-1))
	cl.mustCall("Mutate", req2, block2, &pb.MutateResponse{})
	want := fmt.Sprintf("q@25,q@10,r@31,s@%d", uint64(wire.LatestTimestamp-1))
	check("a", want)
	// Scans see the same.
	if got, wantScan := versionsScan(t, plain, reg), "a:"+strings.ReplaceAll(want, ",", ",a:")+",b:"+strings.ReplaceAll(all, ",", ",b:"); got != wantScan {
		t.Fatalf("scan: %s, want %s", got, wantScan)
	}

	// A mixed Delete is one mutation; an unknown family or cell type fails.
	mutate("b", delCell(wire.TypeDelete, "q", 10), delCell(wire.TypeDeleteColumn, "r", 20), delCell(wire.TypeDeleteFamily, "", 10))
	check("b", "q@30,q@20,r@30,s@30,s@20")
	req3, block3 := mutation(reg, "b", pb.MutationProto_DELETE, delCell(wire.TypePut, "q", 10))
	_, exc := cl.call("Mutate", req3, block3, &pb.MutateResponse{})
	wantExc(t, exc, wire.ExcDoNotRetryIO)
	bad := wire.AppendCell(nil, wire.Cell{Row: []byte("b"), Family: []byte("nope"), Qualifier: []byte("q"), Timestamp: 1, Type: wire.TypeDeleteColumn})
	req3.Mutation.AssociatedCellCount = proto.Int32(1)
	_, exc = cl.call("Mutate", req3, bad, &pb.MutateResponse{})
	wantExc(t, exc, wire.ExcNoSuchColumnFamily)
	check("b", "q@30,q@20,r@30,s@30,s@20")
}
