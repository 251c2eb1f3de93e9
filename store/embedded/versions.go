package embedded

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"commentbench/store"

	"github.com/cockroachdb/pebble/v2"
)

// Reads and deletes beyond store.Store, for the HBase test server
// (hbasetest): every family, several versions, time ranges, and HBase's
// four delete markers (HBASE-WIRE 8.2) at explicit timestamps. They share
// the store.Store paths, so counters and visibility rules are the same.

// Now is the engine's clock in ms (Options.Now): what a put without a
// timestamp is stamped with, and what cell TTLs expire against.
func (e *Engine) Now() int64 { return e.now() }

// Family returns the default column family of a table.
func (e *Engine) Family(tableName string) (string, error) {
	t, err := e.table(tableName)
	if err != nil {
		return "", err
	}
	return t.family, nil
}

// GetRow reads what rd selects of one row; a row without such cells comes
// back with none. It costs the row's region a read request, as Get.
func (e *Engine) GetRow(ctx context.Context, tableName string, row []byte, rd Read) (Row, error) {
	if err := checkRowKey(row); err != nil {
		return Row{}, err
	}
	if err := ctx.Err(); err != nil {
		return Row{}, err
	}
	t, err := e.enter(tableName)
	if err != nil {
		return Row{}, err
	}
	defer e.release()
	ro, err := t.readOpts(rd, e.now())
	if err != nil {
		return Row{}, err
	}
	out := make([]Row, 1)
	err = e.batchGet(t, [][]byte{row}, ro, nil, out)
	return out[0], err
}

// ScanRows is Scan reading what rd selects of each row. A row with no such
// cells is not there: it is neither scanned nor handed to each. It hands
// rows over whole (sc.Batch is refused): the test server cuts them up as
// HBase's scan settings say.
func (e *Engine) ScanRows(ctx context.Context, tableName string, sc store.Scan, rd Read, each func(Row) bool) (store.ScanMetrics, error) {
	if sc.Batch > 0 {
		return store.ScanMetrics{}, fmt.Errorf("embedded: scan %q: %w: batch %d (ScanRows hands rows over whole)", tableName, store.ErrInvalid, sc.Batch)
	}
	t, err := e.enter(tableName)
	if err != nil {
		return store.ScanMetrics{}, err
	}
	defer e.release()
	ro, err := t.readOpts(rd, e.now())
	if err != nil {
		return store.ScanMetrics{}, err
	}
	return e.scan(ctx, t, sc, ro, func(rb *rowBuf) bool { return each(rb.materializeRow(t)) })
}

// DeleteRowAt deletes a row as HBase's whole-row Delete at ts does: a
// DeleteFamily on every family, hiding every cell with a timestamp <= ts,
// including ones written later. ts <= 0 means now, as store.Delete.
func (e *Engine) DeleteRowAt(ctx context.Context, tableName string, row []byte, ts int64) error {
	s, err := e.Schema(tableName)
	if err != nil {
		return err
	}
	marks := make([]DeleteMarker, len(s.Families))
	for i, f := range s.Families {
		marks[i] = DeleteMarker{Kind: DeleteFamily, Family: f.Name, Timestamp: ts}
	}
	return e.DeleteCells(ctx, tableName, row, marks...)
}

// DeleteKind is the type of a delete marker (HBASE-WIRE 8.2).
type DeleteKind uint8

const (
	// DeleteVersion is HBase's Delete (cell type 8): it hides the version
	// of one column with ts == the marker's. At LATEST the marker takes the
	// timestamp of the column's newest visible version (now if none).
	DeleteVersion DeleteKind = iota + 1
	// DeleteColumn (12) hides every version of one column with ts <= the
	// marker's.
	DeleteColumn
	// DeleteFamilyVersion (10) hides every column's version with ts ==
	// the marker's.
	DeleteFamilyVersion
	// DeleteFamily (14) hides every column's versions with ts <= the
	// marker's, as DeleteRowAt.
	DeleteFamily
)

// DeleteMarker is one delete of a DeleteCells call.
type DeleteMarker struct {
	Kind DeleteKind
	// Family is the family it deletes in; "" is the default family.
	Family string
	// Qualifier is the column of DeleteVersion and DeleteColumn (empty is
	// a valid qualifier); the family kinds ignore it.
	Qualifier []byte
	// Timestamp <= 0 means LATEST: now, or for DeleteVersion the newest
	// visible version's timestamp.
	Timestamp int64
}

// DeleteColumnAt hides the versions of (row, qualifier) with ts <= ts,
// including ones written later (HBase's DeleteColumn). ts <= 0 means now.
func (e *Engine) DeleteColumnAt(ctx context.Context, tableName string, row, qualifier []byte, ts int64) error {
	return e.DeleteCells(ctx, tableName, row, DeleteMarker{Kind: DeleteColumn, Qualifier: qualifier, Timestamp: ts})
}

