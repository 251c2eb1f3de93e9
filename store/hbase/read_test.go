package hbasestore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"commentbench/hbase"
	"commentbench/store"
)

// wideTable creates table t holding row "r" of columns c00..c09 and row
// "s" of x0..x2.
func wideTable(t *testing.T, e *env) {
	t.Helper()
	if err := e.st.CreateTable(e.ctx, store.TableSpec{Name: "t", Family: "cf", SplitKeys: [][]byte{[]byte("m")}}); err != nil {
		t.Fatal(err)
	}
	r := store.Mutation{Row: []byte("r")}
	for i := range 10 {
		r.Cells = append(r.Cells, store.Cell{Qualifier: fmt.Appendf(nil, "c%02d", i), Value: fmt.Appendf(nil, "v%d", i)})
	}
	s := store.Put([]byte("s"), store.Cell{Qualifier: []byte("x0"), Value: []byte("a")}, store.Cell{Qualifier: []byte("x1"), Value: []byte("b")},
		store.Cell{Qualifier: []byte("x2"), Value: []byte("c")})
	if err := e.st.Mutate(e.ctx, "t", r, s); err != nil {
		t.Fatal(err)
	}
}

func qualifiers(r store.Row) string {
	var q []string
	for _, c := range r.Cells {
		q = append(q, string(c.Qualifier))
	}
	return strings.Join(q, " ")
}

// Read returns what each read selects, in request order, as store.Select
// selects it from the whole row: named columns, or a slice by range,
// offset and limit, with one Get each in one Multi.
func TestRead(t *testing.T) {
	e := start(t, false)
	wideTable(t, e)
	reads := []store.Read{
		{Row: []byte("r"), Columns: [][]byte{[]byte("c03"), []byte("c01"), []byte("zz")}},
		{Row: []byte("r"), Slice: &store.Slice{Start: []byte("c02"), Stop: []byte("c06"), Offset: 1, Limit: 2}},
		{Row: []byte("r"), Slice: &store.Slice{Start: []byte("c08")}},
		{Row: []byte("r"), Slice: &store.Slice{Stop: []byte("c02")}},
		{Row: []byte("r"), Slice: &store.Slice{Limit: 2}},
		{Row: []byte("r"), Slice: &store.Slice{Offset: 8}},
		{Row: []byte("r"), Slice: &store.Slice{Start: []byte("c045"), Limit: 9}},
		{Row: []byte("s")},
		{Row: []byte("s"), Slice: &store.Slice{Start: []byte("c")}},
		{Row: []byte("nope")},
		{Row: []byte("r"), Columns: [][]byte{}},
	}
	want := []string{"c01 c03", "c03 c04", "c08 c09", "c00 c01", "c00 c01", "c08 c09", "c05 c06 c07 c08 c09", "x0 x1 x2", "x0 x1 x2", "", ""}
	full := map[string]store.Row{}
	for _, k := range []string{"r", "s", "nope"} {
		row, err := e.st.Get(e.ctx, "t", []byte(k))
		if err != nil {
			t.Fatal(err)
		}
		full[k] = row
	}
	before := e.cl.Calls()
	got, m, err := e.st.Read(e.ctx, "t", reads)
	if err != nil {
		t.Fatal(err)
	}
	cells := int64(0)
	for i, rd := range reads {
		if string(got[i].Key) != string(rd.Row) || qualifiers(got[i]) != want[i] {
			t.Errorf("read %d (%+v): %s %s, want %s", i, rd, got[i].Key, qualifiers(got[i]), want[i])
		}
		if sel := store.Select(full[string(rd.Row)], rd); !reflect.DeepEqual(sel.Cells, got[i].Cells) {
			t.Errorf("read %d: %v, but store.Select gives %v", i, got[i].Cells, sel.Cells)
		}
		cells += int64(len(got[i].Cells))
	}
	if m.RowsScanned != 9 || m.CellsScanned != cells {
		t.Errorf("metrics %+v, want 9 rows and %d cells", m, cells)
	}
	after := e.cl.Calls()
	if after["Multi"]-before["Multi"] != 1 || after["Get"] != before["Get"] {
		t.Errorf("calls %v after %v: want one Multi", after, before)
	}
	// One read is one Get.
	if got, _, err := e.st.Read(e.ctx, "t", reads[1:2]); err != nil || qualifiers(got[0]) != "c03 c04" || e.cl.Calls()["Get"] != after["Get"]+1 {
		t.Errorf("one read: %v %v", got, err)
	}
	if _, _, err := e.st.Read(e.ctx, "t", []store.Read{{Row: []byte("r"), Columns: [][]byte{[]byte("c")}, Slice: &store.Slice{}}}); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("columns and a slice: %v", err)
	}
	if _, _, err := e.st.Read(e.ctx, "absent", reads[:1]); !errors.Is(err, store.ErrTableNotFound) {
		t.Errorf("read of a missing table: %v", err)
	}
}

