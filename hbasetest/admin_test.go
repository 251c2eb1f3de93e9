package hbasetest

import (
	"context"
	"slices"
	"testing"
	"time"

	"commentbench/hbase/pb"
	"commentbench/hbase/wire"

	"google.golang.org/protobuf/proto"
)

func tn(name string) *pb.TableName { return wire.TableFromText(name) }

// waitProc polls getProcedureResult as gohbase does and fails unless the
// procedure finished without an exception.
func waitProc(t *testing.T, mc *client, id uint64) {
	t.Helper()
	if id == 0 {
		t.Fatal("proc_id 0")
	}
	for range 50 {
		r := &pb.GetProcedureResultResponse{}
		mc.mustCall("getProcedureResult", &pb.GetProcedureResultRequest{ProcId: proto.Uint64(id)}, nil, r)
		switch r.GetState() {
		case pb.GetProcedureResultResponse_FINISHED:
			if r.Exception != nil {
				t.Fatalf("procedure %d failed: %v", id, r.Exception)
			}
			return
		case pb.GetProcedureResultResponse_NOT_FOUND:
			t.Fatalf("procedure %d not found", id)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("procedure %d still running", id)
}

func listTables(t *testing.T, mc *client, regex string, sys bool) []string {
	t.Helper()
	r := &pb.GetTableNamesResponse{}
	mc.mustCall("GetTableNames", &pb.GetTableNamesRequest{Regex: proto.String(regex), IncludeSysTables: proto.Bool(sys), Namespace: proto.String("")}, nil, r)
	var out []string
	for _, n := range r.GetTableNames() {
		out = append(out, wire.TableText(n))
	}
	return out
}

func TestMasterTableLifecycle(t *testing.T) {
	c, eng := newCluster(t, 2)
	mc := dial(t, c.MasterAddr(), wire.ServiceMaster, true)

	create := &pb.CreateTableRequest{
		TableSchema: &pb.TableSchema{TableName: tn("t1"), ColumnFamilies: []*pb.ColumnFamilySchema{{Name: []byte("cf"),
			Attributes: []*pb.BytesBytesPair{{First: []byte("VERSIONS"), Second: []byte("3")}}}}},
		SplitKeys: [][]byte{[]byte("m"), []byte("f")},
	}
	cr := &pb.CreateTableResponse{}
	mc.mustCall("CreateTable", create, nil, cr)
	waitProc(t, mc, cr.GetProcId())
	rs := regions(t, eng, "t1")
	if len(rs) != 3 || string(rs[1].Start) != "f" || rs[0].ID != rs[2].ID {
		t.Fatalf("regions %v", rs)
	}
	_, exc := mc.call("CreateTable", create, nil, &pb.CreateTableResponse{})
	wantExc(t, exc, wire.ExcTableExists)
	bad := proto.Clone(create).(*pb.CreateTableRequest)
	bad.TableSchema.TableName = tn("t2")
	bad.SplitKeys = [][]byte{[]byte("a"), []byte("a")}
	_, exc = mc.call("CreateTable", bad, nil, &pb.CreateTableResponse{})
	wantExc(t, exc, wire.ExcDoNotRetryIO)

	cr2 := &pb.CreateTableResponse{}
	create.TableSchema.TableName, create.SplitKeys = tn("other"), nil
	mc.mustCall("CreateTable", create, nil, cr2)
	if cr2.GetProcId() == cr.GetProcId() {
		t.Fatal("proc ids not unique")
	}
	if got := listTables(t, mc, "t.*", false); !slices.Equal(got, []string{"t1"}) {
		t.Fatalf("list t.*: %v", got)
	}
	if got := listTables(t, mc, "t", false); len(got) != 0 {
		t.Fatalf("regex must match whole names: %v", got)
	}
	if got := listTables(t, mc, ".*", true); !slices.Equal(got, []string{"hbase:meta", "hbase:namespace", "other", "t1"}) {
		t.Fatalf("list with system tables: %v", got)
	}

	// Disabled regions answer NotServingRegion.
	_, exc = mc.call("EnableTable", &pb.EnableTableRequest{TableName: tn("t1")}, nil, &pb.EnableTableResponse{})
	wantExc(t, exc, wire.ExcTableNotDisabled)
	_, exc = mc.call("DeleteTable", &pb.DeleteTableRequest{TableName: tn("t1")}, nil, &pb.DeleteTableResponse{})
	wantExc(t, exc, wire.ExcTableNotDisabled)
	dr := &pb.DisableTableResponse{}
	mc.mustCall("DisableTable", &pb.DisableTableRequest{TableName: tn("t1")}, nil, dr)
	waitProc(t, mc, dr.GetProcId())
	_, exc = mc.call("DisableTable", &pb.DisableTableRequest{TableName: tn("t1")}, nil, &pb.DisableTableResponse{})
	wantExc(t, exc, wire.ExcTableNotEnabled)
	cl := rsClient(t, c, rs[0].Server, true)
	_, exc = cl.call("Get", getReq(rs[0].Name, "a"), nil, &pb.GetResponse{})
	wantExc(t, exc, wire.ExcNotServingRegion)

	er := &pb.EnableTableResponse{}
	mc.mustCall("EnableTable", &pb.EnableTableRequest{TableName: tn("t1")}, nil, er)
	waitProc(t, mc, er.GetProcId())
	cl.mustCall("Get", getReq(rs[0].Name, "a"), nil, &pb.GetResponse{})

	mc.mustCall("DisableTable", &pb.DisableTableRequest{TableName: tn("t1")}, nil, &pb.DisableTableResponse{})
	del := &pb.DeleteTableResponse{}
	mc.mustCall("DeleteTable", &pb.DeleteTableRequest{TableName: tn("t1")}, nil, del)
	waitProc(t, mc, del.GetProcId())
	if got := listTables(t, mc, ".*", false); !slices.Equal(got, []string{"other"}) {
		t.Fatalf("after delete: %v", got)
	}
	if infos, _ := metaLookup(t, c, "t1", "a"); len(infos) != 0 {
		t.Fatal("deleted table still in meta")
	}
	for _, m := range []string{"DisableTable", "EnableTable", "DeleteTable"} {
		var req proto.Message
		switch m {
		case "DisableTable":
			req = &pb.DisableTableRequest{TableName: tn("t1")}
		case "EnableTable":
			req = &pb.EnableTableRequest{TableName: tn("t1")}
		default:
			req = &pb.DeleteTableRequest{TableName: tn("t1")}
		}
		_, exc = mc.call(m, req, nil, &pb.DisableTableResponse{})
		wantExc(t, exc, wire.ExcTableNotFound)
	}
	// Finished procedures are remembered; unknown ones are NOT_FOUND.
	waitProc(t, mc, cr.GetProcId())
	r := &pb.GetProcedureResultResponse{}
	mc.mustCall("getProcedureResult", &pb.GetProcedureResultRequest{ProcId: proto.Uint64(9999)}, nil, r)
	if r.GetState() != pb.GetProcedureResultResponse_NOT_FOUND || r.State == nil {
		t.Fatalf("unknown proc: %v", r)
	}

	// Data through the VERSIONS the schema asked for.
	if _, err := eng.Regions(context.Background(), "other"); err != nil {
		t.Fatal(err)
	}
}
