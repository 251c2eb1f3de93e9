package embedded

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sync"

	"commentbench/store"

	"github.com/cockroachdb/pebble/v2"
)

// Column reads.
//
// A store.Read of named columns or of a slice of a row reads what it
// selects and little else: it seeks to each column, or to the slice's
// start, and walks on from there, so a page of a row of a million columns
// costs the page. Of the markers that may hide what it reads, it reads the
// family's own (DeleteFamily, DeleteFamilyVersion) whole: they hide by
// timestamp, and there are as many as the row's deletes. Column markers
// are as many as the columns ever deleted, so it reads them a window at a
// time, around the columns it reads. A scan with Scan.Batch reads its rows
// the same way, a chunk at a time.

// markWindow is the most qualifiers whose column markers a cursor holds
// at once: a page of a row rarely needs a second window, and a row with a
// million deleted columns costs a page a window, not the row.
const markWindow = 64

// colCursor reads one family of one row in qualifier order: the newest
// visible cell of each column, as rowBuf.read keeps them for a
// store.Store read (one version, no family but one).
type colCursor struct {
	it *pebble.Iterator
	// point seeks with SeekPrefixGE, whose row bloom filters skip the
	// files without the row: a Read's iterator serves point reads, a
	// scan's walks on across rows.
	point bool
	ro    readOpts
	fam   []byte // the family's key prefix: the row's, then the family byte
	key   []byte // a seek key

	famMark int64   // the newest DeleteFamily's ts, -1 if none
	marks   markers // the DeleteFamilyVersions, and the window's column markers
	hasCols bool    // the family has column markers
	// The window: once loaded, marks holds every column marker of the
	// escaped qualifiers in [lo, hi) (lo empty: from the first; hi empty:
	// to the last).
	loaded   bool
	lo, hi   []byte
	markStop []byte // escaped end of all the read will ask for; nil: the family's end

	stop    []byte // escaped end of the range being read; nil: the family's end
	q       []byte // escaped qualifier of the column at the iterator
	inCol   bool   // q is set
	taken   bool   // q's newest visible cell is read: skip its older versions
	col     int    // q's markers in marks, -1: none
	nextCol int    // where to look for the next column's markers
	valid   bool   // the iterator is on a key
	atCells bool   // the iterator is on the family's first cell, or past a family without one
}

func (c *colCursor) seek(k []byte) bool {
	if c.point {
		return c.it.SeekPrefixGE(k)
	}
	return c.it.SeekGE(k)
}

// iterErr is the iterator's error once it is off its keys.
func (c *colCursor) iterErr() error {
	if c.valid {
		return nil
	}
	return c.it.Error()
}

// open starts on family fam of a row (its key prefix), reading the
// family's DeleteFamily and DeleteFamilyVersion markers, and leaves the
// iterator on the family's first cell. onRow says the iterator is on the
// row's first key, where a scan's walk left it.
func (c *colCursor) open(fam []byte, onRow bool) error {
	c.fam = fam
	c.famMark, c.hasCols, c.loaded = -1, false, false
	c.marks.reset()
	c.key = append(append(c.key[:0], fam...), kindDeleteFamily)
	if onRow && bytes.Compare(c.it.Key(), c.key) >= 0 {
		c.valid = true // the row's first key is the first at or after its family's
	} else {
		c.valid = c.seek(c.key)
	}
	for c.valid {
		k := c.it.Key()
		if len(k) <= len(fam) || !bytes.HasPrefix(k, fam) || k[len(fam)] != kindDeleteFamily {
			break
		}
		en, err := parseEntry(k[len(fam)-1:])
		if err != nil {
			return err
		}
		switch en.kind {
		case entryFamilyVersion:
			c.marks.famVers = append(c.marks.famVers, en.ts)
		case kindDeleteFamily:
			c.famMark = max(c.famMark, en.ts)
		default:
			// The first column marker: loadMarks reads them. Skip them to
			// the DeleteFamily markers, whose ^ts starts at 0x80 or above.
			c.hasCols = true
			c.key = append(append(c.key[:0], fam...), kindDeleteFamily, 0x80)
			c.valid = c.seek(c.key)
			continue
		}
		c.valid = c.it.Next()
	}
	c.atCells = true
	return c.iterErr()
}

// seekRange goes to the columns from escaped qualifier start (nil: the
// first) up to stop (nil: the family's end), with the column markers that
// may hide them.
func (c *colCursor) seekRange(start, stop []byte) error {
	c.stop, c.inCol = stop, false
	if c.hasCols && !c.covers(start) {
		if err := c.loadMarks(start); err != nil {
			return err
		}
	}
	if start == nil && c.atCells {
		return nil
	}
	c.atCells = false
	c.key = append(append(append(c.key[:0], c.fam...), kindPut), start...)
	c.valid = c.seek(c.key)
	return c.iterErr()
}

