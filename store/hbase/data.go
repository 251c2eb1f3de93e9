package hbasestore

import (
	"bytes"
	"context"
	"errors"
	"fmt"

	"commentbench/hbase"
	"commentbench/store"
)

// Mutate implements store.Store, batched per region and server by the
// client's Multi.
func (s *Store) Mutate(ctx context.Context, table string, muts ...store.Mutation) error {
	fam, err := s.family(ctx, table)
	if err != nil {
		return err
	}
	hm := make([]hbase.Mutation, len(muts))
	for i, m := range muts {
		hm[i] = hbase.Mutation{Row: m.Row, Family: fam, Cells: toCells(m.Cells), DeleteRow: m.DeleteRow}
	}
	if err := s.c.Mutate(ctx, s.name(table), hm); err != nil {
		return s.tableErr("mutate", table, err)
	}
	for _, m := range muts {
		if c := s.attr.at(ctx, s, table, m.Row); c != nil {
			c.writes.Add(1)
			c.in.Add(uint64(bytesOf(m.Cells) + len(m.Row)))
		}
	}
	return nil
}

// CheckAndPut implements store.Store.
func (s *Store) CheckAndPut(ctx context.Context, table string, row, qualifier, expected []byte, cells ...store.Cell) (bool, error) {
	fam, err := s.family(ctx, table)
	if err != nil {
		return false, err
	}
	put := hbase.Mutation{Row: row, Family: fam, Cells: toCells(cells)}
	ok, err := s.c.CheckAndPut(ctx, s.name(table), row, fam, qualifier, expected, put)
	if err != nil {
		return false, s.tableErr("check-and-put", table, err)
	}
	if c := s.attr.at(ctx, s, table, row); c != nil {
		c.writes.Add(1)
		c.in.Add(uint64(bytesOf(cells) + len(row)))
	}
	return ok, nil
}

// Get implements store.Store.
func (s *Store) Get(ctx context.Context, table string, row []byte) (store.Row, error) {
	r, err := s.c.Get(ctx, s.name(table), row, "")
	if err != nil {
		return store.Row{}, s.tableErr("get", table, err)
	}
	if bytes.Equal(row, ownerRow) {
		return store.Row{Key: row}, nil
	}
	out := fromResult(row, r)
	s.attr.got(ctx, s, table, out)
	return out, nil
}

// BatchGet implements store.Store.
func (s *Store) BatchGet(ctx context.Context, table string, rows [][]byte) ([]store.Row, error) {
	rs, err := s.c.BatchGet(ctx, s.name(table), rows, "")
	if err != nil {
		return nil, s.tableErr("get", table, err)
	}
	out := make([]store.Row, len(rows))
	for i := range rows {
		if bytes.Equal(rows[i], ownerRow) {
			out[i] = store.Row{Key: rows[i]}
			continue
		}
		out[i] = fromResult(rows[i], rs[i])
		s.attr.got(ctx, s, table, out[i])
	}
	return out, nil
}

