package embedded

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"commentbench/store"

	"github.com/cockroachdb/pebble/v2"
)

// Read path.
//
// Every read walks Pebble keys in a row's order: a family's delete markers,
// then for each qualifier its versions newest first (see keys.go). A version
// is visible when it is newer than the newest DeleteFamily marker, matches
// no other marker of its family or column and lies inside the read's time
// range; readOpts keep the version count and time range as parameters
// because the HBase test server will pass them through, while the
// store.Store methods read the newest version only.

// readOpts select what a read returns: versions as an HBase Get/Scan's
// max_versions and time_range [minTs, maxTs) do, of the families in fams
// (nil: all), each capped by caps (the families' VERSIONS; nil: none). On
// a CellTTL table (ttl) values carry a header and cells expired at now are
// not there. A read whose cells of one row weigh more than maxRowSize
// (when > 0; store.CellSize each, famLen the length of their family's
// name) fails with store.ErrRowTooBig as soon as they do. A scan's
// weighing starts again every callSize of cells (when > 0), as HBase's
// does: its server weighs the cells of one call, and ends a call at the
// result size limit, mid-row if need be, so a row is too big for a scan
// only past a limit below a call's size.
type readOpts struct {
	maxVersions  int
	minTs, maxTs int64
	fams         *famSet
	caps         []int
	ttl          bool
	now          int64
	maxRowSize   int64
	famLen       int
	callSize     int64
}

// versionsOf is the versions per column a read keeps of family f.
func (ro *readOpts) versionsOf(f byte) int {
	if ro.caps != nil && ro.caps[f] > 0 {
		return min(ro.maxVersions, ro.caps[f])
	}
	return ro.maxVersions
}

// cellRef locates a cell's qualifier and value in a rowBuf's arena.
type cellRef struct {
	q0, q1, v1 int // qualifier arena[q0:q1], value arena[q1:v1]
	ts         int64
	fam        byte
}

// rowBuf holds one row read from an iterator. Its buffers are reused from
// row to row, so a scan allocates only for the rows it hands out.
type rowBuf struct {
	prefix   []byte // the row's encoded key prefix
	row      []byte // the raw row key
	arena    []byte
	cells    []cellRef
	prevQual []byte
	marks    markers
}

// markers are the delete markers of the family being read, other than
// DeleteFamily: they all sort before the family's cells.
type markers struct {
	famVers []int64   // DeleteFamilyVersion timestamps
	cols    []colMark // by qualifier, ascending
	colVers []int64   // Delete timestamps, colMark.v0:v1 per column
	quals   []byte    // escaped qualifiers, colMark.q0:q1
}

// colMark sums up the markers of one qualifier.
type colMark struct {
	q0, q1 int
	all    int64 // newest DeleteColumn ts, -1 if none
	v0, v1 int
}

func (m *markers) reset() {
	m.famVers, m.cols, m.colVers, m.quals = m.famVers[:0], m.cols[:0], m.colVers[:0], m.quals[:0]
}

// add records a column marker (entries arrive in key order, so a
// qualifier's markers are contiguous).
func (m *markers) add(en entry) {
	n := len(m.cols)
	if n == 0 || !bytes.Equal(m.quals[m.cols[n-1].q0:m.cols[n-1].q1], en.qualifier) {
		q0 := len(m.quals)
		m.quals = append(m.quals, en.qualifier...)
		m.cols = append(m.cols, colMark{q0: q0, q1: len(m.quals), all: -1, v0: len(m.colVers), v1: len(m.colVers)})
		n++
	}
	c := &m.cols[n-1]
	if en.kind == entryDeleteColumn {
		c.all = max(c.all, en.ts)
	} else {
		m.colVers = append(m.colVers, en.ts)
		c.v1 = len(m.colVers)
	}
}

// column returns the index of the markers of escaped qualifier q, searching
// from from (qualifiers are read in ascending order), and the index to
// search from next; -1 if q has none.
func (m *markers) column(q []byte, from int) (idx, next int) {
	for from < len(m.cols) {
		c := bytes.Compare(m.quals[m.cols[from].q0:m.cols[from].q1], q)
		if c == 0 {
			return from, from
		}
		if c > 0 {
			break
		}
		from++
	}
	return -1, from
}

