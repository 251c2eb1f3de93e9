// Package extsort owns sorting record streams larger than memory: records are
// buffered up to a memory budget, spilled to temporary files as sorted runs,
// and merged with a heap. It must not know what the records mean; a record is
// an opaque key and value, ordered by bytes.Compare on the key.
//
// The sort is stable: records with equal keys come out in the order they
// were added.
//
// Run files are a plain sequence of records, each written as
//
//	uvarint(len(key)) key uvarint(len(val)) val
//
// with no header; the sorter remembers each run's record count and byte size
// and treats any disagreement (a short file, a length running past the end)
// as an error.
package extsort

import (
	"bufio"
	"bytes"
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
)

// DefaultMemLimit is the memory budget used when Options.MemLimit <= 0.
const DefaultMemLimit = 64 << 20

const (
	// recOverhead is charged per record on top of its key and value bytes:
	// the 16-byte index entry plus slack for slice growth and the arena's
	// unused tails.
	recOverhead  = 48
	writeBufSize = 256 << 10
	readBufSize  = 64 << 10

	minChunk = 4 << 10
	maxChunk = 1 << 20
)

// fanIn bounds how many runs are merged at once, and so how many run files
// are open at once. A variable only so tests can force many merge passes.
var fanIn = 64

var (
	// ErrSorted is returned by Add after Sort, and by a second Sort.
	ErrSorted = errors.New("extsort: sorter already sorted")
	// ErrClosed is returned by Add and Sort after Close, and by an
	// iterator's Err if the sorter was closed before it was exhausted.
	ErrClosed = errors.New("extsort: sorter closed")
)

// Record is one key/value pair.
type Record struct{ Key, Val []byte }

// Options configure a Sorter.
type Options struct {
	// Dir is where run files go; "" means os.TempDir(). The sorter creates
	// its own subdirectory (only when it first spills) and removes it on
	// Close.
	Dir string
	// MemLimit is the approximate number of bytes of records buffered before
	// a run is spilled; <= 0 means DefaultMemLimit. Each record costs
	// len(key)+len(val) plus a fixed overhead.
	MemLimit int
}

// rec locates one buffered record in the arena: key then value, contiguous,
// at chunks[chunk][off:]. It holds no pointers, so a large buffer costs the
// garbage collector nothing to scan.
type rec struct{ chunk, off, klen, vlen uint32 }

// run is one sorted run file.
type run struct {
	path string
	n    int64 // records
	size int64 // bytes
}

// Sorter accumulates records and sorts them. It is not safe for concurrent
// use.
type Sorter struct {
	dirBase  string
	memLimit int

	// The in-memory buffer: record bytes live in chunks (reused after each
	// spill), recs indexes them in insertion order until sorted.
	chunks [][]byte
	cur    int
	recs   []rec
	spare  []rec // sortBuf's second buffer, kept for the next spill
	mem    int
	// unordered is set when a record is added with a key below the one
	// before it in the buffer: until then the buffer, in insertion order,
	// is already stably sorted (the order a scan of a table keyed as the
	// records are files them in), and sortBuf leaves it be.
	unordered bool

	n       int64
	dir     string // created on first spill
	runs    []run
	spilled int
	seq     int // names run files
	w       *bufio.Writer

	sorted bool
	closed bool
	err    error // sticky failure from a spill
	it     *Iterator
}

// New returns an empty Sorter. It touches no files until it has to spill.
func New(o Options) *Sorter {
	if o.MemLimit <= 0 {
		o.MemLimit = DefaultMemLimit
	}
	if o.Dir == "" {
		o.Dir = os.TempDir()
	}
	return &Sorter{dirBase: o.Dir, memLimit: o.MemLimit}
}

// Add copies key and val into the sorter (callers may reuse their buffers).
// It may spill a sorted run to disk first if the memory budget would be
// exceeded.
func (s *Sorter) Add(key, val []byte) error {
	switch {
	case s.closed:
		return ErrClosed
	case s.sorted:
		return ErrSorted
	case s.err != nil:
		return s.err
	}
	size := len(key) + len(val)
	if uint64(size) > math.MaxUint32 {
		return fmt.Errorf("extsort: record of %d bytes is too large", size)
	}
	cost := size + recOverhead
	if len(s.recs) > 0 && s.mem+cost > s.memLimit {
		if err := s.spill(); err != nil {
			s.err = err
			return err
		}
	}
	ci := s.alloc(size)
	c := s.chunks[ci]
	off := len(c)
	c = append(c, key...)
	s.chunks[ci] = append(c, val...)
	if n := len(s.recs); n > 0 && !s.unordered && bytes.Compare(key, s.key(s.recs[n-1])) < 0 {
		s.unordered = true
	}
	s.recs = append(s.recs, rec{chunk: uint32(ci), off: uint32(off), klen: uint32(len(key)), vlen: uint32(len(val))})
	s.mem += cost
	s.n++
	return nil
}

