package keys

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/cespare/xxhash/v2"
)

// Design is a key design: for each of the eight tables, its row key as an
// ordered list of fixed-width parts and how the table is pre-split. It is
// read from a YAML file (see Parse); the built-in designs are such files,
// embedded. Everything that builds, decodes, scans or splits keys asks the
// design, so a user's own design runs through the same code as the seed's.
type Design struct {
	name        string
	description string
	source      []byte // the file as written, printed by lint --print and recorded with the data
	file        string
	tables      [numTables]*TableKey
}

// TableKey is one table's key: the row key of each of its entries and,
// when the design gives the table columns, the column qualifier too.
//
// An entry is what the comment system reads and writes as one thing: a
// comment, an index entry, a product. In the seed's design every entry is
// a row of its own table, in the one column q. A design may instead keep a
// table's entries as columns of a row (a wide row: seed 002's tree of
// qualifiers, seed 003's time-ordered columns), and in another table's
// rows. Either way an entry's key is its row key followed by its column
// qualifier (none for the seed's one column), both fixed-width: every
// listing, decoder and checker works on entry keys, and Row and Column
// say where the store keeps one.
type TableKey struct {
	Table string
	// Store is the store's table whose rows hold the entries: Table itself,
	// or the table the design keeps them in (its in:).
	Store string
	// Parts are the row key's parts, then the column's.
	Parts []Part
	// RowParts are how many of Parts make the row key; the rest make the
	// column qualifier.
	RowParts int
	Len      int // an entry key's bytes: every part is fixed-width
	RowLen   int // the row key's bytes
	// Meta is the collection's metadata column in its owner's row (the
	// count of its entries), sorted before the entries; nil for none.
	Meta []byte
	// Copy: an entry holds a copy of the comment (a clustered index), not
	// the comment's key.
	Copy   bool
	Splits SplitSpec
	line   int
	// rowKey is the row parts alone, as a key of their own: split points
	// and region bounds are row keys.
	rowKey *TableKey
	// lists are the plans of a listing by user, by product and by no
	// owner, made once: a listing is built for every page read.
	lists [3]listPlan
}

// Wide reports whether the table's entries are columns the design names,
// rather than rows of the seed's one column.
func (t *TableKey) Wide() bool { return t.RowParts < len(t.Parts) }

// Row is the row key of an entry key.
func (t *TableKey) Row(key []byte) []byte { return key[:t.RowLen:t.RowLen] }

// Column is the column qualifier of an entry key: what follows its row
// key, or the seed's one column.
func (t *TableKey) Column(key []byte) []byte {
	if !t.Wide() {
		return Qualifier
	}
	return key[t.RowLen:len(key):len(key)]
}

// ColumnLen is the width of an entry's column qualifier.
func (t *TableKey) ColumnLen() int {
	if !t.Wide() {
		return len(Qualifier)
	}
	return t.Len - t.RowLen
}

// ColumnPrefix is the literal bytes the table's columns begin with (the
// type, in seed 002's words), empty when a column begins otherwise and
// for a table of the seed's one column.
func (t *TableKey) ColumnPrefix() []byte {
	var out []byte
	for _, p := range t.Parts[t.RowParts:] {
		if p.Kind != PartLiteral {
			break
		}
		out = append(out, p.Literal...)
	}
	return out
}

// RowKey is the table's row key alone: the row parts, as a key of their
// own.
func (t *TableKey) RowKey() *TableKey { return t.rowKey }

// PartKind is what a part of a key is made from.
type PartKind int

// The kinds of part.
const (
	PartField   PartKind = iota // an id field, its bytes as they are
	PartLiteral                 // constant bytes
	PartTs                      // timestamp ms, 8 bytes big-endian: oldest first
	PartRevTs                   // MaxInt64 − timestamp: newest first
	PartLen                     // content length in UTF-8 bytes, 4 bytes: shortest first
	PartRevLen                  // MaxInt32 − length: longest first
	PartRank                    // rank 1.., 2 bytes
	PartSalt                    // bucket 0..N-1 from a hash of fields
	PartHash                    // first K bytes of a hash of a field
	PartReverse                 // a field's bytes reversed
)

