package txn

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"commentbench/store"
)

// Errors a caller tells apart with errors.Is.
var (
	// ErrConflict is a transaction that met another's lock, or lost a
	// check-and-mutate to another writer, more times than it retries.
	ErrConflict = errors.New("txn: conflict with another transaction")
)

// Options configure a Manager. The zero value of each field has a
// default.
type Options struct {
	// TTL is how long a transaction's locks hold before whoever meets them
	// may roll it back, if it has not committed: default 1 s.
	TTL time.Duration
	// Retries is how many times Update runs a transaction again after a
	// conflict: default 5. Negative: none.
	Retries int
	// Clock is the time in ms: default the wall clock.
	Clock func() int64
	// Step, if set, is asked before each write of a commit with its index
	// and the commit's count of them; an error abandons the transaction
	// there and is returned, as a writer that dies leaves it.
	Step func(step, steps int) error
	// ReadOnly resolves nothing: a reader sees what it would see, and the
	// stats count what it would have rolled forward or back (verify's view
	// of data it may not change).
	ReadOnly bool
	// Resolver, if set, is the store the Manager's resolutions of locks
	// others left write to, where its own transactions write to the
	// Manager's: a writer's requests may fail where its cleanup is not
	// what is measured.
	Resolver store.Store
	// AtRest says no writer is at work (verify reads data a run left): a
	// transaction still undecided is one whose writer is gone, rolled back
	// without waiting for its locks to expire.
	AtRest bool
	// OnResolve, if set, hears of every row (and transaction) the Manager rolls forward or
	// back (read-only: would, once per row).
	OnResolve func(ref Ref, tx int64, forward bool)
}

// Stats count what a Manager's transactions and readers did.
type Stats struct {
	Commits   atomic.Int64 // transactions committed
	Conflicts atomic.Int64 // attempts that met another transaction
	Retries   atomic.Int64 // attempts run again after a conflict
	// Rows rolled forward and back by whoever met a lock left by a
	// transaction that was not there to finish it (its own writer's
	// rollback of a conflict is not counted).
	RolledForward atomic.Int64
	RolledBack    atomic.Int64
}

// Manager runs transactions over a store and resolves the locks its
// readers meet.
type Manager struct {
	st    store.Store
	o     Options
	Stats Stats
	salt  int64
	seq   atomic.Int64
	last  atomic.Int64 // the last timestamp stamped: each is later
	metMu sync.Mutex
	met   map[string]bool // read-only: the rows counted as resolved
}

// New returns a Manager over st.
func New(st store.Store, o Options) *Manager {
	if o.TTL <= 0 {
		o.TTL = time.Second
	}
	if o.Retries == 0 {
		o.Retries = 5
	}
	if o.Clock == nil {
		o.Clock = func() int64 { return time.Now().UnixMilli() }
	}
	if o.Resolver == nil {
		o.Resolver = st
	}
	return &Manager{st: st, o: o, salt: rand.Int64N(txSalts)}
}

// A transaction's id is its commit timestamp (ms) times a million, plus a
// per-process salt and a sequence number: unique across the processes of
// a run, and ordered by time.
const (
	txSalts = 244
	txSeqs  = 4096
)

// stamp is a timestamp later than after and than every one this Manager
// stamped before.
func (m *Manager) stamp(after int64) int64 {
	for {
		last := m.last.Load()
		ts := max(m.o.Clock(), after, last+1)
		if m.last.CompareAndSwap(last, ts) {
			return ts
		}
	}
}

// Update runs fn in a transaction and commits it, running it again after
// a conflict (with a short random pause, longer each time) up to the
// retries. fn reads with tx.Get and writes with tx.Put and tx.Delete; it
// may run more than once. The result is the last attempt's, with the
// requests and bytes of every attempt.
func (m *Manager) Update(ctx context.Context, fn func(tx *Tx) error) (Result, error) {
	var reads, writes, bytes, left int64
	for attempt := 0; ; attempt++ {
		tx := m.Begin()
		err := fn(tx)
		res := Result{Reads: tx.reads}
		if err == nil {
			res, err = tx.Commit(ctx)
		}
		reads, writes, bytes = reads+res.Reads, writes+res.Writes, bytes+res.Bytes
		res.Reads, res.Writes, res.Bytes, res.LeftBefore = reads, writes, bytes, left
		left += int64(len(res.Left))
		if !errors.Is(err, ErrConflict) {
			return res, err
		}
		m.Stats.Conflicts.Add(1)
		if attempt >= m.o.Retries {
			return res, err
		}
		m.Stats.Retries.Add(1)
		if err := pause(ctx, attempt); err != nil {
			return res, err
		}
	}
}

