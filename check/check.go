// Package check proves that a comment data set is consistent: every index
// row references a comment whose fields produce that row's key, every
// comment is referenced where its fields say it should be, ranks are sane,
// and every comment's order, user, product and seller exist. It also
// reconciles a data set with what a loadgen run acknowledged, measures how
// the data spreads over regions and servers, and repairs what can be
// repaired.
//
// The model is HBase's IntegrationTestBigLinkedList: a comment is a
// definition, an index row a reference to it. An index is first proved
// by fingerprints of its rows against fingerprints of the rows its
// comments call for, bucket by bucket; only the buckets that fail the
// proof are joined row by row. The joins merge sorted streams (table
// scans and external sorts), so memory stays bounded however large the
// data set. The package reads through store.Store and the key layouts; it
// must not know how a backend keeps its bytes, nor how the data was
// written.
package check

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"

	"commentbench/comments"
	"commentbench/keys"
	"commentbench/model"
	"commentbench/store"
)

// MaxSamples is how many offending rows a counter keeps.
const MaxSamples = 10

// Counter counts one kind of inconsistency, with decoded samples.
type Counter struct {
	Count   int64    `json:"count"`
	Samples []string `json:"samples,omitempty"`
}

func (c *Counter) add(n int64, sample func() string) {
	c.Count += n
	if len(c.Samples) < MaxSamples {
		c.Samples = append(c.Samples, sample())
	}
}

// IndexReport is one index table checked against the comments.
type IndexReport struct {
	Table string `json:"table"`
	Rows  int64  `json:"rows"`
	// Referenced comments have exactly the index row their fields call for,
	// pointing back at them.
	Referenced int64 `json:"referenced"`
	// Unreferenced comments have no index row where one is expected:
	// invisible in listings.
	Unreferenced Counter `json:"unreferenced"`
	// Undefined index rows point at a comment that does not exist.
	Undefined Counter `json:"undefined"`
	// Mismatched index rows point at a comment whose fields do not produce
	// the row's key.
	Mismatched Counter `json:"mismatched"`
	// Collided comments expect a key that holds another comment expecting
	// the same key: the seed layout's lost comments.
	Collided Counter `json:"collided"`
	// Extra counts index rows beyond the first that point at one comment.
	Extra Counter `json:"extra"`
	// BadValue index rows hold no comment key (empty or of the wrong
	// length); Undecodable ones have a key the design cannot read.
	BadValue    Counter `json:"bad_value"`
	Undecodable Counter `json:"undecodable"`
	// Collections are the owners' rows holding the listing with a count of
	// its entries (a wide listing's metadata column); CountOff those whose
	// count is not the entries the row holds.
	Collections int64   `json:"collections,omitempty"`
	CountOff    Counter `json:"count_off"`
	// Copies says the listing's entries are copies of their comments (a
	// clustered index); StaleCopies those whose copy is not what the
	// comment now says.
	Copies      bool    `json:"copies,omitempty"`
	StaleCopies Counter `json:"stale_copies"`
	// Unverified are entries of the verified index its writers did not
	// finish: a reader rolls one forward (repairs it) when its comment is
	// there and back (drops it) when it is not, UnverifiedBack of them.
	// Neither is drift: no reader sees them as data.
	Unverified     Counter `json:"unverified"`
	UnverifiedBack int64   `json:"unverified_rolled_back"`
	back           map[string]bool
}

// RankReport is the product-comment-rank table checked.
type RankReport struct {
	Rows     int64 `json:"rows"`
	Products int64 `json:"products"`
	// OverLimit ranks are above MaxRank (or a product has more than
	// MaxRank ranks).
	OverLimit Counter `json:"over_limit"`
	// Gaps are ranks missing below a product's highest rank.
	Gaps Counter `json:"gaps"`
	// Stale ranks repeat a comment already ranked higher: what an older,
	// longer ranking leaves behind when a shorter one is written over it
	// without deleting.
	Stale Counter `json:"stale"`
	// Dangling ranks point at a missing comment; WrongProduct ones at a
	// comment of another product.
	Dangling     Counter `json:"dangling"`
	WrongProduct Counter `json:"wrong_product"`
	// Unparsable rank rows have keys the layout cannot decode.
	Unparsable Counter `json:"unparsable"`
	// BadValue rank rows hold no comment's key (empty, say); BadComment
	// ones name a comment whose value does not decode, which the
	// references count as a bad comment.
	BadValue   Counter `json:"bad_value"`
	BadComment Counter `json:"bad_comment"`
}