// hides reports whether the markers hide a cell at ts of the column with
// markers col (-1: none).
func (m *markers) hides(col int, ts int64) bool {
	if slices.Contains(m.famVers, ts) {
		return true
	}
	if col < 0 {
		return false
	}
	c := m.cols[col]
	return ts <= c.all || slices.Contains(m.colVers[c.v0:c.v1], ts)
}

// read consumes the row at the iterator's position (which must be valid and
// on the row's first key) and leaves the iterator on the next row's first
// key, or invalid.
func (rb *rowBuf) read(it *pebble.Iterator, ro readOpts) error {
	k := it.Key()
	pl, err := rowPrefixLen(k)
	if err != nil {
		rb.row = rb.row[:0] // the error is no other row's
		return err
	}
	rb.prefix = append(rb.prefix[:0], k[:pl]...)
	rb.row = unescape(rb.row[:0], k[tablePrefixLen:pl])
	rb.arena, rb.cells = rb.arena[:0], rb.cells[:0]
	rb.marks.reset()

	family, marker := -1, int64(-1)
	havePrev, versions, keep := false, 0, 0
	size := int64(0)
	col, nextCol := -1, 0
	valid := true
	for ; valid; valid = it.Next() {
		k = it.Key()
		if !bytes.HasPrefix(k, rb.prefix) {
			break
		}
		en, err := parseEntry(k[pl:])
		if err != nil {
			return err
		}
		if ro.fams != nil && !ro.fams.has(en.family) {
			continue
		}
		if int(en.family) != family {
			family, marker, havePrev = int(en.family), -1, false
			keep = ro.versionsOf(en.family)
			rb.marks.reset()
			col, nextCol = -1, 0
		}
		if en.kind != kindPut {
			switch en.kind {
			case kindDeleteFamily:
				marker = max(marker, en.ts)
			case entryFamilyVersion:
				rb.marks.famVers = append(rb.marks.famVers, en.ts)
			default: // entryDeleteColumn, entryDeleteVersion
				rb.marks.add(en)
			}
			continue
		}
		if !havePrev || !bytes.Equal(en.qualifier, rb.prevQual) {
			rb.prevQual = append(rb.prevQual[:0], en.qualifier...)
			havePrev, versions = true, 0
			if len(rb.marks.cols) > 0 {
				col, nextCol = rb.marks.column(en.qualifier, nextCol)
			}
		}
		if en.ts <= marker || en.ts < ro.minTs || en.ts >= ro.maxTs || versions >= keep {
			continue
		}
		if (col >= 0 || len(rb.marks.famVers) > 0) && rb.marks.hides(col, en.ts) {
			continue
		}
		v, err := it.ValueAndErr()
		if err != nil {
			return err
		}
		if ro.ttl {
			var live bool
			if v, live, err = openValue(v, ro.now); err != nil {
				return err
			}
			if !live {
				continue // expired: an older version may show instead, as in HBase
			}
		}
		versions++
		q0 := len(rb.arena)
		rb.arena = unescape(rb.arena, en.qualifier)
		q1 := len(rb.arena)
		rb.arena = append(rb.arena, v...)
		rb.cells = append(rb.cells, cellRef{q0: q0, q1: q1, v1: len(rb.arena), ts: en.ts, fam: en.family})
		if ro.maxRowSize > 0 {
			if size += store.CellSize(len(rb.row), ro.famLen, q1-q0, len(v)); size > ro.maxRowSize {
				return store.ErrRowTooBig
			}
			if ro.callSize > 0 && size >= ro.callSize {
				size = 0 // the call ends here; the next weighs the rest
			}
		}
	}
	if valid { // on the next row's first key: an iterator that moved there has no error
		return nil
	}
	return it.Error()
}

// found reports whether the row has visible cells: in HBase a row with
// none does not exist.
func (rb *rowBuf) found() bool { return len(rb.cells) > 0 }

// bytesOut is what handing the row out costs: row key plus each cell's
// qualifier and value.
func (rb *rowBuf) bytesOut() uint64 {
	return uint64(len(rb.row)*len(rb.cells) + len(rb.arena))
}

