package workload

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"time"

	"commentbench/comments"
	"commentbench/model"
	"commentbench/results"
	"commentbench/store"
)

// How a load phase filled the store (Outcome.LoadedBy).
const (
	LoadPuts    = "puts"         // comment by comment through the write path
	LoadBulk    = "bulk load"    // sorted tables handed to the store whole
	LoadBatched = "batched puts" // sorted rows in multi-row requests
	LoadReused  = "reused base"  // the store started from a base holding it
)

// LoadPlan fills the load phase in bulk. The comments are the ones the
// put-by-put load makes: the same workers, random streams and order ids
// write them through the same comment system, into a capture instead of
// the store (see capture); the rows they leave are sorted by table and
// key and written whole. Worker i of n writes the comments i, i+n,
// i+2n, ... of the load, so the load is the same from run to run where a
// put-by-put one splits it between workers as they happen to run.
type LoadPlan struct {
	// Reuse: the store already holds this load (it started from a base):
	// the generators only move on as the load moves them, and the ledger's
	// records come with the base.
	Reuse bool
	Base  string // the base's name, for the outcome
	// Ingest writes one table's rows: each part's in ascending key order,
	// every row of a part before every row of the next, so that the parts
	// can be written side by side. nil writes them in batches of puts
	// through the comment system's store.
	Ingest func(ctx context.Context, table string, parts []func() (store.BulkRow, bool)) error
	// Loaded, if set, is called once the load is in the store and its
	// ledger (to keep it as a base), with the collisions the load's index
	// puts made (to keep with it).
	Loaded func(ctx context.Context, collided []Collision) error
	// Collided, with Reuse, are the collisions the base's load made: the
	// run's flaws hear of them as if its own load had made them.
	Collided []Collision
}

// Collision is an index put of a load onto a key another comment of it
// put first: Flaws.IndexPut's arguments, in the order they came.
type Collision struct {
	Table   string `json:"table"`
	Key     []byte `json:"key"`
	Comment []byte `json:"comment"`
}

// BulkRefusal says why a scenario's load cannot be made in bulk, "" when
// it can: injected failures and transactions belong to writes made one
// by one, and a load shared between processes is each one's to make.
func BulkRefusal(sc Scenario, workersTotal int) string {
	switch {
	case sc.Faults.Any():
		return "injected failures need the writes made one by one"
	case sc.Writes == comments.Transactional.String():
		return "transactional writes take locks row by row"
	case workersTotal > 1:
		return "the load is shared between processes"
	}
	return ""
}

// loadRate is the comments a millisecond of a wall-clock load stamps:
// about what the put-by-put load wrote here (1M in 52 to 91 s), so that
// comments share a millisecond, and the seed's keys collide, as often.
const loadRate = 16

// loadInBulk is the load phase made by r.cfg.Load.
func (r *run) loadInBulk(ctx context.Context, ws []*Worker, col *collector, out *Outcome) (interrupted bool) {
	plan := r.cfg.Load
	start := time.Now()
	out.LoadedBy, out.Base = LoadBulk, plan.Base
	switch {
	case plan.Reuse:
		out.LoadedBy = LoadReused
	case plan.Ingest == nil:
		out.LoadedBy = LoadBatched
	}
	var collided []Collision
	var err error
	if plan.Reuse {
		err = r.replay(ctx, ws, plan.Collided)
	} else {
		collided, err = r.bulkLoad(ctx, ws, plan)
	}
	out.Loaded, out.LoadTime = r.loadedSoFar(), time.Since(start)
	if err == nil && plan.Loaded != nil && !plan.Reuse {
		saved := time.Now()
		err = plan.Loaded(ctx, collided)
		out.SaveTime = time.Since(saved)
	}
	if ctx.Err() != nil {
		return true
	}
	if err != nil {
		out.LoadErr = err
		return true
	}
	col.endLoad()
	return false
}