// Scan implements store.Store. The filter runs in the region server, so
// the client sees only the rows it returns; RowsScanned and RowsFiltered
// come from the servers' scan metrics (ROWS_SCANNED, ROWS_FILTERED summed
// over the scan's calls), which count every row read, filtered or not,
// including rows read ahead in a batch the caller did not consume. A
// server that sends no metrics leaves RowsScanned counting the rows
// returned, and RowsFiltered 0.
//
// The owner row is neither delivered nor counted, so the figures are the
// data's alone, as on the embedded engine. A reversed scan from the end of
// one of the harness's tables reads it first, so it asks the servers for
// one row more when its filter would deliver the owner row. (A forward
// scan that a filter ends at it, a PrefixFilter over the table's last
// prefix, still counts it filtered.)
func (s *Store) Scan(ctx context.Context, table string, sc store.Scan, each func(store.Row) bool) (store.ScanMetrics, error) {
	hs := hbase.Scan{Start: sc.Start, Stop: sc.Stop, Reversed: sc.Reversed, Limit: sc.Limit, Filter: toFilter(sc.Filter)}
	readsOwnerFirst := s.readsOwnerFirst(table, sc)
	ownerPasses := sc.Filter == nil || keeps(sc.Filter, ownerRow)
	if readsOwnerFirst && sc.Limit > 0 && ownerPasses {
		hs.Limit++
	}
	var m store.ScanMetrics
	visited := map[*counters]bool{}
	delivered, sawOwner := 0, false
	stats, err := s.c.Scan(ctx, s.name(table), hs, func(r hbase.Result) bool {
		if bytes.Equal(r.Row, ownerRow) {
			sawOwner = true
			return true
		}
		row := fromResult(r.Row, r)
		m.RowsScanned++
		if c := s.attr.at(ctx, s, table, r.Row); c != nil {
			if !visited[c] { // one read request per region the scan visited
				visited[c] = true
				c.reads.Add(1)
			}
			// Scan metrics are per call, not per region, so the region
			// attribution counts the rows returned from each region.
			c.scanned.Add(1)
			c.out.Add(uint64(rowBytes(row)))
		}
		delivered++
		return each(row) && (sc.Limit <= 0 || delivered < sc.Limit)
	})
	m.Regions = stats.Regions
	if !stats.NoServerMetrics && stats.RPCs > 0 {
		m.RowsScanned, m.RowsFiltered = stats.RowsScanned, stats.RowsFiltered
		switch {
		case sawOwner:
			m.RowsScanned = max(m.RowsScanned-1, 0)
		case readsOwnerFirst && !ownerPasses && err == nil:
			m.RowsScanned = max(m.RowsScanned-1, 0) // read, and dropped by the filter
			m.RowsFiltered = max(m.RowsFiltered-1, 0)
		}
	}
	if err != nil {
		return m, s.tableErr("scan", table, err)
	}
	return m, nil
}

// readsOwnerFirst reports whether sc starts at table's owner row: a
// reversed scan from the end of a table known to be the harness's.
func (s *Store) readsOwnerFirst(table string, sc store.Scan) bool {
	if !sc.Reversed || (len(sc.Start) > 0 && bytes.Compare(sc.Start, ownerRow) < 0) ||
		(len(sc.Stop) > 0 && bytes.Compare(sc.Stop, ownerRow) >= 0) {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.owners[table].state == ourTable
}

func keeps(f store.Filter, row []byte) bool {
	keep, _ := f.Decide(row, true)
	return keep
}

func toCells(cs []store.Cell) []hbase.Cell {
	out := make([]hbase.Cell, len(cs))
	for i, c := range cs {
		out[i] = hbase.Cell{Qualifier: c.Qualifier, Value: c.Value, Timestamp: c.Timestamp}
	}
	return out
}

func fromResult(key []byte, r hbase.Result) store.Row {
	row := store.Row{Key: key}
	for _, c := range r.Cells {
		row.Cells = append(row.Cells, store.Cell{Qualifier: c.Qualifier, Value: c.Value, Timestamp: c.Timestamp})
	}
	return row
}

func toFilter(f store.Filter) hbase.Filter {
	switch f := f.(type) {
	case store.RowFilter:
		return hbase.RowFilter{Op: compareOps[f.Op], Value: f.Value}
	case store.PrefixFilter:
		return hbase.PrefixFilter{Prefix: f.Prefix}
	}
	return nil
}

var compareOps = map[store.CompareOp]hbase.CompareOp{
	store.Less: hbase.Less, store.LessOrEqual: hbase.LessOrEqual, store.Equal: hbase.Equal,
	store.NotEqual: hbase.NotEqual, store.GreaterOrEqual: hbase.GreaterOrEqual, store.Greater: hbase.Greater,
}

func bytesOf(cs []store.Cell) int {
	n := 0
	for _, c := range cs {
		n += len(c.Qualifier) + len(c.Value)
	}
	return n
}

func rowBytes(r store.Row) int {
	n := 0
	for _, c := range r.Cells {
		n += len(r.Key) + len(c.Qualifier) + len(c.Value)
	}
	return n
}

// Read implements store.Store.
func (s *Store) Read(ctx context.Context, table string, reads []store.Read) ([]store.Row, store.ScanMetrics, error) {
	return nil, store.ScanMetrics{}, fmt.Errorf("hbase: read: %w", errors.ErrUnsupported)
}
