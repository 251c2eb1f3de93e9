package hbase

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"commentbench/hbase/wire"
)

// The expectations below follow HBase 2.5's source: ColumnRangeFilter and
// ColumnPaginationFilter.filterCell, FilterListWithAND/WithOR (with
// HBASE-20565), StoreScanner and UserScanQueryMatcher. Each is worked out
// cell by cell in the comments.

// wideRow writes row with columns prefix00..prefix(n-1), each valued v<i>
// at timestamp ts.
func wideRow(t *testing.T, c *Client, table, row, prefix string, n int, ts int64) {
	t.Helper()
	m := Mutation{Row: []byte(row), Family: "f"}
	for i := range n {
		m.Cells = append(m.Cells, Cell{Qualifier: fmt.Appendf(nil, "%s%02d", prefix, i), Value: fmt.Appendf(nil, "v%02d", i), Timestamp: ts})
	}
	if err := c.Mutate(context.Background(), table, []Mutation{m}); err != nil {
		t.Fatal(err)
	}
}

// columnsTable creates table name, family f keeping 3 versions, split at
// "m", with r1: c00..c09 and r2: x00..x02.
func columnsTable(t *testing.T, tc *testCluster, name string) {
	t.Helper()
	if err := tc.c.CreateTableSchema(context.Background(), name, []FamilySchema{{Name: "f", Versions: 3}}, [][]byte{[]byte("m")}); err != nil {
		t.Fatal(err)
	}
	wideRow(t, tc.c, name, "r1", "c", 10, 100)
	wideRow(t, tc.c, name, "r2", "x", 3, 100)
}

// quals lists a Result's qualifiers ("-" for none).
func quals(r Result) string {
	if len(r.Cells) == 0 {
		return "-"
	}
	var q []string
	for _, c := range r.Cells {
		q = append(q, string(c.Qualifier))
	}
	return strings.Join(q, " ")
}

func getQuals(t *testing.T, c *Client, table, row string, f Filter) string {
	t.Helper()
	r, err := c.GetRow(context.Background(), table, Get{Row: []byte(row), Filter: f})
	if err != nil {
		t.Fatal(err)
	}
	return quals(r)
}

// scanQuals scans table and lists each Result as row{qualifiers}.
func scanQuals(t *testing.T, c *Client, table string, sc Scan) string {
	t.Helper()
	var out []string
	if _, err := c.Scan(context.Background(), table, sc, func(r Result) bool {
		out = append(out, string(r.Row)+"{"+quals(r)+"}")
		return true
	}); err != nil {
		t.Fatal(err)
	}
	return strings.Join(out, " ")
}

func TestColumnRangeFilter(t *testing.T) {
	tc := startCluster(t)
	columnsTable(t, tc, "cr")
	for _, tt := range []struct {
		name string
		f    ColumnRangeFilter
		want string
	}{
		// Below min: a seek to min; from max on: NEXT_ROW.
		{"[c02, c05)", ColumnRangeFilter{Min: []byte("c02"), MinInclusive: true, Max: []byte("c05")}, "c02 c03 c04"},
		// An excluded min answers NEXT_COL; an included max INCLUDE.
		{"(c02, c05]", ColumnRangeFilter{Min: []byte("c02"), Max: []byte("c05"), MaxInclusive: true}, "c03 c04 c05"},
		{"open min", ColumnRangeFilter{Max: []byte("c03")}, "c00 c01 c02"},
		{"open max", ColumnRangeFilter{Min: []byte("c07"), MinInclusive: true}, "c07 c08 c09"},
		{"both open", ColumnRangeFilter{}, "c00 c01 c02 c03 c04 c05 c06 c07 c08 c09"},
		// Bounds between qualifiers: the seek lands on the next column.
		{"between columns", ColumnRangeFilter{Min: []byte("c015"), MinInclusive: true, Max: []byte("c035")}, "c02 c03"},
		{"nothing in range", ColumnRangeFilter{Min: []byte("d"), MinInclusive: true}, "-"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := getQuals(t, tc.c, "cr", "r1", tt.f); got != tt.want {
				t.Errorf("get: %s, want %s", got, tt.want)
			}
		})
	}
	// A row with no column in range comes back with nothing: a scan
	// skips it, a Get finds no row.
	f := ColumnRangeFilter{Min: []byte("c03"), MinInclusive: true, Max: []byte("c05")}
	if got := scanQuals(t, tc.c, "cr", Scan{Filter: f}); got != "r1{c03 c04}" {
		t.Errorf("scan: %s", got)
	}
	if r, err := tc.c.GetRow(context.Background(), "cr", Get{Row: []byte("r2"), Filter: f}); err != nil || r.Found() {
		t.Errorf("get of a row with nothing in range: %v %v", quals(r), err)
	}
}