// value returns the newest visible value of qualifier q.
func (rb *rowBuf) value(q []byte) ([]byte, bool) {
	for _, c := range rb.cells {
		if bytes.Equal(rb.arena[c.q0:c.q1], q) {
			return rb.arena[c.q1:c.v1], true
		}
	}
	return nil, false
}

// cell returns the newest visible cell of qualifier q.
func (rb *rowBuf) cell(q []byte) (cellRef, bool) {
	for _, c := range rb.cells {
		if bytes.Equal(rb.arena[c.q0:c.q1], q) {
			return c, true
		}
	}
	return cellRef{}, false
}

// materializeRow copies the row out with its cells' families.
func (rb *rowBuf) materializeRow(t *table) Row {
	buf := rb.copyOut()
	n := len(rb.row)
	row := Row{Key: buf[:n:n], Cells: make([]Cell, len(rb.cells))}
	for i, c := range rb.cells {
		q0, q1, v1 := n+c.q0, n+c.q1, n+c.v1
		row.Cells[i] = Cell{Family: t.families[c.fam].name, Qualifier: buf[q0:q1:q1], Value: buf[q1:v1:v1], Timestamp: c.ts}
	}
	return row
}

// copyOut copies the row key, then the arena, into one new buffer.
func (rb *rowBuf) copyOut() []byte {
	buf := make([]byte, len(rb.row)+len(rb.arena))
	copy(buf, rb.row)
	copy(buf[len(rb.row):], rb.arena)
	return buf
}

// materialize copies the row out into memory the caller owns (two
// allocations: one for all bytes, one for the cells).
func (rb *rowBuf) materialize() store.Row {
	return rb.fill(rb.copyOut(), 0, len(rb.row), make([]store.Cell, len(rb.cells)))
}

// fill lays the row out in buf, its key at k0 and its arena at a0, and
// in cells.
func (rb *rowBuf) fill(buf []byte, k0, a0 int, cells []store.Cell) store.Row {
	k1 := k0 + len(rb.row)
	row := store.Row{Key: buf[k0:k1:k1], Cells: cells}
	for i, c := range rb.cells {
		q0, q1, v1 := a0+c.q0, a0+c.q1, a0+c.v1
		row.Cells[i] = store.Cell{Qualifier: buf[q0:q1:q1], Value: buf[q1:v1:v1], Timestamp: c.ts}
	}
	return row
}

// slab hands a scan's rows memory cut from shared blocks, which double
// from small up to slabMax: a whole-table scan makes a few allocations per
// hundred rows where it made two per row (a fifth of verify's scan time),
// and a ten-row page read still allocates about what its rows hold. Every
// row is capped at its own bytes, so appending to one cannot reach the next;
// a row kept alone keeps its block alive, the price of the saving.
type slab struct {
	bytes []byte
	cells []store.Cell
	size  int    // the next block's bytes
	spare []byte // a row's buffer when the block's tail is too short to lend
}

const (
	slabMin = 2 << 10
	slabMax = 64 << 10
)

// row hands rb's row out of the slab. A row read into the slab's free
// tail (see lend) is in place but for its key, which goes after its
// cells: a scan then copies each value once, from Pebble to the slab,
// where it copied it twice. Any other row is copied in.
func (s *slab) row(rb *rowBuf) store.Row {
	k := len(rb.cells)
	if cap(s.cells)-len(s.cells) < k {
		s.cells = make([]store.Cell, 0, max(s.size/64, k))
	}
	c0 := len(s.cells)
	s.cells = s.cells[:c0+k]
	cells := s.cells[c0 : c0+k : c0+k]
	at, a, n := len(s.bytes), len(rb.arena), len(rb.arena)+len(rb.row)
	var row store.Row
	if s.lent(rb) && cap(s.bytes)-at >= n {
		s.bytes = append(s.bytes[:at+a], rb.row...)
		row = rb.fill(s.bytes[at:at+n], a, 0, cells)
	} else {
		if cap(s.bytes)-at < n {
			s.grow(n)
			at = 0
		}
		s.bytes = append(append(s.bytes, rb.row...), rb.arena...)
		row = rb.fill(s.bytes[at:at+n], 0, len(rb.row), cells)
		s.spare = rb.arena // copied out: free to read the next row into
	}
	s.lend(rb)
	return row
}

