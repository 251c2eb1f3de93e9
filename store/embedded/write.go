package embedded

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"slices"
	"sync"

	"commentbench/store"

	"github.com/cockroachdb/pebble/v2"
)

// Write path.
//
// A Mutate call becomes one Pebble batch: every row in it is applied
// atomically (which is more than store.Store promises). Writes use
// pebble.NoSync: they reach the WAL buffer, not the disk, so a crash can
// lose the unsynced tail, like HBase with deferred WAL flush; Close makes
// everything durable.
//
// Row locks (striped by hash of table id and row) serialise writers of one
// row, which is what makes CheckAndPut atomic against plain puts and lets a
// row delete read the row it deletes. Writers never wait for splits: a
// region is a logical range, so a split never moves data.

// checkMutation validates one mutation.
func checkMutation(m store.Mutation) error {
	if len(m.Row) == 0 {
		return fmt.Errorf("embedded: %w: empty row key", store.ErrInvalid)
	}
	if !m.DeleteRow && len(m.Cells) == 0 && len(m.DeleteColumns) == 0 && len(m.Increments) == 0 {
		return fmt.Errorf("embedded: %w: put of row %q has no cells", store.ErrInvalid, m.Row)
	}
	for _, c := range m.Cells {
		if c.Timestamp < 0 {
			return fmt.Errorf("embedded: %w: row %q: negative timestamp %d", store.ErrInvalid, m.Row, c.Timestamp)
		}
	}
	if len(m.Increments) > 0 {
		if err := checkIncrements(m); err != nil {
			return err
		}
	}
	if len(m.DeleteColumns) > 0 {
		return checkDeletes(m)
	}
	return nil
}

// checkIncrements refuses a mutation that puts or deletes a counter it
// increments: which of them is to win, it does not say.
func checkIncrements(m store.Mutation) error {
	for _, inc := range m.Increments {
		if len(inc.Qualifier) == 0 {
			return fmt.Errorf("embedded: %w: row %q: an increment with no qualifier", store.ErrInvalid, m.Row)
		}
		for _, c := range m.Cells {
			if bytes.Equal(c.Qualifier, inc.Qualifier) {
				return fmt.Errorf("embedded: %w: row %q: qualifier %q both put and incremented", store.ErrInvalid, m.Row, c.Qualifier)
			}
		}
		for _, q := range m.DeleteColumns {
			if bytes.Equal(q, inc.Qualifier) {
				return fmt.Errorf("embedded: %w: row %q: qualifier %q both deleted and incremented", store.ErrInvalid, m.Row, q)
			}
		}
	}
	return nil
}

// checkDeletes refuses a mutation that puts a qualifier it deletes: it
// has no order between its puts and deletes to say which wins.
func checkDeletes(m store.Mutation) error {
	del := slices.Clone(m.DeleteColumns)
	slices.SortFunc(del, bytes.Compare)
	for _, c := range m.Cells {
		if _, ok := slices.BinarySearchFunc(del, c.Qualifier, bytes.Compare); ok {
			return fmt.Errorf("embedded: %w: row %q: qualifier %q both put and deleted", store.ErrInvalid, m.Row, c.Qualifier)
		}
	}
	return nil
}

func (e *Engine) stripe(t *table, row []byte) int {
	h := maphash.Bytes(e.seed, row) ^ (t.id * 0x9e3779b97f4a7c15)
	return int(h & (lockStripes - 1))
}

// lockRows locks the stripes of rows in ascending order (so two callers
// never deadlock) and returns them, for unlockRows. idx is scratch.
func (e *Engine) lockRows(t *table, rows [][]byte, idx []int) []int {
	idx = idx[:0]
	for _, r := range rows {
		idx = append(idx, e.stripe(t, r))
	}
	slices.Sort(idx)
	idx = slices.Compact(idx)
	for _, i := range idx {
		e.rowLocks[i].Lock()
	}
	return idx
}

func (e *Engine) unlockRows(idx []int) {
	for _, i := range idx {
		e.rowLocks[i].Unlock()
	}
}

// writeScratch is what one Mutate needs besides the batch, pooled: the
// write path is the harness's hottest, and these were most of its
// allocations.
type writeScratch struct {
	rows    [][]byte
	stripes []int
	acct    []rowWrite
	key     []byte
	sealed  []byte
}

