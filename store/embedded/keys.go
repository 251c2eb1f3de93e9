package embedded

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// Key layout.
//
// Everything the engine keeps lives in one Pebble keyspace. The first byte of
// a key says which part of the engine owns it, so that the data of all tables
// sorts after the engine's own records and a data scan never meets them.
//
//	engine record:  0x01 name                       format marker and id counters
//	table record:   0x02 tableName                  one per table (id, families)
//	region record:  0x03 tableID(8) startKey        one per region: our hbase:meta
//	snapshot:       0x04 name                       one per snapshot (see snapshot.go)
//	data:           0x10 tableID(8) row* fam kind [qualifier*] ^ts(8)
//	family version: 0x10 tableID(8) row* fam 0x00 0x01 ^ts(8)
//	column marker:  0x10 tableID(8) row* fam 0x00 0x02 qualifier* type ^ts(8)
//
// (* = escaped and terminated, see appendEscaped.) tableID is big-endian so
// that a table's data is one contiguous range and the next id bounds it.
// Inside a table, keys sort by row, then family, then kind, then qualifier,
// then timestamp descending (^ts), which is HBase's cell order: a reader
// walking forward meets a row's delete-family markers before its cells, and
// each qualifier's newest version first.
const (
	spaceEngine byte = 0x01
	spaceTable  byte = 0x02
	spaceRegion byte = 0x03
	spaceSnap   byte = 0x04
	spaceData   byte = 0x10
)

// The last two layouts (DeleteFamilyVersion and the column delete markers)
// came later and live under kind 0x00 without disturbing the first: a
// DeleteFamily key's byte after its kind is the first byte of ^ts, which is
// >= 0x80 for every ts >= 0, so a byte below 0x80 there names a newer marker.
// Those sort before every DeleteFamily marker and every cell of the family,
// so a forward reader still meets all markers of a family before its cells,
// and data written before they existed reads the same.

// Kinds of data entry, in the order a row stores them.
const (
	// kindDeleteFamily is HBase's DeleteFamily marker: it hides every cell
	// of its family with ts <= the marker's ts. Its value is empty.
	kindDeleteFamily byte = 0x00
	// kindPut is a cell; its key carries the qualifier, its value the value.
	kindPut byte = 0x01
)

// Sub-kinds of kind 0x00 (the byte after the kind; < 0x80, see above).
const (
	// subFamilyVersion is HBase's DeleteFamilyVersion: it hides every cell
	// of its family with ts == the marker's ts.
	subFamilyVersion byte = 0x01
	// subColumn is a marker on one qualifier; the byte after the qualifier
	// says which (colDeleteAll, colDeleteOne).
	subColumn byte = 0x02
)

// Column marker types, in the order a qualifier stores them.
const (
	// colDeleteAll is HBase's DeleteColumn: it hides the qualifier's cells
	// with ts <= the marker's ts.
	colDeleteAll byte = 0x01
	// colDeleteOne is HBase's Delete: it hides the qualifier's cell with
	// ts == the marker's ts.
	colDeleteOne byte = 0x02
)

// Kinds of a parsed entry (entry.kind): the on-disk kinds, plus the markers
// stored under kind 0x00 with a sub-kind.
const (
	entryFamilyVersion byte = 0x80 + iota
	entryDeleteColumn
	entryDeleteVersion
)

// The family byte of a key is the family's index in the table's families,
// which are kept sorted by name, so that a row's keys sort by family name as
// HBase's cells do. A table created with one family has it at index 0, which
// is the byte every key carried before tables had several: their data reads
// the same.

const (
	tablePrefixLen = 1 + 8 // spaceData + tableID
	tsLen          = 8
)

// Escaping for variable-length parts (row, qualifier): 0x00 becomes 0x00 0xFF
// and the part ends with 0x00 0x01. The terminator sorts below any escaped
// byte, so "a" < "a\x00" < "ab" holds for the encodings too, and no encoded
// part is a prefix of another: byte order of keys equals (row, qualifier)
// order.
const (
	escByte  byte = 0x00
	escZero  byte = 0xFF
	escTerm  byte = 0x01
	termSize      = 2
)

var errCorruptKey = errors.New("embedded: corrupt data key")

func appendEscaped(dst, b []byte) []byte {
	for {
		i := bytes.IndexByte(b, escByte)
		if i < 0 {
			dst = append(dst, b...)
			break
		}
		dst = append(dst, b[:i]...)
		dst = append(dst, escByte, escZero)
		b = b[i+1:]
	}
	return append(dst, escByte, escTerm)
}

