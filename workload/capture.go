package workload

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"commentbench/comments"
	"commentbench/store"
)

// capture is the store a bulk load's comment system writes into: it keeps
// every cell the system puts or increments, as the comment writes would
// have made them, for the load to sort and hand to the store whole. The
// system's one read while writing a comment, of the order it just made,
// is answered from what the same comment wrote. Used by one goroutine.
type capture struct {
	tables map[string]*capTable
	seq    uint32 // the comment being written: a later one wins a cell
	recent []recentRow
	// indexLog is the index puts, by table: each key with its comment's.
	indexLog map[string]*capTable
}

// capTable is what a capture kept of one table: the bytes of its cells
// one after another, and a record of each. Neither holds a pointer, so a
// million comments' cells cost the garbage collector nothing to scan.
type capTable struct {
	arena []byte
	recs  []capRec
}

// capRec is one cell put or incremented: its row, qualifier and value at
// off in its arena, and the comment that wrote it.
type capRec struct {
	prefix  [2]uint64 // the row's first 16 bytes, big-endian: most compares end here
	delta   int64
	off     uint32
	valLen  uint32
	seq     uint32
	rowLen  uint16
	qualLen uint16
	arena   uint16 // the capture it came from, once merged with others'
	flags   uint8
}

const (
	recInc   = 1 << iota // an increment by delta, not a put
	recFirst             // the first cell of its row mutation: a write request
)

type recentRow struct {
	table string
	row   store.Row
}

var errCaptureOnly = errors.New("bulk load: the comment system asked the load's capture for more than puts and its own reads")

func newCapture() *capture { return &capture{tables: map[string]*capTable{}} }

// next starts comment seq: what the one before wrote is no longer read.
func (c *capture) next(seq int64) {
	c.seq = uint32(seq)
	clear(c.recent)
	c.recent = c.recent[:0]
}

// logIndexPut is the comment system's OnIndexPut: it keeps the entry's
// key and its comment's (see noteIndexPuts).
func (c *capture) logIndexPut(table string, key, ck []byte) {
	if c.indexLog == nil {
		c.indexLog = map[string]*capTable{}
	}
	l := c.indexLog[table]
	if l == nil {
		l = &capTable{}
		c.indexLog[table] = l
	}
	if len(key) <= 0xffff {
		l.keep(key, nil, ck, 0, c.seq, 0)
	}
}

// Mutate implements store.Store, keeping puts and increments.
func (c *capture) Mutate(_ context.Context, table string, muts ...store.Mutation) error {
	for _, m := range muts {
		if m.DeleteRow || len(m.DeleteColumns) > 0 {
			return fmt.Errorf("%w: a delete of %s row %q", errCaptureOnly, table, m.Row)
		}
		c.recent = append(c.recent, recentRow{table, store.Row{Key: m.Row, Cells: m.Cells}})
		t := c.tables[table]
		if t == nil {
			t = &capTable{}
			c.tables[table] = t
		}
		if err := t.add(m, c.seq); err != nil {
			return err
		}
	}
	return nil
}

// add keeps one mutation's cells.
func (t *capTable) add(m store.Mutation, seq uint32) error {
	if len(m.Row) > 0xffff || len(t.arena) > 1<<31 {
		return fmt.Errorf("%w: row %q or the load too large", errCaptureOnly, m.Row[:min(len(m.Row), 64)])
	}
	flags := uint8(recFirst)
	for _, cl := range m.Cells {
		t.keep(m.Row, cl.Qualifier, cl.Value, 0, seq, flags)
		flags = 0
	}
	for _, inc := range m.Increments {
		t.keep(m.Row, inc.Qualifier, nil, inc.Delta, seq, flags|recInc)
		flags = 0
	}
	return nil
}

func (t *capTable) keep(row, qual, val []byte, delta int64, seq uint32, flags uint8) {
	var p [16]byte
	copy(p[:], row)
	t.recs = append(t.recs, capRec{prefix: [2]uint64{binary.BigEndian.Uint64(p[:8]), binary.BigEndian.Uint64(p[8:])}, delta: delta, off: uint32(len(t.arena)),
		valLen: uint32(len(val)), seq: seq, rowLen: uint16(len(row)), qualLen: uint16(len(qual)), flags: flags})
	t.arena = append(append(append(t.arena, row...), qual...), val...)
}

// Get implements store.Store from the rows the current comment wrote.
func (c *capture) Get(_ context.Context, table string, row []byte) (store.Row, error) {
	for i := len(c.recent) - 1; i >= 0; i-- {
		if r := c.recent[i]; r.table == table && bytes.Equal(r.row.Key, row) {
			return r.row, nil
		}
	}
	return store.Row{Key: row}, nil
}

// BatchGet implements store.Store.
func (c *capture) BatchGet(ctx context.Context, table string, rows [][]byte) ([]store.Row, error) {
	out := make([]store.Row, len(rows))
	for i, k := range rows {
		out[i], _ = c.Get(ctx, table, k)
	}
	return out, nil
}

