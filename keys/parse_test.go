package keys

import (
	"errors"
	"strings"
	"testing"
)

// baseDesign is a valid design whose line numbers the error cases rely
// on: each case edits one line (1-based) or appends lines.
var baseDesign = []string{
	"name: t", // 1
	"tables:", // 2
	"  user:", // 3
	"    key: id",
	"  seller:", // 5
	"    key: id",
	"  product:", // 7
	"    key: id",
	"  order:", // 9
	"    key: id",
	"  comment:", // 11
	"    key: orderId productId",
	"  user-comment:", // 13
	"    key: userId revTs",
	"  product-comment:", // 15
	"    key: productId lit(c) revTs revLen",
	"  product-comment-rank:", // 17
	"    key: productId lit(r) rank",
}

// edit replaces line n (1-based) of the base design with repl, which may
// be several lines or none; n = 0 appends repl.
func edit(n int, repl ...string) string {
	lines := append([]string(nil), baseDesign...)
	if n == 0 {
		lines = append(lines, repl...)
	} else {
		lines = append(lines[:n-1], append(repl, lines[n:]...)...)
	}
	return strings.Join(lines, "\n") + "\n"
}

func TestParseBase(t *testing.T) {
	d, err := Parse("base.yaml", []byte(edit(0)))
	if err != nil {
		t.Fatal(err)
	}
	for _, table := range Tables {
		if Seed.Table(table).Len != d.Table(table).Len || Seed.Diff(d) != "" {
			t.Fatalf("the base design is not the seed's keys: %s", Seed.Diff(d))
		}
	}
}

