package extsort

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"testing"
)

// A zero or negative memory limit is the default one: a few records stay
// in memory.
func TestDefaultMemLimit(t *testing.T) {
	for _, limit := range []int{0, -1} {
		s := New(Options{Dir: t.TempDir(), MemLimit: limit})
		for i := range 1000 {
			if err := s.Add(fmt.Appendf(nil, "key %d", i), []byte("value")); err != nil {
				t.Fatal(err)
			}
		}
		if s.Spilled() != 0 || s.memLimit != DefaultMemLimit {
			t.Errorf("MemLimit %d: %d runs spilled, limit %d; want none under %d", limit, s.Spilled(), s.memLimit, DefaultMemLimit)
		}
		s.Close()
	}
}

// A run file cut short is an unexpected end, whether it ends at a record's
// start, in a length or in its bytes.
func TestTruncatedRunIsUnexpectedEOF(t *testing.T) {
	const recSize = 1 + 8 + 1 + 8
	for name, cut := range map[string]func(size int64) int64{
		"at a record's start": func(size int64) int64 { return size - recSize },
		"after a key length":  func(size int64) int64 { return size - recSize + 1 },
		"mid-key":             func(size int64) int64 { return size - recSize + 4 },
		"to nothing":          func(int64) int64 { return 0 },
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			s := New(Options{Dir: dir, MemLimit: 10 * (16 + recOverhead)})
			defer s.Close()
			for i := range 25 {
				k := binary.BigEndian.AppendUint64(nil, uint64(i))
				if err := s.Add(k, k); err != nil {
					t.Fatal(err)
				}
			}
			files := runFiles(t, dir)
			fi, err := os.Stat(files[0])
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(files[0], cut(fi.Size())); err != nil {
				t.Fatal(err)
			}
			it, err := s.Sort() // a merge reads each run's first record at once
			if err == nil {
				for it.Next() {
				}
				err = it.Err()
			}
			if !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Errorf("a run cut %s: %v, want an unexpected EOF", name, err)
			}
		})
	}
}

func openFiles(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd here")
	}
	return len(fds)
}

