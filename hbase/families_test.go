package hbase

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"commentbench/hbase/wire"
)

// cellsString renders a result as "fam:q=v@ts"-less "fam:q=v" items.
func cellsString(r Result) string {
	var parts []string
	for _, c := range r.Cells {
		parts = append(parts, fmt.Sprintf("%s:%s=%s", c.Family, c.Qualifier, c.Value))
	}
	return strings.Join(parts, " ")
}

func cellAt(fam, q, v string) Cell {
	return Cell{Family: []byte(fam), Qualifier: []byte(q), Value: []byte(v)}
}

// createFamilies creates table "mf" with families a (3 versions), b and c,
// split at "m", and writes at timestamp 100:
//
//	r1: a:q a:r b:q c:q      r2: a:q      r3: b:q c:x      s1: c:q
func createFamilies(t *testing.T, tc *testCluster) {
	t.Helper()
	ctx := context.Background()
	fams := []FamilySchema{{Name: "c"}, {Name: "a", Versions: 3}, {Name: "b"}}
	if err := tc.c.CreateTableSchema(ctx, "mf", fams, [][]byte{[]byte("m")}); err != nil {
		t.Fatal(err)
	}
	muts := []Mutation{
		{Row: []byte("r1"), Cells: []Cell{cellAt("c", "q", "c1"), cellAt("a", "q", "a1"), cellAt("b", "q", "b1"), cellAt("a", "r", "ar1")}},
		{Row: []byte("r2"), Cells: []Cell{cellAt("a", "q", "a2")}},
		{Row: []byte("r3"), Cells: []Cell{cellAt("b", "q", "b3"), cellAt("c", "x", "cx3")}},
		{Row: []byte("s1"), Cells: []Cell{cellAt("c", "q", "c-s1")}},
	}
	for _, m := range muts {
		for i := range m.Cells {
			m.Cells[i].Timestamp = 100
		}
	}
	if err := tc.c.Mutate(ctx, "mf", muts); err != nil {
		t.Fatal(err)
	}
}

func getRow(t *testing.T, c *Client, table string, g Get) string {
	t.Helper()
	r, err := c.GetRow(context.Background(), table, g)
	if err != nil {
		t.Fatal(err)
	}
	return cellsString(r)
}

func scanCells(t *testing.T, c *Client, table string, sc Scan) string {
	t.Helper()
	var rows []string
	if _, err := c.Scan(context.Background(), table, sc, func(r Result) bool {
		rows = append(rows, string(r.Row)+"{"+cellsString(r)+"}")
		return true
	}); err != nil {
		t.Fatal(err)
	}
	return strings.Join(rows, " ")
}

// A table of three families through the client: one mutation writes
// several families, reads take every family or some columns, in HBase's
// family order, with each family's VERSIONS, and deletes take one family
// or one column of it, or the whole row.
func TestMultiFamilyTable(t *testing.T) {
	tc := startCluster(t)
	c, ctx := tc.c, context.Background()
	createFamilies(t, tc)

	r1 := []byte("r1")
	if got := getRow(t, c, "mf", Get{Row: r1}); got != "a:q=a1 a:r=ar1 b:q=b1 c:q=c1" {
		t.Errorf("every family: %s", got)
	}
	if got := getRow(t, c, "mf", Get{Row: r1, Columns: []Column{{Family: "c"}, {Family: "a", Qualifiers: [][]byte{[]byte("r")}}}}); got != "a:r=ar1 c:q=c1" {
		t.Errorf("c and a:r: %s", got)
	}
	if got := scanCells(t, c, "mf", Scan{Family: "c"}); got != "r1{c:q=c1} r3{c:x=cx3} s1{c:q=c-s1}" {
		t.Errorf("scan of family c: %s", got)
	}
	if rs, err := c.BatchGet(ctx, "mf", [][]byte{[]byte("r2"), []byte("r3")}, "b"); err != nil || rs[0].Found() || cellsString(rs[1]) != "b:q=b3" {
		t.Errorf("batch get of family b: %v %v", rs, err)
	}

	// VERSIONS: a keeps 3 of 4 writes, b one.
	for i := 2; i <= 4; i++ {
		m := Mutation{Row: r1, Cells: []Cell{cellAt("a", "q", fmt.Sprint("a", i)), cellAt("b", "q", fmt.Sprint("b", i))}}
		for j := range m.Cells {
			m.Cells[j].Timestamp = int64(100 + i)
		}
		if err := c.Mutate(ctx, "mf", []Mutation{m}); err != nil {
			t.Fatal(err)
		}
	}
	if got := getRow(t, c, "mf", Get{Row: r1, Columns: []Column{{Family: "a", Qualifiers: [][]byte{[]byte("q")}}, {Family: "b"}}, MaxVersions: 5}); got != "a:q=a4 a:q=a3 a:q=a2 b:q=b4" {
		t.Errorf("versions per family: %s", got)
	}

	del := func(cells ...Cell) {
		t.Helper()
		if err := c.Mutate(ctx, "mf", []Mutation{{Row: r1, Cells: cells}}); err != nil {
			t.Fatal(err)
		}
	}
	del(Cell{Family: []byte("a"), Type: wire.TypeDeleteFamily})
	if got := getRow(t, c, "mf", Get{Row: r1}); got != "b:q=b4 c:q=c1" {
		t.Errorf("after deleting family a: %s", got)
	}
	del(Cell{Family: []byte("c"), Qualifier: []byte("q"), Type: wire.TypeDeleteColumn})
	if got := getRow(t, c, "mf", Get{Row: r1}); got != "b:q=b4" {
		t.Errorf("after deleting c:q: %s", got)
	}
	if err := c.Mutate(ctx, "mf", []Mutation{{Row: []byte("r3"), DeleteRow: true}}); err != nil {
		t.Fatal(err)
	}
	if got := getRow(t, c, "mf", Get{Row: []byte("r3")}); got != "" {
		t.Errorf("after deleting row r3: %s", got)
	}
}

