package hbase

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"commentbench/hbase/pb"
	"commentbench/hbase/wire"
)

// fakeOneRegion serves the registry, a meta holding one region covering
// table "t", and hands data Scan requests to scan.
func fakeOneRegion(t *testing.T, scan func(rc *respConn, id uint32, req *pb.ScanRequest)) *responder {
	return fakeRegions(t, nil, func(rc *respConn, req request) {
		var sr pb.ScanRequest
		if req.hdr.GetMethodName() != "Scan" || proto.Unmarshal(req.param, &sr) != nil {
			_ = rc.fail(req.hdr.GetCallId(), wire.ExcDoNotRetryIO)
			return
		}
		scan(rc, req.hdr.GetCallId(), &sr)
	})
}

// fakeRegions serves the registry and a meta whose table "t" is split at
// splits (region id 1), all on this one address; meta lookups are answered
// by direct computation in the cellblock form. Other calls go to handle.
func fakeRegions(t *testing.T, splits []string, handle func(rc *respConn, req request)) *responder {
	var s *responder
	bounds := append(append([]string{""}, splits...), "")
	s = newResponder(t, func(rc *respConn, req request) {
		id := req.hdr.GetCallId()
		host, portStr, _ := net.SplitHostPort(s.addr())
		port, _ := strconv.Atoi(portStr)
		sn := &pb.ServerName{HostName: proto.String(host), Port: proto.Uint32(uint32(port))}
		switch req.hdr.GetMethodName() {
		case "GetMetaRegionLocations":
			_ = rc.reply(id, &pb.GetMetaRegionLocationsResponse{MetaLocations: []*pb.RegionLocation{{
				RegionInfo: &pb.RegionInfo{RegionId: proto.Uint64(1), TableName: wire.TableFromText(wire.MetaTable)},
				ServerName: sn, SeqNum: proto.Int64(1),
			}}}, nil)
			return
		case "GetActiveMaster":
			_ = rc.reply(id, &pb.GetActiveMasterResponse{ServerName: sn}, nil)
			return
		case "Scan":
			var sr pb.ScanRequest
			if err := proto.Unmarshal(req.param, &sr); err != nil {
				t.Error(err)
				return
			}
			if string(sr.GetRegion().GetValue()) != wire.MetaRegionName {
				break
			}
			table, key, err := wire.ParseMetaLookupKey(sr.GetScan().GetStartRow())
			if err != nil || table != "t" {
				_ = rc.reply(id, &pb.ScanResponse{MoreResultsInRegion: proto.Bool(false)}, nil)
				return
			}
			i := 0
			for i+1 < len(bounds)-1 && string(key) >= bounds[i+1] {
				i++
			}
			start, end := bounds[i], bounds[i+1]
			name := wire.RegionName("t", []byte(start), 1)
			info, _ := wire.EncodeRegionInfo(&pb.RegionInfo{RegionId: proto.Uint64(1), TableName: wire.TableFromText("t"),
				StartKey: []byte(start), EndKey: []byte(end)})
			var block []byte
			for _, c := range []wire.Cell{
				{Row: name, Family: []byte("info"), Qualifier: []byte("regioninfo"), Value: info, Timestamp: 1, Type: wire.TypePut},
				{Row: name, Family: []byte("info"), Qualifier: []byte("server"), Value: []byte(s.addr()), Timestamp: 1, Type: wire.TypePut},
			} {
				block = wire.AppendCell(block, c)
			}
			_ = rc.reply(id, &pb.ScanResponse{CellsPerResult: []uint32{2}, PartialFlagPerResult: []bool{false},
				MoreResultsInRegion: proto.Bool(false)}, block)
			return
		}
		handle(rc, req)
	})
	return s
}

func pbCell(row, q string) *pb.Cell {
	return &pb.Cell{Row: []byte(row), Family: []byte("f"), Qualifier: []byte(q), Value: []byte("v"), Timestamp: proto.Uint64(1), CellType: pb.CellType_PUT.Enum()}
}

