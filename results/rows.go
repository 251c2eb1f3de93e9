package results

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// HotRow is one of the rows a run wrote into most, by table: a wide
// design writes every comment of a product, or of the site, into one
// row, which no region split can divide. Writes and Cells are counted in
// bounded sketches: upper bounds, Writes over by at most Error.
type HotRow struct {
	Table  string `json:"table"`
	Row    string `json:"row"` // decoded, as the design reads it
	Key    []byte `json:"key"`
	Writes int64  `json:"writes"`
	Error  int64  `json:"error,omitempty"`
	// Cells are the cells the writes put (a wide row's new columns, and
	// those written again); CellsPerSec them over the steady phase: how
	// fast the row grows.
	Cells       int64   `json:"cells_written"`
	CellsPerSec float64 `json:"cells_per_sec"`
	// Region held the row at the run's end (Range its keys, Server its
	// server); Share is the row's part of that region's writes in the run.
	Region string  `json:"region,omitempty"`
	Range  string  `json:"range,omitempty"`
	Server string  `json:"server,omitempty"`
	Share  float64 `json:"share_of_region_writes,omitempty"`
}

// RowSize is one row's size at a run's end.
type RowSize struct {
	Row   string `json:"row"` // decoded, as the design reads it
	Cells int64  `json:"cells"`
	Bytes int64  `json:"bytes"` // as HBase cells (see TableStorage)
}

// TableRows are one store table's biggest rows at a run's end, biggest
// first.
type TableRows struct {
	Table string    `json:"table"`
	Rows  []RowSize `json:"rows"`
}

// rowsShown is how many tables' hot rows, and how many of a table's
// biggest rows, the console shows.
const rowsShown = 3

// printHotRows shows, for the tables whose most written row took more
// than one write, that row: its writes, its share of its region's, how
// fast it grew; then each table's biggest rows against the max row size.
func printHotRows(b *strings.Builder, s Summary) {
	top := topRows(s.HotRows)
	if len(top) > 0 {
		line(b, "hot rows (each table's most written): writes, share of its region's, growth")
		for _, r := range top[:min(rowsShown, len(top))] {
			writes := compact(r.Writes, 7)
			if r.Error > 0 {
				writes = "≤" + compact(r.Writes, 6)
			}
			line(b, "  %-34s %7s %4.0f%%  growing %s cells/s", cut(r.Row, 34), writes, 100*r.Share,
				compact(int64(r.CellsPerSec+0.5), 6))
		}
	}
	printBiggestRows(b, s)
}

// topRows is each table's most written row, for the tables where one row
// took more than one write, most writes first.
func topRows(rows []HotRow) []HotRow {
	var out []HotRow
	seen := map[string]bool{}
	for _, r := range rows {
		if seen[r.Table] || r.Writes-r.Error < 2 { // a sketch's bound of one write, or of none
			continue
		}
		seen[r.Table] = true
		out = append(out, r)
	}
	slices.SortStableFunc(out, func(a, b HotRow) int { return cmp.Compare(b.Writes, a.Writes) })
	return out
}

func printBiggestRows(b *strings.Builder, s Summary) {
	if len(s.BiggestRows) == 0 {
		return
	}
	tables := slices.Clone(s.BiggestRows)
	slices.SortStableFunc(tables, func(a, b TableRows) int { return cmp.Compare(b.Rows[0].Bytes, a.Rows[0].Bytes) })
	head := "biggest rows at the end: cells, bytes"
	if s.MaxRowSize > 0 {
		head = fmt.Sprintf("biggest rows at the end: cells, bytes, share of the max row size (%s)", byteSize(s.MaxRowSize))
	}
	line(b, "%s", head)
	for _, t := range tables {
		for _, r := range t.Rows[:min(rowsShown, len(t.Rows))] {
			share := ""
			if s.MaxRowSize > 0 {
				share = fmt.Sprintf(" %6.2f%%", 100*float64(r.Bytes)/float64(s.MaxRowSize))
			}
			line(b, "  %-38s %9s cells %10s%s", cut(r.Row, 38), compact(r.Cells, 9), byteSize(r.Bytes), share)
		}
	}
}

// mergeHotRows sums each row's writes and cells over the runs. A run that
// did not list a row may have written into it up to its own counts' error:
// merged counts are upper bounds, as each run's are.
func mergeHotRows(sums []Summary) []HotRow {
	by := map[string]*HotRow{}
	var order []string
	for _, s := range sums {
		for _, r := range s.HotRows {
			k := r.Table + "\x00" + string(r.Key)
			m := by[k]
			if m == nil {
				m = &HotRow{Table: r.Table, Row: r.Row, Key: r.Key, Region: r.Region, Range: r.Range, Server: r.Server}
				by[k] = m
				order = append(order, k)
			}
			m.Writes += r.Writes
			m.Error += r.Error
			m.Cells += r.Cells
			m.CellsPerSec += r.CellsPerSec
		}
	}
	out := make([]HotRow, 0, len(order))
	for _, k := range order {
		out = append(out, *by[k])
	}
	slices.SortStableFunc(out, func(a, b HotRow) int {
		return cmp.Or(cmp.Compare(a.Table, b.Table), cmp.Compare(b.Writes, a.Writes))
	})
	return out
}
