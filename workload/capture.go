package workload

import (
	"bytes"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sort"

	"commentbench/comments"
	"commentbench/store"
)

// capture is the store a bulk load's comment system writes into: it keeps
// every cell the system puts or increments, as the comment writes would
// have made them, for the load to sort and hand to the store whole. The
// system's one read while writing a comment, of the order it just made,
// is answered from what the same comment wrote. Used by one goroutine.
type capture struct {
	id     uint16 // the capture's arena number, once merged with others'
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
	id    uint16
	arena []byte
	recs  []capRec
}

// capRec is one cell put or incremented: its row at rowOff, its qualifier
// and value at off in its arena, and the comment that wrote it. The cells
// of one mutation share their row's bytes.
type capRec struct {
	prefix  [3]uint64 // the row's first 24 bytes, big-endian: most compares end here
	delta   int64
	rowOff  uint32
	off     uint32
	valLen  uint32
	seq     uint32
	rowLen  uint16
	qualLen uint16
	arena   uint16 // the capture it came from
	flags   uint8
}

// prefixLen is how much of a row capRec.prefix holds.
const prefixLen = 24

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
		l = &capTable{id: c.id}
		c.indexLog[table] = l
	}
	if len(key) <= 0xffff {
		l.keep(l.putRow(key), key, nil, ck, 0, c.seq, 0)
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
			t = &capTable{id: c.id}
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
	if len(m.Cells)+len(m.Increments) == 0 {
		return nil
	}
	rowOff := t.putRow(m.Row)
	flags := uint8(recFirst)
	for _, cl := range m.Cells {
		t.keep(rowOff, m.Row, cl.Qualifier, cl.Value, 0, seq, flags)
		flags = 0
	}
	for _, inc := range m.Increments {
		t.keep(rowOff, m.Row, inc.Qualifier, nil, inc.Delta, seq, flags|recInc)
		flags = 0
	}
	return nil
}

// putRow keeps a row's bytes once for the cells of its mutation.
func (t *capTable) putRow(row []byte) uint32 {
	off := uint32(len(t.arena))
	t.arena = append(t.arena, row...)
	return off
}

func (t *capTable) keep(rowOff uint32, row, qual, val []byte, delta int64, seq uint32, flags uint8) {
	var p [prefixLen]byte
	copy(p[:], row)
	t.recs = append(t.recs, capRec{prefix: [3]uint64{binary.BigEndian.Uint64(p[:8]), binary.BigEndian.Uint64(p[8:16]), binary.BigEndian.Uint64(p[16:])}, delta: delta, rowOff: rowOff, off: uint32(len(t.arena)),
		valLen: uint32(len(val)), seq: seq, rowLen: uint16(len(row)), qualLen: uint16(len(qual)), arena: t.id, flags: flags})
	t.arena = append(append(t.arena, qual...), val...)
}

// reserve grows what the capture keeps to hold total comments, having
// seen done of them, so its slices are not copied at every doubling.
func (c *capture) reserve(done, total int64) {
	if done <= 0 || total <= done {
		return
	}
	grow := func(t *capTable) {
		want := func(n int) int { return int(int64(n)*total/done + int64(n)*total/done/16 + 64) }
		t.recs = regrow(t.recs, want(len(t.recs)))
		t.arena = regrow(t.arena, want(len(t.arena)))
	}
	for _, t := range c.tables {
		grow(t)
	}
	for _, t := range c.indexLog {
		grow(t)
	}
}

// regrow is s in a new slice of capacity n. Unlike slices.Grow, which
// clears the room it adds, make leaves memory fresh from the system as
// it is (zero already): the room is touched once, when it is filled.
func regrow[E any](s []E, n int) []E {
	if n <= cap(s) {
		return s
	}
	out := make([]E, len(s), n)
	copy(out, s)
	return out
}

// sort orders the capture's cells, each table's and each index log's,
// as merged reads them.
func (c *capture) sort() {
	var tmp []capRec // the radix sort's room, one for all the tables
	for _, t := range c.tables {
		tmp = t.sort(tmp)
	}
	for _, t := range c.indexLog {
		tmp = t.sort(tmp)
	}
}

// bucketSortFrom is the cells a table needs to be sorted by radix (a
// variable: a test lowers it).
var bucketSortFrom = 1 << 14

// sort sorts the table's cells, using tmp as room if it is large enough,
// and returns the room it used.
func (t *capTable) sort(tmp []capRec) []capRec {
	a := t.arena
	cmpRecs := func(x, y capRec) int { return compareRecs(a, &x, a, &y) }
	if len(t.recs) < bucketSortFrom {
		slices.SortFunc(t.recs, cmpRecs)
		return tmp
	}
	if len(tmp) < len(t.recs) {
		tmp = make([]capRec, len(t.recs))
	}
	radixSort(t.recs, tmp, 0, cmpRecs)
	return tmp
}

// radixSmall is the cells below which radixSort compares instead.
const radixSmall = 32

