package embedded

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// Persistent metadata: the engine records, one record per table and one per
// region (the engine's hbase:meta). They live in the same Pebble keyspace as
// the data, under their own leading byte (see keys.go), and every change to
// them is one synced batch, so a split or a move is all-or-nothing on disk.

// formatMarker identifies an engine data dir and its layout version. A
// directory whose Pebble DB lacks it is not ours and is refused.
const formatMarker = "commentbench-embedded/1"

var (
	keyFormat       = []byte{spaceEngine, 'f', 'o', 'r', 'm', 'a', 't'}
	keyNextTableID  = []byte{spaceEngine, 'n', 'e', 'x', 't', '-', 't', 'a', 'b', 'l', 'e'}
	keyLastRegionID = []byte{spaceEngine, 'l', 'a', 's', 't', '-', 'r', 'e', 'g', 'i', 'o', 'n'}
	keyRoundRobin   = []byte{spaceEngine, 'r', 'o', 'u', 'n', 'd', '-', 'r', 'o', 'b', 'i', 'n'}
)

var errCorruptMeta = errors.New("embedded: corrupt metadata")

func tableRecordKey(name string) []byte {
	return append([]byte{spaceTable}, name...)
}

func regionRecordKey(tableID uint64, start []byte) []byte {
	k := appendUint64([]byte{spaceRegion}, tableID)
	return append(k, start...)
}

// regionRecordBounds bound the region records of one table.
func regionRecordBounds(tableID uint64) (lower, upper []byte) {
	return appendUint64([]byte{spaceRegion}, tableID), appendUint64([]byte{spaceRegion}, tableID+1)
}

// tableRecord is a table record's value: the id and the first family, as
// every record has carried them, then, only for a table that needs them, an
// extension (its tag first) with the other families, each family's VERSIONS
// cap, the default family and flags. A one-family table without options
// encodes exactly as before families had options, so old data dirs decode
// unchanged and new one-family tables write the old bytes.
type tableRecord struct {
	id       uint64
	families []family // index order (sorted by name); at least one
	def      byte     // index of the default family
	cellTTL  bool
}

const (
	tableRecordExt1 byte = 1 // the extension's tag
	flagCellTTL     byte = 1 << 0
)

func (r tableRecord) extended() bool {
	return len(r.families) > 1 || r.def != 0 || r.cellTTL || r.families[0].maxVersions != 0
}

func (r tableRecord) encode() []byte {
	b := binary.AppendUvarint(nil, r.id)
	b = appendField(b, []byte(r.families[0].name))
	if !r.extended() {
		return b
	}
	b = append(b, tableRecordExt1)
	b = binary.AppendUvarint(b, uint64(len(r.families)-1))
	for _, f := range r.families[1:] {
		b = appendField(b, []byte(f.name))
	}
	for _, f := range r.families {
		b = binary.AppendUvarint(b, uint64(f.maxVersions))
	}
	flags := byte(0)
	if r.cellTTL {
		flags |= flagCellTTL
	}
	return append(b, r.def, flags)
}

func decodeTableRecord(b []byte) (tableRecord, error) {
	var r tableRecord
	d := decoder{b: b}
	r.id = d.uvarint()
	r.families = []family{{name: string(d.field())}}
	if d.err == nil && len(d.b) > 0 {
		if tag := d.byte(); tag != tableRecordExt1 {
			return r, fmt.Errorf("%w: table record extension %d", errCorruptMeta, tag)
		}
		n := d.uvarint()
		for i := uint64(0); i < n && d.err == nil; i++ {
			r.families = append(r.families, family{name: string(d.field())})
		}
		for i := range r.families {
			r.families[i].maxVersions = int(d.uvarint())
		}
		r.def = d.byte()
		r.cellTTL = d.byte()&flagCellTTL != 0
		if d.err == nil && (int(r.def) >= len(r.families) || len(d.b) != 0) {
			return r, fmt.Errorf("%w: table record", errCorruptMeta)
		}
	}
	return r, d.err
}

// regionRecord is a region record's value (the start key is in the key).
type regionRecord struct {
	end    []byte // nil for the table's last region
	id     uint64
	server string
	// size is the region's approximate data size when the record was last
	// written (split, move, Close); it seeds the split policy on reopen.
	size int64
}

func (r regionRecord) encode() []byte {
	var b []byte
	if r.end == nil {
		b = append(b, 0)
	} else {
		b = append(b, 1)
		b = appendField(b, r.end)
	}
	b = binary.AppendUvarint(b, r.id)
	b = appendField(b, []byte(r.server))
	return binary.AppendUvarint(b, uint64(max(r.size, 0)))
}

