package workload

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"sync/atomic"
	"time"

	"commentbench/comments"
	"commentbench/faults"
	"commentbench/keys"
	"commentbench/results"
	"commentbench/store"
	"commentbench/txn"
)

// The operations recorded, one histogram each. An actor may record several
// (a pager records each page it reads).
const (
	OpOrder = iota
	OpWrite
	OpBurst
	OpMulti
	OpLatest
	OpPage
	OpTimeline
	OpRankJob
	OpRanked
	OpEdit
	OpSiteLatest
)

// OpNames are the operations' names in results and SLO expressions.
var OpNames = []string{"order-create", "comment-write", "burst-write", "multi-order-write",
	"product-latest", "product-page", "user-timeline", "rank-job", "ranked", "comment-edit", "site-latest"}

// actionOf names what each actor does for its user, end to end: an action
// is one arrival, from when it was due to the end of its last op.
var actionOf = map[string]string{
	"write": "post-comment", "burst": "post-burst", "multi-order": "post-multi-order",
	"list": "read-listing", "pager": "walk-listing", "timeline": "walk-timeline",
	"ranker": "rank-job", "ranked": "read-ranking", "editor": "edit-comment", "latest": "read-latest",
}

// ActionNames are the actions' names, in results as results.ActionPrefix
// plus the name (and so in SLO expressions: action:post-comment:p99<=300ms).
var ActionNames = []string{"post-comment", "post-burst", "post-multi-order", "read-listing",
	"walk-listing", "walk-timeline", "rank-job", "read-ranking", "edit-comment", "read-latest"}

// ResultNames are what a results.Set records: the ops, then the actions.
func ResultNames() []string {
	out := slices.Clone(OpNames)
	for _, a := range ActionNames {
		out = append(out, results.ActionPrefix+a)
	}
	return out
}

func actionIndex(actor string) int {
	return len(OpNames) + slices.Index(ActionNames, actionOf[actor])
}

// act is an actor with the index of the action it records: an arrival
// no longer looks its action up by name.
type act struct {
	Actor
	action int
}

func actOf(name string) act { return act{actors[name], actionIndex(name)} }

// Clock stamps comments: milliseconds of wall time at the run's start plus
// monotonic time since, so it never runs backwards and a burst can put
// several comments in exactly one millisecond.
type Clock struct {
	base    int64
	start   time.Time
	logical *atomic.Int64 // nil: wall time
}

// NewClock starts a clock at now.
func NewClock() *Clock {
	now := time.Now()
	return &Clock{base: now.UnixMilli(), start: now}
}

// NewLogicalClock starts at now and moves one millisecond per reading, so
// two comments share a millisecond only when a burst or a multi-product
// order means them to: a run's collisions depend on its seed alone.
func NewLogicalClock() *Clock {
	c := NewClock()
	c.logical = new(atomic.Int64)
	return c
}

// Now is the current millisecond.
func (c *Clock) Now() int64 { return c.At(now()) }

// At is the millisecond of t, a reading of now taken a moment ago (a
// logical clock moves on as for Now, whatever t is).
func (c *Clock) At(t time.Time) int64 {
	if c.logical != nil {
		return c.base + c.logical.Add(1)
	}
	return c.base + t.Sub(c.start).Milliseconds()
}

// now is time.Now at half its cost, for the stamps taken around every
// operation: the monotonic clock alone, read as time since an epoch taken
// with time.Now. Durations between stamps, which latencies are, are the
// monotonic clock's either way; wall times are the epoch's plus that, so a
// step of the system clock during a run moves none of them.
func now() time.Time { return epoch.Add(time.Since(epoch)) }

var epoch = time.Now()

// Population is what the seeder created: the ids actors choose from.
type Population struct {
	Users, Products, Sellers []string
}

// Env is what every worker shares. Everything in it is safe for concurrent
// use.
type Env struct {
	Sys      *comments.System
	Scenario Scenario
	Pop      Population
	Products *Popularity // by popularity rank: index 0 is the hottest product
	Clock    *Clock
	Acked    *Acked
	Checks   *Violations
	Recent   *RecentProducts
	Flaws    *Flaws // nil: not watched
	// recording is off during warm-up: arrivals then run but are not counted.
	recording atomic.Bool
	// run is this run's index among the runs appended to the data (0 unless
	// Config.Append): it picks the order ids.
	run    int64
	hot    hotKeys // the products and users worked for most
	corpus *corpus // the comments' texts are slices of it
}

// Worker is one goroutine's state. Nothing in it is shared.
type Worker struct {
	env    *Env
	r      *rand.Rand
	orders keys.IDGen
	rec    *results.Recorder
	recent []commentRef // this worker's latest comments, for the editor
	next   int
	// counting says whether the arrival being run is recorded (see ticket).
	counting bool
	ledger   *results.LedgerWriter // nil: no ledger kept
	sched    schedule
	hot      *hotShard // where it counts hot keys, shared and locked; set on first use
}

// schedule is the arrival being run. Its first op was due when the arrival
// was; each later op when the ones before it would have ended, had the
// arrival started on time: the arrival's intended time plus the service
// times of its earlier ops. So every op of a late arrival carries the
// wait, and with no lateness latency is service time. A closed loop has no
// schedule: each op is due when it starts.
type schedule struct {
	open       bool
	at, due    time.Time
	ops        int       // ops recorded in this arrival
	err        string    // the first op error's kind
	first, end time.Time // when its first op started and its last ended
}