// Filters that look at families, qualifiers and values run per cell in
// the region server; a row left without cells is not returned.
func TestFamilyScopedFilters(t *testing.T) {
	tc := startCluster(t)
	c := tc.c
	createFamilies(t, tc)
	cases := []struct {
		name string
		f    Filter
		want string
	}{
		{"family b", FamilyFilter{Op: Equal, Value: []byte("b")}, "r1{b:q=b1} r3{b:q=b3}"},
		{"families below c", FamilyFilter{Op: Less, Value: []byte("c")}, "r1{a:q=a1 a:r=ar1 b:q=b1} r2{a:q=a2} r3{b:q=b3}"},
		{"qualifier x", QualifierFilter{Op: Equal, Value: []byte("x")}, "r3{c:x=cx3}"},
		{"values above b9", ValueFilter{Op: Greater, Value: []byte("b9")}, "r1{c:q=c1} r3{c:x=cx3} s1{c:q=c-s1}"},
		{"column prefix r", ColumnPrefixFilter{Prefix: []byte("r")}, "r1{a:r=ar1}"},
		{"rows whose a:q is a2", SingleColumnValueFilter{Family: []byte("a"), Qualifier: []byte("q"), Op: Equal, Value: []byte("a2"), FilterIfMissing: true, LatestVersionOnly: true}, "r2{a:q=a2}"},
		{"rows whose a:q is not a1, or missing", SingleColumnValueFilter{Family: []byte("a"), Qualifier: []byte("q"), Op: NotEqual, Value: []byte("a1"), LatestVersionOnly: true},
			"r2{a:q=a2} r3{b:q=b3 c:x=cx3} s1{c:q=c-s1}"},
		{"family c and prefix r", FilterList{All: true, Filters: []Filter{FamilyFilter{Op: Equal, Value: []byte("c")}, PrefixFilter{Prefix: []byte("r")}}}, "r1{c:q=c1} r3{c:x=cx3}"},
		{"family a or qualifier x", FilterList{Filters: []Filter{FamilyFilter{Op: Equal, Value: []byte("a")}, QualifierFilter{Op: Equal, Value: []byte("x")}}},
			"r1{a:q=a1 a:r=ar1} r2{a:q=a2} r3{c:x=cx3}"},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			if got := scanCells(t, c, "mf", Scan{Filter: tt.f}); got != tt.want {
				t.Errorf("scan:\n got %s\nwant %s", got, tt.want)
			}
		})
	}
	// The same filters on a Get.
	if got := getRow(t, c, "mf", Get{Row: []byte("r1"), Filter: FamilyFilter{Op: GreaterOrEqual, Value: []byte("b")}}); got != "b:q=b1 c:q=c1" {
		t.Errorf("get with a family filter: %s", got)
	}
	if got := getRow(t, c, "mf", Get{Row: []byte("r1"), Filter: SingleColumnValueFilter{Family: []byte("b"), Qualifier: []byte("q"), Op: Equal, Value: []byte("nope"), LatestVersionOnly: true}}); got != "" {
		t.Errorf("get whose row a column value filter drops: %s", got)
	}
}

// A Get or Scan naming a family the table lacks fails with
// NoSuchColumnFamilyException, wherever the family comes in the list:
// after a whole-family column too. A put into one fails the same way.
func TestMissingFamily(t *testing.T) {
	tc := startCluster(t)
	c, ctx := tc.c, context.Background()
	createFamilies(t, tc)
	for _, cols := range [][]Column{
		{{Family: "nope"}},
		{{Family: "a"}, {Family: "nope"}},
		{{Family: "a"}, {Family: "nope", Qualifiers: [][]byte{[]byte("q")}}},
		{{Family: "a", Qualifiers: [][]byte{[]byte("q")}}, {Family: "nope"}},
	} {
		if _, err := c.GetRow(ctx, "mf", Get{Row: []byte("r1"), Columns: cols}); !errors.Is(err, ErrNoSuchFamily) {
			t.Errorf("get %v: %v, want ErrNoSuchFamily", cols, err)
		}
		if _, err := c.Scan(ctx, "mf", Scan{Columns: cols}, func(Result) bool { return true }); !errors.Is(err, ErrNoSuchFamily) {
			t.Errorf("scan %v: %v, want ErrNoSuchFamily", cols, err)
		}
	}
	if got := getRow(t, c, "mf", Get{Row: []byte("r1"), Columns: []Column{{Family: "a"}, {Family: "b", Qualifiers: [][]byte{[]byte("q")}}}}); got != "a:q=a1 a:r=ar1 b:q=b1" {
		t.Errorf("a whole family then a column: %s", got)
	}
	err := c.Mutate(ctx, "mf", []Mutation{{Row: []byte("r1"), Cells: []Cell{cellAt("nope", "q", "v")}}})
	if !errors.Is(err, ErrNoSuchFamily) {
		t.Errorf("put into a missing family: %v", err)
	}
	tables, err := c.ListTables(ctx, "mf")
	if err != nil || !slices.Equal(tables, []string{"mf"}) {
		t.Errorf("ListTables: %v %v", tables, err)
	}
}
