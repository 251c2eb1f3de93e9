// Package store is the seam between the comment system and a storage
// backend shaped like HBase: tables of rows with one column family, sorted by
// row key, cut into regions that live on region servers.
//
// It owns the vocabulary every backend speaks (rows, cells, mutations, scans,
// filters, regions and their counters) and nothing else: it must not know the
// comment schema, the key layouts, or how a backend keeps its bytes.
package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
)

// Store is what the comment system, the load generator and the checker see.
// Implementations must be safe for concurrent use.
//
// Every row operation is atomic per row and only per row: a Mutate call with
// several rows may apply some and fail on others, as HBase's batch does.
type Store interface {
	CreateTable(ctx context.Context, spec TableSpec) error
	DropTable(ctx context.Context, table string) error
	ListTables(ctx context.Context) ([]TableSpec, error)

	// Mutate applies each mutation atomically for its row, in order. The
	// caller hands over the mutations' bytes: it does not change them after
	// the call, so a store may keep them without a copy.
	Mutate(ctx context.Context, table string, muts ...Mutation) error
	// CheckAndMutate applies m to its row only if the cell at qualifier
	// of that row holds expected, or is absent (or empty) when expected is
	// nil or empty: HBase's checkAndMutate with RowMutations, the check
	// and the change one atomic step. m puts cells and deletes columns; it
	// neither deletes its row nor increments. It reports whether it
	// applied m.
	CheckAndMutate(ctx context.Context, table string, qualifier, expected []byte, m Mutation) (bool, error)

	// Get returns the row's newest cells; a row that does not exist comes
	// back with no cells (Row.Found reports false), not as an error.
	Get(ctx context.Context, table string, row []byte) (Row, error)
	// BatchGet returns one Row per requested key, in request order.
	BatchGet(ctx context.Context, table string, rows [][]byte) ([]Row, error)
	// Read returns, for each read, the cells it selects of its row, in
	// request order (a row with none selected comes back with no cells).
	// The reads are independent, as a batch of HBase Gets is. The metrics
	// say what they cost: a row and its cells read per read.
	Read(ctx context.Context, table string, reads []Read) ([]Row, ScanMetrics, error)
	// Scan streams rows to each until each returns false, the scan's range
	// or limit ends, or ctx is done. The metrics say what the scan cost the
	// backend, which can be far more than what each was handed.
	Scan(ctx context.Context, table string, sc Scan, each func(Row) bool) (ScanMetrics, error)

	// Regions lists a table's regions in key order.
	Regions(ctx context.Context, table string) ([]Region, error)
	// RegionStats snapshots every region's counters. Counters only grow for
	// the life of a region; a region that splits or moves may start again
	// from zero under a new identity, so callers take deltas by Region.Name.
	RegionStats(ctx context.Context) ([]RegionStat, error)

	Close() error
}

// TableSpec describes a table at creation.
type TableSpec struct {
	Name string
	// Family is the column family the row methods of Store read and write.
	Family string
	// Families, when set, are all the table's column families (an HBase
	// table may have several; Family, when set, is one of them, else the
	// first is). Empty means Family alone. ListTables sets it only for a
	// table with several.
	Families []string
	// SplitKeys pre-split the table: n keys make n+1 regions.
	SplitKeys [][]byte
}

// Cell is one column's newest value in a row's family.
type Cell struct {
	Qualifier []byte
	Value     []byte
	// Timestamp is the cell's version in milliseconds. On a put, zero means
	// the backend's clock, as HBase's LATEST_TIMESTAMP does.
	Timestamp int64
}

// BulkRow is one row of a bulk load: its cells in ascending qualifier
// order, one version each (a zero timestamp is the load's instant), and
// how many row mutations a put-by-put load would have made of them, which
// is what the row's region counts as write requests.
type BulkRow struct {
	Key    []byte
	Cells  []Cell
	Writes int64
}

// Row is a row key with its cells, ordered by qualifier.
type Row struct {
	Key   []byte
	Cells []Cell
}

