package nop

import (
	"context"
	"testing"

	"commentbench/store"
)

func TestWriteThenRead(t *testing.T) {
	s, ctx := New(), context.Background()
	if err := s.Mutate(ctx, "order", store.Put([]byte("o1"), store.Cell{Qualifier: []byte("q"), Value: []byte("v")})); err != nil {
		t.Fatal(err)
	}
	r, _ := s.Get(ctx, "order", []byte("o1"))
	if v, ok := r.Value([]byte("q")); !ok || string(v) != "v" {
		t.Fatalf("read back %+v", r)
	}
	if r, _ := s.Get(ctx, "user", []byte("o1")); r.Found() {
		t.Fatal("a row of another table was returned")
	}
	s.Mutate(ctx, "order", store.Delete([]byte("o1")))
	if r, _ := s.Get(ctx, "order", []byte("o1")); r.Found() {
		t.Fatal("deleted row still found")
	}
}

// Calls counts what the harness asked, one per call however many rows it
// carries: a CheckAndPut or a BatchGet is one call, not the gets inside it.
func TestCallsCountsEachCallOnce(t *testing.T) {
	ctx := context.Background()
	s := New()
	row := []byte("r")
	put := store.Put(row, store.Cell{Qualifier: []byte("q"), Value: []byte("v")})
	_ = s.Mutate(ctx, "t", put, put)
	_, _ = store.CheckAndPut(ctx, s, "t", row, []byte("q"), []byte("v"), store.Cell{Qualifier: []byte("q"), Value: []byte("w")})
	_, _ = s.Get(ctx, "t", row)
	_, _ = s.BatchGet(ctx, "t", [][]byte{row, row, row})
	_, _ = s.Scan(ctx, "t", store.Scan{}, func(store.Row) bool { return true })
	_, _ = s.ListTables(ctx)
	if got := s.Calls(); got != 5 {
		t.Fatalf("Calls() = %d after 5 data calls, want 5", got)
	}
}

// The store measures the harness, so a put costs no allocation: a slot
// keeps the mutation it is handed.
func TestPutDoesNotAllocate(t *testing.T) {
	s, ctx := New(), context.Background()
	muts := []store.Mutation{store.Put([]byte("o1"), store.Cell{Qualifier: []byte("q"), Value: []byte("v")})}
	if n := testing.AllocsPerRun(100, func() { s.Mutate(ctx, "order", muts...) }); n != 0 {
		t.Errorf("a put allocates %v times, want 0", n)
	}
	if r, _ := s.Get(ctx, "order", []byte("o1")); !r.Found() || string(r.Cells[0].Value) != "v" {
		t.Fatalf("read back %+v", r)
	}
}

// CheckAndPut puts only on an absent cell when it expects none, and only
// on the value it expects otherwise.
func TestCheckAndPut(t *testing.T) {
	s, ctx := New(), context.Background()
	row, q := []byte("r"), []byte("q")
	put := func(expected, v string) bool {
		var exp []byte
		if expected != "" {
			exp = []byte(expected)
		}
		ok, err := store.CheckAndPut(ctx, s, "t", row, q, exp, store.Cell{Qualifier: q, Value: []byte(v)})
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if !put("", "a") {
		t.Fatal("expecting no cell on an empty row: not put")
	}
	if put("", "b") {
		t.Fatal("expecting no cell where one is: put")
	}
	if put("x", "b") {
		t.Fatal("expecting x where a is: put")
	}
	if !put("a", "b") {
		t.Fatal("expecting a where a is: not put")
	}
	if r, _ := s.Get(ctx, "t", row); string(r.Cells[0].Value) != "b" {
		t.Fatalf("after the puts: %+v, want b", r)
	}
}

// A Read selects from what the slot kept, and counts, as the other
// backends do, a row only when the read selected cells of it.
func TestRead(t *testing.T) {
	s, ctx := New(), context.Background()
	put := store.Put([]byte("r"), store.Cell{Qualifier: []byte("a"), Value: []byte("1")}, store.Cell{Qualifier: []byte("b"), Value: []byte("2")})
	if err := s.Mutate(ctx, "t", put); err != nil {
		t.Fatal(err)
	}
	rows, m, err := s.Read(ctx, "t", []store.Read{
		{Row: []byte("r"), Slice: &store.Slice{Start: []byte("b")}},
		{Row: []byte("r"), Columns: [][]byte{[]byte("c")}},
		{Row: []byte("missing")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || len(rows[0].Cells) != 1 || string(rows[0].Cells[0].Value) != "2" || rows[1].Found() || rows[2].Found() {
		t.Fatalf("rows %+v", rows)
	}
	if m != (store.ScanMetrics{RowsScanned: 1, CellsScanned: 1}) {
		t.Fatalf("metrics %+v, want one row and one cell", m)
	}
}
