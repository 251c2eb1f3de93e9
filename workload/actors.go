package workload

import (
	"context"
	"errors"
	"sync"
	"time"

	"commentbench/comments"
	"commentbench/model"
	"commentbench/results"
)

// Actor performs one kind of user behaviour: one arrival, one or more ops.
// Each op is recorded with Worker.record, which measures it from when it
// would have started had the arrival started on time (see schedule).
type Actor interface {
	Do(ctx context.Context, w *Worker)
}

// actors maps the scenario's mix names to their behaviour.
var actors = map[string]Actor{
	"write":       writer{},
	"burst":       burster{},
	"multi-order": multiOrder{},
	"list":        lister{},
	"pager":       pager{},
	"timeline":    timelinePager{},
	"ranker":      ranker{},
	"ranked":      rankedReader{},
	"editor":      editor{},
	"latest":      latestReader{},
}

// writer is the commenter: a uniformly chosen user orders a product chosen
// by popularity and comments on it.
type writer struct{}

// Do orders, then comments. The comment's text is made before its first
// op, so the comment write starts the instant the order's ends: one clock
// reading ends the one, starts the other and stamps the comment, where
// three were taken.
func (writer) Do(ctx context.Context, w *Worker) {
	u, p := w.user(), w.env.Products.Pick(w.r)
	text := w.content()
	order, end, ok := w.order(ctx, u)
	if !ok {
		return
	}
	w.comment(ctx, OpWrite, order, u, p, text, w.env.Clock.At(end), end)
}

// order creates an order for user u and records it; end is when it
// returned.
func (w *Worker) order(ctx context.Context, u int) (id string, end time.Time, ok bool) {
	o := model.Order{ID: w.orders.Next(), UserID: w.env.Pop.Users[u]}
	start := now()
	err := w.env.Sys.CreateOrder(ctx, o)
	return o.ID, w.record(OpOrder, start, err), err == nil
}

// comment writes one comment, starting at start, stamped ts by the harness
// clock (the pagers compare stamps with the same clock) and books it where
// pagers and the ranking job will look for it.
func (w *Worker) comment(ctx context.Context, op int, order string, u, p int, text string, ts int64, start time.Time) {
	w.intend(order, p, text)
	c, err := w.env.Sys.WriteComment(ctx, comments.NewComment{OrderID: order, ProductID: w.env.Pop.Products[p],
		UserID: w.env.Pop.Users[u], Content: text, Timestamp: ts})
	w.book(order, p, text, err) // before the write is counted: acknowledged only once the ledger holds it
	w.record(op, start, err)
	w.countComment(w.env.Pop.Products[p], w.env.Pop.Users[u], err)
	if err != nil {
		return
	}
	w.env.Acked.add(p, u, ts)
	w.env.Recent.add(p)
	w.remember(c.OrderID, c.ProductID)
}

// intend writes to the ledger that a comment write is starting, before
// its first put: a crash before its outcome leaves it in flight, never a
// comment the ledger does not know.
func (w *Worker) intend(order string, p int, text string) {
	if w.ledger != nil {
		w.ledger.Write(results.Pending, w.commentKey(order, p), len(text))
	}
}

// book writes the outcome of a comment write to the ledger: acknowledged,
// unknown when a put failed (it may have landed), or not written when it
// was refused before its first put.
func (w *Worker) book(order string, p int, text string, err error) {
	if w.ledger == nil {
		return
	}
	status := results.Acked
	if err != nil {
		status = results.NotWritten
		// Past the success path: errors.As's target escapes, an allocation.
		if we := (*comments.WriteError)(nil); errors.As(err, &we) {
			status = results.Unknown
		}
	}
	w.ledger.Write(status, w.commentKey(order, p), len(text))
}

// commentKey is the comment's row key, nil for ids no key holds (the
// write refuses them before its first put).
func (w *Worker) commentKey(order string, p int) []byte {
	k, _ := w.env.Sys.Layout().CommentKey(order, w.env.Pop.Products[p])
	return k
}

func (w *Worker) content() string {
	return w.env.corpus.Text(w.r, w.env.Scenario.Content.Chars(w.r))
}

// burster is a flash sale: Size comments on one hot product stamped with
// one millisecond, EqualLength of them with one byte length, which is
// exactly what collides in the seed's product-comment key.
type burster struct{}

// Its orders are created first, one after another; then every comment is
// released at one instant, each from its own goroutine, so the writes race
// as a real flash sale's do.
func (burster) Do(ctx context.Context, w *Worker) {
	b := w.env.Scenario.Burst
	p := w.env.Products.Pick(w.r)
	ts := w.env.Clock.Now()
	same := int(float64(b.Size)*b.EqualLength + 0.5)
	sameLen := max(1, w.env.Scenario.Content.Chars(w.r))
	var writes []burstWrite
	for i := range b.Size {
		if ctx.Err() != nil {
			return
		}
		u := w.user()
		order, _, ok := w.order(ctx, u)
		if !ok {
			continue
		}
		text := w.content()
		if i < same {
			text = ContentOfBytes(w.r, sameLen)
		}
		writes = append(writes, burstWrite{order: order, user: u, text: text})
	}
	w.release(ctx, p, ts, writes)
}

