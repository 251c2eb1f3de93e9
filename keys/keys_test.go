package keys

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/quick"
	"time"
	"unicode/utf8"
)

func TestRoundTripAllTables(t *testing.T) {
	r := newRand(1)
	for _, d := range builtins(t) {
		for _, table := range Tables {
			tk := d.Table(table)
			for range 2000 {
				k := genKey(r, d, table)
				b := enc(t, d, k)
				if len(b) != tk.Len {
					t.Fatalf("%s: %v is %d bytes, want %d", d.Name(), k, len(b), tk.Len)
				}
				got, err := d.Decode(table, b)
				if err != nil || got != k {
					t.Fatalf("%s: decode(encode(%v)) = %v, %v", d.Name(), k, got, err)
				}
			}
		}
	}
}

// TestMatchesHandWritten is the design's contract with the code it
// replaced: seed and unique, read from their files, build the same bytes
// as the hand-written layouts for every table, and decode every key the
// same way, valid or not.
func TestMatchesHandWritten(t *testing.T) {
	r := newRand(13)
	for i, l := range handLayouts {
		d := allDesigns[i]
		for _, table := range Tables {
			if got := d.Table(table).Len; got != l.wantLen(table) {
				t.Errorf("%s %s: key is %d bytes, the hand-written one %d", d.Name(), table, got, l.wantLen(table))
			}
			for range 5000 {
				k := genKey(r, d, table)
				want, err := l.Encode(k)
				if err != nil {
					t.Fatalf("hand %s: encode %v: %v", l.name, k, err)
				}
				if got := enc(t, d, k); !bytes.Equal(got, want) {
					t.Fatalf("%s %v: design gives %x, hand-written %x", d.Name(), k, got, want)
				}
				// Decoders must agree on mutated keys too: flip a byte,
				// or cut or extend the key.
				bad := slices.Clone(want)
				switch r.IntN(3) {
				case 0:
					bad[r.IntN(len(bad))] ^= byte(1 + r.IntN(255))
				case 1:
					bad = bad[:r.IntN(len(bad))]
				case 2:
					bad = append(bad, byte(r.IntN(256)))
				}
				for _, b := range [][]byte{want, bad} {
					hk, herr := l.Decode(table, b)
					dk, derr := d.Decode(table, b)
					if (herr == nil) != (derr == nil) || hk != dk {
						t.Fatalf("%s %s %q: design decodes %v, %v; hand-written %v, %v", d.Name(), table, b, dk, derr, hk, herr)
					}
					if derr != nil && !errors.Is(derr, ErrBadKey) {
						t.Fatalf("%s %s %q: error %v does not wrap ErrBadKey", d.Name(), table, b, derr)
					}
				}
			}
		}
	}
}

// TestMatchesHandWrittenQuick uses arbitrary bytes as ids and arbitrary
// values, valid or not: the design refuses exactly what the hand-written
// builders refuse, and builds the same bytes otherwise.
func TestMatchesHandWrittenQuick(t *testing.T) {
	for i, l := range handLayouts {
		d := allDesigns[i]
		f := func(user, order, prod []byte, ts int64, n int, rank int16, short bool) bool {
			if !short { // mostly 10-byte ids, as quick rarely draws them
				user, order, prod = fit(user), fit(order), fit(prod)
			}
			if ts < 0 && n%2 == 0 {
				ts &= math.MaxInt64
			}
			if n%3 == 0 {
				n &= math.MaxInt32
			}
			u, o, p := string(user), string(order), string(prod)
			ck, _ := CommentKey(o, p)
			pairs := []struct {
				table      string
				hand       func() ([]byte, error)
				designWith Key
			}{
				{UserComment, func() ([]byte, error) { return l.UserCommentKey(u, ts, ck) },
					Key{UserID: u, Timestamp: ts, OrderID: o, ProductID: p}},
				{ProductComment, func() ([]byte, error) { return l.ProductCommentKey(p, ts, n, ck) },
					Key{ProductID: p, Timestamp: ts, ContentLen: n, OrderID: o}},
				{ProductRank, func() ([]byte, error) { return l.RankKey(p, int(rank)) }, Key{ProductID: p, Rank: int(rank)}},
				{Comment, func() ([]byte, error) { return CommentKey(o, p) }, Key{OrderID: o, ProductID: p}},
				{User, func() ([]byte, error) { return EntityKey(u) }, Key{ID: u}},
			}
			for _, c := range pairs {
				want, herr := c.hand()
				k := c.designWith
				k.Table = c.table
				got, derr := d.Encode(k)
				if (herr == nil) != (derr == nil) || !bytes.Equal(got, want) {
					t.Logf("%s %s %v: design %x, %v; hand-written %x, %v", d.Name(), c.table, k, got, derr, want, herr)
					return false
				}
			}
			return true
		}
		if err := quick.Check(f, &quick.Config{MaxCount: 5000}); err != nil {
			t.Errorf("%s: %v", d.Name(), err)
		}
	}
}