func TestParseErrors(t *testing.T) {
	long := "lit(0x" + strings.Repeat("ab", MaxKeyLen) + ")"
	cases := []struct {
		name        string
		src         string
		line        int
		table, part string
		msg         string
	}{
		{"unknown part", edit(16, "    key: productId lit(c) revTs revLenn"), 16, ProductComment, "revLenn", "unknown part"},
		{"unknown part in a list", edit(16, "    key:", "      - productId", "      - rev(ts)"), 18, ProductComment, "rev(ts)", "unknown part"},
		{"missing table", edit(5, "  sellers:"), 5, "sellers", "", "unknown table"},
		{"table left out", strings.Replace(edit(0), "  seller:\n    key: id\n", "", 1), 1, Seller, "", "missing"},
		{"product-comment without productId", edit(16, "    key: userId lit(c) revTs revLen"), 16, ProductComment, "", "must hold it"},
		{"user-comment without time", edit(14, "    key: userId orderId"), 14, UserComment, "", "ts or revTs"},
		{"key too long", edit(4, "    key: id "+long), 4, User, "", "HBase takes at most 32767"},
		{"salt of 0 buckets", edit(14, "    key: salt(userId,0) userId revTs"), 14, UserComment, "salt(userId,0)", "want 1..65536"},
		{"salt of 65537 buckets", edit(14, "    key: salt(userId,65537) userId revTs"), 14, UserComment, "salt(userId,65537)", "want 1..65536"},
		{"salt without buckets", edit(14, "    key: salt(userId) userId revTs"), 14, UserComment, "salt(userId)", "bucket count"},
		{"hash of 9 bytes", edit(8, "    key: hash(id,9) id"), 8, Product, "hash(id,9)", "1..8 bytes"},
		{"duplicate table", edit(0, "  user:", "    key: id"), 19, User, "", "given twice"},
		{"unknown top-level key", edit(2, "colour: red", "tables:"), 2, "", "", `unknown key "colour"`},
		{"duplicate top-level key", edit(0, "name: u"), 19, "", "", "name given twice"},
		{"unknown key in a table", edit(6, "    key: id", "    region: 3"), 7, Seller, "", `unknown key "region"`},
		{"userId in the comment table", edit(12, "    key: orderId productId userId"), 12, Comment, "userId", "may use orderId, productId, not userId"},
		{"unknown field", edit(12, "    key: orderId productId reverse(commentId)"), 12, Comment, "reverse(commentId)", `unknown field "commentId"`},
		{"rank outside the ranking", edit(16, "    key: productId lit(c) revTs revLen rank"), 16, ProductComment, "rank", "this table has no rank"},
		{"a field twice", edit(14, "    key: userId revTs reverse(userId)"), 14, UserComment, "reverse(userId)", "appears twice"},
		{"a timestamp twice", edit(14, "    key: userId revTs ts"), 14, UserComment, "ts", "holds"},
		{"bad literal", edit(16, "    key: productId lit(0xabc) revTs revLen"), 16, ProductComment, "lit(0xabc)", "even number of hex digits"},
		{"buckets without a leading salt", edit(16, "    key: productId lit(c) revTs revLen", "    splits: buckets"), 17, ProductComment, "", "starts with a salt"},
		{"splits not ascending", edit(16, "    key: productId lit(c) revTs revLen", "    splits:", "      - 0x10", "      - 0x20", "      - 0x1f"), 20, ProductComment, "", "ascending"},
		{"splits repeat", edit(16, "    key: productId lit(c) revTs revLen", "    splits: [b, b]"), 17, ProductComment, "", "ascending"},
		{"splits of bad hex", edit(16, "    key: productId lit(c) revTs revLen", "    splits:", "      - A", "      - 0xzz"), 19, ProductComment, "", "hex digits"},
		{"splits count 0", edit(4, "    key: id", "    splits: 0"), 5, User, "", "a count 1..65536"},
		{"listing ordered by orderId", edit(16, "    key: orderId productId revTs"), 16, ProductComment, "orderId", "first part that varies must be ts or revTs"},
		{"listing led by productId, then orderId", edit(16, "    key: productId lit(c) orderId revTs"), 16, ProductComment, "orderId", "not orderId"},
		{"timeline under a salt too wide to read", edit(14, "    key: userId salt(orderId,productId,5000) revTs"), 14, UserComment, "salt(orderId,productId,5000)", "must be ts or revTs"},
		{"ranking not led by productId", edit(18, "    key: hash(productId,2) lit(r) rank productId"), 17, ProductRank, "", "one prefix scan"},
		{"no name", edit(1, "description: x"), 1, "", "", "name is missing"},
		{"bad name", edit(1, "name: a b"), 1, "", "", "want letters"},
		{"not a mapping", "- a\n- b\n", 1, "", "", "want a mapping"},
		{"tables not a mapping", "name: t\ntables: 3\n", 2, "", "", "tables: want a mapping"},
		{"table without key", edit(4, "    splits: 3"), 4, User, "", "key: want its parts"},
		{"not YAML", "name: [\n", 0, "", "", "not YAML"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := Parse("bad.yaml", []byte(c.src))
			var de *DesignError
			if !errors.As(err, &de) || !errors.Is(err, ErrBadDesign) {
				t.Fatalf("Parse = %v, %v; want a *DesignError wrapping ErrBadDesign\n%s", d, err, c.src)
			}
			if de.File != "bad.yaml" || de.Line != c.line || de.Table != c.table || de.Part != c.part || !strings.Contains(de.Msg, c.msg) {
				t.Errorf("got file %q line %d table %q part %q msg %q;\nwant bad.yaml line %d table %q part %q msg containing %q",
					de.File, de.Line, de.Table, de.Part, de.Msg, c.line, c.table, c.part, c.msg)
			}
			if !strings.HasPrefix(err.Error(), "bad.yaml") {
				t.Errorf("error %q does not start with the file", err)
			}
		})
	}
}

// TestParseAccepts is the other side of the limits: the largest key, the
// bucket counts at each end, and a key as a YAML list.
func TestParseAccepts(t *testing.T) {
	fill := "lit(0x" + strings.Repeat("ab", MaxKeyLen-IDLen) + ")"
	for name, src := range map[string]string{
		"longest key":       edit(4, "    key: id "+fill),
		"1 bucket":          edit(14, "    key: salt(userId,1) userId revTs"),
		"65536 buckets":     edit(14, "    key: salt(userId,65536) userId revTs"),
		"list key":          edit(12, "    key: [orderId, 'productId']"),
		"ranking by hash":   edit(18, "    key: hash(productId,2) productId lit(r) rank"),
		"buckets after lit": edit(14, "    key: lit(u) salt(orderId,productId,300) userId revTs", "    splits: buckets"),
		"no splits":         edit(4, "    key: id", "    splits: []"),
	} {
		d, err := Parse(name, []byte(src))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if name == "longest key" && d.Table(User).Len != MaxKeyLen {
			t.Errorf("longest key: %d bytes", d.Table(User).Len)
		}
		if s, err := d.Table(User).SplitPoints(RandomLetters, 8); name == "no splits" && (err != nil || len(s) != 0) {
			t.Errorf("no splits: %q, %v; want one region", s, err)
		}
		if name == "65536 buckets" && d.Table(UserComment).Parts[0].Width != 2 {
			t.Errorf("65536 buckets: the salt is %d bytes, want 2", d.Table(UserComment).Parts[0].Width)
		}
	}
}
