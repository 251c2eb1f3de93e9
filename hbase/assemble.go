package hbase

import "bytes"

// assembler turns the chunks a scan's servers send into the Results its
// caller receives, as HBase's client result caches do: whole rows, the
// partial chunks of a row stitched together (CompleteScanResultCache);
// with a batch, Results of exactly batch cells but a row's last, however
// the servers' size limits cut the row (BatchScanResultCache); or, with
// partials allowed, the chunks as they came (AllowPartialScanResultCache).
// It remembers what it delivered, so that a scanner re-opened from the
// start of a row hands over only what the caller lacks.
type assembler struct {
	batch    int
	partial  bool
	reversed bool
	limit    int // whole rows; 0: none
	st       *ScanStats
	each     func(Result) bool

	pend    Result // the row being stitched, or its cells not yet batched
	pending bool

	lastRow     []byte // the row of the last Result delivered
	lastCell    Cell   // that Result's last cell
	lastPartial bool   // whether that row may go on
}

// put takes one chunk; false stops the scan (the caller is done, or the
// limit is reached).
func (a *assembler) put(ch chunk) bool {
	r := a.unseen(ch.res)
	if len(r.Cells) == 0 {
		return true
	}
	if a.pending && !bytes.Equal(a.pend.Row, r.Row) {
		// A chunk of another row ends the pending one (§6.5.4).
		if !a.flush() {
			return false
		}
	}
	switch {
	case a.partial:
		return a.emit(r, ch.partial)
	case a.batch > 0:
		return a.regroup(r, ch.partial)
	}
	return a.stitch(r, ch.partial)
}

func (a *assembler) stitch(r Result, more bool) bool {
	if a.pending {
		a.pend.Cells = append(a.pend.Cells, r.Cells...)
	} else {
		a.pend, a.pending = r, true
	}
	if more {
		return true
	}
	return a.flush()
}

// regroup hands over a Result each time batch cells of the row are
// pending; the row's last cells go when it ends.
func (a *assembler) regroup(r Result, more bool) bool {
	if !a.pending {
		a.pend, a.pending = Result{Row: r.Row}, true
	}
	a.pend.Cells = append(a.pend.Cells, r.Cells...)
	for len(a.pend.Cells) >= a.batch {
		cells := a.pend.Cells[:a.batch:a.batch]
		a.pend.Cells = a.pend.Cells[a.batch:]
		if !a.emit(Result{Row: a.pend.Row, Cells: cells}, more || len(a.pend.Cells) > 0) {
			return false
		}
	}
	if more {
		return true
	}
	return a.flush()
}

// flush hands over what is pending as the end of its row: at a row
// change, a row's last chunk, or the end of a region.
func (a *assembler) flush() bool {
	if !a.pending {
		return true
	}
	r := a.pend
	a.pend, a.pending = Result{}, false
	if len(r.Cells) == 0 {
		return true
	}
	return a.emit(r, false)
}

// abort forgets what is pending: the scanner is re-opened, and sends it
// again.
func (a *assembler) abort() { a.pend, a.pending = Result{}, false }

// emit hands r over; more says its row may go on. Rows count whole as
// HBase's client counts them: at a Result that ends its row, or at the
// first Result of another row after one that might not have.
func (a *assembler) emit(r Result, more bool) bool {
	if a.lastPartial && !bytes.Equal(r.Row, a.lastRow) {
		if a.st.Rows++; !a.underLimit() {
			return false
		}
	}
	r.Partial = more
	a.lastRow = append(a.lastRow[:0], r.Row...)
	a.lastCell = r.Cells[len(r.Cells)-1]
	a.lastPartial = more
	if !more {
		a.st.Rows++
	}
	return a.each(r) && (more || a.underLimit())
}

func (a *assembler) underLimit() bool { return a.limit <= 0 || a.st.Rows < a.limit }

// unseen is what of r the caller has not had: a server that re-opened at
// a row already delivered (one that ignores include_start_row, or the
// start of a row delivered in part) sends it again.
func (a *assembler) unseen(r Result) Result {
	if a.lastRow == nil || len(r.Cells) == 0 {
		return r
	}
	c := bytes.Compare(r.Row, a.lastRow)
	if a.reversed {
		c = -c
	}
	switch {
	case c > 0:
		return r
	case c < 0 || !a.lastPartial:
		return Result{}
	}
	i := 0
	for i < len(r.Cells) && compareCells(&r.Cells[i], &a.lastCell) <= 0 {
		i++
	}
	r.Cells = r.Cells[i:]
	return r
}

// resumeAt is where a re-opened scanner starts (inclusive): after the
// last row delivered whole, or at a row delivered in part, or at the
// last row of a reversed scan (include_start_row=false is not
// universally supported; unseen drops what comes again).
func (a *assembler) resumeAt() []byte {
	k := bytes.Clone(a.lastRow)
	if a.reversed || a.lastPartial {
		return k
	}
	return append(k, 0)
}

// compareCells orders two cells of one row as HBase does: by family, by
// qualifier, newest first, then by type code, highest first.
func compareCells(x, y *Cell) int {
	if c := bytes.Compare(x.Family, y.Family); c != 0 {
		return c
	}
	if c := bytes.Compare(x.Qualifier, y.Qualifier); c != 0 {
		return c
	}
	switch {
	case x.Timestamp > y.Timestamp:
		return -1
	case x.Timestamp < y.Timestamp:
		return 1
	}
	return int(y.Type) - int(x.Type)
}