// Part is one fixed-width piece of a row key.
type Part struct {
	Kind    PartKind
	Field   string    // PartField, PartHash, PartReverse: the field's name
	slot    fieldSlot // Field, resolved once: the encoder switches on it
	Fields  []string  // PartSalt: the hashed fields, in order
	Buckets int       // PartSalt
	Literal []byte    // PartLiteral
	Width   int
	Source  string // as written in the file
	line    int
}

// The id fields a part can name.
const (
	FieldID        = "id"
	FieldUserID    = "userId"
	FieldProductID = "productId"
	FieldOrderID   = "orderId"
	FieldSellerID  = "sellerId"
)

// Key is a decoded row key, or the fields to build one from. Fields a table's
// key does not hold are zero.
type Key struct {
	Table      string
	ID         string // entity tables
	UserID     string
	ProductID  string
	OrderID    string
	Timestamp  int64 // ms
	ContentLen int   // UTF-8 bytes
	Rank       int
	// Opaque holds, in key order, the bytes of salt and hash parts whose
	// fields the key itself does not hold (a user-comment key salted by the
	// comment it points at, say): Decode cannot check them, and Encode needs
	// them back to rebuild the same bytes.
	Opaque string
}

// String prints a key as, e.g.,
// product-comment[prod=AbCdEfGhIj c ts=2026-11-21T04:05:06.123Z len=42].
func (k Key) String() string { return k.format(nil) }

var _ fmt.Stringer = Key{}

// Name is the design's name, as its file gives it.
func (d *Design) Name() string { return d.name }

// Description is the design's own account of itself.
func (d *Design) Description() string { return d.description }

// Source is the design file's bytes.
func (d *Design) Source() []byte { return d.source }

// File is where the design was read from: a path, or builtin:NAME.
func (d *Design) File() string { return d.file }

// Tables are the design's tables, in AllTables order: Tables, and those
// of the tables a design may leave out that it gives.
func (d *Design) Tables() []string {
	var out []string
	for i, t := range d.tables {
		if t != nil {
			out = append(out, AllTables[i])
		}
	}
	return out
}

// StoreTables are the store's tables the design's entries live in, in
// Tables order: each table kept in no other's rows.
func (d *Design) StoreTables() []string {
	var out []string
	for _, t := range d.tables {
		if t != nil && t.Store == t.Table {
			out = append(out, t.Table)
		}
	}
	return out
}

// InStore are the design's tables whose entries live in store's rows, the
// store table's own first.
func (d *Design) InStore(store string) []*TableKey {
	var out []*TableKey
	for _, t := range d.tables {
		if t != nil && t.Store == store {
			out = append(out, t)
		}
	}
	return out
}

// Wide reports whether any of the design's tables keeps its entries in
// columns.
func (d *Design) Wide() bool {
	for _, t := range d.tables {
		if t != nil && t.Wide() {
			return true
		}
	}
	return false
}

// Table is one table's key, or nil for a name that is not a table of the
// design.
func (d *Design) Table(name string) *TableKey {
	if i := tableIndex(name); i >= 0 {
		return d.tables[i]
	}
	return nil
}

// tableIndex is a switch, not a search of Tables: every Encode and Decode
// starts here, and a switch on constants costs a few length checks.
func tableIndex(name string) int {
	switch name {
	case User:
		return 0
	case Seller:
		return 1
	case Product:
		return 2
	case Order:
		return 3
	case Comment:
		return 4
	case UserComment:
		return 5
	case ProductComment:
		return 6
	case ProductRank:
		return 7
	case LatestComment:
		return 8
	}
	return -1
}

func (d *Design) table(name string) (*TableKey, error) {
	if i := tableIndex(name); i >= 0 && d.tables[i] != nil {
		return d.tables[i], nil
	}
	return nil, unknownTable(name)
}

// unknownTable is apart from table so that looking up a good name does not
// carry the message's formatting.
func unknownTable(name string) error {
	return errorf(ErrBadKey, "unknown table %s (want one of %s)", quoted(name), strings.Join(AllTables, ", "))
}

// Encode builds the row key of k.Table from k's fields.
func (d *Design) Encode(k Key) ([]byte, error) { return d.EncodeTo(nil, &k) }

