package keys

import (
	"bytes"
	"cmp"
	"math/rand/v2"
	"testing"
	"unicode/utf8"
)

// listing is what a comment contributes to an index key's order.
type listing struct {
	ts    int64
	n     int
	order string
}

func (c listing) keys(t testing.TB, d *Design, user, prod string) (uk, pk []byte) {
	uk = enc(t, d, Key{Table: UserComment, UserID: user, Timestamp: c.ts, OrderID: c.order, ProductID: prod})
	pk = enc(t, d, Key{Table: ProductComment, ProductID: prod, Timestamp: c.ts, ContentLen: c.n, OrderID: c.order})
	return uk, pk
}

// TestIndexOrder is the order contract as a property: keys compare as
// (newest first, then longest first, then the tie-breaker), and the seed
// design, lacking a tie-breaker, makes the last step "equal".
func TestIndexOrder(t *testing.T) {
	r := newRand(3)
	const user, prod = "UuUuUuUuUu", "PpPpPpPpPp"
	for _, d := range allDesigns {
		for range 20000 {
			a, b := genListing(r), genListing(r)
			if r.IntN(4) == 0 {
				b.ts = a.ts
			}
			if r.IntN(4) == 0 {
				b.n = a.n
			}
			want := cmp.Or(cmp.Compare(b.ts, a.ts), cmp.Compare(b.n, a.n))
			if d == Unique {
				want = cmp.Or(want, cmp.Compare(a.order, b.order))
			}
			ua, pa := a.keys(t, d, user, prod)
			ub, pb := b.keys(t, d, user, prod)
			if got := bytes.Compare(pa, pb); got != want {
				t.Fatalf("%s product-comment: compare(%+v, %+v) = %d, want %d", d.Name(), a, b, got, want)
			}
			wantUser := cmp.Compare(b.ts, a.ts)
			if d == Unique {
				wantUser = cmp.Or(wantUser, cmp.Compare(a.order, b.order))
			}
			if got := bytes.Compare(ua, ub); got != wantUser {
				t.Fatalf("%s user-comment: compare(%+v, %+v) = %d, want %d", d.Name(), a, b, got, wantUser)
			}
		}
	}
}

func genListing(r *rand.Rand) listing {
	order := NewRandom(r).Next()
	if r.IntN(3) == 0 {
		order = "OoOoOoOoO" + string(rune('A'+r.IntN(3))) // often share a prefix
	}
	return listing{ts: genTs(r), n: genLen(r), order: order}
}

func TestNewestFirst(t *testing.T) {
	const user, prod = "UuUuUuUuUu", "PpPpPpPpPp"
	old := listing{ts: 1_700_000_000_000, n: 9999, order: "ZzZzZzZzZz"}
	newer := listing{ts: 1_700_000_000_001, n: 0, order: "AaAaAaAaAa"}
	for _, d := range allDesigns {
		uo, po := old.keys(t, d, user, prod)
		un, pn := newer.keys(t, d, user, prod)
		if bytes.Compare(pn, po) >= 0 || bytes.Compare(un, uo) >= 0 {
			t.Errorf("%s: a comment 1 ms newer, shorter, with a smaller order id does not sort first", d.Name())
		}
	}
}

// TestLongerFirstByBytes: "좋아요" is 9 UTF-8 bytes but 3 runes, "goodgood"
// 8 bytes and 8 runes. Ordered by bytes the Korean comment is longer and must
// come first; ordered by runes it would come second.
func TestLongerFirstByBytes(t *testing.T) {
	ko, en := "좋아요", "goodgood"
	if len(ko) <= len(en) || utf8.RuneCountInString(ko) >= utf8.RuneCountInString(en) {
		t.Fatal("bad fixture")
	}
	const prod, ts = "PpPpPpPpPp", 1_700_000_000_000
	for _, d := range allDesigns {
		_, pko := listing{ts: ts, n: len(ko), order: "ZzZzZzZzZz"}.keys(t, d, "UuUuUuUuUu", prod)
		_, pen := listing{ts: ts, n: len(en), order: "AaAaAaAaAa"}.keys(t, d, "UuUuUuUuUu", prod)
		if bytes.Compare(pko, pen) >= 0 {
			t.Errorf("%s: %q (%d bytes) does not sort before %q (%d bytes)", d.Name(), ko, len(ko), en, len(en))
		}
		k, err := d.Decode(ProductComment, pko)
		if err != nil || k.ContentLen != 9 {
			t.Errorf("%s: decoded length %d, %v; want 9 bytes", d.Name(), k.ContentLen, err)
		}
	}
}

// productKeys is a product's index rows with arbitrary fields, extremes
// included: its c rows, then its r rows.
func productKeys(t testing.TB, r *rand.Rand, d *Design, prod string) (c, rk [][]byte) {
	for i := range 8 {
		ts, n := genTs(r), genLen(r)
		if i < 4 {
			ts, n = []int64{0, 0, 1<<63 - 1, 1<<63 - 1}[i], []int{0, 1<<31 - 1, 0, 1<<31 - 1}[i]
		}
		c = append(c, enc(t, d, Key{Table: ProductComment, ProductID: prod, Timestamp: ts, ContentLen: n, OrderID: NewRandom(r).Next()}))
		rk = append(rk, enc(t, d, Key{Table: ProductRank, ProductID: prod, Rank: []int{1, MaxRank, MaxEncodableRank, genRank(r)}[i%4]}))
	}
	return c, rk
}

