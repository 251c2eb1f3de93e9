package keys

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"
	"testing/quick"
	"time"
	"unicode/utf8"
)

func TestRoundTripAllTables(t *testing.T) {
	r := newRand(1)
	for _, l := range allLayouts {
		for _, table := range Tables {
			for range 2000 {
				k := genKey(r, l, table)
				b, err := Encode(l, k)
				if err != nil {
					t.Fatalf("%s: encode %v: %v", l.Name(), k, err)
				}
				if len(b) != wantLen(l, table) {
					t.Fatalf("%s: %v is %d bytes, want %d", l.Name(), k, len(b), wantLen(l, table))
				}
				got, err := l.Decode(table, b)
				if err != nil || got != k {
					t.Fatalf("%s: decode(encode(%v)) = %v, %v", l.Name(), k, got, err)
				}
			}
		}
	}
}

// TestRoundTripQuick uses arbitrary bytes as ids, not just letters: only the
// length is part of the key's contract.
func TestRoundTripQuick(t *testing.T) {
	must := mustOf(t)
	for _, l := range allLayouts {
		f := func(user, order, prod [IDLen]byte, ts int64, n int32, rank int16) bool {
			ts, n, rank = ts&math.MaxInt64, n&math.MaxInt32, max(rank&math.MaxInt16, 1)
			ck := must(CommentKey(string(order[:]), string(prod[:])))
			uk := must(l.UserCommentKey(string(user[:]), ts, ck))
			pk := must(l.ProductCommentKey(string(prod[:]), ts, int(n), ck))
			rk := must(l.RankKey(string(prod[:]), int(rank)))
			u, err1 := l.Decode(UserComment, uk)
			p, err2 := l.Decode(ProductComment, pk)
			rr, err3 := l.Decode(ProductRank, rk)
			return errors.Join(err1, err2, err3) == nil &&
				u.UserID == string(user[:]) && u.Timestamp == ts &&
				p.ProductID == string(prod[:]) && p.Timestamp == ts && p.ContentLen == int(n) &&
				rr.Rank == int(rank) && (l == Seed || u.OrderID == string(order[:]) &&
				u.ProductID == string(prod[:]) && p.OrderID == string(order[:]))
		}
		if err := quick.Check(f, &quick.Config{MaxCount: 3000}); err != nil {
			t.Errorf("%s: %v", l.Name(), err)
		}
	}
}

func TestRoundTripEdges(t *testing.T) {
	must := mustOf(t)
	const p, o = "PpPpPpPpPp", "OoOoOoOoOo"
	ck := must(CommentKey(o, p))
	for _, l := range allLayouts {
		for _, ts := range []int64{0, 1, math.MaxInt64 - 1, math.MaxInt64} {
			for _, content := range []string{"", "a", "좋아요", korean} {
				n := len(content)
				k, err := l.Decode(ProductComment, must(l.ProductCommentKey(p, ts, n, ck)))
				if err != nil || k.Timestamp != ts || k.ContentLen != n {
					t.Errorf("%s ts=%d len=%d: got %v, %v", l.Name(), ts, n, k, err)
				}
				if content == korean && k.ContentLen == utf8.RuneCountInString(korean) {
					t.Errorf("length of Korean content decoded as runes")
				}
			}
			k, err := l.Decode(UserComment, must(l.UserCommentKey("UuUuUuUuUu", ts, ck)))
			if err != nil || k.Timestamp != ts {
				t.Errorf("%s user-comment ts=%d: got %v, %v", l.Name(), ts, k, err)
			}
		}
	}
}