var writeScratchPool = sync.Pool{New: func() any { return new(writeScratch) }}

// rowWrite is what one row's mutation costs, charged after the commit.
type rowWrite struct {
	r       *region
	bytesIn uint64 // logical: row + qualifier + value
	size    int64  // physical: encoded keys + values
}

// Mutate implements store.Store.
func (e *Engine) Mutate(ctx context.Context, tableName string, muts ...store.Mutation) error {
	for _, m := range muts {
		if err := checkMutation(m); err != nil {
			return err
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
	if e.opts.ReadOnly {
		// Refused here, as UpdateRow refuses it: Pebble's refusal would
		// count as a storage failure and fail every read after it.
		return fmt.Errorf("embedded: mutate %q: %w: opened read-only", tableName, store.ErrInvalid)
	}
	if len(muts) == 0 {
		return nil
	}
	ws := writeScratchPool.Get().(*writeScratch)
	defer writeScratchPool.Put(ws)
	ws.rows = ws.rows[:0]
	for _, m := range muts {
		ws.rows = append(ws.rows, m.Row)
	}
	ws.stripes = e.lockRows(t, ws.rows, ws.stripes)
	defer e.unlockRows(ws.stripes)
	clear(ws.rows) // the pool must not keep the caller's rows alive

	now := e.now()
	b := e.db.NewBatch()
	defer b.Close()
	rt := t.routing.Load()
	ws.acct = ws.acct[:0]
	var counted map[string]int64 // counters this call incremented already: the batch is not read back
	for _, m := range muts {
		w := rowWrite{r: rt.find(m.Row)}
		if m.DeleteRow {
			w.bytesIn = uint64(len(m.Row))
			if ws.key, err = e.deleteRow(b, t, m.Row, now, ws.key); err != nil {
				return err
			}
		} else {
			w = e.putCells(b, t, m.Row, m.Cells, now, ws, w)
			if len(m.Increments) > 0 {
				if w, err = e.increment(b, t, m, now, &counted, ws, w); err != nil {
					return err
				}
			}
			if len(m.DeleteColumns) > 0 {
				if w, err = e.deleteColumns(b, t, m.Row, m.DeleteColumns, m.DeleteAt, now, ws, w); err != nil {
					return err
				}
			}
		}
		ws.acct = append(ws.acct, w)
	}
	if err := e.commit(b); err != nil {
		return fmt.Errorf("embedded: mutate %q: %w", tableName, err)
	}
	for i, w := range ws.acct {
		w.r.stats.writeRequests.Add(1)
		w.r.stats.bytesIn.Add(w.bytesIn)
		e.grow(w.r, w.size)
		ws.acct[i] = rowWrite{}
	}
	return nil
}

// cellKV appends to key the Pebble key of cell c of row in t, and returns
// it with the value Pebble keeps (sealed, into sealed, when t's cells carry
// a TTL). A zero timestamp becomes now.
func cellKV(key, sealed []byte, t *table, row []byte, c store.Cell, now int64) (k, v []byte) {
	ts := c.Timestamp
	if ts == 0 {
		ts = now
	}
	v = c.Value
	if t.cellTTL {
		v = sealValue(sealed, v, ts, 0)
	}
	return appendCellKey(key, t.id, row, t.def, c.Qualifier, ts), v
}

// putCells adds a row's cells to b, in the default family; a zero
// timestamp becomes now.
func (e *Engine) putCells(b *pebble.Batch, t *table, row []byte, cells []store.Cell, now int64, ws *writeScratch, w rowWrite) rowWrite {
	for _, c := range cells {
		var v []byte
		ws.key, v = cellKV(ws.key[:0], ws.sealed[:0], t, row, c, now)
		if t.cellTTL {
			ws.sealed = v
		}
		_ = b.Set(ws.key, v, nil) // Set copies; errors only on a closed batch
		w.size += int64(len(ws.key) + len(v))
		w.bytesIn += uint64(len(row) + len(c.Qualifier) + len(c.Value))
	}
	return w
}

// increment adds to b the new values of m's counters: HBase's Increment,
// an 8-byte big-endian long each, absent counting 0, written at now as
// the mutation's puts are. The caller holds the row's lock, so no other
// writer moves a counter between its read and its write.
func (e *Engine) increment(b *pebble.Batch, t *table, m store.Mutation, now int64, counted *map[string]int64, ws *writeScratch, w rowWrite) (rowWrite, error) {
	qs := make([][]byte, len(m.Increments))
	for i, inc := range m.Increments {
		qs[i] = inc.Qualifier
	}
	cur, stamps, err := e.counters(t, m.Row, qs)
	if err != nil {
		return w, fmt.Errorf("embedded: increment row %q of %q: %w", m.Row, t.name, err)
	}
	cells := make([]store.Cell, len(m.Increments))
	for i, inc := range m.Increments {
		key := string(m.Row) + "\x00" + string(inc.Qualifier)
		v, again := (*counted)[key]
		if !again {
			v = cur[i]
			// The value it replaces goes now, where HBase's next flush
			// would drop it (a table keeps one version): a hot counter
			// leaves no trail of versions for every read of it to walk.
			if stamps[i] >= 0 && stamps[i] != now {
				ws.key = appendCellKey(ws.key[:0], t.id, m.Row, t.def, inc.Qualifier, stamps[i])
				_ = b.Delete(ws.key, nil)
			}
		}
		v += inc.Delta
		if *counted == nil {
			*counted = map[string]int64{}
		}
		(*counted)[key] = v
		cells[i] = store.Cell{Qualifier: inc.Qualifier, Value: binary.BigEndian.AppendUint64(nil, uint64(v))}
	}
	return e.putCells(b, t, m.Row, cells, now, ws, w), nil
}

// counters reads the newest values of counters qs of row, 0 for one that
// is not there, and their cells' timestamps (-1 for none). It is the
// write's own read, charged to no region's reads.
func (e *Engine) counters(t *table, row []byte, qs [][]byte) ([]int64, []int64, error) {
	cs := colScratchPool.Get().(*colScratch)
	defer colScratchPool.Put(cs)
	cs.lower = appendRowPrefix(cs.lower[:0], t.id, row)
	cs.upper = appendRowPrefixEnd(cs.upper[:0], t.id, row)
	it, err := e.db.NewIter(&pebble.IterOptions{LowerBound: cs.lower, UpperBound: cs.upper})
	if err != nil {
		return nil, nil, err
	}
	defer it.Close()
	cs.c.it, cs.c.point, cs.c.ro = it, true, e.latestOpts(t)
	defer func() { cs.c.it = nil }()
	if _, err := cs.readRow(t, store.Read{Row: row, Columns: qs}); err != nil {
		return nil, nil, err
	}
	vals, stamps := make([]int64, len(qs)), make([]int64, len(qs))
	for i, q := range qs {
		stamps[i] = -1
		c, ok := cs.rb.cell(q)
		if !ok {
			continue
		}
		v := cs.rb.arena[c.q1:c.v1]
		if len(v) != 8 {
			return nil, nil, fmt.Errorf("column %q holds %d bytes, not a counter's 8", q, len(v))
		}
		vals[i], stamps[i] = int64(binary.BigEndian.Uint64(v)), c.ts
	}
	return vals, stamps, nil
}

// deleteColumns adds to b a DeleteColumn marker at now on each of a row's
// qualifiers in the default family (HBase's Delete.addColumns at the
// mutation's timestamp), beside the row's puts, so that both land in one
// commit. As every delete, it also removes what it hides.
func (e *Engine) deleteColumns(b *pebble.Batch, t *table, row []byte, qs [][]byte, at, now int64, ws *writeScratch, w rowWrite) (rowWrite, error) {
	if at <= 0 {
		at = now
	}
	var err error
	for _, q := range qs {
		m := DeleteMarker{Kind: DeleteColumn, Qualifier: q, Timestamp: at}
		if ws.key, err = e.applyDelete(b, t, row, m, now, nil, ws.key); err != nil {
			return w, fmt.Errorf("embedded: delete column %q of row %q: %w", q, row, err)
		}
		w.size += int64(len(ws.key))
		w.bytesIn += uint64(len(row) + len(q))
	}
	return w, nil
}

// deleteRow adds to b HBase's whole-row delete at ts: a DeleteFamily marker
// on every family, each hiding the family's cells with ts <= the marker's,
// including puts written later with such a timestamp. The caller holds the
// row's lock.
func (e *Engine) deleteRow(b *pebble.Batch, t *table, row []byte, ts int64, scratch []byte) ([]byte, error) {
	var err error
	for f := range t.families {
		if scratch, err = e.deleteFamily(b, t, row, byte(f), ts, scratch); err != nil {
			return scratch, err
		}
	}
	return scratch, nil
}

// deleteFamily adds to b HBase's DeleteFamily on family fam of row at ts.
// What the marker hides (cells, and older markers it subsumes) is also
// deleted physically so reads do not wade through it; entries with a later
// timestamp stay. Entries put earlier in the same batch are not visible
// here, but the marker masks them at read time all the same.
func (e *Engine) deleteFamily(b *pebble.Batch, t *table, row []byte, fam byte, ts int64, scratch []byte) ([]byte, error) {
	prefix := appendFamilyPrefix(nil, t.id, row, fam)
	if err := e.deleteKeys(b, prefix, prefixAfter(prefix), func(v int64) bool { return v <= ts }); err != nil {
		return scratch, fmt.Errorf("embedded: delete row %q: %w", row, err)
	}
	scratch = appendMarkerKey(scratch[:0], t.id, row, fam, ts)
	_ = b.Set(scratch, nil, nil)
	return scratch, nil
}

// prefixAfter is the smallest key above every key starting with p, for a p
// that ends with a fixed-width byte (a family index): bump the last byte,
// carrying into the ones before it.
func prefixAfter(p []byte) []byte {
	end := bytes.Clone(p)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i]++; end[i] != 0 {
			return end
		}
	}
	return nil
}

