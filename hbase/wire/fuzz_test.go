package wire

import (
	"bytes"
	"encoding/binary"
	"testing"

	"google.golang.org/protobuf/proto"

	"commentbench/hbase/pb"
)

// The fuzz targets run as ordinary tests on their seeds; with -fuzz they
// look for inputs that panic. Every decoder must return an error instead,
// and allocate in proportion to its input.

func FuzzReadCells(f *testing.F) {
	one := AppendCell(nil, Cell{Row: []byte("r"), Family: []byte("cf"), Qualifier: []byte("q"), Timestamp: 1, Type: TypePut, Value: []byte("v")})
	two := AppendCell(bytes.Clone(one), Cell{Row: []byte("row"), Family: []byte("f"), Type: TypeDeleteFamily})
	f.Add(one, 1)
	f.Add(two, 2)
	f.Add(two, 3)
	f.Add(one[:20], 1)
	f.Add([]byte{}, 0)
	f.Add(bytes.Repeat([]byte{0xff}, 64), 2)
	f.Add(one, -1)
	f.Fuzz(func(t *testing.T, block []byte, n int) {
		cells, rest, err := ReadCells(block, n)
		if err != nil {
			return
		}
		if len(cells) != n {
			t.Fatalf("%d cells for n=%d", len(cells), n)
		}
		// What decodes re-encodes to the same bytes.
		var enc []byte
		for _, c := range cells {
			enc = AppendCell(enc, c)
		}
		if !bytes.Equal(append(enc, rest...), block) {
			t.Fatalf("re-encoding differs")
		}
	})
}

func frameSeeds(f interface{ Add(args ...any) }) {
	var buf bytes.Buffer
	cells := AppendCell(nil, Cell{Row: []byte("r"), Family: []byte("cf"), Type: TypePut, Value: []byte("v")})
	_ = WriteRequest(&buf, &pb.RequestHeader{CallId: proto.Uint32(1), MethodName: proto.String("Get")}, getRequest(), nil)
	f.Add(bytes.Clone(buf.Bytes()))
	buf.Reset()
	_ = WriteRequest(&buf, &pb.RequestHeader{CallId: proto.Uint32(2), MethodName: proto.String("Multi")}, &pb.MultiRequest{}, cells)
	f.Add(bytes.Clone(buf.Bytes()))
	buf.Reset()
	_ = WriteResponse(&buf, &pb.ResponseHeader{CallId: proto.Uint32(1)}, &pb.GetResponse{Result: &pb.Result{AssociatedCellCount: proto.Int32(1)}}, cells)
	f.Add(bytes.Clone(buf.Bytes()))
	buf.Reset()
	_ = WriteResponse(&buf, &pb.ResponseHeader{CallId: proto.Uint32(1), Exception: &pb.ExceptionResponse{
		ExceptionClassName: proto.String(ExcIO), StackTrace: proto.String("x")}}, nil, nil)
	f.Add(bytes.Clone(buf.Bytes()))
	f.Add(binary.BigEndian.AppendUint32(nil, MaxFrameSize))
	f.Add(binary.BigEndian.AppendUint32(nil, 0xffffffff))
	f.Add([]byte{0, 0, 0, 3, 0x40, 0, 0})
	f.Add([]byte{})
}

func FuzzReadRequest(f *testing.F) {
	frameSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		hdr, param, cells, err := ReadRequest(bytes.NewReader(data))
		if err != nil {
			return
		}
		if uint64(len(cells)) != uint64(hdr.GetCellBlockMeta().GetLength()) {
			t.Fatalf("cellblock %d bytes, header says %d", len(cells), hdr.GetCellBlockMeta().GetLength())
		}
		if len(param)+len(cells) > len(data) {
			t.Fatal("parts larger than input")
		}
	})
}

func FuzzReadResponse(f *testing.F) {
	frameSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		hdr, msg, cells, err := ReadResponse(bytes.NewReader(data))
		if err != nil {
			return
		}
		if hdr.Exception != nil && (msg != nil || cells != nil) {
			t.Fatal("exception response with a body")
		}
		if hdr.Exception == nil && msg == nil {
			t.Fatal("success response without a message")
		}
	})
}

func FuzzParseRegionName(f *testing.F) {
	f.Add(RegionName("t1", []byte("row5"), 1700000000000))
	f.Add(RegionName("ns:t", []byte("a,b,"), 0))
	f.Add([]byte(MetaRegionName))
	f.Add([]byte("t,,1."))
	f.Add([]byte("dummy"))
	f.Add([]byte(",,"))
	f.Fuzz(func(t *testing.T, name []byte) {
		table, start, id, err := ParseRegionName(name)
		if err != nil {
			return
		}
		if _, err := EncodedRegionName(name); err == nil {
			// New format: the name is exactly what RegionName builds.
			if got := RegionName(table, start, id); !bytes.Equal(got, name) && string(name) != MetaRegionName {
				t.Fatalf("%q re-builds as %q", name, got)
			}
		}
	})
}

func FuzzCompareMetaKeys(f *testing.F) {
	f.Add([]byte("t,a,1"), []byte("t,a\x01,:"))
	f.Add([]byte("t"), []byte("t,,1"))
	f.Add([]byte(""), []byte(","))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		if CompareMetaKeys(a, b) != -CompareMetaKeys(b, a) {
			t.Fatalf("not antisymmetric on %q, %q", a, b)
		}
		if CompareMetaKeys(a, a) != 0 {
			t.Fatalf("%q != itself", a)
		}
	})
}

func FuzzDecodeZNode(f *testing.F) {
	good, _ := EncodeZNode(&pb.MetaRegionServer{Server: &pb.ServerName{HostName: proto.String("h"), Port: proto.Uint32(1)}}, []byte("1@h"))
	f.Add(good)
	f.Add(good[:8])
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{0xff, 0, 0, 0, 1, 'x', 'P', 'B', 'U', 'F'})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		var m pb.MetaRegionServer
		if DecodeZNode(data, &m) == nil && m.GetServer().HostName == nil {
			t.Fatal("decoded without the required host name")
		}
	})
}