// pause waits 1, 2, 4 ... ms, with jitter, before attempt+1.
func pause(ctx context.Context, attempt int) error {
	d := time.Duration(1<<min(attempt, 6)) * time.Millisecond
	d += rand.N(d)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Tx is one transaction: its reads and its buffered writes.
type Tx struct {
	// Step, if set, is this transaction's fault hook, in place of the
	// Manager's (see Options.Step).
	Step  func(step, steps int) error
	m     *Manager
	rows  []*txRow // in the order first touched
	reads int64    // read requests made
}

// txRow is one row a transaction touched.
type txRow struct {
	ref     Ref
	read    bool
	whole   bool              // every column read
	lockRaw []byte            // the lock column as read; nil: absent
	lock    Lock              // decoded, when lockRaw is set
	cols    map[string][]byte // the columns read, as committed (absent ones missing)
	asked   map[string]bool   // the columns read, present or not
	puts    []store.Cell
	dels    [][]byte
	// During a commit: the lock this transaction put on the row.
	mine []byte
}

// Begin starts a transaction.
func (m *Manager) Begin() *Tx { return &Tx{m: m} }

func (tx *Tx) row(table string, row []byte) *txRow {
	for _, r := range tx.rows {
		if r.ref.Table == table && bytes.Equal(r.ref.Row, row) {
			return r
		}
	}
	r := &txRow{ref: Ref{Table: table, Row: bytes.Clone(row)}}
	tx.rows = append(tx.rows, r)
	return r
}

// Get reads columns of a row (every column when none are named) as the
// last committed transaction left them, resolving a lock it meets when it
// can; a lock held by a transaction still undecided is a conflict.
func (tx *Tx) Get(ctx context.Context, table string, row []byte, columns ...[]byte) (store.Row, error) {
	r := tx.row(table, row)
	if err := tx.readRows(ctx, table, []*txRow{r}, [][][]byte{columns}); err != nil {
		return store.Row{}, err
	}
	out := store.Row{Key: r.ref.Row}
	for _, q := range columns {
		if v, ok := r.cols[string(q)]; ok {
			out.Cells = append(out.Cells, store.Cell{Qualifier: q, Value: v})
		}
	}
	if len(columns) == 0 {
		out.Cells = sortedCells(r.cols)
	}
	return out, nil
}

// Put writes cells to a row when the transaction commits.
func (tx *Tx) Put(table string, row []byte, cells ...store.Cell) {
	r := tx.row(table, row)
	r.puts = append(r.puts, cells...)
}

// Delete deletes columns of a row once the transaction has committed.
func (tx *Tx) Delete(table string, row []byte, columns ...[]byte) {
	r := tx.row(table, row)
	r.dels = append(r.dels, columns...)
}

// readRows reads the lock of each row and the columns named for it (its
// whole row for none), in one read of the table, and resolves the locks
// it meets; a row whose lock stays held is a conflict. It keeps what it
// read in the rows.
func (tx *Tx) readRows(ctx context.Context, table string, rows []*txRow, columns [][][]byte) error {
	m := tx.m
	reads := make([]store.Read, len(rows))
	for i, r := range rows {
		reads[i] = store.Read{Row: r.ref.Row}
		if len(columns[i]) > 0 {
			reads[i].Columns = append([][]byte{LockColumn}, columns[i]...)
		}
	}
	for attempt := 0; ; attempt++ {
		tx.reads++
		got, _, err := m.st.Read(ctx, table, reads)
		if err != nil {
			return fmt.Errorf("txn: read %s: %w", table, err)
		}
		held := false
		for i, r := range rows {
			raw, ok := got[i].Value(LockColumn)
			if !ok || len(raw) == 0 {
				raw = nil
			}
			if r.read && !bytes.Equal(raw, r.lockRaw) { // another transaction wrote it since this one read it
				return fmt.Errorf("txn: %s changed since it was read: %w", r.ref, ErrConflict)
			}
			if raw == nil {
				r.keep(nil, Lock{}, got[i], columns[i])
				continue
			}
			l, err := Decode(raw)
			if err != nil {
				return fmt.Errorf("txn: %s: %w", r.ref, err)
			}
			if l.State == Stable {
				r.keep(raw, l, got[i], columns[i])
				continue
			}
			f, err := m.resolve(ctx, r.ref, raw, l)
			if err != nil {
				return err
			}
			if f == undecided {
				return fmt.Errorf("txn: %s held by transaction %d: %w", r.ref, l.Tx, ErrConflict)
			}
			held = true // resolved: read it again
		}
		if !held {
			return nil
		}
		if attempt == 2 {
			return fmt.Errorf("txn: %s: locks keep changing: %w", table, ErrConflict)
		}
	}
}

// keep files what a read found of the row: its lock and its columns
// (asked: the columns it read; none, every one).
func (r *txRow) keep(raw []byte, l Lock, got store.Row, asked [][]byte) {
	r.read, r.lockRaw, r.lock = true, raw, l
	r.whole = r.whole || len(asked) == 0
	if r.cols == nil {
		r.cols, r.asked = map[string][]byte{}, map[string]bool{}
	}
	for _, q := range asked {
		r.asked[string(q)] = true
	}
	for _, c := range got.Cells {
		if len(c.Qualifier) > 0 {
			r.cols[string(c.Qualifier)] = c.Value
		}
	}
}

// missing are the columns the row writes that it was not read with.
func (r *txRow) missing() [][]byte {
	var out [][]byte
	if r.whole {
		return nil
	}
	for _, c := range r.puts {
		if !r.read || !r.asked[string(c.Qualifier)] {
			out = append(out, c.Qualifier)
		}
	}
	if !r.read && len(out) == 0 {
		out = append(out, r.dels...) // a row only deleted from: its lock is what is read
	}
	return out
}