// RefReport is the comments' references across the schema.
type RefReport struct {
	Comments int64 `json:"comments"`
	// BadComments have a value that does not decode, or ids that make no key.
	BadComments    Counter `json:"bad_comments"`
	MissingOrder   Counter `json:"missing_order"`
	OrderUser      Counter `json:"order_user"` // the order belongs to another user
	MissingUser    Counter `json:"missing_user"`
	MissingProduct Counter `json:"missing_product"`
	MissingSeller  Counter `json:"missing_seller"` // a product's seller
}

// RunReport reconciles the data with a loadgen run's ledger.
type RunReport struct {
	Dir   string `json:"dir"`
	Acked int64  `json:"acked"`
	// Lost comments were acknowledged by the backend and are not there.
	Lost Counter `json:"lost"`
	// Unknown outcomes (a put failed or timed out) are reported apart:
	// either way is legitimate.
	UnknownPresent int64 `json:"unknown_present"`
	UnknownAbsent  int64 `json:"unknown_absent"`
	// InFlight writes had started and had no outcome when the run
	// stopped: killed, the process left them as they were, present or not.
	InFlightPresent int64 `json:"in_flight_present"`
	InFlightAbsent  int64 `json:"in_flight_absent"`
	// NotInLedger comments are in the data and in no record of the run:
	// written by another run into the same data, or a ledger that lost
	// records. A run's own writes are recorded before they start.
	NotInLedger Counter `json:"not_in_ledger"`
	// TornTails counts ledger files whose last record a crash tore: the
	// outcome of that one write is unknown, and nothing after it was kept.
	TornTails int64 `json:"torn_tails,omitempty"`
}

// Report is everything a check found.
type Report struct {
	Layout  string        `json:"layout"`
	Indexes []IndexReport `json:"indexes"`
	// CollidedComments are the comments a colliding key hid from at least
	// one listing, each once: the indexes' Collided count rows, and a
	// comment hidden from both listings has two.
	CollidedComments int64      `json:"collided_comments"`
	Ranks            RankReport `json:"ranks"`
	References       RefReport  `json:"references"`
	Run              *RunReport `json:"run,omitempty"`
	// Writes is how the data's comments were written; Locks the locks of
	// unfinished transactions met (transactional); Faults the run's
	// injected failures reconciled with what the check found.
	Writes     string        `json:"writes,omitempty"`
	Locks      *LockReport   `json:"locks,omitempty"`
	Faults     *FaultReport  `json:"faults,omitempty"`
	Spread     *DataSpread   `json:"spread,omitempty"`
	Repair     *RepairReport `json:"repair,omitempty"`
	Consistent bool          `json:"consistent"`
	Verdict    string        `json:"verdict"`
}

// Options configure a check.
type Options struct {
	Layout *keys.Design
	Codec  model.Codec // default model.JSON
	// TempDir holds the external sorts' spill files; "" is the system's.
	TempDir string
	// MemLimit is each external sort's buffer in bytes; default 16 MiB.
	MemLimit int
	// RunDir, if set, is a loadgen results directory to reconcile with.
	RunDir string
	// Writes is how the data's comments were written: how its entries are
	// read (see strategy.go).
	Writes comments.Writes
	// Spread measures rows and bytes per region, as the passes read them.
	Spread bool
	// Repair collects repair actions (see Repair).
	Repair bool
	// Rows, if set, is added to for every row the check reads, and
	// Comments for every comment: progress.
	Rows, Comments *atomic.Int64

	// joinAll joins every bucket of both indexes, whatever the sums say;
	// sortLedger walks the run's ledger sorted, never proving it by sums:
	// for tests, which compare the ways.
	joinAll, sortLedger bool
}

func (o *Options) defaults() {
	if o.Codec == nil {
		o.Codec = model.JSON
	}
	if o.MemLimit <= 0 {
		o.MemLimit = 16 << 20
	}
	if o.Rows == nil {
		o.Rows = new(atomic.Int64)
	}
	if o.Comments == nil {
		o.Comments = new(atomic.Int64)
	}
}

// checker is one check's shared state.
type checker struct {
	st     store.Store
	o      Options
	repair *repairs

	collidedMu sync.Mutex
	collided   map[string]bool // comment keys hidden by a collision, in any index

	tallies map[string]*tally // per table, with Spread: filled by the passes

	keysLen int // a comment's entity and index keys' bytes (see keysOf)

	// indexes are the listing indexes the design gives, in keys.Indexes
	// order: Report.Indexes's, and the order of every array of them.
	indexes []string

	strat strategy
}

