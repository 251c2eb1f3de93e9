package hbasestore

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"commentbench/hbase"
	"commentbench/hbase/wire"
	"commentbench/store"
)

// Mutate implements store.Store, batched per region and server by the
// client's Multi. A mutation that deletes columns or increments counters
// is HBase's RowMutations of its Put, a Delete of those columns' every
// version and an Increment of the counters (HBase 2.4+), applied together
// or not at all.
func (s *Store) Mutate(ctx context.Context, table string, muts ...store.Mutation) error {
	fam, err := s.family(ctx, table)
	if err != nil {
		return err
	}
	if err := s.mutate(ctx, table, fam, muts); err != nil {
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

// mutate sends muts as Puts and Deletes, or, once one deletes columns or
// increments, as RowMutations (those that do neither stay a single Put or
// Delete).
func (s *Store) mutate(ctx context.Context, table, fam string, muts []store.Mutation) error {
	if !deletesColumns(muts) {
		hm := make([]hbase.Mutation, len(muts))
		for i, m := range muts {
			hm[i] = hbase.Mutation{Row: m.Row, Family: fam, Cells: toCells(m.Cells), DeleteRow: m.DeleteRow}
		}
		return s.c.Mutate(ctx, s.name(table), hm)
	}
	rms := make([]hbase.RowMutations, len(muts))
	for i, m := range muts {
		rms[i] = rowMutations(m, fam)
	}
	return s.c.MutateRows(ctx, s.name(table), rms)
}

func deletesColumns(muts []store.Mutation) bool {
	for _, m := range muts {
		if (len(m.DeleteColumns) > 0 || len(m.Increments) > 0) && !m.DeleteRow {
			return true
		}
	}
	return false
}

// rowMutations is m as HBase's RowMutations: its Put, if it puts cells, a
// Delete of each column it deletes, all versions (DeleteColumn), and an
// Increment of its counters.
func rowMutations(m store.Mutation, fam string) hbase.RowMutations {
	rm := hbase.RowMutations{Row: m.Row}
	if m.DeleteRow || (len(m.DeleteColumns) == 0 && len(m.Increments) == 0) {
		rm.Mutations = []hbase.Mutation{{Family: fam, Cells: toCells(m.Cells), DeleteRow: m.DeleteRow}}
		return rm
	}
	if len(m.Cells) > 0 {
		rm.Mutations = append(rm.Mutations, hbase.Mutation{Family: fam, Cells: toCells(m.Cells)})
	}
	if len(m.DeleteColumns) > 0 {
		del := hbase.Mutation{Family: fam, Cells: make([]hbase.Cell, len(m.DeleteColumns))}
		for i, q := range m.DeleteColumns {
			del.Cells[i] = hbase.Cell{Qualifier: q, Type: wire.TypeDeleteColumn, Timestamp: m.DeleteAt}
		}
		rm.Mutations = append(rm.Mutations, del)
	}
	if len(m.Increments) > 0 {
		inc := hbase.Mutation{Family: fam, Increment: true, Cells: make([]hbase.Cell, len(m.Increments))}
		for i, n := range m.Increments {
			inc.Cells[i] = hbase.Cell{Qualifier: n.Qualifier, Value: binary.BigEndian.AppendUint64(nil, uint64(n.Delta))}
		}
		rm.Mutations = append(rm.Mutations, inc)
	}
	return rm
}

// CheckAndMutate implements store.Store: HBase's checkAndMutate of m's
// RowMutations under a condition on qualifier.
func (s *Store) CheckAndMutate(ctx context.Context, table string, qualifier, expected []byte, m store.Mutation) (bool, error) {
	if m.DeleteRow || len(m.Increments) > 0 {
		return false, fmt.Errorf("hbase: %w: check and mutate of row %q deletes the row or increments", store.ErrInvalid, m.Row)
	}
	fam, err := s.family(ctx, table)
	if err != nil {
		return false, err
	}
	ok, err := s.c.CheckAndMutate(ctx, s.name(table), hbase.CheckAndMutate{
		Row:       m.Row,
		Condition: hbase.Condition{Family: fam, Qualifier: qualifier, Op: hbase.Equal, Value: expected},
		Mutations: rowMutations(m, fam).Mutations,
	})
	if err != nil {
		return false, s.tableErr("check-and-mutate", table, err)
	}
	if c := s.attr.at(ctx, s, table, m.Row); c != nil {
		c.writes.Add(1)
		c.in.Add(uint64(bytesOf(m.Cells) + len(m.Row)))
	}
	return ok, nil
}

// Get implements store.Store.
func (s *Store) Get(ctx context.Context, table string, row []byte) (store.Row, error) {
	r, err := s.c.Get(ctx, s.name(table), row, "")
	if err != nil {
		return store.Row{}, s.rowErr("get", table, row, err)
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
		return nil, s.batchErr("get", table, err)
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
//
// With sc.Batch each part of a wide row comes as a Row of its own with the
// row's Key; the limit counts whole rows. CellsScanned counts the cells
// returned: the servers report no cell counts.
func (s *Store) Scan(ctx context.Context, table string, sc store.Scan, each func(store.Row) bool) (store.ScanMetrics, error) {
	hs := hbase.Scan{Start: sc.Start, Stop: sc.Stop, Reversed: sc.Reversed, Limit: sc.Limit, Filter: toFilter(sc.Filter), Batch: sc.Batch}
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
		m.CellsScanned += int64(len(row.Cells))
		whole := !r.Partial // the last (or only) part of its row
		if whole {
			m.RowsScanned++
		}
		if c := s.attr.at(ctx, s, table, r.Row); c != nil {
			if !visited[c] { // one read request per region the scan visited
				visited[c] = true
				c.reads.Add(1)
			}
			// Scan metrics are per call, not per region, so the region
			// attribution counts the rows returned from each region.
			if whole {
				c.scanned.Add(1)
			}
			c.out.Add(uint64(rowBytes(row)))
		}
		if whole {
			delivered++
		}
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

// Read implements store.Store: one Get per read, in one Multi when there
// are several. Columns are the Get's columns; a Slice is a
// ColumnRangeFilter [Start, Stop) and a ColumnPaginationFilter (Limit,
// Offset), together in a MUST_PASS_ALL list when both apply, so the range
// runs first and the pagination counts only the columns in range. A read
// of no columns, or of the owner row, needs no Get. The servers report no
// cell counts: RowsScanned counts the rows that came back with cells,
// CellsScanned the cells.
func (s *Store) Read(ctx context.Context, table string, reads []store.Read) ([]store.Row, store.ScanMetrics, error) {
	var m store.ScanMetrics
	gets, at, err := s.gets(ctx, table, reads)
	if err != nil {
		return nil, m, err
	}
	if len(gets) == 0 {
		return emptyRows(reads), m, nil
	}
	rs, err := s.readGets(ctx, table, gets)
	if err != nil {
		return nil, m, err
	}
	out := emptyRows(reads)
	for j, i := range at {
		out[i] = fromResult(reads[i].Row, rs[j])
		if out[i].Found() {
			m.RowsScanned++
			m.CellsScanned += int64(len(out[i].Cells))
		}
		s.attr.got(ctx, s, table, out[i])
	}
	return out, m, nil
}

func emptyRows(reads []store.Read) []store.Row {
	out := make([]store.Row, len(reads))
	for i, rd := range reads {
		out[i].Key = rd.Row
	}
	return out
}

func (s *Store) readGets(ctx context.Context, table string, gets []hbase.Get) ([]hbase.Result, error) {
	if len(gets) == 1 {
		r, err := s.c.GetRow(ctx, s.name(table), gets[0])
		if err != nil {
			return nil, s.rowErr("read", table, gets[0].Row, err)
		}
		return []hbase.Result{r}, nil
	}
	rs, err := s.c.BatchGetRows(ctx, s.name(table), gets)
	if err != nil {
		return nil, s.batchErr("read", table, err)
	}
	return rs, nil
}

// gets turns the reads that need one into Gets, and says which read each
// is for. Only reads of named columns need the table's family.
func (s *Store) gets(ctx context.Context, table string, reads []store.Read) ([]hbase.Get, []int, error) {
	var gets []hbase.Get
	var at []int
	fam := ""
	for i, rd := range reads {
		if rd.Columns != nil && rd.Slice != nil {
			return nil, nil, fmt.Errorf("read %s row %q: both columns and a slice: %w", s.name(table), rd.Row, store.ErrInvalid)
		}
		if (rd.Columns != nil && len(rd.Columns) == 0) || bytes.Equal(rd.Row, ownerRow) {
			continue
		}
		g := hbase.Get{Row: rd.Row, Filter: sliceFilter(rd.Slice)}
		if rd.Columns != nil {
			if fam == "" {
				var err error
				if fam, err = s.readFamily(ctx, table); err != nil {
					return nil, nil, err
				}
			}
			g.Columns = []hbase.Column{{Family: fam, Qualifiers: rd.Columns}}
		}
		gets, at = append(gets, g), append(at, i)
	}
	return gets, at, nil
}

// readFamily is the family the row methods of table read.
func (s *Store) readFamily(ctx context.Context, table string) (string, error) {
	v, err := s.owner(ctx, table)
	switch {
	case err != nil:
		return "", err
	case v.state == ourTable:
		return v.family, nil
	case v.state == absentTable:
		return "", fmt.Errorf("read %s: %w", s.name(table), store.ErrTableNotFound)
	}
	return s.o.Family, nil
}

// sliceFilter is the filter that reads sl of a row; nil for none.
func sliceFilter(sl *store.Slice) hbase.Filter {
	if sl == nil {
		return nil
	}
	var fs []hbase.Filter
	if sl.Start != nil || sl.Stop != nil {
		fs = append(fs, hbase.ColumnRangeFilter{Min: sl.Start, MinInclusive: true, Max: sl.Stop})
	}
	if sl.Limit > 0 || sl.Offset > 0 {
		limit := sl.Limit
		if limit <= 0 {
			limit = math.MaxInt32 // HBase's pagination always has a limit
		}
		fs = append(fs, hbase.ColumnPaginationFilter{Limit: limit, Offset: sl.Offset})
	}
	switch len(fs) {
	case 0:
		return nil
	case 1:
		return fs[0]
	}
	return hbase.FilterList{All: true, Filters: fs}
}

// rowErr maps a failed read or write of one row, naming the row when it
// was too big to read.
func (s *Store) rowErr(op, table string, row []byte, err error) error {
	if errors.Is(err, hbase.ErrRowTooBig) {
		return fmt.Errorf("%s %s row %q: %w: %w", op, s.name(table), row, store.ErrRowTooBig, err)
	}
	return s.tableErr(op, table, err)
}

// batchErr is rowErr for a batch whose failed row the error names.
func (s *Store) batchErr(op, table string, err error) error {
	var re *hbase.RowError
	if errors.As(err, &re) {
		return s.rowErr(op, table, re.Row, re.Err)
	}
	return s.tableErr(op, table, err)
}
