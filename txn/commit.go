package txn

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"commentbench/store"
)

// Result is what a commit left: whether it passed its commit point, and
// the rows it left for others to resolve (a writer that died, or whose
// last requests failed, leaves them locked; a row someone resolved before
// its writer came back to it was left too, and counted by whoever did).
type Result struct {
	Tx        int64 // the transaction's id: ordered as their commits
	Committed bool
	Left      []Ref
	// LeftBefore are the rows Update's earlier attempts left, none of
	// them committed: a conflict whose rollback someone else finished.
	LeftBefore int64
	// Reads and Writes are the transaction's requests, and Bytes its
	// writes' cells' bytes (qualifiers and values, the locks' included):
	// what the protocol cost.
	Reads, Writes, Bytes int64
}

// Commit writes the transaction: each row prewritten (its cells and its
// lock, under a check that its lock is the one read), the primary (the
// first row written) committed, then every row made stable. Before the
// commit point a conflict rolls back what was prewritten and returns
// ErrConflict; a failed request does the same and returns its error.
// Past it the transaction stands: a row left locked is for the next
// reader to roll forward, and Result says which.
func (tx *Tx) Commit(ctx context.Context) (Result, error) {
	var rows []*txRow
	for _, r := range tx.rows {
		if len(r.puts) > 0 || len(r.dels) > 0 {
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		return Result{Reads: tx.reads}, nil
	}
	if err := tx.readMissing(ctx, rows); err != nil {
		return Result{}, err
	}
	c := &commit{m: tx.m, rows: rows, steps: 2*len(rows) + 1, hook: cmpStep(tx.Step, tx.m.o.Step)}
	c.res.Reads = tx.reads
	return c.run(ctx)
}

// readMissing reads the rows to be written that were not read with the
// columns they write, a read per table.
func (tx *Tx) readMissing(ctx context.Context, rows []*txRow) error {
	byTable := map[string][]*txRow{}
	var tables []string
	cols := map[*txRow][][]byte{}
	for _, r := range rows {
		if qs := r.missing(); len(qs) > 0 || !r.read {
			if byTable[r.ref.Table] == nil {
				tables = append(tables, r.ref.Table)
			}
			byTable[r.ref.Table] = append(byTable[r.ref.Table], r)
			cols[r] = qs
		}
	}
	for _, t := range tables {
		rs := byTable[t]
		qs := make([][][]byte, len(rs))
		for i, r := range rs {
			qs[i] = cols[r]
			if len(qs[i]) == 0 {
				qs[i] = [][]byte{LockColumn} // the lock alone
			}
		}
		if err := tx.readRows(ctx, t, rs, qs); err != nil {
			return err
		}
	}
	return nil
}

// commit is one run of the protocol.
type commit struct {
	m     *Manager
	hook  func(step, steps int) error
	rows  []*txRow // rows[0] is the primary
	steps int
	step  int
	id    int64
	ts    int64
	res   Result
}

func (c *commit) run(ctx context.Context) (Result, error) {
	after := int64(0)
	for _, r := range c.rows {
		after = max(after, r.lock.Ts+1)
	}
	c.ts = c.m.stamp(after)
	c.id = c.ts*1_000_000 + c.m.salt*txSeqs + c.m.seq.Add(1)%txSeqs
	c.res.Tx = c.id
	for i, r := range c.rows {
		if err := c.prewrite(ctx, i, r); err != nil {
			return c.undo(ctx, err)
		}
	}
	if err := c.commitPrimary(ctx); err != nil {
		if c.res.Committed { // abandoned past the commit point: it stands
			return c.left(), err
		}
		return c.undo(ctx, err)
	}
	c.m.Stats.Commits.Add(1)
	// The primary last: its lock says the rest are done, so a row whose
	// request failed keeps the primary committed, for whoever meets either
	// to roll the rest forward (a later transaction of the primary's row
	// does it first). The transaction stands all the same.
	done := true
	for _, r := range c.rows[1:] {
		err := c.stabilize(ctx, r)
		var a *abandoned
		if errors.As(err, &a) {
			return c.left(), err
		}
		done = done && err == nil && r.mine == nil
	}
	if done {
		if err := c.stabilize(ctx, c.rows[0]); err != nil {
			var a *abandoned
			if errors.As(err, &a) {
				return c.left(), err
			}
		}
	}
	return c.left(), nil
}

// next asks the fault hook whether the writer lives to make step's
// request.
func (c *commit) next() error {
	s := c.step
	c.step++
	if c.hook == nil {
		return nil
	}
	if err := c.hook(s, c.steps); err != nil {
		return &abandoned{err: err}
	}
	return nil
}

// abandoned is a writer that died at a step: nothing more is done.
type abandoned struct{ err error }

func (a *abandoned) Error() string { return "txn: abandoned: " + a.err.Error() }
func (a *abandoned) Unwrap() error { return a.err }

// lockOf is the lock this transaction puts on row i in state s.
func (c *commit) lockOf(i int, s State) Lock {
	r := c.rows[i]
	l := Lock{State: s, Tx: c.id, Ts: c.ts, Expiry: c.m.o.Clock() + c.m.o.TTL.Milliseconds(), Deletes: r.dels}
	if i == 0 {
		for _, o := range c.rows[1:] {
			l.Secondaries = append(l.Secondaries, o.ref)
		}
	} else {
		p := c.rows[0].ref
		l.Primary = &p
	}
	for _, cell := range r.puts {
		v, ok := r.cols[string(cell.Qualifier)]
		l.Before = append(l.Before, Column{Qualifier: cell.Qualifier, Value: v, Present: ok})
	}
	return l
}

func (c *commit) prewrite(ctx context.Context, i int, r *txRow) error {
	if err := c.next(); err != nil {
		return err
	}
	mine := c.lockOf(i, Prewritten).Encode()
	m := store.Mutation{Row: r.ref.Row, Cells: make([]store.Cell, 0, len(r.puts)+1)}
	for _, cell := range r.puts {
		cell.Timestamp = c.ts
		m.Cells = append(m.Cells, cell)
	}
	m.Cells = append(m.Cells, store.Cell{Qualifier: LockColumn, Value: mine, Timestamp: c.ts})
	ok, err := c.cas(ctx, r.ref, r.lockRaw, m, c.ours) // whatever became of it since, it landed
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("txn: prewrite %s: %w", r.ref, ErrConflict)
	}
	r.mine = mine
	return nil
}