// alloc returns the index of a chunk with room for size more bytes. Chunks
// are filled strictly in order, so (chunk, off) grows with insertion order.
func (s *Sorter) alloc(size int) int {
	for ; s.cur < len(s.chunks); s.cur++ {
		if c := s.chunks[s.cur]; cap(c)-len(c) >= size {
			return s.cur
		}
	}
	n := minChunk
	if len(s.chunks) > 0 {
		n = min(maxChunk, 2*cap(s.chunks[len(s.chunks)-1]))
	}
	n = max(n, size)
	s.chunks = append(s.chunks, make([]byte, 0, n))
	s.cur = len(s.chunks) - 1
	return s.cur
}

func (s *Sorter) key(r rec) []byte {
	return s.chunks[r.chunk][r.off : r.off+r.klen]
}

func (s *Sorter) val(r rec) []byte {
	o := r.off + r.klen
	return s.chunks[r.chunk][o : o+r.vlen]
}

// sortBuf sorts the buffer by key, ties in insertion order. Insertion order
// is recoverable from (chunk, off): chunks are filled in order, and the only
// records that can share a position are empty ones (no key, no value), which
// precede the record placed there after them and are indistinguishable from
// each other. This makes an unstable sort with a position tie-break
// equivalent to slices.SortStableFunc on the key, and several times faster.
//
// The records are first distributed by their key's first byte (a stable
// counting sort), and each bucket then sorted alone: a few dozen buckets
// take five or six rounds of comparisons off every record.
func (s *Sorter) sortBuf() {
	if !s.unordered {
		return
	}
	var start [258]int // bucket b's records start at start[b]; 0 is the empty key, 1+c a first byte c
	for _, r := range s.recs {
		start[s.bucket(r)+1]++
	}
	for b := 1; b < len(start); b++ {
		start[b] += start[b-1]
	}
	by := slices.Grow(s.spare[:0], len(s.recs))[:len(s.recs)]
	next := start
	for _, r := range s.recs {
		b := s.bucket(r)
		by[next[b]] = r
		next[b]++
	}
	s.recs, s.spare = by, s.recs[:0]
	for b := range len(start) - 1 {
		s.sortRecs(s.recs[start[b]:start[b+1]])
	}
}

func (s *Sorter) bucket(r rec) int {
	if r.klen == 0 {
		return 0
	}
	return 1 + int(s.chunks[r.chunk][r.off])
}

func (s *Sorter) sortRecs(recs []rec) {
	slices.SortFunc(recs, func(a, b rec) int {
		if c := bytes.Compare(s.key(a), s.key(b)); c != 0 {
			return c
		}
		if a.chunk != b.chunk {
			return cmpU32(a.chunk, b.chunk)
		}
		if a.off != b.off {
			return cmpU32(a.off, b.off)
		}
		return cmpU32(a.klen+a.vlen, b.klen+b.vlen)
	})
}

func cmpU32(a, b uint32) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// resetBuf empties the buffer, keeping ordinary chunks for reuse and
// dropping oversized ones.
func (s *Sorter) resetBuf() {
	kept := s.chunks[:0]
	for _, c := range s.chunks {
		if cap(c) <= maxChunk {
			kept = append(kept, c[:0])
		}
	}
	clear(s.chunks[len(kept):])
	s.chunks = kept
	s.cur = 0
	s.recs = s.recs[:0]
	s.mem = 0
	s.unordered = false
}

// spill sorts the buffer and writes it out as a new run.
func (s *Sorter) spill() error {
	s.sortBuf()
	rw, err := s.createRun()
	if err != nil {
		return err
	}
	for _, r := range s.recs {
		if err := rw.write(s.key(r), s.val(r)); err != nil {
			rw.abort()
			return err
		}
	}
	r, err := rw.finish()
	if err != nil {
		return err
	}
	s.runs = append(s.runs, r)
	s.spilled++
	s.resetBuf()
	return nil
}

