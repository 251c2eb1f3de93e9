package hbasetest

import (
	"bytes"

	"commentbench/hbase/pb"
	"commentbench/hbase/wire"
	"commentbench/store"

	"google.golang.org/protobuf/proto"
)

// Filters as a region server runs them on a row (HBase 2.5's
// RegionScannerImpl, StoreScanner and UserScanQueryMatcher): first on the
// row key, which can also end the scan; then cell by cell, each cell
// getting a return code that includes it, skips it, or moves the read on
// (past the column's versions, past the family, or to a hinted column);
// then on the row as a whole. The row-key stage also runs inside the
// engine's scan, so the engine's counts of rows read and dropped stay
// HBase's; the other stages run here (rowread.go), on the cells the engine
// returns. Filters keep state within a row (a pagination's count), which
// reset clears before the next.

// returnCode is HBase's Filter.ReturnCode for one cell.
type returnCode int8

const (
	include               returnCode = iota // INCLUDE
	includeAndNextCol                       // INCLUDE_AND_NEXT_COL
	includeAndSeekNextRow                   // INCLUDE_AND_SEEK_NEXT_ROW
	skip                                    // SKIP
	nextCol                                 // NEXT_COL
	nextRow                                 // NEXT_ROW: the rest of the cell's family in this row
	seekNextUsingHint                       // SEEK_NEXT_USING_HINT
)

func (rc returnCode) includes() bool { return rc <= includeAndSeekNextRow }

// filter is one parsed HBase filter and its state in the current row.
type filter interface {
	// rowKey is filterRowKey: whether the row is dropped by its key
	// alone, and whether no later row in the scan's direction can pass
	// (filterAllRemaining after it). It is called first in every row.
	rowKey(row []byte, rev bool) (drop, done bool)
	// allRemaining is filterAllRemaining: the filter passes nothing more.
	allRemaining() bool
	// cell is filterCell.
	cell(c *wire.Cell) returnCode
	// hint is getNextCellHint after cell answered seekNextUsingHint for
	// c: the qualifier, in c's row and family, to read on from; nil for
	// none. Every hint here is a first-on-column key.
	hint(c *wire.Cell) []byte
	// filterRow is filterRow: whether the row goes, whatever its cells.
	filterRow() bool
	// wholeRow is hasFilterRow: the filter must see a row whole, so no
	// limit may cut the row into partial results.
	wholeRow() bool
	// reset is Filter.reset, between rows.
	reset()
}

var (
	_ filter       = (*keyFilter)(nil)
	_ filter       = cellFilter{}
	_ filter       = columnPrefixFilter{}
	_ filter       = columnRangeFilter{}
	_ filter       = (*columnPaginationFilter)(nil)
	_ filter       = (*singleColumnValueFilter)(nil)
	_ filter       = (*filterList)(nil)
	_ store.Filter = keyStage{}
)

const filterPkg = "org.apache.hadoop.hbase.filter."

// Comparator class names.
const (
	binaryComparatorClass       = filterPkg + "BinaryComparator"
	binaryPrefixComparatorClass = filterPkg + "BinaryPrefixComparator"
)

// comparator is a ByteArrayComparable: compare returns the comparison of
// its value with b, as HBase's compareTo (the comparator's value first).
type comparator interface {
	compare(b []byte) int
	value() []byte
}

type binaryComparator []byte

func (c binaryComparator) compare(b []byte) int { return bytes.Compare(c, b) }
func (c binaryComparator) value() []byte        { return c }

// binaryPrefixComparator compares only as many bytes of b as it has.
type binaryPrefixComparator []byte

func (c binaryPrefixComparator) compare(b []byte) int {
	return bytes.Compare(c, b[:min(len(b), len(c))])
}
func (c binaryPrefixComparator) value() []byte { return c }

