package workload

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"time"

	"commentbench/comments"
	"commentbench/keys"
	"commentbench/results"
)

// Violation kinds a pager reports.
const (
	VOutOfOrder = "out-of-order" // an index row not after the previous one
	VForeign    = "foreign-row"  // a row of another product or user
	VDuplicate  = "duplicate"    // one comment listed twice in one walk
	VDangling   = "dangling"     // an index row whose comment does not exist
	VMissing    = "missing"      // fewer comments listed than were acknowledged
)

const maxSamples = 10

// Violations counts what pagers found wrong, with a few decoded samples.
type Violations struct {
	mu sync.Mutex
	m  map[string]*results.Violation
}

func (v *Violations) add(kind string, n int64, sample string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.m == nil {
		v.m = map[string]*results.Violation{}
	}
	e := v.m[kind]
	if e == nil {
		e = &results.Violation{}
		v.m[kind] = e
	}
	e.Count += n
	if len(e.Samples) < maxSamples {
		e.Samples = append(e.Samples, sample)
	}
}

// Snapshot copies the counts.
func (v *Violations) Snapshot() map[string]*results.Violation {
	v.mu.Lock()
	defer v.mu.Unlock()
	out := make(map[string]*results.Violation, len(v.m))
	for k, e := range maps.All(v.m) {
		out[k] = &results.Violation{Count: e.Count, Samples: append([]string(nil), e.Samples...)}
	}
	return out
}

// walk is one pager's pass over a listing and what it checks.
type walk struct {
	w     *Worker
	table string // the index table, to decode keys in samples
	owner string // the product or user walked
	list  keys.Listing
	// acked is how many comments of owner were acknowledged before the walk
	// began; every one of them is stamped no later than t0.
	acked int64
	t0    int64
	fetch func(ctx context.Context, cursor []byte) (comments.Page, error)
	op    int

	prev   []byte
	seen   map[string]bool
	listed int64 // found comments stamped no later than t0
	left   bool  // the listing ran into another owner's rows
}

// pager walks a product listing page by page and checks it.
type pager struct{}

func (pager) Do(ctx context.Context, w *Worker) {
	i := w.env.Products.Pick(w.r)
	p := w.env.Pop.Products[i]
	list, _ := w.env.Sys.Layout().Listing(keys.ProductComment, p) // p is a valid id
	wk := &walk{w: w, table: keys.ProductComment, owner: p, list: list, op: OpPage,
		acked: w.env.Acked.products[i].Load(), t0: w.env.Clock.Now(),
		fetch: func(ctx context.Context, c []byte) (comments.Page, error) {
			return w.env.Sys.ProductPage(ctx, p, c, w.env.Scenario.PageSize)
		}}
	wk.run(ctx, func(e comments.Entry) bool { return e.Comment.ProductID == p })
}

// timelinePager walks a user's timeline the same way.
type timelinePager struct{}

func (timelinePager) Do(ctx context.Context, w *Worker) {
	i := w.user()
	u := w.env.Pop.Users[i]
	list, _ := w.env.Sys.Layout().Listing(keys.UserComment, u) // u is a valid id
	wk := &walk{w: w, table: keys.UserComment, owner: u, list: list, op: OpTimeline,
		acked: w.env.Acked.users[i].Load(), t0: w.env.Clock.Now(),
		fetch: func(ctx context.Context, c []byte) (comments.Page, error) {
			return w.env.Sys.UserPage(ctx, u, c, w.env.Scenario.PageSize)
		}}
	wk.run(ctx, func(e comments.Entry) bool { return e.Comment.UserID == u })
}

// run pages to the end, to MaxPages, or until the listing leaves its owner
// (the seed's scans do; there is no point reading the rest of the table).
func (wk *walk) run(ctx context.Context, mine func(comments.Entry) bool) {
	wk.seen = map[string]bool{}
	var cursor []byte
	maxPages := wk.w.env.Scenario.MaxPages
	for page := 0; maxPages == 0 || page < maxPages; page++ {
		start := time.Now()
		pg, err := wk.fetch(ctx, cursor)
		wk.w.recordPage(wk.op, start, pg, err)
		if err != nil {
			return
		}
		for _, e := range pg.Entries {
			wk.check(e, mine)
		}
		if pg.Next == nil || wk.left {
			wk.finish()
			return
		}
		cursor = pg.Next
	}
}

func (wk *walk) check(e comments.Entry, mine func(comments.Entry) bool) {
	if !wk.list.Owns(e.IndexKey) {
		wk.left = true
		wk.violate(VForeign, 1, fmt.Sprintf("walking %s: %s", wk.owner, wk.decode(e.IndexKey)))
		return
	}
	if e.Found && !mine(e) {
		wk.violate(VForeign, 1, fmt.Sprintf("%s -> comment of another: %q", wk.decode(e.IndexKey), e.CommentKey))
	}
	if wk.prev != nil && wk.list.Compare(e.IndexKey, wk.prev) <= 0 {
		wk.violate(VOutOfOrder, 1, fmt.Sprintf("%s after %s", wk.decode(e.IndexKey), wk.decode(wk.prev)))
	}
	wk.prev = e.IndexKey
	if !e.Found {
		wk.violate(VDangling, 1, fmt.Sprintf("%s -> missing comment %q", wk.decode(e.IndexKey), e.CommentKey))
		return
	}
	if wk.seen[string(e.CommentKey)] {
		wk.violate(VDuplicate, 1, fmt.Sprintf("comment %q again at %s", e.CommentKey, wk.decode(e.IndexKey)))
	}
	wk.seen[string(e.CommentKey)] = true
	if e.Comment.Timestamp <= wk.t0 {
		wk.listed++
	}
}

// finish compares a complete walk with what was acknowledged. It is a lower
// bound: a write in flight when the walk began may fill a gap.
func (wk *walk) finish() {
	if d := wk.acked - wk.listed; d > 0 {
		wk.violate(VMissing, d, fmt.Sprintf("%s %s: %d acknowledged, %d listed", wk.table, wk.owner, wk.acked, wk.listed))
	}
}

func (wk *walk) violate(kind string, n int64, sample string) {
	if wk.w.counting {
		wk.w.env.Checks.add(kind, n, sample)
	}
}

func (wk *walk) decode(key []byte) string {
	return wk.w.env.Sys.Layout().Describe(wk.table, key)
}