// EncodeTo appends the row key of k.Table to dst. The write path builds
// every index key of a comment from one Key this way: a Key is over a
// hundred bytes, too many to copy for each.
func (d *Design) EncodeTo(dst []byte, k *Key) ([]byte, error) {
	t, err := d.table(k.Table)
	if err != nil {
		return nil, err
	}
	if dst == nil {
		dst = make([]byte, 0, t.Len)
	}
	return t.appendKey(dst, k)
}

// EntityKey is the row key of an entity table (user, seller, product,
// order) for id.
func (d *Design) EntityKey(table, id string) ([]byte, error) {
	return d.Encode(Key{Table: table, ID: id})
}

// CommentKey is the comment table's row key: a comment is identified by its
// order and product, and index rows hold this key as their value.
func (d *Design) CommentKey(orderID, productID string) ([]byte, error) {
	return d.Encode(Key{Table: Comment, OrderID: orderID, ProductID: productID})
}

// RankKey is the product-comment-rank row of rank (1..MaxEncodableRank).
func (d *Design) RankKey(productID string, rank int) ([]byte, error) {
	return d.Encode(Key{Table: ProductRank, ProductID: productID, Rank: rank})
}

// Append appends the key of k to dst.
func (t *TableKey) Append(dst []byte, k Key) ([]byte, error) { return t.appendKey(dst, &k) }

// AppendKey appends this table's key of k (whatever k.Table says) to dst:
// the write path resolves its tables once and builds each comment's keys
// from one Key.
func (t *TableKey) AppendKey(dst []byte, k *Key) ([]byte, error) {
	if dst == nil {
		dst = make([]byte, 0, t.Len)
	}
	return t.appendKey(dst, k)
}

// appendKey takes k by pointer: a Key is over a hundred bytes, and the
// encoder is on every write's path.
func (t *TableKey) appendKey(dst []byte, k *Key) ([]byte, error) {
	opaque := k.Opaque
	for i := range t.Parts {
		p := &t.Parts[i]
		switch p.Kind {
		case PartField:
			id := k.at(p.slot)
			if len(id) != IDLen {
				return nil, badID(t.Table, p.Field, id)
			}
			dst = append(dst, id...)
		case PartReverse:
			id := k.at(p.slot)
			if len(id) != IDLen {
				return nil, badID(t.Table, p.Field, id)
			}
			dst = append(dst, id...)
			reverseBytes(dst[len(dst)-IDLen:])
		case PartLiteral:
			if len(p.Literal) == 1 { // a separator such as the seed's c: no call to copy one byte
				dst = append(dst, p.Literal[0])
			} else {
				dst = append(dst, p.Literal...)
			}
		case PartTs, PartRevTs:
			if k.Timestamp < 0 {
				return nil, errorf(ErrOutOfRange, "timestamp %d ms is negative, want >= 0", k.Timestamp)
			}
			v := uint64(k.Timestamp)
			if p.Kind == PartRevTs {
				v = uint64(math.MaxInt64 - k.Timestamp)
			}
			dst = binary.BigEndian.AppendUint64(dst, v)
		case PartLen, PartRevLen:
			if k.ContentLen < 0 || k.ContentLen > math.MaxInt32 {
				return nil, errorf(ErrOutOfRange, "content length %d, want 0..%d", k.ContentLen, math.MaxInt32)
			}
			v := uint32(k.ContentLen)
			if p.Kind == PartRevLen {
				v = uint32(math.MaxInt32 - k.ContentLen)
			}
			dst = binary.BigEndian.AppendUint32(dst, v)
		case PartRank:
			if k.Rank < 1 || k.Rank > MaxEncodableRank {
				return nil, errorf(ErrOutOfRange, "rank %d, want 1..%d", k.Rank, MaxEncodableRank)
			}
			dst = binary.BigEndian.AppendUint16(dst, uint16(k.Rank))
		case PartSalt, PartHash:
			var err error
			if dst, opaque, err = p.appendDerived(dst, t.Table, *k, opaque); err != nil {
				return nil, err
			}
		}
	}
	return dst, nil
}