// covers reports whether the window holds the column markers of escaped
// qualifier q (nil: the first).
func (c *colCursor) covers(q []byte) bool {
	return c.loaded && bytes.Compare(q, c.lo) >= 0 && (len(c.hi) == 0 || bytes.Compare(q, c.hi) < 0)
}

// loadMarks reads the column markers from escaped qualifier at (nil: the
// first) on, up to markWindow qualifiers' worth or markStop.
func (c *colCursor) loadMarks(at []byte) error {
	c.atCells, c.loaded = false, true
	c.marks.resetColumns()
	c.lo, c.hi = append(c.lo[:0], at...), c.hi[:0]
	c.col, c.nextCol = -1, 0
	c.key = append(append(c.key[:0], c.fam...), kindDeleteFamily, subColumn)
	n := len(c.key)
	c.key = append(c.key, at...)
	for c.valid = c.seek(c.key); c.valid; c.valid = c.it.Next() {
		k := c.it.Key()
		if !bytes.HasPrefix(k, c.key[:n]) {
			break
		}
		en, err := parseEntry(k[len(c.fam)-1:])
		if err != nil {
			return err
		}
		if c.markStop != nil && bytes.Compare(en.qualifier, c.markStop) >= 0 {
			c.hi = append(c.hi, c.markStop...)
			break
		}
		if len(c.marks.cols) == markWindow && !bytes.Equal(c.marks.last(), en.qualifier) {
			c.hi = append(c.hi, en.qualifier...)
			break
		}
		c.marks.add(en)
	}
	return c.iterErr()
}

// fill appends to rb the newest visible cell of each column from the
// cursor on, to the range's stop: past the first skip of them, until rb
// holds limit cells (0: no limit). It returns the visible cells it passed
// (skipped and appended) and whether it stopped at the limit, where more
// may follow. rb's cells passing ro.maxRowSize fail it with
// store.ErrRowTooBig.
func (c *colCursor) fill(rb *rowBuf, skip, limit int) (passed int, more bool, err error) {
	for c.valid {
		k := c.it.Key()
		if !bytes.HasPrefix(k, c.fam) {
			break
		}
		en, err := parseEntry(k[len(c.fam)-1:])
		if err != nil {
			return passed, false, err
		}
		if !c.inCol || !bytes.Equal(en.qualifier, c.q) {
			if c.stop != nil && bytes.Compare(en.qualifier, c.stop) >= 0 {
				break
			}
			if c.hasCols && !c.covers(en.qualifier) {
				if err := c.reload(en.qualifier); err != nil {
					return passed, false, err
				}
				continue
			}
			c.q = append(c.q[:0], en.qualifier...)
			c.inCol, c.taken, c.col = true, false, -1
			if c.hasCols {
				c.col, c.nextCol = c.marks.column(en.qualifier, c.nextCol)
			}
		}
		if c.taken {
			c.valid = c.it.Next()
			continue
		}
		v, ok, err := c.visible(en)
		if err != nil {
			return passed, false, err
		}
		if ok {
			c.taken = true
			if passed++; passed > skip {
				if err := c.add(rb, en, v); err != nil { // before Next: en and v are the iterator's
					return passed, false, err
				}
			}
		}
		c.valid = c.it.Next()
		if ok && limit > 0 && len(rb.cells) >= limit {
			return passed, true, c.iterErr()
		}
	}
	return passed, false, c.iterErr()
}

// reload loads the window of column markers at escaped qualifier q and
// goes back to q's first cell.
func (c *colCursor) reload(q []byte) error {
	q = append(c.q[:0], q...) // q aliases the iterator's key, which the seeks move
	c.q, c.inCol = q, false
	if err := c.loadMarks(q); err != nil {
		return err
	}
	c.key = append(append(append(c.key[:0], c.fam...), kindPut), q...)
	c.valid = c.seek(c.key)
	return c.iterErr()
}

// visible returns cell en's value if the read sees it: as rowBuf.read
// decides, with the markers read so far.
func (c *colCursor) visible(en entry) ([]byte, bool, error) {
	if en.ts <= c.famMark || en.ts < c.ro.minTs || en.ts >= c.ro.maxTs {
		return nil, false, nil
	}
	if (c.col >= 0 || len(c.marks.famVers) > 0) && c.marks.hides(c.col, en.ts) {
		return nil, false, nil
	}
	v, err := c.it.ValueAndErr()
	if err != nil || !c.ro.ttl {
		return v, err == nil, err
	}
	return openValue(v, c.ro.now)
}

