package keys

import (
	"bytes"
	"slices"
	"testing"
)

// ownedKey is a row of table owned by owner, every other field random.
func ownedKey(r interface{ IntN(int) int }, k Key, owner string) Key {
	if k.Table == UserComment {
		k.UserID = owner
	} else {
		k.ProductID = owner
	}
	return k
}

// TestListingOrderBuiltins: in every built-in design, a listing's Compare
// puts newer rows before older ones, longer before shorter at equal ts in
// a product listing whose scan meets revLen forwards, and ranks in
// ascending order; and
// every row of the owner is owned by its listing, no row of another owner.
func TestListingOrderBuiltins(t *testing.T) {
	r := newRand(20)
	for _, d := range builtins(t) {
		for _, table := range []string{UserComment, ProductComment, ProductRank} {
			tk := d.Table(table)
			for range 200 {
				owner, other := NewRandom(r).Next(), NewRandom(r).Next()
				l := listingOf(t, d, table, owner)
				// The seed's tie-break, longest first, holds where the
				// scan meets revLen forwards (or len backwards). time-led
				// reads revLen backwards: shortest first within a
				// millisecond, which its readers accept.
				longestFirst := tk.Has(PartRevLen, "") && !l.Reversed || tk.Has(PartLen, "") && l.Reversed
				if table == ProductComment && d.Name() != "time-led" && !longestFirst {
					t.Fatalf("%s: the product listing is not longest first within a millisecond", d.Name())
				}
				var rows []Key
				for range 30 {
					k := ownedKey(r, fullKey(r, table), owner)
					if r.IntN(2) == 0 && len(rows) > 0 { // share a millisecond
						k.Timestamp = rows[r.IntN(len(rows))].Timestamp
					}
					rows = append(rows, k)
				}
				for _, a := range rows {
					ka := enc(t, d, a)
					if !l.Owns(ka) || !l.Matches(ka) {
						t.Fatalf("%s %s: %s's listing does not own its row %v", d.Name(), table, owner, a)
					}
					ko := enc(t, d, ownedKey(r, a, other))
					// Matches skips the prefix, so only a filtered listing,
					// whose prefix lacks the owner, relies on it.
					if l.Owns(ko) || (l.Filtered && l.Matches(ko)) {
						t.Fatalf("%s %s: %s's listing owns %s's row %v", d.Name(), table, owner, other, a)
					}
					for _, b := range rows {
						kb := enc(t, d, b)
						c := l.Compare(ka, kb)
						if c != -l.Compare(kb, ka) {
							t.Fatalf("%s %s: Compare is not antisymmetric", d.Name(), table)
						}
						var want int
						switch {
						case table == ProductRank:
							want = cmpInt(a.Rank, b.Rank)
						case a.Timestamp != b.Timestamp:
							want = cmpInt(b.Timestamp, a.Timestamp)
						case table == ProductComment && longestFirst && a.ContentLen != b.ContentLen:
							want = cmpInt(b.ContentLen, a.ContentLen)
						default:
							continue // the tie-breaker's order is the design's own
						}
						if sign(c) != want {
							t.Fatalf("%s %s: Compare(%v, %v) = %d, want %d", d.Name(), table, a, b, c, want)
						}
					}
				}
			}
		}
	}
}

