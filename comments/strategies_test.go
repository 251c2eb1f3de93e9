package comments_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"commentbench/comments"
	"commentbench/faults"
	"commentbench/keys"
	"commentbench/store/embedded"
)

// strategyDesigns are the designs each strategy is tried on: every
// shape it can write (one-row needs a listing in the comment's row; the
// verified index keeps no count).
func strategyDesigns(t *testing.T, w comments.Writes) []*keys.Design {
	t.Helper()
	b := func(name string) *keys.Design {
		d, err := keys.Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	uniqueClustered := clustered(t, "unique", "    key: productId lit(c) revTs revLen orderId\n")
	betweenClustered := clustered(t, "between", "    meta: lit(l) lit(0x00)\n")
	switch w {
	case comments.OneRow:
		return []*keys.Design{b("between"), betweenClustered}
	case comments.Verified:
		return []*keys.Design{b("unique"), b("feed"), uniqueClustered}
	}
	return []*keys.Design{b("unique"), b("between"), b("feed"), uniqueClustered, betweenClustered}
}

var strategies = []comments.Writes{comments.NonAtomic, comments.OneRow, comments.Verified, comments.Transactional}

// strategyFixture is a fixture whose system writes with w, failures
// injected by inj.
func strategyFixture(t *testing.T, d *keys.Design, w comments.Writes, inj *faults.Injector, grace time.Duration) *fixture {
	t.Helper()
	eng, err := embedded.Open(embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	f := &fixture{t: t, ctx: context.Background(), st: eng,
		sys: comments.New(eng, comments.Options{Layout: d, Writes: w, Faults: inj, VerifyGrace: grace, LockTTL: time.Hour}),
		ids: keys.NewRandom(rand.New(rand.NewPCG(7, 9)))}
	if err := f.sys.CreateTables(f.ctx, keys.RandomLetters, 4); err != nil {
		t.Fatal(err)
	}
	return f
}

// listed is every listing's walk of the product's, the user's and the
// site's comments: each entry's comment key, and whether it was found.
func (f *fixture) listed(product, user string) map[string][]comments.Entry {
	f.t.Helper()
	out := map[string][]comments.Entry{
		keys.ProductComment: f.walk(func(c []byte) (comments.Page, error) { return f.sys.ProductPage(f.ctx, product, c, 2) }),
		keys.UserComment:    f.walk(func(c []byte) (comments.Page, error) { return f.sys.UserPage(f.ctx, user, c, 2) }),
	}
	if f.sys.Layout().Table(keys.LatestComment) != nil {
		out[keys.LatestComment] = f.walk(func(c []byte) (comments.Page, error) { return f.sys.LatestPage(f.ctx, c, 2) })
	}
	return out
}

func lists(es []comments.Entry, order string) bool {
	for _, e := range es {
		if e.Found && e.Comment.OrderID == order {
			return true
		}
	}
	return false
}

// A writer stopped before each request of a comment write, on every
// strategy and design it runs on. Afterwards: the comments written before
// stay listed in full; the verified index and transactions never list an
// entry whose comment is missing; a transaction's comment is in every
// listing or in none, as its comment is there or not; and what the writer
// left is counted (verify reconciles the counts: see package check).
func TestWriterStopsAtEveryStep(t *testing.T) {
	for _, w := range strategies {
		for _, d := range strategyDesigns(t, w) {
			t.Run(w.String()+"/"+d.Name(), func(t *testing.T) {
				for k := 1; ; k++ {
					steps := 0
					inj := faults.New(faults.Spec{}, 1)
					f := strategyFixture(t, d, w, inj, time.Hour)
					u, p := f.user(), f.product()
					for i := range 3 {
						f.comment(u, f.order(u), p, fmt.Sprintf("before %d", i), ts0+int64(i))
					}
					inj.Stops = func(n int) int { steps = n; return k }
					x := f.order(u)
					_, err := f.sys.WriteComment(f.ctx, comments.NewComment{OrderID: x, ProductID: p, UserID: u, Content: "stopped", Timestamp: ts0 + 10})
					inj.Stops = func(int) int { return -1 }
					if k >= steps {
						if err != nil || k == 1 {
							t.Fatalf("a writer of %d steps that never stops: %v", steps, err)
						}
						return
					}
					if !errors.Is(err, faults.ErrAbandoned) {
						t.Fatalf("step %d of %d: %v, want the writer stopped", k, steps, err)
					}
					_, there, err := f.sys.Comment(f.ctx, x, p)
					if err != nil {
						t.Fatal(err)
					}
					in := 0
					got := f.listed(p, u)
					for table, es := range got {
						found := 0
						for _, e := range es {
							if e.Found {
								found++
							} else if w == comments.Verified || w == comments.Transactional {
								t.Errorf("step %d: %s lists %x, whose comment is missing", k, table, e.CommentKey)
							}
						}
						if found < 3 {
							t.Errorf("step %d: %s lists %d of the 3 comments written before", k, table, found)
						}
						if lists(es, x) {
							in++
							if !there {
								t.Errorf("step %d: %s lists the stopped comment, which is not there", k, table)
							}
						}
					}
					if w == comments.Transactional && in != 0 && in != len(got) {
						t.Errorf("step %d: the transaction's comment is in %d of %d listings", k, in, len(got))
					}
					if w == comments.Transactional && there != (in == len(got)) {
						t.Errorf("step %d: comment there %v, listed in %d of %d", k, there, in, len(got))
					}
					left := f.sys.Residue()
					if sum(left.Unreferenced)+sum(left.Undefined)+sum(left.Unverified)+sum(left.Orphans)+left.LocksForward+left.LocksBack == 0 {
						t.Errorf("step %d of %d: the writer left nothing counted: %+v", k, steps, left)
					}
					if left.Injected.Abandoned != 1 {
						t.Errorf("%d abandons counted, want 1", left.Injected.Abandoned)
					}
				}
			})
		}
	}
}

func sum(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

// A design no listing of which shares the comment's row is refused for
// one-row, naming the tables; one whose listing keeps a count, for the
// verified index.
func TestWritesRefused(t *testing.T) {
	for _, c := range []struct {
		design string
		w      comments.Writes
		want   []string
	}{
		{"unique", comments.OneRow, []string{"--writes one-row on design unique", "user-comment in user-comment's", "product-comment in product-comment's"}},
		{"feed", comments.OneRow, []string{"no listing is kept in the comment's row"}},
		{"between", comments.Verified, []string{"--writes verified on design between", "user-comment keeps a count"}},
	} {
		d, _ := keys.Builtin(c.design)
		err := comments.CheckWrites(d, c.w)
		if !errors.Is(err, comments.ErrWritesDesign) {
			t.Errorf("%s on %s: %v, want refused", c.w, c.design, err)
			continue
		}
		for _, want := range c.want {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s on %s: %q lacks %q", c.w, c.design, err, want)
			}
		}
	}
	d, _ := keys.Builtin("between")
	if in, apart := comments.OneRowSplit(d); strings.Join(in, ",") != "product-comment" || strings.Join(apart, ",") != "user-comment" {
		t.Errorf("between's one-row split: in %v, apart %v", in, apart)
	}
}

// The verified index's readers: an unverified entry whose comment is
// there is served, and repaired once old enough; one whose comment is not
// is skipped, and deleted once old enough; each counted once.
func TestVerifiedReadRepair(t *testing.T) {
	d, _ := keys.Builtin("unique")
	for _, old := range []bool{false, true} {
		grace := time.Hour
		if old {
			grace = -time.Millisecond
		}
		inj := faults.New(faults.Spec{}, 1)
		f := strategyFixture(t, d, comments.Verified, inj, grace)
		u, p := f.user(), f.product()
		f.comment(u, f.order(u), p, "kept", ts0)
		// Stopped after the comment: its entries stay unverified.
		inj.Stops = func(n int) int { return n - 2 }
		forward := f.order(u)
		f.sys.WriteComment(f.ctx, comments.NewComment{OrderID: forward, ProductID: p, UserID: u, Content: "forward", Timestamp: ts0 + 1})
		// Stopped before the comment, after its first entry (the user's):
		// that entry has none.
		inj.Stops = func(n int) int { return 1 }
		f.sys.WriteComment(f.ctx, comments.NewComment{OrderID: f.order(u), ProductID: p, UserID: u, Content: "orphan", Timestamp: ts0 + 2})
		inj.Stops = func(int) int { return -1 }
		for range 2 {
			got := f.listed(p, u)
			for table, es := range got {
				if len(es) != 2 || !lists(es, forward) {
					t.Errorf("old %v: %s lists %d entries (%v), want the kept comment and the one whose comment is there", old, table, len(es), es)
				}
			}
		}
		left := f.sys.Residue()
		if left.Unverified[keys.ProductComment] != 1 || left.Unverified[keys.UserComment] != 1 ||
			left.Orphans[keys.UserComment] != 1 || len(left.Orphans) != 1 {
			t.Errorf("left unverified %v, orphans %v: want one unverified per listing, one orphan in the user's", left.Unverified, left.Orphans)
		}
		want := [2]int64{0, 0}
		if old {
			want = [2]int64{2, 1} // the forward comment's two entries repaired, the orphan deleted
		}
		if got := [2]int64{left.Repaired, left.Deleted}; got != want {
			t.Errorf("old %v: repaired and deleted %v, want %v", old, got, want)
		}
		if left.Skipped == 0 {
			t.Errorf("old %v: no skip counted", old)
		}
	}
}

// Writers of one hot row under transactions (a burst on one product of a
// wide design, where the product's row holds its comments, its listing
// and its count): every comment acknowledged is listed, the count is the
// entries, and the writers met conflicts and retried.
func TestTransactionsOnAHotRow(t *testing.T) {
	d, _ := keys.Builtin("between")
	f := strategyFixture(t, d, comments.Transactional, nil, time.Hour)
	p := f.product()
	const writers, each = 8, 6
	users := make([]string, writers)
	orders := make([][]string, writers)
	for w := range users {
		users[w] = f.user()
		for range each {
			orders[w] = append(orders[w], f.order(users[w]))
		}
	}
	var mu sync.Mutex
	acked := map[string]bool{}
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i, o := range orders[w] {
				c, err := f.sys.WriteComment(f.ctx, comments.NewComment{OrderID: o, ProductID: p, UserID: users[w],
					Content: fmt.Sprintf("%d.%d", w, i), Timestamp: ts0 + int64(i)})
				if err == nil {
					mu.Lock()
					acked[c.OrderID] = true
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	es := f.walk(func(c []byte) (comments.Page, error) { return f.sys.ProductPage(f.ctx, p, c, 5) })
	listedAcked := 0
	for _, e := range es {
		if !e.Found {
			t.Errorf("listed %x, whose comment is missing", e.CommentKey)
		}
		if acked[e.Comment.OrderID] {
			listedAcked++
		}
	}
	first, err := f.sys.ProductPage(f.ctx, p, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	r := f.sys.Residue()
	if listedAcked != len(acked) || !first.Counted || first.Count != int64(len(es)) {
		t.Errorf("%d of %d acknowledged listed; count %d (read %v), %d entries", listedAcked, len(acked), first.Count, first.Counted, len(es))
	}
	if r.Conflicts == 0 || r.Retries == 0 || len(acked) < writers*each/2 {
		t.Errorf("%d acknowledged of %d, %d conflicts, %d retries: want most written, after conflicts", len(acked), writers*each, r.Conflicts, r.Retries)
	}
}

// A ranking's entries carry no status under the verified index: its
// readers take them as they are, and drop none.
func TestVerifiedRanksUntouched(t *testing.T) {
	d, _ := keys.Builtin("unique")
	f := strategyFixture(t, d, comments.Verified, nil, -time.Millisecond)
	u, p := f.user(), f.product()
	for i := range 3 {
		f.comment(u, f.order(u), p, strings.Repeat("글", i+1), ts0+int64(i))
	}
	if _, err := f.sys.RankJob(f.ctx, []string{p}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		pg, err := f.sys.Ranked(f.ctx, p, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(pg.Comments()) != 3 {
			t.Fatalf("the ranking lists %d comments, want 3", len(pg.Comments()))
		}
	}
	if r := f.sys.Residue(); r.Deleted+r.Skipped+r.Repaired != 0 {
		t.Errorf("reads of a ranking repaired %d, skipped %d and deleted %d entries", r.Repaired, r.Skipped, r.Deleted)
	}
}

// The strategy is recorded with the data: a system that writes another
// way is refused before it writes, and the recorded one is read back.
func TestWritesRecorded(t *testing.T) {
	d, _ := keys.Builtin("unique")
	f := strategyFixture(t, d, comments.Verified, nil, time.Hour)
	w, found, err := comments.RecordedWrites(f.ctx, f.st)
	if err != nil || !found || w != comments.Verified {
		t.Fatalf("recorded %v %v %v", w, found, err)
	}
	other := comments.New(f.st, comments.Options{Layout: d, Writes: comments.Transactional})
	if err := other.CreateTables(f.ctx, keys.RandomLetters, 4); !errors.Is(err, comments.ErrWritesMismatch) ||
		!strings.Contains(err.Error(), "--writes verified, not transactional") {
		t.Errorf("another strategy over the data: %v", err)
	}
	same := comments.New(f.st, comments.Options{Layout: d, Writes: comments.Verified})
	if err := same.CreateTables(f.ctx, keys.RandomLetters, 4); err != nil {
		t.Errorf("the same strategy again: %v", err)
	}
}

// Editors of one comment at once, in transactions, on a design whose
// listings hold copies of it: the comment ends as one of the edits, every
// copy says what the comment says, and the editors met conflicts.
func TestConcurrentEditsInTransactions(t *testing.T) {
	d := clustered(t, "unique", "    key: productId lit(c) revTs revLen orderId\n")
	f := strategyFixture(t, d, comments.Transactional, nil, time.Hour)
	u, p := f.user(), f.product()
	c := f.comment(u, f.order(u), p, "first", ts0)
	const editors, each = 8, 40
	var wg sync.WaitGroup
	for e := range editors {
		wg.Go(func() {
			for i := range each {
				f.sys.EditComment(f.ctx, c.OrderID, c.ProductID, fmt.Sprintf("edit %d.%d", e, i)) // a conflict past the retries fails it: that is allowed
			}
		})
	}
	wg.Wait()
	now, found, err := f.sys.Comment(f.ctx, c.OrderID, c.ProductID)
	if err != nil || !found || !strings.HasPrefix(now.Content, "edit ") || !now.IsEdited {
		t.Fatalf("the comment after the edits: %+v, %v, %v", now, found, err)
	}
	pg, err := f.sys.ProductPage(f.ctx, p, nil, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(pg.Entries) != 1 || pg.Entries[0].Comment.Content != now.Content {
		t.Errorf("the listing's copy says %+v, the comment %q", pg.Entries, now.Content)
	}
	if r := f.sys.Residue(); r.Conflicts == 0 {
		t.Errorf("%d editors of one comment met no conflict", editors)
	}
}
