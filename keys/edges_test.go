package keys

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

// What lint says of every built-in design and of the shipped example,
// word for word: each table's listing plan and every finding.
func TestLintReportsInFull(t *testing.T) {
	ids := "under --ids sequential ids count up, so one region takes every new"
	entity := func(table string) string {
		return "monotonic " + table + ": leads with id as it is: " + ids + " " + table
	}
	led := func(table, field string) string {
		return "monotonic " + table + ": leads with " + field + " as it is: " + ids + " row"
	}
	entities := []string{entity(User), entity(Seller), entity(Product), entity(Order), led(Comment, "orderId")}
	oneScan := func(owner string) string { return "by " + owner + ": 1 scan per page" }
	plain := map[string]string{UserComment: oneScan("userId"), ProductComment: oneScan("productId"), ProductRank: oneScan("productId")}
	lose := "get one key: the second put overwrites the first and the listing loses a comment"
	want := map[string]struct {
		listings map[string]string
		findings []string
	}{
		"seed": {plain, append([]string{
			"collision! user-comment: two comments by one user in one millisecond " + lose +
				" (one user commenting on several products of one order at once)",
			"collision! product-comment: two comments on one product in one millisecond with equal byte length " + lose,
		}, append(entities, led(UserComment, "userId"), led(ProductComment, "productId"), led(ProductRank, "productId"))...)},
		"unique": {plain, append(entities, led(UserComment, "userId"), led(ProductComment, "productId"), led(ProductRank, "productId"))},
		"salted": {map[string]string{
			UserComment:    "by userId: 8 scans per page (one per salt bucket), merged",
			ProductComment: "by productId: 8 scans per page (one per salt bucket), merged",
			ProductRank:    oneScan("productId"),
		}, append(entities, led(ProductRank, "productId"),
			"scatter-gather user-comment: a read cannot derive the salt: every listing page issues 8 scans, one per bucket, and merges them",
			"scatter-gather product-comment: a read cannot derive the salt: every listing page issues 8 scans, one per bucket, and merges them")},
		"hashed": {plain, nil},
		"time-led": {map[string]string{
			UserComment:    oneScan("userId"),
			ProductComment: "by productId: 1 scan per page, each over the whole table, other owners' rows dropped, read backwards",
			ProductRank:    oneScan("productId"),
		}, append(entities, led(UserComment, "userId"),
			"monotonic! product-comment: leads with ts: every new row sorts after every old one, so the last region takes every write",
			led(ProductRank, "productId"),
			"table-scan product-comment: productId is not in the key's prefix: a listing page reads the table from its end and drops other owners' rows")},
		"product-hash": {plain, append(entities[:4:4], led(Comment, "orderId"), led(UserComment, "userId"), led(ProductRank, "productId"),
			"rank-reads product-comment: the key holds no length: the ranking job reads every comment of a product to score it")},
	}
	src, err := os.ReadFile("../layouts/product-hash.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ph, err := Parse("product-hash.yaml", src)
	if err != nil {
		t.Fatal(err)
	}
	for name, w := range want {
		d := ph
		if name != "product-hash" {
			d = builtin(t, name)
		}
		r, err := d.Lint(RandomLetters, 8)
		if err != nil {
			t.Fatal(err)
		}
		for _, tl := range r.Tables {
			if tl.Listing != w.listings[tl.Table] {
				t.Errorf("%s %s: listing %q, want %q", name, tl.Table, tl.Listing, w.listings[tl.Table])
			}
		}
		var got []string
		for _, f := range r.Findings {
			mark := ""
			if f.Risk || f.Hotspot {
				mark = "!"
			}
			if f.Risk && f.Hotspot {
				mark = "!!"
			}
			got = append(got, fmt.Sprintf("%s%s %s: %s", f.Kind, mark, f.Table, f.Message))
		}
		if strings.Join(got, "\n") != strings.Join(w.findings, "\n") {
			t.Errorf("%s: findings\n%s\nwant\n%s", name, strings.Join(got, "\n"), strings.Join(w.findings, "\n"))
		}
		if r.CollisionRisk != (name == "seed") {
			t.Errorf("%s: collision risk %v", name, r.CollisionRisk)
		}
	}
}

// EncodeTo appends to what dst holds; Encode builds a key of its own.
func TestEncodeToAppends(t *testing.T) {
	for _, d := range builtins(t) {
		k := Key{Table: ProductComment, UserID: "UbXeWkQaTz", ProductID: "PfHsNeVbRc", OrderID: "OgDjYiMuQt",
			Timestamp: 1795435200000, ContentLen: 42}
		want := enc(t, d, k)
		got, err := d.EncodeTo([]byte("prefix|"), &k)
		if err != nil || string(got) != "prefix|"+string(want) {
			t.Errorf("%s: EncodeTo(prefix) = %q, %v; want the prefix then %q", d.Name(), got, err, want)
		}
	}
}

// The write path encodes every index key of a comment into one buffer:
// a key with salts and hashes costs no allocation then.
func TestEncodeToAllocatesNothing(t *testing.T) {
	for _, name := range []string{"salted", "hashed"} {
		d := builtin(t, name)
		k := Key{Table: UserComment, UserID: "UbXeWkQaTz", ProductID: "PfHsNeVbRc", OrderID: "OgDjYiMuQt",
			Timestamp: 1795435200000, ContentLen: 42}
		buf := make([]byte, 0, 256)
		if n := testing.AllocsPerRun(100, func() {
			if _, err := d.EncodeTo(buf[:0], &k); err != nil {
				t.Fatal(err)
			}
		}); n != 0 {
			t.Errorf("%s: %v allocations per key, want 0", name, n)
		}
	}
}

// reverse(F) writes the field's bytes last first, and reads them back.
func TestReversePart(t *testing.T) {
	d, err := Parse("reverse.yaml", []byte(edit(4, "    key: reverse(id)")))
	if err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]string{"ABCDEFGHIJ": "JIHGFEDCBA", "abcdefghiK": "Kihgfedcba"} {
		b, err := d.EntityKey(User, id)
		if err != nil || string(b) != want {
			t.Errorf("reverse(%s) = %q, %v; want %q", id, b, err, want)
		}
		k, err := d.Decode(User, b)
		if err != nil || k.ID != id {
			t.Errorf("decode %q = %+v, %v; want id %s", b, k, err, id)
		}
	}
	l := listingOf(t, mustParse(t, edit(16, "    key: reverse(productId) lit(c) revTs revLen")), ProductComment, "ABCDEFGHIJ")
	if len(l.Branches) != 1 || string(l.Branches[0]) != "JIHGFEDCBAc" {
		t.Errorf("listing by a reversed id: branches %q, want [\"JIHGFEDCBAc\"]", l.Branches)
	}
}

