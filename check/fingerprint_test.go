package check

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"commentbench/keys"
	"commentbench/model"
)

// sumOf sums rows with whole keys as groups.
func sumOf(rows ...[2]string) *sums {
	s := newSumsOf(1<<10, 16) // a few buckets: a sum the size of verify's costs the property test its thousands
	for _, r := range rows {
		s.add([]byte(r[0]), []byte(r[1]))
	}
	return s
}

func (s *sums) same(t *sums) bool {
	join, _ := s.unproved(t)
	return join == nil
}

// Two lists of rows sum alike exactly when they hold the same rows, in
// any order: every way an index can differ from what its comments call
// for (a row missing, added, moved, pointing elsewhere, two rows' values
// swapped, a row twice where another should be) shows.
func TestFingerprintTellsRowsApart(t *testing.T) {
	base := [][2]string{{"k1", "c1"}, {"k2", "c2"}, {"k3", "c3"}}
	cases := []struct {
		name string
		rows [][2]string
		same bool
	}{
		{"the same rows", base, true},
		{"another order", [][2]string{{"k3", "c3"}, {"k1", "c1"}, {"k2", "c2"}}, true},
		{"a row missing", base[:2], false},
		{"a row more", append(base[:3:3], [2]string{"k4", "c4"}), false},
		{"two values swapped", [][2]string{{"k1", "c2"}, {"k2", "c1"}, {"k3", "c3"}}, false},
		{"a row twice, another missing", [][2]string{{"k1", "c1"}, {"k1", "c1"}, {"k3", "c3"}}, false},
		{"the key and value split elsewhere", [][2]string{{"k1c", "1"}, {"k2", "c2"}, {"k3", "c3"}}, false},
		{"a value empty", [][2]string{{"k1", ""}, {"k2", "c2"}, {"k3", "c3"}}, false},
	}
	want := sumOf(base...)
	for _, c := range cases {
		if got := sumOf(c.rows...).same(want); got != c.same {
			t.Errorf("%s: same %v, want %v", c.name, got, c.same)
		}
	}
}

// A property: random multisets of rows, each compared with itself
// shuffled and with itself changed in one row, sum alike and apart.
func TestFingerprintProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	row := func() [2]string {
		k := make([]byte, 1+rng.IntN(6))
		v := make([]byte, rng.IntN(4))
		for i := range k {
			k[i] = byte('a' + rng.IntN(3))
		}
		for i := range v {
			v[i] = byte('a' + rng.IntN(3))
		}
		return [2]string{string(k), string(v)}
	}
	for range 2000 {
		rows := make([][2]string, 1+rng.IntN(12))
		for i := range rows {
			rows[i] = row()
		}
		shuffled := append([][2]string(nil), rows...)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		if !sumOf(shuffled...).same(sumOf(rows...)) {
			t.Fatalf("%q shuffled sums apart from itself", rows)
		}
		changed := append([][2]string(nil), rows...)
		i := rng.IntN(len(changed))
		r := row()
		if r == changed[i] {
			continue
		}
		changed[i] = r
		if multiset(changed) != multiset(rows) && sumOf(changed...).same(sumOf(rows...)) {
			t.Fatalf("%q and %q sum alike", rows, changed)
		}
	}
}

func multiset(rows [][2]string) string {
	m := map[[2]string]int{}
	for _, r := range rows {
		m[r]++
	}
	var b bytes.Buffer
	for _, k := range sortedKeys(m) {
		b.WriteString(k[0] + "\x00" + k[1] + "\x00" + string(rune('0'+m[k])) + "\x00")
	}
	return b.String()
}

func sortedKeys(m map[[2]string]int) [][2]string {
	var ks [][2]string
	for k := range m {
		ks = append(ks, k)
	}
	for i := range ks { // a few keys: insertion sort
		for j := i; j > 0 && ks[j][0]+"\x00"+ks[j][1] < ks[j-1][0]+"\x00"+ks[j-1][1]; j-- {
			ks[j], ks[j-1] = ks[j-1], ks[j]
		}
	}
	return ks
}

func (d *dataset) scansOf(o Options) (Report, map[string]int) {
	d.t.Helper()
	st := &scanCounter{Store: d.st}
	o.Layout, o.MemLimit, o.TempDir = d.layout, 4<<10, d.t.TempDir()
	rep, err := Run(d.ctx, st, o)
	must(d.t, err)
	return rep, st.n
}

// Consistent indexes are proved by their sums: every table is read once,
// and each index reports every row its comment's own.
func TestConsistentIndexesReadOnce(t *testing.T) {
	for _, name := range keys.BuiltinNames() {
		t.Run(name, func(t *testing.T) {
			d := newDataset(t, builtin(t, name))
			rep, scans := d.scansOf(Options{Spread: true})
			if !rep.Consistent {
				t.Fatalf("verdict %q", rep.Verdict)
			}
			// A store table is read once for each table kept in it, and once
			// more for each count kept there; the orders once more when the
			// comments do not come in their orders' key order (the live
			// join ends and they are sorted and joined after).
			l := d.layout
			for _, table := range l.StoreTables() {
				want := 0
				for _, tk := range l.InStore(table) {
					want++
					if tk.Meta != nil {
						want++
					}
				}
				if table == keys.Order && l.Table(keys.Comment).Parts[0].Field != keys.FieldOrderID {
					want++
				}
				if scans[table] != want {
					t.Errorf("%s read %d times, want %d: %v", table, scans[table], want, scans)
				}
			}
			for _, ix := range rep.Indexes {
				if ix.Rows != 36 || ix.Referenced != 36 {
					t.Errorf("%s: %d rows, %d referenced, want 36 and 36", ix.Table, ix.Rows, ix.Referenced)
				}
			}
		})
	}
}

