package wire

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"commentbench/hbase/pb"
)

// The frame codec a client calls on every round trip, written by hand:
// WriteRequest and ReadResponse build and decode the headers through
// protobuf reflection, a dozen allocations and most of the encoding time
// of a small call. These produce and accept exactly the bytes those do
// (lean_test.go holds them to it).

// RequestHead is the part of a RequestHeader a client sets: request_param
// is always sent and cell_block_meta follows from the cellblock.
type RequestHead struct {
	CallID  uint32
	Method  string
	Timeout uint32 // ms; 0 leaves the field out
}

// RequestHeader field tags (rpc.proto), in the order they are encoded.
const (
	tagCallID        = 1<<3 | 0
	tagMethodName    = 3<<3 | 2
	tagRequestParam  = 4<<3 | 0
	tagCellBlockMeta = 5<<3 | 2
	tagTimeout       = 7<<3 | 0
)

// AppendRequestFrame appends the frame WriteRequest writes for h, the
// encoded request message body and cells (§3.1).
func AppendRequestFrame(dst []byte, h RequestHead, body, cells []byte) ([]byte, error) {
	hs := requestHeadSize(h, len(cells))
	total := protowire.SizeVarint(uint64(hs)) + hs + protowire.SizeVarint(uint64(len(body))) + len(body) + len(cells)
	if total > MaxFrameSize {
		return nil, fmt.Errorf("hbase wire: frame of %d bytes exceeds %d", total, MaxFrameSize)
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(total))
	dst = protowire.AppendVarint(dst, uint64(hs))
	dst = appendRequestHead(dst, h, len(cells))
	dst = protowire.AppendVarint(dst, uint64(len(body)))
	dst = append(dst, body...)
	return append(dst, cells...), nil
}

func requestHeadSize(h RequestHead, cells int) int {
	n := 1 + protowire.SizeVarint(uint64(h.CallID)) +
		1 + protowire.SizeBytes(len(h.Method)) +
		2 // request_param
	if cells > 0 {
		n += 1 + protowire.SizeBytes(1+protowire.SizeVarint(uint64(cells)))
	}
	if h.Timeout > 0 {
		n += 1 + protowire.SizeVarint(uint64(h.Timeout))
	}
	return n
}

func appendRequestHead(b []byte, h RequestHead, cells int) []byte {
	b = append(b, tagCallID)
	b = protowire.AppendVarint(b, uint64(h.CallID))
	b = append(b, tagMethodName)
	b = protowire.AppendString(b, h.Method)
	b = append(b, tagRequestParam, 1)
	if cells > 0 {
		b = append(b, tagCellBlockMeta, byte(1+protowire.SizeVarint(uint64(cells))), 1<<3|0)
		b = protowire.AppendVarint(b, uint64(cells))
	}
	if h.Timeout > 0 {
		b = append(b, tagTimeout)
		b = protowire.AppendVarint(b, uint64(h.Timeout))
	}
	return b
}

// ReadFrame reads one frame's u32 length and the bytes it announces, as
// ReadResponse does, taking the length from br's buffer.
func ReadFrame(br *bufio.Reader) ([]byte, error) {
	lb, err := br.Peek(4)
	if err != nil {
		if err == io.EOF && len(lb) > 0 {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	n := binary.BigEndian.Uint32(lb)
	_, _ = br.Discard(4)
	if n > MaxFrameSize {
		return nil, fmt.Errorf("%w: length %d exceeds %d", ErrFrame, n, MaxFrameSize)
	}
	return readN(br, int(n))
}

// ResponseHead is a decoded ResponseHeader.
type ResponseHead struct {
	CallID    uint32
	HasCallID bool
	Exception *pb.ExceptionResponse // nil: the call succeeded
	cellLen   uint32
}

// SplitResponse decodes a frame ReadFrame returned as ReadResponse does:
// msg and cells alias frame, and are nil when the header carries an
// exception.
func SplitResponse(frame []byte) (h ResponseHead, msg, cells []byte, err error) {
	hb, rest, err := consumeDelimited(frame, "header")
	if err != nil {
		return h, nil, nil, err
	}
	if err := h.decode(hb); err != nil {
		return h, nil, nil, fmt.Errorf("%w: header: %v", ErrFrame, err)
	}
	cl := uint64(h.cellLen)
	if cl > uint64(len(rest)) {
		return h, nil, nil, fmt.Errorf("%w: cellblock of %d bytes but only %d follow the header", ErrFrame, cl, len(rest))
	}
	split := len(rest) - int(cl)
	if cl > 0 {
		cells = rest[split:]
	}
	if h.Exception != nil {
		if split > 0 || cl > 0 {
			return ResponseHead{}, nil, nil, fmt.Errorf("%w: %d bytes after an exception header", ErrFrame, len(rest))
		}
		return h, nil, nil, nil
	}
	if msg, err = exactlyDelimited(rest[:split], "response message"); err != nil {
		return ResponseHead{}, nil, nil, err
	}
	return h, msg, cells, nil
}

// decode reads a ResponseHeader as proto.Unmarshal would: later values
// win, a field of an unexpected wire type is an unknown field, and unknown
// fields are skipped.
func (h *ResponseHead) decode(b []byte) error {
	for len(b) > 0 {
		num, typ, n := consumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		m := protowire.ConsumeFieldValue(num, typ, b)
		if m < 0 {
			return protowire.ParseError(m)
		}
		if err := h.field(num, typ, b[:m]); err != nil {
			return err
		}
		b = b[m:]
	}
	return nil
}

func (h *ResponseHead) field(num protowire.Number, typ protowire.Type, b []byte) error {
	switch {
	case num == 1 && typ == protowire.VarintType:
		v, _ := protowire.ConsumeVarint(b)
		h.CallID, h.HasCallID = uint32(v), true
	case num == 2 && typ == protowire.BytesType:
		v, _ := protowire.ConsumeBytes(b)
		if h.Exception == nil {
			h.Exception = new(pb.ExceptionResponse)
		}
		return proto.UnmarshalOptions{Merge: true}.Unmarshal(v, h.Exception)
	case num == 3 && typ == protowire.BytesType:
		v, _ := protowire.ConsumeBytes(b)
		return h.cellBlockMeta(v)
	}
	return nil
}

// cellBlockMeta reads CellBlockMeta.length; a message without it leaves
// the length as it was, as merging does.
func (h *ResponseHead) cellBlockMeta(b []byte) error {
	for len(b) > 0 {
		num, typ, n := consumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		m := protowire.ConsumeFieldValue(num, typ, b)
		if m < 0 {
			return protowire.ParseError(m)
		}
		if num == 1 && typ == protowire.VarintType {
			v, _ := protowire.ConsumeVarint(b)
			h.cellLen = uint32(v)
		}
		b = b[m:]
	}
	return nil
}

// consumeTag is protowire.ConsumeTag refusing, as proto.Unmarshal does,
// field numbers above the largest valid one.
func consumeTag(b []byte) (protowire.Number, protowire.Type, int) {
	num, typ, n := protowire.ConsumeTag(b)
	if n >= 0 && num > protowire.MaxValidNumber {
		return 0, 0, -1
	}
	return num, typ, n
}