// hidden notes a comment a collision hid from a listing.
func (c *checker) hidden(ck []byte) {
	c.collidedMu.Lock()
	c.collided[string(ck)] = true
	c.collidedMu.Unlock()
}

// ReadsPerComment estimates the rows a check reads per comment, for an ETA:
// the comment pass, the order join and each index. The users, products
// and sellers add what the data holds (a tenth more in the bulk-write
// scenario's), and the spread is counted as the other passes read. An
// index its sums do not prove costs a second read of it and of the
// comments, which the estimate leaves out: on consistent data there is
// none.
func (o Options) ReadsPerComment() int64 {
	return 4
}

// Run checks the data set in st. Independent checks run in parallel.
func Run(ctx context.Context, st store.Store, o Options) (Report, error) {
	o.defaults()
	c := &checker{o: o, repair: newRepairs(o.Repair, o.Layout, o.Writes), collided: map[string]bool{}}
	c.st = c.readThrough(st)
	for _, table := range keys.Indexes {
		if o.Layout.Table(table) != nil {
			c.indexes = append(c.indexes, table)
		}
	}
	for _, table := range append([]string{keys.Order, keys.User, keys.Product}, c.indexes...) {
		c.keysLen += o.Layout.Table(table).Len
	}
	rep := Report{Layout: o.Layout.Name(), Writes: o.Writes.String()}
	if o.Spread {
		if err := c.startTallies(ctx); err != nil {
			return rep, err
		}
	}
	pass, listed, err := c.first(ctx)
	if err != nil {
		return rep, err
	}
	defer pass.close()
	rep.References = pass.refs
	rep.Indexes = make([]IndexReport, len(c.indexes))
	var joins []*unproved
	for i, table := range c.indexes {
		join, proved := pass.want[i].unproved(listed[i])
		if o.joinAll {
			join = slices.Repeat([]bool{true}, sumBuckets)
		}
		if join != nil {
			joins = append(joins, &unproved{i: i, sums: listed[i], join: join})
			continue
		}
		rep.Indexes[i] = IndexReport{Table: table, Rows: proved, Referenced: proved}
	}
	var spread *DataSpread
	// The orders, the users, and the products with their sellers fill
	// different counters of the references: a task each, so the two cores
	// share what is left after the comment pass.
	tasks := []func() error{
		func() error { return c.orders(ctx, pass, &rep.References) },
		func() error { return c.users(ctx, pass, &rep.References) },
		func() error { return c.products(ctx, pass, &rep.References) },
		func() (err error) { rep.Ranks, err = c.ranks(ctx); return },
	}
	if len(joins) > 0 {
		tasks = append(tasks, func() error { return c.join(ctx, pass, joins, rep.Indexes) })
	}
	counted := make([]countReport, len(c.indexes))
	stale := make([]Counter, len(c.indexes))
	for i, table := range c.indexes {
		t := o.Layout.Table(table)
		if t.Meta != nil {
			tasks = append(tasks, func() (err error) { counted[i], err = c.counts(ctx, t); return })
		}
		if t.Copy {
			tasks = append(tasks, func() (err error) { stale[i], err = c.copies(ctx, t); return })
		}
	}
	if err := parallel(tasks); err != nil {
		return rep, err
	}
	for i, cr := range counted {
		rep.Indexes[i].Collections, rep.Indexes[i].CountOff, rep.Indexes[i].StaleCopies = cr.collections, cr.off, stale[i]
		rep.Indexes[i].Copies = o.Layout.Table(c.indexes[i]).Copy
	}
	if o.Spread {
		if spread, err = c.spread(ctx); err != nil {
			return rep, err
		}
	}
	rep.Run, rep.Spread, rep.CollidedComments = pass.run, spread, int64(len(c.collided))
	c.unverifiedCounts(&rep)
	rep.Locks = c.lockReport()
	if rep.Faults, err = c.reconcile(ctx, rep); err != nil {
		return rep, err
	}
	rep.Consistent, rep.Verdict = verdict(rep)
	if o.Repair {
		rep.Repair = c.repair.report(rep)
	}
	return rep, nil
}

