package wire

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"google.golang.org/protobuf/proto"

	"commentbench/hbase/pb"
)

// §2 byte by byte: HBas 00 50, u32 length, then the ConnectionHeader fields
// in tag order: user_info{effective_user}, service_name, codec class.
func TestPreambleBytes(t *testing.T) {
	var buf bytes.Buffer
	if err := WritePreamble(&buf, ServiceClient, "root", true); err != nil {
		t.Fatal(err)
	}
	var want []byte
	want = append(want, 'H', 'B', 'a', 's', 0x00, 0x50)
	want = append(want, 0x00, 0x00, 0x00, 0x44) // 8 + 15 + 45 header bytes
	want = append(want, 0x0a, 0x06, 0x0a, 0x04, 'r', 'o', 'o', 't')
	want = append(want, 0x12, 0x0d)
	want = append(want, "ClientService"...)
	want = append(want, 0x1a, 0x2b)
	want = append(want, "org.apache.hadoop.hbase.codec.KeyValueCodec"...)
	got := buf.Bytes()
	if len(got) != len(want) {
		t.Fatalf("preamble is %d bytes, want %d:\n got % x\nwant % x", len(got), len(want), got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("byte %d = %#02x, want %#02x\n got % x\nwant % x", i, got[i], want[i], got, want)
		}
	}

	hdr, err := ReadPreamble(bytes.NewReader(got))
	if err != nil {
		t.Fatal(err)
	}
	if hdr.GetServiceName() != ServiceClient || hdr.GetUserInfo().GetEffectiveUser() != "root" ||
		hdr.GetCellBlockCodecClass() != KeyValueCodec {
		t.Fatalf("read back %v", hdr)
	}
}

func TestPreambleWithoutCodec(t *testing.T) {
	var buf bytes.Buffer
	if err := WritePreamble(&buf, ServiceMaster, "u", false); err != nil {
		t.Fatal(err)
	}
	hdr, err := ReadPreamble(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if hdr.CellBlockCodecClass != nil || hdr.GetServiceName() != ServiceMaster {
		t.Fatalf("read back %v", hdr)
	}
}

func TestPreambleRejects(t *testing.T) {
	var good bytes.Buffer
	if err := WritePreamble(&good, ServiceClient, "root", true); err != nil {
		t.Fatal(err)
	}
	mutate := func(i int, b byte) []byte {
		p := bytes.Clone(good.Bytes())
		p[i] = b
		return p
	}
	noUser, _ := proto.Marshal(&pb.ConnectionHeader{ServiceName: proto.String("x")})
	cases := map[string]struct {
		in      []byte
		wantBad bool
	}{
		"magic":      {mutate(0, 'h'), true},
		"version":    {mutate(4, 1), true},
		"kerberos":   {mutate(5, 0x51), true},
		"huge":       {mutate(6, 0x7f), true},
		"garbage":    {append([]byte("HBas\x00\x50\x00\x00\x00\x02"), 0xff, 0xff), true},
		"truncated":  {good.Bytes()[:20], false},
		"short":      {[]byte("HBa"), false},
		"user unset": {append([]byte("HBas\x00\x50\x00\x00\x00\x05"), append([]byte{0x0a, 0x00}, noUser[:3]...)...), true},
	}
	for name, c := range cases {
		_, err := ReadPreamble(bytes.NewReader(c.in))
		if err == nil {
			t.Errorf("%s: accepted", name)
			continue
		}
		if c.wantBad != errors.Is(err, ErrBadPreamble) {
			t.Errorf("%s: %v", name, err)
		}
		if !c.wantBad && !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("%s: %v, want unexpected EOF", name, err)
		}
	}
}
