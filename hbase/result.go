package hbase

import (
	"fmt"

	"commentbench/hbase/pb"
	"commentbench/hbase/wire"
)

// Cell is one version of one column. In mutations Row is ignored (the
// Mutation's is used), an empty Family means the Mutation's, Timestamp <= 0
// means "server time" and Type 0 means Put; delete type codes
// (wire.TypeDelete...) make the mutation a Delete.
type Cell struct {
	Row, Family, Qualifier, Value []byte
	Timestamp                     int64
	Type                          byte
}

// Result is one row's cells; Found reports whether the row has any.
type Result struct {
	Row   []byte
	Cells []Cell
	// Partial is set on a Scan's Result (with Batch or AllowPartial)
	// after which more cells of the row may follow, in the next Result
	// (HBase's mayHaveMoreCellsInRow).
	Partial bool
}

// Found reports whether the row exists (has visible cells).
func (r Result) Found() bool { return len(r.Cells) > 0 }

func fromWire(c wire.Cell) Cell {
	return Cell{Row: c.Row, Family: c.Family, Qualifier: c.Qualifier, Value: c.Value, Timestamp: int64(c.Timestamp), Type: c.Type}
}

func fromPB(c *pb.Cell) Cell {
	return Cell{Row: c.GetRow(), Family: c.GetFamily(), Qualifier: c.GetQualifier(), Value: c.GetValue(),
		Timestamp: int64(c.GetTimestamp()), Type: byte(c.GetCellType())}
}

// readResult builds a Result from inline cells followed by
// associated_cell_count cells taken from the front of block (§6.1); it
// returns the rest of block.
func readResult(res *pb.Result, block []byte) (Result, []byte, error) {
	var out Result
	for _, pc := range res.GetCell() {
		out.Cells = append(out.Cells, fromPB(pc))
	}
	cells, rest, err := readCells(block, int(res.GetAssociatedCellCount()))
	if err != nil {
		return Result{}, nil, err
	}
	if out.Cells == nil {
		out.Cells = cells
	} else {
		out.Cells = append(out.Cells, cells...)
	}
	if len(out.Cells) > 0 {
		out.Row = out.Cells[0].Row
	}
	return out, rest, nil
}

// chunk is one scan result, possibly part of a row.
type chunk struct {
	res     Result
	partial bool
}

// scanChunks decodes a ScanResponse's results, from cells_per_result and
// the cellblock when present, else from inline results (§6.5.3), and checks
// that the cellblock is consumed exactly.
func scanChunks(resp *pb.ScanResponse, block []byte) ([]chunk, error) {
	cpr := resp.GetCellsPerResult()
	out := make([]chunk, 0, len(cpr)+len(resp.GetResults()))
	if len(cpr) > 0 {
		// One allocation for every cell of the response: each result's
		// cells are a capacity-clipped piece of it, so appending to one
		// (coalescing a partial row) cannot clobber the next.
		total := 0
		for _, n := range cpr {
			total += int(n)
		}
		if total > len(block)/wire.MinCellLen {
			return nil, &retryableError{fmt.Sprintf("bad scan cellblock: %d cells cannot fit in %d bytes", total, len(block))}
		}
		arena := make([]Cell, total)
		flags := resp.GetPartialFlagPerResult()
		for i, n := range cpr {
			cells := arena[:n:n]
			arena = arena[n:]
			for j := range cells {
				wc, rest, err := wire.ReadCell(block)
				if err != nil {
					return nil, &retryableError{fmt.Sprintf("bad scan cellblock: result %d, cell %d of %d: %v", i, j, n, err)}
				}
				block = rest
				cells[j] = fromWire(wc)
			}
			var r Result
			if n > 0 {
				r = Result{Row: cells[0].Row, Cells: cells}
			}
			out = append(out, chunk{res: r, partial: i < len(flags) && flags[i]})
		}
	}
	for _, pr := range resp.GetResults() {
		r, rest, err := readResult(pr, block)
		if err != nil {
			return nil, err
		}
		block = rest
		out = append(out, chunk{res: r, partial: pr.GetPartial()})
	}
	if len(block) != 0 {
		return nil, &retryableError{fmt.Sprintf("%d unread cellblock bytes in scan response", len(block))}
	}
	return out, nil
}
