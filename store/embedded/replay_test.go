package embedded

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"commentbench/comments"
	"commentbench/keys"
	"commentbench/results"
	"commentbench/store"
	"commentbench/workload"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// BenchmarkArrivalReplayRawPebble is the floor under the harness's comment
// writes (workload's BenchmarkCommentWriteEmbedded/workers=1): the same
// scenario is run once, untimed, on an engine that notes every Pebble key
// and value its writes produce and every row its reads seek; then raw
// Pebble, with the engine's options, replays exactly those reads and
// writes, each write its own commit as the engine's are. Same keys, same
// values, same order, so the same compactions: what is left between the
// two is the harness and the engine. It reports comment writes/s.
func BenchmarkArrivalReplayRawPebble(b *testing.B) {
	seed, run, comments := captureArrivals(b, b.N, b.TempDir())
	db, err := pebble.Open(b.TempDir(), replayOptions())
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if err := replay(db, seed); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	if err := replay(db, run); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(float64(comments)/b.Elapsed().Seconds(), "comments/s")
}

// replayOptions are the engine's Pebble options at its default block cache.
func replayOptions() *pebble.Options {
	o := pebbleOptions(vfs.Default, nil)
	o.CacheSize = defaultCacheSize
	return o
}

// A capturedOp is one engine call as Pebble saw it: a write's keys and
// values, committed together, or a read's row bounds.
type capturedOp struct {
	kvs    [][2][]byte // a write
	lo, hi []byte      // a read
}

// captureArrivals runs n write arrivals of the steady preset (workload's
// bench shape) on a capturing engine in dir and returns the ops of
// preparing the run, those of the run, and its comment writes.
func captureArrivals(b testing.TB, n int, dir string) (seed, run []capturedOp, comments int64) {
	b.Helper()
	c := &capturing{}
	c.tick()
	e, err := Open(Options{Dir: dir, CreateIfMissing: true, Now: c.clock.Load})
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	c.Engine = e
	sc, _ := workload.Preset("steady")
	sc.Workers, sc.RankEvery, sc.Burst.Every = 1, 0, 0
	sc.Mix = map[string]float64{"write": 1}
	sc.Users, sc.Products = 2000, 200
	sc.Ops, sc.Duration, sc.Warmup, sc.LoadPerUser = int64(n), 0, 0, 0
	written, err := runScenario(c, sc)
	if err != nil {
		b.Fatal(err)
	}
	if c.unreplayable != "" {
		b.Fatalf("the run made a %s, which the replay cannot repeat", c.unreplayable)
	}
	return c.ops[:c.prepared], c.ops[c.prepared:], written
}

// runScenario prepares and runs sc on c, marking where the run began, and
// returns its comment writes.
func runScenario(c *capturing, sc workload.Scenario) (int64, error) {
	layout, err := keys.Load(sc.Layout)
	if err != nil {
		return 0, err
	}
	set := results.NewSet(workload.ResultNames())
	cfg := workload.Config{Scenario: sc, Results: set, WorkersTotal: 1, Sys: comments.New(c, comments.Options{Layout: layout})}
	env, err := workload.Prepare(context.Background(), cfg)
	if err != nil {
		return 0, err
	}
	c.prepared = len(c.ops)
	if _, err := env.Run(context.Background(), cfg); err != nil {
		return 0, err
	}
	for _, t := range set.Totals() {
		if t.Op == "comment-write" {
			return t.Count, nil // as the harness side counts them
		}
	}
	return 0, fmt.Errorf("no comment-write results")
}

// capturing is an engine that notes, for the replay, the Pebble keys and
// values of its writes and the bounds of its point reads. One worker calls
// it, so it takes no lock. The engine's clock is the capture's: it stands
// still through each write, so the timestamps noted are the ones the
// engine writes (two writes of a cell in one millisecond are one key in
// both, where a clock read apart could split them across a tick).
type capturing struct {
	*Engine
	clock        atomic.Int64 // ms; the engine's splitter reads it too
	ops          []capturedOp
	prepared     int
	unreplayable string
}

// tick sets the clock to now and returns it.
func (c *capturing) tick() int64 {
	now := time.Now().UnixMilli()
	c.clock.Store(now)
	return now
}

var _ store.Store = (*capturing)(nil)

func (c *capturing) Mutate(ctx context.Context, name string, muts ...store.Mutation) error {
	t, err := c.table(name)
	if err != nil {
		return err
	}
	var op capturedOp
	now := c.tick()
	for _, m := range muts {
		if m.DeleteRow {
			c.unreplayable = "row delete"
		}
		op.kvs = appendCellKVs(op.kvs, t, m.Row, m.Cells, now)
	}
	c.ops = append(c.ops, op)
	return c.Engine.Mutate(ctx, name, muts...)
}

