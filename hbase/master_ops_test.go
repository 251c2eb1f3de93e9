package hbase

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"commentbench/hbase/pb"
	"commentbench/hbase/wire"
	"commentbench/hbasetest"
	"commentbench/store/embedded"

	"google.golang.org/protobuf/proto"
)

// startClusterAt is startCluster whose engine clock reads *now (ms).
func startClusterAt(t *testing.T, now *atomic.Int64) *testCluster {
	t.Helper()
	eng, err := embedded.Open(embedded.Options{DisableSplits: true, Now: now.Load})
	if err != nil {
		t.Fatal(err)
	}
	cl, err := hbasetest.Start(hbasetest.Options{Engine: eng})
	if err != nil {
		eng.Close()
		t.Fatal(err)
	}
	c, err := Dial(context.Background(), Options{Bootstrap: cl.Bootstrap(), DialTimeout: 2 * time.Second, CallTimeout: 5 * time.Second})
	if err != nil {
		cl.Close()
		eng.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Close()
		cl.Close()
		eng.Close()
	})
	return &testCluster{cl: cl, eng: eng, c: c}
}

// The status names the master, every live server with the requests its
// regions took, and a killed server among the dead.
func TestClusterStatus(t *testing.T) {
	tc := startCluster(t)
	c, ctx := tc.c, context.Background()
	tc.createLoaded(t, "t", 300)
	st, err := c.ClusterStatus(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Version != hbasetest.Version || st.ClusterID == "" || st.Master != tc.cl.MasterAddr() || !st.BalancerOn || len(st.Dead) != 0 {
		t.Fatalf("status %+v", st)
	}
	if len(st.Live) != 3 {
		t.Fatalf("%d live servers, want 3", len(st.Live))
	}
	var writes, requests uint64
	regions := 0
	for _, sl := range st.Live {
		requests += sl.Requests
		for _, rl := range sl.Regions {
			if r, ok := tc.eng.RegionByName(string(rl.Name)); ok && r.Table == "t" {
				regions++
				writes += rl.Writes
			}
		}
	}
	if regions != 3 || writes != 300 || requests < 300 {
		t.Fatalf("table t: %d regions, %d writes, %d requests in all; want 3 regions and 300 writes", regions, writes, requests)
	}
	dead, _ := tc.cl.ServerAddr("rs2")
	if err := tc.cl.KillServer("rs2"); err != nil {
		t.Fatal(err)
	}
	st, err = c.ClusterStatus(ctx)
	if err != nil || len(st.Live) != 2 || !slices.Equal(st.Dead, []string{dead}) {
		t.Fatalf("after killing rs2 (%s): %+v %v", dead, st, err)
	}
}

// A snapshot is the table as it was: a restore into the disabled table
// brings it back, a restore of a dropped table creates it again, and a
// deleted snapshot is gone.
func TestSnapshots(t *testing.T) {
	tc := startCluster(t)
	c, ctx := tc.c, context.Background()
	tc.createLoaded(t, "t", 30)
	if err := c.TakeSnapshot(ctx, "before", "t"); err != nil {
		t.Fatal(err)
	}
	if err := c.TakeSnapshot(ctx, "before", "t"); !errors.Is(err, ErrSnapshotExists) {
		t.Fatalf("second snapshot of one name: %v", err)
	}
	if err := c.TakeSnapshot(ctx, "x", "missing"); !errors.Is(err, ErrTableNotFound) {
		t.Fatalf("snapshot of a missing table: %v", err)
	}
	snaps, err := c.Snapshots(ctx)
	if err != nil || len(snaps) != 1 || snaps[0].Name != "before" || snaps[0].Table != "t" || snaps[0].Created.IsZero() {
		t.Fatalf("snapshots %+v %v", snaps, err)
	}
	if err := c.Mutate(ctx, "t", []Mutation{putMut(key(5), "changed"), putMut(key(500), "new")}); err != nil {
		t.Fatal(err)
	}

	if err := c.RestoreSnapshot(ctx, "before"); !errors.Is(err, ErrTableNotDisabled) {
		t.Fatalf("restore into an enabled table: %v", err)
	}
	if err := c.DisableTable(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	if err := c.RestoreSnapshot(ctx, "before"); err != nil {
		t.Fatal(err)
	}
	if err := c.EnableTable(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	if r, err := c.Get(ctx, "t", key(5), ""); err != nil || value(r) != "v5" {
		t.Fatalf("restored row: %q %v", value(r), err)
	}
	if n := len(scanRows(t, c, "t", Scan{})); n != 30 {
		t.Fatalf("%d rows after restore, want 30", n)
	}

	if err := c.DisableTable(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteTable(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	if err := c.RestoreSnapshot(ctx, "before"); err != nil {
		t.Fatal(err)
	}
	if r, err := c.Get(ctx, "t", key(29), ""); err != nil || value(r) != "v29" {
		t.Fatalf("row of the table made again from the snapshot: %q %v", value(r), err)
	}
	if err := c.DeleteSnapshot(ctx, "before"); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteSnapshot(ctx, "before"); !errors.Is(err, ErrNoSnapshot) {
		t.Fatalf("delete twice: %v", err)
	}
	if err := c.RestoreSnapshot(ctx, "before"); !errors.Is(err, ErrNoSnapshot) {
		t.Fatalf("restore of a deleted snapshot: %v", err)
	}
}

// The balancer switch reports what it was; a region moved by the master
// serves from its new server, and the client follows it there.
func TestBalancerAndMoveRegion(t *testing.T) {
	tc := startCluster(t)
	c, ctx := tc.c, context.Background()
	tc.createLoaded(t, "t", 300)
	if prev, err := c.SetBalancer(ctx, false); !prev || err != nil {
		t.Fatalf("balancer was on: %v %v", prev, err)
	}
	if on, err := c.BalancerEnabled(ctx); on || err != nil {
		t.Fatalf("balancer after switching off: %v %v", on, err)
	}
	regs, err := c.Regions(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	r := regs[1]
	var dest string
	for _, s := range []string{"rs1", "rs2", "rs3"} {
		if a, _ := tc.cl.ServerAddr(s); a != r.Server {
			dest = a
			break
		}
	}
	if err := c.MoveRegion(ctx, r.Name, dest); err != nil {
		t.Fatal(err)
	}
	regs, _ = c.Regions(ctx, "t")
	if regs[1].Server != dest || !slices.Equal(regs[1].Name, r.Name) {
		t.Fatalf("after the move: %+v, want on %s under the same name", regs[1], dest)
	}
	if got, err := c.Get(ctx, "t", key(150), ""); err != nil || value(got) != "v150" {
		t.Fatalf("read from the moved region: %q %v", value(got), err)
	}
	if err := c.MoveRegion(ctx, wire.RegionName("t", []byte("nowhere"), 42), ""); !errors.Is(err, ErrUnknownRegion) {
		t.Fatalf("move of an unknown region: %v", err)
	}
	if prev, err := c.SetBalancer(ctx, true); prev || err != nil {
		t.Fatalf("balancer was off: %v %v", prev, err)
	}
}

func TestReplicationPeers(t *testing.T) {
	tc := startCluster(t)
	ctx := context.Background()
	if peers, err := tc.c.ReplicationPeers(ctx, ""); err != nil || len(peers) != 0 {
		t.Fatalf("peers of a fresh cluster: %v %v", peers, err)
	}
	tc.cl.AddReplicationPeer(hbasetest.ReplicationPeer{ID: "dr", ClusterKey: "zk1:2181:/hbase", Enabled: true})
	tc.cl.AddReplicationPeer(hbasetest.ReplicationPeer{ID: "backup2", ClusterKey: "zk2:2181:/hbase"})
	peers, err := tc.c.ReplicationPeers(ctx, "")
	if err != nil || len(peers) != 2 || peers[0] != (ReplicationPeer{ID: "backup2", ClusterKey: "zk2:2181:/hbase"}) ||
		peers[1] != (ReplicationPeer{ID: "dr", ClusterKey: "zk1:2181:/hbase", Enabled: true}) {
		t.Fatalf("peers %+v %v", peers, err)
	}
	if peers, err := tc.c.ReplicationPeers(ctx, "d"); err != nil || len(peers) != 0 {
		t.Fatalf("the regex matches whole ids: %v %v", peers, err)
	}
	if peers, err := tc.c.ReplicationPeers(ctx, "d.*"); err != nil || len(peers) != 1 || peers[0].ID != "dr" {
		t.Fatalf("peers d.*: %v %v", peers, err)
	}
}

// hbase:namespace is there like any table: a region in hbase:meta and a
// row per namespace with its descriptor.
func TestNamespaceTable(t *testing.T) {
	tc := startCluster(t)
	c, ctx := tc.c, context.Background()
	regs, err := c.Regions(ctx, "hbase:namespace")
	if err != nil || len(regs) != 1 {
		t.Fatalf("regions of hbase:namespace: %v %v", regs, err)
	}
	var names []string
	_, err = c.Scan(ctx, "hbase:namespace", Scan{Family: "info"}, func(r Result) bool {
		var d pb.NamespaceDescriptor
		if err := proto.Unmarshal(r.Cells[0].Value, &d); err != nil || string(d.GetName()) != string(r.Row) {
			t.Errorf("row %s: descriptor %v %v", r.Row, &d, err)
		}
		names = append(names, string(r.Row))
		return true
	})
	if err != nil || !slices.Equal(names, []string{"default", "hbase"}) {
		t.Fatalf("namespaces %v %v", names, err)
	}
	if tables, err := c.ListTables(ctx, ""); err != nil || len(tables) != 0 {
		t.Fatalf("user tables of a fresh cluster: %v %v", tables, err)
	}
}

// A Put's TTL makes its cells expire, on every read, once their timestamp
// plus the TTL is below the clock; an older version shows again.
func TestPutTTL(t *testing.T) {
	var now atomic.Int64
	now.Store(1_000_000)
	tc := startClusterAt(t, &now)
	c, ctx := tc.c, context.Background()
	if err := c.CreateTableSchema(ctx, "ttl", []FamilySchema{{Name: "f", Versions: 3}}, nil); err != nil {
		t.Fatal(err)
	}
	row := []byte("r")
	if err := c.Mutate(ctx, "ttl", []Mutation{{Row: row, Family: "f", Cells: []Cell{{Qualifier: []byte("q"), Value: []byte("lasting"), Timestamp: 900_000}}}}); err != nil {
		t.Fatal(err)
	}
	brief := Mutation{Row: row, Family: "f", TTL: time.Second, Cells: []Cell{{Qualifier: []byte("q"), Value: []byte("brief")}}}
	if err := c.Mutate(ctx, "ttl", []Mutation{brief, {Row: []byte("s"), Family: "f", TTL: time.Second, Cells: []Cell{{Qualifier: []byte("q"), Value: []byte("brief")}}}}); err != nil {
		t.Fatal(err)
	}
	read := func() (string, []string) {
		r, err := c.Get(ctx, "ttl", row, "f")
		if err != nil {
			t.Fatal(err)
		}
		return value(r), scanRows(t, c, "ttl", Scan{})
	}
	if v, rows := read(); v != "brief" || !slices.Equal(rows, []string{"r", "s"}) {
		t.Fatalf("before expiry: %q %v", v, rows)
	}
	now.Store(1_001_000) // timestamp + TTL is not below the clock yet
	if v, _ := read(); v != "brief" {
		t.Fatalf("at the last ms: %q", v)
	}
	now.Store(1_001_001)
	if v, rows := read(); v != "lasting" || !slices.Equal(rows, []string{"r"}) {
		t.Fatalf("after expiry: %q %v", v, rows)
	}
	// A conditional put carries its TTL too.
	ok, err := c.CheckAndMutate(ctx, "ttl", CheckAndMutate{Row: row,
		Condition: Condition{Family: "f", Qualifier: []byte("q"), Op: Equal, Value: []byte("lasting")},
		Mutations: []Mutation{{Family: "f", TTL: time.Millisecond, Cells: []Cell{{Qualifier: []byte("q"), Value: []byte("blink")}}}}})
	if !ok || err != nil {
		t.Fatalf("conditional put with TTL: %v %v", ok, err)
	}
	if v, _ := read(); v != "blink" {
		t.Fatalf("after the conditional put: %q", v)
	}
	now.Add(2)
	if v, _ := read(); v != "lasting" {
		t.Fatalf("after the conditional put expired: %q", v)
	}
}