// slabLend is the least free tail lend hands a row to read into: below
// it most rows would not fit, and the next row is read into the spare
// buffer and copied (a new block is cut only for a row that needs it, so
// a scan's end leaves none unused).
const slabLend = 1 << 10

// lend points rb's arena at the slab's free tail, so the next row's cells
// are read straight into it.
func (s *slab) lend(rb *rowBuf) {
	if cap(s.bytes)-len(s.bytes) < slabLend {
		rb.arena = s.spare[:0]
		return
	}
	rb.arena = s.bytes[len(s.bytes):]
}

// lent reports whether rb's arena is still the slab's free tail: the
// row it read fitted there.
func (s *slab) lent(rb *rowBuf) bool {
	free := s.bytes[len(s.bytes):cap(s.bytes)]
	return len(free) > 0 && cap(rb.arena) == len(free) && &rb.arena[:1][0] == &free[0]
}

// grow starts a new block with room for at least n bytes.
func (s *slab) grow(n int) {
	s.size = min(slabMax, max(slabMin, 2*s.size))
	s.bytes = make([]byte, 0, max(s.size, n))
}

// readOneRow reads row into rb and reports whether it has visible cells.
func (e *Engine) readOneRow(t *table, row []byte, ro readOpts, rb *rowBuf) (bool, error) {
	lower := appendRowPrefix(nil, t.id, row)
	it, err := e.db.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: rowPrefixEnd(t.id, row)})
	if err != nil {
		return false, err
	}
	rb.cells = rb.cells[:0]
	if it.SeekPrefixGE(lower) {
		err = rb.read(it, ro)
	}
	if err = errors.Join(err, it.Error(), it.Close()); err != nil {
		return false, fmt.Errorf("embedded: read row %q: %w", row, err)
	}
	return rb.found(), nil
}

func checkRowKey(row []byte) error {
	if len(row) == 0 {
		return fmt.Errorf("embedded: %w: empty row key", store.ErrInvalid)
	}
	return nil
}

// Get implements store.Store. It costs the row's region one read request,
// and a scanned row and its bytes when the row exists.
func (e *Engine) Get(ctx context.Context, tableName string, row []byte) (store.Row, error) {
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
	var out [1]store.Row
	rows := [1][]byte{row}
	if err := e.batchGet(t, rows[:], e.latestOpts(t), out[:], nil); err != nil {
		return store.Row{}, err
	}
	return out[0], nil
}

