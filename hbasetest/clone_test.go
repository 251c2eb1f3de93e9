package hbasetest

import (
	"context"
	"slices"
	"testing"

	"commentbench/hbase/pb"
	"commentbench/hbase/wire"
	"commentbench/store"
	"commentbench/store/embedded"

	"google.golang.org/protobuf/proto"
)

// rowValues reads every version of q in each row of table, newest first,
// as "row=v1,v2".
func rowValues(t *testing.T, eng *embedded.Engine, table string) []string {
	t.Helper()
	var out []string
	_, err := eng.ScanRows(context.Background(), table, store.Scan{}, embedded.Read{MaxVersions: 10}, func(r embedded.Row) bool {
		s := string(r.Key) + "="
		for i, cl := range r.Cells {
			if i > 0 {
				s += ","
			}
			s += string(cl.Value)
		}
		out = append(out, s)
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func putVersion(t *testing.T, eng *embedded.Engine, table, row, value string, ts int64) {
	t.Helper()
	if err := eng.Mutate(context.Background(), table, store.Put([]byte(row), store.Cell{Qualifier: []byte("q"), Value: []byte(value), Timestamp: ts})); err != nil {
		t.Fatal(err)
	}
}

func restoreInto(mc *client, snapshot, table string) (*pb.RestoreSnapshotResponse, *pb.ExceptionResponse) {
	resp := &pb.RestoreSnapshotResponse{}
	desc := &pb.SnapshotDescription{Name: proto.String(snapshot)}
	if table != "" {
		desc.Table = proto.String(table)
	}
	_, exc := mc.call("RestoreSnapshot", &pb.RestoreSnapshotRequest{Snapshot: desc}, nil, resp)
	return resp, exc
}

// Restoring a snapshot into a table other than its own clones it: the new
// table has the snapshot's regions and every version of its data and is
// served at once; the snapshot's table, enabled, is left as it is. A
// clone into a table that exists is refused.
func TestCloneSnapshot(t *testing.T) {
	c, eng := newCluster(t, 3)
	createVersioned(t, eng, "src", 3, "g", "p")
	putVersion(t, eng, "src", "a", "a1", 10)
	putVersion(t, eng, "src", "a", "a2", 20)
	putVersion(t, eng, "src", "h", "h1", 10)
	putVersion(t, eng, "src", "q", "q1", 10)
	mc := dial(t, c.MasterAddr(), wire.ServiceMaster, true)
	mc.mustCall("Snapshot", &pb.SnapshotRequest{Snapshot: &pb.SnapshotDescription{Name: proto.String("s1"), Table: proto.String("src")}}, nil, &pb.SnapshotResponse{})
	putVersion(t, eng, "src", "a", "a3", 30)
	putVersion(t, eng, "src", "z", "z1", 10)
	before := rowValues(t, eng, "src")

	resp, exc := restoreInto(mc, "s1", "default:copy")
	if exc != nil {
		t.Fatalf("clone into a new table: %s: %s", exc.GetExceptionClassName(), exc.GetStackTrace())
	}
	waitProc(t, mc, resp.GetProcId())
	if got, want := rowValues(t, eng, "copy"), []string{"a=a2,a1", "h=h1", "q=q1"}; !slices.Equal(got, want) {
		t.Fatalf("clone holds %v, want %v", got, want)
	}
	regs := regions(t, eng, "copy")
	if len(regs) != 3 || string(regs[1].Start) != "g" || string(regs[2].Start) != "p" {
		t.Fatalf("clone regions %v, want the snapshot's", regs)
	}
	if got := rowValues(t, eng, "src"); !slices.Equal(got, before) || c.isDisabled("src") {
		t.Fatalf("source after the clone: %v (disabled %v), want %v", got, c.isDisabled("src"), before)
	}
	wantServed(t, c, eng, "copy", "h", "h1")
	wantServed(t, c, eng, "src", "a", "a3")

	_, exc = restoreInto(mc, "s1", "copy")
	wantExcMsg(t, exc, wire.ExcTableExists, "copy")
	snaps := &pb.GetCompletedSnapshotsResponse{}
	mc.mustCall("GetCompletedSnapshots", &pb.GetCompletedSnapshotsRequest{}, nil, snaps)
	if len(snaps.GetSnapshots()) != 1 || snaps.GetSnapshots()[0].GetName() != "s1" {
		t.Fatalf("snapshots after the clone: %v", snaps.GetSnapshots())
	}
}

// A clone made while the snapshot's table is disabled, or gone, leaves it
// so.
func TestCloneSnapshotOfDisabledOrDroppedTable(t *testing.T) {
	c, eng := newCluster(t, 2)
	createTable(t, eng, "src", "m")
	putVersion(t, eng, "src", "a", "a1", 10)
	mc := dial(t, c.MasterAddr(), wire.ServiceMaster, true)
	mc.mustCall("Snapshot", &pb.SnapshotRequest{Snapshot: &pb.SnapshotDescription{Name: proto.String("s"), Table: proto.String("src")}}, nil, &pb.SnapshotResponse{})
	putVersion(t, eng, "src", "b", "b1", 10)
	mc.mustCall("DisableTable", &pb.DisableTableRequest{TableName: tn("src")}, nil, &pb.DisableTableResponse{})

	if _, exc := restoreInto(mc, "s", "c1"); exc != nil {
		t.Fatalf("clone of a disabled table's snapshot: %s", exc.GetStackTrace())
	}
	if !c.isDisabled("src") || !slices.Equal(rowValues(t, eng, "src"), []string{"a=a1", "b=b1"}) {
		t.Fatalf("disabled source after the clone: disabled %v, %v", c.isDisabled("src"), rowValues(t, eng, "src"))
	}
	mc.mustCall("DeleteTable", &pb.DeleteTableRequest{TableName: tn("src")}, nil, &pb.DeleteTableResponse{})
	if _, exc := restoreInto(mc, "s", "c2"); exc != nil {
		t.Fatalf("clone of a dropped table's snapshot: %s", exc.GetStackTrace())
	}
	if got := listTables(t, mc, ".*", false); !slices.Equal(got, []string{"c1", "c2"}) {
		t.Fatalf("tables %v, want the clones alone", got)
	}
	if got := rowValues(t, eng, "c2"); !slices.Equal(got, []string{"a=a1"}) {
		t.Fatalf("second clone holds %v", got)
	}
	// Its own table, gone, is the snapshot's to restore into.
	if _, exc := restoreInto(mc, "s", ""); exc != nil {
		t.Fatalf("restore of the dropped table: %s", exc.GetStackTrace())
	}
	wantServed(t, c, eng, "src", "a", "a1")
}

// wantServed gets row from table through the region server holding it.
func wantServed(t *testing.T, c *Cluster, eng *embedded.Engine, table, row, value string) {
	t.Helper()
	var reg store.Region
	for _, r := range regions(t, eng, table) {
		if r.Contains([]byte(row)) {
			reg = r
		}
	}
	resp := &pb.GetResponse{}
	block := rsClient(t, c, reg.Server, true).mustCall("Get", getReq(reg.Name, row), nil, resp)
	if cells, _ := resultCells(t, resp.GetResult(), block); len(cells) == 0 || string(cells[0].Value) != value {
		t.Fatalf("%s row %s served %v, want %s", table, row, cells, value)
	}
}
