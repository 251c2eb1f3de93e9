package hbasetest

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"commentbench/hbase/wire"
	"commentbench/store"
	"commentbench/store/embedded"
)

// Cloning a snapshot: HBase's master, asked to restore a snapshot into a
// table that does not exist, creates that table with the snapshot's
// schema, regions and data (CloneSnapshotProcedure) and leaves the
// snapshot's own table as it is.
//
// The engine restores a snapshot only into the table it was taken of, so
// a clone is staged there: the table's current data is kept in a snapshot
// of its own, the snapshot to clone is restored into it and copied into
// the new table, and the kept data is restored. The source table is
// offline meanwhile, so no client reads the staged data or writes what
// the last restore would undo; its requests get NotServingRegionException
// and come back once it is online, as they would for a region in
// transition. So is the new table until its data is in.

// stagePrefix starts the names of the snapshots that keep a table's data
// while it stages a clone. HBase refuses snapshot names starting with a
// dot, so none of a client's can collide with them, and listings leave
// them out.
const stagePrefix = ".hbasetest-clone-"

// cloneSnapshot creates table from the snapshot in; the table must not
// exist. The caller holds adminMu.
func (c *Cluster) cloneSnapshot(in embedded.SnapshotInfo, table string) (uint64, error) {
	if c.exists(table) {
		return 0, excf(wire.ExcTableExists, "%s", table)
	}
	c.takeOffline(table)
	defer c.bringOnline(table)
	spec, opts := cloneSpec(in, table)
	if err := c.eng.CreateTableWith(c.ctx, spec, opts); err != nil {
		return 0, fmt.Errorf("clone snapshot %s into %s: %w", in.Name, table, err)
	}
	if err := c.stageClone(in, table); err != nil {
		return 0, errors.Join(err, c.eng.DropTable(c.ctx, table))
	}
	c.mu.Lock()
	delete(c.disabled, table)
	c.mu.Unlock()
	return c.newProc(), nil
}

// cloneSpec is the schema and regions of the snapshot's table, named
// table.
func cloneSpec(in embedded.SnapshotInfo, table string) (store.TableSpec, embedded.TableOptions) {
	spec := store.TableSpec{Name: table, Family: in.Schema.Default, Families: in.Schema.Names(), SplitKeys: in.SplitKeys}
	opts := embedded.TableOptions{MaxVersions: map[string]int{}, CellTTL: in.Schema.CellTTL}
	for _, f := range in.Schema.Families {
		opts.MaxVersions[f.Name] = f.MaxVersions
	}
	return spec, opts
}

// stageClone fills table with the snapshot's data by way of the
// snapshot's own table, which it leaves as it found it: holding the same
// data, or gone if it was.
func (c *Cluster) stageClone(in embedded.SnapshotInfo, table string) (err error) {
	src := in.Table
	c.takeOffline(src)
	defer c.bringOnline(src)
	if c.exists(src) {
		keep := stagePrefix + in.Name
		if err := c.eng.Snapshot(c.ctx, src, keep); err != nil {
			return fmt.Errorf("keep %s while cloning %s: %w", src, in.Name, err)
		}
		defer func() { err = errors.Join(err, c.unstage(src, keep)) }()
	} else {
		defer func() { err = errors.Join(err, c.eng.DropTable(c.ctx, src)) }()
	}
	if err := c.eng.RestoreSnapshot(c.ctx, in.Name); err != nil {
		return fmt.Errorf("stage snapshot %s in %s: %w", in.Name, src, err)
	}
	return c.copyTable(src, table)
}

// unstage puts the kept data back into src and forgets it.
func (c *Cluster) unstage(src, keep string) error {
	if err := c.eng.RestoreSnapshot(c.ctx, keep); err != nil {
		return fmt.Errorf("restore %s after a clone: %w", src, err)
	}
	return c.eng.DeleteSnapshot(keep)
}

// copyTable writes every live version of every cell of src into dst, at
// its timestamp.
func (c *Cluster) copyTable(src, dst string) error {
	all := embedded.Read{MaxVersions: math.MaxInt32, MaxTs: math.MaxInt64}
	var werr error
	_, err := c.eng.ScanRows(c.ctx, src, store.Scan{}, all, func(row embedded.Row) bool {
		werr = c.eng.UpdateRow(c.ctx, dst, row.Key, func(embedded.RowReader, int64) ([]embedded.RowMutation, error) {
			return []embedded.RowMutation{rowPuts(row)}, nil
		})
		return werr == nil
	})
	if err = errors.Join(err, werr); err != nil {
		return fmt.Errorf("copy %s into %s: %w", src, dst, err)
	}
	return nil
}

func rowPuts(row embedded.Row) embedded.RowMutation {
	rm := embedded.RowMutation{Puts: make([]embedded.Put, len(row.Cells))}
	for i, cl := range row.Cells {
		rm.Puts[i] = embedded.Put{Family: cl.Family, Qualifier: cl.Qualifier, Value: cl.Value, Timestamp: cl.Timestamp}
	}
	return rm
}

// takeOffline makes the region servers refuse table's regions. It waits
// for the client calls in flight, so none that passed the check before
// can still touch the table.
func (c *Cluster) takeOffline(table string) {
	c.gate.Lock()
	defer c.gate.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.offline[table]++
}

func (c *Cluster) bringOnline(table string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.offline[table]--; c.offline[table] <= 0 {
		delete(c.offline, table)
	}
}

// unavailable reports whether table's regions are not served: it is
// disabled, or offline for a clone.
func (c *Cluster) unavailable(table string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.disabled[table] || c.offline[table] > 0
}

// staging reports whether a snapshot name is a clone's kept data.
func staging(name string) bool { return strings.HasPrefix(name, stagePrefix) }
