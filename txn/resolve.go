package txn

import (
	"bytes"
	"context"
	"fmt"
	"slices"

	"commentbench/store"
)

// Fate is what became of the transaction that holds a lock.
type Fate int

const (
	undecided Fate = iota // its writer may still commit it
	committed
	aborted
)

// Outcome is what a reader sees of a row its lock told it about.
type Outcome struct {
	fate Fate
	lock Lock
	held bool // the row's lock is not stable
}

// Pending reports whether the row's transaction is undecided: its
// writer may yet commit it, and until it does a reader sees the row as
// it was.
func (o Outcome) Pending() bool { return o.held && o.fate == undecided }

// Apply is row (or a batch of its cells) as the reader sees it: without
// its lock; with its transaction's deletes done if it committed; with its
// columns as they were before it if it did not (yet).
func (o Outcome) Apply(r store.Row) store.Row {
	out := store.Row{Key: r.Key, Cells: make([]store.Cell, 0, len(r.Cells))}
	for _, c := range r.Cells {
		if len(c.Qualifier) == 0 {
			continue // the lock
		}
		if o.held {
			if o.fate == committed && slices.ContainsFunc(o.lock.Deletes, func(q []byte) bool { return bytes.Equal(q, c.Qualifier) }) {
				continue
			}
			if o.fate != committed {
				if b, ok := o.before(c.Qualifier); ok {
					if !b.Present {
						continue
					}
					c.Value = b.Value
				}
			}
		}
		out.Cells = append(out.Cells, c)
	}
	return out
}

func (o Outcome) before(q []byte) (Column, bool) {
	for _, b := range o.lock.Before {
		if bytes.Equal(b.Qualifier, q) {
			return b, true
		}
	}
	return Column{}, false
}

// View is what a reader sees of row r of table, read with its lock
// column (the empty qualifier, its first cell): see Resolve and Apply.
func (m *Manager) View(ctx context.Context, table string, r store.Row) (store.Row, error) {
	var lock []byte
	if len(r.Cells) > 0 && len(r.Cells[0].Qualifier) == 0 {
		lock = r.Cells[0].Value
	}
	o, err := m.Resolve(ctx, Ref{Table: table, Row: r.Key}, lock)
	if err != nil {
		return store.Row{}, err
	}
	return o.Apply(r), nil
}

// Resolve decides the transaction that holds a row's lock (nil: the row
// has none) and, unless the Manager is read-only, finishes it when it
// can: rolled forward when its primary committed, rolled back when it
// aborted or stayed undecided past its expiry. Every row it changes is
// counted.
func (m *Manager) Resolve(ctx context.Context, ref Ref, lock []byte) (Outcome, error) {
	if len(lock) == 0 {
		return Outcome{}, nil
	}
	l, err := Decode(lock)
	if err != nil {
		return Outcome{}, fmt.Errorf("txn: %s: %w", ref, err)
	}
	if l.State == Stable {
		return Outcome{lock: l}, nil
	}
	f, err := m.resolve(ctx, ref, lock, l)
	return Outcome{fate: f, lock: l, held: true}, err
}

// resolve decides the transaction holding lock l (raw) on row ref, from
// its primary's lock, and finishes it where it can.
func (m *Manager) resolve(ctx context.Context, ref Ref, raw []byte, l Lock) (Fate, error) {
	pref, praw, p := ref, raw, l
	if l.Primary != nil {
		pref = *l.Primary
		var err error
		if praw, p, err = m.lockAt(ctx, pref); err != nil {
			return undecided, err
		}
	}
	for attempt := 0; attempt < 4; attempt++ {
		if praw == nil || p.Tx != l.Tx {
			// The primary has moved on, or never held it: a transaction
			// commits only through its primary, whose next one waits for
			// every row of this one, so this one never committed.
			return aborted, m.finishRow(ctx, ref, raw, l, aborted)
		}
		switch p.State {
		case Committed:
			return committed, m.finish(ctx, pref, praw, p, ref, raw, l, committed)
		case Aborted:
			return aborted, m.finish(ctx, pref, praw, p, ref, raw, l, aborted)
		case Stable:
			f := aborted
			if p.Committed {
				f = committed
			}
			if pref.equal(ref) {
				return f, nil // finished meanwhile, by whoever
			}
			return f, m.finishRow(ctx, ref, raw, l, f) // a secondary left behind
		}
		// Prewritten: undecided, unless it has expired (or no writer is
		// at work).
		if !m.o.AtRest && m.o.Clock() < p.Expiry {
			return undecided, nil
		}
		if m.o.ReadOnly {
			return aborted, m.finishRow(ctx, ref, raw, l, aborted)
		}
		ab := p
		ab.State, ab.Resolved = Aborted, true
		enc := ab.Encode()
		ok, err := m.o.Resolver.CheckAndMutate(ctx, pref.Table, LockColumn, praw,
			store.Put(pref.Row, store.Cell{Qualifier: LockColumn, Value: enc, Timestamp: p.Ts}))
		if err != nil {
			return undecided, fmt.Errorf("txn: abort %s: %w", pref, err)
		}
		if ok {
			praw, p = enc, ab
			if pref.equal(ref) {
				raw, l = enc, ab
			}
			continue
		}
		var err2 error
		if praw, p, err2 = m.lockAt(ctx, pref); err2 != nil { // someone else moved it: look again
			return undecided, err2
		}
		if pref.equal(ref) {
			if praw == nil || p.Tx != l.Tx {
				return aborted, nil // finished by someone else
			}
			raw, l = praw, p
		}
	}
	return undecided, fmt.Errorf("txn: %s: its primary %s keeps changing: %w", ref, pref, ErrConflict)
}

