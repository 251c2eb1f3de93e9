package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"commentbench/hbase/pb"
)

// MaxFrameSize bounds the byte count after a frame's u32 length. HBase
// frames are far smaller; the bound exists so that a garbage length (a
// desynchronised stream, a non-HBase peer) fails fast instead of
// allocating up to 4 GiB.
const MaxFrameSize = 256 << 20

// ErrFrame reports a frame whose parts do not add up. The stream is
// unusable after it, so callers drop the connection.
var ErrFrame = errors.New("hbase wire: malformed frame")

// WriteRequest writes one request frame (§3.1) with a single Write, so
// concurrent callers only need to serialise their Write calls, not their
// encoding. It fills in hdr.request_param (HBase rejects headers without
// it) and hdr.cell_block_meta from cells, so the header always matches the
// frame; hdr is modified. hdr.call_id must be set and msg must not be nil.
func WriteRequest(w io.Writer, hdr *pb.RequestHeader, msg proto.Message, cells []byte) error {
	if hdr == nil || hdr.CallId == nil {
		return errors.New("hbase wire: request header without call_id")
	}
	if msg == nil {
		return errors.New("hbase wire: request without a message")
	}
	if len(cells) > MaxFrameSize {
		return fmt.Errorf("hbase wire: cellblock of %d bytes exceeds %d", len(cells), MaxFrameSize)
	}
	hdr.RequestParam = proto.Bool(true)
	hdr.CellBlockMeta = cellBlockMeta(cells)
	buf, err := appendFrame(nil, hdr, msg, cells)
	if err != nil {
		return err
	}
	_, err = w.Write(buf)
	return err
}

// WriteResponse writes one response frame (§3.2) with a single Write. A
// failed call carries hdr.exception with both class name and stack trace
// (gohbase dereferences both) and then msg must be nil and cells empty; a
// successful call must carry msg, even an empty one. hdr.cell_block_meta is
// set from cells; hdr is modified. hdr.call_id must be set.
func WriteResponse(w io.Writer, hdr *pb.ResponseHeader, msg proto.Message, cells []byte) error {
	if hdr == nil || hdr.CallId == nil {
		return errors.New("hbase wire: response header without call_id")
	}
	if ex := hdr.Exception; ex != nil {
		if msg != nil || len(cells) > 0 {
			return errors.New("hbase wire: exception response with a message or cells")
		}
		if ex.ExceptionClassName == nil || ex.StackTrace == nil {
			return errors.New("hbase wire: exception needs both class name and stack trace")
		}
	} else if msg == nil {
		return errors.New("hbase wire: successful response without a message")
	}
	if len(cells) > MaxFrameSize {
		return fmt.Errorf("hbase wire: cellblock of %d bytes exceeds %d", len(cells), MaxFrameSize)
	}
	hdr.CellBlockMeta = cellBlockMeta(cells)
	buf, err := appendFrame(nil, hdr, msg, cells)
	if err != nil {
		return err
	}
	_, err = w.Write(buf)
	return err
}

func cellBlockMeta(cells []byte) *pb.CellBlockMeta {
	if len(cells) == 0 {
		return nil
	}
	return &pb.CellBlockMeta{Length: proto.Uint32(uint32(len(cells)))}
}

// appendFrame appends u32 total, the delimited header, the delimited msg
// (skipped when nil) and cells.
func appendFrame(dst []byte, hdr, msg proto.Message, cells []byte) ([]byte, error) {
	hs := proto.Size(hdr)
	total := protowire.SizeVarint(uint64(hs)) + hs + len(cells)
	ms := 0
	if msg != nil {
		ms = proto.Size(msg)
		total += protowire.SizeVarint(uint64(ms)) + ms
	}
	if total > MaxFrameSize {
		return nil, fmt.Errorf("hbase wire: frame of %d bytes exceeds %d", total, MaxFrameSize)
	}
	start := len(dst)
	dst = binary.BigEndian.AppendUint32(dst, uint32(total))
	var err error
	opts := proto.MarshalOptions{UseCachedSize: true}
	dst = protowire.AppendVarint(dst, uint64(hs))
	if dst, err = opts.MarshalAppend(dst, hdr); err != nil {
		return nil, fmt.Errorf("hbase wire: marshal header: %w", err)
	}
	if msg != nil {
		dst = protowire.AppendVarint(dst, uint64(ms))
		if dst, err = opts.MarshalAppend(dst, msg); err != nil {
			return nil, fmt.Errorf("hbase wire: marshal message: %w", err)
		}
	}
	dst = append(dst, cells...)
	if len(dst)-start != 4+total {
		// Only possible if a message changed while being encoded.
		return nil, errors.New("hbase wire: message size changed during marshal")
	}
	return dst, nil
}

