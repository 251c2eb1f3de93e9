package embedded

import (
	"context"
	"fmt"

	"commentbench/store"

	"github.com/cockroachdb/pebble/v2"
)

// Reads and deletes beyond store.Store, for the HBase test server
// (hbase/hbasetest): several versions, time ranges, and row deletes at an
// explicit timestamp. They share the store.Store paths, so counters and
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
	if err := e.acquire(); err != nil {
		return store.Row{}, err
	}
	defer e.release()
	t, err := e.table(tableName)
	if err != nil {
		return store.Row{}, err
	}
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
	if err := e.acquire(); err != nil {
		return store.ScanMetrics{}, err
	}
	defer e.release()
	t, err := e.table(tableName)
	if err != nil {
		return store.ScanMetrics{}, err
	}
	return e.scan(ctx, t, sc, ro, each)
}

// DeleteRowAt deletes a row as HBase's DeleteFamily at ts does: it hides
// every cell with a timestamp <= ts, including ones written later. ts <= 0
// means now, as store.Delete.
func (e *Engine) DeleteRowAt(ctx context.Context, tableName string, row []byte, ts int64) error {
	if err := checkRowKey(row); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := e.acquire(); err != nil {
		return err
	}
	defer e.release()
	t, err := e.table(tableName)
	if err != nil {
		return err
	}
	unlock := e.lockRows(t, [][]byte{row})
	defer unlock()
	if ts <= 0 {
		ts = e.now()
	}
	b := e.db.NewBatch()
	defer b.Close()
	if _, err := e.deleteRow(b, t, row, ts, nil); err != nil {
		return err
	}
	if err := b.Commit(pebble.NoSync); err != nil {
		return fmt.Errorf("embedded: delete %q: %w", tableName, err)
	}
	r := t.routing.Load().find(row)
	r.stats.writeRequests.Add(1)
	r.stats.bytesIn.Add(uint64(len(row)))
	return nil
}