// TestProductsNeverInterleave: in every design whose product rows lead with
// the product (hashed leads with its hash, still one range per product),
// one product's rows form a range no other product's rows fall in.
func TestProductsNeverInterleave(t *testing.T) {
	r := newRand(4)
	for _, d := range append(allDesigns, builtin(t, "hashed")) {
		for range 2000 {
			a, b := NewRandom(r).Next(), NewRandom(r).Next()
			if r.IntN(2) == 0 { // differ only in the last byte: the hardest case
				b = a[:IDLen-1] + string(a[IDLen-1]^1)
			}
			if a == b {
				continue
			}
			ca, ra := productKeys(t, r, d, a)
			cb, rb := productKeys(t, r, d, b)
			for _, pair := range [][2][][]byte{{ca, cb}, {ra, rb}, {append(ca, ra...), append(cb, rb...)}} {
				loA, hiA := bounds(pair[0])
				loB, hiB := bounds(pair[1])
				if bytes.Compare(hiA, loB) >= 0 && bytes.Compare(hiB, loA) >= 0 {
					t.Fatalf("%s: rows of %q [%q, %q] and %q [%q, %q] interleave", d.Name(), a, loA, hiA, b, loB, hiB)
				}
			}
		}
	}
}

func TestCommentRowsBeforeRankRows(t *testing.T) {
	r := newRand(5)
	const prod = "PpPpPpPpPp"
	for _, d := range allDesigns {
		cp := listingOf(t, d, ProductComment, prod).Branches[0]
		rp := listingOf(t, d, ProductRank, prod).Branches[0]
		for range 500 {
			c, rk := productKeys(t, r, d, prod)
			_, hiC := bounds(c)
			loR, _ := bounds(rk)
			if bytes.Compare(hiC, loR) >= 0 {
				t.Fatalf("%s: c row %q sorts after r row %q", d.Name(), hiC, loR)
			}
			for _, k := range c {
				if !bytes.HasPrefix(k, cp) || bytes.HasPrefix(k, rp) {
					t.Fatalf("%s: c row %q vs prefixes %q, %q", d.Name(), k, cp, rp)
				}
			}
			for _, k := range rk {
				if !bytes.HasPrefix(k, rp) {
					t.Fatalf("%s: r row %q lacks prefix %q", d.Name(), k, rp)
				}
			}
		}
	}
}

func TestUserCommentPrefix(t *testing.T) {
	for _, d := range allDesigns {
		l := listingOf(t, d, UserComment, "UuUuUuUuUu")
		k := enc(t, d, Key{Table: UserComment, UserID: "UuUuUuUuUu", Timestamp: 123, OrderID: "OoOoOoOoOo", ProductID: "PpPpPpPpPp"})
		other := enc(t, d, Key{Table: UserComment, UserID: "UuUuUuUuUv", Timestamp: 123, OrderID: "OoOoOoOoOo", ProductID: "PpPpPpPpPp"})
		p := l.Branches[0]
		if !bytes.HasPrefix(k, p) || bytes.HasPrefix(other, p) || !l.Owns(k) || l.Owns(other) {
			t.Errorf("%s: prefix %q vs keys %q, %q", d.Name(), p, k, other)
		}
	}
}

func bounds(keys [][]byte) (lo, hi []byte) {
	lo, hi = keys[0], keys[0]
	for _, k := range keys[1:] {
		if bytes.Compare(k, lo) < 0 {
			lo = k
		}
		if bytes.Compare(k, hi) > 0 {
			hi = k
		}
	}
	return lo, hi
}

// TestSeedCollisions reproduces the seed's lost comments and shows every
// other built-in keeps them apart.
func TestSeedCollisions(t *testing.T) {
	const ts = 1_700_000_000_000
	const user, prod, prod2 = "UuUuUuUuUu", "PpPpPpPpPp", "QqQqQqQqQq"
	for _, d := range builtins(t) {
		wantEqual := d.Name() == "seed"
		pk := func(order string, n int) []byte {
			return enc(t, d, Key{Table: ProductComment, ProductID: prod, OrderID: order, Timestamp: ts, ContentLen: n})
		}
		uk := func(order, prod string) []byte {
			return enc(t, d, Key{Table: UserComment, UserID: user, OrderID: order, ProductID: prod, Timestamp: ts})
		}
		p1 := pk("OoOoOoOoO1", len("좋아요"))
		p2 := pk("OoOoOoOoO2", len("goodbye!!")) // 9 bytes too
		if bytes.Equal(p1, p2) != wantEqual {
			t.Errorf("%s: product-comment keys of two orders equal=%v, want %v", d.Name(), !wantEqual, wantEqual)
		}
		u1 := uk("OoOoOoOoO1", prod)
		u3 := uk("OoOoOoOoO1", prod2) // same order, another product
		u2 := uk("OoOoOoOoO2", prod)
		if bytes.Equal(u1, u3) != wantEqual || bytes.Equal(u1, u2) != wantEqual {
			t.Errorf("%s: user-comment keys, same ms: equal=%v/%v, want %v",
				d.Name(), bytes.Equal(u1, u3), bytes.Equal(u1, u2), wantEqual)
		}
	}
}
