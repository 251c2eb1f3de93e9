package hbasetest

import (
	"bytes"
	"fmt"
	"strconv"

	"commentbench/hbase/wire"
	"commentbench/store"
)

// How a region server reads one row, as HBase 2.5's StoreScanner and
// UserScanQueryMatcher do: family by family, each cell of the columns
// asked for goes to the filter, whose return code includes it, skips it,
// or moves the read past the column's versions, past the family, or to a
// hinted column (forward scans only: HBase 2.5 seeks on a hint only in
// the scan's direction, and a column hint lies ahead of a reversed scan's
// row). With a filter the filter sees the family's VERSIONS newest
// versions and the scan's max_versions cap what it includes; then
// store_offset and store_limit count the included cells per family.

// rowRead is one row as the region server read it: the cells included,
// in order, and whether its scanner still held cells of the row after the
// last one (HBase's mayHaveMoreCellsInRow, were a limit to cut the row
// right after it).
type rowRead struct {
	key   []byte
	cells []wire.Cell
	tail  bool
}

// readRow runs a row's cells (selectCells's, which it filters in place)
// through the row-key, cell and row stages. keep is false when the row is
// dropped: by its key, for want of cells, or by filterRow.
func (rs readSpec) readRow(key []byte, cells []wire.Cell, rev bool) (r rowRead, keep bool) {
	r = rowRead{key: key, cells: cells}
	if rs.filter == nil && rs.offset == 0 && rs.lim == 0 {
		return r, len(cells) > 0
	}
	if rs.filter != nil {
		rs.filter.reset()
		if drop, _ := rs.filter.rowKey(key, rev); drop {
			return rowRead{key: key}, false
		}
	}
	r.cells, r.tail = rs.walk(cells, rev)
	if len(r.cells) == 0 || (rs.filter != nil && rs.filter.filterRow()) {
		return r, false
	}
	return r, true
}

// walk is StoreScanner.next over the row, one family after another; it
// keeps the cells included and tells whether cells of the row were left
// after the last (the read's position after it).
func (rs readSpec) walk(cells []wire.Cell, rev bool) ([]wire.Cell, bool) {
	out := cells[:0] // written behind the reading position only
	var fam []byte
	var vc versionCount
	perFam, after := 0, 0
	for i := 0; i < len(cells); {
		c := cells[i]
		if i == 0 || !bytes.Equal(c.Family, fam) {
			fam, perFam = c.Family, 0 // a family's own StoreScanner
		}
		next, incl := rs.match(cells, i, &c, &vc, rev)
		if incl {
			if perFam++; perFam > rs.offset {
				out = append(out, c)
				if rs.lim > 0 && perFam >= rs.lim+rs.offset {
					next = nextFamily(cells, i, &c)
				}
				after = next
			}
		}
		i = next
	}
	return out, after < len(cells)
}

// match is what the filter's answer for cells[i] (c, a copy) makes of the
// cell, as UserScanQueryMatcher merges it with the column's versions:
// whether the cell is included, and the position the read moves on to.
func (rs readSpec) match(cells []wire.Cell, i int, c *wire.Cell, vc *versionCount, rev bool) (next int, incl bool) {
	f := rs.filter
	if f == nil {
		return i + 1, true
	}
	switch f.cell(c) {
	case include:
		if vc.over(c, rs.maxVersions) {
			return nextColumn(cells, i, c), false
		}
		return i + 1, true
	case includeAndNextCol:
		return nextColumn(cells, i, c), true
	case includeAndSeekNextRow:
		return nextFamily(cells, i, c), true
	case nextCol:
		return nextColumn(cells, i, c), false
	case nextRow:
		return nextFamily(cells, i, c), false
	case seekNextUsingHint:
		if h := f.hint(c); h != nil && !rev && bytes.Compare(h, c.Qualifier) > 0 {
			return seekColumn(cells, i, c, h), false
		}
	}
	return i + 1, false
}

// versionCount counts the versions of a column a filter let through,
// which max_versions caps once the filter has had its say.
type versionCount struct {
	fam, qual []byte
	n         int
}

