package check

import (
	"testing"

	"commentbench/keys"
	"commentbench/store"
)

func cellOf(v []byte) store.Cell { return store.Cell{Qualifier: keys.Qualifier, Value: v} }

// What verify used to miss or miscount: each fault is one finding of its
// own kind, counted once, and verify exits 1 for it, never 2.
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
		{"an index row with an empty value", func(d *dataset) {
			c := d.byProd[d.products[1]][2]
			must(d.t, d.st.Mutate(d.ctx, keys.ProductComment, store.Put(d.productKey(c), cellOf(nil))))
		}, map[string]int64{"product-comment.bad_value": 1, "product-comment.unreferenced": 1}},
		{"an index row with a short value", func(d *dataset) {
			c := d.byProd[d.products[1]][3]
			must(d.t, d.st.Mutate(d.ctx, keys.UserComment, store.Put(d.userKey(c), cellOf(d.ck(c)[:7]))))
		}, map[string]int64{"user-comment.bad_value": 1, "user-comment.unreferenced": 1}},
		{"an undecodable key in an index", func(d *dataset) {
			c := d.byProd[d.products[2]][1]
			must(d.t, d.st.Mutate(d.ctx, keys.ProductComment, store.Put([]byte("garbage"), cellOf(d.ck(c)))))
		}, map[string]int64{"product-comment.undecodable": 1}},
		{"an undecodable rank key", func(d *dataset) {
			c := d.byProd[d.products[2]][1]
			must(d.t, d.st.Mutate(d.ctx, keys.ProductRank, store.Put([]byte("rank-garbage"), cellOf(d.ck(c)))))
		}, map[string]int64{"ranks.unparsable": 1}},
		{"a comment whose value does not parse", func(d *dataset) {
			c := d.byProd[d.products[0]][1] // short: unranked
			must(d.t, d.st.Mutate(d.ctx, keys.Comment, store.Put(d.ck(c), cellOf([]byte("{not json")))))
		}, map[string]int64{"refs.bad": 1}},
	}
	for _, f := range faults {
		t.Run(f.name, func(t *testing.T) {
			d := newDataset(t, keys.Unique)
			f.inject(d)
			assertCounts(t, d.check(false), f.want)
		})
	}
}

// Repair deletes undecodable index rows and never deletes the valid index
// rows of a comment whose value is corrupt: that comment is reported as
// unrepairable.
func TestRepairBlindSpots(t *testing.T) {
	d := newDataset(t, keys.Unique)
	c := d.byProd[d.products[0]][1]
	must(d.t, d.st.Mutate(d.ctx, keys.Comment, store.Put(d.ck(c), cellOf([]byte("{not json")))))
	must(d.t, d.st.Mutate(d.ctx, keys.ProductComment, store.Put([]byte("garbage"), cellOf(d.ck(c)))))
	r := d.check(true)
	if r.Repair == nil || r.Repair.Deletes != 1 || r.Repair.Puts != 0 {
		t.Fatalf("repair plan: %+v, want the garbage row deleted and nothing else", r.Repair)
	}
	must(t, r.Repair.Apply(d.ctx, d.st, d.layout))
	after := d.check(false)
	assertCounts(t, after, map[string]int64{"refs.bad": 1})
	row, err := d.st.Get(d.ctx, keys.ProductComment, d.productKey(c))
	if err != nil || !row.Found() {
		t.Errorf("the corrupt comment's valid product-comment row was deleted (%v)", err)
	}
}
