package workload

import (
	"context"
	"fmt"
	"hash/maphash"
	"strings"
	"sync"
	"sync/atomic"

	"commentbench/results"
	"commentbench/spread"
	"commentbench/store"
)

// RowWrites is a store that counts, while on, the writes and the cells
// written into each row of each table: the run's hot rows. A wide design
// writes a hot product's every comment into one row, which no region split
// can divide; the spread shows a hot region, and this says whether one
// row is all of it. Rows are counted in Space-Saving sketches (see
// sketch), so memory stays flat however many rows a run writes.
type RowWrites struct {
	store.Store
	on     atomic.Bool
	seed   maphash.Seed
	shards [rowShards]rowShard
}

// rowShards spread the counting over locks: a write takes its row's.
const rowShards = 16

// rowCounters per shard: a few thousand rows each, a key table+row.
const rowCounters = 512

type rowShard struct {
	mu sync.Mutex
	p  pair // writes, cells
	_  [64]byte
}

// CountRows wraps st; counting starts with SetOn.
func CountRows(st store.Store) *RowWrites {
	r := &RowWrites{Store: st, seed: maphash.MakeSeed()}
	for i := range r.shards {
		r.shards[i].p = newPair(rowCounters)
	}
	return r
}

// SetOn turns counting on or off: a run counts its steady phase.
func (r *RowWrites) SetOn(on bool) { r.on.Store(on) }

// Mutate implements store.Store, counting each row mutation applied.
func (r *RowWrites) Mutate(ctx context.Context, table string, muts ...store.Mutation) error {
	err := r.Store.Mutate(ctx, table, muts...)
	if err == nil && r.on.Load() {
		for _, m := range muts {
			r.add(table, m.Row, int64(len(m.Cells)))
		}
	}
	return err
}

// CheckAndMutate implements store.Store, counting a change that was made.
func (r *RowWrites) CheckAndMutate(ctx context.Context, table string, q, expected []byte, m store.Mutation) (bool, error) {
	ok, err := r.Store.CheckAndMutate(ctx, table, q, expected, m)
	if ok && err == nil && r.on.Load() {
		r.add(table, m.Row, int64(len(m.Cells)))
	}
	return ok, err
}

func (r *RowWrites) add(table string, row []byte, cells int64) {
	key := table + "\x00" + string(row)
	sh := &r.shards[maphash.String(r.seed, key)%rowShards]
	sh.mu.Lock()
	sh.p.add(key, [2]int64{1, cells})
	sh.mu.Unlock()
}

// Top is each table's n most written rows, by writes, with the cells
// written into each; PlaceRows places them. Call it once the run's writers
// have stopped.
func (r *RowWrites) Top(n int) []results.HotRow {
	ws := make([]*sketch, rowShards)
	for i := range r.shards {
		ws[i] = &r.shards[i].p.s[0]
	}
	cells := map[string]int64{}
	for i := range r.shards {
		for _, sl := range r.shards[i].p.s[1].slots {
			cells[sl.key] += sl.count
		}
	}
	merged := mergeSketches(ws, len(r.shards)*rowCounters)
	perTable := map[string]int{}
	var out []results.HotRow
	for _, c := range merged.top {
		table, row, _ := strings.Cut(c.key, "\x00")
		if perTable[table] == n {
			continue
		}
		perTable[table]++
		out = append(out, results.HotRow{Table: table, Key: []byte(row), Writes: c.count, Error: c.err, Cells: cells[c.key]})
	}
	return out
}

// PlaceRows names each hot row as the design reads it, the region holding
// it now, its share of the writes that region took in the run (loads),
// and how fast it grew over the steady phase (seconds long).
func PlaceRows(ctx context.Context, st store.Store, rows []results.HotRow, loads []spread.Load, describe spread.Describe, seconds float64) ([]results.HotRow, error) {
	regions := map[string][]store.Region{}
	for i := range rows {
		r := &rows[i]
		rs, ok := regions[r.Table]
		if !ok {
			var err error
			if rs, err = st.Regions(ctx, r.Table); err != nil {
				return rows, fmt.Errorf("regions of %s: %w", r.Table, err)
			}
			regions[r.Table] = rs
		}
		r.Row = describe(r.Table, r.Key)
		r.CellsPerSec = float64(r.Cells) / max(seconds, 1e-9)
		for _, g := range rs {
			if g.Contains(r.Key) {
				r.Region, r.Server, r.Range = g.Name, g.Server, regionRange(g, describe)
			}
		}
		var writes uint64 // the run's writes into the regions that held the row, as they split
		for _, l := range loads {
			if l.Table == r.Table && l.Contains(r.Key) {
				writes += l.Writes
			}
		}
		if writes > 0 {
			r.Share = min(1, float64(r.Writes)/float64(writes))
		}
	}
	return rows, nil
}

// RowLoads are the hot rows as the spread weighs them.
func RowLoads(rows []results.HotRow) []spread.RowWrites {
	out := make([]spread.RowWrites, len(rows))
	for i, r := range rows {
		out[i] = spread.RowWrites{Table: r.Table, Key: r.Key, Writes: r.Writes}
	}
	return out
}
