// Package txn runs multi-row transactions over a store.Store as Haeinsa
// (the library behind seed 002's Between) runs them over HBase: every row
// a transaction writes carries a lock column; the transaction prewrites
// each row (its new cells and a lock saying so) with a check-and-mutate
// against the lock it read, commits by turning one row's lock, the
// primary's, to committed, and then makes every row stable again. A reader
// or a writer that meets a lock whose writer died rolls the transaction
// forward (its primary committed) or back (it stayed undecided past its
// expiry), and while it is undecided sees the row as it was before.
//
// It owns the lock's format and the protocol. It must not know what the
// rows mean (comments, indexes), nor which backend keeps them.
package txn

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
)

// LockColumn is the qualifier of a row's lock: the empty qualifier, which
// sorts before every column a key design names. A read of a row's head
// finds the lock first; a slice from a design's first column never does.
var LockColumn = []byte{}

// State is where a row's lock stands.
type State byte

// The lock's states, as Haeinsa names them.
const (
	// Stable: no transaction holds the row; the lock remembers the last.
	Stable State = iota + 1
	// Prewritten: a transaction wrote its cells here and is undecided.
	Prewritten
	// Committed (a primary's only): the transaction committed; its other
	// rows are being made stable.
	Committed
	// Aborted (a primary's only): the transaction aborted; its rows are
	// being rolled back.
	Aborted
)

func (s State) String() string {
	switch s {
	case Stable:
		return "stable"
	case Prewritten:
		return "prewritten"
	case Committed:
		return "committed"
	case Aborted:
		return "aborted"
	}
	return fmt.Sprintf("State(%d)", byte(s))
}

// Ref names a row of a table.
type Ref struct {
	Table string
	Row   []byte
}

func (r Ref) String() string { return fmt.Sprintf("%s[%q]", r.Table, r.Row) }

func (r Ref) equal(o Ref) bool { return r.Table == o.Table && string(r.Row) == string(o.Row) }

// Column is a column as a transaction found it: what a reader sees of it
// while the transaction is undecided, and what rolling it back restores.
type Column struct {
	Qualifier, Value []byte
	Present          bool // false: the column was absent
}

// Lock is a row's lock column decoded.
type Lock struct {
	State State
	// Tx is the transaction that holds the row, or last held it.
	Tx int64
	// Ts is the timestamp the transaction's cells carry: every later
	// transaction of the row writes after it, so a rollback's deletes
	// never hide a later write.
	Ts int64
	// Expiry (ms) is when an undecided transaction may be rolled back by
	// whoever meets it.
	Expiry int64
	// Committed says, on a stable lock, whether its last transaction
	// committed (false: it was rolled back).
	Committed bool
	// Resolved says a reader or another writer put the lock there, not the
	// transaction's own writer: a writer reading its lock back after a
	// reply it did not get tells its own change from theirs.
	Resolved bool
	// Primary is a secondary row's primary; nil on the primary.
	Primary *Ref
	// Secondaries are the primary's other rows.
	Secondaries []Ref
	// Before are the columns the transaction writes, as they were.
	Before []Column
	// Deletes are the columns the transaction deletes once it commits.
	Deletes [][]byte
}

// ErrBadLock is a lock column that does not decode.
var ErrBadLock = errors.New("txn: lock column does not decode")

const lockVersion = 1

const (
	flagCommitted = 1 << iota
	flagPrimary
	flagResolved
)

// Encode is the lock as its column holds it.
func (l Lock) Encode() []byte {
	b := []byte{lockVersion, byte(l.State), 0}
	if l.Committed {
		b[2] |= flagCommitted
	}
	if l.Primary != nil {
		b[2] |= flagPrimary
	}
	if l.Resolved {
		b[2] |= flagResolved
	}
	b = binary.AppendVarint(b, l.Tx)
	b = binary.AppendVarint(b, l.Ts)
	b = binary.AppendVarint(b, l.Expiry)
	if l.Primary != nil {
		b = appendRef(b, *l.Primary)
	}
	b = binary.AppendUvarint(b, uint64(len(l.Secondaries)))
	for _, r := range l.Secondaries {
		b = appendRef(b, r)
	}
	b = binary.AppendUvarint(b, uint64(len(l.Before)))
	for _, c := range l.Before {
		b = appendBytes(b, c.Qualifier)
		if c.Present {
			b = append(b, 1)
			b = appendBytes(b, c.Value)
		} else {
			b = append(b, 0)
		}
	}
	b = binary.AppendUvarint(b, uint64(len(l.Deletes)))
	for _, q := range l.Deletes {
		b = appendBytes(b, q)
	}
	return b
}

func appendRef(b []byte, r Ref) []byte {
	return appendBytes(appendBytes(b, []byte(r.Table)), r.Row)
}

func appendBytes(b, v []byte) []byte {
	return append(binary.AppendUvarint(b, uint64(len(v))), v...)
}

// Decode reads a lock column.
func Decode(v []byte) (Lock, error) {
	d := decoder{b: v}
	var l Lock
	if d.byte() != lockVersion {
		return l, fmt.Errorf("%w: version %d", ErrBadLock, firstByte(v))
	}
	l.State = State(d.byte())
	flags := d.byte()
	if flags&^(flagCommitted|flagPrimary|flagResolved) != 0 {
		d.fail()
	}
	l.Committed = flags&flagCommitted != 0
	l.Resolved = flags&flagResolved != 0
	l.Tx, l.Ts, l.Expiry = d.varint(), d.varint(), d.varint()
	if flags&flagPrimary != 0 {
		r := d.ref()
		l.Primary = &r
	}
	for range d.count() {
		l.Secondaries = append(l.Secondaries, d.ref())
	}
	for range d.count() {
		c := Column{Qualifier: d.bytes()}
		if c.Present = d.byte() == 1; c.Present {
			c.Value = d.bytes()
		}
		l.Before = append(l.Before, c)
	}
	for range d.count() {
		l.Deletes = append(l.Deletes, d.bytes())
	}
	if d.err != nil || len(d.b) != 0 || l.State < Stable || l.State > Aborted {
		return Lock{}, fmt.Errorf("%w (%d bytes)", ErrBadLock, len(v))
	}
	return l, nil
}

func firstByte(v []byte) int {
	if len(v) == 0 {
		return -1
	}
	return int(v[0])
}

// decoder reads a lock's fields, remembering the first failure.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail() { d.err, d.b = ErrBadLock, nil }

func (d *decoder) byte() byte {
	if len(d.b) == 0 {
		d.fail()
		return 0
	}
	v := d.b[0]
	d.b = d.b[1:]
	return v
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

// count is a list's length, refused past what the bytes left could hold.
func (d *decoder) count() int {
	v, n := binary.Uvarint(d.b)
	if n <= 0 || v > uint64(len(d.b)) {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return int(v)
}

func (d *decoder) bytes() []byte {
	n := d.count()
	if d.err != nil || n > len(d.b) {
		d.fail()
		return nil
	}
	v := slices.Clone(d.b[:n])
	d.b = d.b[n:]
	return v
}

func (d *decoder) ref() Ref {
	return Ref{Table: string(d.bytes()), Row: d.bytes()}
}
