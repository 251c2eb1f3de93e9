package embedded

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"commentbench/store"
)

// Column families.
//
// A table has one or more families, fixed at creation and kept sorted by
// name: the family byte of every data key is the family's index (keys.go),
// so a row's cells come out in family order, as HBase returns them. One of
// them is the table's default family, the one the store.Store row methods
// read and write: the harness, which knows one family per table, works
// unchanged on a table with several.

// ErrNoSuchFamily is wrapped by operations naming a family the table lacks.
var ErrNoSuchFamily = errors.New("no such column family")

// maxFamilies is how many families a key's family byte can tell apart.
const maxFamilies = 256

// FamilySchema is one column family of a table.
type FamilySchema struct {
	Name string
	// MaxVersions caps the versions a read returns per column, as HBase's
	// VERSIONS does; 0 means no cap.
	MaxVersions int
}

// Schema describes a table's families.
type Schema struct {
	Families []FamilySchema // sorted by name
	Default  string         // the family of the store.Store row methods
	// CellTTL reports whether the table's cells can carry a TTL (Put.TTL).
	CellTTL bool
}

// Names lists the families' names in order.
func (s Schema) Names() []string {
	out := make([]string, len(s.Families))
	for i, f := range s.Families {
		out[i] = f.Name
	}
	return out
}

// TableOptions are what CreateTableWith sets beyond a store.TableSpec.
type TableOptions struct {
	// MaxVersions caps the versions reads return, per family name (see
	// FamilySchema.MaxVersions); a family not named has no cap.
	MaxVersions map[string]int
	// CellTTL lets puts give cells a TTL. Its values carry a header that
	// says when the cell expires, so it is fixed at creation: a table
	// without it stores values as they are.
	CellTTL bool
}

type family struct {
	name        string
	maxVersions int
}

// famSet is a set of family indexes.
type famSet [maxFamilies / 64]uint64

func (s *famSet) add(i byte)      { s[i/64] |= 1 << (i % 64) }
func (s *famSet) has(i byte) bool { return s[i/64]&(1<<(i%64)) != 0 }

// newTable builds a table from its record; the routing is set by the caller.
func newTable(rec tableRecord, name string) *table {
	t := &table{id: rec.id, name: name, families: rec.families, def: rec.def, cellTTL: rec.cellTTL}
	t.family = t.families[t.def].name
	if len(t.families) > 1 {
		t.defOnly = &famSet{}
		t.defOnly.add(t.def)
	}
	return t
}

func (t *table) record() tableRecord {
	return tableRecord{id: t.id, families: t.families, def: t.def, cellTTL: t.cellTTL}
}

// famIndex finds a family by name; "" is the default family.
func (t *table) famIndex(name string) (byte, error) {
	if name == "" {
		return t.def, nil
	}
	i, ok := slices.BinarySearchFunc(t.families, name, func(f family, n string) int { return strings.Compare(f.name, n) })
	if !ok {
		return 0, fmt.Errorf("embedded: table %q: %w: %q", t.name, ErrNoSuchFamily, name)
	}
	return byte(i), nil
}

func (t *table) schema() Schema {
	s := Schema{Default: t.family, CellTTL: t.cellTTL}
	for _, f := range t.families {
		s.Families = append(s.Families, FamilySchema{Name: f.name, MaxVersions: f.maxVersions})
	}
	return s
}

// specFamilies checks a spec's families: Families (when set) lists them,
// Family is the default (first listed when empty) and must be among them.
// It returns them sorted, with the default's index.
func specFamilies(spec store.TableSpec, opts TableOptions) ([]family, byte, error) {
	names := slices.Clone(spec.Families)
	def := spec.Family
	switch {
	case len(names) == 0 && def == "":
		return nil, 0, fmt.Errorf("embedded: create table %q: %w: empty family", spec.Name, store.ErrInvalid)
	case len(names) == 0:
		names = []string{def}
	case def == "":
		def = names[0]
	case !slices.Contains(names, def):
		return nil, 0, fmt.Errorf("embedded: create table %q: %w: family %q is not among %q", spec.Name, store.ErrInvalid, def, names)
	}
	if len(names) > maxFamilies {
		return nil, 0, fmt.Errorf("embedded: create table %q: %w: %d families, at most %d", spec.Name, store.ErrInvalid, len(names), maxFamilies)
	}
	slices.Sort(names)
	fams := make([]family, len(names))
	for i, n := range names {
		switch {
		case n == "" || len(n) > math.MaxUint8 || strings.ContainsAny(n, ":\x00"):
			// The wire carries a family's length in one byte; ':' splits
			// family from qualifier in HBase's column names.
			return nil, 0, fmt.Errorf("embedded: create table %q: %w: bad family name %q", spec.Name, store.ErrInvalid, n)
		case i > 0 && names[i-1] == n:
			return nil, 0, fmt.Errorf("embedded: create table %q: %w: family %q twice", spec.Name, store.ErrInvalid, n)
		}
		v := opts.MaxVersions[n]
		if v < 0 {
			return nil, 0, fmt.Errorf("embedded: create table %q: %w: family %q: VERSIONS %d", spec.Name, store.ErrInvalid, n, v)
		}
		fams[i] = family{name: n, maxVersions: v}
	}
	for n := range opts.MaxVersions {
		if !slices.Contains(names, n) {
			return nil, 0, fmt.Errorf("embedded: create table %q: %w: VERSIONS for unknown family %q", spec.Name, store.ErrInvalid, n)
		}
	}
	def0, _ := slices.BinarySearch(names, def)
	return fams, byte(def0), nil
}