// BatchGet implements store.Store: one Row per key, in request order, a
// missing row as its key with no cells. All rows come from one consistent
// snapshot (one Pebble iterator).
func (e *Engine) BatchGet(ctx context.Context, tableName string, rows [][]byte) ([]store.Row, error) {
	for _, r := range rows {
		if err := checkRowKey(r); err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t, err := e.enter(tableName)
	if err != nil {
		return nil, err
	}
	defer e.release()
	out := make([]store.Row, len(rows))
	if err := e.batchGet(t, rows, e.latestOpts(t), out, nil); err != nil {
		return nil, err
	}
	return out, nil
}

// readScratch is a point read's buffers, pooled: a Get is most of the
// write path's reads (the order check) and most of a listing's.
type readScratch struct {
	lower, upper, seek []byte
	rb                 rowBuf
}

var readScratchPool = sync.Pool{New: func() any { return new(readScratch) }}

// batchGet reads rows with one iterator into plain (as store.Store's
// rows) or, when plain is nil, full (with the cells' families); a missing
// row is its key with no cells. The two outputs, not a callback, keep the
// row buffer off the heap on the Get path.
func (e *Engine) batchGet(t *table, rows [][]byte, ro readOpts, plain []store.Row, full []Row) error {
	rs := readScratchPool.Get().(*readScratch)
	defer readScratchPool.Put(rs)
	if len(rows) == 1 { // the common Get: bound the iterator to the row
		rs.lower = appendRowPrefix(rs.lower[:0], t.id, rows[0])
		rs.upper = appendRowPrefixEnd(rs.upper[:0], t.id, rows[0])
	} else {
		rs.lower = appendTableStart(rs.lower[:0], t.id)
		rs.upper = appendTableStart(rs.upper[:0], t.id+1)
	}
	it, err := e.db.NewIter(&pebble.IterOptions{LowerBound: rs.lower, UpperBound: rs.upper})
	if err != nil {
		return err
	}
	defer it.Close()
	rt := t.routing.Load()
	rb := &rs.rb
	for i, row := range rows {
		r := rt.find(row)
		r.stats.readRequests.Add(1)
		seek := appendRowPrefix(rs.seek[:0], t.id, row)
		rs.seek = seek
		rb.cells = rb.cells[:0]
		// A prefix seek: the row's bloom filters skip the files without it.
		if it.SeekPrefixGE(seek) {
			if err := rb.read(it, ro); err != nil {
				return readErr("get", t, row, ro, err)
			}
		}
		switch {
		case !rb.found() && plain != nil:
			plain[i] = store.Row{Key: bytes.Clone(row)}
		case !rb.found():
			full[i] = Row{Key: bytes.Clone(row)}
		case plain != nil:
			plain[i] = rb.materialize()
		default:
			full[i] = rb.materializeRow(t)
		}
		if rb.found() {
			r.stats.rowsScanned.Add(1)
			r.stats.bytesOut.Add(rb.bytesOut())
		}
	}
	if err := it.Error(); err != nil {
		return fmt.Errorf("embedded: get: %w", err)
	}
	return nil
}

// Scan implements store.Store.
func (e *Engine) Scan(ctx context.Context, tableName string, sc store.Scan, each func(store.Row) bool) (store.ScanMetrics, error) {
	t, err := e.enter(tableName)
	if err != nil {
		return store.ScanMetrics{}, err
	}
	defer e.release()
	var sl slab
	ro := e.latestOpts(t)
	ro.callSize = store.DefaultMaxResultSize
	return e.scan(ctx, t, sc, ro, func(rb *rowBuf) bool { return each(sl.row(rb)) })
}

// scan streams rows from one Pebble iterator, so it sees one snapshot and
// every row exactly once whatever splits happen meanwhile; a regionWalker
// charges each row to the region holding it at the time. With sc.Batch it
// hands rows over in chunks (walkChunks), else whole (walkRows).
func (e *Engine) scan(ctx context.Context, t *table, sc store.Scan, ro readOpts, each func(*rowBuf) bool) (m store.ScanMetrics, err error) {
	start, stop := sc.Start, sc.Stop
	if len(start) == 0 {
		start = nil
	}
	if len(stop) == 0 {
		stop = nil
	}
	lower, upper, ok := scanBounds(t.id, start, stop, sc.Reversed)
	if !ok {
		return m, nil
	}
	it, err := e.db.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return m, err
	}
	defer it.Close()

	w := regionWalker{t: t, rev: sc.Reversed, m: &m}
	if !sc.Reversed && start == nil {
		w.pos = []byte{}
	} else {
		w.pos = bytes.Clone(start)
	}
	w.enter(w.locate())
	defer w.flush()

	var ended bool
	if sc.Batch > 0 {
		ended, err = walkChunks(ctx, t, it, &w, sc, ro, each)
	} else {
		ended, err = walkRows(ctx, t, it, &w, sc, ro, each)
	}
	if ended {
		w.finish(stop)
	}
	return m, err
}

// scanBounds are the data bounds of a scan from start to stop (nil: the
// table's edge); ok is false when the range holds no row.
func scanBounds(id uint64, start, stop []byte, rev bool) (lower, upper []byte, ok bool) {
	if !rev {
		if start != nil && stop != nil && bytes.Compare(start, stop) >= 0 {
			return nil, nil, false
		}
		lower, upper = rowBound(id, start), tableEnd(id)
		if stop != nil {
			upper = rowBound(id, stop)
		}
		return lower, upper, true
	}
	if start != nil && stop != nil && bytes.Compare(start, stop) <= 0 {
		return nil, nil, false
	}
	lower, upper = tableStart(id), tableEnd(id)
	if stop != nil {
		lower = rowPrefixEnd(id, stop)
	}
	if start != nil {
		upper = rowPrefixEnd(id, start)
	}
	return lower, upper, true
}