// Two index rows with their values swapped leave every count as it was,
// and are still two mismatched rows: the sums tell that index apart and
// only it is joined, reading the comments a second time and it once more
// (and, for the rows at fault, the comments a third, to tell a mismatched
// row from an undefined one). The spread counts each table once.
func TestSwappedIndexValuesJoined(t *testing.T) {
	d := newDataset(t, keys.Unique)
	a, b := d.byProd[d.products[0]][3], d.byProd[d.products[1]][5]
	d.put(keys.ProductComment, d.productKey(a), d.ck(b))
	d.put(keys.ProductComment, d.productKey(b), d.ck(a))
	rep, scans := d.scansOf(Options{Spread: true})
	assertCounts(t, rep, map[string]int64{"product-comment.mismatched": 2, "product-comment.unreferenced": 2})
	wantScans := map[string]int{keys.Comment: 3, keys.ProductComment: 2, keys.UserComment: 1}
	for table, n := range wantScans {
		if scans[table] != n {
			t.Errorf("%s read %d times, want %d: %v", table, scans[table], n, scans)
		}
	}
	if ix := rep.Indexes[0]; ix.Table != keys.UserComment || ix.Rows != 36 || ix.Referenced != 36 {
		t.Errorf("user-comment %+v: want it proved, 36 rows referenced", ix)
	}
	for _, td := range rep.Spread.Tables {
		if td.Table == keys.ProductComment || td.Table == keys.Comment {
			if td.Rows != 36 {
				t.Errorf("spread of %s: %d rows, want 36 (each read counted once)", td.Table, td.Rows)
			}
		}
	}
}

// An edited comment with no record of the length its index rows were made
// from can only be matched loosely where its key holds a length: no sum
// proves that bucket, and it is joined. On the unique layout the
// product-comment key holds one and the user-comment key does not: that
// index is proved still.
func TestLooseCommentJoinsItsBucket(t *testing.T) {
	d := newDataset(t, keys.Unique)
	c := d.byProd[d.products[0]][2]
	if _, err := d.sys.EditComment(d.ctx, c.OrderID, c.ProductID, "고친 글입니다, 더 길게"); err != nil {
		t.Fatal(err)
	}
	rep, scans := d.scansOf(Options{})
	if !rep.Consistent {
		t.Fatalf("verdict %q: an edited comment's rows, matched loosely, are its own", rep.Verdict)
	}
	if scans[keys.Comment] != 2 || scans[keys.ProductComment] != 2 || scans[keys.UserComment] != 1 {
		t.Fatalf("scans %v: want the comments and product-comment read twice, user-comment once", scans)
	}
}

// lengthKey is comment c's product-comment key made with content length n.
func (d *dataset) lengthKey(c model.Comment, n int) []byte {
	d.t.Helper()
	k, err := d.layout.Encode(keys.Key{Table: keys.ProductComment, UserID: c.UserID, ProductID: c.ProductID,
		OrderID: c.OrderID, Timestamp: c.Timestamp, ContentLen: n})
	must(d.t, err)
	return k
}

// A join reads the data alone: an edited comment's row of another length
// is its own with the ledger as without it, and a ledger whose length for
// a comment is not the one its rows were made from finds nothing.
func TestJoinNeedsNoLedger(t *testing.T) {
	t.Run("a length other than its own", func(t *testing.T) {
		d := newDataset(t, keys.Unique)
		c := d.byProd[d.products[1]][4]
		recs := d.acked()
		for i := range recs {
			if string(recs[i].ck) == string(d.ck(c)) {
				recs[i].n += 5
			}
		}
		d.put(keys.ProductComment, d.lengthKey(d.ghost(), 4), d.ck(d.ghost())) // a fault, so a join runs
		want := map[string]int64{"product-comment.undefined": 1}
		assertCounts(t, d.checkRun(false, ledger(t, recs)), want)
		assertCounts(t, d.checkRun(false, ""), want)
	})
	t.Run("an edited comment's row of another length", func(t *testing.T) {
		d := newDataset(t, keys.Unique)
		c := d.byProd[d.products[1]][4]
		if _, err := d.sys.EditComment(d.ctx, c.OrderID, c.ProductID, strings.Repeat("말", 5)); err != nil {
			t.Fatal(err)
		}
		d.del(keys.ProductComment, d.lengthKey(c, c.ContentLen()))
		d.put(keys.ProductComment, d.lengthKey(c, c.ContentLen()+3), d.ck(c))
		assertCounts(t, d.checkRun(false, ledger(t, d.acked())), map[string]int64{})
		assertCounts(t, d.checkRun(false, ""), map[string]int64{})
	})
}
