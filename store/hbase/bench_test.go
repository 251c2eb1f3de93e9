package hbasestore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"commentbench/comments"
	"commentbench/hbase"
	"commentbench/hbasetest"
	"commentbench/keys"
	"commentbench/model"
	"commentbench/store"
	"commentbench/store/embedded"
)

// BenchmarkProtocolPrice measures, in one run, comment writes/s and first-page
// listing reads/s through the client and the test server over loopback,
// and the same directly on the embedded engine, and reports their ratio:
// the price of the protocol.
func BenchmarkProtocolPrice(b *testing.B) {
	for _, op := range []string{"write", "list"} {
		b.Run(op, func(b *testing.B) {
			direct := rate(b, op, func(e *embedded.Engine) store.Store { return e })
			wire := rate(b, op, func(e *embedded.Engine) store.Store {
				cl, err := hbasetest.Start(hbasetest.Options{Engine: e})
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { cl.Close() })
				s, err := Open(context.Background(), Options{Prefix: "cb_", Client: hbase.Options{Bootstrap: cl.Bootstrap()}})
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { s.Close() })
				return s
			})
			b.ReportMetric(direct, "embedded-ops/s")
			b.ReportMetric(wire, "hbase-ops/s")
			b.ReportMetric(wire/direct, "hbase/embedded")
		})
	}
}

// rate runs b.N operations of kind op against the store made over a fresh
// engine and returns operations per second.
func rate(b *testing.B, op string, over func(*embedded.Engine) store.Store) float64 {
	e, err := embedded.Open(embedded.Options{Dir: b.TempDir(), CreateIfMissing: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	ctx := context.Background()
	sys := comments.New(over(e), comments.Options{Layout: keys.Unique})
	if err := sys.CreateTables(ctx, keys.RandomLetters, 4); err != nil {
		b.Fatal(err)
	}
	ids := keys.NewRandom(rand.New(rand.NewPCG(1, 1)))
	user, products := ids.Next(), []string{ids.Next(), ids.Next(), ids.Next(), ids.Next()}
	write := func(i int) error {
		o := model.Order{ID: ids.Next(), UserID: user}
		if err := sys.CreateOrder(ctx, o); err != nil {
			return err
		}
		_, err := sys.WriteComment(ctx, comments.NewComment{OrderID: o.ID, ProductID: products[i%4], UserID: user,
			Content: fmt.Sprint("배송이 빨라요 ", i), Timestamp: int64(1763697906123 + i)})
		return err
	}
	if op == "list" {
		for i := range 400 {
			if err := write(i); err != nil {
				b.Fatal(err)
			}
		}
	}
	start := time.Now()
	for i := range b.N {
		if op == "write" {
			err = write(i)
		} else {
			_, err = sys.ProductPage(ctx, products[i%4], nil, 10)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	return float64(b.N) / time.Since(start).Seconds()
}