// appendCellKVs appends the Pebble keys and values the engine writes for
// cells of row, as putCells makes them.
func appendCellKVs(kvs [][2][]byte, t *table, row []byte, cells []store.Cell, now int64) [][2][]byte {
	for _, cell := range cells {
		k, v := cellKV(nil, nil, t, row, cell, now)
		kvs = append(kvs, [2][]byte{k, bytes.Clone(v)})
	}
	return kvs
}

func (c *capturing) Get(ctx context.Context, name string, row []byte) (store.Row, error) {
	t, err := c.table(name)
	if err != nil {
		return store.Row{}, err
	}
	c.noteRead(t, row)
	return c.Engine.Get(ctx, name, row)
}

func (c *capturing) noteRead(t *table, row []byte) {
	c.ops = append(c.ops, capturedOp{lo: appendRowPrefix(nil, t.id, row), hi: appendRowPrefixEnd(nil, t.id, row)})
}

// CheckAndMutate is a read of the row, then the put if it was made.
func (c *capturing) CheckAndMutate(ctx context.Context, name string, q, expected []byte, m store.Mutation) (bool, error) {
	t, err := c.table(name)
	if err != nil {
		return false, err
	}
	if len(m.DeleteColumns) > 0 {
		c.unreplayable = "check and delete"
	}
	c.noteRead(t, m.Row)
	now := c.tick()
	put, err := c.Engine.CheckAndMutate(ctx, name, q, expected, m)
	if put {
		c.ops = append(c.ops, capturedOp{kvs: appendCellKVs(nil, t, m.Row, m.Cells, now)})
	}
	return put, err
}

func (c *capturing) BatchGet(ctx context.Context, name string, rows [][]byte) ([]store.Row, error) {
	c.unreplayable = "batch get"
	return c.Engine.BatchGet(ctx, name, rows)
}

func (c *capturing) Scan(ctx context.Context, name string, sc store.Scan, each func(store.Row) bool) (store.ScanMetrics, error) {
	c.unreplayable = "scan"
	return c.Engine.Scan(ctx, name, sc, each)
}

// replay repeats ops on raw Pebble: a write as one batch committed without
// sync, as the engine commits; a read as a prefix seek over the row's
// cells, as the engine's Get reads them.
func replay(db *pebble.DB, ops []capturedOp) error {
	for _, op := range ops {
		if op.lo == nil {
			bt := db.NewBatch()
			for _, kv := range op.kvs {
				_ = bt.Set(kv[0], kv[1], nil)
			}
			err := bt.Commit(pebble.NoSync)
			bt.Close()
			if err != nil {
				return err
			}
			continue
		}
		it, err := db.NewIter(&pebble.IterOptions{LowerBound: op.lo, UpperBound: op.hi})
		if err != nil {
			return err
		}
		for ok := it.SeekPrefixGE(op.lo); ok; ok = it.Next() {
			if _, err := it.ValueAndErr(); err != nil {
				it.Close()
				return err
			}
		}
		if err := it.Close(); err != nil {
			return err
		}
	}
	return nil
}

// The replay writes what the engine wrote: after a captured run, the
// engine's data keys (timestamps too) and values and the replay's are the
// same.
func TestReplayRepeatsTheEngine(t *testing.T) {
	dir := t.TempDir()
	seed, run, written := captureArrivals(t, 300, dir)
	if written != 300 {
		t.Fatalf("%d comment writes, want 300", written)
	}
	db, err := pebble.Open(t.TempDir(), replayOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := replay(db, append(seed, run...)); err != nil {
		t.Fatal(err)
	}
	o := pebbleOptions(vfs.Default, nil)
	o.ReadOnly = true
	engineDB, err := pebble.Open(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	defer engineDB.Close()
	got, want := dataKVs(t, db), dataKVs(t, engineDB)
	if len(got) != len(want) {
		t.Fatalf("replay wrote %d data cells, the engine %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("cell %d: replay %q, engine %q", i, got[i], want[i])
		}
	}
	if len(got) < 300*4 {
		t.Fatalf("%d data cells, want at least an order and three rows a comment", len(got))
	}
}

// dataKVs lists db's data cells, each its key and its value, sorted.
func dataKVs(t *testing.T, db *pebble.DB) []string {
	it, err := db.NewIter(&pebble.IterOptions{LowerBound: []byte{spaceData}, UpperBound: []byte{spaceData + 1}})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var out []string
	for ok := it.First(); ok; ok = it.Next() {
		out = append(out, fmt.Sprintf("%q=%q", it.Key(), it.Value()))
	}
	slices.Sort(out)
	return out
}
