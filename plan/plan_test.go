package plan

import (
	"errors"
	"math"
	"strings"
	"testing"

	"commentbench/keys"
)

// A cell worked out by hand from HBase's KeyValue layout: row "row1",
// family "cf", qualifier "q", value "v". The key is 2 (row length) + 4 +
// 1 (family length) + 2 + 1 + 8 (timestamp) + 1 (type) = 19 bytes; the
// KeyValue adds its two 4-byte lengths and the value: 19 + 8 + 1 = 28.
func TestCellBytesByHand(t *testing.T) {
	if got := CellBytes(len("row1"), len("cf"), len("q"), len("v")); got != 28 {
		t.Errorf("CellBytes(row1, cf, q, v) = %d, want 28", got)
	}
	// The seed's comment row: a 20-byte key and a 300-byte value.
	if got := CellBytes(20, 2, 1, 300); got != 343 {
		t.Errorf("CellBytes(20, 2, 1, 300) = %d, want 343", got)
	}
}

func TestParseSize(t *testing.T) {
	good := map[string]int64{
		"10GiB": 10 << 30, "512MiB": 512 << 20, "1GB": 1e9, "1073741824": 1 << 30, "4KiB": 4096,
		"1.5GiB": 3 << 29, "10 gib": 10 << 30, "7B": 7, "2TB": 2e12, "1tib": 1 << 40,
	}
	for in, want := range good {
		got, err := ParseSize(in)
		if err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	bad := map[string]string{
		"10XB": `unknown unit "XB"`, "": "not a number", "GiB": "not a number", "-1GiB": "negative",
		"0": "less than one byte", "0.5": "whole number", "1e9": "not a number", "2PiB": "unknown unit",
		"2000TiB": "more than 1PiB", "1.2.3GB": "not a number", "0x10": "not a number",
	}
	for in, want := range bad {
		_, err := ParseSize(in)
		if !errors.Is(err, ErrSize) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "10GiB") {
			t.Errorf("ParseSize(%q): %v; want ErrSize saying %q and what is allowed", in, err, want)
		}
	}
}

func TestFormatSizeAndCount(t *testing.T) {
	sizes := map[float64]string{812: "812 B", 1500: "1.46 KiB", 10 << 30: "10 GiB", 12.3 * (1 << 30): "12.3 GiB", 385 * 1024: "385 KiB"}
	for in, want := range sizes {
		if got := FormatSize(in); got != want {
			t.Errorf("FormatSize(%v) = %q, want %q", in, got, want)
		}
	}
	counts := map[int64]string{0: "0", 999: "999", 1000: "1,000", 120042200: "120,042,200", -1234: "-1,234"}
	for in, want := range counts {
		if got := Count(in); got != want {
			t.Errorf("Count(%d) = %q, want %q", in, got, want)
		}
	}
}

func seedModel(t *testing.T) *Model {
	t.Helper()
	d, err := keys.Load("seed")
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewModel(d, Values{Mean: map[string]float64{keys.User: 80, keys.Seller: 60, keys.Product: 160,
		keys.Order: 70, keys.Comment: 277}})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// The seed's widths (SCHEMA.md) and the formula give each row's bytes; an
// index row's value is the comment's 20-byte key.
func TestRowBytes(t *testing.T) {
	m := seedModel(t)
	const fixed = CellOverhead + 2 + 1 // family "cf", qualifier "q"
	want := map[string]float64{keys.User: fixed + 10 + 80, keys.Order: fixed + 10 + 70, keys.Comment: fixed + 20 + 277,
		keys.UserComment: fixed + 18 + 20, keys.ProductComment: fixed + 23 + 20, keys.ProductRank: fixed + 13 + 20}
	for table, w := range want {
		if got := m.RowBytes(table); got != w {
			t.Errorf("%s: %v bytes a row, want %v", table, got, w)
		}
	}
}

// Two days of 1,000 comments, 50 products, two commented products per
// order, regions of 100 KB: worked out by hand.
func TestPlanByHand(t *testing.T) {
	m := seedModel(t)
	r := m.Plan(Inputs{CommentsPerDay: 1000, Days: 2, Users: 300, Products: 50, Sellers: 5,
		OrdersPerComment: 0.5, RegionSize: 100_000})
	if !r.Modeled || len(r.Tables) != len(keys.Tables) {
		t.Fatalf("modeled %v, %d tables", r.Modeled, len(r.Tables))
	}
	byName := map[string]TablePlan{}
	for _, tp := range r.Tables {
		byName[tp.Table] = tp
	}
	comment := byName[keys.Comment] // 2,000 rows of 320 bytes: 640,000 bytes, 7 regions, 3.2 a day
	if comment.Rows != 2000 || comment.Bytes != 640_000 || comment.Regions != 7 || comment.NewRegionsPerDay != 3.2 ||
		comment.PerComment == nil || *comment.PerComment != 320 {
		t.Errorf("comment: %+v", comment)
	}
	order := byName[keys.Order] // 1,000 rows of 103 bytes, 51.5 bytes per comment
	if order.Rows != 1000 || order.Bytes != 103_000 || order.Regions != 2 || *order.PerComment != 51.5 {
		t.Errorf("order: %+v", order)
	}
	rank := byName[keys.ProductRank] // full since day 1: 500 rows of 56 bytes, no growth
	if rank.Rows != 500 || rank.Bytes != 28_000 || rank.Regions != 1 || rank.NewRegionsPerDay != 0 || rank.PerComment != nil {
		t.Errorf("rank: %+v", rank)
	}
	if user := byName[keys.User]; user.Rows != 300 || user.NewRegionsPerDay != 0 {
		t.Errorf("user: %+v", user)
	}
	// comment 320 + order 51.5 + user-comment 61 + product-comment 66
	if r.Total.PerComment != 498.5 || r.Total.ReplicatedBytes != 3*r.Total.Bytes {
		t.Errorf("totals %+v", r.Total)
	}
}

// Ranks stop at ten per product: before that they grow with comments.
func TestRankRows(t *testing.T) {
	in := Inputs{Products: 100}
	for comments, want := range map[int64]int64{0: 0, 300: 300, 1000: 1000, 5000: 1000} {
		if got := in.Rows(keys.ProductRank, comments); got != want {
			t.Errorf("%d comments: %d rank rows, want %d", comments, got, want)
		}
	}
}

func TestNewModelNeedsEveryEntityValue(t *testing.T) {
	d, _ := keys.Load("seed")
	for _, v := range []map[string]float64{
		{keys.User: 1, keys.Seller: 1, keys.Product: 1, keys.Order: 1},
		{keys.User: 1, keys.Seller: 1, keys.Product: 1, keys.Order: 1, keys.Comment: math.NaN()},
		{keys.User: 1, keys.Seller: 0, keys.Product: 1, keys.Order: 1, keys.Comment: 1},
	} {
		if _, err := NewModel(d, Values{Mean: v}); err == nil {
			t.Errorf("NewModel(%v) took it", v)
		}
	}
}

func TestPrintSaysModeledAndReplication(t *testing.T) {
	var b strings.Builder
	if err := seedModel(t).Plan(Inputs{CommentsPerDay: 1, Days: 1, Users: 1, Products: 1, Sellers: 1,
		OrdersPerComment: 1, RegionSize: 1 << 30}).Print(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"(modeled)", "×3 on HDFS with replication 3, before compression", "not modeled:", "product-comment-rank"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("plan output lacks %q:\n%s", want, b.String())
		}
	}
}