func parseComparator(cmp *pb.Comparator) (comparator, error) {
	var inner pb.BinaryComparator // BinaryPrefixComparator has the same shape
	if err := proto.Unmarshal(cmp.GetSerializedComparator(), &inner); err != nil {
		return nil, excf(wire.ExcDoNotRetryIO, "bad %s: %v", cmp.GetName(), err)
	}
	switch cmp.GetName() {
	case binaryComparatorClass:
		return binaryComparator(inner.GetComparable().GetValue()), nil
	case binaryPrefixComparatorClass:
		return binaryPrefixComparator(inner.GetComparable().GetValue()), nil
	}
	return nil, excf(wire.ExcDoNotRetryIO, "comparator %q is not supported", cmp.GetName())
}

// passes applies a compare filter's operator the way HBase's
// CompareFilter does: c is the comparator's value compared with the
// cell's bytes, so LESS keeps what is less than the value.
func passes(op pb.CompareType, c int) (bool, error) {
	switch op {
	case pb.CompareType_LESS:
		return c > 0, nil
	case pb.CompareType_LESS_OR_EQUAL:
		return c >= 0, nil
	case pb.CompareType_EQUAL:
		return c == 0, nil
	case pb.CompareType_NOT_EQUAL:
		return c != 0, nil
	case pb.CompareType_GREATER_OR_EQUAL:
		return c <= 0, nil
	case pb.CompareType_GREATER:
		return c < 0, nil
	}
	return false, excf(wire.ExcDoNotRetryIO, "compare operator %v is not supported", op)
}

// compareFilter is the shared part of RowFilter, FamilyFilter,
// QualifierFilter and ValueFilter.
type compareFilter struct {
	op  pb.CompareType
	cmp comparator
}

func parseCompareFilter(name string, cf *pb.CompareFilter) (compareFilter, error) {
	if op := cf.GetCompareOp(); op > pb.CompareType_GREATER {
		return compareFilter{}, excf(wire.ExcDoNotRetryIO, "%s operator %v is not supported", name, op)
	}
	cmp, err := parseComparator(cf.GetComparator())
	if err != nil {
		return compareFilter{}, err
	}
	return compareFilter{op: cf.GetCompareOp(), cmp: cmp}, nil
}

func (f compareFilter) keeps(b []byte) bool {
	ok, _ := passes(f.op, f.cmp.compare(b)) // the operator was checked at parse time
	return ok
}

// noCellState is the part of filter that filters without per-row state
// or row-level decisions share.
type noCellState struct{}

func (noCellState) rowKey([]byte, bool) (bool, bool) { return false, false }
func (noCellState) allRemaining() bool               { return false }
func (noCellState) hint(*wire.Cell) []byte           { return nil }
func (noCellState) filterRow() bool                  { return false }
func (noCellState) wholeRow() bool                   { return false }
func (noCellState) reset()                           {}

// keyFilter adapts a store filter (RowFilter, PrefixFilter) to filter.
// As HBase's RowFilter and PrefixFilter, it remembers its verdict on the
// row's key and answers NEXT_ROW for the cells of a row it dropped, which
// a MUST_PASS_ONE list can still read; a PrefixFilter past its prefix
// passes nothing more.
type keyFilter struct {
	store.Filter
	drop, done bool
}

func (f *keyFilter) rowKey(row []byte, rev bool) (bool, bool) {
	keep, done := f.Decide(row, rev)
	f.drop, f.done = !keep, done
	return f.drop, f.done
}
func (f *keyFilter) allRemaining() bool { return f.done }
func (f *keyFilter) cell(*wire.Cell) returnCode {
	if f.drop {
		return nextRow
	}
	return include
}
func (f *keyFilter) hint(*wire.Cell) []byte { return nil }
func (f *keyFilter) filterRow() bool        { return f.drop }
func (f *keyFilter) wholeRow() bool         { return false }
func (f *keyFilter) reset()                 { f.drop = false }

