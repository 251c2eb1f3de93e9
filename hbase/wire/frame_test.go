package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"runtime"
	"testing"

	"google.golang.org/protobuf/proto"

	"commentbench/hbase/pb"
)

func getRequest() *pb.GetRequest {
	return &pb.GetRequest{
		Region: &pb.RegionSpecifier{Type: pb.RegionSpecifier_REGION_NAME.Enum(), Value: []byte("r")},
		Get:    &pb.Get{Row: []byte("k")},
	}
}

// countingWriter records how many Write calls a frame took.
type countingWriter struct {
	bytes.Buffer
	writes int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes++
	return w.Buffer.Write(p)
}

// §3.1: u32 total, varint header length, header, varint param length, param.
func TestRequestFrameBytes(t *testing.T) {
	var w countingWriter
	hdr := &pb.RequestHeader{CallId: proto.Uint32(7), MethodName: proto.String("Get")}
	if err := WriteRequest(&w, hdr, getRequest(), nil); err != nil {
		t.Fatal(err)
	}
	want := []byte{
		0x00, 0x00, 0x00, 0x17, // 23 bytes follow
		0x09,                                              // header length
		0x08, 0x07, 0x1a, 0x03, 'G', 'e', 't', 0x20, 0x01, // call_id 7, "Get", request_param
		0x0c,                                                                 // param length
		0x0a, 0x05, 0x08, 0x01, 0x12, 0x01, 'r', 0x12, 0x03, 0x0a, 0x01, 'k', // GetRequest
	}
	if !bytes.Equal(w.Bytes(), want) {
		t.Fatalf("frame\n got % x\nwant % x", w.Bytes(), want)
	}
	if w.writes != 1 {
		t.Fatalf("frame took %d writes", w.writes)
	}

	rh, param, cells, err := ReadRequest(bytes.NewReader(w.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if rh.GetCallId() != 7 || rh.GetMethodName() != "Get" || !rh.GetRequestParam() || cells != nil {
		t.Fatalf("header %v cells %x", rh, cells)
	}
	var got pb.GetRequest
	if err := proto.Unmarshal(param, &got); err != nil || !proto.Equal(&got, getRequest()) {
		t.Fatalf("param %v (%v)", &got, err)
	}
}

func TestRequestWithCells(t *testing.T) {
	cells := AppendCell(nil, Cell{Row: []byte("r"), Family: []byte("cf"), Qualifier: []byte("q"), Timestamp: 1, Type: TypePut, Value: []byte("v")})
	cells = AppendCell(cells, Cell{Row: []byte("r"), Family: []byte("cf"), Timestamp: LatestTimestamp, Type: TypeDeleteFamily})
	mut := &pb.MutateRequest{
		Region:   getRequest().Region,
		Mutation: &pb.MutationProto{Row: []byte("r"), MutateType: pb.MutationProto_PUT.Enum(), AssociatedCellCount: proto.Int32(2)},
	}
	var buf bytes.Buffer
	// A stale cell_block_meta from the caller must be corrected.
	hdr := &pb.RequestHeader{CallId: proto.Uint32(1), MethodName: proto.String("Mutate"),
		CellBlockMeta: &pb.CellBlockMeta{Length: proto.Uint32(3)}}
	if err := WriteRequest(&buf, hdr, mut, cells); err != nil {
		t.Fatal(err)
	}
	// A second frame on the same stream must be read independently.
	if err := WriteRequest(&buf, &pb.RequestHeader{CallId: proto.Uint32(2), MethodName: proto.String("Get")}, getRequest(), nil); err != nil {
		t.Fatal(err)
	}
	r := bytes.NewReader(buf.Bytes())
	rh, param, gotCells, err := ReadRequest(r)
	if err != nil {
		t.Fatal(err)
	}
	if rh.GetCellBlockMeta().GetLength() != uint32(len(cells)) || !bytes.Equal(gotCells, cells) {
		t.Fatalf("cellblock meta %v, cells % x", rh.GetCellBlockMeta(), gotCells)
	}
	var m pb.MutateRequest
	if err := proto.Unmarshal(param, &m); err != nil || m.GetMutation().GetAssociatedCellCount() != 2 {
		t.Fatalf("param %v (%v)", &m, err)
	}
	cs, rest, err := ReadCells(gotCells, 2)
	if err != nil || len(rest) != 0 || cs[1].Type != TypeDeleteFamily || cs[1].Timestamp != LatestTimestamp {
		t.Fatalf("cells %+v rest %x err %v", cs, rest, err)
	}
	rh, _, gotCells, err = ReadRequest(r)
	if err != nil || rh.GetCallId() != 2 || gotCells != nil {
		t.Fatalf("second frame: %v %x %v", rh, gotCells, err)
	}
	if _, _, _, err := ReadRequest(r); err != io.EOF {
		t.Fatalf("after the last frame: %v, want io.EOF", err)
	}
}

// §3.2 with a cellblock: the cellblock is the last cell_block_meta.length bytes.
func TestResponseFrame(t *testing.T) {
	cell := AppendCell(nil, Cell{Row: []byte("r"), Family: []byte("cf"), Qualifier: []byte("q"), Timestamp: 1, Type: TypePut, Value: []byte("v")})
	msg := &pb.GetResponse{Result: &pb.Result{AssociatedCellCount: proto.Int32(1)}}
	var w countingWriter
	if err := WriteResponse(&w, &pb.ResponseHeader{CallId: proto.Uint32(7)}, msg, cell); err != nil {
		t.Fatal(err)
	}
	want := []byte{0x00, 0x00, 0x00, 0x29, // 1+6 + 1+4 + 29 = 41
		0x06, 0x08, 0x07, 0x1a, 0x02, 0x08, 0x1d, // call_id 7, cell_block_meta{29}
		0x04, 0x0a, 0x02, 0x10, 0x01, // GetResponse{result{associated_cell_count 1}}
	}
	want = append(want, cell...)
	if !bytes.Equal(w.Bytes(), want) || w.writes != 1 {
		t.Fatalf("frame (%d writes)\n got % x\nwant % x", w.writes, w.Bytes(), want)
	}
	hdr, body, cells, err := ReadResponse(bytes.NewReader(w.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	var got pb.GetResponse
	if err := proto.Unmarshal(body, &got); err != nil || !proto.Equal(&got, msg) || hdr.GetCallId() != 7 {
		t.Fatalf("got %v %v (%v)", hdr, &got, err)
	}
	cs, rest, err := ReadCells(cells, int(got.GetResult().GetAssociatedCellCount()))
	if err != nil || len(rest) != 0 || string(cs[0].Value) != "v" {
		t.Fatalf("cells %+v rest %x: %v", cs, rest, err)
	}
}

func TestResponseEmptyMessageAndException(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteResponse(&buf, &pb.ResponseHeader{CallId: proto.Uint32(3)}, &pb.MutateResponse{}, nil); err != nil {
		t.Fatal(err)
	}
	if want := []byte{0, 0, 0, 4, 2, 0x08, 0x03, 0}; !bytes.Equal(buf.Bytes(), want) {
		t.Fatalf("empty message frame % x, want % x", buf.Bytes(), want)
	}
	_, body, cells, err := ReadResponse(&buf)
	if err != nil || body == nil || len(body) != 0 || cells != nil {
		t.Fatalf("body %v cells %v err %v", body, cells, err)
	}

	ex := &pb.ResponseHeader{CallId: proto.Uint32(4), Exception: &pb.ExceptionResponse{
		ExceptionClassName: proto.String(ExcNotServingRegion), StackTrace: proto.String("t1,,1.x. is not online"),
	}}
	if err := WriteResponse(&buf, ex, nil, nil); err != nil {
		t.Fatal(err)
	}
	hdr, body, cells, err := ReadResponse(&buf)
	if err != nil || body != nil || cells != nil || hdr.GetException().GetExceptionClassName() != ExcNotServingRegion {
		t.Fatalf("%v %v %v %v", hdr, body, cells, err)
	}
}

func TestWriteRejects(t *testing.T) {
	w := io.Discard
	id := proto.Uint32(1)
	full := &pb.ExceptionResponse{ExceptionClassName: proto.String(ExcIO), StackTrace: proto.String("x")}
	cases := map[string]error{
		"request without call id":  WriteRequest(w, &pb.RequestHeader{}, getRequest(), nil),
		"request without message":  WriteRequest(w, &pb.RequestHeader{CallId: id}, nil, nil),
		"request missing required": WriteRequest(w, &pb.RequestHeader{CallId: id}, &pb.GetRequest{}, nil),
		"response without call id": WriteResponse(w, &pb.ResponseHeader{}, &pb.GetResponse{}, nil),
		"success without message":  WriteResponse(w, &pb.ResponseHeader{CallId: id}, nil, nil),
		"exception with message":   WriteResponse(w, &pb.ResponseHeader{CallId: id, Exception: full}, &pb.GetResponse{}, nil),
		"exception with cells":     WriteResponse(w, &pb.ResponseHeader{CallId: id, Exception: full}, nil, []byte{1}),
		"exception without trace": WriteResponse(w, &pb.ResponseHeader{CallId: id,
			Exception: &pb.ExceptionResponse{ExceptionClassName: proto.String(ExcIO)}}, nil, nil),
	}
	for name, err := range cases {
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// frame assembles a raw frame from parts, with total computed unless given.
func frame(parts ...[]byte) []byte {
	body := bytes.Join(parts, nil)
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(body))), body...)
}

func delimited(b []byte) []byte { return append([]byte{byte(len(b))}, b...) }

func TestReadRejects(t *testing.T) {
	mustMarshal := func(m proto.Message) []byte {
		b, err := proto.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	okHdr := mustMarshal(&pb.ResponseHeader{CallId: proto.Uint32(1)})
	cbHdr := mustMarshal(&pb.ResponseHeader{CallId: proto.Uint32(1), CellBlockMeta: &pb.CellBlockMeta{Length: proto.Uint32(10)}})
	exHdr := mustMarshal(&pb.ResponseHeader{CallId: proto.Uint32(1), Exception: &pb.ExceptionResponse{}})
	reqHdr := mustMarshal(&pb.RequestHeader{CallId: proto.Uint32(1), RequestParam: proto.Bool(true)})
	tooBig := binary.BigEndian.AppendUint32(nil, MaxFrameSize+1)

	responses := map[string][]byte{
		"too big":               tooBig,
		"empty frame":           frame(),
		"header overruns":       frame([]byte{0x40}, okHdr),
		"bad varint":            frame([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}),
		"undecodable header":    frame(delimited([]byte{0x08})),
		"no message":            frame(delimited(okHdr)),
		"message overruns":      frame(delimited(okHdr), []byte{5, 0}),
		"stray bytes":           frame(delimited(okHdr), []byte{0, 0}),
		"cellblock overruns":    frame(delimited(cbHdr), []byte{0}, make([]byte, 5)),
		"cellblock stray bytes": frame(delimited(cbHdr), []byte{0, 9}, make([]byte, 10)),
		"exception with body":   frame(delimited(exHdr), []byte{0}),
		"truncated":             frame(delimited(okHdr), []byte{0})[:5],
	}
	for name, in := range responses {
		_, _, _, err := ReadResponse(bytes.NewReader(in))
		t.Logf("response %s: %v", name, err)
		if err == nil {
			t.Errorf("response %s: accepted", name)
		} else if name == "truncated" && !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("response %s: %v, want unexpected EOF", name, err)
		}
	}
	requests := map[string][]byte{
		"too big":         tooBig,
		"param missing":   frame(delimited(reqHdr)),
		"param overruns":  frame(delimited(reqHdr), []byte{3, 0}),
		"stray after msg": frame(delimited(reqHdr), []byte{0, 1}),
	}
	for name, in := range requests {
		_, _, _, err := ReadRequest(bytes.NewReader(in))
		t.Logf("request %s: %v", name, err)
		if err == nil {
			t.Errorf("request %s: accepted", name)
		}
	}
}

// A garbage length just under the bound, backed by few bytes, must not
// allocate anywhere near what it claims.
func TestReadFrameAllocation(t *testing.T) {
	in := append(binary.BigEndian.AppendUint32(nil, MaxFrameSize), make([]byte, 100<<10)...)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _, _, err := ReadResponse(bytes.NewReader(in))
	runtime.ReadMemStats(&after)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("err %v, want unexpected EOF", err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 4<<20 {
		t.Fatalf("allocated %d bytes for a 100 KiB stream", n)
	}
}