// Found reports whether the row exists: in HBase a row is its cells.
func (r Row) Found() bool { return len(r.Cells) > 0 }

// Value returns the value of qualifier q, and whether it is present.
func (r Row) Value(q []byte) ([]byte, bool) {
	for _, c := range r.Cells {
		if bytes.Equal(c.Qualifier, q) {
			return c.Value, true
		}
	}
	return nil, false
}

// Mutation changes one row: either puts cells (and deletes columns) or
// deletes the whole row. Everything it does to its row is one atomic
// change, as HBase's RowMutations of a Put and a Delete is.
type Mutation struct {
	Row       []byte
	Cells     []Cell
	DeleteRow bool
	// DeleteColumns removes every version of these qualifiers (HBase's
	// Delete.addColumns), in the same atomic change as Cells. A qualifier
	// may not be both put and deleted by one mutation.
	DeleteColumns [][]byte
	// DeleteAt, if > 0, is the timestamp DeleteColumns delete up to: the
	// versions stamped after it stay, and so does a put stamped after it
	// later (HBase's Delete timestamp). Zero is now.
	DeleteAt int64
	// Increments add to counters of the row (HBase's Increment: an 8-byte
	// big-endian long, absent counting 0), in the same atomic change as
	// Cells and DeleteColumns, as HBase 2.4's RowMutations with an
	// Increment is. A qualifier may not be both put and incremented.
	Increments []Increment
}

// Increment adds Delta to the counter in column Qualifier.
type Increment struct {
	Qualifier []byte
	Delta     int64
}

// CheckAndPut puts cells on row of table only if the cell at qualifier
// holds expected (absent or empty for nil): CheckAndMutate of a put.
func CheckAndPut(ctx context.Context, st Store, table string, row, qualifier, expected []byte, cells ...Cell) (bool, error) {
	return st.CheckAndMutate(ctx, table, qualifier, expected, Put(row, cells...))
}

// Put is a mutation that writes cells.
func Put(row []byte, cells ...Cell) Mutation { return Mutation{Row: row, Cells: cells} }

// Delete is a mutation that removes a row.
func Delete(row []byte) Mutation { return Mutation{Row: row, DeleteRow: true} }

// Scan selects rows. Forward: Start inclusive, Stop exclusive. Reversed, as
// in HBase: Start is the highest row (inclusive) and Stop the lower bound
// (exclusive). A nil bound is the table's edge.
type Scan struct {
	Start, Stop []byte
	Reversed    bool
	// Limit caps the rows returned (after the filter); 0 means no limit.
	Limit int
	// Filter runs where the data is, as an HBase filter runs in the region
	// server: rows it drops still count as scanned.
	Filter Filter
	// Batch, if > 0, caps the cells handed over in one Row: a row with more
	// comes as several Rows with the same Key, one after another, its cells
	// in qualifier order (HBase's Scan.setBatch). Without it a row is handed
	// over whole. Either way a scan meets the store's max row size only if
	// one call's cells pass it: HBase's server weighs the cells of a call,
	// which ends at DefaultMaxResultSize (mid-row, the client stitching the
	// rest), so only a limit below that fails a scan, with ErrRowTooBig.
	Batch int
}

// Read selects cells of one row: every column (a whole-row read, which
// fails with ErrRowTooBig past the store's max row size, as HBase's
// RowTooBigException), the columns named, or a slice of the row's
// columns. At most one of Columns and Slice is set.
type Read struct {
	Row []byte
	// Columns are the only qualifiers read (HBase's Get.addColumn).
	Columns [][]byte
	// Slice reads a range of the row's columns in qualifier order.
	Slice *Slice
}

// Slice is a range of one row's columns in qualifier order: the columns in
// [Start, Stop) (HBase's ColumnRangeFilter; nil Start is the row's first
// column, nil Stop its last), past the first Offset of them, Limit at most
// (HBase's ColumnPaginationFilter; 0 is no limit). HBase has no reverse
// column order: a slice always reads ascending.
type Slice struct {
	Start, Stop   []byte
	Offset, Limit int
}