// radixSort orders recs by their prefixes' bytes from depth on (the
// bytes before are the same in all of them), most significant first,
// into a bucket a byte value, then each bucket by the next byte; a
// bucket of a few cells, or of cells whose prefixes are the same, is
// sorted by cmpRecs. The prefix is the row's first bytes, which
// compareRecs looks at first, so the order is its own. A hot product's
// thousands of index rows, alike for a dozen bytes, cost a count of each
// byte, not a comparison sort of them all; and a pass moves every cell
// once, where a sort would go over them a dozen times and more.
func radixSort(recs, tmp []capRec, depth int, cmpRecs func(x, y capRec) int) {
	for ; depth < prefixLen; depth++ {
		if len(recs) <= radixSmall {
			break
		}
		var starts [257]int
		for i := range recs {
			starts[int(prefixByte(&recs[i], depth))+1]++
		}
		if slices.Contains(starts[1:], len(recs)) {
			continue // every cell has the same byte here
		}
		for b := 1; b < len(starts); b++ {
			starts[b] += starts[b-1]
		}
		next := starts
		for i := range recs {
			b := prefixByte(&recs[i], depth)
			tmp[next[b]] = recs[i]
			next[b]++
		}
		copy(recs, tmp[:len(recs)])
		for b := range 256 {
			if starts[b+1]-starts[b] > 1 {
				radixSort(recs[starts[b]:starts[b+1]], tmp[starts[b]:starts[b+1]], depth+1, cmpRecs)
			}
		}
		return
	}
	slices.SortFunc(recs, cmpRecs)
}

// prefixByte is byte d of a cell's row prefix.
func prefixByte(r *capRec, d int) byte {
	return byte(r.prefix[d/8] >> (56 - 8*(d%8)))
}

// compareRecs orders cells by row, qualifier, then the order they were
// written in.
func compareRecs(aa []byte, a *capRec, ba []byte, b *capRec) int {
	if a.prefix[0] != b.prefix[0] {
		return cmp.Compare(a.prefix[0], b.prefix[0])
	}
	if a.prefix[1] != b.prefix[1] {
		return cmp.Compare(a.prefix[1], b.prefix[1])
	}
	if a.prefix[2] != b.prefix[2] {
		return cmp.Compare(a.prefix[2], b.prefix[2])
	}
	if a.rowLen <= prefixLen && b.rowLen <= prefixLen {
		// The whole rows are in the prefixes, padded with zeros: the
		// shorter is the smaller, as bytes.Compare has it.
		if a.rowLen != b.rowLen {
			return cmp.Compare(a.rowLen, b.rowLen)
		}
	} else if a.arena != b.arena || a.rowOff != b.rowOff || a.rowLen != b.rowLen {
		if c := bytes.Compare(aa[a.rowOff:a.rowOff+uint32(a.rowLen)], ba[b.rowOff:b.rowOff+uint32(b.rowLen)]); c != 0 {
			return c
		}
	}
	if c := bytes.Compare(aa[a.off:a.off+uint32(a.qualLen)], ba[b.off:b.off+uint32(b.qualLen)]); c != 0 {
		return c
	}
	return cmp.Compare(a.seq, b.seq)
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

// merged is one table's cells from every capture, each capture's
// sorted (capTable.sort), read as one sorted run.
type merged struct {
	arenas [][]byte // by capture id
	srcs   [][]capRec
}

func (m *merged) add(t *capTable) {
	for len(m.arenas) <= int(t.id) {
		m.arenas = append(m.arenas, nil)
	}
	m.arenas[t.id] = t.arena
	if len(t.recs) > 0 {
		m.srcs = append(m.srcs, t.recs)
	}
}

// split cuts m into up to n parts at rows, each part's rows all before
// the next part's: the cut rows are the largest capture's at its n-th
// parts, each capture cut before its first cell of one.
func (m *merged) split(n int) []*merged {
	if len(m.srcs) == 0 {
		return nil
	}
	if n < 2 {
		return []*merged{m}
	}
	big := 0
	for i, s := range m.srcs {
		if len(s) > len(m.srcs[big]) {
			big = i
		}
	}
	var out []*merged
	from := make([]int, len(m.srcs))
	for k := 1; k <= n; k++ {
		part := &merged{arenas: m.arenas}
		var cut []byte
		if k < n {
			cut = m.row(&m.srcs[big][len(m.srcs[big])*k/n])
		}
		for i, s := range m.srcs {
			to := len(s)
			if rest := s[from[i]:]; cut != nil {
				to = from[i] + sort.Search(len(rest), func(j int) bool { return bytes.Compare(m.row(&rest[j]), cut) >= 0 })
			}
			if to > from[i] {
				part.srcs = append(part.srcs, s[from[i]:to])
			}
			from[i] = to
		}
		if len(part.srcs) > 0 {
			out = append(out, part)
		}
	}
	return out
}

// cells is how many cells were written.
func (m *merged) cells() int {
	n := 0
	for _, s := range m.srcs {
		n += len(s)
	}
	return n
}

func (m *merged) row(r *capRec) []byte {
	return m.arenas[r.arena][r.rowOff : r.rowOff+uint32(r.rowLen) : r.rowOff+uint32(r.rowLen)]
}

func (m *merged) qual(r *capRec) []byte {
	return m.arenas[r.arena][r.off : r.off+uint32(r.qualLen) : r.off+uint32(r.qualLen)]
}

func (m *merged) val(r *capRec) []byte {
	at := r.off + uint32(r.qualLen)
	return m.arenas[r.arena][at : at+r.valLen : at+r.valLen]
}

func (m *merged) sameRow(a, b *capRec) bool {
	return a.rowLen == b.rowLen && a.prefix == b.prefix &&
		(a.rowLen <= prefixLen || (a.arena == b.arena && a.rowOff == b.rowOff) || bytes.Equal(m.row(a), m.row(b)))
}

func (m *merged) sameQual(a, b *capRec) bool {
	return a.qualLen == b.qualLen && bytes.Equal(m.qual(a), m.qual(b))
}

// mergeIter reads the captures' sorted cells as one sorted run: a heap
// of the captures by their next cell.
type mergeIter struct {
	m    *merged
	pos  []int
	heap []int // capture indexes into m.srcs
}

func (m *merged) iter() *mergeIter {
	it := &mergeIter{m: m, pos: make([]int, len(m.srcs))}
	for i := range m.srcs {
		it.heap = append(it.heap, i)
	}
	for i := len(it.heap)/2 - 1; i >= 0; i-- {
		it.down(i)
	}
	return it
}

func (it *mergeIter) head(s int) *capRec { return &it.m.srcs[s][it.pos[s]] }

func (it *mergeIter) less(i, j int) bool {
	a, b := it.head(it.heap[i]), it.head(it.heap[j])
	return compareRecs(it.m.arenas[a.arena], a, it.m.arenas[b.arena], b) < 0
}

func (it *mergeIter) down(i int) {
	n := len(it.heap)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		c := l
		if r := l + 1; r < n && it.less(r, l) {
			c = r
		}
		if !it.less(c, i) {
			return
		}
		it.heap[i], it.heap[c] = it.heap[c], it.heap[i]
		i = c
	}
}

