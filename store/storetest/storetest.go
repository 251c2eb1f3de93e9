// Package storetest holds the behaviour every store.Store must have, as
// tests each backend runs against itself: what the transactions and the
// verified index build on (a conditional change of one row, deletes at a
// timestamp) behaves alike on the embedded engine and through HBase's
// protocol. It is imported by tests only.
package storetest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"commentbench/store"
)

// CheckAndMutate: a change applies only when its condition holds, puts
// and deletes together; an absent or empty cell matches nil; a change
// that deletes the row or increments is refused. table is created by
// the test, with family "cf".
func CheckAndMutate(t *testing.T, st store.Store, table string) {
	ctx := context.Background()
	create(t, st, table)
	put(t, st, table, "r", "a", "1", "b", "2", "lock", "v1")
	cases := []struct {
		name        string
		q, expected string
		m           store.Mutation
		applied     bool
		want        string
	}{
		{"a condition that fails", "lock", "v0", change("r", []string{"a", "x"}, "b"), false, "a=1 b=2 lock=v1"},
		{"a condition on an absent cell that fails", "none", "v1", change("r", []string{"a", "x"}), false, "a=1 b=2 lock=v1"},
		{"puts and deletes under a condition that holds", "lock", "v1", change("r", []string{"a", "x", "lock", "v2", "c", "3"}, "b"), true, "a=x c=3 lock=v2"},
		{"nil matches an absent cell", "none", "", change("r", []string{"d", "4"}), true, "a=x c=3 d=4 lock=v2"},
		{"nil does not match a present one", "lock", "", change("r", []string{"d", "5"}), false, "a=x c=3 d=4 lock=v2"},
		{"a new row", "lock", "", change("n", []string{"lock", "v1", "a", "n"}), true, "a=n lock=v1"},
		{"the empty qualifier", "", "", change("e", []string{"", "L", "a", "1"}), true, "=L a=1"},
		{"a condition on the empty qualifier", "", "L", change("e", []string{"", "M"}, "a"), true, "=M"},
	}
	for _, c := range cases {
		ok, err := st.CheckAndMutate(ctx, table, []byte(c.q), bytesOrNil(c.expected), c.m)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := row(t, st, table, string(c.m.Row)); ok != c.applied || got != c.want {
			t.Errorf("%s: applied %v, row %q; want %v, %q", c.name, ok, got, c.applied, c.want)
		}
	}
	for _, bad := range []store.Mutation{
		{Row: []byte("r"), DeleteRow: true},
		{Row: []byte("r"), Increments: []store.Increment{{Qualifier: []byte("n"), Delta: 1}}},
	} {
		if ok, err := st.CheckAndMutate(ctx, table, []byte("lock"), []byte("v2"), bad); err == nil || ok {
			t.Errorf("%+v: applied %v, %v; want it refused", bad, ok, err)
		}
	}
	if got := row(t, st, table, "r"); got != "a=x c=3 d=4 lock=v2" {
		t.Errorf("after the refused changes: %q", got)
	}
}

// DeleteAt: a column delete at a timestamp hides the versions up to it and
// leaves a version stamped after it, and a put stamped after it later
// shows; Mutate and CheckAndMutate alike.
func DeleteAt(t *testing.T, st store.Store, table string) {
	ctx := context.Background()
	create(t, st, table)
	at := func(q, v string, ts int64) store.Cell {
		return store.Cell{Qualifier: []byte(q), Value: []byte(v), Timestamp: ts}
	}
	must(t, st.Mutate(ctx, table, store.Put([]byte("r"), at("a", "old", 100), at("b", "old", 100), at("c", "new", 300))))
	must(t, st.Mutate(ctx, table, store.Mutation{Row: []byte("r"), DeleteColumns: [][]byte{[]byte("a"), []byte("c")}, DeleteAt: 200}))
	if got := row(t, st, table, "r"); got != "b=old c=new" {
		t.Fatalf("after deleting a and c at 200: %q, want b=old c=new", got)
	}
	must(t, st.Mutate(ctx, table, store.Put([]byte("r"), at("a", "again", 201))))
	if got := row(t, st, table, "r"); got != "a=again b=old c=new" {
		t.Fatalf("a put at 201 after the delete at 200: %q", got)
	}
	ok, err := st.CheckAndMutate(ctx, table, []byte("a"), []byte("again"),
		store.Mutation{Row: []byte("r"), Cells: []store.Cell{at("d", "x", 250)}, DeleteColumns: [][]byte{[]byte("a"), []byte("b")}, DeleteAt: 150})
	if err != nil || !ok {
		t.Fatalf("check and delete at 150: %v, %v", ok, err)
	}
	if got := row(t, st, table, "r"); got != "a=again c=new d=x" {
		t.Errorf("after a conditional delete of a and b at 150: %q, want a=again c=new d=x", got)
	}
}

func create(t *testing.T, st store.Store, table string) {
	t.Helper()
	must(t, st.CreateTable(context.Background(), store.TableSpec{Name: table, Family: "cf"}))
}

func put(t *testing.T, st store.Store, table, r string, qv ...string) {
	t.Helper()
	must(t, st.Mutate(context.Background(), table, change(r, qv)))
}

// change puts the qualifier-value pairs of qv on row r and deletes del.
func change(r string, qv []string, del ...string) store.Mutation {
	m := store.Mutation{Row: []byte(r)}
	for i := 0; i+1 < len(qv); i += 2 {
		m.Cells = append(m.Cells, store.Cell{Qualifier: []byte(qv[i]), Value: []byte(qv[i+1])})
	}
	for _, q := range del {
		m.DeleteColumns = append(m.DeleteColumns, []byte(q))
	}
	return m
}

// row is row r's cells as q=v, space-separated.
func row(t *testing.T, st store.Store, table, r string) string {
	t.Helper()
	got, err := st.Get(context.Background(), table, []byte(r))
	must(t, err)
	var s []string
	for _, c := range got.Cells {
		s = append(s, fmt.Sprintf("%s=%s", c.Qualifier, c.Value))
	}
	return strings.Join(s, " ")
}

func bytesOrNil(s string) []byte {
	if s == "" {
		return nil
	}
	return []byte(s)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