// badID is out of line: the message's formatting, inlined, would weigh on
// appendKey for ids that are rarely wrong.
func badID(table, field, id string) error {
	return errorf(ErrBadID, "%s key: %s %s is %d bytes, want %d", table, field, quoted(id), len(id), IDLen)
}

// appendDerived appends a salt or hash computed from k's fields, or, when k
// lacks them, the next bytes of its opaque remainder.
func (p *Part) appendDerived(dst []byte, table string, k Key, opaque string) ([]byte, string, error) {
	if k.has(p.inputs()) {
		return p.derive(dst, k), opaque, nil
	}
	if len(opaque) < p.Width {
		return nil, opaque, errorf(ErrBadID, "%s key: %s needs %s", table, p.Source, strings.Join(p.inputs(), " and "))
	}
	return append(dst, opaque[:p.Width]...), opaque[p.Width:], nil
}

// inputs are the fields a derived part is computed from.
func (p *Part) inputs() []string {
	if p.Kind == PartSalt {
		return p.Fields
	}
	return []string{p.Field}
}

// derive appends the part's bytes computed from k, which holds its inputs.
func (p *Part) derive(dst []byte, k Key) []byte {
	var buf [4 * IDLen]byte
	in := buf[:0]
	for _, f := range p.inputs() {
		in = append(in, k.field(f)...)
	}
	h := xxhash.Sum64(in)
	if p.Kind == PartHash {
		var b [8]byte
		binary.BigEndian.PutUint64(b[:], h)
		return append(dst, b[:p.Width]...)
	}
	return appendBucket(dst, int(h%uint64(p.Buckets)), p.Width)
}

func appendBucket(dst []byte, b, width int) []byte {
	if width == 1 {
		return append(dst, byte(b))
	}
	return binary.BigEndian.AppendUint16(dst, uint16(b))
}

// Salts and hashes are XXH64 (seed 0) of the fields' bytes, concatenated in
// the order the part names them, so anyone can compute the same keys in
// their own code. FNV-1a was the first choice and failed: its high bytes
// barely change when only an id's last byte does, so sequential ids all
// hashed into one region.

// Salt is the bucket salt(fields, buckets) gives for these field values, in
// the order the part names them.
func Salt(buckets int, values ...string) int {
	return int(xxhash.Sum64String(strings.Join(values, "")) % uint64(buckets))
}

func reverseBytes(b []byte) {
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
}

// fieldSlot numbers the id fields, so the encoder's hot path compares
// integers, not names.
type fieldSlot uint8

const (
	slotNone fieldSlot = iota
	slotID
	slotUser
	slotProduct
	slotOrder
)

func slotOf(name string) fieldSlot {
	switch name {
	case FieldID:
		return slotID
	case FieldUserID:
		return slotUser
	case FieldProductID:
		return slotProduct
	case FieldOrderID:
		return slotOrder
	}
	return slotNone
}

func (k *Key) at(s fieldSlot) string {
	switch s {
	case slotID:
		return k.ID
	case slotUser:
		return k.UserID
	case slotProduct:
		return k.ProductID
	case slotOrder:
		return k.OrderID
	}
	return ""
}

func (k Key) field(name string) string {
	switch name {
	case FieldID:
		return k.ID
	case FieldUserID:
		return k.UserID
	case FieldProductID:
		return k.ProductID
	case FieldOrderID:
		return k.OrderID
	}
	return ""
}

func (k *Key) setField(name, v string) {
	switch name {
	case FieldID:
		k.ID = v
	case FieldUserID:
		k.UserID = v
	case FieldProductID:
		k.ProductID = v
	case FieldOrderID:
		k.OrderID = v
	}
}

func (k Key) has(fields []string) bool {
	for _, f := range fields {
		if k.field(f) == "" {
			return false
		}
	}
	return true
}

// Decode parses a row key of table into its fields. It never panics: the
// length is checked first, and every field that would overflow when
// un-reversed is an error, so whatever Decode accepts, Encode turns back
// into the same bytes. A salt or hash whose fields the key holds must agree
// with them.
func (d *Design) Decode(table string, key []byte) (Key, error) {
	t, err := d.table(table)
	if err != nil {
		return Key{}, err
	}
	return t.decode(key, d.name)
}