// Len reports how many records have been added.
func (s *Sorter) Len() int64 { return s.n }

// Spilled reports how many runs were spilled from memory to disk. Runs
// written by intermediate merge passes are not counted.
func (s *Sorter) Spilled() int { return s.spilled }

// Sort ends adding and returns an iterator over all records in ascending
// bytes.Compare(Key) order; records with equal keys come out in the order
// they were added. If nothing was spilled the records are iterated in
// memory without touching disk. Otherwise runs are merged, in passes of at
// most 64 if there are more than that, so few files are open at once.
func (s *Sorter) Sort() (*Iterator, error) {
	switch {
	case s.closed:
		return nil, ErrClosed
	case s.sorted:
		return nil, ErrSorted
	case s.err != nil:
		return nil, s.err
	}
	s.sorted = true
	s.sortBuf()
	if err := s.reduceRuns(); err != nil {
		s.err = err
		return nil, err
	}
	srcs := make([]source, 0, len(s.runs)+1)
	fail := func(err error) (*Iterator, error) {
		for _, src := range srcs {
			src.close()
		}
		s.err = err
		return nil, err
	}
	for _, r := range s.runs {
		fs, err := openRun(r)
		if err != nil {
			return fail(err)
		}
		srcs = append(srcs, fs)
	}
	// The tail comes last: every record in it was added after every
	// spilled one.
	srcs = append(srcs, &memSource{s: s})
	m, err := newMerger(srcs)
	if err != nil {
		return fail(err)
	}
	s.it = &Iterator{m: m}
	return s.it, nil
}

// reduceRuns merges consecutive groups of runs until at most fanIn remain.
// Each group is only as large as needed to reach that bound, so 65 runs
// cost one 2-way merge rather than a 64-way one. Merging consecutive runs
// with ties broken by run order keeps the sort stable.
func (s *Sorter) reduceRuns() error {
	for len(s.runs) > fanIn {
		var out []run
		i := 0
		for i < len(s.runs) {
			excess := len(out) + len(s.runs) - i - fanIn
			if excess <= 0 {
				break
			}
			j := min(i+fanIn, i+excess+1, len(s.runs))
			r, err := s.mergeRuns(s.runs[i:j])
			if err != nil {
				return err
			}
			out = append(out, r)
			i = j
		}
		s.runs = append(out, s.runs[i:]...)
	}
	return nil
}

// mergeRuns merges runs into one new run and removes the inputs.
func (s *Sorter) mergeRuns(runs []run) (run, error) {
	srcs := make([]source, 0, len(runs))
	closeAll := func() {
		for _, src := range srcs {
			src.close()
		}
	}
	for _, r := range runs {
		fs, err := openRun(r)
		if err != nil {
			closeAll()
			return run{}, err
		}
		srcs = append(srcs, fs)
	}
	m, err := newMerger(srcs)
	if err != nil {
		closeAll()
		return run{}, err
	}
	defer m.close()
	rw, err := s.createRun()
	if err != nil {
		return run{}, err
	}
	for m.next() {
		if err := rw.write(m.rec.Key, m.rec.Val); err != nil {
			rw.abort()
			return run{}, err
		}
	}
	if m.err != nil {
		rw.abort()
		return run{}, m.err
	}
	out, err := rw.finish()
	if err != nil {
		return run{}, err
	}
	for _, r := range runs {
		if err := os.Remove(r.path); err != nil {
			return run{}, fmt.Errorf("extsort: remove run: %w", err)
		}
	}
	return out, nil
}

// Close removes every temporary file and releases the buffer. It is safe to
// call more than once, before or after Sort; any iterator becomes invalid.
func (s *Sorter) Close() error {
	if s.closed {
		return nil
	}
	s.closed = true
	var errs []error
	if s.it != nil {
		errs = append(errs, s.it.invalidate())
		s.it = nil
	}
	if s.dir != "" {
		if err := os.RemoveAll(s.dir); err != nil {
			errs = append(errs, fmt.Errorf("extsort: remove %s: %w", s.dir, err))
		}
	}
	s.chunks, s.recs, s.spare, s.runs, s.w = nil, nil, nil, nil, nil
	return errors.Join(errs...)
}

// runWriter writes one run file.
type runWriter struct {
	f       *os.File
	w       *bufio.Writer
	path    string
	n, size int64
}

