package txn

import (
	"bytes"
	"context"

	"commentbench/store"
)

// Reading is st as a reader of transactions sees it: every row read
// through it without its lock column, as its last decided transaction
// left it (an undecided one's columns as they were before it), the locks
// it meets resolved by m. A row that holds nothing a reader may see yet
// is no row, and a scan's or a slice's limit counts the rows and columns
// a reader sees. Writes go to st as they are.
func Reading(st store.Store, m *Manager) store.Store { return &reading{Store: st, m: m} }

type reading struct {
	store.Store
	m *Manager
}

// Get implements store.Store.
func (r *reading) Get(ctx context.Context, table string, row []byte) (store.Row, error) {
	got, err := r.Store.Get(ctx, table, row)
	if err != nil {
		return got, err
	}
	return r.m.View(ctx, table, got)
}

// BatchGet implements store.Store.
func (r *reading) BatchGet(ctx context.Context, table string, rows [][]byte) ([]store.Row, error) {
	got, err := r.Store.BatchGet(ctx, table, rows)
	if err != nil {
		return got, err
	}
	for i := range got {
		if got[i], err = r.m.View(ctx, table, got[i]); err != nil {
			return nil, err
		}
	}
	return got, nil
}

// Read implements store.Store: each read takes its row's lock along (a
// read of named columns names it too; a slice's row gets a read of it
// beside, in the same call), and a slice that came back full but showed
// fewer columns is read again for as many more.
func (r *reading) Read(ctx context.Context, table string, reads []store.Read) ([]store.Row, store.ScanMetrics, error) {
	asked := make([]store.Read, 0, len(reads)+1)
	lockAt := make([]int, len(reads)) // where each read's lock comes back; -1: in its own row
	for i, rd := range reads {
		lockAt[i] = -1
		switch {
		case rd.Slice != nil && len(rd.Slice.Start) == 0:
			// The lock is read beside it: the slice starts past it, at the
			// first qualifier that is not empty.
			sl := *rd.Slice
			sl.Start = []byte{0}
			rd.Slice = &sl
		case rd.Slice == nil && rd.Columns != nil:
			rd.Columns = append([][]byte{LockColumn}, rd.Columns...)
		}
		asked = append(asked, rd)
	}
	for i, rd := range reads {
		if rd.Slice != nil {
			lockAt[i] = len(asked)
			asked = append(asked, store.Read{Row: rd.Row, Columns: [][]byte{LockColumn}})
		}
	}
	got, m, err := r.Store.Read(ctx, table, asked)
	if err != nil {
		return nil, m, err
	}
	out := got[:len(reads)]
	for i, rd := range reads {
		var lock []byte
		if lockAt[i] >= 0 {
			lock, _ = got[lockAt[i]].Value(LockColumn)
		} else if c := got[i].Cells; len(c) > 0 && len(c[0].Qualifier) == 0 {
			lock = c[0].Value
		}
		o, err := r.m.Resolve(ctx, Ref{Table: table, Row: rd.Row}, lock)
		if err != nil {
			return nil, m, err
		}
		raw := len(got[i].Cells)
		out[i] = o.Apply(got[i]) // out is got's first part: got[i] is read above
		if sl := rd.Slice; sl != nil && sl.Limit > 0 && raw == sl.Limit && len(out[i].Cells) < sl.Limit {
			more, mm, err := r.Read(ctx, table, []store.Read{{Row: rd.Row, Slice: &store.Slice{Start: asked[i].Slice.Start, Stop: sl.Stop,
				Offset: sl.Offset, Limit: sl.Limit + sl.Limit - len(out[i].Cells)}}})
			m.Add(mm)
			if err != nil {
				return nil, m, err
			}
			out[i] = more[0]
			out[i].Cells = out[i].Cells[:min(len(out[i].Cells), sl.Limit)]
		}
	}
	return out, m, nil
}

// Scan implements store.Store. The scan below has no limit: the rows a
// reader cannot see yet do not count toward it.
func (r *reading) Scan(ctx context.Context, table string, sc store.Scan, each func(store.Row) bool) (store.ScanMetrics, error) {
	limit := sc.Limit
	sc.Limit = 0
	var last []byte // the row whose batches are being read, and how they are seen
	var seen Outcome
	counted := false // the row has counted toward the limit
	n := 0
	var ferr error
	m, err := r.Store.Scan(ctx, table, sc, func(row store.Row) bool {
		if last == nil || !bytes.Equal(row.Key, last) {
			if limit > 0 && n == limit {
				return false // a row past the limit: the last one's batches are done
			}
			var lock []byte
			if len(row.Cells) > 0 && len(row.Cells[0].Qualifier) == 0 {
				lock = row.Cells[0].Value
			}
			if seen, ferr = r.m.Resolve(ctx, Ref{Table: table, Row: row.Key}, lock); ferr != nil {
				return false
			}
			last, counted = append(last[:0], row.Key...), false
		}
		v := seen.Apply(row)
		if len(v.Cells) == 0 {
			return true
		}
		if !counted {
			n, counted = n+1, true
		}
		return each(v)
	})
	if err == nil {
		err = ferr
	}
	return m, err
}