// TestSeedBytes pins the seed layout to SCHEMA.md's bytes exactly.
func TestSeedBytes(t *testing.T) {
	must := mustOf(t)
	const ts, n = 0x0102030405, 42
	ck := must(CommentKey("OoOoOoOoOo", "PpPpPpPpPp"))
	rev := uint64(math.MaxInt64 - ts)
	revTs := []byte{byte(rev >> 56), byte(rev >> 48), byte(rev >> 40), byte(rev >> 32), byte(rev >> 24), byte(rev >> 16), byte(rev >> 8), byte(rev)}
	revLen := []byte{0x7f, 0xff, 0xff, 0xff - n}
	cases := []struct {
		name      string
		got, want []byte
	}{
		{"user-comment", must(Seed.UserCommentKey("UuUuUuUuUu", ts, ck)), cat("UuUuUuUuUu", revTs)},
		{"product-comment", must(Seed.ProductCommentKey("PpPpPpPpPp", ts, n, ck)), cat("PpPpPpPpPpc", revTs, revLen)},
		{"rank", must(Seed.RankKey("PpPpPpPpPp", 3)), cat("PpPpPpPpPpr", []byte{0, 3})},
		{"unique user-comment", must(Unique.UserCommentKey("UuUuUuUuUu", ts, ck)), cat("UuUuUuUuUu", revTs, ck)},
		{"unique product-comment", must(Unique.ProductCommentKey("PpPpPpPpPp", ts, n, ck)), cat("PpPpPpPpPpc", revTs, revLen, []byte("OoOoOoOoOo"))},
		{"comment", ck, []byte("OoOoOoOoOoPpPpPpPpPp")},
		{"user prefix", must(Seed.UserCommentPrefix("UuUuUuUuUu")), []byte("UuUuUuUuUu")},
		{"product prefix", must(Unique.ProductCommentPrefix("PpPpPpPpPp")), []byte("PpPpPpPpPpc")},
		{"rank prefix", must(Unique.RankPrefix("PpPpPpPpPp")), []byte("PpPpPpPpPpr")},
		{"entity", must(EntityKey("EeEeEeEeEe")), []byte("EeEeEeEeEe")},
	}
	for _, c := range cases {
		if !bytes.Equal(c.got, c.want) {
			t.Errorf("%s: got %x, want %x", c.name, c.got, c.want)
		}
	}
}

