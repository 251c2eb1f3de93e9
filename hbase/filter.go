package hbase

import (
	"errors"
	"fmt"
	"math"

	"google.golang.org/protobuf/proto"

	"commentbench/hbase/pb"
)

// CompareOp is a comparison: RowFilter{Less, v} keeps rows < v; in a
// Condition, Less holds when v is less than the stored value (HBase's
// CheckAndMutate compares the expected value with the stored one).
type CompareOp int32

// Comparison operators, numbered as HBase's CompareType.
const (
	Less           CompareOp = CompareOp(pb.CompareType_LESS)
	LessOrEqual    CompareOp = CompareOp(pb.CompareType_LESS_OR_EQUAL)
	Equal          CompareOp = CompareOp(pb.CompareType_EQUAL)
	NotEqual       CompareOp = CompareOp(pb.CompareType_NOT_EQUAL)
	GreaterOrEqual CompareOp = CompareOp(pb.CompareType_GREATER_OR_EQUAL)
	Greater        CompareOp = CompareOp(pb.CompareType_GREATER)
	NoOp           CompareOp = CompareOp(pb.CompareType_NO_OP)
)

// Filter is a server-side filter of a Scan, a Get or a Condition.
type Filter interface{ encode() (*pb.Filter, error) }

// RowFilter keeps rows whose key compares to Value by Op (BinaryComparator).
type RowFilter struct {
	Op    CompareOp
	Value []byte
}

// PrefixFilter keeps rows whose key starts with Prefix, and ends a scan
// once past them.
type PrefixFilter struct{ Prefix []byte }

// FamilyFilter keeps the cells whose family compares to Value by Op.
type FamilyFilter struct {
	Op    CompareOp
	Value []byte
}

// QualifierFilter keeps the cells whose qualifier compares to Value by Op.
type QualifierFilter struct {
	Op    CompareOp
	Value []byte
}

// ValueFilter keeps the cells whose value compares to Value by Op.
type ValueFilter struct {
	Op    CompareOp
	Value []byte
}

// ColumnPrefixFilter keeps the cells whose qualifier starts with Prefix.
type ColumnPrefixFilter struct{ Prefix []byte }

// ColumnRangeFilter keeps the cells whose qualifier lies between Min and
// Max, each bound inclusive or not; a nil bound is open (HBase's
// ColumnRangeFilter).
type ColumnRangeFilter struct {
	Min          []byte
	MinInclusive bool
	Max          []byte
	MaxInclusive bool
}

// ColumnPaginationFilter keeps at most Limit columns of each row, the
// newest version of each, counted across the row's families: those after
// the first Offset columns or, when ColumnOffset is set, from the first
// qualifier >= ColumnOffset on (HBase's ColumnPaginationFilter).
type ColumnPaginationFilter struct {
	Limit, Offset int
	ColumnOffset  []byte
}

// SingleColumnValueFilter keeps whole rows whose Family:Qualifier value
// compares to Value by Op; a row without the column is kept unless
// FilterIfMissing. LatestVersionOnly tests the newest version alone.
type SingleColumnValueFilter struct {
	Family, Qualifier []byte
	Op                CompareOp
	Value             []byte
	FilterIfMissing   bool
	LatestVersionOnly bool
}

// FilterList combines filters: with All, a cell or row must pass every
// filter (MUST_PASS_ALL); without, any (MUST_PASS_ONE).
type FilterList struct {
	All     bool
	Filters []Filter
}

const (
	filterPkg        = "org.apache.hadoop.hbase.filter."
	binaryComparator = filterPkg + "BinaryComparator"
)

func comparatorOf(v []byte) (*pb.Comparator, error) {
	b, err := proto.Marshal(&pb.BinaryComparator{Comparable: &pb.ByteArrayComparable{Value: v}})
	if err != nil {
		return nil, err
	}
	return &pb.Comparator{Name: proto.String(binaryComparator), SerializedComparator: b}, nil
}

func compareFilter(op CompareOp, v []byte) (*pb.CompareFilter, error) {
	if op < Less || op > Greater {
		return nil, fmt.Errorf("hbase: filter operator %d", op)
	}
	cmp, err := comparatorOf(v)
	if err != nil {
		return nil, err
	}
	return &pb.CompareFilter{CompareOp: pb.CompareType(op).Enum(), Comparator: cmp}, nil
}

// named wraps a filter's own message in the Filter envelope.
func named(name string, msg proto.Message) (*pb.Filter, error) {
	b, err := proto.Marshal(msg)
	if err != nil {
		return nil, err
	}
	return &pb.Filter{Name: proto.String(filterPkg + name), SerializedFilter: b}, nil
}

