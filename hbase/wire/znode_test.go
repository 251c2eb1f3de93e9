package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"

	"google.golang.org/protobuf/proto"

	"commentbench/hbase/pb"
)

func TestZNodeLayout(t *testing.T) {
	msg := &pb.MetaRegionServer{
		Server: &pb.ServerName{HostName: proto.String("rs1"), Port: proto.Uint32(16020), StartCode: proto.Uint64(9)},
		State:  pb.RegionState_OPEN.Enum(),
	}
	id := []byte("123@host\x01\x02\x03\x04\x05\x06\x07\x08")
	data, err := EncodeZNode(msg, id)
	if err != nil {
		t.Fatal(err)
	}
	pbBytes, _ := proto.Marshal(msg)
	var want []byte
	want = append(want, 0xFF)
	want = binary.BigEndian.AppendUint32(want, uint32(len(id)))
	want = append(want, id...)
	want = append(want, 0x50, 0x42, 0x55, 0x46)
	want = append(want, pbBytes...)
	if !bytes.Equal(data, want) {
		t.Fatalf("payload\n got % x\nwant % x", data, want)
	}
	if binary.BigEndian.Uint32([]byte(PBMagic)) != 1346524486 {
		t.Fatal("PBUF is not 1346524486")
	}
	var got pb.MetaRegionServer
	if err := DecodeZNode(data, &got); err != nil || !proto.Equal(&got, msg) {
		t.Fatalf("decoded %v %v", &got, err)
	}
	var m pb.Master
	masterData, err := EncodeZNode(&pb.Master{Master: &pb.ServerName{HostName: proto.String("m"), Port: proto.Uint32(16000)}}, []byte{1})
	if err != nil || DecodeZNode(masterData, &m) != nil || m.GetMaster().GetPort() != 16000 {
		t.Fatalf("master znode: %v %v", &m, err)
	}
}

func TestZNodeRejects(t *testing.T) {
	good, err := EncodeZNode(&pb.Master{Master: &pb.ServerName{HostName: proto.String("m")}}, []byte("id"))
	if err != nil {
		t.Fatal(err)
	}
	with := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(good)) }
	noHost, err := proto.MarshalOptions{AllowPartial: true}.Marshal(&pb.Master{Master: &pb.ServerName{Port: proto.Uint32(1)}})
	if err != nil || len(noHost) == 0 {
		t.Fatal(err)
	}
	cases := map[string][]byte{
		"empty":            nil,
		"no 0xFF":          good[1:],
		"wrong magic":      with(func(b []byte) []byte { b[0] = 0xFE; return b }),
		"zero metadata":    with(func(b []byte) []byte { b[4] = 0; return b }),
		"metadata > 65000": with(func(b []byte) []byte { binary.BigEndian.PutUint32(b[1:], 65001); return b }),
		"metadata overruns": with(func(b []byte) []byte {
			binary.BigEndian.PutUint32(b[1:], uint32(len(b)))
			return b
		}),
		"no PBUF":          with(func(b []byte) []byte { b[7] = 'X'; return b }),
		"truncated PBUF":   good[:9],
		"bad protobuf":     append(bytes.Clone(good[:11]), 0x0a, 0x05),
		"required missing": append(bytes.Clone(good[:11]), noHost...),
	}
	for name, in := range cases {
		var m pb.Master
		if err := DecodeZNode(in, &m); !errors.Is(err, ErrZNode) {
			t.Errorf("%s: %v", name, err)
		}
	}
	for _, id := range [][]byte{nil, make([]byte, MaxZNodeMetadata+1)} {
		if _, err := EncodeZNode(&pb.Master{Master: &pb.ServerName{HostName: proto.String("m")}}, id); err == nil {
			t.Errorf("metadata of %d bytes accepted", len(id))
		}
	}
}
