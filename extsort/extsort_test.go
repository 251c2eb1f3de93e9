package extsort

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// genRecords makes n records with many duplicate keys, empty keys and
// values, and keys full of 0x00 and 0xff. Most values carry the record's
// index so a wrong order among equal keys is visible.
func genRecords(rng *rand.Rand, n int) []Record {
	alphabet := []byte{0x00, 0x01, 'a', 'b', 0xfe, 0xff}
	pool := make([][]byte, 1+n/8)
	for i := range pool {
		k := make([]byte, rng.IntN(6))
		for j := range k {
			k[j] = alphabet[rng.IntN(len(alphabet))]
		}
		pool[i] = k
	}
	recs := make([]Record, n)
	for i := range recs {
		var key []byte
		switch rng.IntN(10) {
		case 0:
			key = nil
		case 1:
			key = bytes.Repeat([]byte{0xff}, 1+rng.IntN(4))
		case 2:
			key = make([]byte, 1+rng.IntN(4)) // all 0x00
		default:
			key = pool[rng.IntN(len(pool))]
		}
		var val []byte
		if rng.IntN(8) != 0 {
			val = binary.AppendUvarint(nil, uint64(i))
		}
		recs[i] = Record{Key: key, Val: val}
	}
	return recs
}

func stableSorted(recs []Record) []Record {
	want := slices.Clone(recs)
	slices.SortStableFunc(want, func(a, b Record) int { return bytes.Compare(a.Key, b.Key) })
	return want
}

// runSort feeds recs through a Sorter (through a reused buffer, to check
// that Add copies) and returns copies of what comes out.
func runSort(t testing.TB, recs []Record, o Options) ([]Record, *Sorter) {
	t.Helper()
	s := New(o)
	t.Cleanup(func() { s.Close() })
	var kb, vb []byte
	for _, r := range recs {
		kb = append(kb[:0], r.Key...)
		vb = append(vb[:0], r.Val...)
		if err := s.Add(kb, vb); err != nil {
			t.Fatalf("Add: %v", err)
		}
		for i := range kb {
			kb[i] ^= 0x5a // scribble over the caller's buffer
		}
	}
	if s.Len() != int64(len(recs)) {
		t.Fatalf("Len = %d, want %d", s.Len(), len(recs))
	}
	it, err := s.Sort()
	if err != nil {
		t.Fatalf("Sort: %v", err)
	}
	var got []Record
	for it.Next() {
		r := it.Record()
		got = append(got, Record{Key: slices.Clone(r.Key), Val: slices.Clone(r.Val)})
	}
	if err := it.Err(); err != nil {
		t.Fatalf("iterate: %v", err)
	}
	return got, s
}

func checkSame(t testing.TB, got, want []Record) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d records, want %d", len(got), len(want))
	}
	for i := range want {
		if !bytes.Equal(got[i].Key, want[i].Key) || !bytes.Equal(got[i].Val, want[i].Val) {
			t.Fatalf("record %d = (%x, %x), want (%x, %x)", i, got[i].Key, got[i].Val, want[i].Key, want[i].Val)
		}
	}
}

func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != dir {
			names = append(names, p)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return names
}

