package embedded

import (
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"commentbench/store"
)

// rowString renders a row as "fam:q=v@ts ...".
func rowString(r Row) string {
	var parts []string
	for _, c := range r.Cells {
		parts = append(parts, fmt.Sprintf("%s:%s=%s@%d", c.Family, c.Qualifier, c.Value, c.Timestamp))
	}
	return strings.Join(parts, " ")
}

func mustUpdate(t testing.TB, e *Engine, table, row string, muts ...RowMutation) {
	t.Helper()
	if err := e.UpdateRow(ctx, table, []byte(row), func(RowReader, int64) ([]RowMutation, error) { return muts, nil }); err != nil {
		t.Fatal(err)
	}
}

func puts(ts int64, fqv ...string) RowMutation {
	var m RowMutation
	for _, s := range fqv {
		f, rest, _ := strings.Cut(s, ":")
		q, v, _ := strings.Cut(rest, "=")
		m.Puts = append(m.Puts, Put{Family: f, Qualifier: []byte(q), Value: []byte(v), Timestamp: ts})
	}
	return m
}

func mustGetRow(t testing.TB, e *Engine, table, row string, rd Read) string {
	t.Helper()
	r, err := e.GetRow(ctx, table, []byte(row), rd)
	if err != nil {
		t.Fatal(err)
	}
	return rowString(r)
}

