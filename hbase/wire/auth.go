package wire

import (
	"encoding/binary"
	"fmt"
	"io"

	"google.golang.org/protobuf/proto"

	"commentbench/hbase/pb"
)

// A secured connection splits the preamble (§2): the 6 fixed bytes with
// the auth method go first, then the SASL exchange, and only then the
// header length and the ConnectionHeader, through the negotiated security
// layer. These write and read the two halves.

// WriteAuthPreamble writes the magic, the version and auth.
func WriteAuthPreamble(w io.Writer, auth byte) error {
	_, err := w.Write([]byte{PreambleMagic[0], PreambleMagic[1], PreambleMagic[2], PreambleMagic[3], RPCVersion, auth})
	return err
}

// WriteHeaderOnly writes the u32 length and the ConnectionHeader that
// WritePreamble would have written after the fixed bytes, with one Write.
func WriteHeaderOnly(w io.Writer, service, user string, codec bool) error {
	body, err := proto.Marshal(connectionHeader(service, user, codec))
	if err != nil {
		return fmt.Errorf("hbase wire: marshal connection header: %w", err)
	}
	buf := binary.BigEndian.AppendUint32(make([]byte, 0, 4+len(body)), uint32(len(body)))
	_, err = w.Write(append(buf, body...))
	return err
}

// ReadAuthPreamble reads the 6 fixed bytes and returns the auth method; the
// caller decides which it accepts.
func ReadAuthPreamble(r io.Reader) (byte, error) {
	var fixed [6]byte
	if _, err := io.ReadFull(r, fixed[:]); err != nil {
		return 0, fmt.Errorf("hbase wire: read preamble: %w", err)
	}
	if string(fixed[:4]) != PreambleMagic {
		return 0, fmt.Errorf("%w: magic %q, want %q", ErrBadPreamble, fixed[:4], PreambleMagic)
	}
	if fixed[4] != RPCVersion {
		return 0, fmt.Errorf("%w: RPC version %d, want %d", ErrBadPreamble, fixed[4], RPCVersion)
	}
	return fixed[5], nil
}

// ReadHeaderOnly reads what WriteHeaderOnly wrote.
func ReadHeaderOnly(r io.Reader) (*pb.ConnectionHeader, error) {
	var lb [4]byte
	if _, err := io.ReadFull(r, lb[:]); err != nil {
		return nil, fmt.Errorf("hbase wire: read connection header: %w", noEOF(err))
	}
	return readHeaderBody(r, binary.BigEndian.Uint32(lb[:]))
}
