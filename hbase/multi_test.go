package hbase

import (
	"context"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"commentbench/hbase/pb"
	"commentbench/hbase/wire"
)

// TestMultiIndexMatchingAndRegroup: entries answered out of action order
// (matched by index), inline and cellblock results, and a region-level
// NotServingRegion for which only that region's actions are re-located
// and resent.
func TestMultiIndexMatchingAndRegroup(t *testing.T) {
	var mu sync.Mutex
	var calls [][]string // rows per Multi call
	s := fakeRegions(t, []string{"m"}, func(rc *respConn, req request) {
		id := req.hdr.GetCallId()
		if req.hdr.GetMethodName() != "Multi" {
			_ = rc.fail(id, wire.ExcDoNotRetryIO)
			return
		}
		var mr pb.MultiRequest
		if err := proto.Unmarshal(req.param, &mr); err != nil {
			t.Error(err)
			return
		}
		mu.Lock()
		n := len(calls)
		var rows []string
		for _, ra := range mr.GetRegionAction() {
			for _, a := range ra.GetAction() {
				rows = append(rows, string(a.GetGet().GetRow()))
			}
		}
		calls = append(calls, rows)
		mu.Unlock()
		resp := &pb.MultiResponse{}
		var block []byte
		for _, ra := range mr.GetRegionAction() {
			if n == 0 && string(ra.GetRegion().GetValue()) != string(wire.RegionName("t", nil, 1)) {
				resp.RegionActionResult = append(resp.RegionActionResult, &pb.RegionActionResult{
					Exception: &pb.NameBytesPair{Name: proto.String(wire.ExcNotServingRegion), Value: []byte("moved")}})
				continue
			}
			rar := &pb.RegionActionResult{}
			acts := ra.GetAction()
			for i := len(acts) - 1; i >= 0; i-- { // reverse order
				a := acts[i]
				row := a.GetGet().GetRow()
				if i%2 == 0 {
					block = wire.AppendCell(block, wire.Cell{Row: row, Family: []byte("f"), Qualifier: []byte("q"), Value: row, Timestamp: 1, Type: wire.TypePut})
					rar.ResultOrException = append(rar.ResultOrException, &pb.ResultOrException{Index: a.Index, Result: &pb.Result{AssociatedCellCount: proto.Int32(1)}})
				} else {
					rar.ResultOrException = append(rar.ResultOrException, &pb.ResultOrException{Index: a.Index, Result: &pb.Result{Cell: []*pb.Cell{{
						Row: row, Family: []byte("f"), Qualifier: []byte("q"), Value: row}}}})
				}
			}
			resp.RegionActionResult = append(resp.RegionActionResult, rar)
		}
		_ = rc.reply(id, resp, block)
	})
	c, err := Dial(context.Background(), Options{Bootstrap: []string{s.addr()}, DialTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rows := [][]byte{[]byte("a"), []byte("n"), []byte("b"), []byte("z"), []byte("c")}
	res, err := c.BatchGet(context.Background(), "t", rows, "f")
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		if value(r) != string(rows[i]) {
			t.Fatalf("result %d = %+v", i, r)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(calls) != 2 || len(calls[0]) != 5 || len(calls[1]) != 2 || calls[1][0] != "n" || calls[1][1] != "z" {
		t.Fatalf("Multi calls %v", calls)
	}
	if cnt := c.Counters(); cnt.Retries[wire.ExcNotServingRegion] != 2 || cnt.RPCs["Multi"] != 2 {
		t.Fatalf("counters %+v", cnt)
	}
}
