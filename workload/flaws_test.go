package workload

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"commentbench/comments"
	"commentbench/keys"
	"commentbench/model"
	"commentbench/store/embedded"
	"commentbench/store/nop"
)

// An index key put again for another comment is one collision of its
// table; put again for the same comment (a retry) it is none. The first
// collision of each table is its sample.
func TestFlawsCollisions(t *testing.T) {
	f := NewFlaws()
	f.IndexPut(keys.ProductComment, []byte("k1"), []byte("c1"))
	f.IndexPut(keys.ProductComment, []byte("k1"), []byte("c1")) // a retry
	f.IndexPut(keys.ProductComment, []byte("k2"), []byte("c2"))
	f.IndexPut(keys.UserComment, []byte("k1"), []byte("c2")) // another table's k1
	if got := f.Collided(); len(got) != 0 {
		t.Fatalf("collisions %v before any", got)
	}
	f.IndexPut(keys.ProductComment, []byte("k1"), []byte("c3"))
	f.IndexPut(keys.ProductComment, []byte("k1"), []byte("c4"))
	f.IndexPut(keys.UserComment, []byte("k1"), []byte("c5"))
	got := f.Collided()
	if len(got) != 2 || got[keys.ProductComment] != 2 || got[keys.UserComment] != 1 {
		t.Errorf("collisions %v, want product-comment 2, user-comment 1", got)
	}
	if s := f.samples[keys.ProductComment]; s != "6333 put over 6331" {
		t.Errorf("product-comment sample %q, want the first collision: c3 over c1", s)
	}
	got[keys.ProductComment] = 99 // a copy
	if f.Collided()[keys.ProductComment] != 2 {
		t.Error("Collided hands out the live map")
	}
	// Hidden so far: c1 and c3 (product listing), c2 (user timeline). c7
	// hidden from both listings by c8 is one comment more, two rows more.
	for _, table := range []string{keys.ProductComment, keys.UserComment} {
		f.IndexPut(table, []byte("k9"), []byte("c7"))
		f.IndexPut(table, []byte("k9"), []byte("c8"))
	}
	if n, rows := f.CollidedComments(), f.Collided(); n != 4 || rows[keys.ProductComment]+rows[keys.UserComment] != 5 {
		t.Errorf("%d comments hidden over %v rows, want 4 comments, 5 rows", n, rows)
	}
}

// Under the seed's upsert the rows past a shorter ranking stay: those that
// repeat a comment the newer ranking put higher are stale, as verify counts
// them. Rankings that delete what they replace leave none.
func TestFlawsStaleRanks(t *testing.T) {
	ranking := func(cs string) [][]byte { // a comment a letter
		var out [][]byte
		for _, c := range cs {
			out = append(out, []byte{byte(c)})
		}
		return out
	}
	f := NewFlaws()
	f.ranked("p1", ranking("abcdefghij"), true)
	f.ranked("p1", ranking("bcdefgh"), true) // rows: b c d e f g h h i j
	f.ranked("p2", ranking("abcd"), true)
	f.ranked("p2", ranking("abcdefghij"), true)
	f.ranked("p3", ranking("abcdefghij"), false)
	f.ranked("p3", ranking("cde"), false)
	if n := f.StaleRanks(); n != 1 {
		t.Errorf("%d stale ranks, want 1 (p1's rank 8)", n)
	}
	f.ranked("p2", ranking("ji"), true) // rows: j i c d e f g h i j
	if n := f.StaleRanks(); n != 1+2 {
		t.Errorf("%d stale ranks, want 3", n)
	}
	f.ranked("p1", ranking("abcdefghij"), true)
	if n := f.StaleRanks(); n != 2 {
		t.Errorf("%d stale ranks after p1's ranking is whole again, want 2", n)
	}
}