// Read implements store.Store.
func (c *capture) Read(ctx context.Context, table string, reads []store.Read) ([]store.Row, store.ScanMetrics, error) {
	out := make([]store.Row, len(reads))
	for i, rd := range reads {
		row, _ := c.Get(ctx, table, rd.Row)
		out[i] = store.Select(row, rd)
	}
	return out, store.ScanMetrics{}, nil
}

func (c *capture) CreateTable(context.Context, store.TableSpec) error { return errCaptureOnly }
func (c *capture) DropTable(context.Context, string) error            { return errCaptureOnly }
func (c *capture) ListTables(context.Context) ([]store.TableSpec, error) {
	return nil, errCaptureOnly
}
func (c *capture) CheckAndMutate(context.Context, string, []byte, []byte, store.Mutation) (bool, error) {
	return false, errCaptureOnly
}
func (c *capture) Scan(context.Context, string, store.Scan, func(store.Row) bool) (store.ScanMetrics, error) {
	return store.ScanMetrics{}, errCaptureOnly
}
func (c *capture) Regions(context.Context, string) ([]store.Region, error) {
	return nil, errCaptureOnly
}
func (c *capture) RegionStats(context.Context) ([]store.RegionStat, error) {
	return nil, errCaptureOnly
}
func (c *capture) Close() error { return nil }

// LoadRow is one row of a bulk load: its cells in qualifier order, one
// version each, and the row mutations that made them (write requests).
type LoadRow struct {
	Key    []byte
	Cells  []store.Cell
	Writes int64
}

// merged is one table's cells from every capture.
type merged struct {
	arenas [][]byte
	recs   []capRec
}

func (m *merged) add(t *capTable) {
	i := uint16(len(m.arenas))
	m.arenas = append(m.arenas, t.arena)
	for _, r := range t.recs {
		r.arena = i
		m.recs = append(m.recs, r)
	}
}

func (m *merged) row(r *capRec) []byte {
	return m.arenas[r.arena][r.off : r.off+uint32(r.rowLen) : r.off+uint32(r.rowLen)]
}

func (m *merged) qual(r *capRec) []byte {
	at := r.off + uint32(r.rowLen)
	return m.arenas[r.arena][at : at+uint32(r.qualLen) : at+uint32(r.qualLen)]
}

func (m *merged) val(r *capRec) []byte {
	at := r.off + uint32(r.rowLen) + uint32(r.qualLen)
	return m.arenas[r.arena][at : at+r.valLen : at+r.valLen]
}

// sort orders the cells by row, qualifier, then the order they were
// written in.
func (m *merged) sort() {
	slices.SortFunc(m.recs, func(a, b capRec) int {
		if a.prefix[0] != b.prefix[0] {
			return cmp.Compare(a.prefix[0], b.prefix[0])
		}
		if a.prefix[1] != b.prefix[1] {
			return cmp.Compare(a.prefix[1], b.prefix[1])
		}
		if c := bytes.Compare(m.row(&a), m.row(&b)); c != 0 {
			return c
		}
		if c := bytes.Compare(m.qual(&a), m.qual(&b)); c != 0 {
			return c
		}
		return cmp.Compare(a.seq, b.seq)
	})
}

// rows returns the sorted cells' rows one by one: of a cell written more
// than once the last put, as a row's newest version; a counter the sum
// of its increments, as HBase's Increment keeps it. err is set when a
// cell was both put and incremented, which no comment write does.
func (m *merged) rows(err *error) func() (LoadRow, bool) {
	i := 0
	return func() (LoadRow, bool) {
		if i == len(m.recs) || *err != nil {
			return LoadRow{}, false
		}
		row := LoadRow{Key: m.row(&m.recs[i])}
		for i < len(m.recs) && bytes.Equal(m.row(&m.recs[i]), row.Key) {
			q, j := m.qual(&m.recs[i]), i
			for j < len(m.recs) && bytes.Equal(m.row(&m.recs[j]), row.Key) && bytes.Equal(m.qual(&m.recs[j]), q) {
				if m.recs[j].flags&recFirst != 0 {
					row.Writes++
				}
				j++
			}
			cell, cerr := m.cell(m.recs[i:j])
			if cerr != nil {
				*err = cerr
				return LoadRow{}, false
			}
			row.Cells = append(row.Cells, cell)
			i = j
		}
		return row, true
	}
}

// cell is what one cell's writes leave, in order.
func (m *merged) cell(ws []capRec) (store.Cell, error) {
	last := &ws[len(ws)-1]
	if last.flags&recInc == 0 && ws[0].flags&recInc == 0 {
		return store.Cell{Qualifier: m.qual(last), Value: m.val(last)}, nil
	}
	var sum int64
	for i := range ws {
		if ws[i].flags&recInc == 0 {
			return store.Cell{}, fmt.Errorf("%w: row %q column %q both put and incremented", errCaptureOnly, m.row(last), m.qual(last))
		}
		sum += ws[i].delta
	}
	return store.Cell{Qualifier: m.qual(last), Value: comments.EncodeCount(sum)}, nil
}
