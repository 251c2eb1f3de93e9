package comments

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"commentbench/faults"
	"commentbench/keys"
	"commentbench/model"
	"commentbench/store"
	"commentbench/txn"
)

// writeTx writes a comment and its entries in one transaction, the
// comment's row its primary; a listing that keeps a count has it read and
// written in the same transaction.
func (s *System) writeTx(ctx context.Context, p *puts) error {
	res, err := s.update(ctx, func(tx *txn.Tx) error {
		for i := range p.n {
			w := p.writes[i]
			row := p.muts[i].Row
			tx.Put(w.t.Store, row, p.cells[w.from:w.to]...)
			for _, e := range p.entries[w.from:w.to] {
				if e.t.Meta == nil {
					continue
				}
				r, err := tx.Get(ctx, e.t.Store, row, e.t.Meta)
				if err != nil {
					return err
				}
				v, _ := r.Value(e.t.Meta)
				n, err := decodeCount(v)
				if err != nil {
					return fmt.Errorf("%s row %q: %w", e.t.Store, row, err)
				}
				tx.Put(e.t.Store, row, store.Cell{Qualifier: e.t.Meta, Value: EncodeCount(n + 1)})
			}
		}
		return nil
	})
	if res.Committed {
		p.applied = 1<<p.n - 1
	}
	return err
}

// update runs fn as one transaction of the write path: its writer may be
// stopped at any step by the injected abandon (drawn once, at the first
// attempt's count of steps); its requests and bytes are counted, and the
// rows it leaves locked, by whether it committed.
func (s *System) update(ctx context.Context, fn func(tx *txn.Tx) error) (txn.Result, error) {
	at := -2 // not drawn yet
	res, err := s.tx.Update(ctx, func(tx *txn.Tx) error {
		tx.Step = func(step, steps int) error {
			if at == -2 {
				at = s.inj.AbandonAt(steps)
			}
			if step == at {
				return faults.ErrAbandoned
			}
			return nil
		}
		return fn(tx)
	})
	s.cons.Requests.Add(res.Reads + res.Writes)
	s.cons.Bytes.Add(res.Bytes)
	s.cons.LocksBack.Add(res.LeftBefore)
	if left := int64(len(res.Left)); res.Committed {
		s.cons.LocksForward.Add(left)
	} else {
		s.cons.LocksBack.Add(left)
	}
	if err != nil && !injected(err) && !errors.Is(err, txn.ErrConflict) {
		s.cons.Unknown.Add(1)
	}
	return res, err
}

// injected says whether err is a failure the system injected.
func injected(err error) bool {
	return errors.Is(err, faults.ErrFailed) || errors.Is(err, faults.ErrLost) || errors.Is(err, faults.ErrAbandoned)
}

// copyEntry is one copy of a comment a clustered listing keeps.
type copyEntry struct {
	t   *keys.TableKey
	key []byte
	raw []byte // its value as read
}

// editWrites puts an edited comment and rewrites the copies clustered
// listings keep of it, as the system's Writes says: in turn (the comment,
// then each copy; one-row puts a copy kept in the comment's row with it)
// or verified (each copy unverified, the comment, each copy verified).
func (s *System) editWrites(ctx context.Context, ck, val []byte, copies []copyEntry) error {
	s.cons.Writes.Add(1)
	if s.writes == Verified {
		return s.editVerified(ctx, ck, val, copies)
	}
	return s.editInTurn(ctx, ck, val, copies)
}

// editTx edits a comment in one transaction: the comment read in it, so
// two editors of one comment conflict and the second reads the first's
// edit, then the comment and its copies written.
func (s *System) editTx(ctx context.Context, orderID, productID, content string, ck []byte, copies []copyEntry) (model.Comment, error) {
	s.cons.Writes.Add(1)
	var c model.Comment
	_, err := s.update(ctx, func(tx *txn.Tx) error {
		row, err := tx.Get(ctx, s.comment.Store, s.comment.Row(ck), s.comment.Column(ck))
		if err != nil {
			return err
		}
		v, _ := row.Value(s.comment.Column(ck))
		var found bool
		if c, found, err = decodeRow[model.Comment](s.codec, keys.Comment,
			store.Row{Key: ck, Cells: []store.Cell{{Qualifier: keys.Qualifier, Value: v}}}); err != nil || !found {
			return cmp.Or(err, fmt.Errorf("%s/%s: %w", orderID, productID, ErrCommentNotFound))
		}
		c.Content, c.IsEdited = content, true
		val, err := s.codec.Marshal(c)
		if err != nil {
			return err
		}
		tx.Put(s.comment.Store, s.comment.Row(ck), store.Cell{Qualifier: s.comment.Column(ck), Value: val})
		for _, cp := range copies {
			tx.Put(cp.t.Store, cp.t.Row(cp.key), store.Cell{Qualifier: cp.t.Column(cp.key), Value: val})
		}
		return nil
	})
	return c, err
}