func cmpInt[T int | int64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func sign(c int) int { return cmpInt(c, 0) }

// TestListingSalted: a salted listing reads one branch per bucket; it owns
// the owner's rows whatever their salt, and the branches merged by Compare
// are newest first.
func TestListingSalted(t *testing.T) {
	salted := builtin(t, "salted")
	r := newRand(21)
	const owner = "PpPpPpPpPp"
	for _, table := range []string{UserComment, ProductComment} {
		l := listingOf(t, salted, table, owner)
		if len(l.Branches) != 8 || l.Filtered || l.Reversed {
			t.Fatalf("%s: %d branches, filtered %v, reversed %v; want 8 plain prefix scans", table, len(l.Branches), l.Filtered, l.Reversed)
		}
		for b, pre := range l.Branches {
			if pre[0] != byte(b) || !bytes.Equal(pre[1:1+IDLen], []byte(owner)) {
				t.Fatalf("%s: branch %d is %q, want bucket %d then the owner", table, b, pre, b)
			}
		}
		var keys [][]byte
		seen := map[int]bool{}
		for range 400 {
			k := ownedKey(r, fullKey(r, table), owner)
			b := enc(t, salted, k)
			br := l.Branch(b)
			if !l.Owns(b) || br != Salt(8, k.OrderID, k.ProductID) {
				t.Fatalf("%s: row %v of bucket %d: owned %v, branch %d", table, k, Salt(8, k.OrderID, k.ProductID), l.Owns(b), br)
			}
			seen[br] = true
			keys = append(keys, b)
		}
		if len(seen) != 8 {
			t.Errorf("%s: 400 rows fell in %d buckets, want all 8", table, len(seen))
		}
		slices.SortFunc(keys, l.Compare)
		for i := 1; i < len(keys); i++ {
			a, _ := salted.Decode(table, keys[i-1])
			b, _ := salted.Decode(table, keys[i])
			if a.Timestamp < b.Timestamp {
				t.Fatalf("%s: merged listing puts ts %d before %d", table, a.Timestamp, b.Timestamp)
			}
		}
	}
	if l := listingOf(t, salted, ProductRank, owner); len(l.Branches) != 1 {
		t.Errorf("salted ranking: %d branches, want 1", len(l.Branches))
	}
}

// TestListingTimeLed: the time-led product listing does not start with the
// product, so a page reads the whole table backwards and filters; its
// order is still newest first.
func TestListingTimeLed(t *testing.T) {
	tl := builtin(t, "time-led")
	const owner, other = "PpPpPpPpPp", "QqQqQqQqQq"
	l := listingOf(t, tl, ProductComment, owner)
	if !l.Reversed || !l.Filtered || len(l.Branches) != 1 || len(l.Branches[0]) != 0 {
		t.Fatalf("time-led product listing: reversed %v, filtered %v, branches %q; want one backward, filtered scan of the table",
			l.Reversed, l.Filtered, l.Branches)
	}
	old := enc(t, tl, Key{Table: ProductComment, ProductID: owner, OrderID: "OoOoOoOoOo", Timestamp: 100, ContentLen: 5})
	newer := enc(t, tl, Key{Table: ProductComment, ProductID: owner, OrderID: "OoOoOoOoOo", Timestamp: 101, ContentLen: 5})
	theirs := enc(t, tl, Key{Table: ProductComment, ProductID: other, OrderID: "OoOoOoOoOo", Timestamp: 101, ContentLen: 5})
	if bytes.Compare(newer, old) <= 0 || l.Compare(newer, old) >= 0 {
		t.Error("time-led: the newer row must sort after the older and be listed before it")
	}
	if !l.Owns(old) || !l.Owns(newer) || l.Owns(theirs) || l.Matches(theirs) {
		t.Error("time-led: a filtered listing must keep the owner's rows and drop the other product's")
	}
	for _, table := range []string{UserComment, ProductRank} {
		if l := listingOf(t, tl, table, owner); l.Reversed || l.Filtered {
			t.Errorf("time-led %s: reversed %v, filtered %v; want a plain prefix scan", table, l.Reversed, l.Filtered)
		}
	}
}

// TestListingHashed: the hash of the owner is derived by the read, so the
// listing is one prefix scan of hash ‖ owner.
func TestListingHashed(t *testing.T) {
	hashed := builtin(t, "hashed")
	const owner = "PpPpPpPpPp"
	h := enc(t, hashed, Key{Table: Product, ID: owner})[:2]
	for table, want := range map[string][]byte{
		UserComment:    cat("", h, []byte(owner)),
		ProductComment: cat("", h, []byte(owner+"c")),
		ProductRank:    cat("", h, []byte(owner+"r")),
	} {
		l := listingOf(t, hashed, table, owner)
		if len(l.Branches) != 1 || !bytes.Equal(l.Branches[0], want) || l.Filtered || l.Reversed {
			t.Errorf("hashed %s: branches %q, filtered %v; want one scan of %q", table, l.Branches, l.Filtered, want)
		}
	}
}

// TestListingOwnerHashIsNotTheOwner: a prefix of the owner's hash holds
// every owner with that hash, so a listing whose prefix stops there must
// filter; before the owner itself, a hash only narrows the scan.
func TestListingOwnerHashIsNotTheOwner(t *testing.T) {
	d, err := Parse("hash-first.yaml", []byte(edit(14, "    key: hash(userId,1) revTs userId orderId productId")))
	if err != nil {
		t.Fatal(err)
	}
	const a = "UuUuUuUuUu"
	ka := enc(t, d, Key{Table: UserComment, UserID: a, OrderID: "OoOoOoOoOo", ProductID: "PpPpPpPpPp", Timestamp: 7})
	// Another user whose hash has the same first byte: the same branch.
	var b string
	var kb []byte
	for g := NewRandom(newRand(22)); kb == nil || kb[0] != ka[0]; {
		b = g.Next()
		kb = enc(t, d, Key{Table: UserComment, UserID: b, OrderID: "OoOoOoOoOo", ProductID: "PpPpPpPpPp", Timestamp: 7})
	}
	l := listingOf(t, d, UserComment, a)
	if !l.Filtered || len(l.Branches) != 1 || !bytes.Equal(l.Branches[0], ka[:1]) {
		t.Fatalf("listing by hash then ts: filtered %v, branches %q; want a filtered scan of the hash byte", l.Filtered, l.Branches)
	}
	if l.Branch(kb) != 0 || !l.Owns(ka) || l.Owns(kb) || l.Matches(kb) {
		t.Errorf("user %s shares %s's branch: owns %v, matches %v; want the filter to drop it", b, a, l.Owns(kb), l.Matches(kb))
	}
}

func TestAppendPrefixEnd(t *testing.T) {
	for _, c := range []struct{ prefix, want string }{
		{"ab", "ac"},
		{"a\xff", "b"},
		{"a\xfe\xff\xff", "a\xff"},
		{"\xff\xff", ""}, // the table's end
		{"", ""},
	} {
		got := appendPrefixEnd([]byte("dst:"), []byte(c.prefix))
		if string(got) != "dst:"+c.want {
			t.Errorf("appendPrefixEnd(%q) = %q, want %q after what was there", c.prefix, got[min(4, len(got)):], c.want)
		}
	}
}

// A listing is built for every page read: one of one branch is one
// allocation, its prefix and end in it.
func TestListingOfOneBranchAllocatesOnce(t *testing.T) {
	owner := NewRandom(newRand(5)).Next()
	for _, d := range builtins(t) {
		l := listingOf(t, d, ProductComment, owner)
		if len(l.Branches) != 1 || l.Filtered {
			continue
		}
		if l.Ends[0] == nil || !bytes.Equal(l.Ends[0], appendPrefixEnd(nil, l.Branches[0])) {
			t.Fatalf("%s: end %x of branch %x", d.Name(), l.Ends[0], l.Branches[0])
		}
		n := testing.AllocsPerRun(100, func() { d.Listing(ProductComment, owner) })
		if n != 1 {
			t.Errorf("%s: a product listing allocates %v times, want 1", d.Name(), n)
		}
	}
}