func (s *Sorter) createRun() (*runWriter, error) {
	if s.dir == "" {
		d, err := os.MkdirTemp(s.dirBase, "extsort-")
		if err != nil {
			return nil, fmt.Errorf("extsort: create run directory: %w", err)
		}
		s.dir = d
	}
	s.seq++
	path := filepath.Join(s.dir, fmt.Sprintf("run-%06d", s.seq))
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("extsort: create run: %w", err)
	}
	if s.w == nil {
		s.w = bufio.NewWriterSize(f, writeBufSize)
	} else {
		s.w.Reset(f)
	}
	return &runWriter{f: f, w: s.w, path: path}, nil
}

func (rw *runWriter) write(key, val []byte) error {
	// One Write a record: lengths and bytes gathered in the writer's own
	// free space when they fit.
	b := rw.w.AvailableBuffer()
	b = binary.AppendUvarint(b, uint64(len(key)))
	b = append(b, key...)
	b = binary.AppendUvarint(b, uint64(len(val)))
	b = append(b, val...)
	if _, err := rw.w.Write(b); err != nil {
		return rw.fail(err)
	}
	rw.n++
	rw.size += int64(len(b))
	return nil
}

func (rw *runWriter) fail(err error) error {
	return fmt.Errorf("extsort: write run %s: %w", rw.path, err)
}

// finish flushes and closes the file, removing it on failure.
func (rw *runWriter) finish() (run, error) {
	err := rw.w.Flush()
	if cerr := rw.f.Close(); err == nil {
		err = cerr
	}
	rw.w.Reset(nil)
	if err != nil {
		os.Remove(rw.path)
		return run{}, rw.fail(err)
	}
	return run{path: rw.path, n: rw.n, size: rw.size}, nil
}

// abort closes and removes a partly written run.
func (rw *runWriter) abort() {
	rw.f.Close()
	rw.w.Reset(nil)
	os.Remove(rw.path)
}

// source is one sorted input to a merge. next advances to the following
// record, which record then returns until the next call to next.
type source interface {
	next() (bool, error)
	record() Record
	close() error
}

// memSource iterates the sorter's sorted in-memory buffer.
type memSource struct {
	s   *Sorter
	i   int
	rec Record
}

func (m *memSource) next() (bool, error) {
	if m.i >= len(m.s.recs) {
		return false, nil
	}
	r := m.s.recs[m.i]
	m.i++
	m.rec = Record{Key: m.s.key(r), Val: m.s.val(r)}
	return true, nil
}

func (m *memSource) record() Record { return m.rec }
func (m *memSource) close() error   { return nil }

// fileSource reads a run file, trusting nothing in it: lengths are checked
// against the bytes the run should still hold, and the file must yield
// exactly as many records as were written.
type fileSource struct {
	f        *os.File
	r        *bufio.Reader
	path     string
	left     int64 // records still to read
	remain   int64 // bytes still to read
	key, val []byte
}

func openRun(r run) (*fileSource, error) {
	f, err := os.Open(r.path)
	if err != nil {
		return nil, fmt.Errorf("extsort: open run: %w", err)
	}
	size := int(min(int64(readBufSize), max(r.size, 16)))
	return &fileSource{f: f, r: bufio.NewReaderSize(f, size), path: r.path, left: r.n, remain: r.size}, nil
}

func (fs *fileSource) next() (bool, error) {
	switch {
	case fs.left == 0 && fs.remain == 0:
		return false, nil
	case fs.left == 0 || fs.remain == 0:
		// The run's record count and its byte count end together in a run
		// as written: one ending first means a length was corrupted, and a
		// record garbled or lost.
		return false, fs.fail(fmt.Errorf("run ends with %d records and %d bytes left", fs.left, fs.remain))
	}
	var err error
	if fs.key, err = fs.field(fs.key); err != nil {
		return false, err
	}
	if fs.val, err = fs.field(fs.val); err != nil {
		return false, err
	}
	fs.left--
	return true, nil
}

