package hbase

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"testing"

	"commentbench/hbase/wire"
)

// BatchGetRows sends each Get with its columns and filter, one Multi per
// server, and answers in request order.
func TestBatchGetRows(t *testing.T) {
	tc := startCluster(t)
	ctx := context.Background()
	columnsTable(t, tc, "bg")
	wideRow(t, tc.c, "bg", "s1", "c", 4, 100) // in the second region
	before := tc.cl.Calls()
	rs, err := tc.c.BatchGetRows(ctx, "bg", []Get{
		{Row: []byte("s1"), Filter: ColumnPaginationFilter{Limit: 2, Offset: 1}},
		{Row: []byte("r1"), Columns: []Column{{Family: "f", Qualifiers: [][]byte{[]byte("c07"), []byte("c03")}}}},
		{Row: []byte("nope")},
		{Row: []byte("r1"), Filter: ColumnRangeFilter{Min: []byte("c08"), MinInclusive: true}},
		{Row: []byte("r2")},
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rs {
		got = append(got, string(r.Row)+"{"+quals(r)+"}")
	}
	if want := "s1{c01 c02} r1{c03 c07} nope{-} r1{c08 c09} r2{x00 x01 x02}"; joinStrings(got) != want {
		t.Fatalf("got %s\nwant %s", joinStrings(got), want)
	}
	if n := tc.cl.Calls()["Multi"] - before["Multi"]; n != 1 {
		t.Errorf("%d Multi calls, want 1 (one server)", n)
	}
	if _, err := tc.c.BatchGetRows(ctx, "bg", []Get{{Row: []byte("r1"), Filter: ColumnPaginationFilter{Limit: -1}}}); err == nil {
		t.Error("a get with a bad filter was sent")
	}
}

func joinStrings(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out
}

// A RowMutations of a Put and a Delete goes as one atomic RegionAction:
// both apply, the Delete removing every version of its columns; one that
// fails applies nothing, and the others of the batch apply.
func TestMutateRowsAtomic(t *testing.T) {
	tc := startCluster(t)
	ctx := context.Background()
	if err := tc.c.CreateTableSchema(ctx, "rm", []FamilySchema{{Name: "f", Versions: 3}}, nil); err != nil {
		t.Fatal(err)
	}
	for _, ts := range []int64{100, 200} {
		old := Mutation{Row: []byte("r"), Family: "f", Cells: []Cell{{Qualifier: []byte("a"), Value: []byte("old"), Timestamp: ts}, {Qualifier: []byte("b"), Value: []byte("old"), Timestamp: ts}}}
		if err := tc.c.Mutate(ctx, "rm", []Mutation{old}); err != nil {
			t.Fatal(err)
		}
	}
	before := tc.cl.Calls()
	rm := RowMutations{Row: []byte("r"), Mutations: []Mutation{
		{Family: "f", Cells: []Cell{{Qualifier: []byte("c"), Value: []byte("new")}}},
		{Family: "f", Cells: []Cell{{Qualifier: []byte("a"), Type: wire.TypeDeleteColumn}}},
	}}
	if err := tc.c.MutateRows(ctx, "rm", []RowMutations{rm}); err != nil {
		t.Fatal(err)
	}
	if after := tc.cl.Calls(); after["Multi"]-before["Multi"] != 1 || after["Mutate"] != before["Mutate"] {
		t.Errorf("calls %v, want one Multi", after)
	}
	if got := getRow(t, tc.c, "rm", Get{Row: []byte("r"), MaxVersions: 3}); got != "f:b=old f:b=old f:c=new" {
		t.Errorf("after the row mutations: %s", got)
	}

	bad := RowMutations{Row: []byte("s"), Mutations: []Mutation{
		{Family: "f", Cells: []Cell{{Qualifier: []byte("x"), Value: []byte("v")}}},
		{Family: "nope", Cells: []Cell{{Qualifier: []byte("y"), Type: wire.TypeDeleteColumn}}},
	}}
	good := RowMutations{Row: []byte("t"), Mutations: []Mutation{
		{Family: "f", Cells: []Cell{{Qualifier: []byte("x"), Value: []byte("v")}}},
		{Family: "f", Cells: []Cell{{Qualifier: []byte("y"), Type: wire.TypeDeleteColumn}}},
	}}
	err := tc.c.MutateRows(ctx, "rm", []RowMutations{bad, good})
	if !errors.Is(err, ErrNoSuchFamily) {
		t.Fatalf("a row mutation on a missing family: %v", err)
	}
	if got := getRow(t, tc.c, "rm", Get{Row: []byte("s")}); got != "" {
		t.Errorf("the failed row mutations applied %s", got)
	}
	if got := getRow(t, tc.c, "rm", Get{Row: []byte("t")}); got != "f:x=v" {
		t.Errorf("the other row mutations: %s", got)
	}
	if err := tc.c.MutateRows(ctx, "rm", []RowMutations{{Row: []byte("u")}}); err == nil {
		t.Error("empty row mutations sent")
	}
}

// An Increment in a RowMutations (HBase 2.4, HBASE-25242) adds to its
// counters with the row's Put, in one atomic RegionAction; a malformed
// delta is refused before anything is sent.
func TestMutateRowsIncrement(t *testing.T) {
	tc := startCluster(t)
	ctx := context.Background()
	if err := tc.c.CreateTableSchema(ctx, "ri", []FamilySchema{{Name: "f"}}, nil); err != nil {
		t.Fatal(err)
	}
	delta := func(n int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(n)) }
	for i, d := range []int64{3, 4} {
		rm := RowMutations{Row: []byte("r"), Mutations: []Mutation{
			{Family: "f", Cells: []Cell{{Qualifier: fmt.Appendf(nil, "e%d", i), Value: []byte("x")}}},
			{Family: "f", Increment: true, Cells: []Cell{{Qualifier: []byte("n"), Value: delta(d)}}},
		}}
		if err := tc.c.MutateRows(ctx, "ri", []RowMutations{rm}); err != nil {
			t.Fatal(err)
		}
	}
	r, err := tc.c.Get(ctx, "ri", []byte("r"), "f")
	if err != nil {
		t.Fatal(err)
	}
	if q := quals(r); q != "e0 e1 n" {
		t.Fatalf("row holds %s, want e0 e1 n", q)
	}
	for _, c := range r.Cells {
		if string(c.Qualifier) == "n" && binary.BigEndian.Uint64(c.Value) != 7 {
			t.Errorf("counter %d, want 3+4", binary.BigEndian.Uint64(c.Value))
		}
	}
	bad := RowMutations{Row: []byte("r"), Mutations: []Mutation{{Family: "f", Increment: true, Cells: []Cell{{Qualifier: []byte("n"), Value: []byte("x")}}}}}
	if err := tc.c.MutateRows(ctx, "ri", []RowMutations{bad}); err == nil {
		t.Error("an increment by a 1-byte delta was sent")
	}
}
