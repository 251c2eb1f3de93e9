package embedded

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sort"

	"commentbench/store"

	"github.com/cockroachdb/pebble/v2"
)

// Snapshots, as HBase's admin takes them: a named, frozen copy of one
// table's data and schema that can be listed, deleted, and restored into
// the table later. A snapshot's data is a copy of the table's keys under
// an id of its own (taken from the table id counter, so no table ever has
// it), and its record lives under spaceSnap. The data is written before the
// record, so a crash in between leaves only keys no record points to.

var (
	// ErrSnapshotExists is wrapped when a snapshot name is taken.
	ErrSnapshotExists = errors.New("snapshot already exists")
	// ErrNoSnapshot is wrapped when no snapshot has the name.
	ErrNoSnapshot = errors.New("no such snapshot")
)

// SnapshotInfo describes a snapshot.
type SnapshotInfo struct {
	Name    string
	Table   string
	Created int64 // engine clock, ms
	Schema  Schema
	// SplitKeys are the table's region boundaries when it was taken.
	SplitKeys [][]byte
}

// snapshotRecord is a snapshot record's value.
type snapshotRecord struct {
	dataID    uint64
	table     string
	created   int64
	tab       tableRecord // the table's record then (its id unused)
	splitKeys [][]byte
}

func snapshotKey(name string) []byte { return append([]byte{spaceSnap}, name...) }

func (r snapshotRecord) encode() []byte {
	b := binary.AppendUvarint(nil, r.dataID)
	b = appendField(b, []byte(r.table))
	b = binary.AppendUvarint(b, uint64(max(r.created, 0)))
	b = appendField(b, r.tab.encode())
	b = binary.AppendUvarint(b, uint64(len(r.splitKeys)))
	for _, k := range r.splitKeys {
		b = appendField(b, k)
	}
	return b
}

func decodeSnapshotRecord(b []byte) (snapshotRecord, error) {
	var r snapshotRecord
	d := decoder{b: b}
	r.dataID = d.uvarint()
	r.table = string(d.field())
	r.created = int64(d.uvarint())
	tab := d.field()
	n := d.uvarint()
	for i := uint64(0); i < n && d.err == nil; i++ {
		r.splitKeys = append(r.splitKeys, bytes.Clone(d.field()))
	}
	if d.err != nil {
		return r, d.err
	}
	var err error
	r.tab, err = decodeTableRecord(tab)
	return r, err
}

func (r snapshotRecord) info(name string) SnapshotInfo {
	t := newTable(r.tab, r.table)
	return SnapshotInfo{Name: name, Table: r.table, Created: r.created, Schema: t.schema(), SplitKeys: r.splitKeys}
}

// Snapshot copies table's data and schema into a new snapshot. The copy is
// one consistent view of the table (one Pebble iterator); writes made
// while it is taken may or may not be in it.
func (e *Engine) Snapshot(ctx context.Context, tableName, name string) error {
	if name == "" {
		return fmt.Errorf("embedded: snapshot: %w: empty name", store.ErrInvalid)
	}
	t, err := e.enter(tableName)
	if err != nil {
		return err
	}
	defer e.release()
	e.adminMu.Lock()
	defer e.adminMu.Unlock()
	if _, err := e.snapshotRecord(name); err == nil {
		return fmt.Errorf("embedded: snapshot %q: %w", name, ErrSnapshotExists)
	} else if !errors.Is(err, ErrNoSnapshot) {
		return err
	}
	rec := snapshotRecord{dataID: e.nextTableID, table: tableName, created: e.now(), tab: t.record()}
	for _, r := range t.routing.Load().regions[1:] {
		rec.splitKeys = append(rec.splitKeys, bytes.Clone(r.info.Start))
	}
	if err := e.copyData(ctx, t.id, rec.dataID); err != nil {
		return fmt.Errorf("embedded: snapshot %q of %q: %w", name, tableName, err)
	}
	e.nextTableID++
	b := e.db.NewBatch()
	defer b.Close()
	_ = b.Set(snapshotKey(name), rec.encode(), nil)
	e.setCounters(b)
	if err := b.Commit(pebble.Sync); err != nil {
		e.nextTableID--
		return fmt.Errorf("embedded: snapshot %q of %q: %w", name, tableName, err)
	}
	return nil
}