// first reads the comments and, meanwhile, each index table: the
// comments' references are filed, and each index's rows summed up, as
// its comments call for them and as its table holds them.
func (c *checker) first(ctx context.Context) (*pass, [maxIndexes]*sums, error) {
	listed := c.newSums()
	var p *pass
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	tasks := []func() error{func() (err error) { p, err = c.commentPass(ctx, c.firstPass()); return }}
	for i, table := range c.indexes {
		tasks = append(tasks, func() error { return c.sum(ctx, table, listed[i]) })
	}
	for i, t := range tasks {
		tasks[i] = func() error {
			err := t()
			if err != nil {
				cancel() // the others stop
			}
			return err
		}
	}
	if err := parallel(tasks); err != nil {
		if p != nil {
			p.close()
		}
		return nil, listed, err
	}
	return p, listed, nil
}

// unproved is an index whose sums did not prove it whole: the buckets to
// join (see sums).
type unproved struct {
	i    int // in c.indexes
	sums *sums
	join []bool
}

// join checks the unproved indexes row by row, in the buckets whose sums
// disagree: a second read of the comments files the rows they call for
// there (the run's ledger is read again only if the first read found it
// told some comment's keys apart from its fields), and each index is
// joined with its table (see index). The sums say nothing of why they
// disagree: the join finds each row at fault.
func (c *checker) join(ctx context.Context, first *pass, us []*unproved, out []IndexReport) error {
	p, err := c.commentPass(ctx, c.joinPass(first, us))
	if err != nil {
		return err
	}
	defer p.close()
	var tasks []func() error
	for _, u := range us {
		tasks = append(tasks, func() (err error) {
			out[u.i], err = c.index(ctx, u, p.expected[u.i], p.unlisted[u.i])
			return
		})
	}
	return parallel(tasks)
}

// sum sums up an index table's rows.
func (c *checker) sum(ctx context.Context, table string, s *sums) error {
	for row, err := range c.wholeTable(ctx, table) {
		if err != nil {
			return err
		}
		v, _ := row.Value(keys.Qualifier)
		s.add(row.Key, v)
	}
	return nil
}

// parallel runs the tasks at once and returns the first error to happen:
// a task that fails because another's failure stopped it fails later.
func parallel(tasks []func() error) error {
	var (
		once  sync.Once
		first error
		wg    sync.WaitGroup
	)
	for _, t := range tasks {
		wg.Go(func() {
			if err := t(); err != nil {
				once.Do(func() { first = err })
			}
		})
	}
	wg.Wait()
	return first
}

// verdict sums the inconsistencies into a line.
func verdict(r Report) (bool, string) {
	var n int64
	for _, ix := range r.Indexes {
		n += ix.Unreferenced.Count + ix.Undefined.Count + ix.Mismatched.Count + ix.Collided.Count + ix.Extra.Count +
			ix.BadValue.Count + ix.Undecodable.Count + ix.CountOff.Count + ix.StaleCopies.Count
	}
	rk := r.Ranks
	n += rk.OverLimit.Count + rk.Gaps.Count + rk.Stale.Count + rk.Dangling.Count + rk.WrongProduct.Count + rk.Unparsable.Count +
		rk.BadValue.Count + rk.BadComment.Count
	rf := r.References
	n += rf.BadComments.Count + rf.MissingOrder.Count + rf.OrderUser.Count + rf.MissingUser.Count +
		rf.MissingProduct.Count + rf.MissingSeller.Count
	if r.Run != nil {
		n += r.Run.Lost.Count
	}
	if r.Faults != nil {
		n += int64(len(r.Faults.Unexplained))
	}
	if n == 0 {
		return true, fmt.Sprintf("CONSISTENT: %d comments, every index row and rank accounted for (layout %s)",
			r.References.Comments, r.Layout)
	}
	return false, fmt.Sprintf("INCONSISTENT: %d problems over %d comments (layout %s)", n, r.References.Comments, r.Layout)
}

// ReportFile is a report's file name in a run directory.
const ReportFile = "verify.json"

// WriteReport writes rep as dir/ReportFile.
func WriteReport(dir string, rep Report) error {
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, ReportFile), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", ReportFile, err)
	}
	return nil
}

// ReadReport reads dir/ReportFile; found is false when there is none.
func ReadReport(dir string) (rep Report, found bool, err error) {
	b, err := os.ReadFile(filepath.Join(dir, ReportFile))
	if errors.Is(err, os.ErrNotExist) {
		return rep, false, nil
	}
	if err == nil {
		err = json.Unmarshal(b, &rep)
	}
	if err != nil {
		return rep, false, fmt.Errorf("read %s: %w", ReportFile, err)
	}
	return rep, true, nil
}

// CollidedTotal is the comments lost to colliding keys, each counted once
// however many listings it is missing from.
func (r Report) CollidedTotal() int64 { return r.CollidedComments }
