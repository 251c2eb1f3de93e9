package keys

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"testing"
)

// seedCorpus adds a valid key of every table in every built-in design, and
// a few near misses, so the fuzzers start at the interesting lengths.
func seedCorpus(f *testing.F) {
	r := newRand(12)
	for _, d := range builtins(f) {
		for _, table := range Tables {
			b := enc(f, d, genKey(r, d, table))
			f.Add(b)
			f.Add(b[:len(b)-1])
		}
	}
	f.Add([]byte{})
	f.Add(bytes.Repeat([]byte{0xff}, 23))
	f.Add([]byte("PpPpPpPpPpr\x00\x00"))
}

// FuzzDecode: on any bytes, every table's decoder in the seed and unique
// designs returns either an ErrBadKey or a Key that Encode turns back into
// the same bytes, and agrees with the hand-written decoder.
func FuzzDecode(f *testing.F) {
	seedCorpus(f)
	tables := append(slices.Clone(Tables), "", "users")
	f.Fuzz(func(t *testing.T, key []byte) {
		for i, d := range allDesigns {
			for _, table := range tables {
				k, err := d.Decode(table, key)
				_ = k.String()
				_ = d.Describe(table, key)
				hk, herr := handLayouts[i].Decode(table, key)
				if (err == nil) != (herr == nil) || k != hk {
					t.Fatalf("%s %s %q: design %v, %v; hand-written %v, %v", d.Name(), table, key, k, err, hk, herr)
				}
				if err != nil {
					if !errors.Is(err, ErrBadKey) {
						t.Fatalf("%s %s: error %v does not wrap ErrBadKey", d.Name(), table, err)
					}
					continue
				}
				b, err := d.Encode(k)
				if err != nil || !bytes.Equal(b, key) {
					t.Fatalf("%s %s: %q decodes to %v, which encodes to %q, %v", d.Name(), table, key, k, b, err)
				}
			}
		}
	})
}

// FuzzDesignDecode: any bytes, as a key of any table of any built-in
// design: Decode never panics, and what it accepts encodes back to the
// same bytes.
func FuzzDesignDecode(f *testing.F) {
	ds := builtins(f)
	r := newRand(15)
	for di, d := range ds {
		for ti, table := range Tables {
			b := enc(f, d, genKey(r, d, table))
			f.Add(uint8(di), uint8(ti), b)
			f.Add(uint8(di), uint8(ti), b[:len(b)-1])
		}
	}
	f.Fuzz(func(t *testing.T, di, ti uint8, key []byte) {
		d := ds[int(di)%len(ds)]
		table := Tables[int(ti)%len(Tables)]
		k, err := d.Decode(table, key)
		if err != nil {
			if !errors.Is(err, ErrBadKey) {
				t.Fatalf("%s %s: error %v does not wrap ErrBadKey", d.Name(), table, err)
			}
			return
		}
		_ = d.Describe(table, key)
		b, err := d.Encode(k)
		if err != nil || !bytes.Equal(b, key) {
			t.Fatalf("%s %s: %x decodes to %v, which encodes to %x, %v", d.Name(), table, key, k, b, err)
		}
	})
}

func FuzzSplitCommentKey(f *testing.F) {
	seedCorpus(f)
	f.Fuzz(func(t *testing.T, key []byte) {
		o, p, err := SplitCommentKey(key)
		if err != nil {
			if !errors.Is(err, ErrBadKey) || len(key) == CommentKeyLen {
				t.Fatalf("%q: %v", key, err)
			}
			return
		}
		b, err := CommentKey(o, p)
		if err != nil || !bytes.Equal(b, key) {
			t.Fatalf("%q splits to %q, %q, which joins to %q, %v", key, o, p, b, err)
		}
	})
}