type burstWrite struct {
	order, text string
	user        int
	start, end  time.Time
	c           model.Comment
	err         error
}

// release writes a burst's comments at once. Each is due when the burst's
// writes were (the schedule's next op); the schedule then moves on by the
// longest of them, as if they had run on time side by side.
func (w *Worker) release(ctx context.Context, p int, ts int64, writes []burstWrite) {
	go1 := make(chan struct{})
	var wg sync.WaitGroup
	for i := range writes {
		bw := &writes[i]
		w.intend(bw.order, p, bw.text)
		wg.Go(func() {
			<-go1
			bw.start = now()
			bw.c, bw.err = w.env.Sys.WriteComment(ctx, comments.NewComment{OrderID: bw.order, ProductID: w.env.Pop.Products[p],
				UserID: w.env.Pop.Users[bw.user], Content: bw.text, Timestamp: ts})
			bw.end = now()
		})
	}
	close(go1)
	wg.Wait()
	due, longest := w.sched.due, time.Duration(0)
	for i := range writes {
		bw := &writes[i]
		if !w.sched.open {
			due = bw.start
		}
		w.book(bw.order, p, bw.text, bw.err)
		w.note(OpBurst, due, bw.start, bw.end, bw.err)
		longest = max(longest, bw.end.Sub(bw.start))
		w.countComment(w.env.Pop.Products[p], w.env.Pop.Users[bw.user], bw.err)
		if bw.err == nil {
			w.env.Acked.add(p, bw.user, bw.c.Timestamp)
			w.env.Recent.add(p)
			w.remember(bw.c.OrderID, bw.c.ProductID)
		}
	}
	if w.sched.open {
		w.sched.due = w.sched.due.Add(longest)
	}
}

// multiOrder is one user commenting on several products of one order in
// one millisecond: the seed's user-comment key collides.
type multiOrder struct{}

func (multiOrder) Do(ctx context.Context, w *Worker) {
	u := w.user()
	order, _, ok := w.order(ctx, u)
	if !ok {
		return
	}
	ts := w.env.Clock.Now()
	seen := map[int]bool{}
	for range w.env.Scenario.MultiOrder {
		p := w.env.Products.Pick(w.r)
		if seen[p] { // one comment per product of an order: (order, product) is the comment's key
			continue
		}
		seen[p] = true
		text := w.content()
		w.comment(ctx, OpMulti, order, u, p, text, ts, now())
	}
}

// lister reads the first page of a product's listing, hot products most.
type lister struct{}

func (lister) Do(ctx context.Context, w *Worker) {
	p := w.env.Pop.Products[w.env.Products.Pick(w.r)]
	start := now()
	pg, err := w.env.Sys.ProductPage(ctx, p, nil, w.env.Scenario.PageSize)
	w.recordPage(OpLatest, start, pg, err)
	w.countProduct(p, 1, 0)
}

// latestReader reads the first page of the site's latest comments: seed
// 003's one row that every comment is written into. A design without that
// listing has no such read: Run leaves the actor out (see Unrunnable).
type latestReader struct{}

func (latestReader) Do(ctx context.Context, w *Worker) {
	start := now()
	pg, err := w.env.Sys.LatestPage(ctx, nil, w.env.Scenario.PageSize)
	w.recordPage(OpSiteLatest, start, pg, err)
}

// rankedReader reads a product's top 10.
type rankedReader struct{}

func (rankedReader) Do(ctx context.Context, w *Worker) {
	p := w.env.Pop.Products[w.env.Products.Pick(w.r)]
	start := now()
	pg, err := w.env.Sys.Ranked(ctx, p, 10)
	w.recordPage(OpRanked, start, pg, err)
	w.countProduct(p, 1, 0)
}

// ranker runs the batch ranking job over the products commented since its
// last run.
type ranker struct{}

func (ranker) Do(ctx context.Context, w *Worker) {
	idx := w.env.Recent.drain()
	if len(idx) == 0 {
		return
	}
	ids := make([]string, len(idx))
	for i, p := range idx {
		ids[i] = w.env.Pop.Products[p]
	}
	o := rankOptions(w.env.Scenario, w.r, w.env.Flaws)
	o.Ranked = w.countRanked(o.Ranked)
	start := now()
	_, err := w.env.Sys.RankJobWith(ctx, ids, o)
	w.record(OpRankJob, start, err)
}

// editor rewrites one of this worker's recent comments.
type editor struct{}

func (editor) Do(ctx context.Context, w *Worker) {
	if len(w.recent) == 0 {
		return
	}
	c := w.recent[w.r.IntN(len(w.recent))]
	start := now()
	edited, err := w.env.Sys.EditComment(ctx, c.order, c.product, w.content())
	w.record(OpEdit, start, err)
	w.countEdit(c.product, edited.UserID, err)
}

// user picks a user: one of the hot users with the scenario's share, any
// user otherwise.
func (w *Worker) user() int {
	p := w.env.Scenario.Popularity
	if p.HotUsers > 0 && w.r.Float64() < p.HotUserShare {
		return w.r.IntN(p.HotUsers)
	}
	return w.r.IntN(len(w.env.Pop.Users))
}
