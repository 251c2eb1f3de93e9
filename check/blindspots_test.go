package check

import (
	"testing"

	"commentbench/keys"
	"commentbench/store"
)

func cellOf(v []byte) store.Cell { return store.Cell{Qualifier: keys.Qualifier, Value: v} }

// What verify used to miss or miscount: each fault is one finding of its
// own kind, counted once, and verify exits 1 for it, never 2. The faults
// that show as one counter each are in that counter's test
// (counters_test.go): empty, short and long index values
// (TestCounterBadValue), undecodable index and rank keys
// (TestCounterUndecodable, TestCounterUnparsable), a comment that does not
// parse (TestCounterBadComments).
func TestBlindSpots(t *testing.T) {
	faults := []struct {
		name   string
		inject func(d *dataset)
		want   map[string]int64
	}{
		{"an edited comment's row pointing at another comment of its group", func(d *dataset) {
			// Two comments of one product in one millisecond, the first
			// edited; the second's row is made to point at the first.
			p := d.products[0]
			a := d.write("EditedAAAA", p, d.users[0], "first comment", ts0+500)
			b := d.write("OtherBBBBB", p, d.users[1], "the second one", ts0+500)
			_, err := d.sys.EditComment(d.ctx, a.OrderID, a.ProductID, "edited since, longer now")
			must(d.t, err)
			must(d.t, d.st.Mutate(d.ctx, keys.ProductComment, store.Put(d.productKey(b), cellOf(d.ck(a)))))
		}, map[string]int64{"product-comment.mismatched": 1, "product-comment.extra": 1, "product-comment.unreferenced": 1}},
	}
	for _, f := range faults {
		t.Run(f.name, func(t *testing.T) {
			d := newDataset(t, keys.Unique)
			f.inject(d)
			assertCounts(t, d.check(false), f.want)
		})
	}
}