// fit pads or cuts b to an id's length.
func fit(b []byte) []byte {
	return append(b, make([]byte, IDLen)...)[:IDLen]
}

// TestRoundTripQuick uses arbitrary bytes as ids, not just letters: only the
// length is part of the key's contract.
func TestRoundTripQuick(t *testing.T) {
	must := mustOf(t)
	for _, d := range allDesigns {
		f := func(user, order, prod [IDLen]byte, ts int64, n int32, rank int16) bool {
			ts, n, rank = ts&math.MaxInt64, n&math.MaxInt32, max(rank&math.MaxInt16, 1)
			u, o, p := string(user[:]), string(order[:]), string(prod[:])
			uk := must(d.Encode(Key{Table: UserComment, UserID: u, Timestamp: ts, OrderID: o, ProductID: p}))
			pk := must(d.Encode(Key{Table: ProductComment, ProductID: p, Timestamp: ts, ContentLen: int(n), OrderID: o}))
			rk := must(d.RankKey(p, int(rank)))
			uu, err1 := d.Decode(UserComment, uk)
			pp, err2 := d.Decode(ProductComment, pk)
			rr, err3 := d.Decode(ProductRank, rk)
			return errors.Join(err1, err2, err3) == nil &&
				uu.UserID == u && uu.Timestamp == ts &&
				pp.ProductID == p && pp.Timestamp == ts && pp.ContentLen == int(n) &&
				rr.Rank == int(rank) && rr.ProductID == p &&
				(d == Seed || uu.OrderID == o && uu.ProductID == p && pp.OrderID == o)
		}
		if err := quick.Check(f, &quick.Config{MaxCount: 3000}); err != nil {
			t.Errorf("%s: %v", d.Name(), err)
		}
	}
}

func TestRoundTripEdges(t *testing.T) {
	const p, o, u = "PpPpPpPpPp", "OoOoOoOoOo", "UuUuUuUuUu"
	for _, d := range builtins(t) {
		for _, ts := range []int64{0, 1, math.MaxInt64 - 1, math.MaxInt64} {
			for _, content := range []string{"", "a", "좋아요", korean} {
				n := len(content)
				k, err := d.Decode(ProductComment, enc(t, d, Key{Table: ProductComment, ProductID: p, OrderID: o, Timestamp: ts, ContentLen: n}))
				if err != nil || k.Timestamp != ts || k.ContentLen != n {
					t.Errorf("%s ts=%d len=%d: got %v, %v", d.Name(), ts, n, k, err)
				}
				if content == korean && k.ContentLen == utf8.RuneCountInString(korean) {
					t.Errorf("length of Korean content decoded as runes")
				}
			}
			k, err := d.Decode(UserComment, enc(t, d, Key{Table: UserComment, UserID: u, OrderID: o, ProductID: p, Timestamp: ts}))
			if err != nil || k.Timestamp != ts {
				t.Errorf("%s user-comment ts=%d: got %v, %v", d.Name(), ts, k, err)
			}
		}
	}
}

