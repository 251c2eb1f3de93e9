package hbasestore

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"commentbench/comments"
	"commentbench/keys"
	"commentbench/model"
	"commentbench/store"
)

// The seed's next page ("row >= cursor" with no start row) makes the
// region servers read the table from its first row; the server's scan
// metrics show it, where the rows returned would not. Bounded pages read
// at most limit+1 rows. As comments' TestSeedScanLeaksAndCosts on the
// embedded engine.
func TestSeedScanCostsOnHBase(t *testing.T) {
	const perProduct, limit = 15, 10
	for _, mode := range []comments.ScanMode{comments.SeedScan, comments.Bounded} {
		t.Run(mode.String(), func(t *testing.T) {
			e := start(t, false)
			ts := int64(1763697906123)
			sys := comments.New(e.st, comments.Options{Layout: keys.Seed, Scan: mode, Clock: func() int64 { return ts }})
			if err := sys.CreateTables(e.ctx, keys.RandomLetters, 4); err != nil {
				t.Fatal(err)
			}
			ids := keys.NewRandom(rand.New(rand.NewPCG(7, 9)))
			user := ids.Next()
			if err := sys.CreateUser(e.ctx, model.User{ID: user, Name: "n", Nickname: "nick"}); err != nil {
				t.Fatal(err)
			}
			var products []string
			for range 3 {
				p := ids.Next()
				if err := sys.CreateProduct(e.ctx, model.Product{ID: p, SellerID: ids.Next()}); err != nil {
					t.Fatal(err)
				}
				products = append(products, p)
				for i := range perProduct {
					order := ids.Next()
					if err := sys.CreateOrder(e.ctx, model.Order{ID: order, UserID: user}); err != nil {
						t.Fatal(err)
					}
					if _, err := sys.WriteComment(e.ctx, comments.NewComment{OrderID: order, ProductID: p, UserID: user,
						Content: fmt.Sprintf("comment %d on %s", i, p), Timestamp: ts + int64(i)}); err != nil {
						t.Fatal(err)
					}
				}
			}
			// The product whose listing sorts last: every other product's
			// rows lie before its cursor.
			p := products[0]
			for _, q := range products {
				p = max(p, q)
			}
			first, err := sys.ProductPage(e.ctx, p, nil, limit)
			if err != nil {
				t.Fatal(err)
			}
			next, err := sys.ProductPage(e.ctx, p, first.Next, limit)
			if err != nil {
				t.Fatal(err)
			}
			if got := len(next.Comments()); got != perProduct-limit {
				t.Fatalf("next page has %d comments; want %d", got, perProduct-limit)
			}
			total := int64(0)
			if _, err := e.st.Scan(e.ctx, keys.ProductComment, store.Scan{}, func(store.Row) bool { total++; return true }); err != nil {
				t.Fatal(err)
			}
			m := next.Scan
			t.Logf("next page: %d rows scanned, %d filtered, %d regions", m.RowsScanned, m.RowsFiltered, m.Regions)
			switch mode {
			case comments.SeedScan:
				// The other products' rows and this one's first page are
				// read and dropped before the cursor.
				before := int64(len(products)-1)*perProduct + limit
				if m.RowsScanned < before+int64(perProduct-limit) || m.RowsFiltered < before || m.RowsScanned <= limit+1 {
					t.Errorf("seed next page: scanned %d, filtered %d; want at least %d read and %d dropped",
						m.RowsScanned, m.RowsFiltered, before+int64(perProduct-limit), before)
				}
			case comments.Bounded:
				if m.RowsScanned > limit+1 || first.Scan.RowsScanned > limit+1 || m.RowsFiltered != 0 {
					t.Errorf("bounded pages scanned %d and %d rows (filtered %d); want at most limit+1 = %d",
						first.Scan.RowsScanned, m.RowsScanned, m.RowsFiltered, limit+1)
				}
			}
			if m.RowsScanned > total {
				t.Errorf("scan read %d rows of a %d-row table", m.RowsScanned, total)
			}
		})
	}
}
