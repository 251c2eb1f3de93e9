package hbasestore

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"commentbench/hbase"
	"commentbench/hbase/wire"
	"commentbench/store"
	"commentbench/store/embedded"
)

// reopen is a later harness process on e's cluster.
func (e *env) reopen(t *testing.T, o Options) (*Store, error) {
	t.Helper()
	o.Prefix = "cb_"
	o.Client = hbase.Options{Bootstrap: e.cl.Bootstrap(), DialTimeout: 3 * time.Second, CallTimeout: 5 * time.Second}
	s, err := Open(e.ctx, o)
	if err == nil {
		t.Cleanup(func() { s.Close() })
	}
	return s, err
}

// engineRows lists the row keys of an HBase table as the engine holds them,
// the owner row included.
func (e *env) engineRows(t *testing.T, table string) []string {
	t.Helper()
	var keys []string
	if _, err := e.eng.ScanRows(e.ctx, table, store.Scan{}, embedded.Read{}, func(r embedded.Row) bool {
		keys = append(keys, string(r.Key))
		return true
	}); err != nil {
		t.Fatalf("scan %s in the engine: %v", table, err)
	}
	return keys
}

// someoneElse drops table (if there) and makes it again with the plain
// client, holding one row of theirs.
func (e *env) someoneElse(t *testing.T, table string) {
	t.Helper()
	if err := e.st.c.DisableTable(e.ctx, table); err == nil {
		if err := e.st.c.DeleteTable(e.ctx, table); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.st.c.CreateTable(e.ctx, table, []string{"cf"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := e.st.c.Mutate(e.ctx, table, []hbase.Mutation{{Row: []byte("theirs"), Family: "cf",
		Cells: []hbase.Cell{{Qualifier: []byte("q"), Value: []byte("keep")}}}}); err != nil {
		t.Fatal(err)
	}
}

func wantRefused(t *testing.T, what string, err error, foreign bool, words ...string) {
	t.Helper()
	if !errors.Is(err, ErrRefused) || errors.Is(err, ErrForeignTable) != foreign {
		t.Errorf("%s: %v; want a refusal (foreign table: %v)", what, err, foreign)
		return
	}
	for _, w := range words {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%s: %q does not say %q", what, err, w)
		}
	}
}

// A table the harness made, then dropped and made again under the same
// name by someone else, is not the harness's: a later process neither
// writes into it nor drops it, whatever the registry says by name, and its
// row stays the only one. --reuse-tables writes into it, still never drops.
func TestRecreatedTableIsForeign(t *testing.T) {
	e := start(t, false)
	if err := e.st.CreateTable(e.ctx, store.TableSpec{Name: "comment", Family: "cf"}); err != nil {
		t.Fatal(err)
	}
	if err := e.st.Mutate(e.ctx, "comment", put("mine", "x")); err != nil {
		t.Fatal(err)
	}
	e.someoneElse(t, "cb_comment")

	later, err := e.reopen(t, Options{})
	if err != nil {
		t.Fatal(err)
	}
	wantRefused(t, "write", later.Mutate(e.ctx, "comment", put("adopted", "x")), true, "cb_comment", "owner row")
	_, err = store.CheckAndPut(e.ctx, later, "comment", []byte("adopted"), []byte("q"), nil, store.Cell{Qualifier: []byte("q"), Value: []byte("x")})
	wantRefused(t, "check-and-put", err, true, "cb_comment")
	wantRefused(t, "create", later.CreateTable(e.ctx, store.TableSpec{Name: "comment", Family: "cf"}), true, "cb_comment")
	wantRefused(t, "drop", later.DropTable(e.ctx, "comment"), true, "cb_comment")
	// The process that made the first instance asks afresh before a drop.
	wantRefused(t, "drop by the creator", e.st.DropTable(e.ctx, "comment"), true, "cb_comment")
	_, err = e.reopen(t, Options{Expect: []string{"user", "comment"}})
	wantRefused(t, "open expecting it", err, true, "cb_comment: it has no owner row", "before creating anything")

	reuse, err := e.reopen(t, Options{ReuseTables: true})
	if err != nil {
		t.Fatal(err)
	}
	wantRefused(t, "drop with --reuse-tables", reuse.DropTable(e.ctx, "comment"), true, "cb_comment")
	if got := e.engineRows(t, "cb_comment"); !slices.Equal(got, []string{"theirs"}) {
		t.Fatalf("rows of the recreated table %q; want only theirs", got)
	}
	if err := reuse.Mutate(e.ctx, "comment", put("reused", "x")); err != nil {
		t.Errorf("write with --reuse-tables: %v", err)
	}
	if got := e.engineRows(t, "cb_comment"); !slices.Equal(got, []string{"reused", "theirs"}) {
		t.Errorf("rows after --reuse-tables %q; want reused and theirs", got)
	}
}

// A mark written by an older commentbench (a family, no instance id) does
// not make a table the harness's: the refusal says so and how to proceed.
func TestMarkWithoutInstanceIsForeign(t *testing.T) {
	e := start(t, false)
	if err := e.st.c.CreateTable(e.ctx, "cb_"+Registry, []string{registryFamily}, nil); err != nil {
		t.Fatal(err)
	}
	if err := e.st.c.Mutate(e.ctx, "cb_"+Registry, []hbase.Mutation{{Row: []byte("comment"), Family: registryFamily,
		Cells: []hbase.Cell{{Qualifier: registryQual, Value: []byte("cf")}}}}); err != nil {
		t.Fatal(err)
	}
	e.someoneElse(t, "cb_comment")
	later, err := e.reopen(t, Options{})
	if err != nil {
		t.Fatal(err)
	}
	wantRefused(t, "write", later.Mutate(e.ctx, "comment", put("mine", "x")), true, "no instance id", "--reuse-tables", "by hand")
	wantRefused(t, "drop", later.DropTable(e.ctx, "comment"), true, "no instance id")
	if got := e.engineRows(t, "cb_comment"); !slices.Equal(got, []string{"theirs"}) {
		t.Errorf("rows %q; want only theirs", got)
	}
}

// When the cluster cannot say whether a table exists or whose it is, the
// store fails rather than take the table as absent: it marks nothing,
// creates nothing, writes nothing.
func TestOwnerUndecidedIsAnError(t *testing.T) {
	e := start(t, false)
	if err := e.st.CreateTable(e.ctx, store.TableSpec{Name: "mine", Family: "cf"}); err != nil {
		t.Fatal(err)
	}
	e.someoneElse(t, "cb_comment")

	e.cl.FailMethod("GetTableNames", wire.ExcIO)
	later, err := e.reopen(t, Options{})
	if err != nil {
		t.Fatal(err)
	}
	wantRefused(t, "create over a foreign table", later.CreateTable(e.ctx, store.TableSpec{Name: "comment", Family: "cf"}), false, "list tables", "cb_comment")
	wantRefused(t, "create a new table", later.CreateTable(e.ctx, store.TableSpec{Name: "fresh", Family: "cf"}), false, "cb_fresh")
	wantRefused(t, "write", later.Mutate(e.ctx, "comment", put("x", "x")), false, "cb_comment")
	wantRefused(t, "drop", later.DropTable(e.ctx, "mine"), false, "cb_mine")
	_, err = e.reopen(t, Options{Expect: []string{"fresh"}})
	wantRefused(t, "open expecting tables", err, false, "list tables")
	e.cl.FailMethod("GetTableNames", "")

	// Reading the registry or the owner row fails the same way.
	e.cl.FailMethod("Get", wire.ExcIO)
	wantRefused(t, "write while Get fails", later.Mutate(e.ctx, "mine", put("x", "x")), false, "cb_mine")
	e.cl.FailMethod("Get", "")

	if got := e.engineRows(t, "cb_"+Registry); !slices.Equal(got, []string{"mine"}) {
		t.Errorf("registry rows %q; want only mine's mark", got)
	}
	if got := e.engineRows(t, "cb_comment"); !slices.Equal(got, []string{"theirs"}) {
		t.Errorf("rows of cb_comment %q; want only theirs", got)
	}
	if _, err := e.eng.Family("cb_fresh"); err == nil {
		t.Error("cb_fresh was created while tables could not be listed")
	}
	wantRefused(t, "write once the cluster answers", later.Mutate(e.ctx, "comment", put("x", "x")), true, "cb_comment")
	if err := later.Mutate(e.ctx, "mine", put("x", "x")); err != nil {
		t.Errorf("the harness's own table once the cluster answers: %v", err)
	}
}

// A read-only store refuses every change itself: nothing reaches the
// cluster, even one that would take it.
func TestReadOnlyStoreSendsNoChange(t *testing.T) {
	e := start(t, false)
	if err := e.st.CreateTable(e.ctx, store.TableSpec{Name: "mine", Family: "cf"}); err != nil {
		t.Fatal(err)
	}
	if err := e.st.Mutate(e.ctx, "mine", put("r", "v")); err != nil {
		t.Fatal(err)
	}
	ro, err := e.reopen(t, Options{ReadOnly: true, Expect: []string{"mine", "other"}})
	if err != nil {
		t.Fatal(err)
	}
	before := e.cl.Calls()
	_, cerr := store.CheckAndPut(e.ctx, ro, "mine", []byte("r2"), []byte("q"), nil, store.Cell{Qualifier: []byte("q"), Value: []byte("v")})
	for what, err := range map[string]error{
		"create": ro.CreateTable(e.ctx, store.TableSpec{Name: "other", Family: "cf"}),
		"write":  ro.Mutate(e.ctx, "mine", put("r2", "v")),
		"check":  cerr,
		"drop":   ro.DropTable(e.ctx, "mine"),
	} {
		if !errors.Is(err, ErrReadOnly) {
			t.Errorf("%s on a read-only store: %v; want ErrReadOnly", what, err)
		}
	}
	if row, err := ro.Get(e.ctx, "mine", []byte("r")); err != nil || !row.Found() {
		t.Errorf("read on a read-only store: %+v, %v", row, err)
	}
	after := e.cl.Calls()
	for _, m := range []string{"Mutate", "Multi", "CreateTable", "DisableTable", "DeleteTable", "GetTableNames"} {
		if after[m] != before[m] {
			t.Errorf("%d %s calls reached the cluster from a read-only store", after[m]-before[m], m)
		}
	}
}

// The owner row is the store's, not the data's: no read returns it, and a
// scan's figures over one of the harness's tables are those of the same
// rows in a table without it.
func TestOwnerRowHidden(t *testing.T) {
	e := start(t, true)
	split := [][]byte{[]byte("p")}
	if err := e.st.CreateTable(e.ctx, store.TableSpec{Name: "mine", Family: "cf", SplitKeys: split}); err != nil {
		t.Fatal(err)
	}
	if err := e.st.c.CreateTable(e.ctx, "cb_bare", []string{"cf"}, split); err != nil {
		t.Fatal(err)
	}
	var rows []store.Mutation
	for i := range 40 {
		rows = append(rows, put(fmt.Sprintf("%c%02d", 'a'+i%26, i), "v"))
	}
	for _, tb := range []string{"mine", "bare"} {
		if err := e.st.Mutate(e.ctx, tb, rows...); err != nil {
			t.Fatal(err)
		}
	}
	if got := len(e.engineRows(t, "cb_mine")); got != 41 {
		t.Fatalf("the engine holds %d rows of cb_mine; want 40 and the owner row", got)
	}
	if r, err := e.st.Get(e.ctx, "mine", ownerRow); err != nil || r.Found() {
		t.Errorf("get of the owner row: %+v, %v; want nothing", r, err)
	}
	if rs, err := e.st.BatchGet(e.ctx, "mine", [][]byte{[]byte("a00"), ownerRow}); err != nil || !rs[0].Found() || rs[1].Found() {
		t.Errorf("batch get with the owner row: %+v, %v", rs, err)
	}
	scans := map[string]store.Scan{
		"forward":                  {},
		"forward limit":            {Limit: 50},
		"from a cursor to the end": {Filter: store.RowFilter{Op: store.GreaterOrEqual, Value: []byte("x")}, Limit: 10},
		"reversed":                 {Reversed: true},
		"reversed limit":           {Reversed: true, Limit: 7},
		"reversed prefix":          {Reversed: true, Limit: 3, Filter: store.PrefixFilter{Prefix: []byte("c")}},
		"reversed cursor":          {Reversed: true, Limit: 4, Filter: store.RowFilter{Op: store.LessOrEqual, Value: []byte("m")}},
		"reversed bounded":         {Reversed: true, Start: []byte("q"), Stop: []byte("b"), Limit: 5},
	}
	for name, sc := range scans {
		var got, want []string
		gm, err := e.st.Scan(e.ctx, "mine", sc, func(r store.Row) bool { got = append(got, string(r.Key)); return true })
		if err != nil {
			t.Fatal(err)
		}
		wm, err := e.st.Scan(e.ctx, "bare", sc, func(r store.Row) bool { want = append(want, string(r.Key)); return true })
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) || len(got) == 0 {
			t.Errorf("%s: rows %q; want %q", name, got, want)
		}
		if gm.RowsScanned != wm.RowsScanned || gm.RowsFiltered != wm.RowsFiltered {
			t.Errorf("%s: %d rows scanned, %d filtered; without the owner row %d, %d",
				name, gm.RowsScanned, gm.RowsFiltered, wm.RowsScanned, wm.RowsFiltered)
		}
	}
}