// TestSeedBytes pins the seed design, as its file gives it, to SCHEMA.md's
// bytes exactly.
func TestSeedBytes(t *testing.T) {
	must := mustOf(t)
	const ts, n = 0x0102030405, 42
	const u, o, p = "UuUuUuUuUu", "OoOoOoOoOo", "PpPpPpPpPp"
	ck := must(CommentKey(o, p))
	rev := uint64(math.MaxInt64 - ts)
	revTs := []byte{byte(rev >> 56), byte(rev >> 48), byte(rev >> 40), byte(rev >> 32), byte(rev >> 24), byte(rev >> 16), byte(rev >> 8), byte(rev)}
	revLen := []byte{0x7f, 0xff, 0xff, 0xff - n}
	uc := Key{Table: UserComment, UserID: u, Timestamp: ts, OrderID: o, ProductID: p}
	pc := Key{Table: ProductComment, ProductID: p, Timestamp: ts, ContentLen: n, OrderID: o}
	cases := []struct {
		name      string
		got, want []byte
	}{
		{"user-comment", must(Seed.Encode(uc)), cat(u, revTs)},
		{"product-comment", must(Seed.Encode(pc)), cat(p+"c", revTs, revLen)},
		{"rank", must(Seed.RankKey(p, 3)), cat(p+"r", []byte{0, 3})},
		{"unique user-comment", must(Unique.Encode(uc)), cat(u, revTs, ck)},
		{"unique product-comment", must(Unique.Encode(pc)), cat(p+"c", revTs, revLen, []byte(o))},
		{"comment", must(Seed.CommentKey(o, p)), []byte(o + p)},
		{"comment helper", ck, []byte(o + p)},
		{"user prefix", listingOf(t, Seed, UserComment, u).Branches[0], []byte(u)},
		{"product prefix", listingOf(t, Unique, ProductComment, p).Branches[0], []byte(p + "c")},
		{"rank prefix", listingOf(t, Unique, ProductRank, p).Branches[0], []byte(p + "r")},
		{"entity", must(Seed.EntityKey(Seller, "EeEeEeEeEe")), []byte("EeEeEeEeEe")},
		{"entity helper", must(EntityKey("EeEeEeEeEe")), []byte("EeEeEeEeEe")},
	}
	for _, c := range cases {
		if !bytes.Equal(c.got, c.want) {
			t.Errorf("%s: got %x, want %x", c.name, c.got, c.want)
		}
	}
	for _, d := range allDesigns {
		for _, table := range []string{UserComment, ProductComment, ProductRank} {
			if n := len(listingOf(t, d, table, p).Branches); n != 1 {
				t.Errorf("%s %s: %d branches, want one prefix scan", d.Name(), table, n)
			}
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

func TestBuiltin(t *testing.T) {
	if got := strings.Join(BuiltinNames(), ","); got != "seed,unique,salted,hashed,time-led,between,feed" {
		t.Errorf("BuiltinNames() = %s", got)
	}
	names := BuiltinNames()
	names[0] = "changed"
	if BuiltinNames()[0] != "seed" {
		t.Error("BuiltinNames returns the package's own slice")
	}
	for _, name := range BuiltinNames() {
		d, err := Builtin(name)
		if err != nil || d.Name() != name || d.File() != "builtin:"+name || d.Description() == "" {
			t.Fatalf("Builtin(%q) = %v, %v", name, d, err)
		}
		l, err := Load(name)
		if err != nil || !bytes.Equal(l.Source(), d.Source()) {
			t.Errorf("Load(%q) = %v, %v; want the built-in", name, l, err)
		}
	}
	if !bytes.Equal(Seed.Source(), builtin(t, "seed").Source()) || !bytes.Equal(Unique.Source(), builtin(t, "unique").Source()) {
		t.Error("Seed and Unique are not the built-in files")
	}
	for _, bad := range []string{"Seed", "layout", ""} {
		_, err := Builtin(bad)
		if err == nil || !strings.Contains(err.Error(), "seed, unique, salted, hashed, time-led") {
			t.Errorf("Builtin(%q) error %v does not list the built-ins", bad, err)
		}
	}
}

func TestLoadFile(t *testing.T) {
	dir := t.TempDir()
	src := bytes.Replace(Seed.Source(), []byte("name: seed"), []byte("name: mine"), 1)
	for _, name := range []string{"mine.yaml", "mine.yml", "sub/mine"} {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, src, 0o644); err != nil {
			t.Fatal(err)
		}
		d, err := Load(path)
		if err != nil || d.Name() != "mine" || d.File() != path || !bytes.Equal(d.Source(), src) {
			t.Fatalf("Load(%s) = %v, %v", path, d, err)
		}
		k := Key{Table: ProductComment, ProductID: "PpPpPpPpPp", Timestamp: 5, ContentLen: 7}
		if !bytes.Equal(enc(t, d, k), enc(t, Seed, k)) {
			t.Errorf("a copy of seed builds other keys")
		}
	}
	if _, err := Load(filepath.Join(dir, "missing.yaml")); err == nil || errors.Is(err, ErrBadDesign) {
		t.Errorf("Load(missing file): %v, want a file error", err)
	}
	// A bare file name in the working directory is a file, unless it is a
	// built-in's name; a bare name that is neither lists the built-ins.
	t.Chdir(dir)
	if err := os.WriteFile("mydesign", src, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("salted", src, 0o644); err != nil {
		t.Fatal(err)
	}
	if d, err := Load("mydesign"); err != nil || d.Name() != "mine" {
		t.Errorf("Load(mydesign) = %v, %v; want the file in the working directory", d, err)
	}
	if d, err := Load("salted"); err != nil || d.Name() != "salted" {
		t.Errorf("Load(salted) = %v, %v; want the built-in", d, err)
	}
	if _, err := Load("nosuch"); err == nil || !strings.Contains(err.Error(), "seed, unique, salted") {
		t.Errorf("Load(nosuch): %v, want the built-ins listed", err)
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("name: x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var de *DesignError
	if _, err := Load(bad); !errors.As(err, &de) || de.File != bad {
		t.Errorf("Load(bad design): %v, want a DesignError naming %s", err, bad)
	}
}

func TestKeyString(t *testing.T) {
	ts := time.Date(2026, 11, 21, 4, 5, 6, 123e6, time.UTC).UnixMilli()
	const p, o, u = "AbCdEfGhIj", "OoOoOoOoOo", "UuUuUuUuUu"
	salted, hashed := builtin(t, "salted"), builtin(t, "hashed")
	pc := Key{Table: ProductComment, ProductID: p, OrderID: o, Timestamp: ts, ContentLen: 42}
	uc := Key{Table: UserComment, UserID: u, OrderID: o, ProductID: p, Timestamp: ts}
	describe := func(d *Design, k Key) string { return d.Describe(k.Table, enc(t, d, k)) }
	saltOf := Salt(8, o, p)
	hashOf := enc(t, hashed, Key{Table: Product, ID: p})[:2]
	cases := []struct{ got, want string }{
		{describe(Seed, pc), "product-comment[prod=AbCdEfGhIj c ts=2026-11-21T04:05:06.123Z len=42]"},
		{describe(Unique, pc), "product-comment[prod=AbCdEfGhIj c ts=2026-11-21T04:05:06.123Z len=42 order=OoOoOoOoOo]"},
		{describe(Seed, uc), "user-comment[user=UuUuUuUuUu ts=2026-11-21T04:05:06.123Z]"},
		{describe(Unique, uc), "user-comment[user=UuUuUuUuUu ts=2026-11-21T04:05:06.123Z order=OoOoOoOoOo prod=AbCdEfGhIj]"},
		{describe(Seed, Key{Table: ProductRank, ProductID: p, Rank: 3}), "product-comment-rank[prod=AbCdEfGhIj r rank=3]"},
		{describe(Seed, Key{Table: Comment, OrderID: o, ProductID: p}), "comment[order=OoOoOoOoOo prod=AbCdEfGhIj]"},
		{Seed.Describe(Seller, []byte(p)), "seller[id=AbCdEfGhIj]"},
		{Unique.Describe(Order, []byte("ab\x00cd\xffef\"g")), `order[id="ab\x00cd\xffef\"g"]`},
		{Seed.Describe(User, []byte("좋아요A")), `user[id="좋아요A"]`},
		{Seed.Describe(Product, []byte("ab cdefghi")), `product[id="ab cdefghi"]`},
		{describe(Seed, Key{Table: UserComment, UserID: u}), "user-comment[user=UuUuUuUuUu ts=1970-01-01T00:00:00.000Z]"},
		{describe(salted, pc), "product-comment[salt=" + strconv.Itoa(saltOf) + " prod=AbCdEfGhIj c ts=2026-11-21T04:05:06.123Z len=42 order=OoOoOoOoOo]"},
		{describe(hashed, Key{Table: Product, ID: p}), "product[hash=" + hex.EncodeToString(hashOf) + " id=AbCdEfGhIj]"},
		// Bytes a design cannot decode are shown, quoted, not misread.
		{Seed.Describe(ProductRank, []byte("AbCdEfGhIjc\x00\x01")), `product-comment-rank["AbCdEfGhIjc\x00\x01"]`},
		{Seed.Describe(User, []byte("short")), `user["short"]`},
		{pc.String(), "product-comment[prod=AbCdEfGhIj order=OoOoOoOoOo ts=2026-11-21T04:05:06.123Z len=42]"},
		{Key{Table: ProductRank, ProductID: p, Rank: 3}.String(), "product-comment-rank[prod=AbCdEfGhIj rank=3]"},
		{Key{Table: UserComment, UserID: u, Opaque: "\x01\xff"}.String(), "user-comment[user=UuUuUuUuUu ts=1970-01-01T00:00:00.000Z opaque=01ff]"},
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
	const p, o, u = "PpPpPpPpPp", "OoOoOoOoOo", "UuUuUuUuUu"
	errOf := func(_ []byte, err error) error { return err }
	keyErr := func(_ Key, err error) error { return err }
	listErr := func(_ Listing, err error) error { return err }
	salted := builtin(t, "salted")
	pc := func(ts int64, n int) Key {
		return Key{Table: ProductComment, ProductID: p, OrderID: o, Timestamp: ts, ContentLen: n}
	}
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
		{"design entity id", errOf(Seed.EntityKey(User, "ABCDEFGHIJK")), ErrBadID, `user key: id "ABCDEFGHIJK" is 11 bytes, want 10`},
		{"design comment product", errOf(Unique.CommentKey(o, "short")), ErrBadID, `comment key: productId "short" is 5 bytes`},
		{"unique without order", errOf(Unique.Encode(Key{Table: UserComment, UserID: u, ProductID: p})), ErrBadID, `user-comment key: orderId "" is 0 bytes`},
		{"salted without the comment", errOf(salted.Encode(Key{Table: UserComment, UserID: u})), ErrBadID, "user-comment key: salt(orderId,productId,8) needs orderId and productId"},
		{"unknown table", keyErr(Seed.Decode("users", []byte(p))), ErrBadKey, `unknown table "users"`},
		{"encode unknown table", errOf(Seed.Encode(Key{Table: "x"})), ErrBadKey, `unknown table "x"`},
		{"entity key of a non-table", errOf(Seed.EntityKey("", p)), ErrBadKey, `unknown table ""`},
		{"rank 0", errOf(Seed.RankKey(p, 0)), ErrOutOfRange, "rank 0, want 1..32767"},
		{"rank 32768", errOf(Unique.RankKey(p, 32768)), ErrOutOfRange, "rank 32768"},
		{"negative ts", errOf(Seed.Encode(pc(-1, 0))), ErrOutOfRange, "timestamp -1 ms is negative"},
		{"negative ts user", errOf(Unique.Encode(Key{Table: UserComment, UserID: u, OrderID: o, ProductID: p, Timestamp: -5})), ErrOutOfRange, "timestamp -5"},
		{"negative len", errOf(Seed.Encode(pc(0, -1))), ErrOutOfRange, "content length -1"},
		{"len over int32", errOf(Unique.Encode(pc(0, math.MaxInt32+1))), ErrOutOfRange, "content length 2147483648"},
		{"bad listing owner", listErr(Seed.Listing(ProductComment, "x")), ErrBadID, `id "x" is 1 bytes`},
		{"listing of an entity table", listErr(Seed.Listing(User, u)), nil, "user is not listed"},
		{"listing of a non-table", listErr(Seed.Listing("users", u)), ErrBadKey, `unknown table "users"`},
	}
	for _, c := range cases {
		if c.err == nil || (c.kind != nil && !errors.Is(c.err, c.kind)) || !strings.Contains(c.err.Error(), c.want) {
			t.Errorf("%s: error %v, want %v containing %q", c.name, c.err, c.kind, c.want)
		}
	}
}

// TestSeedIgnoresCommentIdentity: the seed's listing keys do not hold the
// comment's order, so they must build without it and not depend on it.
func TestSeedIgnoresCommentIdentity(t *testing.T) {
	a := enc(t, Seed, Key{Table: ProductComment, ProductID: "PpPpPpPpPp", Timestamp: 5, ContentLen: 5})
	b := enc(t, Seed, Key{Table: ProductComment, ProductID: "PpPpPpPpPp", Timestamp: 5, ContentLen: 5, OrderID: "OoOoOoOoOo"})
	if !bytes.Equal(a, b) {
		t.Errorf("seed key depends on the comment's order: %q vs %q", a, b)
	}
}

func TestDecodeBadKeys(t *testing.T) {
	r := newRand(2)
	for _, d := range builtins(t) {
		for _, table := range Tables {
			good := enc(t, d, genKey(r, d, table))
			for _, bad := range [][]byte{nil, good[:len(good)-1], append(slices.Clone(good), 0)} {
				_, err := d.Decode(table, bad)
				if !errors.Is(err, ErrBadKey) || !strings.Contains(err.Error(), "bytes, want") {
					t.Errorf("%s %s: decode %d bytes: err %v", d.Name(), table, len(bad), err)
				}
			}
		}
	}
	const p, o = "PpPpPpPpPp", "OoOoOoOoOo"
	seedKey := enc(t, Seed, Key{Table: ProductComment, ProductID: p, Timestamp: 1, ContentLen: 1})
	salted, hashed := builtin(t, "salted"), builtin(t, "hashed")
	saltedKey := enc(t, salted, Key{Table: ProductComment, ProductID: p, OrderID: o, Timestamp: 1, ContentLen: 1})
	saltedKey[0] = (saltedKey[0] + 1) % 8
	hashedKey := enc(t, hashed, Key{Table: User, ID: p})
	hashedKey[1] ^= 1
	// A salt over fields the key lacks is kept as Opaque, but a bucket
	// the salt cannot give is still an error.
	opaque, err := Parse("opaque.yaml", []byte(strings.Replace(string(Seed.Source()),
		"key: userId revTs", "key: salt(orderId,productId,8) userId revTs", 1)))
	if err != nil {
		t.Fatal(err)
	}
	opaqueKey := enc(t, opaque, Key{Table: UserComment, UserID: "UuUuUuUuUu", OrderID: o, ProductID: p})
	opaqueKey[0] = 9
	cases := []struct {
		name  string
		d     *Design
		table string
		key   []byte
		want  string
	}{
		{"seed key, unique decoder", Unique, ProductComment, seedKey, "is 23 bytes, want 33 in design unique"},
		{"c/r swapped", Seed, ProductRank, cat(p+"c", []byte{0, 1}), `bytes 10..10 are "c", want lit(r)`},
		{"r as c", Seed, ProductComment, append([]byte(p+"r"), seedKey[11:]...), `want lit(c)`},
		{"rank 0", Seed, ProductRank, cat(p+"r", []byte{0, 0}), "rank 0"},
		{"negative rank", Unique, ProductRank, cat(p+"r", []byte{0xff, 0xff}), "rank -1"},
		{"negative revTs", Seed, UserComment, cat("UuUuUuUuUu", bytes.Repeat([]byte{0xff}, 8)), "revTs 0xffffffffffffffff is negative"},
		{"negative revLen", Seed, ProductComment, cat(p+"c", make([]byte, 8), []byte{0x80, 0, 0, 0}), "revLen 0x80000000 is negative"},
		{"wrong salt", salted, ProductComment, saltedKey, "salt(orderId,productId,8) is"},
		{"wrong hash", hashed, User, hashedKey, "hash(id,2) is"},
		{"opaque bucket out of range", opaque, UserComment, opaqueKey, "bucket 9, want 0..7"},
	}
	for _, c := range cases {
		_, err := c.d.Decode(c.table, c.key)
		if !errors.Is(err, ErrBadKey) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want ErrBadKey containing %q", c.name, err, c.want)
		}
	}
}