func mustParse(t *testing.T, src string) *Design {
	t.Helper()
	d, err := Parse("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// A salt the key's own fields cannot check must still be one of its
// buckets: 0..N-1.
func TestDecodeSaltBucketRange(t *testing.T) {
	d := mustParse(t, edit(14, "    key: salt(orderId,productId,8) userId revTs"))
	k := Key{Table: UserComment, UserID: "UbXeWkQaTz", ProductID: "PfHsNeVbRc", OrderID: "OgDjYiMuQt", Timestamp: 1795435200000}
	b := enc(t, d, k)
	for bucket := range 10 {
		b[0] = byte(bucket)
		_, err := d.Decode(UserComment, b)
		if ok := bucket < 8; (err == nil) != ok || (!ok && !strings.Contains(fmt.Sprint(err), fmt.Sprintf("bucket %d, want 0..7", bucket))) {
			t.Errorf("bucket %d: %v", bucket, err)
		}
	}
}

func TestHas(t *testing.T) {
	d := builtin(t, "salted")
	pc := d.Table(ProductComment)
	cases := []struct {
		kind  PartKind
		field string
		want  bool
	}{
		{PartRevLen, "", true}, {PartLen, "", false}, {PartRevTs, "", true}, {PartTs, "", false},
		{PartField, FieldProductID, true}, {PartField, FieldOrderID, true}, {PartField, FieldUserID, false},
		{PartField, "", true}, {PartHash, "", false}, {PartSalt, "", true}, {PartLiteral, "", true},
		{PartRank, FieldProductID, false},
	}
	for _, c := range cases {
		if got := pc.Has(c.kind, c.field); got != c.want {
			t.Errorf("salted product-comment Has(%d, %q) = %v, want %v", c.kind, c.field, got, c.want)
		}
	}
}

// What an error or a key's description shows of a bad value: up to
// maxShown bytes, then "..."; printable ASCII bare where that is the form,
// anything with a space, a quote or other bytes quoted.
func TestShownBytes(t *testing.T) {
	fits, over := strings.Repeat("x", maxShown), strings.Repeat("x", maxShown+1)
	for _, c := range []struct{ got, want string }{
		{showBytes(fits), fits},
		{showBytes(over), fits + "..."},
		{showBytes(""), `""`},
		{showBytes("a b"), `"a b"`},
		{showBytes("a~b"), "a~b"},
		{showBytes("!ok"), "!ok"},
		{showBytes("a\x7fb"), `"a\x7fb"`},
		{showBytes(`a"b`), `"a\"b"`},
		{showBytes(`a\b`), `"a\\b"`},
		{quotedKey([]byte(fits)), `"` + fits + `"`},
		{quotedKey([]byte(over)), `"` + fits + `"...`},
		{quoted(fits), `"` + fits + `"`},
		{quoted(over), `"` + fits + `"...`},
	} {
		if c.got != c.want {
			t.Errorf("shown %q, want %q", c.got, c.want)
		}
	}
}

// A design error names what it knows of where: file, line, table, part.
func TestDesignErrorText(t *testing.T) {
	for _, c := range []struct {
		e    DesignError
		want string
	}{
		{DesignError{File: "d.yaml", Msg: "bad"}, "d.yaml: bad"},
		{DesignError{File: "d.yaml", Line: 1, Msg: "bad"}, "d.yaml:1: bad"},
		{DesignError{File: "d.yaml", Line: 7, Table: "user", Msg: "bad"}, "d.yaml:7: table user: bad"},
		{DesignError{File: "d.yaml", Part: "ts", Msg: "bad"}, `d.yaml: part "ts": bad`},
		{DesignError{File: "d.yaml", Line: 2, Table: "user", Part: "ts", Msg: "bad"}, `d.yaml:2: table user: part "ts": bad`},
	} {
		if got := c.e.Error(); got != c.want || !errors.Is(&c.e, ErrBadDesign) {
			t.Errorf("%+v: %q, want %q", c.e, got, c.want)
		}
	}
}

// A salt of up to 256 buckets takes one byte, more take two.
func TestSaltWidth(t *testing.T) {
	for buckets, width := range map[int]int{1: 1, 2: 1, 255: 1, 256: 1, 257: 2, MaxBuckets: 2} {
		d := mustParse(t, edit(14, fmt.Sprintf("    key: salt(userId,%d) userId revTs", buckets)))
		if p := d.Table(UserComment).Parts[0]; p.Width != width || d.Table(UserComment).Len != width+IDLen+8 {
			t.Errorf("salt of %d buckets: %d bytes, want %d", buckets, p.Width, width)
		}
	}
}

// A table may be split into as many as MaxRegions regions, no more.
func TestSplitsCountBounds(t *testing.T) {
	for n, ok := range map[int]bool{0: false, 1: true, MaxRegions: true, MaxRegions + 1: false} {
		_, err := Parse("t.yaml", []byte(edit(4, "    key: id", fmt.Sprintf("    splits: %d", n))))
		if (err == nil) != ok {
			t.Errorf("splits: %d: %v", n, err)
		}
	}
}

// A cut takes the fewest leading positions whose values number at least
// 1000 per region: a salt of 2000 buckets is enough for 2 regions, and the
// cut is a bucket alone.
func TestCutStopsAtEnoughPrefixes(t *testing.T) {
	d := mustParse(t, edit(14, "    key: salt(orderId,productId,2000) userId revTs", "    splits: 2"))
	s, err := d.Table(UserComment).SplitPoints(RandomLetters, 8)
	if err != nil || len(s) != 1 || !bytes.Equal(s[0], []byte{0x03, 0xe8}) {
		t.Errorf("2000 buckets into 2: %q, %v; want [\"\\x03\\xe8\"] (bucket 1000)", s, err)
	}
	d = mustParse(t, edit(14, "    key: salt(orderId,productId,1999) userId revTs", "    splits: 2"))
	s, err = d.Table(UserComment).SplitPoints(RandomLetters, 8)
	if err != nil || len(s) != 1 || len(s[0]) != 3 {
		t.Errorf("1999 buckets into 2: %q, %v; want a bucket and an id's first letter", s, err)
	}
}
