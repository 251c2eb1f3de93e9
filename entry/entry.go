// Package entry reads and writes a key design's entries in a store: a
// user, a comment, an index entry, each where its table's key says
// (keys.TableKey), a row of the seed's one column q or a column of a wide
// row, perhaps in another table's rows.
//
// It owns the one mapping between the two: an entry is handed on as a row
// of the seed's shape (its entry key, one cell in q), so whatever reads
// entries works the same for every design. It must not know what entries
// mean (the comment system, the checks), nor how a backend keeps bytes.
package entry

import (
	"bytes"
	"context"

	"commentbench/keys"
	"commentbench/store"
)

// Put is the mutation that writes v as entry k of t.
func Put(t *keys.TableKey, k, v []byte) store.Mutation {
	return store.Put(t.Row(k), store.Cell{Qualifier: t.Column(k), Value: v})
}

// Delete is the mutation that removes entry k of t: its row, or its column
// of a wide row.
func Delete(t *keys.TableKey, k []byte) store.Mutation {
	if !t.Wide() {
		return store.Delete(k)
	}
	return store.Mutation{Row: t.Row(k), DeleteColumns: [][]byte{t.Column(k)}}
}

// FromCell is the cell c of row as an entry: the entry key (the row, then
// the column) and the value in the seed's one column.
func FromCell(row []byte, c store.Cell) store.Row {
	key := make([]byte, 0, len(row)+len(c.Qualifier))
	key = append(append(key, row...), c.Qualifier...)
	return store.Row{Key: key, Cells: []store.Cell{{Qualifier: keys.Qualifier, Value: c.Value, Timestamp: c.Timestamp}}}
}

// Of reports whether cell column q of store row row is an entry of t. A
// store table may keep several tables' entries, told apart by the row
// key's width and the column's type (see keys.Parse).
func Of(t *keys.TableKey, row, q []byte) bool {
	if len(row) != t.RowLen {
		return false
	}
	if !t.Wide() {
		return bytes.Equal(q, keys.Qualifier)
	}
	return len(q) == t.Len-t.RowLen && bytes.HasPrefix(q, t.ColumnPrefix())
}

// Each hands yield the entries of t in r, a row (or a batch of one row's
// cells) of t's store table, in key order, and reports whether yield
// wants more.
func Each(t *keys.TableKey, r store.Row, yield func(store.Row) bool) bool {
	if !t.Wide() {
		if _, ok := r.Value(keys.Qualifier); ok && len(r.Key) == t.RowLen {
			return yield(r)
		}
		return true
	}
	for _, c := range r.Cells {
		if Of(t, r.Key, c.Qualifier) && !yield(FromCell(r.Key, c)) {
			return false
		}
	}
	return true
}

// Batch is how many cells a scan of a table of wide rows asks for in one
// row: a row of any width is read a batch at a time, so no read meets the
// store's max row size (256 comments of a few KiB stay under 1 MiB).
const Batch = 256

// ScanOf is the scan that reads t's entries from its store table, a batch
// of cells at a time: a row may be wide, or another table's.
func ScanOf(t *keys.TableKey, sc store.Scan) store.Scan {
	sc.Batch = Batch
	return sc
}

// Get reads entries of t, one row per key in request order, with no cells
// for an entry that is not there: a batch get, or, for entries kept in
// columns, one read per row of the columns asked of it.
func Get(ctx context.Context, st store.Store, t *keys.TableKey, ks [][]byte) ([]store.Row, error) {
	if !t.Wide() {
		return st.BatchGet(ctx, t.Store, ks)
	}
	var reads []store.Read
	at := make([]int, len(ks)) // the read of each key; -1: none, a key that is no entry's
	for i, k := range ks {
		if len(k) != t.Len {
			at[i] = -1
			continue
		}
		row := t.Row(k)
		at[i] = len(reads)
		for j := range reads {
			if bytes.Equal(reads[j].Row, row) {
				at[i] = j
				break
			}
		}
		if at[i] == len(reads) {
			reads = append(reads, store.Read{Row: row})
		}
		reads[at[i]].Columns = append(reads[at[i]].Columns, t.Column(k))
	}
	var got []store.Row
	if len(reads) > 0 {
		var err error
		if got, _, err = st.Read(ctx, t.Store, reads); err != nil {
			return nil, err
		}
	}
	out := make([]store.Row, len(ks))
	for i, k := range ks {
		out[i] = store.Row{Key: k}
		if at[i] < 0 {
			continue
		}
		if v, ok := got[at[i]].Value(t.Column(k)); ok {
			out[i].Cells = []store.Cell{{Qualifier: keys.Qualifier, Value: v}}
		}
	}
	return out, nil
}
