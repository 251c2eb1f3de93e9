package comments_test

import (
	"slices"
	"testing"

	"commentbench/comments"
	"commentbench/keys"
)

// secondPageCost seeds n products of 12 comments each and returns the rows
// the second page of the product sorting last read.
func secondPageCost(t *testing.T, layout *keys.Design, mode comments.ScanMode, n int) int64 {
	t.Helper()
	f := newFixture(t, layout, mode)
	products := make([]string, n)
	for i := range products {
		products[i] = f.product()
	}
	f.fillProducts(products, 12)
	p := slices.Max(products) // the seed's scan reads every product before it
	first, err := f.sys.ProductPage(f.ctx, p, nil, 10)
	if err != nil || first.Next == nil {
		t.Fatalf("first page: %v, next %x", err, first.Next)
	}
	second, err := f.sys.ProductPage(f.ctx, p, first.Next, 10)
	if err != nil {
		t.Fatal(err)
	}
	return second.Scan.RowsScanned
}

// The seed's next-page scan starts at the table's first row, so what a
// page reads grows with the table; the fixed design's bounded scans (on
// its unique keys) read the page and one row more, whatever the table
// holds.
func TestSeedScanCostGrowsWithTheTable(t *testing.T) {
	small, large := secondPageCost(t, keys.Seed, comments.SeedScan, 10), secondPageCost(t, keys.Seed, comments.SeedScan, 40)
	if !(large >= 3*small && small > 11) {
		t.Errorf("seed scans: second page read %d rows with 10 products, %d with 40: want it to grow with the table", small, large)
	}
	bs, bl := secondPageCost(t, keys.Unique, comments.Bounded, 10), secondPageCost(t, keys.Unique, comments.Bounded, 40)
	if bs != bl || bs > 11 {
		t.Errorf("fixed (unique keys, bounded scans): second page read %d rows with 10 products, %d with 40: want the same, at most 11", bs, bl)
	}
}

// A filtered listing (time-led keys: the owner is past the prefix) cannot
// bound its scan, so the client stops it: a page of 10 reads the page and
// the one row that says a next page exists, not a row more.
func TestFilteredPageStopsAtItsLastRow(t *testing.T) {
	d, err := keys.Builtin("time-led")
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, d, comments.Bounded)
	p := f.product()
	if l, _ := d.Listing(keys.ProductComment, p); !l.Filtered {
		t.Fatal("time-led product listings are not filtered: the test needs one that is")
	}
	f.fillProducts([]string{p}, 15)
	page, err := f.sys.ProductPage(f.ctx, p, nil, 10)
	if err != nil || len(page.Comments()) != 10 || page.Next == nil {
		t.Fatalf("first page: %d comments, next %x, %v", len(page.Comments()), page.Next, err)
	}
	if got := page.Scan.RowsScanned; got != 11 {
		t.Errorf("first page read %d rows, want 11", got)
	}
}
