// Package comments is the seed's shopping-mall comment system, operation for
// operation, over any store.Store and either key layout: entity creation, the
// non-atomic comment write path, paginated listings and timelines, the
// ranking and its batch job.
//
// It owns the order of the puts and the shape of the scans, because those are
// what the harness measures. It must not know which backend it runs on, how a
// workload chooses what to do, or how results are recorded.
package comments

import (
	"context"
	"errors"
	"fmt"
	"time"

	"commentbench/keys"
	"commentbench/model"
	"commentbench/store"
)

// Errors a caller tells apart with errors.Is.
var (
	ErrOrderNotFound   = errors.New("order not found")
	ErrOrderUser       = errors.New("order belongs to another user")
	ErrCommentNotFound = errors.New("comment not found")
	ErrBadCursor       = errors.New("cursor does not belong to the listing")
)

// ScanMode is how listings are scanned.
type ScanMode int

const (
	// Bounded scans set start and stop rows: a page reads at most limit+1
	// index rows and never leaves its product or user.
	Bounded ScanMode = iota
	// SeedScan scans as the seed does: no start or stop row, a PrefixFilter
	// for the first page and a "row >= cursor" RowFilter for the next, so a
	// page reads from the table's first row and can run into other
	// products' comments.
	SeedScan
)

var scanModeNames = map[string]ScanMode{"bounded": Bounded, "seed": SeedScan}

// ParseScanMode reads a --scan flag value.
func ParseScanMode(s string) (ScanMode, error) {
	m, ok := scanModeNames[s]
	if !ok {
		return 0, fmt.Errorf("scan mode %q: want bounded or seed", s)
	}
	return m, nil
}

func (m ScanMode) String() string {
	if m == SeedScan {
		return "seed"
	}
	return "bounded"
}

// Options configure a System. The zero value of each field has a default.
type Options struct {
	Layout keys.Layout  // default keys.Seed
	Codec  model.Codec  // default model.JSON
	Scan   ScanMode     // default Bounded
	Clock  func() int64 // stamps comments, ms; default wall clock
	// KeepStaleRanks reproduces the seed's rank upsert, which never deletes
	// ranks beyond the new count.
	KeepStaleRanks bool
}

// System runs the comment system's operations against a store.
type System struct {
	st     store.Store
	layout keys.Layout
	codec  model.Codec
	mode   ScanMode
	clock  func() int64
	stale  bool
}

// New returns a System over st.
func New(st store.Store, o Options) *System {
	s := &System{st: st, layout: o.Layout, codec: o.Codec, mode: o.Scan, clock: o.Clock, stale: o.KeepStaleRanks}
	if s.layout == nil {
		s.layout = keys.Seed
	}
	if s.codec == nil {
		s.codec = model.JSON
	}
	if s.clock == nil {
		s.clock = func() int64 { return time.Now().UnixMilli() }
	}
	return s
}

// Layout is the key layout in use.
func (s *System) Layout() keys.Layout { return s.layout }

// Store is the backend the system runs on.
func (s *System) Store() store.Store { return s.st }

// CreateTables creates the eight tables, each pre-split at splits (every
// table's keys start with a uniformly random id, so one set fits all), and
// records the layout. Tables that already exist are left as they are; data
// written with another layout is refused with ErrLayoutMismatch.
func (s *System) CreateTables(ctx context.Context, splits [][]byte) error {
	if err := s.recordLayout(ctx); err != nil {
		return err
	}
	for _, t := range keys.Tables {
		err := s.st.CreateTable(ctx, store.TableSpec{Name: t, Family: keys.Family, SplitKeys: splits})
		if err != nil && !errors.Is(err, store.ErrTableExists) {
			return fmt.Errorf("create table %s: %w", t, err)
		}
	}
	return nil
}

// MetaTable holds the harness's notes about a data set, apart from the
// eight tables of the system: which layout wrote it, so a checker reads the
// index keys the way they were written.
const MetaTable = "commentbench-meta"

var layoutRow = []byte("layout")

// ErrLayoutMismatch is a data set written with another key layout: mixing
// layouts in one data set would corrupt its indexes.
var ErrLayoutMismatch = errors.New("layout does not match the data")

// recordLayout notes the layout, or checks it against the one noted.
func (s *System) recordLayout(ctx context.Context) error {
	if err := s.st.CreateTable(ctx, store.TableSpec{Name: MetaTable, Family: keys.Family}); err != nil &&
		!errors.Is(err, store.ErrTableExists) {
		return fmt.Errorf("create table %s: %w", MetaTable, err)
	}
	name := []byte(s.layout.Name())
	put, err := s.st.CheckAndPut(ctx, MetaTable, layoutRow, keys.Qualifier, nil, cell(name))
	if err != nil || put {
		return err
	}
	got, _, err := RecordedLayout(ctx, s.st)
	if err == nil && got != s.layout.Name() {
		err = fmt.Errorf("data was written with layout %q, not %q: %w", got, s.layout.Name(), ErrLayoutMismatch)
	}
	return err
}

// RecordedLayout reads the layout a data set was written with; found is
// false for data that never recorded one.
func RecordedLayout(ctx context.Context, st store.Store) (name string, found bool, err error) {
	row, err := st.Get(ctx, MetaTable, layoutRow)
	if errors.Is(err, store.ErrTableNotFound) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("read %s: %w", MetaTable, err)
	}
	v, ok := row.Value(keys.Qualifier)
	return string(v), ok, nil
}
