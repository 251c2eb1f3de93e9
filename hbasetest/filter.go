package hbasetest

import (
	"bytes"

	"commentbench/hbase/pb"
	"commentbench/hbase/wire"
	"commentbench/store"

	"google.golang.org/protobuf/proto"
)

// Filters as a region server runs them on a row: first on the row key
// (which can also end the scan), then on the row's cells, then on the row
// as a whole. The row-key stage runs inside the engine's scan, so the
// engine's counts of rows read and dropped stay HBase's; the cell and row
// stages run here, on the cells the engine returns.

// filter is one parsed HBase filter.
type filter interface {
	// rowKey reports whether the row is dropped by its key alone, and
	// whether no later row in the scan's direction can pass.
	rowKey(row []byte, rev bool) (drop, done bool)
	// cells returns the cells of a row (one that passed rowKey) the filter
	// keeps, and whether it drops the row whatever the cells. It gets the
	// row key for a MUST_PASS_ONE list, whose filters that dropped the row
	// by its key have no say over its cells.
	cells(row []byte, rev bool, cells []wire.Cell) (kept []wire.Cell, dropRow bool)
}

var (
	_ filter       = keyFilter{}
	_ filter       = cellFilter{}
	_ filter       = singleColumnValueFilter{}
	_ filter       = filterList{}
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

// keyFilter adapts a store filter (RowFilter, PrefixFilter) to filter.
type keyFilter struct{ store.Filter }

func (f keyFilter) rowKey(row []byte, rev bool) (bool, bool) {
	keep, done := f.Decide(row, rev)
	return !keep, done
}
func (keyFilter) cells(_ []byte, _ bool, c []wire.Cell) ([]wire.Cell, bool) { return c, false }

// cellFilter keeps the cells whose part (family, qualifier or value) its
// test passes.
type cellFilter struct {
	part func(wire.Cell) []byte
	test func([]byte) bool
}

func (cellFilter) rowKey([]byte, bool) (bool, bool) { return false, false }
func (f cellFilter) cells(_ []byte, _ bool, cells []wire.Cell) ([]wire.Cell, bool) {
	var kept []wire.Cell
	for _, c := range cells {
		if f.test(f.part(c)) {
			kept = append(kept, c)
		}
	}
	return kept, false
}

func familyOf(c wire.Cell) []byte    { return c.Family }
func qualifierOf(c wire.Cell) []byte { return c.Qualifier }
func valueOf(c wire.Cell) []byte     { return c.Value }

// singleColumnValueFilter keeps or drops a whole row by the value of one
// column: a row whose column fails the test is dropped, and one without
// the column is dropped only with filterIfMissing. It never drops cells.
type singleColumnValueFilter struct {
	family, qualifier []byte
	test              compareFilter
	ifMissing         bool
	latestOnly        bool
}

func (singleColumnValueFilter) rowKey([]byte, bool) (bool, bool) { return false, false }
func (f singleColumnValueFilter) cells(_ []byte, _ bool, cells []wire.Cell) ([]wire.Cell, bool) {
	seen := false
	for _, c := range cells {
		if !bytes.Equal(c.Family, f.family) || !bytes.Equal(c.Qualifier, f.qualifier) {
			continue
		}
		if f.test.keeps(c.Value) {
			return cells, false
		}
		seen = true
		if f.latestOnly {
			break // the newest version decides
		}
	}
	if seen {
		return cells, true
	}
	return cells, f.ifMissing
}

// filterList is HBase's FilterList: MUST_PASS_ALL (and) or MUST_PASS_ONE
// (or) over its filters.
type filterList struct {
	all     bool
	filters []filter
}

func (l filterList) rowKey(row []byte, rev bool) (bool, bool) {
	if len(l.filters) == 0 {
		return false, false
	}
	anyDrop, allDrop, anyDone, allDone := false, true, false, true
	for _, f := range l.filters {
		drop, done := f.rowKey(row, rev)
		anyDrop, allDrop = anyDrop || drop, allDrop && drop
		anyDone, allDone = anyDone || done, allDone && done
	}
	if l.all {
		return anyDrop, anyDone
	}
	return allDrop, allDone
}

func (l filterList) cells(row []byte, rev bool, cells []wire.Cell) ([]wire.Cell, bool) {
	if len(l.filters) == 0 {
		return cells, false
	}
	if l.all {
		dropRow := false
		for _, f := range l.filters {
			var drop bool
			cells, drop = f.cells(row, rev, cells)
			dropRow = dropRow || drop
		}
		return cells, dropRow
	}
	// MUST_PASS_ONE: a cell stays if any filter that keeps the row keeps
	// it; the row goes if every filter drops it.
	keep := make([]bool, len(cells))
	kept := false
	for _, f := range l.filters {
		if drop, _ := f.rowKey(row, rev); drop {
			continue
		}
		if mine, drop := f.cells(row, rev, cells); !drop {
			kept = true
			markKept(keep, cells, mine)
		}
	}
	if !kept {
		return nil, true
	}
	var out []wire.Cell
	for i, c := range cells {
		if keep[i] {
			out = append(out, c)
		}
	}
	return out, false
}

// markKept sets keep[i] for each cell of all that is in kept, which is a
// subsequence of all.
func markKept(keep []bool, all, kept []wire.Cell) {
	j := 0
	for i := range all {
		if j < len(kept) && sameCell(all[i], kept[j]) {
			keep[i] = true
			j++
		}
	}
}

func sameCell(a, b wire.Cell) bool {
	return a.Timestamp == b.Timestamp && bytes.Equal(a.Family, b.Family) && bytes.Equal(a.Qualifier, b.Qualifier)
}

// applyFilter runs all three stages on one row (a Get, or a check-and-
// mutate condition): the cells kept, none if the row is dropped.
func applyFilter(f filter, row []byte, cells []wire.Cell) []wire.Cell {
	if f == nil {
		return cells
	}
	if drop, _ := f.rowKey(row, false); drop {
		return nil
	}
	kept, drop := f.cells(row, false, cells)
	if drop {
		return nil
	}
	return kept
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
		return keyFilter{store.RowFilter{Op: store.CompareOp(cf.op), Value: cf.cmp.value()}}, nil
	case filterPkg + "PrefixFilter":
		m := &pb.PrefixFilter{}
		if err := unmarshalFilter(f, body, m); err != nil {
			return nil, err
		}
		return keyFilter{store.PrefixFilter{Prefix: m.GetPrefix()}}, nil
	case filterPkg + "FamilyFilter":
		m := &pb.FamilyFilter{}
		return compareCells(f, body, m, func() *pb.CompareFilter { return m.GetCompareFilter() }, familyOf)
	case filterPkg + "QualifierFilter":
		m := &pb.QualifierFilter{}
		return compareCells(f, body, m, func() *pb.CompareFilter { return m.GetCompareFilter() }, qualifierOf)
	case filterPkg + "ValueFilter":
		m := &pb.ValueFilter{}
		return compareCells(f, body, m, func() *pb.CompareFilter { return m.GetCompareFilter() }, valueOf)
	case filterPkg + "ColumnPrefixFilter":
		m := &pb.ColumnPrefixFilter{}
		if err := unmarshalFilter(f, body, m); err != nil {
			return nil, err
		}
		prefix := m.GetPrefix()
		return cellFilter{part: qualifierOf, test: func(q []byte) bool { return bytes.HasPrefix(q, prefix) }}, nil
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

func compareCells(f *pb.Filter, body []byte, m proto.Message, cf func() *pb.CompareFilter, part func(wire.Cell) []byte) (filter, error) {
	if err := unmarshalFilter(f, body, m); err != nil {
		return nil, err
	}
	c, err := parseCompareFilter(f.GetName(), cf())
	if err != nil {
		return nil, err
	}
	return cellFilter{part: part, test: c.keeps}, nil
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
	return singleColumnValueFilter{
		family: m.GetColumnFamily(), qualifier: m.GetColumnQualifier(), test: test,
		ifMissing: m.GetFilterIfMissing(), latestOnly: m.GetLatestVersionOnly(),
	}, nil
}

func parseFilterList(f *pb.Filter, body []byte) (filter, error) {
	m := &pb.FilterList{}
	if err := unmarshalFilter(f, body, m); err != nil {
		return nil, err
	}
	l := filterList{all: m.GetOperator() == pb.FilterList_MUST_PASS_ALL}
	for _, sub := range m.GetFilters() {
		g, err := parseFilter(sub)
		if err != nil {
			return nil, err
		}
		l.filters = append(l.filters, g)
	}
	return l, nil
}