func (c *commit) commitPrimary(ctx context.Context) error {
	if err := c.next(); err != nil {
		return err
	}
	p := c.rows[0]
	committed := c.lockOf(0, Committed)
	committed.Before = nil // past the commit point nothing rolls back
	enc := committed.Encode()
	ok, err := c.cas(ctx, p.ref, p.mine, store.Put(p.ref.Row, store.Cell{Qualifier: LockColumn, Value: enc, Timestamp: c.ts}),
		func(_ []byte, l Lock) bool { // committed, and perhaps rolled forward since
			return c.ours(nil, l) && (l.State == Committed || (l.State == Stable && l.Committed))
		})
	if err != nil {
		return err
	}
	if !ok { // a reader found it expired and aborted it
		return fmt.Errorf("txn: commit %s: %w", p.ref, ErrConflict)
	}
	p.mine, c.res.Committed = enc, true
	return nil
}

// stabilize makes a committed transaction's row stable, its deletes
// applied. A reader that rolled it forward first has done it already.
func (c *commit) stabilize(ctx context.Context, r *txRow) error {
	if err := c.next(); err != nil {
		return err
	}
	m := stableMutation(r.ref.Row, Lock{Tx: c.id, Ts: c.ts, Deletes: r.dels}, true, false)
	ok, err := c.cas(ctx, r.ref, r.mine, m, exactly(m.Cells[0].Value))
	if err != nil {
		return err
	}
	if ok { // else a reader rolled it forward first: it was left, and counted there
		r.mine = nil
	}
	return nil
}

// undo rolls back what the transaction prewrote before its commit point,
// as its own writer: the primary marked aborted first, so no one can
// commit it meanwhile, then every row restored. A writer that died does
// none of it.
func (c *commit) undo(ctx context.Context, cause error) (Result, error) {
	var a *abandoned
	if errors.As(cause, &a) {
		return c.left(), cause
	}
	p := c.rows[0]
	if p.mine != nil {
		aborted := c.lockOf(0, Aborted)
		enc := aborted.Encode()
		ok, err := c.cas(ctx, p.ref, p.mine, store.Put(p.ref.Row, store.Cell{Qualifier: LockColumn, Value: enc, Timestamp: c.ts}), exactly(enc))
		if err != nil || !ok {
			return c.left(), errors.Join(cause, err) // a reader took it over, or the store failed: it resolves the rest
		}
		p.mine = enc
	}
	for i := len(c.rows) - 1; i >= 0; i-- {
		r := c.rows[i]
		if r.mine == nil {
			continue
		}
		m := rollbackMutation(r.ref.Row, c.lockOf(i, Prewritten), false)
		ok, err := c.cas(ctx, r.ref, r.mine, m, exactly(m.Cells[len(m.Cells)-1].Value))
		if err != nil {
			return c.left(), errors.Join(cause, err)
		}
		if ok { // else a reader rolled it back first: it was left, and counted there
			r.mine = nil
		}
	}
	return c.left(), cause
}