// bulkLoad generates the load, writes it and books it in the ledger:
// pending before it lands, acknowledged after.
func (r *run) bulkLoad(ctx context.Context, ws []*Worker, plan *LoadPlan) (collided []Collision, err error) {
	// The load holds a gigabyte or so of cells until it is written, which
	// the collector would otherwise trace again at every doubling.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	gens, caps, err := r.generate(ctx, ws)
	defer func() {
		for _, g := range gens {
			err = errors.Join(err, g.closeLedger())
		}
	}()
	if err != nil {
		return nil, err
	}
	// Pending is booked, mostly waiting on the disk, while the collisions
	// are found.
	pending := make(chan error, 1)
	go func() { pending <- book(gens, results.Pending) }()
	collided = collisions(caps)
	if r.cfg.Flaws != nil {
		for _, c := range collided {
			r.cfg.Flaws.IndexPut(c.Table, c.Key, c.Comment)
		}
	}
	if err := <-pending; err != nil {
		return collided, err
	}
	if err := r.writeTables(ctx, caps, plan); err != nil {
		return collided, err
	}
	if err := book(gens, results.Acked); err != nil {
		return collided, err
	}
	return collided, nil
}

// replay moves every worker on as its share of the load moved it, where
// the store holds the load already: the same picks, texts, order ids and
// stamps, the comments acknowledged and remembered, the load's collisions
// told to the flaws; nothing written.
func (r *run) replay(ctx context.Context, ws []*Worker, collided []Collision) error {
	n, step := r.cfg.LoadTotal(), int64(len(ws))
	stamp := r.stamps(n)
	errs := make([]error, len(ws))
	var wg sync.WaitGroup
	for i, w := range ws {
		wg.Go(func() {
			for g := int64(i); g < n; g += step {
				if (g/step)%4096 == 0 && ctx.Err() != nil {
					errs[i] = ctx.Err()
					return
				}
				u, p := w.user(), r.env.Products.Pick(w.r)
				w.content()
				order := w.orders.Next()
				r.env.Acked.add(p, u, stamp(g))
				r.env.Recent.add(p)
				w.remember(order, r.env.Pop.Products[p])
				r.loaded.Add(1)
			}
		})
	}
	wg.Wait()
	r.advanceClock(n)
	if r.cfg.Flaws != nil {
		for _, c := range collided {
			r.cfg.Flaws.IndexPut(c.Table, c.Key, c.Comment)
		}
	}
	return errors.Join(errs...)
}

// advanceClock moves a logical clock past the n stamps the load took.
func (r *run) advanceClock(n int64) {
	if c := r.env.Clock.logical; c != nil {
		c.Add(n)
	}
}

// gen is one worker's share of the load.
type gen struct {
	w      *Worker
	cap    *capture // its core's
	ledger *results.BulkLedgerWriter
	keys   [][]byte // the comments' keys, for the ledger
	lens   []int32
	// reserve: the comments its capture will hold in all, for the first
	// share written into it to reserve room for; 0 for the others.
	reserve int64
}

// generate runs every worker's share, a capture a core, the workers of
// a core one after another: the fewer captures, the fewer runs the
// tables' rows are merged from.
func (r *run) generate(ctx context.Context, ws []*Worker) ([]*gen, []*capture, error) {
	n, step := r.cfg.LoadTotal(), int64(len(ws))
	stamp := r.stamps(n)
	gens := make([]*gen, len(ws))
	caps := make([]*capture, min(runtime.GOMAXPROCS(0), len(ws)))
	for c := range caps {
		caps[c] = newCapture()
		caps[c].id = uint16(c)
	}
	for i, w := range ws {
		g := &gen{w: w, cap: caps[i%len(caps)]}
		gens[i] = g
		if i < len(caps) {
			for j := i; j < len(ws); j += len(caps) {
				g.reserve += (n - int64(j) + step - 1) / step
			}
		}
		if r.cfg.Ledger != nil {
			var err error
			if g.ledger, err = r.cfg.Ledger.Bulk(fmt.Sprintf("load-%04d", i)); err != nil {
				return gens[:i], nil, err // the ledgers opened, for the caller to close
			}
		}
	}
	errs := make([]error, len(caps))
	var wg sync.WaitGroup
	for c, cp := range caps {
		wg.Go(func() {
			for i := c; i < len(ws) && errs[c] == nil; i += len(caps) {
				errs[c] = r.generateShare(ctx, gens[i], int64(i), step, n, stamp)
			}
			cp.sort() // here, every core's side by side
		})
	}
	wg.Wait()
	r.advanceClock(n)
	return gens, caps, errors.Join(errs...)
}