// CheckAndPut puts cells on row only if the cell at qualifier holds
// expected: CheckAndMutate of a put.
func (e *Engine) CheckAndPut(ctx context.Context, tableName string, row, qualifier, expected []byte, cells ...store.Cell) (bool, error) {
	return e.CheckAndMutate(ctx, tableName, qualifier, expected, store.Put(row, cells...))
}

// CheckAndMutate implements store.Store, on the default family. Expected
// nil (or empty) matches an absent or empty cell, anything else the
// newest value byte for byte (HBASE-WIRE 8.4 with EQUAL). The check costs
// a read request; the change, if made, a write request.
func (e *Engine) CheckAndMutate(ctx context.Context, tableName string, qualifier, expected []byte, m store.Mutation) (bool, error) {
	if err := checkMutation(m); err != nil {
		return false, err
	}
	if m.DeleteRow || len(m.Increments) > 0 {
		return false, fmt.Errorf("embedded: %w: check and mutate of row %q deletes the row or increments", store.ErrInvalid, m.Row)
	}
	applied := false
	err := e.UpdateRow(ctx, tableName, m.Row, func(read RowReader, now int64) ([]RowMutation, error) {
		cur, err := read(Read{Families: []string{""}})
		if err != nil {
			return nil, err
		}
		if !holds(cur.Cells, qualifier, expected) {
			return nil, nil
		}
		if e.testAfterCheck != nil {
			e.testAfterCheck() // lets a test widen the check-to-put window
		}
		applied = true
		rm := RowMutation{Puts: make([]Put, len(m.Cells))}
		for i, c := range m.Cells {
			rm.Puts[i] = Put{Qualifier: c.Qualifier, Value: c.Value, Timestamp: c.Timestamp}
		}
		for _, q := range m.DeleteColumns {
			rm.Deletes = append(rm.Deletes, DeleteMarker{Kind: DeleteColumn, Qualifier: q, Timestamp: m.DeleteAt})
		}
		return []RowMutation{rm}, nil
	})
	if err != nil {
		return false, fmt.Errorf("embedded: check and mutate %q: %w", tableName, err)
	}
	return applied, nil
}

// holds reports whether the cell at qualifier among cells (a row's
// default family, newest versions) matches expected: absent or empty for
// an empty expected, that value byte for byte otherwise.
func holds(cells []Cell, qualifier, expected []byte) bool {
	var current []byte
	present := false
	for _, c := range cells {
		if bytes.Equal(c.Qualifier, qualifier) {
			current, present = c.Value, true
			break
		}
	}
	if len(expected) == 0 {
		return !present || len(current) == 0
	}
	return present && bytes.Equal(current, expected)
}
