package entry

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"commentbench/keys"
	"commentbench/store"
	"commentbench/store/embedded"
)

// fixture is a store with between's product table (which keeps products,
// comments and the product listing in one row) and the seed's
// product-comment table (a tall index: an entry is a row).
type fixture struct {
	ctx                   context.Context
	st                    store.Store
	wide, wideOther, tall *keys.TableKey
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	between, err := keys.Builtin("between")
	must(t, err)
	e, err := embedded.Open(embedded.Options{})
	must(t, err)
	t.Cleanup(func() { e.Close() })
	f := &fixture{ctx: context.Background(), st: e, wide: between.Table(keys.ProductComment),
		wideOther: between.Table(keys.Comment), tall: keys.Seed.Table(keys.ProductComment)}
	for _, name := range []string{f.wide.Store, f.tall.Store} {
		must(t, e.CreateTable(f.ctx, store.TableSpec{Name: name, Family: "cf"}))
	}
	if f.wide.Store == f.tall.Store || !f.wide.Wide() || f.tall.Wide() || f.wideOther.Store != f.wide.Store {
		t.Fatalf("fixture: between's product listing %q (wide %v), its comments in %q; the seed's listing in %q (wide %v)",
			f.wide.Store, f.wide.Wide(), f.wideOther.Store, f.tall.Store, f.tall.Wide())
	}
	return f
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// key is the entry key of t for comment i on product prod.
func key(t *testing.T, tk *keys.TableKey, prod string, i int) []byte {
	t.Helper()
	k, err := tk.AppendKey(nil, &keys.Key{ProductID: prod, OrderID: fmt.Sprintf("Order%05d", i),
		Timestamp: 1_700_000_000_000 + int64(i), ContentLen: 10 + i})
	must(t, err)
	return k
}

// Entries put, read back by Get in request order (a key of no entry
// comes back empty), then one deleted: on a wide table only its column
// goes, and the row's other columns, other tables' entries among them,
// stay.
func TestPutGetDelete(t *testing.T) {
	f := newFixture(t)
	for _, tk := range []*keys.TableKey{f.wide, f.tall} {
		t.Run(fmt.Sprintf("wide=%v", tk.Wide()), func(t *testing.T) {
			a, b, c := key(t, tk, "ProductAAA", 1), key(t, tk, "ProductAAA", 2), key(t, tk, "ProductBBB", 3)
			must(t, f.st.Mutate(f.ctx, tk.Store, Put(tk, a, []byte("va")), Put(tk, b, []byte("vb")), Put(tk, c, []byte("vc"))))
			other := key(t, f.wideOther, "ProductAAA", 1)
			if tk.Wide() {
				must(t, f.st.Mutate(f.ctx, tk.Store, Put(f.wideOther, other, []byte("comment"))))
			}
			absent := key(t, tk, "ProductAAA", 9)
			got, err := Get(f.ctx, f.st, tk, [][]byte{c, a, absent, []byte("short"), b})
			must(t, err)
			want := []string{"vc", "va", "", "", "vb"}
			for i, r := range got {
				v, _ := r.Value(keys.Qualifier)
				if string(v) != want[i] || len(r.Cells) != map[bool]int{true: 1, false: 0}[want[i] != ""] {
					t.Errorf("get %d: %q in %d cells, want %q", i, v, len(r.Cells), want[i])
				}
			}
			if !bytes.Equal(got[0].Key, c) || !bytes.Equal(got[3].Key, []byte("short")) {
				t.Errorf("get keys %x, %q: want the keys asked for", got[0].Key, got[3].Key)
			}
			must(t, f.st.Mutate(f.ctx, tk.Store, Delete(tk, a)))
			got, err = Get(f.ctx, f.st, tk, [][]byte{a, b})
			must(t, err)
			if len(got[0].Cells) != 0 || len(got[1].Cells) != 1 {
				t.Errorf("after deleting a: a has %d cells, b %d; want 0 and 1", len(got[0].Cells), len(got[1].Cells))
			}
			if tk.Wide() {
				kept, err := Get(f.ctx, f.st, f.wideOther, [][]byte{other})
				must(t, err)
				if v, _ := kept[0].Value(keys.Qualifier); string(v) != "comment" {
					t.Errorf("deleting a listing entry took the comment in its row with it: %q", v)
				}
			}
		})
	}
}

// countingStore counts the reads a Get issues.
type countingStore struct {
	store.Store
	reads, rows int
}

func (c *countingStore) Read(ctx context.Context, table string, reads []store.Read) ([]store.Row, store.ScanMetrics, error) {
	c.reads++
	c.rows += len(reads)
	return c.Store.Read(ctx, table, reads)
}

// A wide Get reads each row once, whatever number of its columns it asks.
func TestGetReadsARowOnce(t *testing.T) {
	f := newFixture(t)
	var ks [][]byte
	for i := range 5 {
		prod := []string{"ProductAAA", "ProductBBB"}[i%2]
		k := key(t, f.wide, prod, i)
		must(t, f.st.Mutate(f.ctx, f.wide.Store, Put(f.wide, k, []byte{byte(i)})))
		ks = append(ks, k)
	}
	cs := &countingStore{Store: f.st}
	got, err := Get(f.ctx, cs, f.wide, ks)
	must(t, err)
	if cs.reads != 1 || cs.rows != 2 {
		t.Errorf("%d calls reading %d rows; want one call of the 2 rows", cs.reads, cs.rows)
	}
	for i, r := range got {
		if v, _ := r.Value(keys.Qualifier); !bytes.Equal(v, []byte{byte(i)}) {
			t.Errorf("entry %d: %x", i, v)
		}
	}
	cs.reads = 0
	if _, err := Get(f.ctx, cs, f.wide, [][]byte{[]byte("no entry's key")}); err != nil || cs.reads != 0 {
		t.Errorf("a get of no entry's key: %v, %d reads; want none", err, cs.reads)
	}
}

// Each hands on a row's entries of one table, in column order, as rows of
// the seed's shape, and skips the row's other columns: the owner's own,
// another table's entries, the collection's count.
func TestEachOfAWideRow(t *testing.T) {
	f := newFixture(t)
	var want [][]byte
	for i := range 3 {
		k := key(t, f.wide, "ProductAAA", i)
		must(t, f.st.Mutate(f.ctx, f.wide.Store, Put(f.wide, k, []byte{byte(i)}),
			Put(f.wideOther, key(t, f.wideOther, "ProductAAA", i), []byte("comment"))))
		want = append(want, k)
	}
	row := f.wide.Row(want[0])
	must(t, f.st.Mutate(f.ctx, f.wide.Store, store.Put(row, store.Cell{Qualifier: []byte("p"), Value: []byte("product")},
		store.Cell{Qualifier: f.wide.Meta, Value: []byte{0, 0, 0, 0, 0, 0, 0, 3}})))
	r, err := f.st.Get(f.ctx, f.wide.Store, row)
	must(t, err)
	if len(r.Cells) != 8 {
		t.Fatalf("the row holds %d cells, want 8", len(r.Cells))
	}
	var got [][]byte
	Each(f.wide, r, func(e store.Row) bool {
		v, _ := e.Value(keys.Qualifier)
		if len(e.Cells) != 1 || len(v) != 1 {
			t.Errorf("entry %x: cells %+v", e.Key, e.Cells)
		}
		got = append(got, e.Key)
		return true
	})
	if len(got) != 3 {
		t.Fatalf("%d entries, want 3", len(got))
	}
	for i := range got { // revTs leads: the newest, the last put, first
		if !bytes.Equal(got[i], want[2-i]) {
			t.Errorf("entry %d: %x, want %x", i, got[i], want[2-i])
		}
	}
	n := 0
	if more := Each(f.wide, r, func(store.Row) bool { n++; return false }); more || n != 1 {
		t.Errorf("a yield that wants no more: called %d times, more %v", n, more)
	}
}

// A tall table's row is one entry, when it is one: a row of another width
// or with no value in the seed's column is not.
func TestEachOfATallRow(t *testing.T) {
	f := newFixture(t)
	k := key(t, f.tall, "ProductAAA", 1)
	for _, c := range []struct {
		r    store.Row
		want int
	}{
		{store.Row{Key: k, Cells: []store.Cell{{Qualifier: keys.Qualifier, Value: []byte("v")}}}, 1},
		{store.Row{Key: k[:len(k)-1], Cells: []store.Cell{{Qualifier: keys.Qualifier, Value: []byte("v")}}}, 0},
		{store.Row{Key: k, Cells: []store.Cell{{Qualifier: []byte("x"), Value: []byte("v")}}}, 0},
	} {
		n := 0
		if !Each(f.tall, c.r, func(store.Row) bool { n++; return true }) || n != c.want {
			t.Errorf("row %x %+v: %d entries, want %d", c.r.Key, c.r.Cells, n, c.want)
		}
	}
}

// Of tells a table's columns from the other columns of a row it shares.
func TestOf(t *testing.T) {
	f := newFixture(t)
	k := key(t, f.wide, "ProductAAA", 1)
	row, col := f.wide.Row(k), f.wide.Column(k)
	for _, c := range []struct {
		name   string
		row, q []byte
		want   bool
	}{
		{"its entry", row, col, true},
		{"a row of another width", append(row, 'x'), col, false},
		{"a column one byte short", row, col[:len(col)-1], false},
		{"another table's column", row, f.wideOther.Column(key(t, f.wideOther, "ProductAAA", 1)), false},
		{"the count", row, f.wide.Meta, false},
		{"the owner's own", row, []byte("p"), false},
	} {
		if got := Of(f.wide, c.row, c.q); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	tk := f.tall.Row(key(t, f.tall, "ProductAAA", 1))
	if !Of(f.tall, tk, keys.Qualifier) || Of(f.tall, tk, []byte("x")) || Of(f.tall, tk[1:], keys.Qualifier) {
		t.Error("a tall table's entry is its row's one column q, at its width")
	}
}

// FromCell makes the entry key the row and then the column, and keeps the
// cell's value and version.
func TestFromCell(t *testing.T) {
	e := FromCell([]byte("row"), store.Cell{Qualifier: []byte("col"), Value: []byte("v"), Timestamp: 42})
	if string(e.Key) != "rowcol" || len(e.Cells) != 1 || string(e.Cells[0].Qualifier) != string(keys.Qualifier) ||
		string(e.Cells[0].Value) != "v" || e.Cells[0].Timestamp != 42 {
		t.Errorf("FromCell: %q %+v", e.Key, e.Cells)
	}
}

// A scan of entries reads a batch of cells at a time, and keeps the rest
// of what it was asked.
func TestScanOf(t *testing.T) {
	sc := ScanOf(newFixture(t).wide, store.Scan{Start: []byte("a"), Limit: 7})
	if sc.Batch != Batch || string(sc.Start) != "a" || sc.Limit != 7 {
		t.Errorf("ScanOf: %+v", sc)
	}
}