// stamps is the stamp of the load's g-th comment: a logical clock's next
// readings in order; on a wall clock the load as if written at loadRate,
// ending now.
func (r *run) stamps(n int64) func(g int64) int64 {
	c := r.env.Clock
	if c.logical != nil {
		from := c.base + c.logical.Load()
		return func(g int64) int64 { return from + g + 1 }
	}
	end := c.Now()
	return func(g int64) int64 { return end - (n-1-g)/loadRate }
}

// generateShare writes comments from, from+step, ... below n through a
// comment system over the worker's capture, as the writer actor does:
// the same picks, text and order id, in the same order.
func (r *run) generateShare(ctx context.Context, g *gen, from, step, n int64, stamp func(int64) int64) error {
	sys, err := bulkSystem(g.cap, r.cfg.Scenario, r.cfg.Flaws != nil)
	if err != nil {
		return err
	}
	w, env := g.w, r.env
	share := (n - from + step - 1) / step
	for i := from; i < n; i += step {
		if (i/step)%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if done := (i - from) / step; done == reserveAfter {
			g.cap.reserve(done, g.reserve)
			if g.ledger != nil {
				g.keys, g.lens = slices.Grow(g.keys, int(share)-len(g.keys)), slices.Grow(g.lens, int(share)-len(g.lens))
			}
		}
		u, p := w.user(), env.Products.Pick(w.r)
		text := w.content()
		g.cap.next(i)
		o := model.Order{ID: w.orders.Next(), UserID: env.Pop.Users[u]}
		if err := sys.CreateOrder(ctx, o); err != nil {
			return fmt.Errorf("bulk load: %w", err)
		}
		ts := stamp(i)
		c, err := sys.WriteComment(ctx, comments.NewComment{OrderID: o.ID, ProductID: env.Pop.Products[p],
			UserID: env.Pop.Users[u], Content: text, Timestamp: ts})
		if err != nil {
			return fmt.Errorf("bulk load: %w", err)
		}
		if g.ledger != nil {
			g.keys, g.lens = append(g.keys, w.commentKey(o.ID, p)), append(g.lens, int32(len(text)))
		}
		env.Acked.add(p, u, ts)
		env.Recent.add(p)
		w.remember(c.OrderID, c.ProductID)
		r.loaded.Add(1)
	}
	return nil
}

// reserveAfter is how many comments of its share a worker writes before
// reserving room for the rest, from what those took.
const reserveAfter = 2048

// bulkSystem is System over a capture, its index puts kept in the
// capture's log (when watched) for the flaws to hear of in the order the
// comments were written (see noteIndexPuts), rather than told under a
// lock a million times.
func bulkSystem(c *capture, sc Scenario, watched bool) (*comments.System, error) {
	o, err := systemOptions(sc)
	if err != nil {
		return nil, err
	}
	if watched {
		o.OnIndexPut = c.logIndexPut
	}
	return comments.New(c, o), nil
}

// collisions are the load's index puts onto a key another comment of it
// put, each key's puts in the order the comments were written: what the
// flaws of a put-by-put load would have heard of as collisions.
func collisions(caps []*capture) []Collision {
	logs := map[string]*merged{}
	for _, c := range caps {
		for t, l := range c.indexLog {
			if logs[t] == nil {
				logs[t] = &merged{}
			}
			logs[t].add(l)
		}
		c.indexLog = nil
	}
	var out []Collision
	for t, m := range logs {
		it := m.iter()
		var group []*capRec
		for r := it.next(); r != nil; {
			group = append(group[:0], r)
			for r = it.next(); r != nil && m.sameRow(group[0], r); r = it.next() {
				group = append(group, r)
			}
			for k := 0; len(group) > 1 && k < len(group); k++ {
				out = append(out, Collision{Table: t, Key: m.row(group[k]), Comment: m.val(group[k])})
			}
		}
	}
	return out
}