// FuzzBuild: the seed and unique designs, on any input, refuse what the
// hand-written builders refuse and otherwise build the same key, which
// decodes back to the inputs.
func FuzzBuild(f *testing.F) {
	f.Add("UuUuUuUuUu", "OoOoOoOoOo", "PpPpPpPpPp", int64(0), 0, 1)
	f.Add("UuUuUuUuUu", "OoOoOoOoOo", "PpPpPpPpPp", int64(math.MaxInt64), math.MaxInt32, MaxEncodableRank)
	f.Add("short", "OoOoOoOoOo", "좋아요좋", int64(-1), -1, 0)
	f.Fuzz(func(t *testing.T, user, order, prod string, ts int64, n, rank int) {
		ck, _ := CommentKey(order, prod)
		for i, d := range allDesigns {
			l := handLayouts[i]
			check := func(table string, k Key, want []byte, herr error) {
				k.Table = table
				got, err := d.Encode(k)
				if (err == nil) != (herr == nil) || !bytes.Equal(got, want) {
					t.Fatalf("%s %v: design %q, %v; hand-written %q, %v", d.Name(), k, got, err, want, herr)
				}
				if err != nil {
					return
				}
				dk, err := d.Decode(table, got)
				gotOwner, wantOwner := dk.ProductID, k.ProductID
				if table == UserComment {
					gotOwner, wantOwner = dk.UserID, k.UserID
				}
				if err != nil || gotOwner != wantOwner || dk.Timestamp != k.Timestamp || dk.ContentLen != k.ContentLen || dk.Rank != k.Rank {
					t.Fatalf("%s %v: decodes to %v, %v", d.Name(), k, dk, err)
				}
			}
			b, err := l.UserCommentKey(user, ts, ck)
			check(UserComment, Key{UserID: user, Timestamp: ts, OrderID: order, ProductID: prod}, b, err)
			b, err = l.ProductCommentKey(prod, ts, n, ck)
			check(ProductComment, Key{ProductID: prod, Timestamp: ts, ContentLen: n, OrderID: order}, b, err)
			b, err = l.RankKey(prod, rank)
			check(ProductRank, Key{ProductID: prod, Rank: rank}, b, err)
		}
	})
}

// FuzzParse: Parse never panics on any text; what it accepts keeps the
// text as its Source and builds keys of the length it reports, and what it
// refuses is a DesignError.
func FuzzParse(f *testing.F) {
	for _, d := range builtins(f) {
		f.Add(d.Source())
	}
	r := newRand(16)
	for i := range 20 {
		f.Add([]byte(genDesign(r, i)))
	}
	f.Add([]byte(edit(16, "    key: productId lit(c) revTs revLen", "    splits: buckets")))
	f.Add([]byte("name: x\ntables: {user: {key: [id, 'salt(id,3)']}}\n"))
	f.Add([]byte("a: &a [*a]\n"))
	f.Add([]byte(edit(14, "    key: userId revTs ts"))) // two timestamps that could disagree
	f.Fuzz(func(t *testing.T, src []byte) {
		d, err := Parse("fuzz.yaml", src)
		if err != nil {
			var de *DesignError
			if !errors.As(err, &de) || !errors.Is(err, ErrBadDesign) {
				t.Fatalf("error %v is not a DesignError", err)
			}
			return
		}
		if !bytes.Equal(d.Source(), src) {
			t.Fatalf("Source() = %q, want the input %q", d.Source(), src)
		}
		k := fullKey(newRand(17), "")
		for _, table := range Tables {
			tk := d.Table(table)
			if tk == nil || tk.Len > MaxKeyLen {
				t.Fatalf("%s: table %v", table, tk)
			}
			k.Table = table
			b, err := d.Encode(k)
			if err != nil || len(b) != tk.Len {
				t.Fatalf("%s: encode %v: %d bytes, %v; want %d", table, k, len(b), err, tk.Len)
			}
			dk, err := d.Decode(table, b)
			if err != nil {
				t.Fatalf("%s: decode %x: %v", table, b, err)
			}
			if again, err := d.Encode(dk); err != nil || !bytes.Equal(again, b) {
				t.Fatalf("%s: %v re-encodes to %x, %v; want %x", table, dk, again, err, b)
			}
			// The text's own bytes as a key of this design: whatever
			// Decode accepts must encode back to them.
			raw := bytes.Repeat(append(slices.Clone(src), 0), tk.Len/(len(src)+1)+1)[:tk.Len]
			if rk, err := d.Decode(table, raw); err == nil {
				if again, err := d.Encode(rk); err != nil || !bytes.Equal(again, raw) {
					t.Fatalf("%s: %x decodes to %v, which encodes to %x, %v", table, raw, rk, again, err)
				}
			}
		}
	})
}