// Values of a CellTTL table start with a header: valuePlain, or
// valueExpiring and the 8-byte big-endian last ms at which the cell lives
// (its timestamp plus TTL). The header lives in the value, not the key, so
// a later put at the same coordinate replaces the cell and its TTL at once.
const (
	valuePlain    byte = 0
	valueExpiring byte = 1
	expiringLen        = 1 + 8
)

var errCorruptValue = errors.New("embedded: corrupt cell value")

// sealValue appends a CellTTL table's stored form of value to dst.
func sealValue(dst, value []byte, ts, ttl int64) []byte {
	if ttl <= 0 {
		return append(append(dst, valuePlain), value...)
	}
	last := ts + ttl
	if last < ts { // overflow: lives for ever
		last = math.MaxInt64
	}
	dst = append(dst, valueExpiring)
	dst = binary.BigEndian.AppendUint64(dst, uint64(last))
	return append(dst, value...)
}

// openValue returns the value a CellTTL table stored in v, and whether
// the cell is still alive at now: HBase expires a cell once its timestamp
// plus TTL is below now.
func openValue(v []byte, now int64) ([]byte, bool, error) {
	switch {
	case len(v) >= 1 && v[0] == valuePlain:
		return v[1:], true, nil
	case len(v) >= expiringLen && v[0] == valueExpiring:
		last := int64(binary.BigEndian.Uint64(v[1:expiringLen]))
		return v[expiringLen:], last >= now, nil
	}
	return nil, false, fmt.Errorf("%w: header %q", errCorruptValue, v[:min(len(v), expiringLen)])
}

// Cell is one version of one column, with its family.
type Cell struct {
	Family           string
	Qualifier, Value []byte
	Timestamp        int64
}

// Row is a row key with its cells, in HBase's order: by family, then
// qualifier, then timestamp newest first.
type Row struct {
	Key   []byte
	Cells []Cell
}

// Found reports whether the row has visible cells.
func (r Row) Found() bool { return len(r.Cells) > 0 }

// Cell returns the newest cell of (family, qualifier) in the row.
func (r Row) Cell(family string, qualifier []byte) (Cell, bool) {
	for _, c := range r.Cells {
		if c.Family == family && bytes.Equal(c.Qualifier, qualifier) {
			return c, true
		}
	}
	return Cell{}, false
}

// Read selects what an HBase Get or Scan reads of each row.
type Read struct {
	// Families to read; empty reads every family.
	Families []string
	// MaxVersions is the newest versions per column to return (0: 1),
	// capped by each family's MaxVersions.
	MaxVersions int
	// MinTs and MaxTs bound the versions' timestamps: [MinTs, MaxTs);
	// MaxTs 0 means no upper bound.
	MinTs, MaxTs int64
}

// readOpts turns a Read into the read path's options for t, at now.
func (t *table) readOpts(rd Read, now int64) (readOpts, error) {
	ro := readOpts{maxVersions: max(rd.MaxVersions, 1), minTs: rd.MinTs, maxTs: rd.MaxTs, ttl: t.cellTTL, now: now}
	if ro.maxTs == 0 {
		ro.maxTs = math.MaxInt64
	}
	if rd.MaxVersions < 0 || ro.minTs < 0 || ro.maxTs < ro.minTs {
		return readOpts{}, fmt.Errorf("embedded: %w: versions %d, time range [%d, %d)", store.ErrInvalid, rd.MaxVersions, rd.MinTs, rd.MaxTs)
	}
	for _, f := range t.families {
		if f.maxVersions > 0 {
			ro.caps = make([]int, len(t.families))
			for i, g := range t.families {
				ro.caps[i] = g.maxVersions
			}
			break
		}
	}
	if len(rd.Families) > 0 {
		ro.fams = &famSet{}
		for _, name := range rd.Families {
			i, err := t.famIndex(name)
			if err != nil {
				return readOpts{}, err
			}
			ro.fams.add(i)
		}
	}
	return ro, nil
}

// latestOpts are the store.Store reads' options: the default family's
// newest versions, no more of a row than the max row size.
func (e *Engine) latestOpts(t *table) readOpts {
	ro := readOpts{maxVersions: 1, maxTs: math.MaxInt64, fams: t.defOnly, ttl: t.cellTTL,
		maxRowSize: e.opts.MaxRowSize, famLen: len(t.family)}
	if ro.ttl {
		ro.now = e.now()
	}
	return ro
}

// Schema returns a table's families.
func (e *Engine) Schema(tableName string) (Schema, error) {
	t, err := e.table(tableName)
	if err != nil {
		return Schema{}, err
	}
	return t.schema(), nil
}
