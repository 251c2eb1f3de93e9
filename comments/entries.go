package comments

import (
	"bytes"
	"context"
	"fmt"

	"commentbench/entry"
	"commentbench/keys"
	"commentbench/model"
	"commentbench/store"
)

// Entries in wide rows: the reads of a listing kept in columns, and the
// copies a clustered listing keeps. (Package entry maps entries to the
// store's rows and columns.)

// getEntry reads entry k of t: a row with no cells when it is not there.
func (s *System) getEntry(ctx context.Context, t *keys.TableKey, k []byte) (store.Row, error) {
	if !t.Wide() {
		return s.st.Get(ctx, t.Store, k)
	}
	got, err := entry.Get(ctx, s.st, t, [][]byte{k})
	if err != nil {
		return store.Row{}, err
	}
	return got[0], nil
}

// readSlice reads up to n entries of a wide listing's branch from from
// (an entry key, inclusive; nil: the branch's first), in column order. On
// a listing with a collection's metadata column, a read from the start
// takes the count too, which sorts just before: count is -1 when it was
// not read. The seed's scan mode reads the whole row and slices it here,
// as a client with no column filter must.
func (s *System) readSlice(ctx context.Context, l keys.Listing, branch int, from []byte, n int, meta []byte) (rows []store.Row, count int64, m store.ScanMetrics, err error) {
	row, start, stop := l.Slice(branch)
	if from != nil {
		if len(from) < l.RowLen {
			return nil, -1, m, badCursor(l, from)
		}
		start = from[l.RowLen:]
	}
	count = -1
	withMeta := meta != nil && from == nil
	sl := &store.Slice{Start: start, Stop: stop, Limit: n}
	if withMeta {
		sl.Start, sl.Limit = meta, n+1
	}
	rd := store.Read{Row: row, Slice: sl}
	if s.mode == SeedScan {
		rd.Slice = nil
	}
	got, m, err := s.st.Read(ctx, l.Store, []store.Read{rd})
	if err != nil {
		return nil, count, m, fmt.Errorf("read %s row %q: %w", l.Store, row, err)
	}
	cells := got[0].Cells
	if rd.Slice == nil {
		cells = store.Select(got[0], store.Read{Slice: sl}).Cells
	}
	for _, c := range cells {
		if withMeta && bytes.Equal(c.Qualifier, meta) {
			if count, err = decodeCount(c.Value); err != nil {
				return nil, count, m, fmt.Errorf("%s row %q column %q: %w", l.Store, row, meta, err)
			}
			continue
		}
		if len(rows) < n && len(c.Qualifier) == l.KeyLen-l.RowLen {
			rows = append(rows, entry.FromCell(row, c))
		}
	}
	return rows, count, m, nil
}

// eachSlice reads every entry of a wide listing's branch, a page of
// sliceRows at a time, so that a row of any width is read in slices no
// bigger than that.
func (s *System) eachSlice(ctx context.Context, l keys.Listing, branch int, f func(store.Row)) (store.ScanMetrics, error) {
	var total store.ScanMetrics
	var from []byte
	for {
		rows, _, m, err := s.readSlice(ctx, l, branch, from, sliceRows, nil)
		total.Add(m)
		if err != nil {
			return total, err
		}
		for _, r := range rows {
			if l.Owns(r.Key) {
				f(r)
			}
		}
		if len(rows) < sliceRows {
			return total, nil
		}
		from = append(bytes.Clone(rows[len(rows)-1].Key), 0) // the next column after the last
	}
}

// sliceRows is how many columns a walk of a whole wide listing reads at
// once: entry.Batch's, for the same reason.
const sliceRows = entry.Batch

// findCopies finds the copies of a comment that clustered listings hold.
// An entry's key holds the length the comment had when it was written,
// which an edit no longer knows: the entries of the comment's millisecond
// (its key's parts before the length, which the comment's fields make)
// are read and those holding this comment kept.
func (s *System) findCopies(ctx context.Context, c model.Comment) ([]copyEntry, error) {
	var out []copyEntry
	for _, t := range s.copies {
		k := keys.Key{UserID: c.UserID, ProductID: c.ProductID, OrderID: c.OrderID, Timestamp: c.Timestamp}
		full, err := t.AppendKey(nil, &k)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", t.Table, err)
		}
		err = s.eachWithPrefix(ctx, t, full[:t.GroupLen()], func(r store.Row) {
			raw, _ := r.Value(keys.Qualifier)
			v, _ := s.payload(t.Table, raw)
			if h, err := model.DecodeHead(s.codec, v); err == nil && h.OrderID == c.OrderID && h.ProductID == c.ProductID {
				out = append(out, copyEntry{t: t, key: bytes.Clone(r.Key), raw: raw})
			}
		})
		if err != nil {
			return nil, fmt.Errorf("the copy in %s: %w", t.Table, err)
		}
	}
	return out, nil
}

// eachWithPrefix hands f every entry of t whose key starts with prefix,
// which holds a whole row key where t keeps its entries in columns.
func (s *System) eachWithPrefix(ctx context.Context, t *keys.TableKey, prefix []byte, f func(store.Row)) error {
	if !t.Wide() {
		_, err := s.st.Scan(ctx, t.Store, store.Scan{Start: prefix, Stop: store.PrefixEnd(prefix)}, func(r store.Row) bool {
			if len(r.Key) == t.Len {
				f(r)
			}
			return true
		})
		return err
	}
	row, cols := t.Row(prefix), prefix[t.RowLen:]
	got, _, err := s.st.Read(ctx, t.Store, []store.Read{{Row: row, Slice: &store.Slice{Start: cols, Stop: store.PrefixEnd(cols)}}})
	if err != nil {
		return err
	}
	for _, c := range got[0].Cells {
		if len(row)+len(c.Qualifier) == t.Len {
			f(entry.FromCell(row, c))
		}
	}
	return nil
}