// decode is Decode of one table's keys; design names the design in errors.
func (t *TableKey) decode(key []byte, design string) (Key, error) {
	if len(key) != t.Len {
		return Key{}, errorf(ErrBadKey, "%s key %s is %d bytes, want %d in design %s",
			t.Table, quotedKey(key), len(key), t.Len, design)
	}
	k := Key{Table: t.Table}
	off := 0
	for i := range t.Parts {
		p := &t.Parts[i]
		if err := p.decode(&k, key, off, t.Table); err != nil {
			return Key{}, err
		}
		off += p.Width
	}
	return k, t.checkDerived(&k, key)
}

func (p *Part) decode(k *Key, key []byte, off int, table string) error {
	b := key[off : off+p.Width]
	switch p.Kind {
	case PartField:
		k.setField(p.Field, string(b))
	case PartReverse:
		r := []byte(string(b))
		reverseBytes(r)
		k.setField(p.Field, string(r))
	case PartLiteral:
		if string(b) != string(p.Literal) {
			return errorf(ErrBadKey, "%s key %s: bytes %d..%d are %q, want %s", table, quotedKey(key), off, off+p.Width-1, b, p.Source)
		}
	case PartTs, PartRevTs:
		v := int64(binary.BigEndian.Uint64(b))
		if v < 0 {
			return errorf(ErrBadKey, "%s key %s: %s %#016x is negative, so no ts >= 0 made it", table, quotedKey(key), p.Source, uint64(v))
		}
		if k.Timestamp = v; p.Kind == PartRevTs {
			k.Timestamp = math.MaxInt64 - v
		}
	case PartLen, PartRevLen:
		v := int32(binary.BigEndian.Uint32(b))
		if v < 0 {
			return errorf(ErrBadKey, "%s key %s: %s %#08x is negative, so no length >= 0 made it", table, quotedKey(key), p.Source, uint32(v))
		}
		if k.ContentLen = int(v); p.Kind == PartRevLen {
			k.ContentLen = int(math.MaxInt32 - v)
		}
	case PartRank:
		r := int16(binary.BigEndian.Uint16(b))
		if r < 1 {
			return errorf(ErrBadKey, "%s key %s: rank %d, want 1..%d", table, quotedKey(key), r, MaxEncodableRank)
		}
		k.Rank = int(r)
	}
	return nil
}

// checkDerived compares each salt and hash with its fields, once every
// field is decoded; one whose fields the key lacks is kept as Opaque.
func (t *TableKey) checkDerived(k *Key, key []byte) error {
	off := 0
	var opaque []byte
	for i := range t.Parts {
		p := &t.Parts[i]
		b := key[off : off+p.Width]
		off += p.Width
		if p.Kind != PartSalt && p.Kind != PartHash {
			continue
		}
		if !k.has(p.inputs()) {
			if p.Kind == PartSalt && bucketOf(b) >= p.Buckets {
				return errorf(ErrBadKey, "%s key %s: %s bucket %d, want 0..%d", t.Table, quotedKey(key), p.Source, bucketOf(b), p.Buckets-1)
			}
			opaque = append(opaque, b...)
			continue
		}
		if want := p.derive(nil, *k); string(want) != string(b) {
			return errorf(ErrBadKey, "%s key %s: %s is %x, its fields give %x", t.Table, quotedKey(key), p.Source, b, want)
		}
	}
	k.Opaque = string(opaque)
	return nil
}

func bucketOf(b []byte) int {
	if len(b) == 1 {
		return int(b[0])
	}
	return int(binary.BigEndian.Uint16(b))
}

// GroupLen is how many leading bytes of table's keys no edit of a comment
// changes: the parts before the first content-length part. A checker groups
// index rows by them, because an index row keeps the length the comment had
// when it was written.
func (t *TableKey) GroupLen() int {
	n := 0
	for _, p := range t.Parts {
		if p.Kind == PartLen || p.Kind == PartRevLen {
			break
		}
		n += p.Width
	}
	return n
}

// Has reports whether the key holds a part of kind (and, for fields, the
// named field as it is).
func (t *TableKey) Has(kind PartKind, field string) bool {
	for _, p := range t.Parts {
		if p.Kind == kind && (field == "" || p.Field == field) {
			return true
		}
	}
	return false
}