func decodeRegionRecord(b []byte) (regionRecord, error) {
	var r regionRecord
	d := decoder{b: b}
	if d.byte() == 1 {
		r.end = bytes.Clone(d.field())
		if r.end == nil {
			r.end = []byte{}
		}
	}
	r.id = d.uvarint()
	r.server = string(d.field())
	r.size = int64(d.uvarint())
	return r, d.err
}

func appendField(dst, b []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(b)))
	return append(dst, b...)
}

// decoder reads the fields appendField and AppendUvarint wrote, remembering
// the first error so callers check once.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail() {
	if d.err == nil {
		d.err = fmt.Errorf("%w: truncated record", errCorruptMeta)
	}
}

func (d *decoder) byte() byte {
	if len(d.b) == 0 {
		d.fail()
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) field() []byte {
	n := d.uvarint()
	if uint64(len(d.b)) < n {
		d.fail()
		return nil
	}
	f := d.b[:n]
	d.b = d.b[n:]
	return f
}

// getUint64 reads an engine counter; a missing key is 0.
func getUint64(db *pebble.DB, key []byte) (uint64, error) {
	v, closer, err := db.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	defer closer.Close()
	if len(v) != 8 {
		return 0, fmt.Errorf("%w: counter %q", errCorruptMeta, key)
	}
	return binary.BigEndian.Uint64(v), nil
}

// setCounters writes the engine's id counters into a metadata batch, so
// they move forward atomically with the records that used them.
func (e *Engine) setCounters(b *pebble.Batch) {
	_ = b.Set(keyNextTableID, appendUint64(nil, e.nextTableID), nil)
	_ = b.Set(keyLastRegionID, appendUint64(nil, e.lastRegionID), nil)
	_ = b.Set(keyRoundRobin, appendUint64(nil, e.roundRobin), nil)
}

// putRegionRecord adds r's record to a metadata batch.
func putRegionRecord(b *pebble.Batch, r *region) {
	rec := regionRecord{end: r.info.End, id: r.info.ID, server: r.info.Server, size: r.stats.size.Load()}
	_ = b.Set(regionRecordKey(r.tbl.id, r.info.Start), rec.encode(), nil)
}

// loadMeta reads the format marker, counters, tables and regions into e.
func (e *Engine) loadMeta() error {
	var err error
	if e.nextTableID, err = getUint64(e.db, keyNextTableID); err != nil {
		return err
	}
	if e.lastRegionID, err = getUint64(e.db, keyLastRegionID); err != nil {
		return err
	}
	if e.roundRobin, err = getUint64(e.db, keyRoundRobin); err != nil {
		return err
	}
	it, err := e.db.NewIter(&pebble.IterOptions{LowerBound: []byte{spaceTable}, UpperBound: []byte{spaceTable + 1}})
	if err != nil {
		return err
	}
	defer it.Close()
	tables := map[string]*table{}
	for ok := it.First(); ok; ok = it.Next() {
		rec, err := decodeTableRecord(it.Value())
		if err != nil {
			return fmt.Errorf("table %q: %w", it.Key()[1:], err)
		}
		t := newTable(rec, string(it.Key()[1:]))
		regions, err := e.loadRegions(t)
		if err != nil {
			return err
		}
		t.routing.Store(e.newRouting(regions))
		tables[t.name] = t
	}
	if err := it.Error(); err != nil {
		return err
	}
	e.tables.Store(&tables)
	return nil
}

// loadRegions reads a table's region records and checks that they tile the
// key space: first start empty, each end the next start, last end nil.
func (e *Engine) loadRegions(t *table) ([]*region, error) {
	lower, upper := regionRecordBounds(t.id)
	it, err := e.db.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return nil, err
	}
	defer it.Close()
	var regions []*region
	for ok := it.First(); ok; ok = it.Next() {
		rec, err := decodeRegionRecord(it.Value())
		if err != nil {
			return nil, fmt.Errorf("table %q region record: %w", t.name, err)
		}
		start := bytes.Clone(it.Key()[len(lower):])
		if start == nil {
			start = []byte{}
		}
		r := newRegion(t, start, rec.end, rec.id, rec.server, &regionStats{})
		r.stats.size.Store(rec.size)
		regions = append(regions, r)
	}
	if err := it.Error(); err != nil {
		return nil, err
	}
	if len(regions) == 0 {
		return nil, fmt.Errorf("%w: table %q has no regions", errCorruptMeta, t.name)
	}
	for i, r := range regions {
		last := i == len(regions)-1
		switch {
		case i == 0 && len(r.info.Start) != 0,
			last && r.info.End != nil,
			!last && !bytes.Equal(r.info.End, regions[i+1].info.Start):
			return nil, fmt.Errorf("%w: table %q regions do not tile the key space at %q", errCorruptMeta, t.name, r.info.Name)
		}
	}
	return regions, nil
}
