package keys

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"testing"
)

// seedCorpus adds a valid key of every table in every layout, and a few
// near misses, so the fuzzers start at the interesting lengths.
func seedCorpus(f *testing.F) {
	r := newRand(12)
	for _, l := range allLayouts {
		for _, table := range Tables {
			b, err := Encode(l, genKey(r, l, table))
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b)
			f.Add(b[:len(b)-1])
		}
	}
	f.Add([]byte{})
	f.Add(bytes.Repeat([]byte{0xff}, 23))
	f.Add([]byte("PpPpPpPpPpr\x00\x00"))
}

// FuzzDecode: on any bytes, every table's decoder in every layout returns
// either an ErrBadKey or a Key that Encode turns back into the same bytes.
func FuzzDecode(f *testing.F) {
	seedCorpus(f)
	tables := append(slices.Clone(Tables), "", "users")
	f.Fuzz(func(t *testing.T, key []byte) {
		for _, l := range allLayouts {
			for _, table := range tables {
				k, err := l.Decode(table, key)
				_ = k.String()
				if err != nil {
					if !errors.Is(err, ErrBadKey) {
						t.Fatalf("%s %s: error %v does not wrap ErrBadKey", l.Name(), table, err)
					}
					continue
				}
				b, err := Encode(l, k)
				if err != nil || !bytes.Equal(b, key) {
					t.Fatalf("%s %s: %q decodes to %v, which encodes to %q, %v", l.Name(), table, key, k, b, err)
				}
			}
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

// FuzzBuild: the builders, on any input, either refuse it or make a key that
// decodes back to their inputs.
func FuzzBuild(f *testing.F) {
	f.Add("UuUuUuUuUu", "OoOoOoOoOo", "PpPpPpPpPp", int64(0), 0, 1)
	f.Add("UuUuUuUuUu", "OoOoOoOoOo", "PpPpPpPpPp", int64(math.MaxInt64), math.MaxInt32, MaxEncodableRank)
	f.Add("short", "OoOoOoOoOo", "좋아요좋", int64(-1), -1, 0)
	f.Fuzz(func(t *testing.T, user, order, prod string, ts int64, n, rank int) {
		ck, _ := CommentKey(order, prod)
		for _, l := range allLayouts {
			if b, err := l.UserCommentKey(user, ts, ck); err == nil {
				k, err := l.Decode(UserComment, b)
				if err != nil || k.UserID != user || k.Timestamp != ts {
					t.Fatalf("%s user-comment(%q, %d): %v, %v", l.Name(), user, ts, k, err)
				}
			}
			if b, err := l.ProductCommentKey(prod, ts, n, ck); err == nil {
				k, err := l.Decode(ProductComment, b)
				if err != nil || k.ProductID != prod || k.Timestamp != ts || k.ContentLen != n {
					t.Fatalf("%s product-comment(%q, %d, %d): %v, %v", l.Name(), prod, ts, n, k, err)
				}
			}
			if b, err := l.RankKey(prod, rank); err == nil {
				k, err := l.Decode(ProductRank, b)
				if err != nil || k.ProductID != prod || k.Rank != rank {
					t.Fatalf("%s rank(%q, %d): %v, %v", l.Name(), prod, rank, k, err)
				}
			}
		}
	})
}