// TestScanPartialsFormsAndResume: inline and cellblock results, a row split
// over two responses coalesced, and an UnknownScanner mid-scan answered by
// re-opening just after the last delivered row, with the partial row dropped.
func TestScanPartialsFormsAndResume(t *testing.T) {
	var mu sync.Mutex
	step := 0
	var reopenStart []byte
	s := fakeOneRegion(t, func(rc *respConn, id uint32, req *pb.ScanRequest) {
		mu.Lock()
		step++
		n := step
		mu.Unlock()
		sid := proto.Uint64(7)
		switch n {
		case 1: // open: a complete, b partial (inline)
			_ = rc.reply(id, &pb.ScanResponse{ScannerId: sid, MoreResultsInRegion: proto.Bool(true), MoreResults: proto.Bool(true),
				Results: []*pb.Result{{Cell: []*pb.Cell{pbCell("a", "q")}}, {Cell: []*pb.Cell{pbCell("b", "q1")}, Partial: proto.Bool(true)}}}, nil)
		case 2: // next: rest of b, then c (cellblock)
			var block []byte
			block = wire.AppendCell(block, wire.Cell{Row: []byte("b"), Family: []byte("f"), Qualifier: []byte("q2"), Value: []byte("v"), Timestamp: 1, Type: wire.TypePut})
			block = wire.AppendCell(block, wire.Cell{Row: []byte("c"), Family: []byte("f"), Qualifier: []byte("q"), Value: []byte("v"), Timestamp: 1, Type: wire.TypePut})
			_ = rc.reply(id, &pb.ScanResponse{ScannerId: sid, MoreResultsInRegion: proto.Bool(true),
				CellsPerResult: []uint32{1, 1}, PartialFlagPerResult: []bool{false, true}}, block)
		case 3: // next: the scanner is gone (c's partial must be dropped)
			_ = rc.fail(id, wire.ExcUnknownScanner)
		case 4: // re-open
			if req.GetScannerId() != 0 || req.GetScan() == nil {
				t.Errorf("re-open reused the scanner: %v", req)
			}
			mu.Lock()
			reopenStart = req.GetScan().GetStartRow()
			mu.Unlock()
			_ = rc.reply(id, &pb.ScanResponse{MoreResultsInRegion: proto.Bool(false),
				Results: []*pb.Result{{Cell: []*pb.Cell{pbCell("c", "q"), pbCell("c", "r")}}, {Cell: []*pb.Cell{pbCell("d", "q")}}}}, nil)
		default:
			t.Errorf("unexpected scan call %d: %v", n, req)
			_ = rc.fail(id, wire.ExcDoNotRetryIO)
		}
	})
	c, err := Dial(context.Background(), Options{Bootstrap: []string{s.addr()}, DialTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var rows []string
	var cells []int
	st, err := c.Scan(context.Background(), "t", Scan{}, func(r Result) bool {
		rows = append(rows, string(r.Row))
		cells = append(cells, len(r.Cells))
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := []string{"a", "b", "c", "d"}; len(rows) != 4 || rows[0] != got[0] || rows[1] != got[1] || rows[2] != got[2] || rows[3] != got[3] {
		t.Fatalf("rows %v", rows)
	}
	if cells[1] != 2 || cells[2] != 2 {
		t.Fatalf("cells per row %v", cells)
	}
	if string(reopenStart) != "b\x00" || st.Reopens != 1 {
		t.Fatalf("re-opened at %q, stats %+v", reopenStart, st)
	}
	if c.Counters().Retries[wire.ExcUnknownScanner] != 1 {
		t.Fatalf("counters %+v", c.Counters())
	}
}

// TestScanRenewsLeaseForSlowConsumer: while the callback holds a row longer
// than half the lease, the client sends renew requests (no rows expected).
func TestScanRenewsLeaseForSlowConsumer(t *testing.T) {
	var mu sync.Mutex
	renews, nexts := 0, 0
	s := fakeOneRegion(t, func(rc *respConn, id uint32, req *pb.ScanRequest) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case req.GetRenew():
			renews++
			_ = rc.reply(id, &pb.ScanResponse{ScannerId: proto.Uint64(9)}, nil)
		case req.Scan != nil:
			_ = rc.reply(id, &pb.ScanResponse{ScannerId: proto.Uint64(9), MoreResultsInRegion: proto.Bool(true), Ttl: proto.Uint32(60),
				Results: []*pb.Result{{Cell: []*pb.Cell{pbCell("a", "q")}}}}, nil)
		default:
			nexts++
			if req.GetScannerId() != 9 {
				t.Errorf("next with scanner %d", req.GetScannerId())
			}
			_ = rc.reply(id, &pb.ScanResponse{MoreResultsInRegion: proto.Bool(false),
				Results: []*pb.Result{{Cell: []*pb.Cell{pbCell("b", "q")}}}}, nil)
		}
	})
	c, err := Dial(context.Background(), Options{Bootstrap: []string{s.addr()}, DialTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var rows []string
	if _, err := c.Scan(context.Background(), "t", Scan{}, func(r Result) bool {
		rows = append(rows, string(r.Row))
		if len(rows) == 1 {
			time.Sleep(120 * time.Millisecond)
		}
		return true
	}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(rows) != 2 || rows[1] != "b" || renews == 0 || nexts != 1 {
		t.Fatalf("rows %v renews %d nexts %d", rows, renews, nexts)
	}
}

// A scan asks for the next batch while the caller consumes this one. Stopped
// early, or cut by its limit, with a batch asked ahead in flight, it still
// delivers exactly what was asked and leaves no scanner open on the server.
func TestScanPrefetchStopsCleanly(t *testing.T) {
	tc := startCluster(t)
	ctx := context.Background()
	if err := tc.c.CreateTable(ctx, "pf", []string{"f"}, nil); err != nil {
		t.Fatal(err)
	}
	var muts []Mutation
	for i := range 3000 {
		muts = append(muts, putMut(fmt.Appendf(nil, "r%05d", i), "v"))
	}
	if err := tc.c.Mutate(ctx, "pf", muts); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name        string
		limit, stop int
		want        int
	}{
		{"whole", 0, 0, 3000},
		{"stopped mid-batch", 0, 150, 150},
		{"stopped at a batch's end", 0, 200, 200},
		{"limited", 250, 0, 250},
		{"limited at a batch's end", 300, 0, 300},
	} {
		got := 0
		st, err := tc.c.Scan(ctx, "pf", Scan{Caching: 100, Limit: c.limit}, func(r Result) bool {
			if want := fmt.Sprintf("r%05d", got); string(r.Row) != want {
				t.Fatalf("%s: row %d is %s, want %s", c.name, got, r.Row, want)
			}
			got++
			return c.stop == 0 || got < c.stop
		})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got != c.want || st.Rows != c.want {
			t.Errorf("%s: delivered %d rows (stats %d), want %d", c.name, got, st.Rows, c.want)
		}
		if n := tc.cl.OpenScanners(); n != 0 {
			t.Errorf("%s: %d scanners left open on the server", c.name, n)
		}
	}
}