// firstKey puts a scan's iterator on its first key in the scan's
// direction.
func firstKey(it *pebble.Iterator, rev bool) bool {
	if rev {
		return it.Last()
	}
	return it.First()
}

// walkRows hands each row over whole. It reports whether the rows ran
// out, rather than each, the filter or the limit ending the scan.
func walkRows(ctx context.Context, t *table, it *pebble.Iterator, w *regionWalker, sc store.Scan, ro readOpts, each func(*rowBuf) bool) (bool, error) {
	m, rev := w.m, sc.Reversed
	var rb rowBuf
	var seek []byte
	returned := 0
	for n, valid := 0, firstKey(it, rev); valid; n++ {
		if n%64 == 0 {
			if err := ctx.Err(); err != nil {
				return false, err
			}
		}
		if rev {
			// Positioned on the row's last key: go to its first, read it
			// forward, then step before it.
			pl, err := rowPrefixLen(it.Key())
			if err != nil {
				return false, err
			}
			seek = append(seek[:0], it.Key()[:pl]...)
			if !it.SeekGE(seek) {
				break // cannot happen: the key we came from is there
			}
		}
		if err := rb.read(it, ro); err != nil {
			return false, readErr("scan", t, rb.row, ro, err)
		}
		if rev {
			valid = it.SeekLT(rb.prefix)
		} else {
			valid = it.Valid()
		}
		if !rb.found() {
			continue // only delete markers or versions out of range: no row
		}
		w.moveTo(rb.row)
		m.RowsScanned++
		m.CellsScanned += int64(len(rb.cells))
		w.rows++
		keep, done := true, false
		if sc.Filter != nil {
			keep, done = sc.Filter.Decide(rb.row, rev)
		}
		if !keep {
			m.RowsFiltered++
			if done {
				return false, nil
			}
			continue
		}
		w.out += rb.bytesOut()
		returned++
		if !each(&rb) || done || (sc.Limit > 0 && returned >= sc.Limit) {
			return false, nil
		}
	}
	if err := it.Error(); err != nil {
		return false, fmt.Errorf("embedded: scan %q: %w", t.name, err)
	}
	return true, nil
}

// walkChunks hands each row over in chunks of at most sc.Batch cells, one
// after another (HBase's Scan.setBatch), read by a colCursor: a row of any
// width is in memory a chunk at a time, and the max row size applies to a
// chunk. The filter decides once the first chunk shows the row exists
// (a filtered row's cost is that chunk's cells), and Limit counts rows,
// not chunks, as HBase's scan limit counts complete rows.
func walkChunks(ctx context.Context, t *table, it *pebble.Iterator, w *regionWalker, sc store.Scan, ro readOpts, each func(*rowBuf) bool) (bool, error) {
	m, rev := w.m, sc.Reversed
	c := colCursor{it: it, ro: ro}
	var rb rowBuf
	var fam []byte
	returned := 0
	for n, valid := 0, firstKey(it, rev); valid; n++ {
		if n%64 == 0 {
			if err := ctx.Err(); err != nil {
				return false, err
			}
		}
		pl, err := rowPrefixLen(it.Key())
		if err != nil {
			return false, fmt.Errorf("embedded: scan %q: %w", t.name, err)
		}
		fam = append(append(fam[:0], it.Key()[:pl]...), t.def)
		rb.row = unescape(rb.row[:0], fam[tablePrefixLen:pl])
		passed, more, err := c.firstChunk(&rb, fam, !rev, sc.Batch)
		if err != nil {
			return false, readErr("scan", t, rb.row, ro, err)
		}
		if passed == 0 {
			valid = c.nextRow(fam[:pl], rev)
			continue // no visible cell: no row
		}
		w.moveTo(rb.row)
		m.RowsScanned++
		w.rows++
		m.CellsScanned += int64(passed)
		keep, done := true, false
		if sc.Filter != nil {
			keep, done = sc.Filter.Decide(rb.row, rev)
		}
		if !keep {
			m.RowsFiltered++
			if done {
				return false, nil
			}
			valid = c.nextRow(fam[:pl], rev)
			continue
		}
		returned++
		for passed > 0 {
			w.out += rb.bytesOut()
			if !each(&rb) {
				return false, nil
			}
			if !more {
				break
			}
			if passed, more, err = c.chunk(&rb, sc.Batch); err != nil {
				return false, readErr("scan", t, rb.row, ro, err)
			}
			m.CellsScanned += int64(passed)
		}
		if done || (sc.Limit > 0 && returned >= sc.Limit) {
			return false, nil
		}
		valid = c.nextRow(fam[:pl], rev)
	}
	if err := it.Error(); err != nil {
		return false, fmt.Errorf("embedded: scan %q: %w", t.name, err)
	}
	return true, nil
}

