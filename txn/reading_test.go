package txn

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"commentbench/store"
)

// leaveUndecided leaves a transaction prewritten on every row it writes (its
// writer stops before the commit).
func leaveUndecided(t *testing.T, st store.Store, write func(tx *Tx)) {
	t.Helper()
	m := New(st, Options{Clock: newClock().now, Step: func(step, steps int) error {
		if step == steps/2 { // the commit: every row prewritten
			return errInjected
		}
		return nil
	}})
	if _, err := m.Update(ctx, func(tx *Tx) error { write(tx); return nil }); !errors.Is(err, errInjected) {
		t.Fatalf("the writer: %v", err)
	}
}

func keysOf(rows []store.Row) string {
	var s []string
	for _, r := range rows {
		s = append(s, string(r.Key))
	}
	return strings.Join(s, " ")
}

func qualifiersOf(r store.Row) string {
	var s []string
	for _, c := range r.Cells {
		s = append(s, string(c.Qualifier))
	}
	return strings.Join(s, " ")
}

// A scan through Reading: locks gone, rows an undecided transaction
// creates unseen, and its limit counts the rows seen; a wide row read a
// batch at a time is seen the same in every batch.
func TestReadingScan(t *testing.T) {
	st := newStore(t, "a")
	for i := range 6 {
		must(t, st.Mutate(ctx, "a", store.Put(fmt.Appendf(nil, "r%02d", i*2), cell("q", "v"))))
	}
	_, err := New(st, Options{}).Update(ctx, func(tx *Tx) error { tx.Put("a", []byte("r02"), cell("q", "w")); return nil })
	must(t, err)
	leaveUndecided(t, st, func(tx *Tx) {
		tx.Put("a", []byte("r01"), cell("q", "new"))
		tx.Put("a", []byte("r03"), cell("q", "new"))
		tx.Put("a", []byte("r04"), cell("q", "changed"))
	})
	rd := Reading(st, New(st, Options{ReadOnly: true}))
	var rows []store.Row
	_, err = rd.Scan(ctx, "a", store.Scan{Limit: 3}, func(r store.Row) bool { rows = append(rows, r); return true })
	must(t, err)
	if got := keysOf(rows); got != "r00 r02 r04" {
		t.Errorf("scan of 3: %s, want r00 r02 r04 (r01 and r03 not written yet)", got)
	}
	for _, r := range rows {
		if got := qualifiersOf(r); got != "q" {
			t.Errorf("%s seen with columns %q", r.Key, got)
		}
	}
	if v, _ := rows[2].Value([]byte("q")); string(v) != "v" {
		t.Errorf("r04 seen as %q, want its value before the undecided change", v)
	}

	// One wide row, read 2 cells at a time: the columns the undecided
	// transaction adds are unseen in every batch.
	must(t, st.Mutate(ctx, "a", store.Put([]byte("w"), cell("c1", "1"), cell("c3", "3"), cell("c5", "5"))))
	leaveUndecided(t, st, func(tx *Tx) { tx.Put("a", []byte("w"), cell("c2", "x"), cell("c4", "x")) })
	var cols []string
	_, err = rd.Scan(ctx, "a", store.Scan{Start: []byte("w"), Batch: 2}, func(r store.Row) bool {
		cols = append(cols, qualifiersOf(r))
		return true
	})
	must(t, err)
	if got := strings.Join(cols, "|"); strings.ReplaceAll(got, "|", " ") != "c1 c3 c5" {
		t.Errorf("the wide row's batches show %q, want c1 c3 c5", got)
	}
}

// A slice through Reading with a limit shows that many columns a reader
// can see, reading further when some are unseen; named columns and gets
// see the row as it was.
func TestReadingRead(t *testing.T) {
	st := newStore(t, "a")
	var cells []store.Cell
	for i := range 6 {
		cells = append(cells, cell(fmt.Sprintf("c%02d", i*2), "v"))
	}
	must(t, st.Mutate(ctx, "a", store.Put([]byte("w"), cells...)))
	leaveUndecided(t, st, func(tx *Tx) { tx.Put("a", []byte("w"), cell("c01", "x"), cell("c03", "x"), cell("c04", "x")) })
	rd := Reading(st, New(st, Options{ReadOnly: true}))
	got, _, err := rd.Read(ctx, "a", []store.Read{
		{Row: []byte("w"), Slice: &store.Slice{Limit: 4}},
		{Row: []byte("w"), Columns: [][]byte{[]byte("c01"), []byte("c04")}},
		{Row: []byte("w")},
	})
	must(t, err)
	if q := qualifiersOf(got[0]); q != "c00 c02 c04 c06" {
		t.Errorf("a slice of 4: %s, want c00 c02 c04 c06", q)
	}
	if q := qualifiersOf(got[1]); q != "c04" {
		t.Errorf("named columns: %s, want c04 alone", q)
	}
	if v, _ := got[1].Value([]byte("c04")); string(v) != "v" {
		t.Errorf("c04 seen as %q, want its value before", v)
	}
	if q := qualifiersOf(got[2]); q != "c00 c02 c04 c06 c08 c10" {
		t.Errorf("the whole row: %s", q)
	}
	g, err := rd.Get(ctx, "a", []byte("w"))
	must(t, err)
	bg, err := rd.BatchGet(ctx, "a", [][]byte{[]byte("w"), []byte("none")})
	must(t, err)
	if qualifiersOf(g) != qualifiersOf(got[2]) || qualifiersOf(bg[0]) != qualifiersOf(got[2]) || bg[1].Found() {
		t.Errorf("get %q, batch get %q and %v", qualifiersOf(g), qualifiersOf(bg[0]), bg[1].Found())
	}
}