// ScanMetrics is what a scan or read cost, as HBase's scan metrics report
// it.
type ScanMetrics struct {
	RowsScanned  int64 // rows the backend read, filtered or not
	RowsFiltered int64 // rows the filter dropped
	Regions      int   // regions the scan visited
	// CellsScanned are the cells of the rows the backend read: a wide row's
	// cost, which rows alone do not show. A backend that cannot count what
	// it read counts the cells it returned.
	CellsScanned int64
}

// Add accumulates another scan's metrics.
func (m *ScanMetrics) Add(o ScanMetrics) {
	m.RowsScanned += o.RowsScanned
	m.RowsFiltered += o.RowsFiltered
	m.Regions += o.Regions
	m.CellsScanned += o.CellsScanned
}

// Filter decides per row key. The set is closed (the types below) so that
// every backend, including one that ships filters over the wire, can run it.
type Filter interface {
	// Decide reports whether row passes and whether no later row in the
	// scan's direction can pass (so the scan may stop).
	Decide(row []byte, reversed bool) (keep, done bool)
}

// CompareOp is an HBase CompareOperator.
type CompareOp int

// The HBase comparison operators, in HBase's enum order.
const (
	Less CompareOp = iota
	LessOrEqual
	Equal
	NotEqual
	GreaterOrEqual
	Greater
)

var compareOpNames = [...]string{"LESS", "LESS_OR_EQUAL", "EQUAL", "NOT_EQUAL", "GREATER_OR_EQUAL", "GREATER"}

func (o CompareOp) String() string {
	if o < 0 || int(o) >= len(compareOpNames) {
		return fmt.Sprintf("CompareOp(%d)", int(o))
	}
	return compareOpNames[o]
}

// RowFilter is HBase's RowFilter with a BinaryComparator: it keeps rows whose
// key compares to Value by Op. It never ends a scan early, which is why the
// seed's "row >= cursor" pagination reads past the product it pages.
type RowFilter struct {
	Op    CompareOp
	Value []byte
}

// Decide implements Filter.
func (f RowFilter) Decide(row []byte, _ bool) (bool, bool) {
	c := bytes.Compare(row, f.Value)
	switch f.Op {
	case Less:
		return c < 0, false
	case LessOrEqual:
		return c <= 0, false
	case Equal:
		return c == 0, false
	case NotEqual:
		return c != 0, false
	case GreaterOrEqual:
		return c >= 0, false
	case Greater:
		return c > 0, false
	}
	return false, false
}

// PrefixFilter is HBase's PrefixFilter: it keeps rows that start with
// Prefix and ends the scan once it has passed them. Without a start row it
// still reads every row before the prefix.
type PrefixFilter struct {
	Prefix []byte
}

// Decide implements Filter.
func (f PrefixFilter) Decide(row []byte, reversed bool) (bool, bool) {
	if bytes.HasPrefix(row, f.Prefix) {
		return true, false
	}
	if len(row) < len(f.Prefix) {
		return false, false // HBase drops a short row without deciding
	}
	c := bytes.Compare(row[:len(f.Prefix)], f.Prefix)
	if reversed {
		return false, c < 0
	}
	return false, c > 0
}

// Region is one key range of a table and the server that hosts it.
type Region struct {
	Table string
	// ID is the region id: its creation time in ms, as HBase's; a split's
	// daughters get an id greater than their parent's.
	ID uint64
	// Name is HBase's region name, "table,startKey,id.md5hex." as
	// hbase/wire.RegionName builds it.
	Name       string
	Start, End []byte // End nil for the table's last region
	Server     string
}

// Contains reports whether row falls in the region.
func (r Region) Contains(row []byte) bool {
	return bytes.Compare(row, r.Start) >= 0 && (r.End == nil || bytes.Compare(row, r.End) < 0)
}