// add appends cell en with value v to rb.
func (c *colCursor) add(rb *rowBuf, en entry, v []byte) error {
	q0 := len(rb.arena)
	rb.arena = unescape(rb.arena, en.qualifier)
	q1 := len(rb.arena)
	rb.arena = append(rb.arena, v...)
	rb.cells = append(rb.cells, cellRef{q0: q0, q1: q1, v1: len(rb.arena), ts: en.ts, fam: en.family})
	if c.ro.maxRowSize > 0 && rb.cellSize(c.ro.famLen) > c.ro.maxRowSize {
		return store.ErrRowTooBig
	}
	return nil
}

// cellSize is what rb's cells weigh against the max row size: each
// store.CellSize, famLen the length of their family's name.
func (rb *rowBuf) cellSize(famLen int) int64 {
	return int64(len(rb.cells))*store.CellSize(len(rb.row), famLen, 0, 0) + int64(len(rb.arena))
}

// chunk reads the next chunk of at most batch cells of the row into rb,
// and reports the cells passed and whether more may follow.
func (c *colCursor) chunk(rb *rowBuf, batch int) (int, bool, error) {
	rb.arena, rb.cells = rb.arena[:0], rb.cells[:0]
	return c.fill(rb, 0, batch)
}

// firstChunk starts on family fam of a row (see open) and reads its
// first chunk.
func (c *colCursor) firstChunk(rb *rowBuf, fam []byte, onRow bool, batch int) (int, bool, error) {
	c.markStop = nil
	if err := c.open(fam, onRow); err != nil {
		return 0, false, err
	}
	if err := c.seekRange(nil, nil); err != nil {
		return 0, false, err
	}
	return c.chunk(rb, batch)
}

// nextRow moves a scan's iterator from the row with key prefix prefix to
// the next row in the scan's direction, and reports whether there is one.
func (c *colCursor) nextRow(prefix []byte, rev bool) bool {
	if rev {
		return c.it.SeekLT(prefix)
	}
	if !c.valid || !bytes.HasPrefix(c.it.Key(), prefix) {
		return c.valid // the walk left the row: on the next one's first key
	}
	c.key = append(c.key[:0], prefix...)
	c.key[len(c.key)-1]++ // as rowPrefixEnd
	return c.it.SeekGE(c.key)
}

// resetColumns forgets the column markers, keeping the family's.
func (m *markers) resetColumns() {
	m.cols, m.colVers, m.quals = m.cols[:0], m.colVers[:0], m.quals[:0]
}

// last is the escaped qualifier of the last column with markers.
func (m *markers) last() []byte {
	c := m.cols[len(m.cols)-1]
	return m.quals[c.q0:c.q1]
}

// checkRead validates one store.Read.
func checkRead(rd store.Read) error {
	if err := checkRowKey(rd.Row); err != nil {
		return err
	}
	switch sl := rd.Slice; {
	case sl != nil && rd.Columns != nil:
		return fmt.Errorf("embedded: %w: read of row %q names columns and a slice", store.ErrInvalid, rd.Row)
	case sl != nil && (sl.Offset < 0 || sl.Limit < 0):
		return fmt.Errorf("embedded: %w: read of row %q: slice offset %d, limit %d", store.ErrInvalid, rd.Row, sl.Offset, sl.Limit)
	}
	return nil
}

