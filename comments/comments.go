// Package comments is the seed's shopping-mall comment system, operation for
// operation, over any store.Store and either key layout: entity creation, the
// non-atomic comment write path, paginated listings and timelines, the
// ranking and its batch job.
//
// It owns the order of the puts and the shape of the scans, because those are
// what the harness measures. It must not know which backend it runs on, how a
// workload chooses what to do, or how results are recorded.
package comments

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"commentbench/faults"
	"commentbench/keys"
	"commentbench/model"
	"commentbench/store"
	"commentbench/txn"
)

// Errors a caller tells apart with errors.Is.
var (
	ErrOrderNotFound   = errors.New("order not found")
	ErrOrderUser       = errors.New("order belongs to another user")
	ErrCommentNotFound = errors.New("comment not found")
	ErrBadCursor       = errors.New("cursor does not belong to the listing")
	ErrNoLatest        = errors.New("the design keeps no latest-comment listing")
)

// ScanMode is how listings are scanned.
type ScanMode int

const (
	// Bounded scans set start and stop rows: a page reads at most limit+1
	// index rows and never leaves its product or user.
	Bounded ScanMode = iota
	// SeedScan scans as the seed does: no start or stop row, a PrefixFilter
	// for the first page and a "row >= cursor" RowFilter for the next, so a
	// page reads from the table's first row and can run into other
	// products' comments.
	SeedScan
)

var scanModeNames = map[string]ScanMode{"bounded": Bounded, "seed": SeedScan}

// ParseScanMode reads a --scan flag value.
func ParseScanMode(s string) (ScanMode, error) {
	m, ok := scanModeNames[s]
	if !ok {
		return 0, fmt.Errorf("scan mode %q: want bounded or seed", s)
	}
	return m, nil
}

func (m ScanMode) String() string {
	if m == SeedScan {
		return "seed"
	}
	return "bounded"
}

// Options configure a System. The zero value of each field has a default.
type Options struct {
	Layout *keys.Design // default keys.Seed
	Codec  model.Codec  // default model.JSON
	Scan   ScanMode     // default Bounded
	Clock  func() int64 // stamps comments, ms; default wall clock
	// KeepStaleRanks reproduces the seed's rank upsert, which never deletes
	// ranks beyond the new count: a shorter ranking leaves the old tail.
	KeepStaleRanks bool
	// OnIndexPut, if set, hears of every index row a comment write puts,
	// before the put: a caller can tell a key that another comment holds.
	OnIndexPut func(table string, key, commentKey []byte)
	// Writes is how a comment write keeps its entries in step with the
	// comment (default NonAtomic, the seed's). The design must allow it
	// (CheckWrites).
	Writes Writes
	// Faults, if set, fails the comment writes' and edits' requests, and
	// stops their writers, at its odds.
	Faults *faults.Injector
	// LockTTL is how long a transaction's locks hold before a reader may
	// roll it back (Transactional; default txn's).
	LockTTL time.Duration
	// VerifyGrace is how old an unverified entry must be before a reader
	// repairs or deletes it (Verified; default VerifyGrace).
	VerifyGrace time.Duration
}

// System runs the comment system's operations against a store.
type System struct {
	st     store.Store
	layout *keys.Design
	// The keys every comment write builds, resolved once: the comment's,
	// then each listing's the design has, in the order they are put.
	comment, order *keys.TableKey
	entryTables    []*keys.TableKey
	copies         []*keys.TableKey // the listings whose entries copy the comment
	codec          model.Codec
	// seedJSON: codec is model.JSON, whose encoders the write path calls
	// directly (see model.AppendJSONComment).
	seedJSON bool
	// putsPool keeps comment writes' puts, about a kilobyte each: a load
	// writes a million of them.
	putsPool   sync.Pool
	mode       ScanMode
	clock      func() int64
	stale      bool
	onIndexPut func(table string, key, commentKey []byte)

	// How comment writes keep their entries in step (see Writes): the
	// store as given, the one the write path's requests go through (with
	// the injected failures), and, transactional, the writers' and the
	// readers' transactions (st then reads through the readers').
	writes     Writes
	raw, wst   store.Store
	inj        *faults.Injector
	tx, readTx *txn.Manager
	cons       Consistency
	grace      time.Duration
}