// Counters are a region's request counters. They only grow.
type Counters struct {
	ReadRequests  uint64 // gets, and one per scan call that visits the region
	WriteRequests uint64 // mutated rows
	RowsScanned   uint64 // rows read by scans and gets, filtered or not
	BytesIn       uint64 // key and value bytes written
	BytesOut      uint64 // key and value bytes returned
}

// Sub returns c - o, the activity between two snapshots.
func (c Counters) Sub(o Counters) Counters {
	return Counters{
		ReadRequests:  c.ReadRequests - o.ReadRequests,
		WriteRequests: c.WriteRequests - o.WriteRequests,
		RowsScanned:   c.RowsScanned - o.RowsScanned,
		BytesIn:       c.BytesIn - o.BytesIn,
		BytesOut:      c.BytesOut - o.BytesOut,
	}
}

// RegionStat is a region with its counters at snapshot time.
type RegionStat struct {
	Region
	Counters
}

// Errors a backend wraps so callers can tell them apart with errors.Is.
var (
	ErrTableNotFound = errors.New("table not found")
	ErrTableExists   = errors.New("table already exists")
	ErrInvalid       = errors.New("invalid argument")
	ErrClosed        = errors.New("store closed")
	// ErrStorage is a failure of the storage under the backend (a full
	// disk, an I/O error): every later operation fails with it too.
	ErrStorage = errors.New("storage failed")
	// ErrRowTooBig is a read that would return more of one row than the
	// store's max row size (HBase's hbase.table.max.rowsize, 1 GiB by
	// default): a whole-row read of a wide row, failed as HBase's
	// RowTooBigException fails it. A read of a slice of the row does not
	// meet it.
	ErrRowTooBig = errors.New("row too big")
	// ErrReplyLost is a write that was applied and whose reply was lost:
	// what only a failure injector knows (a real client sees a timeout).
	// A caller may count the write as made.
	ErrReplyLost = errors.New("the write was applied, its reply lost")
)

// DefaultMaxRowSize is HBase's hbase.table.max.rowsize.
const DefaultMaxRowSize = 1 << 30

// DefaultMaxResultSize is the most a scan call returns, HBase's
// hbase.client.scanner.max.result.size (2 MiB).
const DefaultMaxResultSize = 2 << 20

// CellSize is what one cell weighs against the max row size, as HBase's
// StoreScanner counts it (the cell serialized as a KeyValue, with its
// length): 4 key length + 4 value length + 2 row length + row + 1 family
// length + family + qualifier + 8 timestamp + 1 type + value + 4.
func CellSize(row, family, qualifier, value int) int64 {
	return int64(24 + row + family + qualifier + value)
}

// PrefixEnd is the smallest key greater than every key that starts with
// prefix: the stop row that bounds a prefix scan. It is nil (the table's
// end) when the prefix is all 0xff bytes.
func PrefixEnd(prefix []byte) []byte {
	end := bytes.Clone(prefix)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}

// Select keeps the cells of row, whole and in qualifier order, that rd
// selects: a backend that reads rows whole answers a Read with it.
func Select(row Row, rd Read) Row {
	out := Row{Key: row.Key}
	switch {
	case rd.Columns != nil:
		for _, c := range row.Cells {
			for _, q := range rd.Columns {
				if bytes.Equal(c.Qualifier, q) {
					out.Cells = append(out.Cells, c)
					break
				}
			}
		}
	case rd.Slice != nil:
		sl, skipped := rd.Slice, 0
		for _, c := range row.Cells {
			if bytes.Compare(c.Qualifier, sl.Start) < 0 || (sl.Stop != nil && bytes.Compare(c.Qualifier, sl.Stop) >= 0) {
				continue
			}
			if skipped < sl.Offset {
				skipped++
				continue
			}
			if sl.Limit > 0 && len(out.Cells) == sl.Limit {
				break
			}
			out.Cells = append(out.Cells, c)
		}
	default:
		out.Cells = row.Cells
	}
	return out
}