func TestColumnPaginationFilterOffset(t *testing.T) {
	tc := startCluster(t)
	columnsTable(t, tc, "po")
	for _, tt := range []struct {
		name string
		f    ColumnPaginationFilter
		want string
	}{
		// NEXT_COL while count < offset, then INCLUDE_AND_NEXT_COL until
		// offset+limit, then NEXT_ROW.
		{"limit 3 offset 2", ColumnPaginationFilter{Limit: 3, Offset: 2}, "c02 c03 c04"},
		{"first page", ColumnPaginationFilter{Limit: 2}, "c00 c01"},
		{"limit past the end", ColumnPaginationFilter{Limit: 5, Offset: 8}, "c08 c09"},
		{"offset past the end", ColumnPaginationFilter{Limit: 5, Offset: 10}, "-"},
		{"limit 0", ColumnPaginationFilter{Limit: 0}, "-"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := getQuals(t, tc.c, "po", "r1", tt.f); got != tt.want {
				t.Errorf("get: %s, want %s", got, tt.want)
			}
		})
	}
}

func TestColumnPaginationFilterColumnOffset(t *testing.T) {
	tc := startCluster(t)
	columnsTable(t, tc, "pc")
	for _, tt := range []struct {
		name string
		f    ColumnPaginationFilter
		want string
	}{
		// Below the offset: a seek to it; then limit columns.
		{"from c04", ColumnPaginationFilter{Limit: 3, ColumnOffset: []byte("c04")}, "c04 c05 c06"},
		{"from between columns", ColumnPaginationFilter{Limit: 3, ColumnOffset: []byte("c045")}, "c05 c06 c07"},
		// The offset, once set, wins over Offset, as HBase's encoding.
		{"column offset over offset", ColumnPaginationFilter{Limit: 2, Offset: 5, ColumnOffset: []byte("c01")}, "c01 c02"},
		{"limit past the end", ColumnPaginationFilter{Limit: 9, ColumnOffset: []byte("c08")}, "c08 c09"},
		{"offset past the columns", ColumnPaginationFilter{Limit: 3, ColumnOffset: []byte("d")}, "-"},
		{"empty offset", ColumnPaginationFilter{Limit: 2, ColumnOffset: []byte{}}, "c00 c01"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := getQuals(t, tc.c, "pc", "r1", tt.f); got != tt.want {
				t.Errorf("get: %s, want %s", got, tt.want)
			}
		})
	}
}