// escapedLen returns the length of the escaped, terminated part at the start
// of b (terminator included), or -1 if b holds no complete part.
func escapedLen(b []byte) int {
	i := 0
	for {
		j := bytes.IndexByte(b[i:], escByte)
		if j < 0 || i+j+1 >= len(b) {
			return -1
		}
		i += j
		switch b[i+1] {
		case escTerm:
			return i + termSize
		case escZero:
			i += 2
		default:
			return -1
		}
	}
}

// unescape appends to dst the raw bytes of an escaped part (terminator
// included or not; it stops at the terminator).
func unescape(dst, esc []byte) []byte {
	for {
		i := bytes.IndexByte(esc, escByte)
		if i < 0 || i+1 >= len(esc) {
			return append(dst, esc...)
		}
		dst = append(dst, esc[:i]...)
		if esc[i+1] == escTerm {
			return dst
		}
		dst = append(dst, escByte)
		esc = esc[i+2:]
	}
}

func appendUint64(dst []byte, v uint64) []byte {
	return binary.BigEndian.AppendUint64(dst, v)
}

// tableStart and tableEnd bound every data key of a table.
func tableStart(id uint64) []byte { return appendTableStart(nil, id) }
func tableEnd(id uint64) []byte   { return appendTableStart(nil, id+1) }

// appendTableStart appends the smallest data key of table id (so id+1's is
// the end of id's data).
func appendTableStart(dst []byte, id uint64) []byte {
	return appendUint64(append(dst, spaceData), id)
}

// appendRowPrefix appends the part every data key of row starts with. It is
// also the smallest key of the row, so it serves as an inclusive lower bound
// for "rows >= row" and an exclusive upper bound for "rows < row".
func appendRowPrefix(dst []byte, tableID uint64, row []byte) []byte {
	dst = append(dst, spaceData)
	dst = appendUint64(dst, tableID)
	return appendEscaped(dst, row)
}

// rowPrefixEnd is the smallest key above every key of row: an exclusive upper
// bound for "rows <= row". The terminator's last byte (0x01) becomes 0x02,
// which is still below the 0xFF of any longer row's escaped zero.
func rowPrefixEnd(tableID uint64, row []byte) []byte {
	return appendRowPrefixEnd(nil, tableID, row)
}

func appendRowPrefixEnd(dst []byte, tableID uint64, row []byte) []byte {
	dst = appendRowPrefix(dst, tableID, row)
	dst[len(dst)-1]++
	return dst
}

// rowBound is the lower data bound of the rows >= row in a table; the empty
// row (a region's open start) is the table's start.
func rowBound(tableID uint64, row []byte) []byte {
	if len(row) == 0 {
		return tableStart(tableID)
	}
	return appendRowPrefix(nil, tableID, row)
}

// regionDataBounds are the data bounds of the key range [start, end) of a
// table, end nil meaning the table's end.
func regionDataBounds(tableID uint64, start, end []byte) (lower, upper []byte) {
	lower = rowBound(tableID, start)
	if end == nil {
		return lower, tableEnd(tableID)
	}
	return lower, rowBound(tableID, end)
}

func appendTs(dst []byte, ts int64) []byte { return appendUint64(dst, ^uint64(ts)) }

// keyTs reads the timestamp every data key ends with.
func keyTs(k []byte) int64 { return int64(^binary.BigEndian.Uint64(k[len(k)-tsLen:])) }

// appendFamilyPrefix appends the part every data key of (row, family fam)
// starts with.
func appendFamilyPrefix(dst []byte, tableID uint64, row []byte, fam byte) []byte {
	dst = appendRowPrefix(dst, tableID, row)
	return append(dst, fam)
}

// appendCellKey appends the key of cell (row, fam, qualifier, ts).
func appendCellKey(dst []byte, tableID uint64, row []byte, fam byte, qualifier []byte, ts int64) []byte {
	dst = appendQualifierPrefix(dst, tableID, row, fam, qualifier)
	return appendTs(dst, ts)
}

// appendMarkerKey appends the key of row's DeleteFamily marker on fam at ts.
func appendMarkerKey(dst []byte, tableID uint64, row []byte, fam byte, ts int64) []byte {
	dst = appendFamilyPrefix(dst, tableID, row, fam)
	dst = append(dst, kindDeleteFamily)
	return appendTs(dst, ts)
}