// ReadRequest reads one request frame (§3.1). param is the undecoded
// request message (its type follows from hdr.method_name); cells is the
// cellblock, nil when the header announces none. Both alias one fresh
// buffer. A clean EOF before the frame's first byte is returned as io.EOF.
func ReadRequest(r io.Reader) (hdr *pb.RequestHeader, param []byte, cells []byte, err error) {
	frame, err := readFrame(r)
	if err != nil {
		return nil, nil, nil, err
	}
	hdr = new(pb.RequestHeader)
	mid, cells, err := splitFrame(frame, hdr, func() uint32 { return hdr.GetCellBlockMeta().GetLength() })
	if err != nil {
		return nil, nil, nil, err
	}
	if len(mid) > 0 || hdr.GetRequestParam() {
		if param, err = exactlyDelimited(mid, "request message"); err != nil {
			return nil, nil, nil, err
		}
	}
	return hdr, param, cells, nil
}

// ReadResponse reads one response frame (§3.2). When hdr.exception is set,
// msg and cells are nil; otherwise msg is the undecoded response message
// (present, possibly empty) and cells the trailing cellblock of
// cell_block_meta.length bytes, nil when there is none. Both alias one
// fresh buffer. A clean EOF before the frame's first byte is returned as
// io.EOF.
func ReadResponse(r io.Reader) (hdr *pb.ResponseHeader, msg []byte, cells []byte, err error) {
	frame, err := readFrame(r)
	if err != nil {
		return nil, nil, nil, err
	}
	hdr = new(pb.ResponseHeader)
	mid, cells, err := splitFrame(frame, hdr, func() uint32 { return hdr.GetCellBlockMeta().GetLength() })
	if err != nil {
		return nil, nil, nil, err
	}
	if hdr.Exception != nil {
		if len(mid) > 0 || len(cells) > 0 {
			return nil, nil, nil, fmt.Errorf("%w: %d bytes after an exception header", ErrFrame, len(mid)+len(cells))
		}
		return hdr, nil, nil, nil
	}
	if msg, err = exactlyDelimited(mid, "response message"); err != nil {
		return nil, nil, nil, err
	}
	return hdr, msg, cells, nil
}

// splitFrame decodes the delimited header at the start of frame into hdr
// and splits the rest into the part before the cellblock and the cellblock
// itself, whose length cellLen reads from the decoded header.
func splitFrame(frame []byte, hdr proto.Message, cellLen func() uint32) (mid, cells []byte, err error) {
	hb, rest, err := consumeDelimited(frame, "header")
	if err != nil {
		return nil, nil, err
	}
	if err := proto.Unmarshal(hb, hdr); err != nil {
		return nil, nil, fmt.Errorf("%w: header: %v", ErrFrame, err)
	}
	cl := uint64(cellLen())
	if cl > uint64(len(rest)) {
		return nil, nil, fmt.Errorf("%w: cellblock of %d bytes but only %d follow the header", ErrFrame, cl, len(rest))
	}
	split := len(rest) - int(cl)
	if cl > 0 {
		cells = rest[split:]
	}
	return rest[:split], cells, nil
}

func consumeDelimited(b []byte, what string) (part, rest []byte, err error) {
	if len(b) == 0 {
		return nil, nil, fmt.Errorf("%w: %s missing", ErrFrame, what)
	}
	n, k := protowire.ConsumeVarint(b)
	if k < 0 {
		return nil, nil, fmt.Errorf("%w: %s length: bad varint", ErrFrame, what)
	}
	if n > uint64(len(b)-k) {
		return nil, nil, fmt.Errorf("%w: %s of %d bytes but only %d remain", ErrFrame, what, n, len(b)-k)
	}
	end := k + int(n)
	return b[k:end:end], b[end:], nil
}

func exactlyDelimited(b []byte, what string) ([]byte, error) {
	part, rest, err := consumeDelimited(b, what)
	if err != nil {
		return nil, err
	}
	if len(rest) != 0 {
		return nil, fmt.Errorf("%w: %d stray bytes after the %s", ErrFrame, len(rest), what)
	}
	return part, nil
}

// readFrame reads the u32 length and the bytes it announces.
func readFrame(r io.Reader) ([]byte, error) {
	var lb [4]byte
	if _, err := io.ReadFull(r, lb[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(lb[:])
	if n > MaxFrameSize {
		return nil, fmt.Errorf("%w: length %d exceeds %d", ErrFrame, n, MaxFrameSize)
	}
	return readN(r, int(n))
}

// readN reads exactly n bytes. Frames up to exactFrame are read into a
// buffer of their size; larger ones grow the buffer as data arrives, so a
// length the stream does not back costs at most exactFrame or about twice
// the bytes actually received.
func readN(r io.Reader, n int) ([]byte, error) {
	if n <= exactFrame {
		b := make([]byte, n)
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, noEOF(err)
		}
		return b, nil
	}
	b := make([]byte, 0, exactFrame)
	for len(b) < n {
		if len(b) == cap(b) {
			nb := make([]byte, len(b), min(2*cap(b), n))
			copy(nb, b)
			b = nb
		}
		m, err := io.ReadFull(r, b[len(b):cap(b)])
		b = b[:len(b)+m]
		if err != nil {
			return nil, noEOF(err)
		}
	}
	return b, nil
}

// exactFrame covers a scan call filled to HBase's default 2 MiB
// max_result_size, and the cells a server lets run past it: growing such
// a frame by doubling from 64 KiB allocated and copied it twice over, the
// largest client-side cost of a scan.
const exactFrame = 3 << 20
