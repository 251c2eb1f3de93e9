package hbase

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"commentbench/hbase/pb"
	"commentbench/hbase/wire"
)

// The hand-coded GetRequest is byte for byte what proto.Marshal makes of
// the messages the Multi path builds for the same Get.
func TestAppendGetRequestIsMarshals(t *testing.T) {
	for i, g := range []Get{
		{Row: []byte("row")},
		{},
		{Row: []byte("r"), Columns: []Column{{Family: "f"}}},
		{Row: bytes.Repeat([]byte("k"), 300), Columns: []Column{{Family: "a", Qualifiers: [][]byte{[]byte("q1"), {}}}, {Family: "b"}}},
		{Row: []byte("r"), MaxVersions: 3, TimeRange: TimeRange{From: 5, To: 1 << 40}},
		{Row: []byte("r"), MaxVersions: 1, TimeRange: TimeRange{To: 7}},
		{Row: []byte("r"), TimeRange: TimeRange{From: -1, To: -1}},
		{Row: []byte("r"), Filter: RowFilter{Op: Equal, Value: []byte("r")}},
		{Row: []byte("r"), Columns: []Column{{Family: "f"}}, Filter: ColumnRangeFilter{Min: []byte("a"), MinInclusive: true}, MaxVersions: 2},
	} {
		region := []byte("t,,1.0123456789abcdef0123456789abcdef.")
		filter, err := marshalFilter(g.Filter)
		if err != nil {
			t.Fatal(err)
		}
		got := appendGetRequest([]byte("x"), region, &g, filter)
		gp, err := g.proto()
		if err != nil {
			t.Fatal(err)
		}
		want, err := proto.Marshal(&pb.GetRequest{Region: regionSpec(region), Get: gp})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, append([]byte("x"), want...)) {
			t.Errorf("get %d:\n got % x\nwant x % x", i, got, want)
		}
	}
}

// Encoding a Get and its frame allocates nothing once the buffers have
// grown.
func TestGetEncodingAllocatesNothing(t *testing.T) {
	g := Get{Row: []byte("row"), Columns: []Column{{Family: "f"}}}
	region := []byte("t,,1.0123456789abcdef0123456789abcdef.")
	var body, frame []byte
	if n := testing.AllocsPerRun(100, func() {
		body = appendGetRequest(body[:0], region, &g, nil)
		frame, _ = wire.AppendRequestFrame(frame[:0], wire.RequestHead{CallID: 9, Method: "Get", Timeout: 5000}, body, nil)
	}); n != 0 {
		t.Fatalf("%v allocations a Get", n)
	}
}

// getResult reads every GetResponse, hand-decoded or not, as decoding it
// with proto.Unmarshal and readResult does, and checks the cellblock is
// used up.
func TestGetResultIsUnmarshals(t *testing.T) {
	for i, tc := range getResponses() {
		got, gerr := getResult(tc.msg, tc.cells)
		want, werr := getResultByProto(tc.msg, tc.cells)
		if (gerr == nil) != (werr == nil) || !reflect.DeepEqual(got, want) {
			t.Errorf("response %d (% x, %d cell bytes): got %+v, %v; want %+v, %v", i, tc.msg, len(tc.cells), got, gerr, want, werr)
		}
		var re *retryableError
		if gerr != nil && !errors.As(gerr, &re) {
			t.Errorf("response %d: %v is not retryable", i, gerr)
		}
	}
}

func FuzzGetResult(f *testing.F) {
	for _, tc := range getResponses() {
		f.Add(tc.msg, tc.cells)
	}
	f.Fuzz(func(t *testing.T, msg, cells []byte) {
		got, gerr := getResult(msg, cells)
		want, werr := getResultByProto(msg, cells)
		if (gerr == nil) != (werr == nil) || !reflect.DeepEqual(got, want) {
			t.Fatalf("got %+v, %v; want %+v, %v", got, gerr, want, werr)
		}
	})
}

// getResultByProto is what getResult reads, the slow way.
func getResultByProto(msg, cells []byte) (Result, error) {
	var resp pb.GetResponse
	if err := proto.Unmarshal(msg, &resp); err != nil {
		return Result{}, err
	}
	res, rest, err := readResult(resp.GetResult(), cells)
	if err == nil && len(rest) != 0 {
		err = errors.New("unread cells")
	}
	if err != nil {
		return Result{}, err
	}
	return res, nil
}

type getResponse struct{ msg, cells []byte }

func getResponses() []getResponse {
	cell := func(q string) []byte {
		return wire.AppendCell(nil, wire.Cell{Row: []byte("r"), Family: []byte("f"), Qualifier: []byte(q), Value: []byte("v"), Timestamp: 3, Type: wire.TypePut})
	}
	two := append(cell("a"), cell("b")...)
	enc := func(r *pb.GetResponse) []byte { b, _ := proto.Marshal(r); return b }
	count := func(n int32) *pb.GetResponse {
		return &pb.GetResponse{Result: &pb.Result{AssociatedCellCount: proto.Int32(n)}}
	}
	inline := &pb.GetResponse{Result: &pb.Result{Cell: []*pb.Cell{pbCell("r", "i")}, AssociatedCellCount: proto.Int32(1)}}
	return []getResponse{
		{enc(count(2)), two},
		{enc(count(1)), two},  // a cell left over
		{enc(count(3)), two},  // a cell short
		{enc(count(-1)), two}, // negative
		{enc(count(0)), nil},
		{enc(&pb.GetResponse{}), nil},                     // no result: no row
		{enc(&pb.GetResponse{Result: &pb.Result{}}), nil}, // an empty result
		{enc(inline), cell("c")},                          // inline cells, then the cellblock's
		{append(enc(count(1)), enc(count(2))...), two},    // two results merge: the last count wins
		{enc(&pb.GetResponse{Result: &pb.Result{Exists: proto.Bool(true), Stale: proto.Bool(false), Partial: proto.Bool(false), AssociatedCellCount: proto.Int32(2)}}), two},
		{append(enc(count(2)), 0x50, 0x01), two}, // an unknown field
		{[]byte{0x0a, 0x05, 0x10}, two},          // truncated
		{[]byte{0x0a, 0x02, 0x10, 0x02, 0x0a}, two},
		{enc(count(1)), two[:10]}, // a broken cell
	}
}

// lazyDeadline sets a deadline slack past the one wanted, and again only
// when a deadline wanted falls after it, or more than slack before it.
func TestLazyDeadline(t *testing.T) {
	var set []int64
	l := lazyDeadline{set: func(t2 time.Time) error { set = append(set, t2.Unix()); return nil }}
	at := func(s int64) time.Time { return time.Unix(s, 0) }
	l.want(at(100), 10*time.Second) // sets 110
	l.want(at(105), 10*time.Second) // within: kept
	l.want(at(110), 10*time.Second) // at it: kept
	l.want(at(111), 10*time.Second) // after: sets 121
	l.want(at(100), 10*time.Second) // 21 s before: sets 110
	l.want(at(100), 0)              // 10 s before, no slack: sets 100
	l.forget()
	l.want(at(100), 0) // forgotten: sets 100 again
	if want := []int64{110, 121, 110, 100, 100}; !reflect.DeepEqual(set, want) {
		t.Fatalf("set %v, want %v", set, want)
	}
}