func runFiles(t *testing.T, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "extsort-*", "run-*"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func TestSortInMemory(t *testing.T) {
	dir := t.TempDir()
	recs := genRecords(rand.New(rand.NewPCG(1, 2)), 20000)
	got, s := runSort(t, recs, Options{Dir: dir, MemLimit: 1 << 30})
	checkSame(t, got, stableSorted(recs))
	if s.Spilled() != 0 {
		t.Errorf("Spilled = %d, want 0", s.Spilled())
	}
	if e := dirEntries(t, dir); len(e) != 0 {
		t.Errorf("in-memory sort created files: %v", e)
	}
}

func TestSortSpillMultiPass(t *testing.T) {
	dir := t.TempDir()
	recs := genRecords(rand.New(rand.NewPCG(3, 4)), 6000)
	// About 55 bytes per record, so ~36 records per run and ~165 runs.
	s := New(Options{Dir: dir, MemLimit: 2000})
	defer s.Close()
	for _, r := range recs {
		if err := s.Add(r.Key, r.Val); err != nil {
			t.Fatal(err)
		}
	}
	if s.Spilled() <= fanIn {
		t.Fatalf("Spilled = %d, want > %d to exercise merge passes", s.Spilled(), fanIn)
	}
	it, err := s.Sort()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(runFiles(t, dir)); n > fanIn {
		t.Errorf("%d run files left for the final merge, want <= %d", n, fanIn)
	}
	var got []Record
	for it.Next() {
		r := it.Record()
		got = append(got, Record{Key: slices.Clone(r.Key), Val: slices.Clone(r.Val)})
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	checkSame(t, got, stableSorted(recs))
}

// TestSortManyPasses shrinks the fan-in and spills one record per run, so
// it takes several merge passes to get under the fan-in.
func TestSortManyPasses(t *testing.T) {
	for _, fan := range []int{2, 3, 5} {
		t.Run(fmt.Sprint(fan), func(t *testing.T) {
			defer func(old int) { fanIn = old }(fanIn)
			fanIn = fan
			for _, n := range []int{fan, fan + 1, 2*fan + 1, 150} {
				dir := t.TempDir()
				recs := genRecords(rand.New(rand.NewPCG(5, uint64(n))), n)
				got, s := runSort(t, recs, Options{Dir: dir, MemLimit: 1})
				if s.Spilled() != n-1 {
					t.Errorf("Spilled = %d, want %d", s.Spilled(), n-1)
				}
				if files := runFiles(t, dir); len(files) > fan {
					t.Errorf("n=%d: %d run files left for the final merge", n, len(files))
				}
				checkSame(t, got, stableSorted(recs))
			}
		})
	}
}

func TestSortEmpty(t *testing.T) {
	got, s := runSort(t, nil, Options{Dir: t.TempDir()})
	if len(got) != 0 || s.Spilled() != 0 {
		t.Fatalf("got %d records, %d spills", len(got), s.Spilled())
	}
}

func TestSortLargeRecords(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var recs []Record
	for i := range 40 {
		k := make([]byte, 1+rng.IntN(3))
		for j := range k {
			k[j] = byte(rng.IntN(3))
		}
		v := bytes.Repeat([]byte{byte(i)}, rng.IntN(3*maxChunk)) // some bigger than a chunk
		recs = append(recs, Record{Key: k, Val: v})
	}
	got, s := runSort(t, recs, Options{Dir: t.TempDir(), MemLimit: 4 << 20})
	if s.Spilled() == 0 {
		t.Error("expected spills")
	}
	checkSame(t, got, stableSorted(recs))
}

func TestSortProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	sizes := []int{0, 1, 2, 3, 10, 63, 64, 65, 100, 500, 2000}
	limits := []int{1, 500, 4096, 1 << 20}
	for _, n := range sizes {
		for _, lim := range limits {
			if lim == 1 && n > 100 {
				continue // one file per record; TestSortManyPasses covers it
			}
			recs := genRecords(rng, n)
			got, _ := runSort(t, recs, Options{Dir: t.TempDir(), MemLimit: lim})
			checkSame(t, got, stableSorted(recs))
		}
	}
}

// Input already in key order (as a scan of a table keyed like the records
// files them) is left unsorted in each buffer; one record out of place,
// wherever it falls in a buffer or among the runs, sorts again.
func TestSortInOrderInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	ordered := stableSorted(genRecords(rng, 600))
	for _, lim := range []int{500, 4096, 1 << 20} {
		got, _ := runSort(t, ordered, Options{Dir: t.TempDir(), MemLimit: lim})
		checkSame(t, got, ordered)
		for _, from := range []int{0, 1, 299, 598, 599} {
			for _, to := range []int{0, 1, 300, 599} {
				recs := slices.Clone(ordered)
				r := recs[from]
				recs = slices.Insert(slices.Delete(recs, from, from+1), to, r)
				got, _ := runSort(t, recs, Options{Dir: t.TempDir(), MemLimit: lim})
				checkSame(t, got, stableSorted(recs))
			}
		}
	}
}

func TestCloseRemovesFiles(t *testing.T) {
	recs := genRecords(rand.New(rand.NewPCG(11, 12)), 3000)
	cases := []struct {
		name string
		use  func(t *testing.T, s *Sorter)
	}{
		{"never sorted", func(t *testing.T, s *Sorter) {}},
		{"sorted, not iterated", func(t *testing.T, s *Sorter) {
			if _, err := s.Sort(); err != nil {
				t.Fatal(err)
			}
		}},
		{"partial iteration", func(t *testing.T, s *Sorter) {
			it, err := s.Sort()
			if err != nil {
				t.Fatal(err)
			}
			for range 100 {
				if !it.Next() {
					t.Fatal("iterator ended early")
				}
			}
		}},
		{"full iteration", func(t *testing.T, s *Sorter) {
			it, err := s.Sort()
			if err != nil {
				t.Fatal(err)
			}
			for it.Next() {
			}
			if err := it.Err(); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			s := New(Options{Dir: dir, MemLimit: 4000})
			for _, r := range recs {
				if err := s.Add(r.Key, r.Val); err != nil {
					t.Fatal(err)
				}
			}
			if len(runFiles(t, dir)) == 0 {
				t.Fatal("no run files written")
			}
			c.use(t, s)
			if err := s.Close(); err != nil {
				t.Fatalf("Close: %v", err)
			}
			if e := dirEntries(t, dir); len(e) != 0 {
				t.Errorf("left behind: %v", e)
			}
			if err := s.Close(); err != nil {
				t.Errorf("second Close: %v", err)
			}
		})
	}
}