// New returns a System over st.
func New(st store.Store, o Options) *System {
	s := &System{st: st, layout: o.Layout, codec: o.Codec, mode: o.Scan, clock: o.Clock, stale: o.KeepStaleRanks,
		onIndexPut: o.OnIndexPut, writes: o.Writes, raw: st, wst: o.Faults.Store(st), inj: o.Faults, grace: o.VerifyGrace}
	if s.grace == 0 {
		s.grace = VerifyGrace
	}
	if s.layout == nil {
		s.layout = keys.Seed
	}
	s.comment, s.order = s.layout.Table(keys.Comment), s.layout.Table(keys.Order)
	s.entryTables = []*keys.TableKey{s.comment}
	for _, name := range keys.Indexes {
		if t := s.layout.Table(name); t != nil {
			s.entryTables = append(s.entryTables, t)
			if t.Copy {
				s.copies = append(s.copies, t)
			}
		}
	}
	if s.codec == nil {
		s.codec = model.JSON
	}
	s.seedJSON = s.codec == model.JSON
	if s.clock == nil {
		s.clock = func() int64 { return time.Now().UnixMilli() }
	}
	if s.writes == Transactional {
		// A writer's own requests meet the injected failures; its cleanup
		// of locks others left, and a reader's, do not: what they resolve
		// is counted exactly.
		s.tx = txn.New(s.wst, txn.Options{TTL: o.LockTTL, Resolver: st})
		s.readTx = txn.New(st, txn.Options{TTL: o.LockTTL})
		s.st = txn.Reading(st, s.readTx)
	}
	return s
}

// Layout is the key design in use.
func (s *System) Layout() *keys.Design { return s.layout }

// Store is the backend the system runs on.
func (s *System) Store() store.Store { return s.st }

// CreateTables creates the store's tables the design keeps its entries in
// (the eight tables of the seed's design), each pre-split as the design
// says (scheme is the run's id scheme, regions its --regions), and records
// the design. Tables that already exist are left as they are; data written
// with another design is refused with ErrLayoutMismatch before any table
// is created.
func (s *System) CreateTables(ctx context.Context, scheme keys.Scheme, regions int) error {
	tables := s.layout.StoreTables()
	specs := make([]store.TableSpec, len(tables))
	for i, t := range tables {
		splits, err := s.layout.Table(t).SplitPoints(scheme, regions)
		if err != nil {
			return fmt.Errorf("split %s: %w", t, err)
		}
		specs[i] = store.TableSpec{Name: t, Family: keys.Family, SplitKeys: splits}
	}
	if err := CheckWrites(s.layout, s.writes); err != nil {
		return err
	}
	if err := s.recordLayout(ctx); err != nil {
		return err
	}
	if err := s.recordWrites(ctx); err != nil {
		return err
	}
	for _, spec := range specs {
		err := s.st.CreateTable(ctx, spec)
		if err != nil && !errors.Is(err, store.ErrTableExists) {
			return fmt.Errorf("create table %s: %w", spec.Name, err)
		}
	}
	return nil
}

// MetaTable holds the harness's notes about a data set, apart from the
// eight tables of the system: the key design that wrote it, whole, so a
// checker reads the keys the way they were written.
const MetaTable = "commentbench-meta"

var (
	layoutRow = []byte("layout") // the design's name
	designRow = []byte("design") // the design file
)

// ErrLayoutMismatch is a data set written with another key design: mixing
// designs in one data set would corrupt its indexes.
var ErrLayoutMismatch = errors.New("layout does not match the data")

// recordLayout notes the design, or checks it against the one noted.
func (s *System) recordLayout(ctx context.Context) error {
	if err := s.checkRecorded(ctx); err != nil {
		return err
	}
	if err := s.st.CreateTable(ctx, store.TableSpec{Name: MetaTable, Family: keys.Family}); err != nil &&
		!errors.Is(err, store.ErrTableExists) {
		return fmt.Errorf("create table %s: %w", MetaTable, err)
	}
	put, err := store.CheckAndPut(ctx, s.st, MetaTable, designRow, keys.Qualifier, nil, cell(s.layout.Source()))
	if err != nil {
		return fmt.Errorf("record the design in %s: %w", MetaTable, err)
	}
	if !put { // another process recorded one first
		return s.checkRecorded(ctx)
	}
	if err := s.st.Mutate(ctx, MetaTable, store.Put(layoutRow, cell([]byte(s.layout.Name())))); err != nil {
		return fmt.Errorf("record the design in %s: %w", MetaTable, err)
	}
	return nil
}

