package comments_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"commentbench/comments"
	"commentbench/keys"
	"commentbench/store"
	"commentbench/store/embedded"
)

func TestScanModeString(t *testing.T) {
	for m, want := range map[comments.ScanMode]string{comments.SeedScan: "seed", comments.Bounded: "bounded"} {
		if m.String() != want {
			t.Errorf("%d.String() = %q, want %q", m, m.String(), want)
		}
		if back, err := comments.ParseScanMode(want); err != nil || back != m {
			t.Errorf("ParseScanMode(%q) = %v, %v", want, back, err)
		}
	}
}

// The ranking job's order: longer content first, then the newer comment,
// then the smaller comment key.
func TestBetter(t *testing.T) {
	c := func(n int, ts int64, k string) comments.Candidate {
		return comments.Candidate{CommentKey: []byte(k), ContentLen: n, Timestamp: ts}
	}
	for _, p := range []struct{ a, b comments.Candidate }{
		{c(5, 1, "z"), c(4, 9, "a")}, // longer wins over newer and smaller
		{c(5, 9, "z"), c(5, 1, "a")}, // then newer over smaller
		{c(5, 9, "a"), c(5, 9, "b")}, // then the smaller key
	} {
		if !comments.Better(p.a, p.b) || comments.Better(p.b, p.a) {
			t.Errorf("Better(%+v, %+v) = %v, reversed %v; want true, false", p.a, p.b, comments.Better(p.a, p.b), comments.Better(p.b, p.a))
		}
	}
	if x := c(5, 9, "a"); comments.Better(x, x) {
		t.Error("a candidate is better than itself")
	}
}

// A ranking job shaped by Keep writes the ranks Keep names, at least one
// and at most the product's comments; Keep is asked only about a product
// that has comments. One that drops its best ranks the rest, moved up.
func TestRankJobKeep(t *testing.T) {
	f := newFixture(t, keys.Unique, comments.Bounded)
	u, empty := f.user(), f.product()
	for keep, want := range map[int]int{3: 3, 0: 1, -5: 1, 6: 6, 99: 6} {
		// A product of its own each time: a ranking job's deletes hide a
		// rank written again in their millisecond, as on HBase.
		p := f.product()
		for i := range 6 {
			f.comment(u, f.order(u), p, strings.Repeat("a", i+1), ts0+int64(i))
		}
		asked := map[string]int{}
		st, err := f.sys.RankJobWith(f.ctx, []string{p, empty}, comments.JobOptions{
			Keep: func(pid string, n int) []int {
				asked[pid] = n
				var first []int
				for i := range max(keep, 0) {
					first = append(first, i)
				}
				return first
			},
			Ranked: func(pid string, ranking [][]byte) { asked[pid+" ranked"] = len(ranking) },
		})
		if err != nil || st.Products != 2 || st.Ranked != want {
			t.Errorf("keep %d: %+v, %v; want %d ranked", keep, st, err, want)
		}
		if fmt.Sprint(asked) != fmt.Sprint(map[string]int{p: 6, p + " ranked": want, empty + " ranked": 0}) {
			t.Errorf("keep %d: asked %v", keep, asked)
		}
		if top, err := f.sys.Ranked(f.ctx, p, 10); err != nil || len(top.Entries) != want {
			t.Errorf("keep %d: ranked %d, %v; want %d", keep, len(top.Entries), err, want)
		}
	}
	p := f.product()
	for i := range 6 {
		f.comment(u, f.order(u), p, strings.Repeat("b", 6-i), ts0+int64(i)) // best first
	}
	if _, err := f.sys.RankJobWith(f.ctx, []string{p}, comments.JobOptions{Keep: func(string, int) []int { return []int{1, 3} }}); err != nil {
		t.Fatal(err)
	}
	top, err := f.sys.Ranked(f.ctx, p, 10)
	if err != nil || len(top.Entries) != 2 || top.Entries[0].Comment.Content != "bbbbb" || top.Entries[1].Comment.Content != "bbb" {
		t.Errorf("the best and the third dropped: ranked %+v, %v; want the second and the fourth", top.Entries, err)
	}
}

