// Package nop is a store that does almost nothing, so a benchmark of the
// harness measures the harness: actors, keys, codecs and recording, not a
// backend.
//
// It keeps the latest row per slot of a fixed, direct-mapped table (a row is
// forgotten when another lands in its slot), so a write followed by its read
// (an order, then the comment's order check) succeeds while memory stays
// constant. Scans return nothing. It must not be used to check data.
package nop

import (
	"bytes"
	"context"
	"hash/maphash"
	"sync"
	"sync/atomic"

	"commentbench/store"
)

// slots is the table's size: enough that a worker's write and its own
// read a few microseconds later nearly always meet again, and few enough
// that the rows kept (a few MiB) are no burden on the collector of the
// harness being measured. At 65,536 slots they were tens of MiB, and a
// benchmark of the harness a fifth slower for the collector marking them.
// The price is in what an older row finds: in a million operations of the
// steady preset with two workers, 2,958 failed (an edit whose comment was
// written over, mostly) where 434 did at 65,536.
const slots = 1 << 13

// Store is the no-op store.
type Store struct {
	seed   maphash.Seed
	rows   [slots]atomic.Pointer[entry]
	mu     sync.Mutex
	tables map[string]store.TableSpec
	calls  atomic.Int64 // data calls served: what a benchmark of the harness counts
}

// Calls is how many data calls (Mutate, CheckAndPut, Get, BatchGet, Scan)
// the store has served.
func (s *Store) Calls() int64 { return s.calls.Load() }

type entry struct {
	table string
	row   store.Row
}

var _ store.Store = (*Store)(nil)

// New returns an empty no-op store.
func New() *Store { return &Store{seed: maphash.MakeSeed(), tables: map[string]store.TableSpec{}} }

func (s *Store) slot(table string, row []byte) *atomic.Pointer[entry] {
	var h maphash.Hash
	h.SetSeed(s.seed)
	h.WriteString(table)
	h.Write(row)
	return &s.rows[h.Sum64()%slots]
}

// CreateTable implements store.Store.
func (s *Store) CreateTable(_ context.Context, spec store.TableSpec) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.tables[spec.Name]; ok {
		return store.ErrTableExists
	}
	s.tables[spec.Name] = spec
	return nil
}

// DropTable implements store.Store.
func (s *Store) DropTable(_ context.Context, table string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.tables, table)
	return nil
}

// ListTables implements store.Store.
func (s *Store) ListTables(context.Context) ([]store.TableSpec, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []store.TableSpec
	for _, t := range s.tables {
		out = append(out, t)
	}
	return out, nil
}

// Mutate implements store.Store: the latest put of a row is kept in its slot.
func (s *Store) Mutate(_ context.Context, table string, muts ...store.Mutation) error {
	s.calls.Add(1)
	s.mutate(table, muts...)
	return nil
}

func (s *Store) mutate(table string, muts ...store.Mutation) {
	for _, m := range muts {
		sl := s.slot(table, m.Row)
		if m.DeleteRow {
			sl.Store(nil)
			continue
		}
		sl.Store(&entry{table: table, row: store.Row{Key: m.Row, Cells: m.Cells}})
	}
}

// CheckAndPut implements store.Store.
func (s *Store) CheckAndPut(ctx context.Context, table string, row, q, expected []byte, cells ...store.Cell) (bool, error) {
	s.calls.Add(1)
	got := s.get(table, row)
	v, ok := got.Value(q)
	if (expected == nil && ok) || (expected != nil && !bytes.Equal(v, expected)) {
		return false, nil
	}
	s.mutate(table, store.Put(row, cells...))
	return true, nil
}

// Get implements store.Store.
func (s *Store) Get(_ context.Context, table string, row []byte) (store.Row, error) {
	s.calls.Add(1)
	return s.get(table, row), nil
}

func (s *Store) get(table string, row []byte) store.Row {
	e := s.slot(table, row).Load()
	if e == nil || e.table != table || !bytes.Equal(e.row.Key, row) {
		return store.Row{Key: row}
	}
	return e.row
}

// BatchGet implements store.Store.
func (s *Store) BatchGet(ctx context.Context, table string, rows [][]byte) ([]store.Row, error) {
	s.calls.Add(1)
	out := make([]store.Row, len(rows))
	for i, r := range rows {
		out[i] = s.get(table, r)
	}
	return out, nil
}

// Scan implements store.Store: it finds nothing.
func (s *Store) Scan(context.Context, string, store.Scan, func(store.Row) bool) (store.ScanMetrics, error) {
	s.calls.Add(1)
	return store.ScanMetrics{}, nil
}

// Regions implements store.Store: one region per table.
func (s *Store) Regions(_ context.Context, table string) ([]store.Region, error) {
	return []store.Region{{Table: table, ID: 1, Name: table + ",,1.nop.", Server: "nop"}}, nil
}

// RegionStats implements store.Store: nothing is counted.
func (s *Store) RegionStats(ctx context.Context) ([]store.RegionStat, error) {
	tables, _ := s.ListTables(ctx)
	var out []store.RegionStat
	for _, t := range tables {
		rs, _ := s.Regions(ctx, t.Name)
		out = append(out, store.RegionStat{Region: rs[0]})
	}
	return out, nil
}

// Close implements store.Store.
func (s *Store) Close() error { return nil }