// book records every comment of the share with status, durably.
// book writes every share's records with status, each in its own file,
// side by side: most of it is waiting for the disk.
func book(gens []*gen, status byte) error {
	errs := make([]error, len(gens))
	var wg sync.WaitGroup
	for i, g := range gens {
		wg.Go(func() { errs[i] = g.book(status) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

func (g *gen) book(status byte) error {
	if g.ledger == nil {
		return nil
	}
	for i, k := range g.keys {
		g.ledger.Write(status, k, int(g.lens[i]))
	}
	return g.ledger.Sync()
}

func (g *gen) closeLedger() error {
	if g.ledger == nil {
		return nil
	}
	err := g.ledger.Close()
	g.ledger = nil
	return err
}

// writeTables sorts each table's rows and writes them, tables side by
// side, one a core.
func (r *run) writeTables(ctx context.Context, caps []*capture, plan *LoadPlan) error {
	tables := map[string]*merged{}
	for _, c := range caps {
		for t, cells := range c.tables {
			if tables[t] == nil {
				tables[t] = &merged{}
			}
			tables[t].add(cells)
		}
		c.tables = nil
	}
	// Every table written at once, the largest started first, so the cores
	// share the work to the end; batched puts one table a core, as their
	// requests wait on the store.
	write, inFlight := plan.Ingest, len(tables)
	if write == nil {
		st := r.cfg.Sys.Store()
		write = func(ctx context.Context, table string, parts []func() (store.BulkRow, bool)) error {
			return putBatches(ctx, st, table, chain(parts))
		}
		inFlight = runtime.GOMAXPROCS(0)
	}
	names := make([]string, 0, len(tables))
	for t := range tables {
		names = append(names, t)
	}
	slices.SortFunc(names, func(a, b string) int {
		return cmp.Or(cmp.Compare(tables[b].cells(), tables[a].cells()), cmp.Compare(a, b))
	})
	sem := make(chan struct{}, max(inFlight, 1))
	errs := make(chan error, len(tables))
	for _, t := range names {
		cells := tables[t]
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			errs <- writeTable(ctx, t, cells, write)
		}()
	}
	var err error
	for range tables {
		err = errors.Join(err, <-errs)
	}
	return err
}

// writeTable writes one table's rows, its captures' sorted cells merged.
// A large table's rows are cut into parts by key, written side by side,
// each merged on a goroutine of its own, a batch of rows at a time, while
// the rows before are written: the largest table would otherwise be
// written alone, on one core, after the others are done.
func writeTable(ctx context.Context, table string, cells *merged, write func(context.Context, string, []func() (store.BulkRow, bool)) error) error {
	pieces, big := []*merged{cells}, cells.cells() >= pipelineFrom
	if big {
		pieces = cells.split(writeParts)
	}
	errs := make([]error, len(pieces))
	parts := make([]func() (store.BulkRow, bool), len(pieces))
	waits := make([]func(), len(pieces))
	for i, m := range pieces {
		if big {
			parts[i], waits[i] = pipeline(m.rows(&errs[i], true))
		} else {
			parts[i] = m.rows(&errs[i], false)
		}
	}
	err := write(ctx, table, parts)
	for _, wait := range waits {
		if wait != nil {
			wait()
		}
	}
	if err = errors.Join(append(errs, err)...); err != nil {
		return fmt.Errorf("bulk load %s: %w", table, err)
	}
	return nil
}

// writeParts is how many parts a large table is cut into: more than the
// cores, so that the parts' uneven lengths even out.
var writeParts = 2 * runtime.GOMAXPROCS(0)

// chain reads parts one after another.
func chain(parts []func() (store.BulkRow, bool)) func() (store.BulkRow, bool) {
	return func() (store.BulkRow, bool) {
		for len(parts) > 0 {
			if row, ok := parts[0](); ok {
				return row, true
			}
			parts = parts[1:]
		}
		return store.BulkRow{}, false
	}
}

// pipelineFrom is the cells a table needs for its rows to be merged on a
// goroutine of their own (a variable: a test lowers it); pipelineBatch the
// rows handed over at a time.
var pipelineFrom = 1 << 16

const pipelineBatch = 2048

// pipeline calls rows on a goroutine of its own, ahead of the rows next
// returns. wait, called once the rows are read (or no more will be),
// returns when the goroutine has.
func pipeline(rows func() (store.BulkRow, bool)) (next func() (store.BulkRow, bool), wait func()) {
	ch := make(chan []store.BulkRow, 4)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(ch)
		for {
			batch := make([]store.BulkRow, 0, pipelineBatch)
			for len(batch) < pipelineBatch {
				row, ok := rows()
				if !ok {
					break
				}
				batch = append(batch, row)
			}
			if len(batch) == 0 {
				return
			}
			select {
			case ch <- batch:
			case <-done:
				return
			}
			if len(batch) < pipelineBatch {
				return
			}
		}
	})
	var cur []store.BulkRow
	ahead := 0    // rows of cur already touched
	var seen byte // what touch read, kept so that its reads are made
	next = func() (store.BulkRow, bool) {
		for len(cur) == 0 {
			b, ok := <-ch
			if !ok {
				return store.BulkRow{}, false
			}
			cur, ahead = b, 0
		}
		if ahead == 0 {
			ahead = min(len(cur), touchAhead)
			seen += touch(cur[:ahead])
		}
		row := cur[0]
		cur = cur[1:]
		ahead--
		return row, true
	}
	wait = func() {
		close(done)
		wg.Wait()
	}
	return next, wait
}

// touchAhead is how many rows' keys the writer reads at a time before
// writing them (see touch).
const touchAhead = 128

// touch reads the first byte of each row's key. The rows lie where their
// comments were generated, in no order, so the first read of each misses
// the cache: in a loop of nothing else the misses are waited for
// together, where the write of each row would wait for its own (a third
// of the writer's time, without it).
func touch(rows []store.BulkRow) byte {
	var sum byte
	for i := range rows {
		sum += rows[i].Key[0]
	}
	return sum
}

// Batched puts, for a store that takes no tables whole (a cluster over
// the wire): rows in requests of putBatch, each request to one region,
// putsInFlight requests at a time to each server.
const (
	putBatch     = 512
	putsInFlight = 4
)

// putBatches writes rows in multi-row requests, several in flight per
// region server.
func putBatches(ctx context.Context, st store.Store, table string, next func() (store.BulkRow, bool)) error {
	regions, err := st.Regions(ctx, table)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	servers := map[string]chan []store.Mutation{}
	var wg sync.WaitGroup
	for _, rg := range regions {
		if servers[rg.Server] != nil {
			continue
		}
		ch := make(chan []store.Mutation, putsInFlight)
		servers[rg.Server] = ch
		for range putsInFlight {
			wg.Go(func() { sendBatches(ctx, st, table, ch, cancel) })
		}
	}
	feedBatches(ctx, regions, servers, next)
	for _, ch := range servers {
		close(ch)
	}
	wg.Wait()
	return context.Cause(ctx)
}

// feedBatches cuts the rows into requests, each within one region, and
// hands each to its region's server.
func feedBatches(ctx context.Context, regions []store.Region, servers map[string]chan []store.Mutation, next func() (store.BulkRow, bool)) {
	var batch []store.Mutation
	at := 0
	flush := func() bool {
		if len(batch) == 0 {
			return true
		}
		select {
		case servers[regions[at].Server] <- batch:
			batch = nil
			return true
		case <-ctx.Done():
			return false
		}
	}
	for {
		row, ok := next()
		if !ok {
			flush()
			return
		}
		for at+1 < len(regions) && !regions[at].Contains(row.Key) {
			if !flush() {
				return
			}
			at++
		}
		batch = append(batch, store.Put(row.Key, slices.Clone(row.Cells)...))
		if len(batch) == putBatch && !flush() {
			return
		}
	}
}

func sendBatches(ctx context.Context, st store.Store, table string, ch <-chan []store.Mutation, fail context.CancelCauseFunc) {
	for muts := range ch {
		if ctx.Err() != nil {
			continue // drain: the feeder stops at the failure
		}
		if err := st.Mutate(ctx, table, muts...); err != nil {
			fail(fmt.Errorf("put %d rows: %w", len(muts), err))
		}
	}
}