// writesRow notes how the data's comments were written: a reader of
// entries needs to know (the verified index's status, a transaction's
// locks), and a second strategy in one data set would leave neither's
// promise standing.
var writesRow = []byte("writes")

// ErrWritesMismatch is a data set written with another --writes.
var ErrWritesMismatch = errors.New("writes do not match the data")

// recordWrites notes the strategy, or checks it against the one noted.
func (s *System) recordWrites(ctx context.Context) error {
	name := []byte(s.writes.String())
	put, err := store.CheckAndPut(ctx, s.st, MetaTable, writesRow, keys.Qualifier, nil, cell(name))
	if err != nil {
		return fmt.Errorf("record the writes in %s: %w", MetaTable, err)
	}
	if put {
		return nil
	}
	got, _, err := RecordedWrites(ctx, s.st)
	if err != nil {
		return err
	}
	if got != s.writes {
		return fmt.Errorf("the data was written with --writes %s, not %s: %w", got, s.writes, ErrWritesMismatch)
	}
	return nil
}

// RecordedWrites reads how a data set's comments were written; data that
// recorded none was written the seed's way, non-atomic.
func RecordedWrites(ctx context.Context, st store.Store) (Writes, bool, error) {
	v, found, err := metaValue(ctx, st, writesRow)
	if err != nil || !found {
		return NonAtomic, false, err
	}
	w, err := ParseWrites(string(v))
	if err != nil {
		return NonAtomic, true, fmt.Errorf("%s: %w", MetaTable, err)
	}
	return w, true, nil
}

// checkRecorded compares the design with the data's, if it has one.
func (s *System) checkRecorded(ctx context.Context) error {
	got, found, err := RecordedLayout(ctx, s.st)
	if err != nil || !found {
		return err
	}
	if diff := s.layout.Diff(got); diff != "" {
		return fmt.Errorf("the data was written with design %q, not %q (%s): %w", got.Name(), s.layout.Name(), diff, ErrLayoutMismatch)
	}
	return nil
}

// RecordedLayout reads the design a data set was written with; found is
// false for data that never recorded one. Data from before designs were
// recorded whole names a built-in.
func RecordedLayout(ctx context.Context, st store.Store) (d *keys.Design, found bool, err error) {
	src, found, err := metaValue(ctx, st, designRow)
	if err != nil || found {
		if err == nil {
			d, err = keys.Parse("the design recorded in the data", src)
		}
		return d, found, err
	}
	name, found, err := metaValue(ctx, st, layoutRow)
	if err != nil || !found {
		return nil, false, err
	}
	d, err = keys.Builtin(string(name))
	return d, true, err
}

func metaValue(ctx context.Context, st store.Store, row []byte) ([]byte, bool, error) {
	r, err := st.Get(ctx, MetaTable, row)
	if errors.Is(err, store.ErrTableNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("read %s: %w", MetaTable, err)
	}
	v, ok := r.Value(keys.Qualifier)
	return v, ok, nil
}

// repairRow notes when a repair last changed the data set: what a run's
// failures left is gone after it.
var repairRow = []byte("repaired")

// RecordRepair notes that a repair changed the data set now.
func RecordRepair(ctx context.Context, st store.Store) error {
	v := binary.BigEndian.AppendUint64(nil, uint64(time.Now().UnixMilli()))
	if err := st.Mutate(ctx, MetaTable, store.Put(repairRow, cell(v))); err != nil {
		return fmt.Errorf("record the repair in %s: %w", MetaTable, err)
	}
	return nil
}

// LastRepair is when a repair last changed the data set; found is false
// when none did.
func LastRepair(ctx context.Context, st store.Store) (at time.Time, found bool, err error) {
	v, found, err := metaValue(ctx, st, repairRow)
	if err != nil || !found || len(v) != 8 {
		return time.Time{}, false, err
	}
	return time.UnixMilli(int64(binary.BigEndian.Uint64(v))), true, nil
}