// A sort read to its end holds no run file open, and neither does one
// closed halfway.
func TestSortLeavesNoFileOpen(t *testing.T) {
	for _, whole := range []bool{true, false} {
		before := openFiles(t)
		s := New(Options{Dir: t.TempDir(), MemLimit: 1 << 10})
		for i := range 500 {
			if err := s.Add(fmt.Appendf(nil, "%08d", (i*7919)%500), nil); err != nil {
				t.Fatal(err)
			}
		}
		if s.Spilled() < 3 {
			t.Fatalf("%d runs spilled, want several", s.Spilled())
		}
		it, err := s.Sort()
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for (whole || n < 10) && it.Next() {
			n++
		}
		if whole && (it.Err() != nil || n != 500) {
			t.Fatalf("sorted %d records, %v", n, it.Err())
		}
		if whole {
			if open := openFiles(t); open != before {
				t.Errorf("%d files open after the sort, %d before", open, before)
			}
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if open := openFiles(t); open != before {
			t.Errorf("whole %v: %d files open after Close, %d before", whole, open, before)
		}
	}
}

type brokenWriter struct{}

func (brokenWriter) Write([]byte) (int, error) { return 0, errors.New("disk gone") }

// A run whose buffered records cannot be flushed is an error, and its file
// is removed, even though the file itself closes.
func TestRunFlushFailure(t *testing.T) {
	s := New(Options{Dir: t.TempDir()})
	defer s.Close()
	rw, err := s.createRun()
	if err != nil {
		t.Fatal(err)
	}
	rw.w = bufio.NewWriter(brokenWriter{})
	if err := rw.write([]byte("key"), []byte("val")); err != nil {
		t.Fatal(err)
	}
	if _, err := rw.finish(); err == nil {
		t.Error("a run that could not be flushed finished")
	}
	if _, err := os.Stat(rw.path); !os.IsNotExist(err) {
		t.Errorf("the failed run's file is still there (%v)", err)
	}
}

// closeFails is a source with no records whose close fails.
type closeFails struct{ closes int }

func (c *closeFails) next() (bool, error) { return false, nil }
func (c *closeFails) record() Record      { return Record{} }
func (c *closeFails) close() error        { c.closes++; return errors.New("close failed") }

// A merge whose sources all read to their end still fails if one of them
// will not close.
func TestMergeCloseFailure(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	for _, k := range []string{"b", "a"} {
		if err := s.Add([]byte(k), nil); err != nil {
			t.Fatal(err)
		}
	}
	s.sortBuf()
	for _, order := range [][]int{{0, 1}, {1, 0}} {
		srcs := make([]source, 2)
		bad := &closeFails{}
		srcs[order[0]], srcs[order[1]] = bad, &memSource{s: s}
		m, err := newMerger(srcs)
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for m.next() {
			keys = append(keys, string(m.rec.Key))
		}
		if fmt.Sprint(keys) != "[a b]" || m.err == nil || bad.closes == 0 {
			t.Errorf("order %v: merged %v, error %v, closed %d times; want [a b] and the close failure", order, keys, m.err, bad.closes)
		}
	}
}

// The arena fills its chunks in order, each up to its capacity: a record
// that exactly fills a chunk stays in it, one that does not fit starts the
// next, and no chunk grows past the larger of maxChunk and one record.
func TestArenaChunks(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	key := make([]byte, 1000)
	for range 4 {
		if err := s.Add(key, make([]byte, minChunk/4-1000)); err != nil { // a quarter of a chunk each
			t.Fatal(err)
		}
	}
	if len(s.chunks) != 1 || len(s.chunks[0]) != minChunk {
		t.Fatalf("four quarters: %d chunks, the first %d bytes; want one full chunk of %d", len(s.chunks), len(s.chunks[0]), minChunk)
	}
	if err := s.Add([]byte("k"), nil); err != nil {
		t.Fatal(err)
	}
	if len(s.chunks) != 2 || cap(s.chunks[0]) != minChunk || cap(s.chunks[1]) != 2*minChunk {
		t.Errorf("one more: %d chunks of %d and %d bytes; want a second of %d", len(s.chunks), cap(s.chunks[0]), cap(s.chunks[len(s.chunks)-1]), 2*minChunk)
	}
	for range 3000 {
		if err := s.Add(key, key); err != nil {
			t.Fatal(err)
		}
	}
	for i, c := range s.chunks {
		if cap(c) > maxChunk {
			t.Errorf("chunk %d holds %d bytes, over %d", i, cap(c), maxChunk)
		}
	}
	it, err := s.Sort()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for it.Next() {
		n++
	}
	if n != 3005 || it.Err() != nil {
		t.Errorf("sorted %d, %v", n, it.Err())
	}
}

// After a spill the arena's chunks are reused: the next run's records cost
// no new chunk.
func TestArenaReusedAfterSpill(t *testing.T) {
	const limit = 4 << 20
	s := New(Options{Dir: t.TempDir(), MemLimit: limit})
	defer s.Close()
	val := make([]byte, 1000)
	add := func(n int) {
		for i := range n {
			if err := s.Add(binary.BigEndian.AppendUint64(nil, uint64(i)), val); err != nil {
				t.Fatal(err)
			}
		}
	}
	perRun := limit / (8 + 1000 + recOverhead)
	add(perRun + 1) // the first run spills, its chunks kept
	if s.Spilled() != 1 || !slices.ContainsFunc(s.chunks, func(c []byte) bool { return cap(c) == maxChunk }) {
		t.Fatalf("%d runs spilled, chunks of %v bytes; want one run and full-size chunks kept", s.Spilled(), caps(s.chunks))
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	add(perRun - 2) // the second run, short of spilling
	runtime.ReadMemStats(&after)
	if s.Spilled() != 1 {
		t.Fatalf("%d runs spilled, want 1", s.Spilled())
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > maxChunk/2 {
		t.Errorf("the second run allocated %d bytes: the first run's chunks were not reused", grew)
	}
}

func caps(cs [][]byte) []int {
	var out []int
	for _, c := range cs {
		out = append(out, cap(c))
	}
	return out
}

// A length whose varint just needs one more byte (128, 16384) is read
// back from a spilled run as it was written: the run's byte count must
// agree with the lengths' own sizes.
func TestLengthsAtVarintEdges(t *testing.T) {
	var recs []Record
	for i, n := range []int{127, 128, 129, 16383, 16384} {
		recs = append(recs, Record{Key: bytes.Repeat([]byte{byte('a' + i)}, n), Val: bytes.Repeat([]byte{'v'}, n)})
	}
	got, s := runSort(t, recs, Options{Dir: t.TempDir(), MemLimit: 1})
	if s.Spilled() != len(recs)-1 {
		t.Fatalf("%d runs spilled, want one a record but the last", s.Spilled())
	}
	checkSame(t, got, stableSorted(recs))
}