// cellFilter is FamilyFilter, QualifierFilter or ValueFilter: it tests
// one part of each cell and answers fail when the test fails. As HBase's,
// FamilyFilter and QualifierFilter pass a cell whose part is empty.
type cellFilter struct {
	noCellState
	part      func(*wire.Cell) []byte
	test      func([]byte) bool
	fail      returnCode
	skipEmpty bool
}

func (f cellFilter) cell(c *wire.Cell) returnCode {
	b := f.part(c)
	if (f.skipEmpty && len(b) == 0) || f.test(b) {
		return include
	}
	return f.fail
}

func familyOf(c *wire.Cell) []byte    { return c.Family }
func qualifierOf(c *wire.Cell) []byte { return c.Qualifier }
func valueOf(c *wire.Cell) []byte     { return c.Value }

// columnPrefixFilter keeps the columns whose qualifier starts with prefix,
// as HBase's ColumnPrefixFilter: it seeks to the prefix from a qualifier
// below it, and leaves the family once past it.
type columnPrefixFilter struct {
	noCellState
	prefix []byte
}

func (f columnPrefixFilter) cell(c *wire.Cell) returnCode {
	q := c.Qualifier
	if len(q) < len(f.prefix) {
		if bytes.Compare(q, f.prefix[:len(q)]) <= 0 {
			return seekNextUsingHint
		}
		return nextRow
	}
	switch bytes.Compare(q[:len(f.prefix)], f.prefix) {
	case -1:
		return seekNextUsingHint
	case 1:
		return nextRow
	}
	return include
}

func (f columnPrefixFilter) hint(*wire.Cell) []byte { return f.prefix }

// columnRangeFilter keeps the columns whose qualifier lies between min and
// max (nil: open), as HBase's ColumnRangeFilter: below min it seeks to
// min, an excluded min moves to the next column, past max it leaves the
// family.
type columnRangeFilter struct {
	noCellState
	min, max       []byte
	minInc, maxInc bool
}

func (f columnRangeFilter) cell(c *wire.Cell) returnCode {
	if f.min != nil {
		switch cmp := bytes.Compare(c.Qualifier, f.min); {
		case cmp < 0:
			return seekNextUsingHint
		case cmp == 0 && !f.minInc:
			return nextCol
		}
	}
	if f.max == nil {
		return include
	}
	if cmp := bytes.Compare(c.Qualifier, f.max); cmp < 0 || (cmp == 0 && f.maxInc) {
		return include
	}
	return nextRow
}

// hint is min: the filter seeks only when min is set.
func (f columnRangeFilter) hint(*wire.Cell) []byte { return f.min }

// columnPaginationFilter keeps limit columns of each row, as HBase's
// ColumnPaginationFilter: it counts columns, not versions (every answer
// that passes a column moves past its other versions), across the row's
// families, and its count starts again in every row. With a column offset
// it seeks to that qualifier and counts from there; else it passes over
// offset columns first.
type columnPaginationFilter struct {
	limit, offset int
	colOffset     []byte // nil: offset mode
	count         int
}

func (f *columnPaginationFilter) rowKey([]byte, bool) (bool, bool) { return false, false }
func (f *columnPaginationFilter) allRemaining() bool               { return false }
func (f *columnPaginationFilter) filterRow() bool                  { return false }
func (f *columnPaginationFilter) wholeRow() bool                   { return false }
func (f *columnPaginationFilter) reset()                           { f.count = 0 }

func (f *columnPaginationFilter) cell(c *wire.Cell) returnCode {
	if f.colOffset != nil {
		if f.count >= f.limit {
			return nextRow
		}
		// Only the first column passed is compared with the offset.
		if f.count == 0 && bytes.Compare(c.Qualifier, f.colOffset) < 0 {
			return seekNextUsingHint
		}
		f.count++
		return includeAndNextCol
	}
	if f.count >= f.offset+f.limit {
		return nextRow
	}
	rc := includeAndNextCol
	if f.count < f.offset {
		rc = nextCol
	}
	f.count++
	return rc
}