// A design whose product listing holds no length makes the job read the
// comments to score them: their length now, in batches; an index row whose
// comment is gone ranks nothing.
func TestRankJobReadsLengths(t *testing.T) {
	src, err := os.ReadFile("../layouts/product-hash.yaml")
	if err != nil {
		t.Fatal(err)
	}
	l, err := keys.Parse("product-hash.yaml", src)
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, l, comments.Bounded)
	u, p := f.user(), f.product()
	const n = 501      // a batch of 500 and one more
	for i := range n { // lengths 1..501 in a scrambled order
		f.comment(u, f.order(u), p, strings.Repeat("a", 1+(i*7919)%n), ts0+int64(i))
	}
	top, err := f.sys.Ranked(f.ctx, p, 1)
	if err != nil || len(top.Entries) != 0 {
		t.Fatalf("ranked before any job: %+v, %v", top, err)
	}
	st, err := f.sys.RankJob(f.ctx, []string{p})
	if err != nil || st.Ranked != keys.MaxRank || st.RowsScanned != n {
		t.Fatalf("rank job: %+v, %v; want 10 ranked of %d rows", st, err, n)
	}
	top, err = f.sys.Ranked(f.ctx, p, 10)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range top.Comments() {
		if c.ContentLen() != n-i {
			t.Errorf("rank %d: %d bytes, want %d", i+1, c.ContentLen(), n-i)
		}
	}
	// The longest comment's row is deleted: its index row dangles.
	ck, err := l.CommentKey(top.Comments()[0].OrderID, p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.st.Mutate(f.ctx, keys.Comment, store.Delete(ck)); err != nil {
		t.Fatal(err)
	}
	if _, err := f.sys.RankJob(f.ctx, []string{p}); err != nil {
		t.Fatal(err)
	}
	top, err = f.sys.Ranked(f.ctx, p, 10)
	if err != nil || len(top.Comments()) != keys.MaxRank || top.Comments()[0].ContentLen() != n-1 {
		t.Errorf("after the longest comment went: %d ranked, the first %d bytes, %v; want 10, from %d", len(top.Comments()),
			top.Comments()[0].ContentLen(), err, n-1)
	}
}

// An index row the design cannot read fails the job for its product.
func TestRankJobUndecodableRow(t *testing.T) {
	f := newFixture(t, keys.Unique, comments.Bounded)
	u, p := f.user(), f.product()
	c := f.comment(u, f.order(u), p, "fine", ts0)
	k, err := keys.Unique.Encode(keys.Key{Table: keys.ProductComment, ProductID: p, OrderID: c.OrderID, Timestamp: ts0, ContentLen: 4})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 8 { // revTs with its sign bit set: no timestamp made it
		k[len(p)+1+i] = 0xff
	}
	if err := f.st.Mutate(f.ctx, keys.ProductComment, store.Put(k, store.Cell{Qualifier: keys.Qualifier, Value: []byte("x")})); err != nil {
		t.Fatal(err)
	}
	if _, err := f.sys.RankJob(f.ctx, []string{p}); err == nil || !strings.Contains(err.Error(), "rank job "+p) {
		t.Errorf("a rank job over an undecodable row: %v", err)
	}
}

// A page and a ranking read 1..MaxPageSize rows, no more, no fewer.
func TestPageSizeBounds(t *testing.T) {
	f := newFixture(t, keys.Unique, comments.Bounded)
	u, p := f.user(), f.product()
	f.comment(u, f.order(u), p, "one", ts0)
	for _, n := range []int{1, comments.MaxPageSize} {
		if pg, err := f.sys.ProductPage(f.ctx, p, nil, n); err != nil || len(pg.Entries) != 1 {
			t.Errorf("page of %d: %d entries, %v", n, len(pg.Entries), err)
		}
		if _, err := f.sys.UserPage(f.ctx, u, nil, n); err != nil {
			t.Errorf("timeline page of %d: %v", n, err)
		}
		if _, err := f.sys.Ranked(f.ctx, p, n); err != nil {
			t.Errorf("ranked %d: %v", n, err)
		}
	}
	for _, n := range []int{0, comments.MaxPageSize + 1} {
		if _, err := f.sys.ProductPage(f.ctx, p, nil, n); err == nil {
			t.Errorf("page of %d: no error", n)
		}
		if _, err := f.sys.Ranked(f.ctx, p, n); err == nil {
			t.Errorf("ranked %d: no error", n)
		}
	}
}