// runsRow counts the loadgen runs that wrote into a data set, so a new run
// can tell it is adding to an earlier one (whose rows its ids would
// overwrite) and give itself ids of its own.
var runsRow = []byte("runs")

// Runs is how many runs wrote into the data set: the count recorded, or 1
// for data written before runs were counted that holds comments.
func Runs(ctx context.Context, st store.Store) (int64, error) {
	v, found, err := metaValue(ctx, st, runsRow)
	switch {
	case err != nil:
		return 0, err
	case found && len(v) != 8:
		return 0, fmt.Errorf("%s: runs row is %d bytes, want 8", MetaTable, len(v))
	case found:
		return int64(binary.BigEndian.Uint64(v)), nil
	}
	// Data of a design that keeps comments in other rows was counted from
	// the first: a comment table's rows are comments only in the seed's.
	any := false
	_, err = st.Scan(ctx, keys.Comment, store.Scan{Limit: 1}, func(r store.Row) bool { _, any = r.Value(keys.Qualifier); return false })
	if errors.Is(err, store.ErrTableNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("scan %s: %w", keys.Comment, err)
	}
	if any {
		return 1, nil
	}
	return 0, nil
}

// runRow marks that the run with this id wrote into the data set, so
// verify can tell a run's results from another data set's.
func runRow(id string) []byte { return []byte("run:" + id) }

// RunMark is a run recorded in a data set: its id, and when it began
// writing there.
type RunMark struct {
	ID string
	At time.Time
}

// RecordedRuns lists the runs recorded in a data set, oldest first.
func RecordedRuns(ctx context.Context, st store.Store) ([]RunMark, error) {
	prefix := runRow("")
	var out []RunMark
	_, err := st.Scan(ctx, MetaTable, store.Scan{Start: prefix, Stop: store.PrefixEnd(prefix)}, func(r store.Row) bool {
		m := RunMark{ID: string(r.Key[len(prefix):])}
		if len(r.Cells) > 0 {
			m.At = time.UnixMilli(r.Cells[0].Timestamp)
		}
		out = append(out, m)
		return true
	})
	if errors.Is(err, store.ErrTableNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("scan %s: %w", MetaTable, err)
	}
	slices.SortFunc(out, func(a, b RunMark) int { return a.At.Compare(b.At) })
	return out, nil
}

// RecordRun notes that run id writes into the data set.
func (s *System) RecordRun(ctx context.Context, id string) error {
	if err := s.st.Mutate(ctx, MetaTable, store.Put(runRow(id), cell([]byte(id)))); err != nil {
		return fmt.Errorf("record run %s in %s: %w", id, MetaTable, err)
	}
	return nil
}

// WroteData says whether run id wrote into the data set in st. Data from
// before runs were recorded says nothing: ok is false then.
func WroteData(ctx context.Context, st store.Store, id string) (wrote, ok bool, err error) {
	if _, found, err := metaValue(ctx, st, runRow(id)); err != nil || found {
		return found, true, err
	}
	n := 0
	_, err = st.Scan(ctx, MetaTable, store.Scan{Start: []byte("run:"), Stop: []byte("run;")}, func(store.Row) bool { n++; return false })
	if errors.Is(err, store.ErrTableNotFound) {
		return false, false, nil
	}
	return false, n > 0, err
}

// BeginRun counts one more run and returns its index: 0 for the first run
// into a data set. Processes starting together each get their own.
func (s *System) BeginRun(ctx context.Context) (int64, error) {
	for {
		v, found, err := metaValue(ctx, s.st, runsRow)
		if err != nil {
			return 0, err
		}
		var n uint64
		var expected []byte
		if found && len(v) == 8 {
			n, expected = binary.BigEndian.Uint64(v), v
		}
		next := binary.BigEndian.AppendUint64(nil, n+1)
		put, err := store.CheckAndPut(ctx, s.st, MetaTable, runsRow, keys.Qualifier, expected, cell(next))
		if err != nil {
			return 0, fmt.Errorf("count the run in %s: %w", MetaTable, err)
		}
		if put {
			return int64(n), nil
		}
	}
}
