package embedded

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"strings"

	"commentbench/store"

	"github.com/cockroachdb/pebble/v2"
)

// validateSpec checks a table spec the way HBase's admin would refuse it,
// and returns its families.
func validateSpec(spec store.TableSpec, opts TableOptions) ([]family, byte, error) {
	switch {
	case spec.Name == "":
		return nil, 0, fmt.Errorf("embedded: create table: %w: empty table name", store.ErrInvalid)
	case strings.ContainsAny(spec.Name, ",\x00"):
		// Region names are "<table>,<start>,<id>..." parsed by the first comma.
		return nil, 0, fmt.Errorf("embedded: create table %q: %w: name must not contain ',' or NUL", spec.Name, store.ErrInvalid)
	}
	fams, def, err := specFamilies(spec, opts)
	if err != nil {
		return nil, 0, err
	}
	for i, k := range spec.SplitKeys {
		if len(k) == 0 {
			return nil, 0, fmt.Errorf("embedded: create table %q: %w: split key %d is empty", spec.Name, store.ErrInvalid, i)
		}
		if i > 0 && bytes.Compare(spec.SplitKeys[i-1], k) >= 0 {
			return nil, 0, fmt.Errorf("embedded: create table %q: %w: split keys not strictly increasing at %d (%q after %q)",
				spec.Name, store.ErrInvalid, i, k, spec.SplitKeys[i-1])
		}
	}
	return fams, def, nil
}

// CreateTable implements store.Store. The table gets a fresh id and one
// region per split range, all with one region id (HBase gives a pre-split
// table's regions one creation time), assigned round-robin over the servers,
// continuing from the previous table.
func (e *Engine) CreateTable(ctx context.Context, spec store.TableSpec) error {
	return e.CreateTableWith(ctx, spec, TableOptions{})
}

// CreateTableWith is CreateTable with the options HBase's table schema
// carries beyond a store.TableSpec.
func (e *Engine) CreateTableWith(ctx context.Context, spec store.TableSpec, opts TableOptions) error {
	fams, def, err := validateSpec(spec, opts)
	if err != nil {
		return err
	}
	if err := e.acquire(); err != nil {
		return err
	}
	defer e.release()
	e.adminMu.Lock()
	defer e.adminMu.Unlock()
	if _, ok := (*e.tables.Load())[spec.Name]; ok {
		return fmt.Errorf("embedded: create table: %w: %q", store.ErrTableExists, spec.Name)
	}
	_, err = e.createLocked(spec.Name, tableRecord{families: fams, def: def, cellTTL: opts.CellTTL}, spec.SplitKeys)
	return err
}

// createLocked creates a table from its record (the id is assigned here)
// and split keys. Callers hold adminMu and have checked the name is free.
func (e *Engine) createLocked(name string, rec tableRecord, splitKeys [][]byte) (*table, error) {
	// Work on copies of the counters so a failed commit leaves them as on disk.
	savedTable, savedRegion, savedRR := e.nextTableID, e.lastRegionID, e.roundRobin
	rec.id = e.nextTableID
	t := newTable(rec, name)
	e.nextTableID++
	id := e.newRegionID(0)
	starts := append([][]byte{{}}, splitKeys...)
	regions := make([]*region, len(starts))
	for i, s := range starts {
		var end []byte
		if i+1 < len(starts) {
			end = bytes.Clone(starts[i+1])
		}
		regions[i] = newRegion(t, bytes.Clone(s), end, id, e.nextServer(), &regionStats{})
	}

	b := e.db.NewBatch()
	defer b.Close()
	_ = b.Set(tableRecordKey(t.name), t.record().encode(), nil)
	for _, r := range regions {
		putRegionRecord(b, r)
	}
	e.setCounters(b)
	if err := b.Commit(pebble.Sync); err != nil {
		e.nextTableID, e.lastRegionID, e.roundRobin = savedTable, savedRegion, savedRR
		return nil, fmt.Errorf("embedded: create table %q: %w", name, err)
	}
	// Routing first: a table is visible (to the splitter, to readers) only
	// once its regions are.
	e.publish(t, regions)
	next := maps.Clone(*e.tables.Load())
	next[t.name] = t
	e.tables.Store(&next)
	return t, nil
}

// DropTable implements store.Store: it removes the table record, its region
// records and its data in one batch. A write racing with the drop may leave
// keys under the dropped table's id; ids are never reused, so they can never
// reappear in a table.
func (e *Engine) DropTable(ctx context.Context, name string) error {
	if err := e.acquire(); err != nil {
		return err
	}
	defer e.release()
	e.adminMu.Lock()
	defer e.adminMu.Unlock()
	t, err := e.table(name)
	if err != nil {
		return err
	}
	b := e.db.NewBatch()
	defer b.Close()
	_ = b.Delete(tableRecordKey(name), nil)
	lo, hi := regionRecordBounds(t.id)
	_ = b.DeleteRange(lo, hi, nil)
	_ = b.DeleteRange(tableStart(t.id), tableEnd(t.id), nil)
	if err := b.Commit(pebble.Sync); err != nil {
		return fmt.Errorf("embedded: drop table %q: %w", name, err)
	}
	next := maps.Clone(*e.tables.Load())
	delete(next, name)
	e.tables.Store(&next)
	// The routing stays as it was for operations still holding t; its
	// regions are retired so scans and the splitter leave them alone.
	for _, r := range t.routing.Load().regions {
		r.retired.Store(true)
	}
	e.regionsChanged()
	return nil
}

// ListTables implements store.Store. SplitKeys are the current region
// boundaries, so recreating from the spec gives today's layout.
func (e *Engine) ListTables(ctx context.Context) ([]store.TableSpec, error) {
	if err := e.acquire(); err != nil {
		return nil, err
	}
	defer e.release()
	var out []store.TableSpec
	for _, t := range e.sortedTables() {
		spec := store.TableSpec{Name: t.name, Family: t.family}
		if len(t.families) > 1 {
			spec.Families = t.schema().Names()
		}
		for _, r := range t.routing.Load().regions[1:] {
			spec.SplitKeys = append(spec.SplitKeys, bytes.Clone(r.info.Start))
		}
		out = append(out, spec)
	}
	return out, nil
}
