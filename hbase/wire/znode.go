package wire

import (
	"encoding/binary"
	"errors"
	"fmt"

	"google.golang.org/protobuf/proto"
)

// ZNodeMagic is the first byte of an HBase znode payload (§5.2).
const ZNodeMagic = 0xFF

// MaxZNodeMetadata is the largest metadata length gohbase accepts; larger
// values mean the payload is not what it seems (§5.2).
const MaxZNodeMetadata = 65000

// ErrZNode reports a znode payload that does not follow §5.2's layout.
var ErrZNode = errors.New("hbase wire: malformed znode payload")

// EncodeZNode builds the payload of /hbase/meta-region-server (msg a
// pb.MetaRegionServer) or /hbase/master (a pb.Master): 0xFF, u32 length of
// id, id, "PBUF", msg. id identifies the writer (HBase uses "pid@host" and
// eight salt bytes); it must hold 1 to MaxZNodeMetadata bytes because
// readers reject anything else.
func EncodeZNode(msg proto.Message, id []byte) ([]byte, error) {
	if len(id) < 1 || len(id) > MaxZNodeMetadata {
		return nil, fmt.Errorf("hbase wire: znode metadata of %d bytes, want 1..%d", len(id), MaxZNodeMetadata)
	}
	b := make([]byte, 0, 1+4+len(id)+4+proto.Size(msg))
	b = append(b, ZNodeMagic)
	b = binary.BigEndian.AppendUint32(b, uint32(len(id)))
	b = append(b, id...)
	b = append(b, PBMagic...)
	b, err := proto.MarshalOptions{UseCachedSize: true}.MarshalAppend(b, msg)
	if err != nil {
		return nil, fmt.Errorf("hbase wire: marshal znode message: %w", err)
	}
	return b, nil
}

// DecodeZNode checks the layout EncodeZNode writes and unmarshals the
// protobuf part into msg, whose required fields must be present.
func DecodeZNode(data []byte, msg proto.Message) error {
	if len(data) < 5 || data[0] != ZNodeMagic {
		return fmt.Errorf("%w: missing 0xFF magic", ErrZNode)
	}
	n := binary.BigEndian.Uint32(data[1:])
	if n < 1 || n > MaxZNodeMetadata {
		return fmt.Errorf("%w: metadata length %d, want 1..%d", ErrZNode, n, MaxZNodeMetadata)
	}
	rest := data[5:]
	if uint64(len(rest)) < uint64(n)+4 {
		return fmt.Errorf("%w: %d bytes after the header, need %d+4", ErrZNode, len(rest), n)
	}
	rest = rest[n:]
	if string(rest[:4]) != PBMagic {
		return fmt.Errorf("%w: missing PBUF magic", ErrZNode)
	}
	if err := proto.Unmarshal(rest[4:], msg); err != nil {
		return fmt.Errorf("%w: %v", ErrZNode, err)
	}
	return nil
}
