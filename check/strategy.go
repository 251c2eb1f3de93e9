package check

import (
	"bytes"
	"context"
	"fmt"
	"iter"
	"slices"
	"sync"

	"commentbench/comments"
	"commentbench/entry"
	"commentbench/keys"
	"commentbench/model"
	"commentbench/store"
	"commentbench/txn"
)

// How the data's comments were written decides how a checker reads them.
// The verified index's entries carry a status: an unverified one is a
// write its writer did not finish, which a reader repairs (its comment
// is there) or drops (it is not); they are counted apart from drift. A
// transaction's rows carry a lock: the checker reads through it as a
// reader does (txn.Reading), and counts the locks it would roll forward
// or back (or, repairing, does).

// LockReport is the locks of transactions whose writer did not finish,
// as the check met them: rows whose transaction committed (a reader
// rolls them forward) and rows whose did not (rolled back).
type LockReport struct {
	RolledForward int64    `json:"rolled_forward"`
	RolledBack    int64    `json:"rolled_back"`
	Samples       []string `json:"samples,omitempty"`
}

// strategy is what a checker keeps of the write strategy's state.
type strategy struct {
	mu sync.Mutex
	// The verified index: unverified entries by listing, key to the raw
	// value, as the first read of each listing found them.
	unverified map[string]map[string][]byte
	read       map[string]bool // listings read once already
	// Transactions: the rows met locked, and the Manager that met them.
	tx     *txn.Manager
	locked []txn.Ref
	lockS  []string
}

// readThrough wraps the checker's store so that it reads as a reader of
// the data's strategy does.
func (c *checker) readThrough(st store.Store) store.Store {
	c.strat.unverified, c.strat.read = map[string]map[string][]byte{}, map[string]bool{}
	if c.o.Writes != comments.Transactional {
		return st
	}
	c.strat.tx = txn.New(st, txn.Options{ReadOnly: true, AtRest: true, OnResolve: func(ref txn.Ref, _ int64, forward bool) {
		c.strat.mu.Lock()
		defer c.strat.mu.Unlock()
		c.strat.locked = append(c.strat.locked, txn.Ref{Table: ref.Table, Row: bytes.Clone(ref.Row)})
		if len(c.strat.lockS) < MaxSamples {
			way := "back: its transaction did not commit"
			if forward {
				way = "forward: its transaction committed"
			}
			c.strat.lockS = append(c.strat.lockS, fmt.Sprintf("%s, rolled %s", c.o.Layout.Describe(ref.Table, ref.Row), way))
		}
	}})
	return txn.Reading(st, c.strat.tx)
}

// lockReport is what the check met of transactions' locks: nil for data
// written otherwise.
func (c *checker) lockReport() *LockReport {
	if c.strat.tx == nil {
		return nil
	}
	c.strat.mu.Lock()
	defer c.strat.mu.Unlock()
	for _, r := range c.strat.locked {
		c.repair.resolveLock(r)
	}
	return &LockReport{RolledForward: c.strat.tx.Stats.RolledForward.Load(), RolledBack: c.strat.tx.Stats.RolledBack.Load(),
		Samples: slices.Clone(c.strat.lockS)}
}

// unframed hands on a verified listing's entries with their status
// taken off their values; the first read of a listing files its
// unverified entries.
func (c *checker) unframed(table string, rows iter.Seq2[store.Row, error]) iter.Seq2[store.Row, error] {
	if c.o.Writes != comments.Verified {
		return rows
	}
	c.strat.mu.Lock()
	first := !c.strat.read[table]
	c.strat.read[table] = true
	c.strat.mu.Unlock()
	return func(yield func(store.Row, error) bool) {
		for row, err := range rows {
			if err == nil {
				v, _ := row.Value(keys.Qualifier)
				status, payload := comments.Unframe(v)
				if first && status == comments.StatusUnverified {
					c.fileUnverified(table, row.Key, v)
				}
				row = store.Row{Key: row.Key, Cells: []store.Cell{{Qualifier: keys.Qualifier, Value: payload, Timestamp: cellTime(row)}}}
			}
			if !yield(row, err) || err != nil {
				return
			}
		}
	}
}