// editInTurn puts the comment, then each copy; a copy one-row keeps in
// the comment's row goes with it. A writer that stops leaves the copies it
// did not reach as they were.
func (s *System) editInTurn(ctx context.Context, ck, val []byte, copies []copyEntry) error {
	m := store.Put(s.comment.Row(ck), store.Cell{Qualifier: s.comment.Column(ck), Value: val})
	var apart []copyEntry
	for _, c := range copies {
		if s.writes == OneRow && c.t.Store == s.comment.Store && string(c.t.Row(c.key)) == string(s.comment.Row(ck)) {
			m.Cells = append(m.Cells, store.Cell{Qualifier: c.t.Column(c.key), Value: val})
			continue
		}
		apart = append(apart, c)
	}
	at := s.inj.AbandonAt(1 + len(apart))
	stale := func(from int, comment bool) {
		if comment {
			for _, c := range apart[from:] {
				s.cons.StaleCopies[listingIndex(c.t.Table)].Add(1)
			}
		}
	}
	applied, known, err := s.send(ctx, s.comment.Store, []store.Mutation{m})
	if err != nil {
		if known {
			stale(0, applied)
		} else {
			s.cons.Unknown.Add(1)
		}
		return fmt.Errorf("put %s: %w", keys.Comment, err)
	}
	for i, c := range apart {
		if i+1 == at {
			stale(i, true)
			return faults.ErrAbandoned
		}
		landed, known, err := s.send(ctx, c.t.Store, []store.Mutation{store.Put(c.t.Row(c.key), store.Cell{Qualifier: c.t.Column(c.key), Value: val})})
		if err != nil {
			switch {
			case !known:
				s.cons.Unknown.Add(1)
			case landed:
				stale(i+1, true)
			default:
				stale(i, true)
			}
			return fmt.Errorf("the copy in %s: %w", c.t.Table, err)
		}
	}
	return nil
}

// editVerified marks each copy unverified with the new value, puts the
// comment, and marks each copy verified. A writer that stops leaves
// unverified copies beside the comment, which a reader rebuilds from it.
func (s *System) editVerified(ctx context.Context, ck, val []byte, copies []copyEntry) error {
	steps := 2*len(copies) + 1
	at := s.inj.AbandonAt(steps)
	unverified := make([]bool, len(copies))
	stop := func(err error, verifiedFrom int) error {
		if isUnknown(err) {
			return err
		}
		for i, c := range copies {
			if unverified[i] && i >= verifiedFrom {
				s.cons.Unverified[listingIndex(c.t.Table)].Add(1)
			}
		}
		return err
	}
	step := 0
	send := func(table string, m store.Mutation) (bool, error) {
		defer func() { step++ }()
		if step == at {
			return false, faults.ErrAbandoned
		}
		applied, known, err := s.send(ctx, table, []store.Mutation{m})
		if err != nil && !known {
			s.cons.Unknown.Add(1)
			return applied, errUnknown{err}
		}
		return applied, err
	}
	framedCopy := func(c copyEntry, status byte) store.Mutation {
		return store.Put(c.t.Row(c.key), store.Cell{Qualifier: c.t.Column(c.key), Value: Framed(status, val)})
	}
	for i, c := range copies {
		applied, err := send(c.t.Store, framedCopy(c, StatusUnverified))
		unverified[i] = applied
		if err != nil {
			return stop(err, 0)
		}
	}
	if _, err := send(s.comment.Store, store.Put(s.comment.Row(ck), store.Cell{Qualifier: s.comment.Column(ck), Value: val})); err != nil {
		return stop(err, 0)
	}
	for i, c := range copies {
		applied, err := send(c.t.Store, framedCopy(c, StatusVerified))
		if err != nil {
			from := i
			if applied {
				from = i + 1
			}
			return stop(err, from)
		}
	}
	return nil
}