func (f *columnPaginationFilter) hint(*wire.Cell) []byte { return f.colOffset }

// singleColumnValueFilter keeps or drops a whole row by the value of one
// column, as HBase's SingleColumnValueFilter: a row whose column fails the
// test is dropped, and one without the column only with filterIfMissing.
// With latestOnly the newest version decides and, once it failed, the
// rest of its family is not read.
type singleColumnValueFilter struct {
	family, qualifier []byte
	test              compareFilter
	ifMissing         bool
	latestOnly        bool
	found, matched    bool
}

func (f *singleColumnValueFilter) rowKey([]byte, bool) (bool, bool) { return false, false }
func (f *singleColumnValueFilter) allRemaining() bool               { return false }
func (f *singleColumnValueFilter) hint(*wire.Cell) []byte           { return nil }
func (f *singleColumnValueFilter) wholeRow() bool                   { return true }
func (f *singleColumnValueFilter) reset()                           { f.found, f.matched = false, false }

func (f *singleColumnValueFilter) cell(c *wire.Cell) returnCode {
	switch {
	case f.matched:
		return include
	case f.latestOnly && f.found:
		return nextRow
	case !bytes.Equal(c.Family, f.family) || !bytes.Equal(c.Qualifier, f.qualifier):
		return include
	}
	f.found = true
	if !f.test.keeps(c.Value) {
		if f.latestOnly {
			return nextRow
		}
		return include
	}
	f.matched = true
	return include
}

func (f *singleColumnValueFilter) filterRow() bool {
	if f.found {
		return !f.matched
	}
	return f.ifMissing
}

// filterList is HBase's FilterList as HBase 2.5 runs it
// (FilterListWithAND, FilterListWithOR): MUST_PASS_ALL or MUST_PASS_ONE
// over its filters, in order.
type filterList struct {
	all     bool
	filters []filter
	rev     bool
	// MUST_PASS_ALL: the filters that asked for a seek at the last cell.
	hinted []int
	// MUST_PASS_ONE: each filter's last answer and the cell it gave it
	// for, so that a cell it already ruled out (a later version of a
	// column it left) is answered for it without asking (HBASE-17678).
	prev []prevAnswer
}

type prevAnswer struct {
	rc   returnCode
	cell wire.Cell
	set  bool // false after include or skip: the filter is asked again
}

func newFilterList(all bool, filters []filter) *filterList {
	l := &filterList{all: all, filters: filters}
	if !all {
		l.prev = make([]prevAnswer, len(filters))
	}
	return l
}

// rowKey asks every filter, even once the answer is known, as HBase does:
// a filter may keep state from the row key. One that passes nothing more
// counts as dropping the row and is not asked.
func (l *filterList) rowKey(row []byte, rev bool) (bool, bool) {
	l.rev = rev
	if len(l.filters) == 0 {
		return false, false
	}
	drops := 0
	for _, f := range l.filters {
		if f.allRemaining() {
			drops++
			continue
		}
		if drop, _ := f.rowKey(row, rev); drop {
			drops++
		}
	}
	if l.all {
		return drops > 0, l.allRemaining()
	}
	return drops == len(l.filters), l.allRemaining()
}

func (l *filterList) allRemaining() bool {
	if len(l.filters) == 0 {
		return false
	}
	// MUST_PASS_ALL: one that is done ends the list; MUST_PASS_ONE: one
	// that is not keeps it going.
	for _, f := range l.filters {
		if f.allRemaining() == l.all {
			return l.all
		}
	}
	return !l.all
}

func (l *filterList) cell(c *wire.Cell) returnCode {
	if len(l.filters) == 0 {
		return include
	}
	if l.all {
		return l.cellAll(c)
	}
	return l.cellOne(c)
}