// The ranking job's options follow the scenario: with RankShrink some
// rankings are shorter than the comments allow, 1..n-1 of them, never
// empty, kept in rank order from anywhere in it; each ranking written is
// noted as the scenario's ranks say.
func TestRankOptions(t *testing.T) {
	if o := rankOptions(Scenario{}, nil, nil); o.Keep != nil || o.Ranked != nil {
		t.Error("a scenario that shrinks nothing and watches nothing shapes the job")
	}
	r := rand.New(rand.NewPCG(1, 2))
	o := rankOptions(Scenario{RankShrink: 0.5}, r, nil)
	shrunk, topDropped := 0, 0
	for range 1000 {
		kept := o.Keep("p", 10)
		if n := len(kept); n < 1 || n > 10 || !slices.IsSorted(kept) || slices.Compact(slices.Clone(kept))[n-1] != kept[n-1] || kept[n-1] > 9 {
			t.Fatalf("kept %v of 10", kept)
		}
		if len(kept) < 10 {
			shrunk++
		}
		if kept[0] != 0 {
			topDropped++
		}
	}
	if shrunk < 400 || shrunk > 600 || topDropped == 0 {
		t.Errorf("%d of 1000 rankings shrunk at 0.5, %d without their best", shrunk, topDropped)
	}
	for _, n := range []int{0, 1} {
		if k := o.Keep("p", n); len(k) != n {
			t.Errorf("a ranking of %d kept %v", n, k)
		}
	}
	if o := rankOptions(Scenario{RankShrink: 1}, r, nil); len(o.Keep("p", 2)) != 1 {
		t.Error("a certain shrink of 2 comments does not keep 1")
	}
	for _, ranks := range []string{"upsert", "replace"} {
		f := NewFlaws()
		o := rankOptions(Scenario{Ranks: ranks}, r, f)
		o.Ranked("p", [][]byte{[]byte("a"), []byte("b"), []byte("c")})
		o.Ranked("p", [][]byte{[]byte("b"), []byte("c")}) // rows: b c c
		if want := map[string]int64{"upsert": 1, "replace": 0}[ranks]; f.StaleRanks() != want {
			t.Errorf("%s: %d stale ranks, want %d", ranks, f.StaleRanks(), want)
		}
	}
}

// System builds the scenario's comment system: its design, its scans, its
// rank writes, its index puts watched; and refuses a layout or a scan mode
// it does not know.
func TestSystem(t *testing.T) {
	ctx := context.Background()
	for _, ranks := range []string{"upsert", "replace"} {
		e, err := embedded.Open(embedded.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		f := NewFlaws()
		sys, err := System(e, Scenario{Layout: "seed", Scan: "seed", Ranks: ranks}, f)
		if err != nil || sys.Layout().Name() != "seed" {
			t.Fatalf("system %v, %v", sys, err)
		}
		if err := sys.CreateTables(ctx, keys.RandomLetters, 1); err != nil {
			t.Fatal(err)
		}
		const p = "ProductAAA"
		for i, text := range []string{"같은 길이", "같은 길이", "a longer one", "the longest one of all"} {
			order, user := fmt.Sprintf("OrderAAAA%d", i), fmt.Sprintf("UserAAAAA%d", i)
			if err := sys.CreateOrder(ctx, model.Order{ID: order, UserID: user}); err != nil {
				t.Fatal(err)
			}
			if _, err := sys.WriteComment(ctx, comments.NewComment{OrderID: order, ProductID: p, UserID: user,
				Content: text, Timestamp: 1763697906123 + int64(i/2)}); err != nil {
				t.Fatal(err)
			}
		}
		if got := f.Collided(); got[keys.ProductComment] != 1 || len(got) != 1 {
			t.Errorf("%s: collisions %v, want the seed's one on product-comment", ranks, got)
		}
		if _, err := sys.RankJob(ctx, []string{p}); err != nil {
			t.Fatal(err)
		}
		if _, err := sys.RankJobWith(ctx, []string{p}, comments.JobOptions{Keep: func(string, int) []int { return []int{0} }}); err != nil {
			t.Fatal(err)
		}
		k, _ := sys.Layout().RankKey(p, 3)
		row, err := e.Get(ctx, keys.ProductRank, k)
		if err != nil || row.Found() != (ranks == "upsert") {
			t.Errorf("%s: rank 3 after a ranking of 1: found %v (%v)", ranks, row.Found(), err)
		}
	}
	for _, sc := range []Scenario{{Layout: "nope", Scan: "bounded"}, {Layout: "unique", Scan: "sideways"}} {
		if _, err := System(nop.New(), sc, nil); err == nil {
			t.Errorf("%+v: no error", sc)
		}
	}
}