func (f RowFilter) encode() (*pb.Filter, error) {
	cf, err := compareFilter(f.Op, f.Value)
	if err != nil {
		return nil, err
	}
	return named("RowFilter", &pb.RowFilter{CompareFilter: cf})
}

func (f PrefixFilter) encode() (*pb.Filter, error) {
	return named("PrefixFilter", &pb.PrefixFilter{Prefix: nonNil(f.Prefix)})
}

func (f FamilyFilter) encode() (*pb.Filter, error) {
	cf, err := compareFilter(f.Op, f.Value)
	if err != nil {
		return nil, err
	}
	return named("FamilyFilter", &pb.FamilyFilter{CompareFilter: cf})
}

func (f QualifierFilter) encode() (*pb.Filter, error) {
	cf, err := compareFilter(f.Op, f.Value)
	if err != nil {
		return nil, err
	}
	return named("QualifierFilter", &pb.QualifierFilter{CompareFilter: cf})
}

func (f ValueFilter) encode() (*pb.Filter, error) {
	cf, err := compareFilter(f.Op, f.Value)
	if err != nil {
		return nil, err
	}
	return named("ValueFilter", &pb.ValueFilter{CompareFilter: cf})
}

func (f ColumnPrefixFilter) encode() (*pb.Filter, error) {
	return named("ColumnPrefixFilter", &pb.ColumnPrefixFilter{Prefix: nonNil(f.Prefix)})
}

// encode always sends both inclusive flags: HBase reads an absent one as
// false.
func (f ColumnRangeFilter) encode() (*pb.Filter, error) {
	return named("ColumnRangeFilter", &pb.ColumnRangeFilter{
		MinColumn: f.Min, MinColumnInclusive: proto.Bool(f.MinInclusive),
		MaxColumn: f.Max, MaxColumnInclusive: proto.Bool(f.MaxInclusive),
	})
}

// encode sends the column offset instead of the offset when there is one,
// as HBase's toByteArray does.
func (f ColumnPaginationFilter) encode() (*pb.Filter, error) {
	if f.Limit < 0 || f.Offset < 0 || f.Limit > math.MaxInt32 || f.Offset > math.MaxInt32 {
		return nil, fmt.Errorf("hbase: ColumnPaginationFilter limit %d, offset %d: want 0..%d", f.Limit, f.Offset, math.MaxInt32)
	}
	m := &pb.ColumnPaginationFilter{Limit: proto.Int32(int32(f.Limit))}
	if f.ColumnOffset != nil {
		m.ColumnOffset = f.ColumnOffset
	} else {
		m.Offset = proto.Int32(int32(f.Offset))
	}
	return named("ColumnPaginationFilter", m)
}

func (f SingleColumnValueFilter) encode() (*pb.Filter, error) {
	cf, err := compareFilter(f.Op, f.Value)
	if err != nil {
		return nil, err
	}
	return named("SingleColumnValueFilter", &pb.SingleColumnValueFilter{
		ColumnFamily: nonNil(f.Family), ColumnQualifier: nonNil(f.Qualifier),
		CompareOp: cf.CompareOp, Comparator: cf.Comparator,
		FilterIfMissing: proto.Bool(f.FilterIfMissing), LatestVersionOnly: proto.Bool(f.LatestVersionOnly),
	})
}

func (f FilterList) encode() (*pb.Filter, error) {
	op := pb.FilterList_MUST_PASS_ONE
	if f.All {
		op = pb.FilterList_MUST_PASS_ALL
	}
	l := &pb.FilterList{Operator: op.Enum()}
	for _, sub := range f.Filters {
		if sub == nil {
			return nil, errors.New("hbase: nil filter in a FilterList")
		}
		e, err := sub.encode()
		if err != nil {
			return nil, err
		}
		l.Filters = append(l.Filters, e)
	}
	return named("FilterList", l)
}

// encodeFilter is f's wire form; nil for none.
func encodeFilter(f Filter) (*pb.Filter, error) {
	if f == nil {
		return nil, nil
	}
	return f.encode()
}

var (
	_ Filter = RowFilter{}
	_ Filter = PrefixFilter{}
	_ Filter = FamilyFilter{}
	_ Filter = QualifierFilter{}
	_ Filter = ValueFilter{}
	_ Filter = ColumnPrefixFilter{}
	_ Filter = ColumnRangeFilter{}
	_ Filter = ColumnPaginationFilter{}
	_ Filter = SingleColumnValueFilter{}
	_ Filter = FilterList{}
)
