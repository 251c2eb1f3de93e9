package comments_test

import (
	"testing"

	"commentbench/comments"
	"commentbench/keys"
	"commentbench/store/embedded"
)

func benchFixture(b *testing.B, l *keys.Design, mode comments.ScanMode) *fixture {
	b.Helper()
	eng, err := embedded.Open(embedded.Options{Dir: b.TempDir(), CreateIfMissing: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { eng.Close() })
	return newFixtureOn(b, eng, l, mode)
}

// The full seed write path: order get, then the comment and its two index
// rows as three puts.
func BenchmarkWriteComment(b *testing.B) {
	for _, l := range layouts {
		b.Run(l.Name(), func(b *testing.B) {
			f := benchFixture(b, l, comments.Bounded)
			u := f.user()
			products := []string{f.product(), f.product(), f.product(), f.product()}
			orders := make([]string, 1000)
			for i := range orders {
				orders[i] = f.order(u)
			}
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				_, err := f.sys.WriteComment(f.ctx, comments.NewComment{OrderID: orders[i%len(orders)],
					ProductID: products[(i/len(orders))%len(products)], UserID: u, Content: "배송이 빨라요 great", Timestamp: ts0 + int64(i)})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "comments/s")
		})
	}
}

// A listing's first page and a page deep in it, in both scan modes: the
// rows read per page is the figure to compare.
func BenchmarkProductPage(b *testing.B) {
	for _, mode := range []comments.ScanMode{comments.Bounded, comments.SeedScan} {
		b.Run(mode.String(), func(b *testing.B) {
			f := benchFixture(b, keys.Unique, mode)
			var ps []string
			for range 20 {
				ps = append(ps, f.product())
			}
			f.fillProducts(ps, 100)
			first, err := f.sys.ProductPage(f.ctx, ps[0], nil, 10)
			if err != nil {
				b.Fatal(err)
			}
			var rows int64
			for b.Loop() {
				p, err := f.sys.ProductPage(f.ctx, ps[0], first.Next, 10)
				if err != nil {
					b.Fatal(err)
				}
				rows += p.Scan.RowsScanned
			}
			b.ReportMetric(float64(rows)/float64(b.N), "rows/page")
		})
	}
}

// The same listing page, the second of a product with 1,000 comments
// among 20 products', read from a wide row (between: a slice of the
// product row's columns, and the page's comments from the same row) and
// from tall index rows (unique: a bounded scan, then a batch get of the
// comments). make bench prints the two side by side.
func BenchmarkListingPageShape(b *testing.B) {
	for _, name := range []string{"unique", "between"} {
		b.Run(name, func(b *testing.B) {
			l, err := keys.Builtin(name)
			if err != nil {
				b.Fatal(err)
			}
			f := benchFixture(b, l, comments.Bounded)
			var ps []string
			for range 20 {
				ps = append(ps, f.product())
			}
			f.fillProducts(ps, 1000)
			first, err := f.sys.ProductPage(f.ctx, ps[7], nil, 10)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				p, err := f.sys.ProductPage(f.ctx, ps[7], first.Next, 10)
				if err != nil || len(p.Entries) != 10 {
					b.Fatalf("page: %d entries, %v", len(p.Entries), err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pages/s")
		})
	}
}
