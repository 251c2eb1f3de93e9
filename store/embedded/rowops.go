package embedded

import (
	"context"
	"fmt"

	"commentbench/store"
)

// Atomic row operations.
//
// HBase applies every mutation of one row atomically, and builds its
// conditional and read-modify-write operations (check-and-mutate, row
// mutations, increment, append) on the same guarantee: the row is locked,
// read, and written in one step. UpdateRow is that step; the HBase test
// server decides what to write.

// Put is one cell a RowMutation writes.
type Put struct {
	// Family is the cell's family; "" is the default family.
	Family           string
	Qualifier, Value []byte
	// Timestamp is the cell's version in ms; 0 means the update's now.
	Timestamp int64
	// TTL makes the cell expire once Timestamp+TTL is below the clock
	// (HBase's per-cell TTL, in ms); 0 never expires it. Only a table
	// created with TableOptions.CellTTL takes it.
	TTL int64
}

// RowMutation is one HBase Put or Delete of a row: its delete markers,
// then its puts.
type RowMutation struct {
	Deletes []DeleteMarker
	Puts    []Put
}

// RowReader reads the row an UpdateRow holds, as it stands before the
// update; each call costs the row's region a read request.
type RowReader func(Read) (Row, error)

// UpdateRow locks row, hands f a reader of the row and the update's now
// (one clock reading for every cell it stamps), and applies the mutations
// f returns, in order, as one batch. f returning none writes nothing. A
// write costs the row's region a write request.
func (e *Engine) UpdateRow(ctx context.Context, tableName string, row []byte, f func(read RowReader, now int64) ([]RowMutation, error)) error {
	if err := checkRowKey(row); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	t, err := e.enter(tableName)
	if err != nil {
		return err
	}
	defer e.release()
	defer e.unlockRows(e.lockRows(t, [][]byte{row}, nil))

	now := e.now()
	r := t.routing.Load().find(row)
	read := func(rd Read) (Row, error) {
		ro, err := t.readOpts(rd, now)
		if err != nil {
			return Row{}, err
		}
		r.stats.readRequests.Add(1)
		var rb rowBuf
		found, err := e.readOneRow(t, row, ro, &rb)
		if err != nil || !found {
			return Row{Key: row}, err
		}
		r.stats.rowsScanned.Add(1)
		return rb.materializeRow(t), nil
	}
	muts, err := f(read, now)
	if err != nil || len(muts) == 0 {
		return err
	}
	return e.applyRow(t, r, row, muts, now, read)
}

// applyRow writes muts to row in one batch. The caller holds the row's
// lock.
func (e *Engine) applyRow(t *table, r *region, row []byte, muts []RowMutation, now int64, read RowReader) error {
	if e.opts.ReadOnly {
		return fmt.Errorf("embedded: write %q: %w: opened read-only", t.name, store.ErrInvalid)
	}
	var before *Row // the row as it was, read at the first DeleteVersion at LATEST
	latest := func() (Row, error) {
		if before == nil {
			cur, err := read(Read{})
			if err != nil {
				return Row{}, err
			}
			before = &cur
		}
		return *before, nil
	}
	b := e.db.NewBatch()
	defer b.Close()
	w := rowWrite{r: r, bytesIn: uint64(len(row))}
	var scratch, sealed []byte
	var err error
	for _, m := range muts {
		for _, d := range m.Deletes {
			w.bytesIn += uint64(len(d.Qualifier))
			if scratch, err = e.applyDelete(b, t, row, d, now, latest, scratch); err != nil {
				return err
			}
		}
		for _, p := range m.Puts {
			fam, err := t.famIndex(p.Family)
			switch {
			case err != nil:
				return err
			case p.Timestamp < 0:
				return fmt.Errorf("embedded: %w: row %q: negative timestamp %d", store.ErrInvalid, row, p.Timestamp)
			case p.TTL < 0 || (p.TTL > 0 && !t.cellTTL):
				return fmt.Errorf("embedded: %w: row %q: TTL %d on table %q (created without CellTTL)", store.ErrInvalid, row, p.TTL, t.name)
			}
			ts := p.Timestamp
			if ts == 0 {
				ts = now
			}
			v := p.Value
			if t.cellTTL {
				sealed = sealValue(sealed[:0], v, ts, p.TTL)
				v = sealed
			}
			scratch = appendCellKey(scratch[:0], t.id, row, fam, p.Qualifier, ts)
			_ = b.Set(scratch, v, nil)
			w.size += int64(len(scratch) + len(v))
			w.bytesIn += uint64(len(p.Qualifier) + len(p.Value))
		}
	}
	if err := b.Commit(e.writeOpts()); err != nil {
		return fmt.Errorf("embedded: update row %q of %q: %w", row, t.name, err)
	}
	r.stats.writeRequests.Add(1)
	r.stats.bytesIn.Add(w.bytesIn)
	e.grow(r, w.size)
	return nil
}