// cellAll stops at the first filter whose answer leaves the cell out, so
// the filters after it never see the cell: a pagination after a range
// does not count the columns the range dropped (HBASE-20565).
func (l *filterList) cellAll(c *wire.Cell) returnCode {
	rc := include
	l.hinted = l.hinted[:0]
	for i, f := range l.filters {
		if f.allRemaining() {
			return nextRow
		}
		local := f.cell(c)
		if local == seekNextUsingHint {
			l.hinted = append(l.hinted, i)
		}
		if rc = mergeAll(rc, local); !rc.includes() {
			return rc
		}
	}
	return rc
}

func (l *filterList) cellOne(c *wire.Cell) returnCode {
	rc, seen := skip, false
	for i, f := range l.filters {
		if f.allRemaining() {
			continue
		}
		local, known := l.prevAnswer(i, c)
		if !known {
			local = f.cell(c)
		}
		l.prev[i] = prevAnswer{rc: local, cell: *c, set: local != include && local != skip}
		if seen {
			rc = mergeOne(rc, local)
		} else {
			rc, seen = local, true
		}
	}
	return rc
}

// prevAnswer is filter i's answer for c from its answer at an earlier cell
// of the row, when that answer covers c: c is before the hint it gave, in
// the column it left, or in the family it left.
func (l *filterList) prevAnswer(i int, c *wire.Cell) (returnCode, bool) {
	p := &l.prev[i]
	if !p.set {
		return 0, false
	}
	switch p.rc {
	case seekNextUsingHint:
		if h := l.filters[i].hint(&p.cell); h != nil && l.compareToHint(c, &p.cell, h) < 0 {
			return seekNextUsingHint, true
		}
	case nextCol, includeAndNextCol:
		if bytes.Equal(c.Family, p.cell.Family) && bytes.Equal(c.Qualifier, p.cell.Qualifier) {
			return nextCol, true
		}
	case nextRow, includeAndSeekNextRow:
		if bytes.Equal(c.Family, p.cell.Family) {
			return nextRow, true
		}
	}
	return 0, false
}

// compareToHint compares c with the first key of column hint in at's
// family, in the scan's direction, as FilterListBase.compareCell does.
func (l *filterList) compareToHint(c, at *wire.Cell, hint []byte) int {
	cmp := bytes.Compare(c.Family, at.Family)
	if cmp == 0 {
		// A first-on-column key sorts before every cell of its column.
		if cmp = bytes.Compare(c.Qualifier, hint); cmp == 0 {
			cmp = 1
		}
	}
	if l.rev {
		return -cmp
	}
	return cmp
}

// compareHints orders two hints of one cell in the scan's direction.
func (l *filterList) compareHints(a, b []byte) int {
	if l.rev {
		return bytes.Compare(b, a)
	}
	return bytes.Compare(a, b)
}

// hint is the furthest hint of the filters that asked for a seek
// (MUST_PASS_ALL), or the nearest hint of all, none if one has none
// (MUST_PASS_ONE).
func (l *filterList) hint(c *wire.Cell) []byte {
	var out []byte
	if l.all {
		for _, i := range l.hinted {
			if f := l.filters[i]; !f.allRemaining() {
				if h := f.hint(c); out == nil || l.compareHints(out, h) < 0 {
					out = h
				}
			}
		}
		return out
	}
	for _, f := range l.filters {
		if f.allRemaining() {
			continue
		}
		h := f.hint(c)
		if h == nil {
			return nil
		}
		if out == nil || l.compareHints(out, h) > 0 {
			out = h
		}
	}
	return out
}

func (l *filterList) filterRow() bool {
	if len(l.filters) == 0 {
		return false
	}
	for _, f := range l.filters {
		if f.filterRow() == l.all {
			return l.all
		}
	}
	return !l.all
}

func (l *filterList) wholeRow() bool {
	for _, f := range l.filters {
		if f.wholeRow() {
			return true
		}
	}
	return false
}

func (l *filterList) reset() {
	for i, f := range l.filters {
		f.reset()
		if l.prev != nil {
			l.prev[i] = prevAnswer{}
		}
	}
	l.hinted = l.hinted[:0]
}

