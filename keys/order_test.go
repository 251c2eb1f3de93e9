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

func (c listing) keys(t testing.TB, l Layout, user, prod string) (uk, pk []byte) {
	must := mustOf(t)
	ck := must(CommentKey(c.order, prod))
	return must(l.UserCommentKey(user, c.ts, ck)), must(l.ProductCommentKey(prod, c.ts, c.n, ck))
}

// TestIndexOrder is the order contract as a property: keys compare as
// (newest first, then longest first, then the tie-breaker), and the seed
// layout, lacking a tie-breaker, makes the last step "equal".
func TestIndexOrder(t *testing.T) {
	r := newRand(3)
	const user, prod = "UuUuUuUuUu", "PpPpPpPpPp"
	for _, l := range allLayouts {
		for range 20000 {
			a, b := genListing(r), genListing(r)
			if r.IntN(4) == 0 {
				b.ts = a.ts
			}
			if r.IntN(4) == 0 {
				b.n = a.n
			}
			want := cmp.Or(cmp.Compare(b.ts, a.ts), cmp.Compare(b.n, a.n))
			if l == Unique {
				want = cmp.Or(want, cmp.Compare(a.order, b.order))
			}
			ua, pa := a.keys(t, l, user, prod)
			ub, pb := b.keys(t, l, user, prod)
			if got := bytes.Compare(pa, pb); got != want {
				t.Fatalf("%s product-comment: compare(%+v, %+v) = %d, want %d", l.Name(), a, b, got, want)
			}
			wantUser := cmp.Compare(b.ts, a.ts)
			if l == Unique {
				wantUser = cmp.Or(wantUser, cmp.Compare(a.order, b.order))
			}
			if got := bytes.Compare(ua, ub); got != wantUser {
				t.Fatalf("%s user-comment: compare(%+v, %+v) = %d, want %d", l.Name(), a, b, got, wantUser)
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
	for _, l := range allLayouts {
		uo, po := old.keys(t, l, user, prod)
		un, pn := newer.keys(t, l, user, prod)
		if bytes.Compare(pn, po) >= 0 || bytes.Compare(un, uo) >= 0 {
			t.Errorf("%s: a comment 1 ms newer, shorter, with a smaller order id does not sort first", l.Name())
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
	for _, l := range allLayouts {
		_, pko := listing{ts: ts, n: len(ko), order: "ZzZzZzZzZz"}.keys(t, l, "UuUuUuUuUu", prod)
		_, pen := listing{ts: ts, n: len(en), order: "AaAaAaAaAa"}.keys(t, l, "UuUuUuUuUu", prod)
		if bytes.Compare(pko, pen) >= 0 {
			t.Errorf("%s: %q (%d bytes) does not sort before %q (%d bytes)", l.Name(), ko, len(ko), en, len(en))
		}
		k, err := l.Decode(ProductComment, pko)
		if err != nil || k.ContentLen != 9 {
			t.Errorf("%s: decoded length %d, %v; want 9 bytes", l.Name(), k.ContentLen, err)
		}
	}
}

// productKeys is a product's index rows with arbitrary fields, extremes
// included: its c rows, then its r rows.
func productKeys(t testing.TB, r *rand.Rand, l Layout, prod string) (c, rk [][]byte) {
	must := mustOf(t)
	for i := range 8 {
		ts, n := genTs(r), genLen(r)
		if i < 4 {
			ts, n = []int64{0, 0, 1<<63 - 1, 1<<63 - 1}[i], []int{0, 1<<31 - 1, 0, 1<<31 - 1}[i]
		}
		ck := must(CommentKey(NewRandom(r).Next(), prod))
		c = append(c, must(l.ProductCommentKey(prod, ts, n, ck)))
		rk = append(rk, must(l.RankKey(prod, []int{1, MaxRank, MaxEncodableRank, genRank(r)}[i%4])))
	}
	return c, rk
}

func TestProductsNeverInterleave(t *testing.T) {
	r := newRand(4)
	for _, l := range allLayouts {
		for range 2000 {
			a, b := NewRandom(r).Next(), NewRandom(r).Next()
			if r.IntN(2) == 0 { // differ only in the last byte: the hardest case
				b = a[:IDLen-1] + string(a[IDLen-1]^1)
			}
			if a == b {
				continue
			}
			ca, ra := productKeys(t, r, l, a)
			cb, rb := productKeys(t, r, l, b)
			ka, kb := append(ca, ra...), append(cb, rb...)
			loA, hiA := bounds(ka)
			loB, hiB := bounds(kb)
			if bytes.Compare(hiA, loB) >= 0 && bytes.Compare(hiB, loA) >= 0 {
				t.Fatalf("%s: rows of %q [%q, %q] and %q [%q, %q] interleave", l.Name(), a, loA, hiA, b, loB, hiB)
			}
		}
	}
}

func TestCommentRowsBeforeRankRows(t *testing.T) {
	r := newRand(5)
	for _, l := range allLayouts {
		cp, rp := mustOf(t)(l.ProductCommentPrefix("PpPpPpPpPp")), mustOf(t)(l.RankPrefix("PpPpPpPpPp"))
		for range 500 {
			c, rk := productKeys(t, r, l, "PpPpPpPpPp")
			_, hiC := bounds(c)
			loR, _ := bounds(rk)
			if bytes.Compare(hiC, loR) >= 0 {
				t.Fatalf("%s: c row %q sorts after r row %q", l.Name(), hiC, loR)
			}
			for _, k := range c {
				if !bytes.HasPrefix(k, cp) || bytes.HasPrefix(k, rp) {
					t.Fatalf("%s: c row %q vs prefixes %q, %q", l.Name(), k, cp, rp)
				}
			}
			for _, k := range rk {
				if !bytes.HasPrefix(k, rp) {
					t.Fatalf("%s: r row %q lacks prefix %q", l.Name(), k, rp)
				}
			}
		}
	}
}

func TestUserCommentPrefix(t *testing.T) {
	must := mustOf(t)
	ck := must(CommentKey("OoOoOoOoOo", "PpPpPpPpPp"))
	for _, l := range allLayouts {
		p := must(l.UserCommentPrefix("UuUuUuUuUu"))
		k := must(l.UserCommentKey("UuUuUuUuUu", 123, ck))
		other := must(l.UserCommentKey("UuUuUuUuUv", 123, ck))
		if !bytes.HasPrefix(k, p) || bytes.HasPrefix(other, p) {
			t.Errorf("%s: prefix %q vs keys %q, %q", l.Name(), p, k, other)
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

// TestSeedCollisions reproduces the seed's lost comments and shows the
// unique layout keeps them apart.
func TestSeedCollisions(t *testing.T) {
	must := mustOf(t)
	const ts = 1_700_000_000_000
	const user, prod, prod2 = "UuUuUuUuUu", "PpPpPpPpPp", "QqQqQqQqQq"
	ck1 := must(CommentKey("OoOoOoOoO1", prod))
	ck2 := must(CommentKey("OoOoOoOoO2", prod))
	ck3 := must(CommentKey("OoOoOoOoO1", prod2)) // same order, another product
	for _, l := range allLayouts {
		wantEqual := l == Seed
		p1 := must(l.ProductCommentKey(prod, ts, len("좋아요"), ck1))
		p2 := must(l.ProductCommentKey(prod, ts, len("goodbye!!"), ck2)) // 9 bytes too
		if bytes.Equal(p1, p2) != wantEqual {
			t.Errorf("%s: product-comment keys of two orders equal=%v, want %v", l.Name(), !wantEqual, wantEqual)
		}
		u1 := must(l.UserCommentKey(user, ts, ck1))
		u3 := must(l.UserCommentKey(user, ts, ck3))
		u2 := must(l.UserCommentKey(user, ts, ck2))
		if bytes.Equal(u1, u3) != wantEqual || bytes.Equal(u1, u2) != wantEqual {
			t.Errorf("%s: user-comment keys, same ms: equal=%v/%v, want %v",
				l.Name(), bytes.Equal(u1, u3), bytes.Equal(u1, u2), wantEqual)
		}
	}
}