// Scan.Batch hands a wide row over in Rows of at most Batch cells with
// the same Key; the limit counts whole rows, CellsScanned the cells.
func TestScanBatch(t *testing.T) {
	e := start(t, false)
	wideTable(t, e)
	scan := func(sc store.Scan) (string, store.ScanMetrics) {
		t.Helper()
		var parts []string
		m, err := e.st.Scan(e.ctx, "t", sc, func(r store.Row) bool {
			parts = append(parts, fmt.Sprintf("%s:%s", r.Key, qualifiers(r)))
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(parts, "|"), m
	}
	got, m := scan(store.Scan{Batch: 4})
	if want := "r:c00 c01 c02 c03|r:c04 c05 c06 c07|r:c08 c09|s:x0 x1 x2"; got != want {
		t.Errorf("batch 4:\n got %s\nwant %s", got, want)
	}
	if m.RowsScanned != 2 || m.CellsScanned != 13 {
		t.Errorf("batch 4 metrics: %+v", m)
	}
	if got, m = scan(store.Scan{Batch: 4, Limit: 1}); got != "r:c00 c01 c02 c03|r:c04 c05 c06 c07|r:c08 c09" || m.CellsScanned != 10 {
		t.Errorf("batch 4, limit 1: %s %+v", got, m)
	}
	if got, m = scan(store.Scan{}); got != "r:c00 c01 c02 c03 c04 c05 c06 c07 c08 c09|s:x0 x1 x2" || m.CellsScanned != 13 {
		t.Errorf("whole rows: %s %+v", got, m)
	}
}

// DeleteColumns goes with the mutation's puts as HBase's RowMutations,
// one atomic RegionAction: every version of the columns goes, the puts
// land, or, when the action fails, nothing changes.
func TestMutateDeleteColumns(t *testing.T) {
	e := start(t, false)
	wideTable(t, e)
	// An older version of c00, which a delete of the newest alone would
	// bring back.
	if err := e.st.Mutate(e.ctx, "t", store.Put([]byte("r"), store.Cell{Qualifier: []byte("c00"), Value: []byte("old"), Timestamp: 1})); err != nil {
		t.Fatal(err)
	}
	before := e.cl.Calls()
	m := store.Mutation{Row: []byte("r"), Cells: []store.Cell{{Qualifier: []byte("n"), Value: []byte("new")}},
		DeleteColumns: [][]byte{[]byte("c00"), []byte("c01")}}
	if err := e.st.Mutate(e.ctx, "t", m, put("s", "plain")); err != nil {
		t.Fatal(err)
	}
	after := e.cl.Calls()
	if after["Multi"]-before["Multi"] != 1 || after["Mutate"] != before["Mutate"] {
		t.Errorf("calls %v after %v: want one Multi", after, before)
	}
	r, err := e.st.Get(e.ctx, "t", []byte("r"))
	if err != nil || qualifiers(r) != "c02 c03 c04 c05 c06 c07 c08 c09 n" {
		t.Fatalf("after the delete: %s %v", qualifiers(r), err)
	}
	all, err := e.st.c.GetRow(e.ctx, "cb_t", hbase.Get{Row: []byte("r"), MaxVersions: 10, Columns: []hbase.Column{{Family: "cf", Qualifiers: [][]byte{[]byte("c00")}}}})
	if err != nil || all.Found() {
		t.Fatalf("a version of c00 is left: %v %v", all.Cells, err)
	}
	if s, err := e.st.Get(e.ctx, "t", []byte("s")); err != nil || qualifiers(s) != "q x0 x1 x2" {
		t.Fatalf("the plain put of the same call: %s %v", qualifiers(s), err)
	}

	// A store whose registry says another family: the region action
	// fails on it, and neither the delete nor the put lands.
	mark := hbase.Mutation{Row: []byte("t"), Family: registryFamily, Cells: []hbase.Cell{{Qualifier: registryQual, Value: []byte("gone")}}}
	if err := e.st.c.Mutate(e.ctx, e.st.name(Registry), []hbase.Mutation{mark}); err != nil {
		t.Fatal(err)
	}
	other, err := e.reopen(t, Options{})
	if err != nil {
		t.Fatal(err)
	}
	m = store.Mutation{Row: []byte("r"), Cells: []store.Cell{{Qualifier: []byte("n2"), Value: []byte("x")}}, DeleteColumns: [][]byte{[]byte("c02")}}
	if err := other.Mutate(e.ctx, "t", m); !errors.Is(err, hbase.ErrNoSuchFamily) {
		t.Fatalf("a row mutation of a missing family: %v", err)
	}
	if r, err := e.st.Get(e.ctx, "t", []byte("r")); err != nil || qualifiers(r) != "c02 c03 c04 c05 c06 c07 c08 c09 n" {
		t.Fatalf("after the failed row mutation: %s %v", qualifiers(r), err)
	}
}

// A read past the cluster's max row size fails with store.ErrRowTooBig,
// naming the table and the row; a slice of the row, and a batched scan,
// read it.
func TestRowTooBig(t *testing.T) {
	e := start(t, false)
	wideTable(t, e)
	// Cells of r weigh 24 + 1 + 2 + 3 + 2 = 32 bytes.
	e.cl.SetMaxRowSize(5 * 32)
	_, err := e.st.Get(e.ctx, "t", []byte("r"))
	if !errors.Is(err, store.ErrRowTooBig) || !strings.Contains(err.Error(), `cb_t row "r"`) {
		t.Fatalf("get: %v", err)
	}
	_, _, err = e.st.Read(e.ctx, "t", []store.Read{{Row: []byte("s")}, {Row: []byte("r")}})
	if !errors.Is(err, store.ErrRowTooBig) || !strings.Contains(err.Error(), `cb_t row "r"`) {
		t.Fatalf("read: %v", err)
	}
	if _, err := e.st.BatchGet(e.ctx, "t", [][]byte{[]byte("r")}); !errors.Is(err, store.ErrRowTooBig) {
		t.Fatalf("batch get: %v", err)
	}
	_, err = e.st.Scan(e.ctx, "t", store.Scan{}, func(store.Row) bool { return true })
	if !errors.Is(err, store.ErrRowTooBig) || !strings.Contains(err.Error(), "cb_t") || !strings.Contains(err.Error(), "the row info: r/cf:c05/") {
		t.Fatalf("scan: %v", err)
	}
	got, _, err := e.st.Read(e.ctx, "t", []store.Read{{Row: []byte("r"), Slice: &store.Slice{Offset: 2, Limit: 5}}})
	if err != nil || qualifiers(got[0]) != "c02 c03 c04 c05 c06" {
		t.Fatalf("slice: %v %v", got, err)
	}
	n := 0
	if _, err := e.st.Scan(e.ctx, "t", store.Scan{Batch: 5}, func(r store.Row) bool { n += len(r.Cells); return true }); err != nil || n != 13 {
		t.Fatalf("batched scan: %d cells, %v", n, err)
	}
}

// A mutation that increments counters goes as HBase 2.4's RowMutations of
// its Put and an Increment: the entries and the count land together, and
// counted writes from many writers at once sum exactly.
func TestMutateIncrements(t *testing.T) {
	e := start(t, false)
	wideTable(t, e)
	count := func(row string) int64 {
		t.Helper()
		got, _, err := e.st.Read(e.ctx, "t", []store.Read{{Row: []byte(row), Columns: [][]byte{[]byte("n")}}})
		if err != nil {
			t.Fatal(err)
		}
		v, ok := got[0].Value([]byte("n"))
		if !ok {
			return 0
		}
		return int64(binary.BigEndian.Uint64(v))
	}
	m := store.Mutation{Row: []byte("r"), Cells: []store.Cell{{Qualifier: []byte("e1"), Value: []byte("x")}},
		DeleteColumns: [][]byte{[]byte("c00")}, Increments: []store.Increment{{Qualifier: []byte("n"), Delta: 5}}}
	if err := e.st.Mutate(e.ctx, "t", m); err != nil {
		t.Fatal(err)
	}
	row, err := e.st.Get(e.ctx, "t", []byte("r"))
	if err != nil {
		t.Fatal(err)
	}
	if _, put := row.Value([]byte("e1")); !put || count("r") != 5 {
		t.Fatalf("after a put, a delete and an increment of 5: e1 %v, count %d (%s)", put, count("r"), qualifiers(row))
	}
	if _, still := row.Value([]byte("c00")); still {
		t.Error("the deleted column is still there")
	}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 25 {
				q := fmt.Appendf(nil, "w%d-%02d", w, i)
				err := e.st.Mutate(e.ctx, "t", store.Mutation{Row: []byte("s"), Cells: []store.Cell{{Qualifier: q, Value: q}},
					Increments: []store.Increment{{Qualifier: []byte("n"), Delta: 1}}})
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if n := count("s"); n != 100 {
		t.Errorf("100 counted writes count %d", n)
	}
}
