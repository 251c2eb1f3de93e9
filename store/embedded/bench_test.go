package embedded

import (
	"bytes"
	"math/rand"
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