// batchGets counts a store's batch gets.
type batchGets struct {
	store.Store
	calls, keys int
}

func (b *batchGets) BatchGet(ctx context.Context, table string, rows [][]byte) ([]store.Row, error) {
	b.calls++
	b.keys += len(rows)
	return b.Store.BatchGet(ctx, table, rows)
}

// Without a length in the listing key the job reads the comments 500 at a
// time; an empty comment ranks (last), a missing one does not.
func TestRankJobReadsLengthsInBatches(t *testing.T) {
	src, err := os.ReadFile("../layouts/product-hash.yaml")
	if err != nil {
		t.Fatal(err)
	}
	l, err := keys.Parse("product-hash.yaml", src)
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, l, comments.Bounded)
	u, p, q := f.user(), f.product(), f.product()
	for i := range 501 {
		f.comment(u, f.order(u), p, strings.Repeat("a", 1+i%50), ts0+int64(i))
	}
	var gone string
	for i, text := range []string{"", "ab", "abcde", "abc"} {
		c := f.comment(u, f.order(u), q, text, ts0+int64(i))
		gone = c.OrderID
	}
	ck, err := l.CommentKey(gone, q)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.st.Mutate(f.ctx, keys.Comment, store.Delete(ck)); err != nil {
		t.Fatal(err)
	}
	counted := &batchGets{Store: f.st}
	sys := comments.New(counted, comments.Options{Layout: l})
	if _, err := sys.RankJob(f.ctx, []string{p, q}); err != nil {
		t.Fatal(err)
	}
	if counted.calls != 3 || counted.keys != 501+4 {
		t.Errorf("%d batch gets of %d keys, want 3 (500, 1, 4) of 505", counted.calls, counted.keys)
	}
	top, err := sys.Ranked(f.ctx, q, 10)
	if err != nil {
		t.Fatal(err)
	}
	var lens []int
	for _, c := range top.Comments() {
		lens = append(lens, c.ContentLen())
	}
	if fmt.Sprint(lens) != "[5 2 0]" {
		t.Errorf("ranked lengths %v, want [5 2 0]: the empty one last, the missing one not at all", lens)
	}
}

// A ranking read for n gives n, however many rank rows there are.
func TestRankedReadsN(t *testing.T) {
	f := newFixture(t, keys.Unique, comments.Bounded)
	u, p := f.user(), f.product()
	for i := range 12 {
		f.comment(u, f.order(u), p, strings.Repeat("a", i+1), ts0+int64(i))
	}
	if _, err := f.sys.RankJob(f.ctx, []string{p}); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 3, 10, 11} {
		top, err := f.sys.Ranked(f.ctx, p, n)
		if want := min(n, keys.MaxRank); err != nil || len(top.Entries) != want {
			t.Errorf("Ranked(%d): %d entries, %v; want %d", n, len(top.Entries), err, want)
		}
	}
	for _, n := range []int{1, 5} {
		pg, err := f.sys.ProductPage(f.ctx, p, nil, n)
		if err != nil || len(pg.Entries) != n || pg.Next == nil {
			t.Errorf("ProductPage(%d): %d entries, next %q, %v", n, len(pg.Entries), pg.Next, err)
		}
	}
}

