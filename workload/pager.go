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

// add counts n violations of kind. sample describes them, called only
// while kind has room for one more: most violations are not sampled.
func (v *Violations) add(kind string, n int64, sample func() string) {
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
		e.Samples = append(e.Samples, sample())
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
	// stamps are the stamps of the latest of those comments acknowledged
	// (ackStamps), so a walk cut short can check the part it read. Nil when
	// the run keeps none: then only a complete walk is checked.
	stamps []int64
	op     int

	prev   []byte
	seen   map[string]bool
	listed []int64 // stamps of the comments found, each once, stamped no later than t0
	lastTs int64   // the stamp of owner's last comment read; 0: none read
	left   bool    // the listing ran into another owner's rows
}

// pager walks a product listing page by page and checks it.
type pager struct{}

func (pager) Do(ctx context.Context, w *Worker) {
	productWalk(w, w.env.Products.Pick(w.r)).run(ctx)
}

// productWalk is a walk of the listing of the product at index i.
func productWalk(w *Worker, i int) *walk {
	p := w.env.Pop.Products[i]
	list, _ := w.env.Sys.Layout().Listing(keys.ProductComment, p) // p is a valid id
	return &walk{w: w, table: keys.ProductComment, owner: p, list: list, op: OpPage,
		acked: w.env.Acked.products[i].Load(), stamps: w.env.Acked.productStamps(i), t0: w.env.Clock.Now()}
}

// timelinePager walks a user's timeline the same way.
type timelinePager struct{}

func (timelinePager) Do(ctx context.Context, w *Worker) {
	timelineWalk(w, w.user()).run(ctx)
}

// timelineWalk is a walk of the timeline of the user at index i.
func timelineWalk(w *Worker, i int) *walk {
	u := w.env.Pop.Users[i]
	list, _ := w.env.Sys.Layout().Listing(keys.UserComment, u) // u is a valid id
	return &walk{w: w, table: keys.UserComment, owner: u, list: list, op: OpTimeline,
		acked: w.env.Acked.users[i].Load(), stamps: w.env.Acked.userStamps(i), t0: w.env.Clock.Now()}
}

// fetch reads the page of the listing at cursor.
func (wk *walk) fetch(ctx context.Context, cursor []byte) (comments.Page, error) {
	sys, size := wk.w.env.Sys, wk.w.env.Scenario.PageSize
	if wk.table == keys.UserComment {
		return sys.UserPage(ctx, wk.owner, cursor, size)
	}
	return sys.ProductPage(ctx, wk.owner, cursor, size)
}

// mine reports whether the entry's comment is the owner's.
func (wk *walk) mine(e comments.Entry) bool {
	if wk.table == keys.UserComment {
		return e.Comment.UserID == wk.owner
	}
	return e.Comment.ProductID == wk.owner
}

// run pages to the end, to MaxPages, or until the listing leaves its owner
// (the seed's scans do; there is no point reading the rest of the table).
func (wk *walk) run(ctx context.Context) {
	var cursor []byte
	maxPages := wk.w.env.Scenario.MaxPages
	for page := 0; maxPages == 0 || page < maxPages; page++ {
		start := now()
		pg, err := wk.fetch(ctx, cursor)
		wk.w.recordPage(wk.op, start, pg, err)
		wk.w.countPage(wk.table, wk.owner)
		if err != nil {
			return
		}
		for _, e := range pg.Entries {
			wk.check(e)
		}
		if pg.Next == nil || wk.left {
			wk.finish()
			return
		}
		cursor = pg.Next
	}
	wk.finishPart()
}