func (v *versionCount) over(c *wire.Cell, maxVersions int) bool {
	if !bytes.Equal(c.Family, v.fam) || !bytes.Equal(c.Qualifier, v.qual) {
		v.fam, v.qual, v.n = c.Family, c.Qualifier, 0
	}
	v.n++
	return v.n > maxVersions
}

// nextColumn is the position of the first cell after i not of c's column.
func nextColumn(cells []wire.Cell, i int, c *wire.Cell) int {
	for i++; i < len(cells) && bytes.Equal(cells[i].Family, c.Family) && bytes.Equal(cells[i].Qualifier, c.Qualifier); i++ {
	}
	return i
}

// nextFamily is the position of the first cell after i not of c's family.
func nextFamily(cells []wire.Cell, i int, c *wire.Cell) int {
	for i++; i < len(cells) && bytes.Equal(cells[i].Family, c.Family); i++ {
	}
	return i
}

// seekColumn is the position of the first cell after i of a column at or
// past qualifier q, or of another family.
func seekColumn(cells []wire.Cell, i int, c *wire.Cell, q []byte) int {
	for i++; i < len(cells) && bytes.Equal(cells[i].Family, c.Family) && bytes.Compare(cells[i].Qualifier, q) < 0; i++ {
	}
	return i
}

// rowSize counts one read's cells against the table's max row size as
// StoreScanner does: per family, from the start of each read of it (a
// Get reads a family whole; a scan call's read stops where a batch or
// size limit cuts the row, and the next read counts afresh).
type rowSize struct {
	max    int64
	region string
	fam    []byte
	size   int64
	cells  int // cells of the row in this result so far
}

func (z *rowSize) start() { z.fam, z.size, z.cells = nil, 0, 0 }

// add counts c; it fails with RowTooBigException once the family's cells
// in this read weigh more than the max row size.
func (z *rowSize) add(c *wire.Cell) (int64, error) {
	sz := store.CellSize(len(c.Row), len(c.Family), len(c.Qualifier), len(c.Value))
	if !bytes.Equal(c.Family, z.fam) {
		z.fam, z.size = c.Family, 0
	}
	z.size += sz
	z.cells++
	if z.size > z.max {
		return sz, excf(wire.ExcRowTooBig, "Max row size allowed: %d, but the row is bigger than that, the row info: %s, already have process row cells = %d, it belong to region = %s",
			z.max, cellKeyString(c), z.cells, z.region)
	}
	return sz, nil
}

// checkGet fails a Get whose row is too big for the max row size.
func (z *rowSize) checkGet(cells []wire.Cell) error {
	z.start()
	for i := range cells {
		if _, err := z.add(&cells[i]); err != nil {
			return err
		}
	}
	return nil
}

// cellKeyString is a cell's key as HBase's CellUtil.toString prints it:
// row/family:qualifier/timestamp/type/vlen=N/seqid=N (the engine keeps no
// sequence ids: 0).
func cellKeyString(c *wire.Cell) string {
	ts := strconv.FormatUint(c.Timestamp, 10)
	if c.Timestamp == wire.LatestTimestamp {
		ts = "LATEST_TIMESTAMP"
	}
	return fmt.Sprintf("%s/%s:%s/%s/%s/vlen=%d/seqid=0", toStringBinary(c.Row), toStringBinary(c.Family), toStringBinary(c.Qualifier), ts, typeName(c.Type), len(c.Value))
}

func typeName(t byte) string {
	switch t {
	case wire.TypePut:
		return "Put"
	case wire.TypeDelete:
		return "Delete"
	case wire.TypeDeleteFamilyVersion:
		return "DeleteFamilyVersion"
	case wire.TypeDeleteColumn:
		return "DeleteColumn"
	case wire.TypeDeleteFamily:
		return "DeleteFamily"
	}
	return "Minimum"
}

// toStringBinary is HBase's Bytes.toStringBinary: printable ASCII as it
// is, a backslash and every other byte as \xHH.
func toStringBinary(b []byte) string {
	var sb bytes.Buffer
	for _, ch := range b {
		if ch >= ' ' && ch <= '~' && ch != '\\' {
			sb.WriteByte(ch)
		} else {
			fmt.Fprintf(&sb, "\\x%02X", ch)
		}
	}
	return sb.String()
}
