package hbasetest_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"commentbench/hbase"
	"commentbench/hbase/wire"
	"commentbench/hbasetest"
	"commentbench/store"
	"commentbench/store/embedded"
)

// dialCluster starts a one-server cluster (so a Multi is one call) and
// dials it.
func dialCluster(t *testing.T) (*hbasetest.Cluster, *embedded.Engine, *hbase.Client) {
	t.Helper()
	eng, err := embedded.Open(embedded.Options{Servers: 1, DisableSplits: true})
	if err != nil {
		t.Fatal(err)
	}
	cl, err := hbasetest.Start(hbasetest.Options{Engine: eng})
	if err != nil {
		eng.Close()
		t.Fatal(err)
	}
	c, err := hbase.Dial(context.Background(), hbase.Options{Bootstrap: cl.Bootstrap(), DialTimeout: 2 * time.Second, CallTimeout: 5 * time.Second})
	if err != nil {
		cl.Close()
		eng.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close(); cl.Close(); eng.Close() })
	return cl, eng, c
}

func cell(q, v string) []hbase.Cell { return []hbase.Cell{{Qualifier: []byte(q), Value: []byte(v)}} }

// With RejectWrites every change is denied before it lands, each denial
// counted by method, and reads go on; off again, writes land.
func TestRejectWrites(t *testing.T) {
	cl, eng, c := dialCluster(t)
	ctx := context.Background()
	if err := c.CreateTable(ctx, "t", []string{"f"}, [][]byte{[]byte("m")}); err != nil {
		t.Fatal(err)
	}
	if err := c.Mutate(ctx, "t", []hbase.Mutation{{Row: []byte("a"), Family: "f", Cells: cell("q", "1")}}); err != nil {
		t.Fatal(err)
	}
	cl.RejectWrites(true)
	denied := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, hbase.ErrAccessDenied) {
			t.Errorf("%s while read-only: %v; want AccessDeniedException", what, err)
		}
	}
	// Two rows in two regions: a Multi of two region actions.
	denied("Multi", c.Mutate(ctx, "t", []hbase.Mutation{
		{Row: []byte("b"), Family: "f", Cells: cell("q", "2")}, {Row: []byte("z"), Family: "f", Cells: cell("q", "3")}}))
	denied("Mutate", c.Mutate(ctx, "t", []hbase.Mutation{{Row: []byte("a"), DeleteRow: true}}))
	_, err := c.CheckAndPut(ctx, "t", []byte("c"), "f", []byte("q"), nil, hbase.Mutation{Row: []byte("c"), Cells: cell("q", "4")})
	denied("CheckAndPut", err)
	denied("CreateTable", c.CreateTable(ctx, "u", []string{"f"}, nil))
	denied("DisableTable", c.DisableTable(ctx, "t"))

	if r, err := c.Get(ctx, "t", []byte("a"), ""); err != nil || !r.Found() {
		t.Errorf("get while read-only: %+v, %v", r, err)
	}
	if rs, err := c.BatchGet(ctx, "t", [][]byte{[]byte("a"), []byte("z")}, ""); err != nil || len(rs) != 2 || !rs[0].Found() || rs[1].Found() {
		t.Errorf("batch get (a Multi of gets) while read-only: %+v, %v", rs, err)
	}
	rows := 0
	if _, err := c.Scan(ctx, "t", hbase.Scan{}, func(hbase.Result) bool { rows++; return true }); err != nil || rows != 1 {
		t.Errorf("scan while read-only: %d rows, %v; want 1", rows, err)
	}
	if names, err := c.ListTables(ctx, ""); err != nil || len(names) != 1 {
		t.Errorf("tables while read-only: %v, %v; want only t", names, err)
	}
	want := map[string]int64{"Multi": 1, "Mutate": 2, "CreateTable": 1, "DisableTable": 1}
	got := cl.Denied()
	if len(got) != len(want) {
		t.Errorf("denied %v; want %v", got, want)
	}
	for m, n := range want {
		if got[m] != n {
			t.Errorf("denied %s %d times; want %d (all: %v)", m, got[m], n, got)
		}
	}
	n := 0
	if _, err := eng.ScanRows(ctx, "t", store.Scan{}, embedded.Read{}, func(embedded.Row) bool { n++; return true }); err != nil || n != 1 {
		t.Errorf("engine holds %d rows of t (%v); want 1: a denied write landed", n, err)
	}
	if _, err := eng.Family("u"); err == nil {
		t.Error("the engine has table u: a denied create landed")
	}

	cl.RejectWrites(false)
	if err := c.Mutate(ctx, "t", []hbase.Mutation{{Row: []byte("b"), Family: "f", Cells: cell("q", "2")}}); err != nil {
		t.Errorf("write after RejectWrites(false): %v", err)
	}
}

// FailMethod fails every call of one method, whichever client makes it,
// until cleared.
func TestFailMethod(t *testing.T) {
	cl, _, c := dialCluster(t)
	ctx := context.Background()
	cl.FailMethod("GetTableNames", wire.ExcIO)
	for i := range 3 {
		if _, err := c.ListTables(ctx, ""); err == nil {
			t.Fatalf("list %d with GetTableNames failing: no error", i)
		}
	}
	if err := c.CreateTable(ctx, "t", []string{"f"}, nil); err != nil {
		t.Fatalf("another method failed too: %v", err)
	}
	cl.FailMethod("GetTableNames", "")
	if names, err := c.ListTables(ctx, ""); err != nil || len(names) != 1 {
		t.Errorf("after clearing: %v, %v", names, err)
	}
}