func (wk *walk) check(e comments.Entry) {
	if !wk.list.Owns(e.IndexKey) {
		wk.left = true
		wk.violate(VForeign, 1, func() string { return fmt.Sprintf("walking %s: %s", wk.owner, wk.decode(e.IndexKey)) })
		return
	}
	foreign := e.Found && !wk.mine(e)
	if foreign {
		wk.violate(VForeign, 1, func() string { return fmt.Sprintf("%s -> comment of another: %q", wk.decode(e.IndexKey), e.CommentKey) })
	}
	if wk.prev != nil && wk.list.Compare(e.IndexKey, wk.prev) <= 0 {
		wk.violate(VOutOfOrder, 1, func() string { return fmt.Sprintf("%s after %s", wk.decode(e.IndexKey), wk.decode(wk.prev)) })
	}
	wk.prev = e.IndexKey
	if !e.Found {
		wk.violate(VDangling, 1, func() string { return fmt.Sprintf("%s -> missing comment %q", wk.decode(e.IndexKey), e.CommentKey) })
		return
	}
	if foreign {
		return // another's comment lists none of owner's
	}
	wk.lastTs = e.Comment.Timestamp
	if wk.seen[string(e.CommentKey)] {
		wk.violate(VDuplicate, 1, func() string { return fmt.Sprintf("comment %q again at %s", e.CommentKey, wk.decode(e.IndexKey)) })
		return // listed once, however often it shows
	}
	if wk.seen == nil { // most walks on the no-op store list nothing
		wk.seen = map[string]bool{}
	}
	wk.seen[string(e.CommentKey)] = true
	if e.Comment.Timestamp <= wk.t0 {
		wk.listed = append(wk.listed, e.Comment.Timestamp)
	}
}

// finish compares a complete walk with what was acknowledged. It is a lower
// bound: a write in flight when the walk began may fill a gap.
func (wk *walk) finish() {
	listed := int64(len(wk.listed))
	if d := wk.acked - listed; d > 0 {
		wk.violate(VMissing, d, func() string {
			return fmt.Sprintf("%s %s: %d acknowledged, %d listed", wk.table, wk.owner, wk.acked, listed)
		})
	}
}

// finishPart checks a walk cut short by MaxPages on what it read. A
// listing is newest first, so every comment acknowledged before the walk
// began and stamped after the last row read must have been on the pages
// read. Those stamped in the last row's millisecond are left out: within
// it the order is the key's (length, ids), which the stamps do not tell.
func (wk *walk) finishPart() {
	if wk.stamps == nil || wk.lastTs == 0 {
		return
	}
	acked := countAfter(wk.stamps, wk.lastTs)
	listed := countAfter(wk.listed, wk.lastTs)
	if d := acked - listed; d > 0 {
		wk.violate(VMissing, d, func() string {
			return fmt.Sprintf("%s %s: %d acknowledged after %s, %d listed in %d pages read",
				wk.table, wk.owner, acked, time.UnixMilli(wk.lastTs).UTC().Format(time.RFC3339Nano), listed, wk.w.env.Scenario.MaxPages)
		})
	}
}

func countAfter(stamps []int64, ts int64) int64 {
	var n int64
	for _, s := range stamps {
		if s > ts {
			n++
		}
	}
	return n
}

func (wk *walk) violate(kind string, n int64, sample func() string) {
	if wk.w.counting {
		wk.w.env.Checks.add(kind, n, sample)
	}
}

func (wk *walk) decode(key []byte) string {
	return wk.w.env.Sys.Layout().Describe(wk.table, key)
}

// ackStamps keeps, per product and per user, the stamps of the latest
// comments acknowledged, for walks cut short (walk.stamps). Each owner
// keeps at most keep, so memory stays flat over a long run: a walk reads
// at most MaxPages pages, and stamps it cannot reach are of no use to it.
// Dropping the earliest acknowledged only lowers the count a walk checks,
// so what it reports stays a lower bound.
type ackStamps struct {
	keep            int
	products, users []stampRing
}

type stampRing struct {
	mu     sync.Mutex
	stamps []int64
	next   int // where the next stamp goes once the ring is full
}

func newAckStamps(products, users, keep int) *ackStamps {
	return &ackStamps{keep: keep, products: make([]stampRing, products), users: make([]stampRing, users)}
}

// add books a comment on product by user, stamped ts, as acknowledged.
func (a *ackStamps) add(product, user int, ts int64) {
	a.products[product].add(ts, a.keep)
	a.users[user].add(ts, a.keep)
}

func (r *stampRing) add(ts int64, keep int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.stamps) < keep {
		r.stamps = append(r.stamps, ts)
		return
	}
	r.stamps[r.next] = ts
	if r.next++; r.next == keep { // not %: a division per comment, twice
		r.next = 0
	}
}

// snapshot copies the stamps booked so far, for a walk beginning now.
func (r *stampRing) snapshot() []int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append(make([]int64, 0, len(r.stamps)), r.stamps...)
}

// stampsToKeep is how many stamps per owner serve a scenario's walks:
// twice what its deepest walk reads, so a walk that finds comments
// missing still has their stamps. None when walks go to the end.
func stampsToKeep(sc Scenario) int {
	return 2 * sc.MaxPages * sc.PageSize
}