// next is the next cell in order, nil after the last.
func (it *mergeIter) next() *capRec {
	if len(it.heap) == 0 {
		return nil
	}
	s := it.heap[0]
	r := it.head(s)
	it.pos[s]++
	if it.pos[s] == len(it.m.srcs[s]) {
		last := len(it.heap) - 1
		it.heap[0] = it.heap[last]
		it.heap = it.heap[:last]
	}
	if len(it.heap) > 1 {
		it.down(0)
	}
	return r
}

// rows returns the sorted cells' rows one by one: of a cell written more
// than once the last put, as a row's newest version; a counter the sum
// of its increments, as HBase's Increment keeps it. err is set when a
// cell was both put and incremented, which no comment write does. A
// row's Cells are reused by the next row, unless keep: then they stay
// as they are, for rows handed on in batches.
func (m *merged) rows(err *error, keep bool) func() (store.BulkRow, bool) {
	it := m.iter()
	r := it.next()
	var cells []store.Cell
	return func() (store.BulkRow, bool) {
		if r == nil || *err != nil {
			return store.BulkRow{}, false
		}
		first := r
		row := store.BulkRow{Key: m.row(first)}
		switch {
		case !keep:
			cells = cells[:0]
		case cap(cells)-len(cells) < maxRowCells:
			cells = make([]store.Cell, 0, keptCells)
		default:
			cells = cells[len(cells):]
		}
		for r != nil && m.sameRow(first, r) {
			q := r
			last := r
			var sum int64
			put := false
			for r != nil && m.sameRow(first, r) && m.sameQual(q, r) {
				if r.flags&recFirst != 0 {
					row.Writes++
				}
				if r.flags&recInc == 0 {
					put = true
				} else {
					sum += r.delta
				}
				last = r
				r = it.next()
			}
			switch {
			case last.flags&recInc == 0 && q.flags&recInc == 0:
				cells = append(cells, store.Cell{Qualifier: m.qual(last), Value: m.val(last)})
			case put:
				*err = fmt.Errorf("%w: row %q column %q both put and incremented", errCaptureOnly, m.row(last), m.qual(last))
				return store.BulkRow{}, false
			default:
				cells = append(cells, store.Cell{Qualifier: m.qual(last), Value: comments.EncodeCount(sum)})
			}
		}
		row.Cells = cells[:len(cells):len(cells)]
		return row, true
	}
}

// keptCells is the cells of a slab rows keeps its rows' cells in: rows
// start in a new one when fewer than maxRowCells are left, so most never
// outgrow it (one that does moves to a slab of its own, by append).
const keptCells, maxRowCells = 8192, 64