// The write path tells who listens of every index row it puts, with the
// comment's key, and of nothing else.
func TestOnIndexPut(t *testing.T) {
	eng, err := embedded.Open(embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	var heard []string
	sys := comments.New(eng, comments.Options{Layout: keys.Unique,
		OnIndexPut: func(table string, key, ck []byte) {
			heard = append(heard, fmt.Sprintf("%s %d %q", table, len(key), ck))
		}})
	f := newFixtureOn(t, eng, keys.Unique, comments.Bounded)
	f.sys = sys
	u, p := f.user(), f.product()
	c := f.comment(u, f.order(u), p, "hello", ts0)
	ck, _ := keys.Unique.CommentKey(c.OrderID, p)
	uk, _ := keys.Unique.Encode(keys.Key{Table: keys.UserComment, UserID: u, ProductID: p, OrderID: c.OrderID, Timestamp: ts0, ContentLen: 5})
	pk, _ := keys.Unique.Encode(keys.Key{Table: keys.ProductComment, UserID: u, ProductID: p, OrderID: c.OrderID, Timestamp: ts0, ContentLen: 5})
	want := []string{fmt.Sprintf("%s %d %q", keys.UserComment, len(uk), ck), fmt.Sprintf("%s %d %q", keys.ProductComment, len(pk), ck)}
	slices.Sort(heard)
	slices.Sort(want)
	if fmt.Sprint(heard) != fmt.Sprint(want) {
		t.Errorf("heard %q\nwant  %q", heard, want)
	}
}

// An index row holding no comment key is listed, found nowhere, and does
// not fail its page.
func TestIndexRowWithNoValue(t *testing.T) {
	f := newFixture(t, keys.Unique, comments.Bounded)
	u, p := f.user(), f.product()
	c := f.comment(u, f.order(u), p, "real", ts0)
	k, err := keys.Unique.Encode(keys.Key{Table: keys.ProductComment, ProductID: p, OrderID: "EmptyValue", Timestamp: ts0 + 1, ContentLen: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.st.Mutate(f.ctx, keys.ProductComment, store.Put(k, store.Cell{Qualifier: keys.Qualifier})); err != nil {
		t.Fatal(err)
	}
	pg, err := f.sys.ProductPage(f.ctx, p, nil, 10)
	if err != nil || len(pg.Entries) != 2 || pg.Entries[0].Found || !pg.Entries[1].Found || pg.Entries[1].Comment.OrderID != c.OrderID {
		t.Errorf("page %+v, %v; want the empty row unfound, then the comment", pg.Entries, err)
	}
}

// rankWrites notes the rows of each Mutate of the rank table, in order.
type rankWrites struct {
	store.Store
	calls [][]string
}

func (s *rankWrites) Mutate(ctx context.Context, table string, m ...store.Mutation) error {
	if table == keys.ProductRank {
		var rows []string
		for _, mu := range m {
			rows = append(rows, string(mu.Row))
		}
		s.calls = append(s.calls, rows)
	}
	return s.Store.Mutate(ctx, table, m...)
}

// Rank 1 is written alone and before every other rank of its ranking, so
// no rank of it can land before rank 1 however the batch is spread over
// servers (a check calls a rank older than rank 1 stale).
func TestRankOneWrittenFirstAlone(t *testing.T) {
	eng, err := embedded.Open(embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	rw := &rankWrites{Store: eng}
	f := newFixtureOn(t, rw, keys.Unique, comments.Bounded)
	p := f.product()
	ck := []byte("0123456789abcdefghij")
	for _, n := range []int{3, 1} {
		rw.calls = nil
		if err := f.sys.UpsertRanks(f.ctx, p, slices.Repeat([][]byte{ck}, n)); err != nil {
			t.Fatal(err)
		}
		r1, err := f.sys.Layout().RankKey(p, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(rw.calls) == 0 || len(rw.calls[0]) != 1 || rw.calls[0][0] != string(r1) {
			t.Fatalf("%d ranks: rank writes %q; want rank 1 %q alone first", n, rw.calls, r1)
		}
		for _, c := range rw.calls[1:] {
			if slices.Contains(c, string(r1)) {
				t.Fatalf("%d ranks: rank 1 written again in %q", n, c)
			}
		}
	}
}

// noLength is the unique design with no length in its product-comment key:
// the ranking job reads each comment for its length.
const noLength = `name: no-length
tables:
  user: {key: id}
  seller: {key: id}
  product: {key: id}
  order: {key: id}
  comment: {key: orderId productId}
  user-comment: {key: userId revTs orderId productId}
  product-comment: {key: productId lit(c) revTs orderId}
  product-comment-rank: {key: productId lit(r) rank}
`

// An index row whose comment is gone ranks nothing when the index key does
// not hold the comment's length: the product's ranking is its live
// comments alone.
func TestRankJobSkipsDanglingIndexRows(t *testing.T) {
	l, err := keys.Parse("no-length.yaml", []byte(noLength))
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, l, comments.Bounded)
	u, p := f.user(), f.product()
	live := f.comment(u, f.order(u), p, "kept", ts0)
	gone := f.comment(u, f.order(u), p, "a longer comment, deleted", ts0+1)
	ck, err := l.CommentKey(gone.OrderID, p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.st.Mutate(f.ctx, keys.Comment, store.Delete(ck)); err != nil {
		t.Fatal(err)
	}
	st, err := f.sys.RankJob(f.ctx, []string{p})
	if err != nil || st.Ranked != 1 {
		t.Fatalf("rank job: %+v, %v; want the one live comment ranked", st, err)
	}
	top, err := f.sys.Ranked(f.ctx, p, 10)
	if err != nil || len(top.Comments()) != 1 || top.Comments()[0].OrderID != live.OrderID {
		t.Fatalf("ranked: %+v, %v; want only %s", top.Comments(), err, live.OrderID)
	}
}

// scribbler hands each scanned row in memory of its own and overwrites it
// once the callback returns: a caller that keeps a piece of a scanned row
// past its callback reads 0xFF where the row was.
type scribbler struct{ store.Store }

func (s scribbler) Scan(ctx context.Context, table string, sc store.Scan, each func(store.Row) bool) (store.ScanMetrics, error) {
	return s.Store.Scan(ctx, table, sc, func(r store.Row) bool {
		own := store.Row{Key: bytes.Clone(r.Key)}
		for _, c := range r.Cells {
			own.Cells = append(own.Cells, store.Cell{Qualifier: bytes.Clone(c.Qualifier), Value: bytes.Clone(c.Value), Timestamp: c.Timestamp})
		}
		more := each(own)
		scribble := func(b []byte) {
			for i := range b {
				b[i] = 0xFF
			}
		}
		scribble(own.Key)
		for _, c := range own.Cells {
			scribble(c.Qualifier)
			scribble(c.Value)
		}
		return more
	})
}

// The ranking job keeps no memory of a scanned row past its callback: the
// ranking it writes names the comments as they were scanned, though each
// row's memory is overwritten as soon as the job has seen it. A job that
// kept the scan's bytes would pin the scan's memory for its whole run (and
// did: 1,024 workers' rank jobs held 200 MiB of the engine's scan blocks).
func TestRankJobKeepsNoScannedMemory(t *testing.T) {
	eng, err := embedded.Open(embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	f := newFixtureOn(t, scribbler{eng}, keys.Unique, comments.Bounded)
	u, p := f.user(), f.product()
	for i := range 30 {
		f.comment(u, f.order(u), p, strings.Repeat("a", 1+(i*7)%30), ts0+int64(i))
	}
	if st, err := f.sys.RankJob(f.ctx, []string{p}); err != nil || st.Ranked != keys.MaxRank {
		t.Fatalf("rank job: %+v, %v", st, err)
	}
	// Read back without the scribbler: reads keep what they scan.
	reader := comments.New(eng, comments.Options{Layout: keys.Unique, Scan: comments.Bounded})
	top, err := reader.Ranked(f.ctx, p, 10)
	if err != nil || len(top.Comments()) != keys.MaxRank {
		t.Fatalf("ranked: %d comments, %v; want 10", len(top.Comments()), err)
	}
	for i, c := range top.Comments() {
		if c.ContentLen() != 30-i {
			t.Errorf("rank %d: %d bytes, want %d", i+1, c.ContentLen(), 30-i)
		}
	}
}
