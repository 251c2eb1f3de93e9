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
// (hbasetest): several versions, time ranges, and HBase's four delete
// markers (HBASE-WIRE 8.2) at explicit timestamps. They share the store.Store paths, so counters and
// visibility rules are the same.

// Now is the engine's clock in ms (Options.Now): what a put without a
// timestamp is stamped with.
func (e *Engine) Now() int64 { return e.now() }

// Family returns the column family of a table.
func (e *Engine) Family(tableName string) (string, error) {
	t, err := e.table(tableName)
	if err != nil {
		return "", err
	}
	return t.family, nil
}

// versionOpts checks and builds the read options of an HBase Get or Scan:
// at most maxVersions newest versions per column inside [minTs, maxTs).
func versionOpts(maxVersions int, minTs, maxTs int64) (readOpts, error) {
	if maxVersions < 1 || minTs < 0 || maxTs < minTs {
		return readOpts{}, fmt.Errorf("embedded: %w: versions %d, time range [%d, %d)", store.ErrInvalid, maxVersions, minTs, maxTs)
	}
	return readOpts{maxVersions: maxVersions, minTs: minTs, maxTs: maxTs}, nil
}

// GetVersions is Get with HBase's max_versions and time_range: the row's
// cells ordered by qualifier, then timestamp newest first, with up to
// maxVersions versions per qualifier whose timestamps lie in [minTs, maxTs).
func (e *Engine) GetVersions(ctx context.Context, tableName string, row []byte, maxVersions int, minTs, maxTs int64) (store.Row, error) {
	ro, err := versionOpts(maxVersions, minTs, maxTs)
	if err != nil {
		return store.Row{}, err
	}
	if err := checkRowKey(row); err != nil {
		return store.Row{}, err
	}
	if err := ctx.Err(); err != nil {
		return store.Row{}, err
	}
	t, err := e.enter(tableName)
	if err != nil {
		return store.Row{}, err
	}
	defer e.release()
	rows, err := e.batchGet(t, [][]byte{row}, ro)
	if err != nil {
		return store.Row{}, err
	}
	return rows[0], nil
}

// ScanVersions is Scan with HBase's max_versions and time_range, as
// GetVersions. A row none of whose versions lies in the range is skipped.
func (e *Engine) ScanVersions(ctx context.Context, tableName string, sc store.Scan, maxVersions int, minTs, maxTs int64, each func(store.Row) bool) (store.ScanMetrics, error) {
	ro, err := versionOpts(maxVersions, minTs, maxTs)
	if err != nil {
		return store.ScanMetrics{}, err
	}
	t, err := e.enter(tableName)
	if err != nil {
		return store.ScanMetrics{}, err
	}
	defer e.release()
	return e.scan(ctx, t, sc, ro, each)
}

// DeleteRowAt deletes a row as HBase's DeleteFamily at ts does: it hides
// every cell with a timestamp <= ts, including ones written later. ts <= 0
// means now, as store.Delete.
func (e *Engine) DeleteRowAt(ctx context.Context, tableName string, row []byte, ts int64) error {
	return e.DeleteCells(ctx, tableName, row, DeleteMarker{Kind: DeleteFamily, Timestamp: ts})
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
	if err := checkRowKey(row); err != nil {
		return err
	}
	for _, m := range marks {
		if m.Kind < DeleteVersion || m.Kind > DeleteFamily {
			return fmt.Errorf("embedded: %w: delete kind %d", store.ErrInvalid, m.Kind)
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	t, err := e.enter(tableName)
	if err != nil {
		return err
	}
	defer e.release()
	if len(marks) == 0 {
		return nil
	}
	unlock := e.lockRows(t, [][]byte{row})
	defer unlock()

	now := e.now()
	b := e.db.NewBatch()
	defer b.Close()
	var (
		latest  *rowBuf // the row as it was, read at the first DeleteVersion at LATEST
		scratch []byte
		bytesIn = uint64(len(row))
	)
	for _, m := range marks {
		ts := m.Timestamp
		bytesIn += uint64(len(m.Qualifier))
		switch m.Kind {
		case DeleteFamily:
			if ts <= 0 {
				ts = now
			}
			if scratch, err = e.deleteRow(b, t, row, ts, scratch); err != nil {
				return err
			}
		case DeleteFamilyVersion:
			if ts <= 0 {
				ts = now
			}
			lower := append(appendRowPrefix(nil, t.id, row), familyIndex, kindPut)
			upper := append(appendRowPrefix(nil, t.id, row), familyIndex, kindPut+1)
			if err := e.deleteKeys(b, lower, upper, func(v int64) bool { return v == ts }); err != nil {
				return err
			}
			scratch = appendFamilyVersionKey(scratch[:0], t.id, row, ts)
			_ = b.Set(scratch, nil, nil)
		case DeleteColumn:
			if ts <= 0 {
				ts = now
			}
			older := func(v int64) bool { return v <= ts }
			lower := appendQualifierPrefix(nil, t.id, row, m.Qualifier)
			if err := e.deleteKeys(b, lower, prefixEnd(lower), older); err != nil {
				return err
			}
			// Older column markers are subsumed by this one.
			lower = appendColumnPrefix(nil, t.id, row, m.Qualifier)
			if err := e.deleteKeys(b, lower, prefixEnd(lower), older); err != nil {
				return err
			}
			scratch = appendColumnMarkerKey(scratch[:0], t.id, row, m.Qualifier, colDeleteAll, ts)
			_ = b.Set(scratch, nil, nil)
		case DeleteVersion:
			if ts <= 0 {
				if latest == nil {
					latest = &rowBuf{}
					if _, err := e.readOneRow(t, row, latestOnly, latest); err != nil {
						return err
					}
				}
				ts = now
				if c, ok := latest.cell(m.Qualifier); ok {
					ts = c.ts
				}
			}
			scratch = appendCellKey(scratch[:0], t.id, row, m.Qualifier, ts)
			_ = b.Delete(scratch, nil)
			scratch = appendColumnMarkerKey(scratch[:0], t.id, row, m.Qualifier, colDeleteOne, ts)
			_ = b.Set(scratch, nil, nil)
		}
	}
	if err := b.Commit(e.writeOpts()); err != nil {
		return fmt.Errorf("embedded: delete %q: %w", tableName, err)
	}
	r := t.routing.Load().find(row)
	r.stats.writeRequests.Add(1)
	r.stats.bytesIn.Add(bytesIn)
	return nil
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
