package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"google.golang.org/protobuf/proto"

	"commentbench/hbase/pb"
)

// Service names a connection can be bound to (§1.1). A connection serves
// exactly one of them, so both ends compare these strings.
const (
	ServiceClient     = "ClientService"
	ServiceMaster     = "MasterService"
	ServiceClientMeta = "ClientMetaService"
)

// KeyValueCodec is the only cellblock codec this project speaks; announcing
// it in the ConnectionHeader tells the server results may travel in
// cellblocks instead of inline protobuf (§2, §3.3).
const KeyValueCodec = "org.apache.hadoop.hbase.codec.KeyValueCodec"

// Preamble constants (§2): the magic, RPC version 0 and SIMPLE auth. Other
// auth methods (Kerberos 81, token 82) are out of scope and rejected.
const (
	PreambleMagic = "HBas"
	RPCVersion    = 0
	AuthSimple    = 0x50
)

// MaxConnectionHeaderSize bounds the ConnectionHeader a server will read, so
// a peer that is not an HBase client cannot make it allocate much.
const MaxConnectionHeaderSize = 1 << 20

// WritePreamble opens a connection the way a SIMPLE-auth HBase client does:
// magic, version, auth byte, then the ConnectionHeader for service as user.
// With codec the header announces KeyValueCodec, which makes the server
// answer with cellblocks. Nothing comes back from the server.
func WritePreamble(w io.Writer, service, user string, codec bool) error {
	return WriteConnectionHeader(w, connectionHeader(service, user, codec))
}

// connectionHeader is the header a client of service as user sends, with
// KeyValueCodec when codec.
func connectionHeader(service, user string, codec bool) *pb.ConnectionHeader {
	hdr := &pb.ConnectionHeader{
		UserInfo:    &pb.UserInformation{EffectiveUser: proto.String(user)},
		ServiceName: proto.String(service),
	}
	if codec {
		hdr.CellBlockCodecClass = proto.String(KeyValueCodec)
	}
	return hdr
}

// WriteConnectionHeader is WritePreamble for callers that need fields
// WritePreamble does not set (version info, attributes). It writes the whole
// preamble with one Write.
func WriteConnectionHeader(w io.Writer, hdr *pb.ConnectionHeader) error {
	body, err := proto.Marshal(hdr)
	if err != nil {
		return fmt.Errorf("hbase wire: marshal connection header: %w", err)
	}
	if len(body) > MaxConnectionHeaderSize {
		return fmt.Errorf("hbase wire: connection header of %d bytes exceeds %d", len(body), MaxConnectionHeaderSize)
	}
	buf := make([]byte, 0, 10+len(body))
	buf = append(buf, PreambleMagic...)
	buf = append(buf, RPCVersion, AuthSimple)
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(body)))
	buf = append(buf, body...)
	_, err = w.Write(buf)
	return err
}

// ErrBadPreamble reports a peer that did not open with a SIMPLE-auth HBase
// preamble; a server closes such connections (§2).
var ErrBadPreamble = errors.New("hbase wire: bad connection preamble")

// ReadPreamble reads what WritePreamble wrote. It checks only the fixed
// bytes and that the header decodes (including its required fields); which
// services and codecs are acceptable is the server's decision.
func ReadPreamble(r io.Reader) (*pb.ConnectionHeader, error) {
	auth, err := ReadAuthPreamble(r)
	if err != nil {
		return nil, err
	}
	if auth != AuthSimple {
		return nil, fmt.Errorf("%w: auth method %#x, want SIMPLE %#x", ErrBadPreamble, auth, AuthSimple)
	}
	return ReadHeaderOnly(r)
}

// readHeaderBody reads a ConnectionHeader of n bytes.
func readHeaderBody(r io.Reader, n uint32) (*pb.ConnectionHeader, error) {
	if n > MaxConnectionHeaderSize {
		return nil, fmt.Errorf("%w: connection header length %d exceeds %d", ErrBadPreamble, n, MaxConnectionHeaderSize)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, fmt.Errorf("hbase wire: read connection header: %w", noEOF(err))
	}
	hdr := new(pb.ConnectionHeader)
	if err := proto.Unmarshal(body, hdr); err != nil {
		return nil, fmt.Errorf("%w: connection header: %v", ErrBadPreamble, err)
	}
	return hdr, nil
}

// noEOF turns a clean EOF in the middle of a unit into the error it really
// is: a truncated unit.
func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