// left is the result with the rows this transaction still holds.
func (c *commit) left() Result {
	res := c.res
	for _, r := range c.rows {
		if r.mine != nil {
			res.Left = append(res.Left, r.ref)
		}
	}
	return res
}

// cas changes row's lock from expected with m, counting the request. A
// request whose reply did not come (an error) may have been applied: the
// lock read back says whether it was (landed), as a client that retries
// only what it knows to be safe. A reply an injector lost (ErrReplyLost)
// was applied: the harness knows it, and its count of the rows left stays
// exact even when the row has moved on before the read could tell.
func (c *commit) cas(ctx context.Context, ref Ref, expected []byte, m store.Mutation, landed func(raw []byte, l Lock) bool) (bool, error) {
	c.res.Writes++
	c.res.Bytes += mutationBytes(m)
	ok, err := c.m.st.CheckAndMutate(ctx, ref.Table, LockColumn, expected, m)
	if err == nil {
		return ok, nil
	}
	if errors.Is(err, store.ErrReplyLost) {
		return true, nil
	}
	c.res.Reads++
	raw, l, rerr := c.m.lockAt(ctx, ref)
	if rerr != nil {
		return false, fmt.Errorf("txn: %s: %w (and reading its lock back: %v)", ref, err, rerr)
	}
	if raw != nil && landed(raw, l) {
		return true, nil
	}
	return false, fmt.Errorf("txn: %s: %w", ref, err)
}

// ours says a lock read back is this transaction's, in whatever state.
func (c *commit) ours(_ []byte, l Lock) bool { return l.Tx == c.id }

// exactly says a lock read back is the one this writer meant to put
// there (a resolver's differs: see Lock.Resolved).
func exactly(want []byte) func([]byte, Lock) bool {
	return func(raw []byte, _ Lock) bool { return bytes.Equal(raw, want) }
}

func mutationBytes(m store.Mutation) int64 {
	n := int64(len(m.Row))
	for _, c := range m.Cells {
		n += int64(len(c.Qualifier) + len(c.Value))
	}
	for _, q := range m.DeleteColumns {
		n += int64(len(q))
	}
	return n
}

// stableMutation makes a row stable after transaction l: committed, its
// deletes applied at the transaction's timestamp; by its writer, or
// resolved by someone else.
func stableMutation(row []byte, l Lock, committed, resolved bool) store.Mutation {
	st := Lock{State: Stable, Tx: l.Tx, Ts: l.Ts, Committed: committed, Resolved: resolved}
	m := store.Mutation{Row: row, Cells: []store.Cell{{Qualifier: LockColumn, Value: st.Encode(), Timestamp: l.Ts}}}
	if committed && len(l.Deletes) > 0 {
		m.DeleteColumns, m.DeleteAt = l.Deletes, l.Ts
	}
	return m
}

// rollbackMutation undoes transaction l on its row: a column it added
// deleted at its timestamp (so a later write stays), one it changed put
// back after it, and the row stable (resolved: by someone other than its
// writer). The lock is the last cell.
func rollbackMutation(row []byte, l Lock, resolved bool) store.Mutation {
	m := store.Mutation{Row: row, DeleteAt: l.Ts}
	for _, b := range l.Before {
		if b.Present {
			m.Cells = append(m.Cells, store.Cell{Qualifier: b.Qualifier, Value: b.Value, Timestamp: l.Ts + 1})
		} else {
			m.DeleteColumns = append(m.DeleteColumns, b.Qualifier)
		}
	}
	st := Lock{State: Stable, Tx: l.Tx, Ts: l.Ts + 1, Resolved: resolved}
	m.Cells = append(m.Cells, store.Cell{Qualifier: LockColumn, Value: st.Encode(), Timestamp: l.Ts + 1})
	return m
}

// readLock reads a row's lock column alone; nil when it has none.
func (m *Manager) readLock(ctx context.Context, ref Ref) ([]byte, error) {
	got, _, err := m.st.Read(ctx, ref.Table, []store.Read{{Row: ref.Row, Columns: [][]byte{LockColumn}}})
	if err != nil {
		return nil, fmt.Errorf("txn: read the lock of %s: %w", ref, err)
	}
	v, _ := got[0].Value(LockColumn)
	if len(v) == 0 {
		return nil, nil
	}
	return v, nil
}

// cmpStep is the first hook set.
func cmpStep(hooks ...func(step, steps int) error) func(step, steps int) error {
	for _, h := range hooks {
		if h != nil {
			return h
		}
	}
	return nil
}
