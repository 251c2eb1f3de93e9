package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Cell type codes as they appear in a KeyValue's last key byte (§3.5).
// DeleteFamilyVersion has no protobuf CellType value, which is why cells
// carry the raw code rather than pb.CellType.
const (
	TypeMinimum             byte = 0
	TypePut                 byte = 4
	TypeDelete              byte = 8
	TypeDeleteFamilyVersion byte = 10
	TypeDeleteColumn        byte = 12
	TypeDeleteFamily        byte = 14
	TypeMaximum             byte = 255
)

// LatestTimestamp is Java's Long.MAX_VALUE; a cell carrying it asks the
// server to substitute its current time (§3.6).
const LatestTimestamp uint64 = math.MaxInt64

// Limits of the KeyValue layout: the row length field is a u16 but HBase
// refuses rows longer than a Java short, and the family length is a u8.
const (
	MaxRowLen    = math.MaxInt16
	MaxFamilyLen = math.MaxUint8
)

// keyOverhead is the key's fixed part: row length u16, family length u8,
// timestamp u64 and type u8.
const keyOverhead = 2 + 1 + 8 + 1

// MinCellLen is the smallest encoded cell: three u32 lengths and an empty
// key's fixed part. It bounds how many cells a block can possibly hold.
const MinCellLen = 12 + keyOverhead

// Cell is one KeyValue as KeyValueCodec carries it (§3.4): no tags and no
// sequence id. Type is the raw code (see the Type constants).
type Cell struct {
	Row, Family, Qualifier, Value []byte
	Timestamp                     uint64
	Type                          byte
}

// EncodedLen is the size AppendCell adds, which lets callers size buffers
// and account result sizes before encoding.
func (c Cell) EncodedLen() int {
	return 12 + keyOverhead + len(c.Row) + len(c.Family) + len(c.Qualifier) + len(c.Value)
}

// Check reports why c cannot be encoded; AppendCell panics on such cells,
// so callers holding untrusted input check first.
func (c Cell) Check() error {
	if len(c.Row) > MaxRowLen {
		return fmt.Errorf("hbase wire: row of %d bytes exceeds %d", len(c.Row), MaxRowLen)
	}
	if len(c.Family) > MaxFamilyLen {
		return fmt.Errorf("hbase wire: family of %d bytes exceeds %d", len(c.Family), MaxFamilyLen)
	}
	if uint64(c.EncodedLen())-4 > math.MaxUint32 {
		return errors.New("hbase wire: cell exceeds 4 GiB")
	}
	return nil
}

// AppendCell appends c in KeyValueCodec encoding. It panics if c.Check
// fails: an over-long row or family cannot be represented, and writing it
// anyway would desynchronise every later cell of the block.
func AppendCell(dst []byte, c Cell) []byte {
	if err := c.Check(); err != nil {
		panic(err)
	}
	keyLen := keyOverhead + len(c.Row) + len(c.Family) + len(c.Qualifier)
	dst = binary.BigEndian.AppendUint32(dst, uint32(8+keyLen+len(c.Value)))
	dst = binary.BigEndian.AppendUint32(dst, uint32(keyLen))
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(c.Value)))
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(c.Row)))
	dst = append(dst, c.Row...)
	dst = append(dst, byte(len(c.Family)))
	dst = append(dst, c.Family...)
	dst = append(dst, c.Qualifier...)
	dst = binary.BigEndian.AppendUint64(dst, c.Timestamp)
	dst = append(dst, c.Type)
	return append(dst, c.Value...)
}

// ErrCell reports a cellblock that does not decode; for a client that is a
// corrupt response, for a server a DoNotRetryIOException.
var ErrCell = errors.New("hbase wire: malformed cell")

// ReadCells decodes exactly n cells from the start of block and returns the
// bytes after them, so a caller walking a response's counts (§3.3) can
// check that nothing is left over. The cells' slices alias block (with
// capacity clipped, so appending to one cannot clobber the next). The type
// code is not validated: which codes are acceptable is the caller's
// business.
func ReadCells(block []byte, n int) ([]Cell, []byte, error) {
	if n < 0 {
		return nil, nil, fmt.Errorf("%w: negative cell count %d", ErrCell, n)
	}
	if n > len(block)/MinCellLen {
		return nil, nil, fmt.Errorf("%w: %d cells cannot fit in %d bytes", ErrCell, n, len(block))
	}
	cells := make([]Cell, 0, n)
	for i := range n {
		c, rest, err := readCell(block)
		if err != nil {
			return nil, nil, fmt.Errorf("cell %d of %d: %w", i, n, err)
		}
		cells = append(cells, c)
		block = rest
	}
	return cells, block, nil
}

// ReadCell decodes the cell at the start of block and returns the bytes
// after it, with the same checks and aliasing as ReadCells: for callers
// that decode into storage of their own.
func ReadCell(block []byte) (Cell, []byte, error) { return readCell(block) }

func readCell(b []byte) (Cell, []byte, error) {
	if len(b) < 12 {
		return Cell{}, nil, fmt.Errorf("%w: %d bytes left, need 12 for the lengths", ErrCell, len(b))
	}
	kvLen := uint64(binary.BigEndian.Uint32(b))
	keyLen := uint64(binary.BigEndian.Uint32(b[4:]))
	valLen := uint64(binary.BigEndian.Uint32(b[8:]))
	if kvLen != 8+keyLen+valLen {
		return Cell{}, nil, fmt.Errorf("%w: kvLen %d != 8 + keyLen %d + valLen %d", ErrCell, kvLen, keyLen, valLen)
	}
	if kvLen > uint64(len(b)-4) {
		return Cell{}, nil, fmt.Errorf("%w: kvLen %d but only %d bytes left", ErrCell, kvLen, len(b)-4)
	}
	if keyLen < keyOverhead {
		return Cell{}, nil, fmt.Errorf("%w: keyLen %d below the minimum %d", ErrCell, keyLen, keyOverhead)
	}
	key := b[12 : 12+keyLen]
	rowLen := uint64(binary.BigEndian.Uint16(key))
	if rowLen > MaxRowLen {
		return Cell{}, nil, fmt.Errorf("%w: row length %d exceeds %d", ErrCell, rowLen, MaxRowLen)
	}
	if 2+rowLen+1 > keyLen-9 {
		return Cell{}, nil, fmt.Errorf("%w: row length %d does not fit keyLen %d", ErrCell, rowLen, keyLen)
	}
	famLen := uint64(key[2+rowLen])
	famStart := 2 + rowLen + 1
	qualEnd := keyLen - 9
	if famStart+famLen > qualEnd {
		return Cell{}, nil, fmt.Errorf("%w: family length %d does not fit keyLen %d", ErrCell, famLen, keyLen)
	}
	end := 4 + kvLen
	c := Cell{
		Row:       key[2 : 2+rowLen : 2+rowLen],
		Family:    key[famStart : famStart+famLen : famStart+famLen],
		Qualifier: key[famStart+famLen : qualEnd : qualEnd],
		Timestamp: binary.BigEndian.Uint64(key[qualEnd:]),
		Type:      key[keyLen-1],
		Value:     b[12+keyLen : end : end],
	}
	return c, b[end:], nil
}
