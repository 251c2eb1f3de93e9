package report

import (
	"cmp"
	"slices"

	"commentbench/results"
)

// wideView is what a wide design's rows cost: the rows written most, and
// the biggest at the run's end against the max row size.
type wideView struct {
	Run     string
	Hot     []hotRowView
	Biggest []bigRowView
	MaxRow  string // the max row size, "" when unknown
	// NoBiggest says why there are no biggest rows.
	NoBiggest string
}

type hotRowView struct{ Table, Row, Writes, Share, CellsPerSec string }

type bigRowView struct{ Table, Row, Cells, Bytes, OfMax string }

// wideOf is nil for a run with no hot row worth showing and no row of more
// than one cell: a tall design's page has no section for it.
func wideOf(s results.Summary, run string) *wideView {
	hot := hotRows(s.HotRows)
	if len(hot) == 0 && len(s.BiggestRows) == 0 {
		return nil
	}
	v := &wideView{Run: run, Hot: hot, Biggest: bigRows(s.BiggestRows, s.MaxRowSize)}
	if s.MaxRowSize > 0 {
		v.MaxRow = byteSize(s.MaxRowSize)
	}
	if len(s.Storage) > 0 { // measured, and loadgen keeps only rows of more than one cell
		v.NoBiggest = "No row holds more than one cell."
	} else {
		v.NoBiggest = "Row sizes were not measured: the embedded backend measures them at the run's end."
	}
	return v
}

// hotRows are the rows of the tables whose most written row took at least
// two writes by the sketch's lower bound, as the console picks them: below
// that, every row's count may be a single write.
func hotRows(rows []results.HotRow) []hotRowView {
	worth := map[string]bool{} // by the table's first row, its most written
	for _, r := range rows {
		if _, ok := worth[r.Table]; !ok {
			worth[r.Table] = r.Writes-r.Error >= 2
		}
	}
	var out []hotRowView
	for _, r := range rows {
		if worth[r.Table] {
			out = append(out, hotRowView{Table: r.Table, Row: r.Row, Writes: writes(r), Share: regionShare(r),
				CellsPerSec: rate(r.CellsPerSec)})
		}
	}
	return out
}

// writes is a row's count, marked as the upper bound it is when the
// sketch may have counted over.
func writes(r results.HotRow) string {
	if r.Error > 0 {
		return "≤" + thousands(r.Writes)
	}
	return thousands(r.Writes)
}

func regionShare(r results.HotRow) string {
	if r.Region == "" {
		return "–"
	}
	return share(r.Share)
}

// bigRows lists each table's biggest rows, the table with the biggest
// first, as the console orders them.
func bigRows(tables []results.TableRows, maxRow int64) []bigRowView {
	tables = slices.Clone(tables)
	slices.SortStableFunc(tables, func(a, b results.TableRows) int { return cmp.Compare(topBytes(b), topBytes(a)) })
	var out []bigRowView
	for _, t := range tables {
		for _, r := range t.Rows {
			v := bigRowView{Table: t.Table, Row: r.Row, Cells: thousands(r.Cells), Bytes: thousands(r.Bytes)}
			if maxRow > 0 {
				v.OfMax = share2(float64(r.Bytes) / float64(maxRow))
			}
			out = append(out, v)
		}
	}
	return out
}

func topBytes(t results.TableRows) int64 {
	if len(t.Rows) == 0 {
		return 0
	}
	return t.Rows[0].Bytes
}