func cat(s string, parts ...[]byte) []byte {
	b := []byte(s)
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

func TestCommentKeySplit(t *testing.T) {
	must := mustOf(t)
	ck := must(CommentKey("OoOoOoOoOo", "PpPpPpPpPp"))
	o, p, err := SplitCommentKey(ck)
	if err != nil || o != "OoOoOoOoOo" || p != "PpPpPpPpPp" {
		t.Errorf("SplitCommentKey(%q) = %q, %q, %v", ck, o, p, err)
	}
	for _, bad := range [][]byte{nil, ck[:19], append(ck, 'x')} {
		if _, _, err := SplitCommentKey(bad); !errors.Is(err, ErrBadKey) {
			t.Errorf("SplitCommentKey(%q): err %v, want ErrBadKey", bad, err)
		}
	}
}

func TestLayoutByName(t *testing.T) {
	for _, name := range LayoutNames() {
		l, err := LayoutByName(name)
		if err != nil || l.Name() != name {
			t.Errorf("LayoutByName(%q) = %v, %v", name, l, err)
		}
	}
	if got := strings.Join(LayoutNames(), ","); got != "seed,unique" {
		t.Errorf("LayoutNames() = %s", got)
	}
	_, err := LayoutByName("Seed")
	if err == nil || !strings.Contains(err.Error(), "seed") || !strings.Contains(err.Error(), "unique") {
		t.Errorf("LayoutByName(Seed) error %v does not list the allowed names", err)
	}
}

func TestKeyString(t *testing.T) {
	must := mustOf(t)
	ts := time.Date(2026, 11, 21, 4, 5, 6, 123e6, time.UTC).UnixMilli()
	const p, o, u = "AbCdEfGhIj", "OoOoOoOoOo", "UuUuUuUuUu"
	ck := must(CommentKey(o, p))
	dec := func(l Layout, table string, b []byte) string {
		k, err := l.Decode(table, b)
		if err != nil {
			t.Fatal(err)
		}
		return k.String()
	}
	cases := []struct{ got, want string }{
		{dec(Seed, ProductComment, must(Seed.ProductCommentKey(p, ts, 42, ck))), "product-comment[prod=AbCdEfGhIj c ts=2026-11-21T04:05:06.123Z len=42]"},
		{dec(Unique, ProductComment, must(Unique.ProductCommentKey(p, ts, 42, ck))), "product-comment[prod=AbCdEfGhIj c ts=2026-11-21T04:05:06.123Z len=42 order=OoOoOoOoOo]"},
		{dec(Seed, UserComment, must(Seed.UserCommentKey(u, ts, ck))), "user-comment[user=UuUuUuUuUu ts=2026-11-21T04:05:06.123Z]"},
		{dec(Unique, UserComment, must(Unique.UserCommentKey(u, ts, ck))), "user-comment[user=UuUuUuUuUu ts=2026-11-21T04:05:06.123Z order=OoOoOoOoOo prod=AbCdEfGhIj]"},
		{dec(Seed, ProductRank, must(Seed.RankKey(p, 3))), "product-comment-rank[prod=AbCdEfGhIj r rank=3]"},
		{dec(Seed, Comment, ck), "comment[order=OoOoOoOoOo prod=AbCdEfGhIj]"},
		{dec(Seed, Seller, []byte(p)), "seller[id=AbCdEfGhIj]"},
		{dec(Unique, Order, []byte("ab\x00cd\xffef\"g")), `order[id="ab\x00cd\xffef\"g"]`},
		{dec(Seed, User, []byte("좋아요A")), `user[id="좋아요A"]`},
		{dec(Seed, Product, []byte("ab cdefghi")), `product[id="ab cdefghi"]`},
		{dec(Seed, UserComment, must(Seed.UserCommentKey(u, 0, nil))), "user-comment[user=UuUuUuUuUu ts=1970-01-01T00:00:00.000Z]"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("got  %s\nwant %s", c.got, c.want)
		}
	}
	if s := (Key{}).String(); s != `""[]` {
		t.Errorf("zero Key = %s", s)
	}
}

// TestBadInput checks each rejected input names the value and the rule, and
// wraps the sentinel callers test for.
func TestBadInput(t *testing.T) {
	must := mustOf(t)
	ck := must(CommentKey("OoOoOoOoOo", "PpPpPpPpPp"))
	const p = "PpPpPpPpPp"
	errOf := func(_ []byte, err error) error { return err }
	keyErr := func(_ Key, err error) error { return err }
	cases := []struct {
		name string
		err  error
		kind error
		want string
	}{
		{"9-byte id", CheckID("ABCDEFGHI"), ErrBadID, `id "ABCDEFGHI" is 9 bytes, want 10`},
		{"11-byte id", errOf(EntityKey("ABCDEFGHIJK")), ErrBadID, `id "ABCDEFGHIJK" is 11 bytes, want 10`},
		{"empty id", CheckID(""), ErrBadID, `id "" is 0 bytes`},
		{"comment product", errOf(CommentKey("OoOoOoOoOo", "short")), ErrBadID, `id "short" is 5 bytes`},
		{"10 runes, 30 bytes", CheckID("좋아요좋아요좋아요좋"), ErrBadID, "is 30 bytes, want 10"},
		{"unknown table", keyErr(Seed.Decode("users", ck[:10])), ErrBadKey, `unknown table "users"`},
		{"encode unknown table", errOf(Encode(Seed, Key{Table: "x"})), ErrBadKey, `unknown table "x"`},
		{"rank 0", errOf(Seed.RankKey(p, 0)), ErrOutOfRange, "rank 0, want 1..32767"},
		{"rank 32768", errOf(Unique.RankKey(p, 32768)), ErrOutOfRange, "rank 32768"},
		{"negative ts", errOf(Seed.ProductCommentKey(p, -1, 0, ck)), ErrOutOfRange, "timestamp -1 ms is negative"},
		{"negative ts user", errOf(Unique.UserCommentKey(p, -5, ck)), ErrOutOfRange, "timestamp -5"},
		{"negative len", errOf(Seed.ProductCommentKey(p, 0, -1, ck)), ErrOutOfRange, "content length -1"},
		{"len over int32", errOf(Unique.ProductCommentKey(p, 0, math.MaxInt32+1, ck)), ErrOutOfRange, "content length 2147483648"},
		{"short comment key", errOf(Unique.ProductCommentKey(p, 0, 0, ck[:19])), ErrBadKey, "is 19 bytes, want 20"},
		{"nil comment key", errOf(Unique.UserCommentKey(p, 0, nil)), ErrBadKey, `comment key "" is 0 bytes`},
		{"other product's comment", errOf(Unique.ProductCommentKey("QqQqQqQqQq", 0, 0, ck)), ErrBadKey, `is for product "PpPpPpPpPp", not "QqQqQqQqQq"`},
		{"bad prefix id", errOf(Seed.RankPrefix("x")), ErrBadID, `id "x" is 1 bytes`},
	}
	for _, c := range cases {
		if !errors.Is(c.err, c.kind) || c.err == nil || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: error %v, want %v containing %q", c.name, c.err, c.kind, c.want)
		}
	}
}