// DeleteVersionAt hides the version of (row, qualifier) at exactly ts,
// including one written later (HBase's Delete). ts <= 0 means the newest
// visible version (now if the column has none).
func (e *Engine) DeleteVersionAt(ctx context.Context, tableName string, row, qualifier []byte, ts int64) error {
	return e.DeleteCells(ctx, tableName, row, DeleteMarker{Kind: DeleteVersion, Qualifier: qualifier, Timestamp: ts})
}

// DeleteFamilyVersionAt hides every column's version of row at exactly ts,
// including ones written later (HBase's DeleteFamilyVersion). ts <= 0
// means now.
func (e *Engine) DeleteFamilyVersionAt(ctx context.Context, tableName string, row []byte, ts int64) error {
	return e.DeleteCells(ctx, tableName, row, DeleteMarker{Kind: DeleteFamilyVersion, Timestamp: ts})
}

// DeleteCells applies the delete markers of one HBase Delete mutation to
// row atomically (one batch, one now). Every marker persists and masks
// later puts as HBASE-WIRE 8.2 says; the cells a marker hides are also
// removed physically. A write request for the row's region.
func (e *Engine) DeleteCells(ctx context.Context, tableName string, row []byte, marks ...DeleteMarker) error {
	if len(marks) == 0 {
		if err := checkRowKey(row); err != nil {
			return err
		}
		_, err := e.table(tableName)
		return err
	}
	return e.UpdateRow(ctx, tableName, row, func(RowReader, int64) ([]RowMutation, error) {
		return []RowMutation{{Deletes: marks}}, nil
	})
}

// applyDelete adds one delete marker to b at now (LATEST resolved as
// HBASE-WIRE 8.2 says); latest reads the row as it was before this
// update, for a DeleteVersion at LATEST.
func (e *Engine) applyDelete(b *pebble.Batch, t *table, row []byte, m DeleteMarker, now int64, latest func() (Row, error), scratch []byte) ([]byte, error) {
	fam, err := t.famIndex(m.Family)
	if err != nil {
		return scratch, err
	}
	ts := m.Timestamp
	if ts <= 0 && m.Kind != DeleteVersion {
		ts = now
	}
	switch m.Kind {
	case DeleteFamily:
		return e.deleteFamily(b, t, row, fam, ts, scratch)
	case DeleteFamilyVersion:
		lower := append(appendFamilyPrefix(nil, t.id, row, fam), kindPut)
		upper := append(appendFamilyPrefix(nil, t.id, row, fam), kindPut+1)
		if err := e.deleteKeys(b, lower, upper, func(v int64) bool { return v == ts }); err != nil {
			return scratch, err
		}
		scratch = appendFamilyVersionKey(scratch[:0], t.id, row, fam, ts)
	case DeleteColumn:
		older := func(v int64) bool { return v <= ts }
		lower := appendQualifierPrefix(nil, t.id, row, fam, m.Qualifier)
		if err := e.deleteKeys(b, lower, prefixEnd(lower), older); err != nil {
			return scratch, err
		}
		// Older column markers are subsumed by this one.
		lower = appendColumnPrefix(nil, t.id, row, fam, m.Qualifier)
		if err := e.deleteKeys(b, lower, prefixEnd(lower), older); err != nil {
			return scratch, err
		}
		scratch = appendColumnMarkerKey(scratch[:0], t.id, row, fam, m.Qualifier, colDeleteAll, ts)
	case DeleteVersion:
		if ts <= 0 {
			cur, err := latest()
			if err != nil {
				return scratch, err
			}
			ts = now
			if c, ok := cur.Cell(t.families[fam].name, m.Qualifier); ok {
				ts = c.Timestamp
			}
		}
		scratch = appendCellKey(scratch[:0], t.id, row, fam, m.Qualifier, ts)
		_ = b.Delete(scratch, nil)
		scratch = appendColumnMarkerKey(scratch[:0], t.id, row, fam, m.Qualifier, colDeleteOne, ts)
	default:
		return scratch, fmt.Errorf("embedded: %w: delete kind %d", store.ErrInvalid, m.Kind)
	}
	_ = b.Set(scratch, nil, nil)
	return scratch, nil
}

// prefixEnd is the smallest key above every key starting with p, where p
// ends with an escaped part's terminator (as rowPrefixEnd).
func prefixEnd(p []byte) []byte {
	end := bytes.Clone(p)
	end[len(end)-1]++
	return end
}

// deleteKeys adds to b a delete of every key in [lower, upper) whose
// timestamp satisfies del.
func (e *Engine) deleteKeys(b *pebble.Batch, lower, upper []byte, del func(int64) bool) error {
	it, err := e.db.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return err
	}
	for ok := it.First(); ok; ok = it.Next() {
		if k := it.Key(); len(k) >= len(lower)+tsLen && del(keyTs(k)) {
			_ = b.Delete(k, nil)
		}
	}
	if err := errors.Join(it.Error(), it.Close()); err != nil {
		return fmt.Errorf("embedded: delete: %w", err)
	}
	return nil
}
