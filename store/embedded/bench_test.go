package embedded

import (
	"bytes"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"testing"

	"commentbench/store"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// The put benchmarks write the same rows the same way: batches of 100 rows,
// 20-byte keys (spread over the key space), 200-byte values, NoSync, on a
// Pebble DB in a temp dir with the engine's Pebble options. Both report
// rows/s so a script can take the engine/raw ratio.

const (
	benchBatch    = 100
	benchValueLen = 200
)

var benchValue = bytes.Repeat([]byte("v"), benchValueLen)

// benchKey writes the 20-byte key of row i into dst.
func benchKey(dst []byte, i uint64) []byte {
	// A multiplicative hash spreads consecutive rows over the key space, as
	// hashed row keys do.
	h := (i * 0x9e3779b97f4a7c15) % 1e19
	dst = dst[:0]
	s := strconv.AppendUint(make([]byte, 0, 20), h, 10)
	for range 20 - len(s) {
		dst = append(dst, '0')
	}
	return append(dst, s...)
}

func reportRows(b *testing.B, rows int) {
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
}

func openBenchEngine(b *testing.B) *Engine {
	e, err := Open(Options{Dir: b.TempDir(), CreateIfMissing: true})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	if err := e.CreateTable(ctx, store.TableSpec{Name: "bench", Family: "cf"}); err != nil {
		b.Fatal(err)
	}
	return e
}

func BenchmarkEnginePut(b *testing.B) {
	e := openBenchEngine(b)
	muts := make([]store.Mutation, benchBatch)
	keys := make([][]byte, benchBatch)
	q := []byte("q")
	var n uint64
	b.ReportAllocs()
	for b.Loop() {
		for i := range muts {
			keys[i] = benchKey(keys[i], n)
			n++
			muts[i] = store.Put(keys[i], store.Cell{Qualifier: q, Value: benchValue})
		}
		if err := e.Mutate(ctx, "bench", muts...); err != nil {
			b.Fatal(err)
		}
	}
	reportRows(b, b.N*benchBatch)
}

func BenchmarkRawPebblePut(b *testing.B) {
	db, err := pebble.Open(b.TempDir(), pebbleOptions(vfs.Default, nil))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	var key []byte
	var n uint64
	b.ReportAllocs()
	for b.Loop() {
		batch := db.NewBatch()
		for range benchBatch {
			key = benchKey(key, n)
			n++
			if err := batch.Set(key, benchValue, nil); err != nil {
				b.Fatal(err)
			}
		}
		if err := batch.Commit(pebble.NoSync); err != nil {
			b.Fatal(err)
		}
		batch.Close()
	}
	reportRows(b, b.N*benchBatch)
}

// loadBench fills the bench table with rows 0..n-1.
func loadBench(b *testing.B, e *Engine, n int) {
	var muts []store.Mutation
	for i := range n {
		muts = append(muts, store.Put(benchKey(nil, uint64(i)), store.Cell{Qualifier: []byte("q"), Value: benchValue}))
		if len(muts) == benchBatch {
			if err := e.Mutate(ctx, "bench", muts...); err != nil {
				b.Fatal(err)
			}
			muts = muts[:0]
		}
	}
	e.WaitIdle()
}

func BenchmarkEngineGet(b *testing.B) {
	e := openBenchEngine(b)
	const rows = 20000
	loadBench(b, e, rows)
	r := rand.New(rand.NewSource(1))
	var key []byte
	b.ReportAllocs()
	for b.Loop() {
		key = benchKey(key, uint64(r.Intn(rows)))
		row, err := e.Get(ctx, "bench", key)
		if err != nil || !row.Found() {
			b.Fatalf("get %q: %v %v", key, row.Found(), err)
		}
	}
	reportRows(b, b.N)
}

func BenchmarkEngineScan(b *testing.B) {
	e := openBenchEngine(b)
	const rows, per = 20000, 1000
	loadBench(b, e, rows)
	r := rand.New(rand.NewSource(1))
	var key []byte
	total := 0
	b.ReportAllocs()
	for b.Loop() {
		key = benchKey(key, uint64(r.Intn(rows)))
		_, err := e.Scan(ctx, "bench", store.Scan{Start: key, Limit: per}, func(store.Row) bool {
			total++
			return true
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	reportRows(b, total)
}

// BenchmarkReadSlice reads a 10-column page at a random column of a row
// of 100,000: what a page costs must not grow with the row.
func BenchmarkReadSlice(b *testing.B) {
	e := openBenchEngine(b)
	const cols, page = 100_000, 10
	row := []byte("wide")
	qualifier := func(i int) []byte { return []byte(fmt.Sprintf("c%06d", i)) }
	for i := 0; i < cols; i += 1000 {
		cells := make([]store.Cell, 1000)
		for j := range cells {
			cells[j] = store.Cell{Qualifier: qualifier(i + j), Value: benchValue[:20]}
		}
		if err := e.Mutate(ctx, "bench", store.Put(row, cells...)); err != nil {
			b.Fatal(err)
		}
	}
	e.WaitIdle()
	r := rand.New(rand.NewSource(1))
	reads := []store.Read{{Row: row, Slice: &store.Slice{Limit: page}}}
	var start []byte
	b.ReportAllocs()
	for b.Loop() {
		start = fmt.Appendf(start[:0], "c%06d", r.Intn(cols-page))
		reads[0].Slice.Start = start
		got, m, err := e.Read(ctx, "bench", reads)
		if err != nil || len(got[0].Cells) != page || m.CellsScanned != page {
			b.Fatalf("page: %d cells, %+v, %v", len(got[0].Cells), m, err)
		}
	}
	reportRows(b, b.N)
}

// The comment-write benchmarks do what the seed's write path does for one
// comment, each step its own write: read the order row, then put the
// comment and its two index rows, three commits. The engine does it through
// Get and Mutate; raw Pebble with a Get and three Sets of the same keys and
// values, the floor the engine's bookkeeping (regions, row locks, cell
// encoding) adds to. Both report comments/s.

const commentOrders = 10_000

var (
	commentValue = bytes.Repeat([]byte("c"), 160)
	indexValue   = bytes.Repeat([]byte("k"), 36)
)

// commentKeys writes the order, comment and index keys of comment i.
func commentKeys(dst *[4][]byte, i uint64) {
	dst[0] = append(benchKey(dst[0], i%commentOrders), "-order"...)
	dst[1] = append(benchKey(dst[1], i), "-comment-0000000001"...)
	dst[2] = append(append(dst[2][:0], "user-000123-"...), benchKey(nil, i)...)
	dst[3] = append(append(dst[3][:0], "product-004567-"...), benchKey(nil, i)...)
}

func BenchmarkCommentWriteEngine(b *testing.B) {
	e := openBenchEngine(b)
	for _, name := range []string{"comment", "user_comment", "product_comment"} {
		if err := e.CreateTable(ctx, store.TableSpec{Name: name, Family: "cf"}); err != nil {
			b.Fatal(err)
		}
	}
	var k [4][]byte
	for i := range uint64(commentOrders) {
		commentKeys(&k, i)
		if err := e.Mutate(ctx, "bench", store.Put(k[0], store.Cell{Qualifier: []byte("q"), Value: benchValue})); err != nil {
			b.Fatal(err)
		}
	}
	q := []byte("q")
	b.ReportAllocs()
	n := uint64(0)
	for b.Loop() {
		commentKeys(&k, n)
		n++
		if row, err := e.Get(ctx, "bench", k[0]); err != nil || !row.Found() {
			b.Fatalf("order %q: found %v, %v", k[0], row.Found(), err)
		}
		for j, t := range []string{"comment", "user_comment", "product_comment"} {
			v := indexValue
			if j == 0 {
				v = commentValue
			}
			if err := e.Mutate(ctx, t, store.Put(k[j+1], store.Cell{Qualifier: q, Value: v})); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "comments/s")
}

func BenchmarkCommentWriteRawPebble(b *testing.B) {
	db, err := pebble.Open(b.TempDir(), pebbleOptions(vfs.Default, nil))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	var k [4][]byte
	for i := range uint64(commentOrders) {
		commentKeys(&k, i)
		if err := db.Set(k[0], benchValue, pebble.NoSync); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	n := uint64(0)
	for b.Loop() {
		commentKeys(&k, n)
		n++
		v, closer, err := db.Get(k[0])
		if err != nil || len(v) == 0 {
			b.Fatalf("order %q: %v", k[0], err)
		}
		closer.Close()
		for j := 1; j < 4; j++ {
			v := indexValue
			if j == 1 {
				v = commentValue
			}
			if err := db.Set(k[j], v, pebble.NoSync); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "comments/s")
}

// BenchmarkRawScanDir is one raw Pebble scan of every data key of the data
// dir named by CB_SCAN_DIR (skipped without it): the floor a full check of
// that data is compared with (make bench). It reports the distinct rows
// seen, over all tables, per second.
func BenchmarkRawScanDir(b *testing.B) {
	dir := os.Getenv("CB_SCAN_DIR")
	if dir == "" {
		b.Skip("CB_SCAN_DIR names no data dir")
	}
	o := pebbleOptions(vfs.Default, nil)
	o.ReadOnly = true
	db, err := pebble.Open(dir, o)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	rows := 0
	for b.Loop() {
		rows = 0
		it, err := db.NewIter(&pebble.IterOptions{LowerBound: []byte{spaceData}})
		if err != nil {
			b.Fatal(err)
		}
		var last []byte
		for valid := it.First(); valid; valid = it.Next() {
			k := it.Key()
			if p := k[:splitRow(k)]; !bytes.Equal(p, last) {
				last = append(last[:0], p...)
				rows++
			}
			_ = it.Value()
		}
		if err := it.Close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(rows), "rows")
	b.ReportMetric(float64(rows*b.N)/b.Elapsed().Seconds(), "rows/s")
}