// Read implements store.Store. Each read costs its row's region a read
// request, and a scanned row and its bytes when it selected cells (as
// Get); the metrics count the rows with cells selected and the visible
// cells the reads passed over (skipped by an offset, or returned). All
// reads see one snapshot (one Pebble iterator).
func (e *Engine) Read(ctx context.Context, tableName string, reads []store.Read) ([]store.Row, store.ScanMetrics, error) {
	for _, rd := range reads {
		if err := checkRead(rd); err != nil {
			return nil, store.ScanMetrics{}, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, store.ScanMetrics{}, err
	}
	t, err := e.enter(tableName)
	if err != nil {
		return nil, store.ScanMetrics{}, err
	}
	defer e.release()
	out := make([]store.Row, len(reads))
	m, err := e.read(ctx, t, reads, out)
	if err != nil {
		return nil, m, err
	}
	return out, m, nil
}

// colScratch is a Read's buffers, pooled.
type colScratch struct {
	c                     colCursor
	rb                    rowBuf
	lower, upper, fam     []byte
	start, stop, markStop []byte // escaped
	cols                  [][]byte
}

var colScratchPool = sync.Pool{New: func() any { return new(colScratch) }}

// read reads reads into out with one iterator.
func (e *Engine) read(ctx context.Context, t *table, reads []store.Read, out []store.Row) (m store.ScanMetrics, err error) {
	cs := colScratchPool.Get().(*colScratch)
	defer colScratchPool.Put(cs)
	if len(reads) == 1 { // bound the iterator to the row, as batchGet
		cs.lower = appendRowPrefix(cs.lower[:0], t.id, reads[0].Row)
		cs.upper = appendRowPrefixEnd(cs.upper[:0], t.id, reads[0].Row)
	} else {
		cs.lower = appendTableStart(cs.lower[:0], t.id)
		cs.upper = appendTableStart(cs.upper[:0], t.id+1)
	}
	it, err := e.db.NewIter(&pebble.IterOptions{LowerBound: cs.lower, UpperBound: cs.upper})
	if err != nil {
		return m, err
	}
	defer it.Close()
	cs.c.it, cs.c.point, cs.c.ro = it, true, e.latestOpts(t)
	defer func() { cs.c.it = nil }() // the pool must not keep the iterator
	rt := t.routing.Load()
	rb := &cs.rb
	for i, rd := range reads {
		if err := ctx.Err(); err != nil {
			return m, err
		}
		r := rt.find(rd.Row)
		r.stats.readRequests.Add(1)
		n, err := cs.readRow(t, rd)
		if err != nil {
			return m, readErr("read", t, rd.Row, cs.c.ro, err)
		}
		m.CellsScanned += int64(n)
		if !rb.found() {
			out[i] = store.Row{Key: bytes.Clone(rd.Row)}
			continue
		}
		out[i] = rb.materialize()
		m.RowsScanned++
		r.stats.rowsScanned.Add(1)
		r.stats.bytesOut.Add(rb.bytesOut())
	}
	return m, nil
}

// readRow reads into cs.rb what rd selects of its row in t's default
// family, and returns the visible cells it passed.
func (cs *colScratch) readRow(t *table, rd store.Read) (int, error) {
	rb, c := &cs.rb, &cs.c
	rb.row = append(rb.row[:0], rd.Row...)
	rb.arena, rb.cells = rb.arena[:0], rb.cells[:0]
	cs.fam = appendFamilyPrefix(cs.fam[:0], t.id, rd.Row, t.def)
	switch {
	case rd.Columns != nil:
		return cs.readColumns(rd.Columns)
	case rd.Slice != nil:
		return cs.readSlice(rd.Slice)
	}
	c.markStop = nil
	if err := c.open(cs.fam, false); err != nil {
		return 0, err
	}
	if err := c.seekRange(nil, nil); err != nil {
		return 0, err
	}
	n, _, err := c.fill(rb, 0, 0)
	return n, err
}

// readSlice reads a slice of the row: a seek to its start, a walk to its
// end or limit.
func (cs *colScratch) readSlice(sl *store.Slice) (int, error) {
	if sl.Stop != nil && bytes.Compare(sl.Start, sl.Stop) >= 0 {
		return 0, nil // an empty range
	}
	var start, stop []byte
	if len(sl.Start) > 0 { // the empty qualifier is the first there can be
		cs.start = appendEscaped(cs.start[:0], sl.Start)
		start = cs.start
	}
	if sl.Stop != nil {
		cs.stop = appendEscaped(cs.stop[:0], sl.Stop)
		stop = cs.stop
	}
	c := &cs.c
	c.markStop = stop
	if err := c.open(cs.fam, false); err != nil {
		return 0, err
	}
	if err := c.seekRange(start, stop); err != nil {
		return 0, err
	}
	n, _, err := c.fill(&cs.rb, sl.Offset, sl.Limit)
	return n, err
}

// readColumns reads the named columns, in qualifier order, each once: a
// seek to each.
func (cs *colScratch) readColumns(cols [][]byte) (int, error) {
	cs.cols = append(cs.cols[:0], cols...)
	defer clear(cs.cols) // the pool must not keep the caller's bytes
	slices.SortFunc(cs.cols, bytes.Compare)
	cs.cols = slices.CompactFunc(cs.cols, bytes.Equal)
	if len(cs.cols) == 0 {
		return 0, nil
	}
	c := &cs.c
	cs.markStop = appendColumnEnd(cs.markStop[:0], cs.cols[len(cs.cols)-1])
	c.markStop = cs.markStop
	if err := c.open(cs.fam, false); err != nil {
		return 0, err
	}
	passed := 0
	for _, q := range cs.cols {
		cs.start = appendEscaped(cs.start[:0], q)
		cs.stop = appendColumnEnd(cs.stop[:0], q)
		if err := c.seekRange(cs.start, cs.stop); err != nil {
			return passed, err
		}
		n, _, err := c.fill(&cs.rb, 0, 0)
		if passed += n; err != nil {
			return passed, err
		}
	}
	return passed, nil
}

// appendColumnEnd appends the escaped qualifier right after q (q and a
// zero byte): the exclusive end of column q alone.
func appendColumnEnd(dst, q []byte) []byte {
	dst = appendEscaped(dst, q)
	return append(dst[:len(dst)-termSize], escByte, escZero, escByte, escTerm)
}