// readErr wraps the failure of op on row of t. A row past the max row
// size names the table, the row and the limit, as HBase's
// RowTooBigException does.
func readErr(op string, t *table, row []byte, ro readOpts, err error) error {
	if errors.Is(err, store.ErrRowTooBig) {
		return fmt.Errorf("embedded: %s %q: row %q: %w: its cells pass %d bytes, the max row size", op, t.name, row, err, ro.maxRowSize)
	}
	return fmt.Errorf("embedded: %s %q: row %q: %w", op, t.name, row, err)
}

// regionWalker follows a scan across regions the way an HBase client does:
// it enters the region holding the start, moves to the next region when a
// row lies beyond the current one (entering empty regions on the way), and
// re-locates when its region was split or moved. Each region entered is a
// visit: ScanMetrics.Regions and the region's ReadRequests count it. Row
// and byte counts are charged to the current region when the walker leaves
// it, to keep atomics off the per-row path.
type regionWalker struct {
	t   *table
	rev bool
	cur *region
	// pos is the last row read (at first the scan's start; nil in a
	// reversed scan means the table's end).
	pos       []byte
	rows, out uint64
	m         *store.ScanMetrics
}

func (w *regionWalker) enter(r *region) {
	w.flush()
	w.cur = r
	w.m.Regions++
	r.stats.readRequests.Add(1)
}

func (w *regionWalker) flush() {
	if w.cur != nil {
		if w.rows > 0 {
			w.cur.stats.rowsScanned.Add(w.rows)
		}
		if w.out > 0 {
			w.cur.stats.bytesOut.Add(w.out)
		}
	}
	w.rows, w.out = 0, 0
}

// locate is the region holding pos in the current routing.
func (w *regionWalker) locate() *region {
	rt := w.t.routing.Load()
	if w.rev && w.pos == nil {
		return rt.last()
	}
	return rt.find(w.pos)
}

// refresh re-enters the region now holding pos if cur left the routing:
// HBase closes scanners on a split or move and the client reopens one.
func (w *regionWalker) refresh() {
	if w.cur.retired.Load() {
		if r := w.locate(); r != w.cur { // same object: the table was dropped
			w.enter(r)
		}
	}
}

// next is the region after cur in the scan's direction.
func (w *regionWalker) next() *region {
	rt := w.t.routing.Load()
	if !w.rev {
		return rt.find(w.cur.info.End)
	}
	return rt.regions[rt.index(w.cur.info.Start)-1]
}

// moveTo makes cur the region holding row.
func (w *regionWalker) moveTo(row []byte) {
	for {
		w.refresh()
		if w.cur.info.Contains(row) {
			break
		}
		w.enter(w.next())
	}
	w.pos = append(w.pos[:0], row...)
}

// finish enters the remaining regions up to stop after the rows ran out:
// the client would still open a scanner on each.
func (w *regionWalker) finish(stop []byte) {
	w.refresh()
	for {
		in := w.cur.info
		if !w.rev && (in.End == nil || (stop != nil && bytes.Compare(in.End, stop) >= 0)) {
			break
		}
		if w.rev && (len(in.Start) == 0 || (stop != nil && bytes.Compare(in.Start, stop) <= 0)) {
			break
		}
		w.enter(w.next())
	}
	w.flush()
}