// step is how far a code moves the read on from its cell (HBase's "jump
// step" of the FilterList merge rules): 0 to the next cell, 1 past the
// column, 2 past the family's row. A seek is handled apart.
func (rc returnCode) step() int {
	switch rc {
	case include, skip:
		return 0
	case includeAndNextCol, nextCol:
		return 1
	}
	return 2
}

// codeOf is the code that moves step and includes the cell or not.
func codeOf(step int, incl bool) returnCode {
	codes := [3][2]returnCode{{skip, include}, {nextCol, includeAndNextCol}, {nextRow, includeAndSeekNextRow}}
	if incl {
		return codes[step][1]
	}
	return codes[step][0]
}

// mergeAll is MUST_PASS_ALL's merge (the maximal step rule): a seek wins;
// else the cell is included only if both include it, and the read moves
// as far as either says.
func mergeAll(rc, local returnCode) returnCode {
	if rc == seekNextUsingHint || local == seekNextUsingHint {
		return seekNextUsingHint
	}
	return codeOf(max(rc.step(), local.step()), rc.includes() && local.includes())
}

// mergeOne is MUST_PASS_ONE's merge (the minimal step rule): the cell is
// included if either includes it, and the read moves as little as either
// says; a seek, whose distance is unknown, counts as a skip unless both
// seek.
func mergeOne(rc, local returnCode) returnCode {
	if rc == seekNextUsingHint && local == seekNextUsingHint {
		return seekNextUsingHint
	}
	if rc == seekNextUsingHint {
		rc = skip
	}
	if local == seekNextUsingHint {
		local = skip
	}
	return codeOf(min(rc.step(), local.step()), rc.includes() || local.includes())
}

// keyStage is the row-key stage of f as a store.Filter, for the engine.
type keyStage struct{ f filter }

func (k keyStage) Decide(row []byte, rev bool) (bool, bool) {
	drop, done := k.f.rowKey(row, rev)
	return !drop, done
}

// parseFilter builds a filter from its wire form; nil for none.
func parseFilter(f *pb.Filter) (filter, error) {
	if f == nil {
		return nil, nil
	}
	body := f.GetSerializedFilter()
	switch f.GetName() {
	case filterPkg + "RowFilter":
		m := &pb.RowFilter{}
		if err := unmarshalFilter(f, body, m); err != nil {
			return nil, err
		}
		cf, err := parseCompareFilter("RowFilter", m.GetCompareFilter())
		if err != nil {
			return nil, err
		}
		if _, ok := cf.cmp.(binaryComparator); !ok {
			return nil, excf(wire.ExcDoNotRetryIO, "RowFilter with %T is not supported", cf.cmp)
		}
		return &keyFilter{Filter: store.RowFilter{Op: store.CompareOp(cf.op), Value: cf.cmp.value()}}, nil
	case filterPkg + "PrefixFilter":
		m := &pb.PrefixFilter{}
		if err := unmarshalFilter(f, body, m); err != nil {
			return nil, err
		}
		return &keyFilter{Filter: store.PrefixFilter{Prefix: m.GetPrefix()}}, nil
	case filterPkg + "FamilyFilter":
		m := &pb.FamilyFilter{}
		return compareCells(f, body, m, func() *pb.CompareFilter { return m.GetCompareFilter() }, cellFilter{part: familyOf, fail: nextRow, skipEmpty: true})
	case filterPkg + "QualifierFilter":
		m := &pb.QualifierFilter{}
		return compareCells(f, body, m, func() *pb.CompareFilter { return m.GetCompareFilter() }, cellFilter{part: qualifierOf, fail: skip, skipEmpty: true})
	case filterPkg + "ValueFilter":
		m := &pb.ValueFilter{}
		return compareCells(f, body, m, func() *pb.CompareFilter { return m.GetCompareFilter() }, cellFilter{part: valueOf, fail: skip})
	case filterPkg + "ColumnPrefixFilter":
		m := &pb.ColumnPrefixFilter{}
		if err := unmarshalFilter(f, body, m); err != nil {
			return nil, err
		}
		return columnPrefixFilter{prefix: m.GetPrefix()}, nil
	case filterPkg + "ColumnRangeFilter":
		return parseColumnRangeFilter(f, body)
	case filterPkg + "ColumnPaginationFilter":
		return parseColumnPaginationFilter(f, body)
	case filterPkg + "SingleColumnValueFilter":
		return parseSingleColumnValueFilter(f, body)
	case filterPkg + "FilterList":
		return parseFilterList(f, body)
	}
	return nil, excf(wire.ExcDoNotRetryIO, "filter %q is not supported", f.GetName())
}

