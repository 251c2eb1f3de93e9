package keys

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// wideBase is baseDesign with the product listing kept in the product's
// row, beside the product and its comments, counted: seed 002's shape.
// Line numbers are baseDesign's but for the tables changed, noted.
func wide(repl map[int][]string) string {
	lines := []string{
		"name: w",                    // 1
		"tables:",                    // 2
		"  user:",                    // 3
		"    key: id",                // 4
		"  seller:",                  // 5
		"    key: id",                // 6
		"  product:",                 // 7
		"    key: id",                // 8
		"    column: lit(p)",         // 9
		"  order:",                   // 10
		"    key: id",                // 11
		"  comment:",                 // 12
		"    in: product",            // 13
		"    key: productId",         // 14
		"    column: lit(c) orderId", // 15
		"  user-comment:",            // 16
		"    key: userId revTs orderId productId",           // 17
		"  product-comment:",                                // 18
		"    in: product",                                   // 19
		"    key: productId",                                // 20
		"    column: lit(l) lit(0x01) revTs revLen orderId", // 21
		"    meta: lit(l) lit(0x00)",                        // 22
		"  product-comment-rank:",                           // 23
		"    key: productId lit(r) rank",                    // 24
	}
	var out []string
	for i, l := range lines {
		if r, ok := repl[i+1]; ok {
			out = append(out, r...)
			continue
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n") + "\n"
}

func TestParseWide(t *testing.T) {
	d, err := Parse("w.yaml", []byte(wide(nil)))
	if err != nil {
		t.Fatal(err)
	}
	pc := d.Table(ProductComment)
	if pc.Store != Product || pc.RowLen != IDLen || pc.Len != IDLen+2+8+4+IDLen || !pc.Wide() || string(pc.Meta) != "l\x00" {
		t.Errorf("product-comment: store %s, row %d, len %d, wide %v, meta %q", pc.Store, pc.RowLen, pc.Len, pc.Wide(), pc.Meta)
	}
	if got := d.StoreTables(); strings.Join(got, ",") != "user,seller,product,order,user-comment,product-comment-rank" {
		t.Errorf("store tables %v", got)
	}
	if got := len(d.InStore(Product)); got != 3 {
		t.Errorf("%d tables in product's rows, want 3", got)
	}
	k := Key{Table: ProductComment, ProductID: "PfHsNeVbRc", OrderID: "OgDjYiMuQt", Timestamp: 1795435200000, ContentLen: 42}
	key, err := d.Encode(k)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(pc.Row(key), []byte(k.ProductID)) || !bytes.HasPrefix(pc.Column(key), []byte("l\x01")) ||
		!bytes.Equal(append(pc.Row(key), pc.Column(key)...), key) {
		t.Errorf("row %q column %q of %q", pc.Row(key), pc.Column(key), key)
	}
	back, err := d.Decode(ProductComment, key)
	if err != nil || back != k {
		t.Errorf("Decode = %+v, %v; want %+v", back, err, k)
	}
	// A store row is described as the row of the table kept there.
	if got := d.Describe(Product, []byte(k.ProductID)); got != "product[id=PfHsNeVbRc]" {
		t.Errorf("Describe(product row) = %s", got)
	}
	if d.Table(Seller).Wide() || d.Table(Seller).ColumnLen() != 1 || pc.ColumnLen() != pc.Len-pc.RowLen {
		t.Errorf("column widths: seller %d, product-comment %d", d.Table(Seller).ColumnLen(), pc.ColumnLen())
	}
}

func TestParseWideErrors(t *testing.T) {
	cases := []struct {
		name        string
		src         string
		line        int
		table, part string
		msg         string
	}{
		{"in an unknown table", wide(map[int][]string{13: {"    in: products"}}), 13, Comment, "", `in: "products"`},
		{"in itself", wide(map[int][]string{13: {"    in: comment"}}), 13, Comment, "", "its own rows"},
		{"in a table kept elsewhere", wide(map[int][]string{19: {"    in: comment"}}), 18, ProductComment, "", "itself kept in product's rows"},
		{"splits of a kept table", wide(map[int][]string{15: {"    column: lit(c) orderId", "    splits: 4"}}), 16, Comment, "", "split as product is"},
		{"empty column", wide(map[int][]string{15: {"    column: ''"}}), 15, Comment, "", "column: want its parts"},
		{"columns that do not differ", wide(map[int][]string{15: {"    column: lit(l) orderId"}}), 18, ProductComment, "", "different literals"},
		{"a column led by the seed's q", wide(map[int][]string{9: {"    column: lit(q)"}, 15: {"    column: lit(qc) orderId"}}), 12, Comment, "", "different literals"},
		{"a table of one column beside a column led by q", wide(map[int][]string{9: {}, 15: {"    column: lit(q) orderId"}}), 11, Comment, "", `"q"`},
		{"a listing not read from its owner's row", wide(map[int][]string{20: {"    key: hash(productId,4)"}, 21: {"    column: lit(l) lit(0x01) productId revTs revLen orderId"}}), 18, ProductComment, "", "must hold productId"},
		{"a listing read across rows", wide(map[int][]string{20: {"    key: productId revTs"}, 21: {"    column: lit(l) lit(0x01) revLen orderId"}}), 20, ProductComment, "revTs", "read from one row"},
		{"a column listing oldest first", wide(map[int][]string{21: {"    column: lit(l) lit(0x01) ts revLen orderId"}}), 21, ProductComment, "ts", "HBase reads columns in ascending order"},
		{"meta after the entries", wide(map[int][]string{22: {"    meta: lit(l) lit(0x02)"}}), 22, ProductComment, "", "must sort before"},
		{"meta of a field", wide(map[int][]string{22: {"    meta: lit(l) productId"}}), 22, ProductComment, "productId", "want literals"},
		{"meta without columns", wide(map[int][]string{17: {"    key: userId revTs orderId productId", "    meta: lit(t)"}}), 18, UserComment, "", "give the listing's column too"},
		{"meta of an entity", wide(map[int][]string{9: {"    column: lit(p)", "    meta: lit(a)"}}), 10, Product, "", "only a listing"},
		{"meta of columns led by time", wide(map[int][]string{19: {}, 20: {"    key: productId"}, 21: {"    column: revTs revLen orderId"}}), 21, ProductComment, "", "not a literal"},
		{"a copy in an entity", wide(map[int][]string{4: {"    key: id", "    value: comment"}}), 5, User, "", "only a listing's entries"},
		{"a copy of what", wide(map[int][]string{22: {"    meta: lit(l) lit(0x00)", "    value: copy"}}), 23, ProductComment, "", `"copy"`},
		{"one row with no time", wide(map[int][]string{0: {}}) + "  latest-comment:\n    key: lit(all)\n    column: orderId productId\n", 26, LatestComment, "", "ts or revTs"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := Parse("bad.yaml", []byte(c.src))
			var de *DesignError
			if !errors.As(err, &de) {
				t.Fatalf("Parse = %v, %v; want a *DesignError\n%s", d, err, c.src)
			}
			if de.Line != c.line || de.Table != c.table || de.Part != c.part || !strings.Contains(de.Msg, c.msg) {
				t.Errorf("got line %d table %q part %q msg %q;\nwant line %d table %q part %q msg containing %q\n%s",
					de.Line, de.Table, de.Part, de.Msg, c.line, c.table, c.part, c.msg, c.src)
			}
		})
	}
}
