package hbasestore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"commentbench/hbase"
	"commentbench/hbasetest"
	"commentbench/store"
	"commentbench/store/embedded"
)

type env struct {
	eng *embedded.Engine
	cl  *hbasetest.Cluster
	st  *Store
	ctx context.Context
}

func start(t *testing.T, reuse bool) *env {
	t.Helper()
	eng, err := embedded.Open(embedded.Options{DisableSplits: true})
	if err != nil {
		t.Fatal(err)
	}
	cl, err := hbasetest.Start(hbasetest.Options{Engine: eng})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := Open(ctx, Options{Prefix: "cb_", ReuseTables: reuse,
		Client: hbase.Options{Bootstrap: cl.Bootstrap(), DialTimeout: 3 * time.Second, CallTimeout: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close(); cl.Close(); eng.Close() })
	return &env{eng: eng, cl: cl, st: st, ctx: ctx}
}

func put(row, v string) store.Mutation {
	return store.Put([]byte(row), store.Cell{Qualifier: []byte("q"), Value: []byte(v)})
}

// Every request the client attributed to a region is one the server
// counted there: writes and reads, region by region.
func TestRegionAttribution(t *testing.T) {
	e := start(t, false)
	splits := [][]byte{[]byte("g"), []byte("p")}
	if err := e.st.CreateTable(e.ctx, store.TableSpec{Name: "t", Family: "cf", SplitKeys: splits}); err != nil {
		t.Fatal(err)
	}
	before := serverCounts(t, e)
	var rows [][]byte
	for i := range 60 {
		row := fmt.Sprintf("%c%02d", 'a'+i%26, i)
		rows = append(rows, []byte(row))
		if err := e.st.Mutate(e.ctx, "t", put(row, "v")); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.st.Mutate(e.ctx, "t", put("zz1", "v"), put("bb1", "v"), put("mm1", "v")); err != nil {
		t.Fatal(err)
	}
	if _, err := e.st.BatchGet(e.ctx, "t", rows[:30]); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows[30:] {
		if _, err := e.st.Get(e.ctx, "t", r); err != nil {
			t.Fatal(err)
		}
	}
	client, err := e.st.RegionStats(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	after := serverCounts(t, e)
	n := 0
	for _, c := range client {
		if c.Table != "t" {
			continue
		}
		n++
		srv := after[c.Name].Sub(before[c.Name])
		if c.WriteRequests != srv.WriteRequests || c.ReadRequests != srv.ReadRequests || c.WriteRequests == 0 {
			t.Errorf("region %s: client attributed %d writes, %d reads; server counted %d, %d",
				c.Name, c.WriteRequests, c.ReadRequests, srv.WriteRequests, srv.ReadRequests)
		}
	}
	if n != 3 {
		t.Fatalf("%d regions of t in the client's stats, want 3", n)
	}
}

func serverCounts(t *testing.T, e *env) map[string]store.Counters {
	t.Helper()
	stats, err := e.eng.RegionStats(e.ctx)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]store.Counters{}
	for _, s := range stats {
		m[s.Name] = s.Counters
	}
	return m
}

// A table the harness did not create is neither written nor dropped, and
// the refusal names it; --reuse-tables writes into it but still never drops.
func TestForeignTableRefused(t *testing.T) {
	for _, reuse := range []bool{false, true} {
		t.Run(fmt.Sprintf("reuse=%v", reuse), func(t *testing.T) {
			e := start(t, reuse)
			// Another application's table, made with the plain client.
			if err := e.st.c.CreateTable(e.ctx, "cb_comment", []string{"cf"}, nil); err != nil {
				t.Fatal(err)
			}
			if err := e.st.c.Mutate(e.ctx, "cb_comment", []hbase.Mutation{{Row: []byte("theirs"), Family: "cf",
				Cells: []hbase.Cell{{Qualifier: []byte("q"), Value: []byte("keep")}}}}); err != nil {
				t.Fatal(err)
			}
			err := e.st.CreateTable(e.ctx, store.TableSpec{Name: "comment", Family: "cf"})
			werr := e.st.Mutate(e.ctx, "comment", put("mine", "x"))
			if reuse {
				if !errors.Is(err, store.ErrTableExists) || werr != nil {
					t.Errorf("with reuse: create %v, write %v; want exists and a write", err, werr)
				}
			} else {
				for _, err := range []error{err, werr} {
					if !errors.Is(err, ErrForeignTable) || !strings.Contains(err.Error(), "cb_comment") {
						t.Errorf("err = %v; want ErrForeignTable naming cb_comment", err)
					}
				}
			}
			if err := e.st.DropTable(e.ctx, "comment"); !errors.Is(err, ErrForeignTable) {
				t.Errorf("drop: %v; want ErrForeignTable", err)
			}
			r, err := e.st.c.Get(e.ctx, "cb_comment", []byte("theirs"), "cf")
			if err != nil || !r.Found() {
				t.Errorf("their row after the refusals: %+v, %v", r, err)
			}
		})
	}
}

// The harness's own tables are marked, found again by a later process,
// and dropped cleanly.
func TestOwnTablesMarked(t *testing.T) {
	e := start(t, false)
	if err := e.st.CreateTable(e.ctx, store.TableSpec{Name: "mine", Family: "f2"}); err != nil {
		t.Fatal(err)
	}
	again, err := Open(e.ctx, Options{Prefix: "cb_", Client: hbase.Options{Bootstrap: e.cl.Bootstrap()}})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if err := again.Mutate(e.ctx, "mine", put("r", "v")); err != nil {
		t.Fatalf("a later process writing the harness's own table: %v", err)
	}
	if row, err := again.Get(e.ctx, "mine", []byte("r")); err != nil || !row.Found() {
		t.Fatalf("read back: %+v, %v", row, err)
	}
	tables, _ := again.ListTables(e.ctx)
	if len(tables) != 1 || tables[0].Name != "mine" || tables[0].Family != "f2" {
		t.Errorf("tables %+v; want only mine (family f2), registry hidden", tables)
	}
	if err := again.DropTable(e.ctx, "mine"); err != nil {
		t.Fatal(err)
	}
	if _, err := again.Get(e.ctx, "mine", []byte("r")); !errors.Is(err, store.ErrTableNotFound) {
		t.Errorf("after drop: %v; want ErrTableNotFound", err)
	}
}

// A spec with several families makes a table with all of them; the row
// methods write the spec's Family.
func TestCreateTableFamilies(t *testing.T) {
	e := start(t, false)
	spec := store.TableSpec{Name: "mf", Family: "b", Families: []string{"a", "b"}}
	if err := e.st.CreateTable(e.ctx, spec); err != nil {
		t.Fatal(err)
	}
	schema, err := e.eng.Schema("cb_mf")
	if err != nil || strings.Join(schema.Names(), ",") != "a,b" {
		t.Fatalf("families %v %v", schema.Names(), err)
	}
	if err := e.st.Mutate(e.ctx, "mf", put("r", "v")); err != nil {
		t.Fatal(err)
	}
	row, err := e.eng.GetRow(e.ctx, "cb_mf", []byte("r"), embedded.Read{})
	if err != nil || len(row.Cells) != 1 || row.Cells[0].Family != "b" {
		t.Fatalf("row %+v %v; want one cell in family b", row, err)
	}
}