// field reads one length-prefixed field into buf's storage.
func (fs *fileSource) field(buf []byte) ([]byte, error) {
	n, err := binary.ReadUvarint(fs.r)
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, fs.fail(err)
	}
	fs.remain -= int64(uvarintLen(n))
	if fs.remain < 0 || n > uint64(fs.remain) {
		return nil, fs.fail(fmt.Errorf("corrupt length %d with %d bytes left", n, max(fs.remain, 0)))
	}
	if uint64(cap(buf)) < n {
		buf = make([]byte, n, max(n, 64))
	}
	buf = buf[:n]
	if _, err := io.ReadFull(fs.r, buf); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, fs.fail(err)
	}
	fs.remain -= int64(n)
	return buf, nil
}

func (fs *fileSource) fail(err error) error {
	return fmt.Errorf("extsort: read run %s: %w", fs.path, err)
}

func (fs *fileSource) record() Record { return Record{Key: fs.key, Val: fs.val} }

func (fs *fileSource) close() error {
	if fs.f == nil {
		return nil
	}
	err := fs.f.Close()
	fs.f = nil
	return err
}

func uvarintLen(x uint64) int {
	n := 1
	for x >= 0x80 {
		x >>= 7
		n++
	}
	return n
}

// heapItem is a source positioned on its current record; ord is the
// source's place in add order, which breaks ties between equal keys.
type heapItem struct {
	src source
	ord int
	rec Record
}

type mergeHeap []*heapItem

func (h mergeHeap) Len() int { return len(h) }
func (h mergeHeap) Less(i, j int) bool {
	if c := bytes.Compare(h[i].rec.Key, h[j].rec.Key); c != 0 {
		return c < 0
	}
	return h[i].ord < h[j].ord
}
func (h mergeHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *mergeHeap) Push(x any)   { *h = append(*h, x.(*heapItem)) }
func (h *mergeHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return x
}

// merger merges sources, given in add order, into one ordered stream.
type merger struct {
	h    mergeHeap
	all  []source
	top  *heapItem // returned last; advanced on the next call to next
	rec  Record
	err  error
	done bool
}

// newMerger positions every source on its first record. On error the
// caller still owns (and must close) the sources.
func newMerger(srcs []source) (*merger, error) {
	m := &merger{all: srcs, h: make(mergeHeap, 0, len(srcs))}
	for i, src := range srcs {
		ok, err := src.next()
		if err != nil {
			return nil, err
		}
		if ok {
			m.h = append(m.h, &heapItem{src: src, ord: i, rec: src.record()})
		}
	}
	heap.Init(&m.h)
	return m, nil
}

func (m *merger) next() bool {
	if m.done {
		return false
	}
	if t := m.top; t != nil {
		m.top = nil
		ok, err := t.src.next()
		switch {
		case err != nil:
			return m.finish(err)
		case ok:
			t.rec = t.src.record()
			heap.Fix(&m.h, 0)
		default:
			heap.Pop(&m.h)
			if err := t.src.close(); err != nil {
				return m.finish(fmt.Errorf("extsort: close run: %w", err))
			}
		}
	}
	if len(m.h) == 0 {
		return m.finish(nil)
	}
	m.top = m.h[0]
	m.rec = m.top.rec
	return true
}

// finish ends the merge, closing every source.
func (m *merger) finish(err error) bool {
	m.done = true
	m.rec = Record{}
	if cerr := m.close(); err == nil && cerr != nil {
		err = fmt.Errorf("extsort: close run: %w", cerr)
	}
	m.err = err
	return false
}

func (m *merger) close() error {
	var first error
	for _, src := range m.all {
		if err := src.close(); err != nil && first == nil {
			first = err
		}
	}
	m.h, m.top = nil, nil
	return first
}

// Iterator walks the sorted records. Use it as
//
//	for it.Next() { r := it.Record(); ... }
//	if err := it.Err(); err != nil { ... }
type Iterator struct {
	m *merger
}

// Next advances to the next record, reporting false at the end or on error.
func (it *Iterator) Next() bool { return it.m.next() }

// Record returns the current record. Its slices are valid until the next
// call to Next (or Close) and must not be modified.
func (it *Iterator) Record() Record { return it.m.rec }

// Err returns the error that ended iteration, if any. A truncated or
// corrupt run file surfaces here.
func (it *Iterator) Err() error { return it.m.err }

// invalidate ends iteration for Close.
func (it *Iterator) invalidate() error {
	if it.m.done {
		return nil
	}
	it.m.done = true
	it.m.rec = Record{}
	it.m.err = ErrClosed
	if err := it.m.close(); err != nil {
		return fmt.Errorf("extsort: close run: %w", err)
	}
	return nil
}
