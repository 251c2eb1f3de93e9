package wire

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"commentbench/hbase/pb"
)

// The hand-written request frame is byte for byte WriteRequest's.
func TestAppendRequestFrameIsWriteRequests(t *testing.T) {
	cells := AppendCell(nil, Cell{Row: []byte("r"), Family: []byte("cf"), Qualifier: []byte("q"), Timestamp: 1, Type: TypePut, Value: []byte("v")})
	big := bytes.Repeat(cells, 5000) // a cellblock length of three varint bytes
	for _, tc := range []struct {
		h     RequestHead
		cells []byte
	}{
		{RequestHead{CallID: 7, Method: "Get"}, nil},
		{RequestHead{CallID: 1 << 31, Method: "Get", Timeout: 30000}, nil},
		{RequestHead{CallID: 3, Method: "Mutate", Timeout: 1}, cells},
		{RequestHead{CallID: 300, Method: "Multi"}, big},
		{RequestHead{CallID: 1, Method: ""}, nil},
	} {
		body, _ := proto.Marshal(getRequest())
		got, err := AppendRequestFrame([]byte("prefix"), tc.h, body, tc.cells)
		if err != nil {
			t.Fatal(err)
		}
		hdr := &pb.RequestHeader{CallId: proto.Uint32(tc.h.CallID), MethodName: proto.String(tc.h.Method)}
		if tc.h.Timeout > 0 {
			hdr.Timeout = proto.Uint32(tc.h.Timeout)
		}
		var want bytes.Buffer
		if err := WriteRequest(&want, hdr, getRequest(), tc.cells); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, append([]byte("prefix"), want.Bytes()...)) {
			t.Fatalf("%+v:\n got % x\nwant prefix % x", tc.h, got, want.Bytes())
		}
	}
}

// SplitResponse reads exactly what ReadResponse reads, and refuses what it
// refuses, on the fuzz seeds and on headers with fields out of the usual
// order, repeated, unknown or of an unexpected wire type.
func TestSplitResponseIsReadResponses(t *testing.T) {
	var frames [][]byte
	f := &seedSink{}
	frameSeeds(f)
	frames = append(frames, f.seeds...)
	for _, hdr := range oddHeaders() {
		body := protowire.AppendVarint(nil, uint64(len(hdr)))
		body = append(body, hdr...)
		body = append(body, 2, 0x0a, 0) // a message of an empty result
		body = append(body, "cell"...)
		frames = append(frames, append(binary.BigEndian.AppendUint32(nil, uint32(len(body))), body...))
	}
	for i, fr := range frames {
		compareResponseReaders(t, i, fr)
	}
}

// FuzzSplitResponse holds SplitResponse to ReadResponse on any input.
func FuzzSplitResponse(f *testing.F) {
	frameSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) { compareResponseReaders(t, 0, data) })
}

func compareResponseReaders(t *testing.T, i int, data []byte) {
	t.Helper()
	wh, wmsg, wcells, werr := ReadResponse(bytes.NewReader(data))
	fr, gerr := ReadFrame(bufio.NewReader(bytes.NewReader(data)))
	var gh ResponseHead
	var gmsg, gcells []byte
	if gerr == nil {
		gh, gmsg, gcells, gerr = SplitResponse(fr)
	}
	if (werr == nil) != (gerr == nil) {
		t.Fatalf("frame %d (% x): ReadResponse %v, SplitResponse %v", i, data, werr, gerr)
	}
	if werr != nil {
		return
	}
	if gh.CallID != wh.GetCallId() || gh.HasCallID != (wh.CallId != nil) || !proto.Equal(gh.Exception, wh.Exception) ||
		(gh.Exception == nil) != (wh.Exception == nil) || !bytes.Equal(gmsg, wmsg) || (gmsg == nil) != (wmsg == nil) ||
		!bytes.Equal(gcells, wcells) || (gcells == nil) != (wcells == nil) {
		t.Fatalf("frame %d: got %+v % x % x, want %v % x % x", i, gh, gmsg, gcells, wh, wmsg, wcells)
	}
}

// oddHeaders are ResponseHeaders for a frame whose message is 2 bytes and
// whose cellblock is "cell" (4 bytes), encoded unusually.
func oddHeaders() [][]byte {
	meta := func(n uint64) []byte {
		return protowire.AppendBytes([]byte{3<<3 | 2}, protowire.AppendVarint([]byte{1 << 3}, n))
	}
	exc, _ := proto.Marshal(&pb.ExceptionResponse{ExceptionClassName: proto.String(ExcIO), StackTrace: proto.String("t")})
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	return [][]byte{
		cat(meta(4), []byte{1 << 3, 5}),                       // cell_block_meta before call_id
		cat([]byte{1 << 3, 5, 1 << 3, 6}, meta(9), meta(4)),   // repeated: the last wins
		cat([]byte{1<<3 | 2, 1, 'x'}, meta(4)),                // call_id as bytes: unknown
		cat([]byte{9 << 3, 1, 1 << 3, 5}, meta(4)),            // unknown field
		cat([]byte{1 << 3, 5}, meta(4), []byte{3<<3 | 2, 0}),  // an empty meta keeps the length
		cat([]byte{1 << 3, 5}, meta(5)),                       // cellblock eats the message's last byte
		cat([]byte{1 << 3, 5}, meta(50)),                      // cellblock longer than the frame
		cat([]byte{1 << 3, 5, 2<<3 | 2, byte(len(exc))}, exc), // exception with a body after it
		cat([]byte{1 << 3, 5, 2<<3 | 2, 2, 0xff, 0xff}),       // a broken exception
		cat([]byte{1 << 3, 5, 3<<3 | 2, 2, 0x08, 0xff}),       // a broken meta
		cat([]byte{1 << 3}),                                   // a tag without its value
		{},
	}
}

// seedSink collects what frameSeeds adds, to run without the fuzzer.
type seedSink struct{ seeds [][]byte }

func (s *seedSink) Add(args ...any) { s.seeds = append(s.seeds, args[0].([]byte)) }
