package check

import (
	"testing"

	"commentbench/keys"
	"commentbench/model"
)

// A clustered listing's copies are checked like keys, and against their
// comments: consistent as written and after an edit (which rewrites the
// copies), a copy left behind by an edit is stale, and the repair writes
// the comment over it.
func TestClusteredCopies(t *testing.T) {
	for _, name := range []string{"clustered", "between-clustered"} {
		t.Run(name, func(t *testing.T) {
			d := newDataset(t, builtin(t, name))
			if !d.layout.Table(keys.ProductComment).Copy {
				t.Fatalf("%s does not copy comments into its product listing:\n%s", name, d.layout.Source())
			}
			c := d.byProd[d.products[1]][4]
			if _, err := d.sys.EditComment(d.ctx, c.OrderID, c.ProductID, "다시 쓴 글"); err != nil {
				t.Fatal(err)
			}
			r := d.check(false)
			assertCounts(t, r, map[string]int64{})
			for _, ix := range r.Indexes {
				if ix.Copies != (ix.Table == keys.ProductComment) {
					t.Errorf("%s reported with copies %v; only product-comment copies its comments", ix.Table, ix.Copies)
				}
			}
			// The copy as it was before the edit, put back over the new one.
			old, err := model.JSON.Marshal(c)
			must(t, err)
			d.put(keys.ProductComment, d.productKey(c), old)
			r = d.checkRun(true, "")
			assertCounts(t, r, map[string]int64{"product-comment.stale_copies": 1})
			assertSamples(t, r, "product-comment.stale_copies", "that is not what it says now")
			assertPlan(t, r.Repair, repairPlan{puts: 1})
			must(t, r.Repair.Apply(d.ctx, d.st, d.layout))
			assertCounts(t, d.check(false), map[string]int64{})
			// A copy that does not decode is no comment's key (once: its
			// comment wants that very entry).
			d.put(keys.ProductComment, d.productKey(d.byProd[d.products[2]][3]), []byte("{not json"))
			assertCounts(t, d.check(false), map[string]int64{"product-comment.bad_value": 1})
		})
	}
}