// arrive runs one arrival of actor a, due at intended (open is false in a
// closed loop, where intended is when it starts), and records its action.
func (w *Worker) arrive(ctx context.Context, a act, intended time.Time, open bool) {
	w.sched = schedule{open: open, at: intended, due: intended}
	a.Do(ctx, w)
	if w.counting && w.sched.ops > 0 {
		w.rec.Record(a.action, w.sched.at, w.sched.first, w.sched.end, w.sched.err)
	}
}

type commentRef struct{ order, product string }

const recentComments = 256

func (w *Worker) remember(order, product string) {
	if len(w.recent) < recentComments {
		w.recent = append(w.recent, commentRef{order, product})
		return
	}
	w.recent[w.next] = commentRef{order, product}
	w.next = (w.next + 1) % recentComments
}

// record files one finished operation, begun at start, of a counted
// arrival: its latency runs from when the schedule had it due.
func (w *Worker) record(op int, start time.Time, err error) (end time.Time) {
	end = now()
	due := start
	if w.sched.open {
		due = w.sched.due
		w.sched.due = w.sched.due.Add(end.Sub(start))
	}
	w.note(op, due, start, end, err)
	return end
}

// note files an operation that was due at due and ran from start to end,
// leaving the schedule to the caller.
func (w *Worker) note(op int, due, start, end time.Time, err error) {
	kind := ErrorKind(err)
	if w.sched.err == "" {
		w.sched.err = kind
	}
	if w.sched.ops == 0 {
		w.sched.first = start
	}
	w.sched.ops++
	if end.After(w.sched.end) { // a burst's writes end in any order
		w.sched.end = end
	}
	if w.counting {
		w.rec.Record(op, due, start, end, kind)
	}
}

// recordPage records a listing page, and on success what it cost.
func (w *Worker) recordPage(op int, start time.Time, pg comments.Page, err error) {
	w.record(op, start, err)
	if w.counting && err == nil {
		w.rec.RecordPage(op, int64(pg.Scans), pg.Scan.RowsScanned, pg.Scan.CellsScanned)
	}
}

// ErrorKind names an error's class for the error counts: the kinds a user
// acts on differently.
func ErrorKind(err error) string {
	if err == nil {
		return "" // before errors.As's target, which escapes: no allocation per success
	}
	var we *comments.WriteError
	switch {
	case errors.Is(err, faults.ErrAbandoned):
		return "abandoned"
	case errors.Is(err, faults.ErrFailed):
		return "injected-failure"
	case errors.Is(err, faults.ErrLost):
		return "reply-lost"
	case errors.Is(err, txn.ErrConflict):
		return "conflict"
	case errors.As(err, &we) && we.Partial():
		return "partial-write"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "canceled"
	case errors.Is(err, comments.ErrOrderNotFound):
		return "order-not-found"
	case errors.Is(err, comments.ErrOrderUser):
		return "order-user"
	case errors.Is(err, comments.ErrCommentNotFound):
		return "comment-not-found"
	case errors.Is(err, keys.ErrBadID), errors.Is(err, keys.ErrBadKey):
		return "bad-key"
	case errors.Is(err, store.ErrClosed):
		return "closed"
	case errors.Is(err, store.ErrRowTooBig):
		return "row-too-big"
	}
	return "store"
}

// Acked counts the comments acknowledged per product and per user, so a
// pager knows how many a listing must at least show; and, when walks stop
// at a page limit, the latest of their stamps, so a walk cut short can
// check the part it read.
type Acked struct {
	products, users []atomic.Int64
	stamps          *ackStamps // nil: walks go to the end
}

// NewAcked sizes the counters for a population; keep stamps are kept per
// owner (stampsToKeep), none when 0.
func NewAcked(products, users, keep int) *Acked {
	a := &Acked{products: make([]atomic.Int64, products), users: make([]atomic.Int64, users)}
	if keep > 0 {
		a.stamps = newAckStamps(products, users, keep)
	}
	return a
}

// add books a comment on product by user, stamped ts, acknowledged.
func (a *Acked) add(product, user int, ts int64) {
	a.products[product].Add(1)
	a.users[user].Add(1)
	if a.stamps != nil {
		a.stamps.add(product, user, ts)
	}
}

// productStamps and userStamps are an owner's latest stamps, for a walk
// beginning now; nil when none are kept.
func (a *Acked) productStamps(i int) []int64 {
	if a.stamps == nil {
		return nil
	}
	return a.stamps.products[i].snapshot()
}

func (a *Acked) userStamps(i int) []int64 {
	if a.stamps == nil {
		return nil
	}
	return a.stamps.users[i].snapshot()
}

// RecentProducts are the products commented since the ranking job last ran:
// a flag per product, which every comment write sets and the job clears.
type RecentProducts struct {
	set []atomic.Bool
}

// newRecentProducts tracks products 0..n-1.
func newRecentProducts(n int) *RecentProducts { return &RecentProducts{set: make([]atomic.Bool, n)} }

func (r *RecentProducts) add(i int) {
	if !r.set[i].Load() { // a hot product's flag stays in every core's cache
		r.set[i].Store(true)
	}
}

// drain returns the products, in order, and clears them.
func (r *RecentProducts) drain() []int {
	var out []int
	for i := range r.set {
		if r.set[i].Load() && r.set[i].Swap(false) {
			out = append(out, i)
		}
	}
	return out
}