func unmarshalFilter(f *pb.Filter, body []byte, m proto.Message) error {
	if err := proto.Unmarshal(body, m); err != nil {
		return excf(wire.ExcDoNotRetryIO, "bad %s: %v", f.GetName(), err)
	}
	return nil
}

func compareCells(f *pb.Filter, body []byte, m proto.Message, cf func() *pb.CompareFilter, cell cellFilter) (filter, error) {
	if err := unmarshalFilter(f, body, m); err != nil {
		return nil, err
	}
	c, err := parseCompareFilter(f.GetName(), cf())
	if err != nil {
		return nil, err
	}
	cell.test = c.keeps
	return cell, nil
}

// parseColumnRangeFilter reads the bounds as HBase's parseFrom does: an
// absent bound is open, an absent inclusive flag false.
func parseColumnRangeFilter(f *pb.Filter, body []byte) (filter, error) {
	m := &pb.ColumnRangeFilter{}
	if err := unmarshalFilter(f, body, m); err != nil {
		return nil, err
	}
	return columnRangeFilter{min: m.MinColumn, minInc: m.GetMinColumnInclusive(), max: m.MaxColumn, maxInc: m.GetMaxColumnInclusive()}, nil
}

// parseColumnPaginationFilter takes a column offset, when present, over
// the offset, and refuses negative numbers, as HBase's parseFrom and
// constructors do.
func parseColumnPaginationFilter(f *pb.Filter, body []byte) (filter, error) {
	m := &pb.ColumnPaginationFilter{}
	if err := unmarshalFilter(f, body, m); err != nil {
		return nil, err
	}
	p := &columnPaginationFilter{limit: int(m.GetLimit()), colOffset: m.ColumnOffset}
	if p.colOffset == nil {
		p.offset = int(m.GetOffset())
	}
	if p.limit < 0 || p.offset < 0 {
		return nil, excf(wire.ExcDoNotRetryIO, "bad %s: limit %d and offset %d must be positive", f.GetName(), p.limit, p.offset)
	}
	return p, nil
}

func parseSingleColumnValueFilter(f *pb.Filter, body []byte) (filter, error) {
	m := &pb.SingleColumnValueFilter{}
	if err := unmarshalFilter(f, body, m); err != nil {
		return nil, err
	}
	test, err := parseCompareFilter("SingleColumnValueFilter", &pb.CompareFilter{CompareOp: m.CompareOp, Comparator: m.Comparator})
	if err != nil {
		return nil, err
	}
	return &singleColumnValueFilter{
		family: m.GetColumnFamily(), qualifier: m.GetColumnQualifier(), test: test,
		ifMissing: m.GetFilterIfMissing(), latestOnly: m.GetLatestVersionOnly(),
	}, nil
}

func parseFilterList(f *pb.Filter, body []byte) (filter, error) {
	m := &pb.FilterList{}
	if err := unmarshalFilter(f, body, m); err != nil {
		return nil, err
	}
	var subs []filter
	for _, sub := range m.GetFilters() {
		g, err := parseFilter(sub)
		if err != nil {
			return nil, err
		}
		subs = append(subs, g)
	}
	return newFilterList(m.GetOperator() == pb.FilterList_MUST_PASS_ALL, subs), nil
}