func (c *checker) fileUnverified(table string, key, raw []byte) {
	c.strat.mu.Lock()
	defer c.strat.mu.Unlock()
	m := c.strat.unverified[table]
	if m == nil {
		m = map[string][]byte{}
		c.strat.unverified[table] = m
	}
	m[string(key)] = bytes.Clone(raw)
}

// unverifiedEntry says whether a listing's entry was unverified.
func (c *checker) unverifiedEntry(table string, key []byte) bool {
	c.strat.mu.Lock()
	defer c.strat.mu.Unlock()
	_, ok := c.strat.unverified[table][string(key)]
	return ok
}

// unverifiedCounts fills each listing's count of unverified entries, and
// files the repairs of those a reader rolls forward (their comment is
// there: every unverified entry not rolled back).
func (c *checker) unverifiedCounts(rep *Report) {
	c.strat.mu.Lock()
	defer c.strat.mu.Unlock()
	for i := range rep.Indexes {
		ix := &rep.Indexes[i]
		for _, k := range slices.Sorted(mapsKeys(c.strat.unverified[ix.Table])) {
			key := []byte(k)
			ix.Unverified.add(1, func() string { return c.describe(ix.Table, key) })
			if !ix.back[k] {
				c.repair.reverify(ix.Table, key)
			}
		}
	}
}

func mapsKeys[V any](m map[string]V) iter.Seq[string] {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// reverifyAll marks verified each entry a repair rolls forward, its value
// rebuilt from its comment (a copy from the comment as it is now).
func reverifyAll(ctx context.Context, st store.Store, layout *keys.Design, codec model.Codec, xs []indexAction) error {
	for _, x := range xs {
		t := layout.Table(x.table)
		got, err := entry.Get(ctx, st, t, [][]byte{x.key})
		if err != nil {
			return fmt.Errorf("repair %s: %w", x.table, err)
		}
		raw, ok := got[0].Value(keys.Qualifier)
		if !ok {
			continue
		}
		_, payload := comments.Unframe(raw)
		if t.Copy {
			h, err := model.DecodeHead(codec, payload)
			if err != nil {
				continue
			}
			ck, err := layout.CommentKey(h.OrderID, h.ProductID)
			if err != nil {
				continue
			}
			cs, err := entry.Get(ctx, st, layout.Table(keys.Comment), [][]byte{ck})
			if err != nil {
				return fmt.Errorf("repair %s: %w", x.table, err)
			}
			if payload, ok = cs[0].Value(keys.Qualifier); !ok {
				continue
			}
		}
		if _, err := st.CheckAndMutate(ctx, t.Store, t.Column(x.key), raw,
			entry.Put(t, x.key, comments.Framed(comments.StatusVerified, payload))); err != nil {
			return fmt.Errorf("repair %s: %w", x.table, err)
		}
	}
	return nil
}

// resolveLocks rolls forward or back, as a reader would, every row the
// check met locked by a transaction whose writer did not finish.
func resolveLocks(ctx context.Context, st store.Store, refs []txn.Ref) error {
	m := txn.New(st, txn.Options{AtRest: true})
	for _, ref := range refs {
		got, _, err := st.Read(ctx, ref.Table, []store.Read{{Row: ref.Row, Columns: [][]byte{txn.LockColumn}}})
		if err != nil {
			return fmt.Errorf("repair the lock of %s: %w", ref, err)
		}
		lock, _ := got[0].Value(txn.LockColumn)
		if _, err := m.Resolve(ctx, ref, lock); err != nil {
			return fmt.Errorf("repair the lock of %s: %w", ref, err)
		}
	}
	return nil
}