// The count starts again in every row of a scan (Filter.reset between
// rows), and the column offset is compared again in each: a row whose
// columns all sort below it (r0) has none passed, and one whose first
// column sorts past it (r2) is paged from that column.
func TestColumnPaginationFilterPerRow(t *testing.T) {
	tc := startCluster(t)
	columnsTable(t, tc, "pr")
	wideRow(t, tc.c, "pr", "r0", "a", 4, 100)
	wideRow(t, tc.c, "pr", "s1", "c", 5, 100)
	want := "r0{a01 a02} r1{c01 c02} r2{x01 x02} s1{c01 c02}"
	if got := scanQuals(t, tc.c, "pr", Scan{Filter: ColumnPaginationFilter{Limit: 2, Offset: 1}}); got != want {
		t.Errorf("offset mode:\n got %s\nwant %s", got, want)
	}
	want = "r1{c03 c04} r2{x00 x01} s1{c03 c04}"
	if got := scanQuals(t, tc.c, "pr", Scan{Filter: ColumnPaginationFilter{Limit: 2, ColumnOffset: []byte("c03")}}); got != want {
		t.Errorf("column offset mode:\n got %s\nwant %s", got, want)
	}
}

// Pagination counts columns, not versions: every answer that passes a
// column moves on past its other versions, so each column comes with its
// newest version only, however many the read asks for.
func TestColumnPaginationFilterCountsColumns(t *testing.T) {
	tc := startCluster(t)
	ctx := context.Background()
	columnsTable(t, tc, "pv")
	wideRow(t, tc.c, "pv", "r1", "c", 10, 200)
	wideRow(t, tc.c, "pv", "r1", "c", 10, 300)
	all, err := tc.c.GetRow(ctx, "pv", Get{Row: []byte("r1"), MaxVersions: 3})
	if err != nil || len(all.Cells) != 30 {
		t.Fatalf("3 versions of 10 columns: %d cells, %v", len(all.Cells), err)
	}
	r, err := tc.c.GetRow(ctx, "pv", Get{Row: []byte("r1"), MaxVersions: 3, Filter: ColumnPaginationFilter{Limit: 2, Offset: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if got := quals(r); got != "c01 c02" {
		t.Fatalf("paged with 3 versions: %s, want c01 c02", got)
	}
	for _, c := range r.Cells {
		if c.Timestamp != 300 {
			t.Errorf("%s at %d, want the newest version, 300", c.Qualifier, c.Timestamp)
		}
	}
	r, err = tc.c.GetRow(ctx, "pv", Get{Row: []byte("r1"), MaxVersions: 3, Filter: ColumnPaginationFilter{Limit: 2, ColumnOffset: []byte("c05")}})
	if err != nil || quals(r) != "c05 c06" || r.Cells[0].Timestamp != 300 {
		t.Fatalf("paged from a column with 3 versions: %s %v", quals(r), err)
	}
	// A range passes every version, as many as the read asks for.
	r, err = tc.c.GetRow(ctx, "pv", Get{Row: []byte("r1"), MaxVersions: 2, Filter: ColumnRangeFilter{Min: []byte("c08"), MinInclusive: true}})
	if err != nil || quals(r) != "c08 c08 c09 c09" {
		t.Errorf("range with 2 versions: %s %v", quals(r), err)
	}
}

// In a MUST_PASS_ALL list a filter sees a cell only if every filter before
// it included it (HBASE-20565), so the order of a range and a pagination
// decides what the pagination counts. In a MUST_PASS_ONE list every filter
// sees every cell it has not already ruled out, and a cell passes if any
// includes it.
func TestColumnFilterLists(t *testing.T) {
	tc := startCluster(t)
	columnsTable(t, tc, "fl")
	rng := ColumnRangeFilter{Min: []byte("c02"), MinInclusive: true, Max: []byte("c08")}
	for _, tt := range []struct {
		name string
		f    Filter
		want string
	}{
		// The range seeks to c02 and passes c02..c07; the pagination
		// counts those alone: it passes over c02 and takes c03, c04.
		{"range then pagination", FilterList{All: true, Filters: []Filter{rng, ColumnPaginationFilter{Limit: 2, Offset: 1}}}, "c03 c04"},
		// c00: the pagination's NEXT_COL ends the list's answer (count
		// 1). c01: the pagination includes it (count 2) but the range
		// seeks to c02. c02: both include it (count 3). c03: the
		// pagination is done (NEXT_ROW).
		{"pagination then range", FilterList{All: true, Filters: []Filter{ColumnPaginationFilter{Limit: 2, Offset: 1}, rng}}, "c02"},
		// The range passes c02, c03; the pagination, asked at every
		// column, counts c00..c06 as offset and passes c07 (minimal
		// step: INCLUDE_AND_NEXT_COL against NEXT_ROW), then ends.
		{"range or pagination", FilterList{Filters: []Filter{ColumnRangeFilter{Min: []byte("c02"), MinInclusive: true, Max: []byte("c04")}, ColumnPaginationFilter{Limit: 1, Offset: 7}}}, "c02 c03 c07"},
		{"empty and", FilterList{All: true}, "c00 c01 c02 c03 c04 c05 c06 c07 c08 c09"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := getQuals(t, tc.c, "fl", "r1", tt.f); got != tt.want {
				t.Errorf("get: %s, want %s", got, tt.want)
			}
		})
	}
}

// A ColumnPrefixFilter before a pagination seeks to the prefix, so the
// pagination counts only the prefix's columns; after it, the pagination
// counts the columns before the prefix too.
func TestColumnPrefixWithPagination(t *testing.T) {
	tc := startCluster(t)
	ctx := context.Background()
	if err := tc.c.CreateTable(ctx, "cp", []string{"f"}, nil); err != nil {
		t.Fatal(err)
	}
	m := Mutation{Row: []byte("r"), Family: "f"}
	for _, q := range []string{"a1", "a2", "b1", "b2", "b3", "b4", "c1"} {
		m.Cells = append(m.Cells, Cell{Qualifier: []byte(q), Value: []byte("v")})
	}
	if err := tc.c.Mutate(ctx, "cp", []Mutation{m}); err != nil {
		t.Fatal(err)
	}
	prefix, page := ColumnPrefixFilter{Prefix: []byte("b")}, ColumnPaginationFilter{Limit: 2, Offset: 1}
	if got := getQuals(t, tc.c, "cp", "r", FilterList{All: true, Filters: []Filter{prefix, page}}); got != "b2 b3" {
		t.Errorf("prefix then pagination: %s, want b2 b3", got)
	}
	// a1: passed over (count 1); a2: counted in (2), but the prefix
	// seeks to b; b1: both include it (3); b2: the pagination is done.
	if got := getQuals(t, tc.c, "cp", "r", FilterList{All: true, Filters: []Filter{page, prefix}}); got != "b1" {
		t.Errorf("pagination then prefix: %s, want b1", got)
	}
}

// A filter HBase refuses to build is refused before it is sent.
func TestColumnPaginationFilterRefusesNegatives(t *testing.T) {
	for _, f := range []ColumnPaginationFilter{{Limit: -1}, {Limit: 1, Offset: -1}} {
		if _, err := f.encode(); err == nil {
			t.Errorf("%+v encoded", f)
		}
	}
}

// bigRowTable writes row "big" of 30 cells of 40 bytes each (HBase's
// serialized KeyValue size: 24 + row 3 + family 1 + qualifier 3 + value
// 9 = 40) and row "small" of 2.
func bigRowTable(t *testing.T, tc *testCluster, name string) {
	t.Helper()
	if err := tc.c.CreateTable(context.Background(), name, []string{"f"}, nil); err != nil {
		t.Fatal(err)
	}
	for _, r := range []struct {
		row string
		n   int
	}{{"big", 30}, {"sml", 2}} {
		m := Mutation{Row: []byte(r.row), Family: "f"}
		for i := range r.n {
			m.Cells = append(m.Cells, Cell{Qualifier: fmt.Appendf(nil, "q%02d", i), Value: fmt.Appendf(nil, "value-%03d", i)})
		}
		if err := tc.c.Mutate(context.Background(), name, []Mutation{m}); err != nil {
			t.Fatal(err)
		}
	}
}

// Past the max row size a Get or a whole-row scan fails with
// RowTooBigException, which is not retried; a paged Get of the row, a
// batched scan and a scan of partial results read it.
func TestRowTooBig(t *testing.T) {
	tc := startCluster(t)
	ctx := context.Background()
	bigRowTable(t, tc, "tb")
	tc.cl.SetMaxRowSize(1000) // 25 cells of the row
	before := tc.c.Counters()

	_, err := tc.c.GetRow(ctx, "tb", Get{Row: []byte("big")})
	var he *Error
	if !errors.Is(err, ErrRowTooBig) || !errors.As(err, &he) || he.Class != wire.ExcRowTooBig {
		t.Fatalf("get of the big row: %v", err)
	}
	// The 26th cell makes 1040 bytes.
	if want := "Max row size allowed: 1000, but the row is bigger than that, the row info: big/f:q25/"; !strings.Contains(he.Message, want) ||
		!strings.Contains(he.Message, "already have process row cells = 26") {
		t.Errorf("message %q, want it to start %q", he.Message, want)
	}
	if _, err := tc.c.Scan(ctx, "tb", Scan{}, func(Result) bool { return true }); !errors.Is(err, ErrRowTooBig) {
		t.Fatalf("scan of the big row: %v", err)
	}
	_, err = tc.c.BatchGetRows(ctx, "tb", []Get{{Row: []byte("sml")}, {Row: []byte("big")}})
	var re *RowError
	if !errors.Is(err, ErrRowTooBig) || !errors.As(err, &re) || string(re.Row) != "big" {
		t.Fatalf("batch get of the big row: %v", err)
	}
	if got := tc.c.Counters().Retries[wire.ExcRowTooBig] - before.Retries[wire.ExcRowTooBig]; got != 0 {
		t.Errorf("RowTooBigException retried %d times", got)
	}

	r, err := tc.c.GetRow(ctx, "tb", Get{Row: []byte("big"), Filter: ColumnPaginationFilter{Limit: 10, Offset: 20}})
	if err != nil || len(r.Cells) != 10 {
		t.Fatalf("paged get: %d cells, %v", len(r.Cells), err)
	}
	for _, sc := range []Scan{{Batch: 10}, {AllowPartial: true, MaxResultSize: 500}} {
		cells := 0
		if _, err := tc.c.Scan(ctx, "tb", sc, func(r Result) bool { cells += len(r.Cells); return true }); err != nil || cells != 32 {
			t.Errorf("scan %+v: %d cells, %v", sc, cells, err)
		}
	}

	// Each family counts apart, as each family's StoreScanner does: 20
	// cells in each of two families read, 26 in one do not.
	if err := tc.c.CreateTable(ctx, "tf", []string{"a", "b"}, nil); err != nil {
		t.Fatal(err)
	}
	m := Mutation{Row: []byte("two")}
	for i := range 26 {
		q, v := fmt.Appendf(nil, "q%02d", i), fmt.Appendf(nil, "value-%03d", i)
		m.Cells = append(m.Cells, Cell{Family: []byte("a"), Qualifier: q, Value: v})
		if i < 20 {
			m.Cells = append(m.Cells, Cell{Family: []byte("b"), Qualifier: q, Value: v})
		}
	}
	if err := tc.c.Mutate(ctx, "tf", []Mutation{m}); err != nil {
		t.Fatal(err)
	}
	if r, err := tc.c.GetRow(ctx, "tf", Get{Row: []byte("two"), Filter: ColumnRangeFilter{Max: []byte("q20")}}); err != nil || len(r.Cells) != 40 {
		t.Errorf("20 cells of each family: %d cells, %v", len(r.Cells), err)
	}
	if _, err := tc.c.GetRow(ctx, "tf", Get{Row: []byte("two")}); !errors.Is(err, ErrRowTooBig) {
		t.Errorf("26 cells of family a: %v", err)
	}
}