// finish completes a decided transaction from its primary (lock p, raw
// praw): every secondary made stable or rolled back, then the primary.
// The row the reader met (ref) is among them.
func (m *Manager) finish(ctx context.Context, pref Ref, praw []byte, p Lock, ref Ref, raw []byte, l Lock, f Fate) error {
	if m.o.ReadOnly {
		return m.finishRow(ctx, ref, raw, l, f)
	}
	for _, s := range p.Secondaries {
		sraw, sl, err := m.lockAt(ctx, s)
		if err != nil {
			return err
		}
		if sraw == nil || sl.Tx != p.Tx || sl.State != Prewritten {
			continue // never prewritten, or finished already
		}
		if err := m.finishRow(ctx, s, sraw, sl, f); err != nil {
			return err
		}
	}
	return m.finishRow(ctx, pref, praw, p, f)
}

// finishRow makes one row of transaction l stable: forward (committed),
// or back to what it was. It counts the row if it changed it (or, read
// only, would have).
func (m *Manager) finishRow(ctx context.Context, ref Ref, raw []byte, l Lock, f Fate) error {
	count := &m.Stats.RolledBack
	if f == committed {
		count = &m.Stats.RolledForward
	}
	if m.o.ReadOnly {
		if m.firstMeeting(ref) {
			count.Add(1)
			m.heard(ref, l.Tx, f == committed)
		}
		return nil
	}
	var mu store.Mutation
	if f == committed {
		mu = stableMutation(ref.Row, l, true, true)
	} else {
		mu = rollbackMutation(ref.Row, l, true)
	}
	ok, err := m.o.Resolver.CheckAndMutate(ctx, ref.Table, LockColumn, raw, mu)
	if err != nil {
		return fmt.Errorf("txn: resolve %s: %w", ref, err)
	}
	if ok {
		count.Add(1)
		m.heard(ref, l.Tx, f == committed)
	}
	return nil
}

func (m *Manager) heard(ref Ref, tx int64, forward bool) {
	if m.o.OnResolve != nil {
		m.o.OnResolve(ref, tx, forward)
	}
}

// lockAt reads and decodes a row's lock; nil raw when it has none.
func (m *Manager) lockAt(ctx context.Context, ref Ref) ([]byte, Lock, error) {
	raw, err := m.readLock(ctx, ref)
	if err != nil || raw == nil {
		return nil, Lock{}, err
	}
	l, err := Decode(raw)
	if err != nil {
		return nil, Lock{}, fmt.Errorf("txn: %s: %w", ref, err)
	}
	return raw, l, nil
}

// sortedCells are a row's columns in qualifier order.
func sortedCells(cols map[string][]byte) []store.Cell {
	out := make([]store.Cell, 0, len(cols))
	for q, v := range cols {
		out = append(out, store.Cell{Qualifier: []byte(q), Value: v})
	}
	slices.SortFunc(out, func(a, b store.Cell) int { return bytes.Compare(a.Qualifier, b.Qualifier) })
	return out
}

// firstMeeting reports whether a read-only Manager meets the row for the
// first time: what it would resolve is counted once, however often it
// reads the row.
func (m *Manager) firstMeeting(ref Ref) bool {
	m.metMu.Lock()
	defer m.metMu.Unlock()
	if m.met == nil {
		m.met = map[string]bool{}
	}
	k := ref.Table + "\x00" + string(ref.Row)
	if m.met[k] {
		return false
	}
	m.met[k] = true
	return true
}