func TestIteratorAfterClose(t *testing.T) {
	s := New(Options{Dir: t.TempDir(), MemLimit: 500})
	for i := range 1000 {
		s.Add(fmt.Appendf(nil, "%05d", i), nil)
	}
	it, err := s.Sort()
	if err != nil {
		t.Fatal(err)
	}
	it.Next()
	s.Close()
	if it.Next() {
		t.Error("Next after Close = true")
	}
	if !errors.Is(it.Err(), ErrClosed) {
		t.Errorf("Err after Close = %v, want ErrClosed", it.Err())
	}
}

func TestAddAfterSort(t *testing.T) {
	s := New(Options{Dir: t.TempDir()})
	defer s.Close()
	if err := s.Add([]byte("a"), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Sort(); err != nil {
		t.Fatal(err)
	}
	if err := s.Add([]byte("b"), nil); !errors.Is(err, ErrSorted) {
		t.Errorf("Add after Sort = %v, want ErrSorted", err)
	}
	if _, err := s.Sort(); !errors.Is(err, ErrSorted) {
		t.Errorf("second Sort = %v, want ErrSorted", err)
	}
	s.Close()
	if err := s.Add([]byte("c"), nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Add after Close = %v, want ErrClosed", err)
	}
	s2 := New(Options{})
	s2.Close()
	if _, err := s2.Sort(); !errors.Is(err, ErrClosed) {
		t.Errorf("Sort after Close = %v, want ErrClosed", err)
	}
}

// TestCorruptRun damages a run file after it is spilled and before Sort;
// the damage must surface as an error from Sort or the iterator, never as
// a panic or a silently short result.
func TestCorruptRun(t *testing.T) {
	const recSize = 1 + 8 + 1 + 8 // every record: 8-byte key, 8-byte value
	damages := []struct {
		name string
		do   func(path string, size int64) error
	}{
		{"truncate half", func(p string, size int64) error { return os.Truncate(p, size/2) }},
		{"truncate to empty", func(p string, size int64) error { return os.Truncate(p, 0) }},
		{"truncate mid-length", func(p string, size int64) error { return os.Truncate(p, size-recSize+1) }},
		{"drop last record", func(p string, size int64) error { return os.Truncate(p, size-recSize) }},
		{"huge length", func(p string, size int64) error {
			f, err := os.OpenFile(p, os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = f.WriteAt(binary.AppendUvarint(nil, 1<<62), recSize*3)
			return err
		}},
		{"removed", func(p string, size int64) error { return os.Remove(p) }},
		// A value length that swallows the next record: the bytes run out a
		// record before the count does.
		{"length swallows a record", func(p string, size int64) error {
			f, err := os.OpenFile(p, os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = f.WriteAt(binary.AppendUvarint(nil, 8+recSize), recSize*3+1+8)
			return err
		}},
	}
	for _, runs := range []int{4, fanIn + 6} {
		for _, d := range damages {
			t.Run(fmt.Sprintf("%s/%d runs", d.name, runs), func(t *testing.T) {
				dir := t.TempDir()
				perRun := 20
				s := New(Options{Dir: dir, MemLimit: perRun * (16 + recOverhead)})
				defer s.Close()
				n := runs*perRun + 5
				for i := range n {
					k := binary.BigEndian.AppendUint64(nil, uint64(i*7919%n))
					if err := s.Add(k, k); err != nil {
						t.Fatal(err)
					}
				}
				if s.Spilled() != runs {
					t.Fatalf("Spilled = %d, want %d", s.Spilled(), runs)
				}
				files := runFiles(t, dir)
				slices.Sort(files)
				target := files[1]
				fi, err := os.Stat(target)
				if err != nil {
					t.Fatal(err)
				}
				if fi.Size() != int64(perRun*recSize) {
					t.Fatalf("run size %d, want %d", fi.Size(), perRun*recSize)
				}
				if err := d.do(target, fi.Size()); err != nil {
					t.Fatal(err)
				}
				it, err := s.Sort()
				if err != nil {
					t.Logf("Sort: %v", err)
					return
				}
				count := 0
				for it.Next() {
					count++
				}
				if it.Err() == nil {
					t.Fatalf("no error after %d of %d records", count, n)
				}
				t.Logf("after %d records: %v", count, it.Err())
			})
		}
	}
}

func TestSpillWriteError(t *testing.T) {
	base := filepath.Join(t.TempDir(), "missing")
	s := New(Options{Dir: base, MemLimit: 100})
	defer s.Close()
	var err error
	for i := 0; i < 100 && err == nil; i++ {
		err = s.Add([]byte("key"), []byte("value"))
	}
	if err == nil {
		t.Fatal("no error spilling into a missing directory")
	}
	if err2 := s.Add([]byte("k"), nil); err2 == nil {
		t.Error("Add after a failed spill succeeded")
	}
	if _, err2 := s.Sort(); err2 == nil {
		t.Error("Sort after a failed spill succeeded")
	}
}

// TestAddAllocs checks that buffered records share arena storage rather
// than costing an allocation each.
func TestAddAllocs(t *testing.T) {
	const n = 100000
	key := make([]byte, 20)
	allocs := testing.AllocsPerRun(1, func() {
		s := New(Options{MemLimit: 1 << 30})
		for i := range n {
			binary.BigEndian.PutUint64(key, uint64(i))
			s.Add(key, key)
		}
		s.Close()
	})
	if allocs > n/100 {
		t.Errorf("%v allocations for %d records", allocs, n)
	}
}

// FuzzSort splits its input into records: each starts with a byte whose low
// nibble is the key length and high nibble the value length. limit sets the
// memory budget, small enough to spill.
func FuzzSort(f *testing.F) {
	f.Add([]byte("\x21ab\x00\x10x\x11\xff\xff\x01\x00"), uint16(60))
	f.Add(bytes.Repeat([]byte{0x11, 'k', 'v', 0x10, 0x00, 0x01, 'k'}, 50), uint16(1))
	f.Add([]byte{}, uint16(0))
	f.Fuzz(func(t *testing.T, data []byte, limit uint16) {
		var recs []Record
		for len(data) > 0 {
			kl, vl := int(data[0]&0x0f), int(data[0]>>4)
			data = data[1:]
			kl = min(kl, len(data))
			k := data[:kl]
			data = data[kl:]
			vl = min(vl, len(data))
			recs = append(recs, Record{Key: k, Val: data[:vl]})
			data = data[vl:]
		}
		got, _ := runSort(t, recs, Options{Dir: t.TempDir(), MemLimit: int(limit)%2000 + 1})
		checkSame(t, got, stableSorted(recs))
	})
}

func benchSort(b *testing.B, memLimit int) {
	const n = 1_000_000
	rng := rand.New(rand.NewPCG(1, 1))
	data := make([]byte, n*40)
	for i := 0; i < len(data); i += 8 {
		binary.LittleEndian.PutUint64(data[i:], rng.Uint64())
	}
	dir := b.TempDir()
	b.ReportAllocs()
	b.ResetTimer()
	spilled := 0
	for range b.N {
		s := New(Options{Dir: dir, MemLimit: memLimit})
		for i := range n {
			r := data[i*40 : i*40+40]
			if err := s.Add(r[:20], r[20:]); err != nil {
				b.Fatal(err)
			}
		}
		it, err := s.Sort()
		if err != nil {
			b.Fatal(err)
		}
		count := 0
		for it.Next() {
			count++
		}
		if err := it.Err(); err != nil {
			b.Fatal(err)
		}
		if count != n {
			b.Fatalf("got %d records", count)
		}
		spilled = s.Spilled()
		s.Close()
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "records/s")
	b.ReportMetric(float64(spilled), "runs")
}

func BenchmarkSort1M(b *testing.B)         { benchSort(b, 16<<20) }
func BenchmarkSort1MInMemory(b *testing.B) { benchSort(b, 1<<30) }

// TestMergeOnlyWhatIsNeeded: one run over the fan-in should cost a 2-way
// merge of the first two runs, leaving the others untouched.
func TestMergeOnlyWhatIsNeeded(t *testing.T) {
	defer func(old int) { fanIn = old }(fanIn)
	fanIn = 4
	dir := t.TempDir()
	s := New(Options{Dir: dir, MemLimit: 1})
	defer s.Close()
	for i := range 6 { // 5 runs plus a 1-record tail
		if err := s.Add([]byte{byte(i)}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Sort(); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range runFiles(t, dir) {
		names = append(names, filepath.Base(f))
	}
	slices.Sort(names)
	want := []string{"run-000003", "run-000004", "run-000005", "run-000006"}
	if !slices.Equal(names, want) {
		t.Errorf("run files after Sort = %v, want %v", names, want)
	}
}