// copyData copies every data key of table id from into table id to, in
// batches, then syncs.
func (e *Engine) copyData(ctx context.Context, from, to uint64) error {
	it, err := e.db.NewIter(&pebble.IterOptions{LowerBound: tableStart(from), UpperBound: tableEnd(from)})
	if err != nil {
		return err
	}
	defer it.Close()
	b := e.db.NewBatch()
	defer func() { b.Close() }()
	var key []byte
	for ok := it.First(); ok; ok = it.Next() {
		v, err := it.ValueAndErr()
		if err != nil {
			return err
		}
		key = append(tableStart(to), it.Key()[tablePrefixLen:]...)
		_ = b.Set(key, v, nil)
		if b.Len() >= 4<<20 {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := b.Commit(pebble.NoSync); err != nil {
				return err
			}
			b.Close()
			b = e.db.NewBatch()
		}
	}
	if err := it.Error(); err != nil {
		return err
	}
	return b.Commit(pebble.Sync)
}

func (e *Engine) snapshotRecord(name string) (snapshotRecord, error) {
	v, closer, err := e.db.Get(snapshotKey(name))
	if errors.Is(err, pebble.ErrNotFound) {
		return snapshotRecord{}, fmt.Errorf("embedded: snapshot %q: %w", name, ErrNoSnapshot)
	}
	if err != nil {
		return snapshotRecord{}, err
	}
	defer closer.Close()
	rec, err := decodeSnapshotRecord(v)
	if err != nil {
		return rec, fmt.Errorf("embedded: snapshot %q: %w", name, err)
	}
	return rec, nil
}

// Snapshots lists the snapshots by name.
func (e *Engine) Snapshots() ([]SnapshotInfo, error) {
	if err := e.acquire(); err != nil {
		return nil, err
	}
	defer e.release()
	it, err := e.db.NewIter(&pebble.IterOptions{LowerBound: []byte{spaceSnap}, UpperBound: []byte{spaceSnap + 1}})
	if err != nil {
		return nil, err
	}
	defer it.Close()
	var out []SnapshotInfo
	for ok := it.First(); ok; ok = it.Next() {
		name := string(it.Key()[1:])
		rec, err := decodeSnapshotRecord(it.Value())
		if err != nil {
			return nil, fmt.Errorf("embedded: snapshot %q: %w", name, err)
		}
		out = append(out, rec.info(name))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, it.Error()
}

// DeleteSnapshot removes a snapshot and its data.
func (e *Engine) DeleteSnapshot(name string) error {
	if err := e.acquire(); err != nil {
		return err
	}
	defer e.release()
	e.adminMu.Lock()
	defer e.adminMu.Unlock()
	rec, err := e.snapshotRecord(name)
	if err != nil {
		return err
	}
	b := e.db.NewBatch()
	defer b.Close()
	_ = b.Delete(snapshotKey(name), nil)
	_ = b.DeleteRange(tableStart(rec.dataID), tableEnd(rec.dataID), nil)
	if err := b.Commit(pebble.Sync); err != nil {
		return fmt.Errorf("embedded: delete snapshot %q: %w", name, err)
	}
	return nil
}

// RestoreSnapshot puts a snapshot's data back into its table: the table's
// data becomes exactly the snapshot's. A table that no longer exists is
// created again with the snapshot's schema and split keys (HBase's clone);
// an existing one keeps its regions, and must still have the snapshot's
// families (the keys name families by index). Writes to the table while
// it restores are not excluded here: HBase requires the table disabled,
// and so does the caller.
func (e *Engine) RestoreSnapshot(ctx context.Context, name string) error {
	if err := e.acquire(); err != nil {
		return err
	}
	defer e.release()
	e.adminMu.Lock()
	defer e.adminMu.Unlock()
	rec, err := e.snapshotRecord(name)
	if err != nil {
		return err
	}
	t, ok := (*e.tables.Load())[rec.table]
	if !ok {
		if t, err = e.createLocked(rec.table, rec.tab, rec.splitKeys); err != nil {
			return fmt.Errorf("embedded: restore snapshot %q: %w", name, err)
		}
	} else {
		if !slices.Equal(t.families, rec.tab.families) || t.cellTTL != rec.tab.cellTTL {
			return fmt.Errorf("embedded: restore snapshot %q: %w: table %q's families changed since it was taken", name, store.ErrInvalid, rec.table)
		}
		b := e.db.NewBatch()
		_ = b.DeleteRange(tableStart(t.id), tableEnd(t.id), nil)
		err := b.Commit(pebble.Sync)
		b.Close()
		if err != nil {
			return fmt.Errorf("embedded: restore snapshot %q: %w", name, err)
		}
	}
	if err := e.copyData(ctx, rec.dataID, t.id); err != nil {
		return fmt.Errorf("embedded: restore snapshot %q into %q: %w", name, rec.table, err)
	}
	// Sizes drive the split policy: measure the regions again.
	for _, r := range t.routing.Load().regions {
		lo, hi := regionDataBounds(t.id, r.info.Start, r.info.End)
		if n, err := e.sumBytes(lo, hi); err == nil {
			r.stats.size.Store(n)
		}
	}
	return nil
}