// TestSeedIgnoresCommentKey: the seed layout must accept any comment key,
// including none, because it never reads it.
func TestSeedIgnoresCommentKey(t *testing.T) {
	must := mustOf(t)
	a := must(Seed.ProductCommentKey("PpPpPpPpPp", 5, 5, nil))
	b := must(Seed.ProductCommentKey("PpPpPpPpPp", 5, 5, []byte("junk")))
	if !bytes.Equal(a, b) {
		t.Errorf("seed key depends on the comment key: %q vs %q", a, b)
	}
}

func TestDecodeBadKeys(t *testing.T) {
	must := mustOf(t)
	r := newRand(2)
	for _, l := range allLayouts {
		for _, table := range Tables {
			good := must(Encode(l, genKey(r, l, table)))
			for _, bad := range [][]byte{nil, good[:len(good)-1], append(append([]byte{}, good...), 0)} {
				_, err := l.Decode(table, bad)
				if !errors.Is(err, ErrBadKey) || !strings.Contains(err.Error(), "bytes, want") {
					t.Errorf("%s %s: decode %d bytes: err %v", l.Name(), table, len(bad), err)
				}
			}
		}
	}
	ck := must(CommentKey("OoOoOoOoOo", "PpPpPpPpPp"))
	seedKey := must(Seed.ProductCommentKey("PpPpPpPpPp", 1, 1, ck))
	cases := []struct {
		name  string
		l     Layout
		table string
		key   []byte
		want  string
	}{
		{"seed key, unique decoder", Unique, ProductComment, seedKey, "want 33 in the unique layout"},
		{"c/r swapped", Seed, ProductRank, cat("PpPpPpPpPpc", []byte{0, 1}), `byte 10 is 'c', want separator 'r'`},
		{"r as c", Seed, ProductComment, append([]byte("PpPpPpPpPpr"), seedKey[11:]...), `want separator 'c'`},
		{"rank 0", Seed, ProductRank, cat("PpPpPpPpPpr", []byte{0, 0}), "rank 0"},
		{"negative rank", Unique, ProductRank, cat("PpPpPpPpPpr", []byte{0xff, 0xff}), "rank -1"},
		{"negative revTs", Seed, UserComment, cat("UuUuUuUuUu", bytes.Repeat([]byte{0xff}, 8)), "reversed timestamp 0xffffffffffffffff is negative"},
		{"negative revLen", Seed, ProductComment, cat("PpPpPpPpPpc", make([]byte, 8), []byte{0x80, 0, 0, 0}), "reversed length 0x80000000"},
	}
	for _, c := range cases {
		_, err := c.l.Decode(c.table, c.key)
		if !errors.Is(err, ErrBadKey) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want ErrBadKey containing %q", c.name, err, c.want)
		}
	}
}