// appendFamilyVersionKey appends the key of row's DeleteFamilyVersion
// marker on fam at ts.
func appendFamilyVersionKey(dst []byte, tableID uint64, row []byte, fam byte, ts int64) []byte {
	dst = appendFamilyPrefix(dst, tableID, row, fam)
	dst = append(dst, kindDeleteFamily, subFamilyVersion)
	return appendTs(dst, ts)
}

// appendColumnPrefix appends the part every column marker of (row, fam,
// qualifier) starts with.
func appendColumnPrefix(dst []byte, tableID uint64, row []byte, fam byte, qualifier []byte) []byte {
	dst = appendFamilyPrefix(dst, tableID, row, fam)
	dst = append(dst, kindDeleteFamily, subColumn)
	return appendEscaped(dst, qualifier)
}

// appendColumnMarkerKey appends the key of a column marker of type typ
// (colDeleteAll, colDeleteOne) on (row, fam, qualifier) at ts.
func appendColumnMarkerKey(dst []byte, tableID uint64, row []byte, fam byte, qualifier []byte, typ byte, ts int64) []byte {
	dst = appendColumnPrefix(dst, tableID, row, fam, qualifier)
	dst = append(dst, typ)
	return appendTs(dst, ts)
}

// appendQualifierPrefix appends the part every cell key of (row, fam,
// qualifier) starts with.
func appendQualifierPrefix(dst []byte, tableID uint64, row []byte, fam byte, qualifier []byte) []byte {
	dst = appendFamilyPrefix(dst, tableID, row, fam)
	dst = append(dst, kindPut)
	return appendEscaped(dst, qualifier)
}

// rowPrefixLen returns the length of the table-and-row part of data key k.
func rowPrefixLen(k []byte) (int, error) {
	if len(k) < tablePrefixLen || k[0] != spaceData {
		return 0, fmt.Errorf("%w: %q", errCorruptKey, k)
	}
	n := escapedLen(k[tablePrefixLen:])
	if n < 0 {
		return 0, fmt.Errorf("%w: %q", errCorruptKey, k)
	}
	return tablePrefixLen + n, nil
}

// entry is a data key taken apart (the slices alias the key).
type entry struct {
	family    byte
	kind      byte   // kindDeleteFamily, kindPut or an entry* kind
	qualifier []byte // escaped, terminator included; nil for family markers
	ts        int64
}

// parseEntry parses the part of a data key after its row prefix.
func parseEntry(rest []byte) (entry, error) {
	if len(rest) < 2+tsLen {
		return entry{}, fmt.Errorf("%w: short entry %q", errCorruptKey, rest)
	}
	e := entry{family: rest[0], kind: rest[1], ts: keyTs(rest)}
	switch e.kind {
	case kindDeleteFamily:
		if rest[2] >= 0x80 { // the first byte of ^ts: a DeleteFamily marker
			if len(rest) != 2+tsLen {
				return entry{}, fmt.Errorf("%w: marker %q", errCorruptKey, rest)
			}
			break
		}
		switch rest[2] {
		case subFamilyVersion:
			if len(rest) != 3+tsLen {
				return entry{}, fmt.Errorf("%w: family version marker %q", errCorruptKey, rest)
			}
			e.kind = entryFamilyVersion
		case subColumn:
			if len(rest) < 3+termSize+1+tsLen {
				return entry{}, fmt.Errorf("%w: column marker %q", errCorruptKey, rest)
			}
			q := rest[3 : len(rest)-tsLen-1]
			if escapedLen(q) != len(q) {
				return entry{}, fmt.Errorf("%w: column marker %q", errCorruptKey, rest)
			}
			e.qualifier = q
			switch rest[len(rest)-tsLen-1] {
			case colDeleteAll:
				e.kind = entryDeleteColumn
			case colDeleteOne:
				e.kind = entryDeleteVersion
			default:
				return entry{}, fmt.Errorf("%w: column marker type %q", errCorruptKey, rest)
			}
		default:
			return entry{}, fmt.Errorf("%w: marker kind %q", errCorruptKey, rest)
		}
	case kindPut:
		q := rest[2 : len(rest)-tsLen]
		if escapedLen(q) != len(q) {
			return entry{}, fmt.Errorf("%w: qualifier %q", errCorruptKey, rest)
		}
		e.qualifier = q
	default:
		return entry{}, fmt.Errorf("%w: kind %#x", errCorruptKey, e.kind)
	}
	return e, nil
}