// A table with three families: cells come back in family order whatever
// the order they were written or declared in; reads and deletes take one
// family or all; the store.Store row methods see the default family only;
// the families survive a reopen.
func TestMultiFamilyTable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	e, err := Open(Options{Dir: dir, CreateIfMissing: true, Servers: 1, DisableSplits: true})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { e.Close() }()
	spec := store.TableSpec{Name: "t", Family: "b", Families: []string{"c", "b", "a"}}
	if err := e.CreateTable(ctx, spec); err != nil {
		t.Fatal(err)
	}
	mustUpdate(t, e, "t", "r1", puts(10, "c:q=c1", "a:q=a1", "b:q=b1", "b:p=b0"))
	mustUpdate(t, e, "t", "r2", puts(10, "a:q=only-a"))
	mustPut(t, e, "t", "r3", store.Cell{Qualifier: []byte("q"), Value: []byte("via-store"), Timestamp: 10})

	if got := mustGetRow(t, e, "t", "r1", Read{}); got != "a:q=a1@10 b:p=b0@10 b:q=b1@10 c:q=c1@10" {
		t.Errorf("all families: %s", got)
	}
	if got := mustGetRow(t, e, "t", "r1", Read{Families: []string{"c", "a"}}); got != "a:q=a1@10 c:q=c1@10" {
		t.Errorf("families a, c: %s", got)
	}
	if got := mustGetRow(t, e, "t", "r3", Read{}); got != "b:q=via-store@10" {
		t.Errorf("store.Store put lands in the default family: %s", got)
	}
	if got := cellsOf(mustGet(t, e, "t", "r1")); got != "p=b0,q=b1" {
		t.Errorf("store.Store Get sees the default family alone: %s", got)
	}
	if mustGet(t, e, "t", "r2").Found() {
		t.Error("a row with no cell in the default family is found by store.Store Get")
	}
	var keys []string
	if _, err := e.ScanRows(ctx, "t", store.Scan{}, Read{Families: []string{"b"}}, func(r Row) bool {
		keys = append(keys, string(r.Key))
		return true
	}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(keys, []string{"r1", "r3"}) {
		t.Errorf("scan of family b: %v; r2 has no cell there", keys)
	}

	// A DeleteFamily on a leaves b and c; a whole-row delete takes all.
	mustUpdate(t, e, "t", "r1", RowMutation{Deletes: []DeleteMarker{{Kind: DeleteFamily, Family: "a"}}})
	if got := mustGetRow(t, e, "t", "r1", Read{}); got != "b:p=b0@10 b:q=b1@10 c:q=c1@10" {
		t.Errorf("after DeleteFamily a: %s", got)
	}
	mustUpdate(t, e, "t", "r1", RowMutation{Deletes: []DeleteMarker{{Kind: DeleteColumn, Family: "b", Qualifier: []byte("q")}}})
	if got := mustGetRow(t, e, "t", "r1", Read{}); got != "b:p=b0@10 c:q=c1@10" {
		t.Errorf("after DeleteColumn b:q: %s", got)
	}
	if err := e.Mutate(ctx, "t", store.Delete([]byte("r1"))); err != nil {
		t.Fatal(err)
	}
	if got := mustGetRow(t, e, "t", "r1", Read{}); got != "" {
		t.Errorf("after a store.Store row delete: %s", got)
	}

	for _, bad := range []error{
		e.UpdateRow(ctx, "t", []byte("r"), func(RowReader, int64) ([]RowMutation, error) { return []RowMutation{puts(0, "x:q=v")}, nil }),
		func() error { _, err := e.GetRow(ctx, "t", []byte("r"), Read{Families: []string{"x"}}); return err }(),
		e.DeleteCells(ctx, "t", []byte("r"), DeleteMarker{Kind: DeleteFamily, Family: "x"}),
	} {
		if !errors.Is(bad, ErrNoSuchFamily) {
			t.Errorf("unknown family: %v, want ErrNoSuchFamily", bad)
		}
	}

	specs, err := e.ListTables(ctx)
	if err != nil || len(specs) != 1 || specs[0].Family != "b" || !slices.Equal(specs[0].Families, []string{"a", "b", "c"}) {
		t.Errorf("ListTables: %+v %v", specs, err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e, err = Open(Options{Dir: dir, Servers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if s, err := e.Schema("t"); err != nil || s.Default != "b" || !slices.Equal(s.Names(), []string{"a", "b", "c"}) {
		t.Errorf("schema after reopen: %+v %v", s, err)
	}
	if got := mustGetRow(t, e, "t", "r2", Read{}); got != "a:q=only-a@10" {
		t.Errorf("r2 after reopen: %s", got)
	}
}

func TestFamilySpecChecks(t *testing.T) {
	e := openMem(t, Options{})
	for _, spec := range []store.TableSpec{
		{Name: "t"},
		{Name: "t", Family: "x", Families: []string{"a", "b"}},
		{Name: "t", Families: []string{"a", "a"}},
		{Name: "t", Families: []string{"a", "b:c"}},
		{Name: "t", Families: []string{""}},
	} {
		if err := e.CreateTable(ctx, spec); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("CreateTable(%+v) = %v, want ErrInvalid", spec, err)
		}
	}
	if err := e.CreateTableWith(ctx, store.TableSpec{Name: "t", Family: "a"}, TableOptions{MaxVersions: map[string]int{"b": 2}}); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("VERSIONS for an unknown family: %v", err)
	}
}

// A one-family table without options writes its record, and every key, in
// the bytes the engine wrote before tables had families: the record is
// the id and the family, and the family byte of every key is 0.
func TestOneFamilyLayoutUnchanged(t *testing.T) {
	rec := tableRecord{id: 7, families: []family{{name: "cf"}}}
	if got := hex.EncodeToString(rec.encode()); got != "0702"+hex.EncodeToString([]byte("cf")) {
		t.Errorf("record %s", got)
	}
	want := "10" + "0000000000000007" + hex.EncodeToString([]byte("row")) + "0001" + "00" + "01" +
		hex.EncodeToString([]byte("q")) + "0001" + "fffffffffffffffa"
	if got := hex.EncodeToString(appendCellKey(nil, 7, []byte("row"), 0, []byte("q"), 5)); got != want {
		t.Errorf("cell key %s, want %s", got, want)
	}
	back, err := decodeTableRecord(rec.encode())
	if err != nil || len(back.families) != 1 || back.families[0].name != "cf" || back.id != 7 {
		t.Errorf("decoded %+v %v", back, err)
	}
	multi := tableRecord{id: 9, families: []family{{name: "a", maxVersions: 3}, {name: "b"}}, def: 1, cellTTL: true}
	back, err = decodeTableRecord(multi.encode())
	if err != nil || !slices.Equal(back.families, multi.families) || back.def != 1 || !back.cellTTL {
		t.Errorf("multi-family record round trip: %+v %v", back, err)
	}
}

// A data dir written by the engine before tables had several families
// (testdata/engine-v1, made by commit 330b696's engine: family cf, a split,
// several versions, each kind of delete marker, a check-and-put) reads
// exactly as that engine read it, and takes new writes.
func TestReadsEngineV1DataDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.CopyFS(dir, os.DirFS("testdata/engine-v1")); err != nil {
		t.Fatal(err)
	}
	e, err := Open(Options{Dir: dir, Servers: 2, DisableSplits: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	// What the old engine's ScanVersions printed over this data.
	want := []string{
		`"a": q=q-20@20 q=q-10@10 r=r-30@30 r=r-20@20 r=r-10@10`,
		`"b\x00x": q=q-30@30 r=r-30@30`,
		`"c": q=first@1000`,
		`"n": q=q-30@30 q=q-20@20 q=q-10@10 r=r-30@30 s=s-5@5`,
		`"z": q=q-30@30 q=q-10@10 r=r-30@30 r=r-10@10`,
	}
	var got []string
	if _, err := e.ScanRows(ctx, "t", store.Scan{}, Read{MaxVersions: 10}, func(r Row) bool {
		var cells []string
		for _, c := range r.Cells {
			if c.Family != "cf" {
				t.Errorf("family %q", c.Family)
			}
			cells = append(cells, fmt.Sprintf("%s=%s@%d", c.Qualifier, c.Value, c.Timestamp))
		}
		got = append(got, fmt.Sprintf("%q: %s", r.Key, strings.Join(cells, " ")))
		return true
	}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("old data reads\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if s, err := e.Schema("t"); err != nil || s.Default != "cf" || len(s.Families) != 1 || s.CellTTL {
		t.Errorf("schema %+v %v", s, err)
	}
	mustPut(t, e, "t", "a", cell("q", "new"))
	if got := cellsOf(mustGet(t, e, "t", "a")); got != "q=new,r=r-30" {
		t.Errorf("after a new put: %s", got)
	}
}

// Per-cell TTL: a cell is there until its timestamp plus TTL falls below
// the clock, then gone from every read, and an older version shows again;
// a put at the same coordinate without a TTL replaces the cell for good.
func TestCellTTL(t *testing.T) {
	clk := newClock(1000)
	e := openMem(t, Options{Now: clk.now})
	if err := e.CreateTableWith(ctx, store.TableSpec{Name: "t", Family: "f"}, TableOptions{CellTTL: true}); err != nil {
		t.Fatal(err)
	}
	mustPut(t, e, "t", "r", store.Cell{Qualifier: []byte("q"), Value: []byte("old"), Timestamp: 500})
	mustUpdate(t, e, "t", "r", RowMutation{Puts: []Put{{Qualifier: []byte("q"), Value: []byte("brief"), TTL: 100}}})
	mustUpdate(t, e, "t", "s", RowMutation{Puts: []Put{{Qualifier: []byte("q"), Value: []byte("brief"), Timestamp: 900, TTL: 100}}})

	if got := cellsOf(mustGet(t, e, "t", "r")); got != "q=brief" {
		t.Errorf("before expiry: %s", got)
	}
	clk.set(1100) // 1000 + 100 is not below 1100: still there
	if got := mustGetRow(t, e, "t", "r", Read{MaxVersions: 5}); got != "f:q=brief@1000 f:q=old@500" {
		t.Errorf("at the last ms: %s", got)
	}
	clk.set(1101)
	if got := mustGetRow(t, e, "t", "r", Read{MaxVersions: 5}); got != "f:q=old@500" {
		t.Errorf("after expiry: %s", got)
	}
	if got := cellsOf(mustGet(t, e, "t", "r")); got != "q=old" {
		t.Errorf("store.Store Get after expiry: %s", got)
	}
	if mustGet(t, e, "t", "s").Found() {
		t.Error("a row whose only cell expired is still found")
	}
	keys, _ := scanKeys(t, e, "t", store.Scan{})
	if !slices.Equal(keys, []string{"r"}) {
		t.Errorf("scan after expiry: %v", keys)
	}
	// Overwrite s's coordinate without a TTL: the cell lives on.
	mustUpdate(t, e, "t", "s", RowMutation{Puts: []Put{{Qualifier: []byte("q"), Value: []byte("kept"), Timestamp: 900}}})
	clk.set(5000)
	if got := cellsOf(mustGet(t, e, "t", "s")); got != "q=kept" {
		t.Errorf("overwritten without TTL: %s", got)
	}
	if ok, err := e.CheckAndPut(ctx, "t", []byte("s"), []byte("q"), []byte("kept"), cell("q", "swapped")); !ok || err != nil {
		t.Errorf("CheckAndPut on a CellTTL table: %v %v", ok, err)
	}

	plainTable := "p"
	mustCreate(t, e, plainTable)
	err := e.UpdateRow(ctx, plainTable, []byte("r"), func(RowReader, int64) ([]RowMutation, error) {
		return []RowMutation{{Puts: []Put{{Qualifier: []byte("q"), Value: []byte("v"), TTL: 5}}}}, nil
	})
	if !errors.Is(err, store.ErrInvalid) {
		t.Errorf("TTL on a table without CellTTL: %v", err)
	}
}

// A family's VERSIONS caps what a read returns of it, whatever it asks.
func TestFamilyMaxVersions(t *testing.T) {
	e := openMem(t, Options{})
	spec := store.TableSpec{Name: "t", Families: []string{"few", "many"}}
	if err := e.CreateTableWith(ctx, spec, TableOptions{MaxVersions: map[string]int{"few": 2}}); err != nil {
		t.Fatal(err)
	}
	for ts := int64(1); ts <= 4; ts++ {
		mustUpdate(t, e, "t", "r", puts(ts, fmt.Sprintf("few:q=%d", ts), fmt.Sprintf("many:q=%d", ts)))
	}
	if got := mustGetRow(t, e, "t", "r", Read{MaxVersions: 3}); got != "few:q=4@4 few:q=3@3 many:q=4@4 many:q=3@3 many:q=2@2" {
		t.Errorf("3 versions asked: %s", got)
	}
}

// UpdateRow is atomic per row: concurrent read-modify-writes lose nothing.
func TestUpdateRowAtomic(t *testing.T) {
	e := openMem(t, Options{})
	mustCreate(t, e, "t")
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				err := e.UpdateRow(ctx, "t", []byte("n"), func(read RowReader, now int64) ([]RowMutation, error) {
					r, err := read(Read{})
					if err != nil {
						return nil, err
					}
					n := 0
					if c, ok := r.Cell("cf", []byte("c")); ok {
						fmt.Sscan(string(c.Value), &n)
					}
					return []RowMutation{{Puts: []Put{{Qualifier: []byte("c"), Value: []byte(fmt.Sprint(n + 1))}}}}, nil
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if got := cellsOf(mustGet(t, e, "t", "n")); got != "c=400" {
		t.Errorf("counter %s, want 400", got)
	}
}

// A snapshot is the table as it was: later writes are not in it, a restore
// brings the table back to it, a dropped table comes back from it, and it
// outlives a reopen until deleted.
func TestSnapshots(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	open := func() *Engine {
		e, err := Open(Options{Dir: dir, CreateIfMissing: true, Servers: 2, DisableSplits: true})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	e := open()
	defer func() { e.Close() }()
	spec := store.TableSpec{Name: "t", Families: []string{"a", "b"}, SplitKeys: [][]byte{[]byte("m")}}
	if err := e.CreateTableWith(ctx, spec, TableOptions{MaxVersions: map[string]int{"a": 3}}); err != nil {
		t.Fatal(err)
	}
	mustUpdate(t, e, "t", "r", puts(10, "a:q=1", "b:q=1"))
	mustUpdate(t, e, "t", "z", puts(10, "a:q=z"))
	if err := e.Snapshot(ctx, "t", "s1"); err != nil {
		t.Fatal(err)
	}
	if err := e.Snapshot(ctx, "t", "s1"); !errors.Is(err, ErrSnapshotExists) {
		t.Errorf("second snapshot named s1: %v", err)
	}
	mustUpdate(t, e, "t", "r", puts(20, "a:q=2"))
	mustUpdate(t, e, "t", "n", puts(20, "b:q=new"))

	if err := e.RestoreSnapshot(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if got := mustGetRow(t, e, "t", "r", Read{MaxVersions: 5}); got != "a:q=1@10 b:q=1@10" {
		t.Errorf("r after restore: %s", got)
	}
	if got := mustGetRow(t, e, "t", "n", Read{}); got != "" {
		t.Errorf("a row written after the snapshot survived the restore: %s", got)
	}

	if err := e.DropTable(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	e = open()
	snaps, err := e.Snapshots()
	if err != nil || len(snaps) != 1 || snaps[0].Name != "s1" || snaps[0].Table != "t" ||
		!slices.Equal(snaps[0].Schema.Names(), []string{"a", "b"}) || len(snaps[0].SplitKeys) != 1 {
		t.Fatalf("snapshots after reopen: %+v %v", snaps, err)
	}
	if err := e.RestoreSnapshot(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if got := mustGetRow(t, e, "t", "z", Read{}); got != "a:q=z@10" {
		t.Errorf("z in the table brought back: %s", got)
	}
	if s, _ := e.Schema("t"); s.Families[0].MaxVersions != 3 {
		t.Errorf("schema brought back: %+v", s)
	}
	if rs, _ := e.Regions(ctx, "t"); len(rs) != 2 {
		t.Errorf("regions brought back: %d, want 2", len(rs))
	}
	if err := e.DeleteSnapshot("s1"); err != nil {
		t.Fatal(err)
	}
	if err := e.DeleteSnapshot("s1"); !errors.Is(err, ErrNoSnapshot) {
		t.Errorf("delete twice: %v", err)
	}
	if err := e.RestoreSnapshot(ctx, "s1"); !errors.Is(err, ErrNoSnapshot) {
		t.Errorf("restore of a deleted snapshot: %v", err)
	}
}

// With the balancer off a split leaves both daughters on the parent's
// server; turned on, it evens the servers out at once.
func TestSetBalancer(t *testing.T) {
	e := openMem(t, Options{Servers: 2, DisableSplits: true})
	mustCreate(t, e, "t")
	for i := range 20 {
		mustPut(t, e, "t", fmt.Sprintf("r%02d", i), cell("q", "v"))
	}
	if prev, err := e.SetBalancer(false); !prev || err != nil {
		t.Fatalf("balancer was on: %v %v", prev, err)
	}
	if err := e.SplitRegion(ctx, "t", []byte("r10")); err != nil {
		t.Fatal(err)
	}
	rs, _ := e.Regions(ctx, "t")
	if len(rs) != 2 || rs[0].Server != rs[1].Server {
		t.Fatalf("balancer off: %v", rs)
	}
	if prev, err := e.SetBalancer(true); prev || err != nil {
		t.Fatalf("balancer was off: %v %v", prev, err)
	}
	if rs, _ = e.Regions(ctx, "t"); rs[0].Server == rs[1].Server {
		t.Fatalf("balancer on: %v", rs)
	}
}
