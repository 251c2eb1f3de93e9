package hbasetest

import (
	"strings"
	"testing"
	"time"

	"commentbench/hbase/pb"

	"google.golang.org/protobuf/proto"
)

func rowFilter(op pb.CompareType, v string) *pb.Filter {
	bc, _ := proto.Marshal(&pb.BinaryComparator{Comparable: &pb.ByteArrayComparable{Value: []byte(v)}})
	rf, _ := proto.Marshal(&pb.RowFilter{CompareFilter: &pb.CompareFilter{CompareOp: op.Enum(),
		Comparator: &pb.Comparator{Name: proto.String(binaryComparatorClass), SerializedComparator: bc}}})
	return &pb.Filter{Name: proto.String(filterPkg + "RowFilter"), SerializedFilter: rf}
}

// scanAll runs a scan on one region to its end by raw frames and returns
// the rows and how many answers were heartbeats without rows.
func scanAll(t *testing.T, cl *client, codec bool, region string, sc *pb.Scan, heartbeats bool) (rows []string, empty, calls int) {
	t.Helper()
	req := &pb.ScanRequest{Region: spec(region), Scan: sc, ClientHandlesPartials: proto.Bool(true)}
	for {
		if heartbeats {
			req.ClientHandlesHeartbeats = proto.Bool(true)
		}
		resp := &pb.ScanResponse{}
		block := cl.mustCall("Scan", req, nil, resp)
		got := scanRows(t, resp, block, codec)
		calls++
		rows = append(rows, got...)
		if resp.GetHeartbeatMessage() != (heartbeats && resp.GetMoreResultsInRegion()) {
			t.Fatalf("call %d: heartbeat %v (client handles them: %v, more %v)", calls, resp.GetHeartbeatMessage(), heartbeats, resp.GetMoreResultsInRegion())
		}
		if !resp.GetMoreResultsInRegion() {
			if !resp.GetMoreResults() {
				t.Fatalf("call %d: more_results false at a region's end", calls)
			}
			return rows, empty, calls
		}
		if resp.ScannerId == nil {
			t.Fatal("more_results_in_region without scanner_id")
		}
		if len(got) == 0 {
			if !heartbeats {
				t.Fatalf("call %d: empty answer to a client without heartbeats", calls)
			}
			empty++
		}
		if calls > 100 {
			t.Fatal("scan does not progress")
		}
		req = next(resp.GetScannerId(), region, 1000)
	}
}

func TestScanTimeLimitHeartbeats(t *testing.T) {
	c, rs := scanTable(t) // rows r00..r29; rs[2] = [r20, "")
	c.SetScanTimeLimit(time.Nanosecond)
	for _, codec := range []bool{true, false} {
		cl := rsClient(t, c, rs[2].Server, codec)
		// Forward: the filter drops r20..r27.
		rows, empty, calls := scanAll(t, cl, codec, rs[2].Name, &pb.Scan{Filter: rowFilter(pb.CompareType_GREATER_OR_EQUAL, "r28")}, true)
		if strings.Join(rows, " ") != "r28 r29" || empty < 5 {
			t.Fatalf("forward: rows %v, %d heartbeats in %d calls", rows, empty, calls)
		}
		// Reversed: the filter drops r29..r22.
		rows, empty, _ = scanAll(t, cl, codec, rs[2].Name, &pb.Scan{Reversed: proto.Bool(true), Filter: rowFilter(pb.CompareType_LESS_OR_EQUAL, "r21")}, true)
		if strings.Join(rows, " ") != "r21 r20" || empty < 5 {
			t.Fatalf("reversed: rows %v, %d heartbeats", rows, empty)
		}
		// Without a filter each call still returns at least a row.
		rows, _, _ = scanAll(t, cl, codec, rs[1].Name, &pb.Scan{}, true)
		if strings.Join(rows, " ") != "r10 r11 r12 r13 r14 r15 r16 r17 r18 r19" {
			t.Fatalf("no filter: %v", rows)
		}
		// A client without heartbeats never gets an empty answer: the call
		// reads on until it has a row.
		rows, _, calls = scanAll(t, cl, codec, rs[2].Name, &pb.Scan{Filter: rowFilter(pb.CompareType_GREATER_OR_EQUAL, "r28")}, false)
		if strings.Join(rows, " ") != "r28 r29" || calls > 3 {
			t.Fatalf("without heartbeats: rows %v in %d calls", rows, calls)
		}
	}
	// With the default limit the whole region comes in one answer.
	c.SetScanTimeLimit(0)
	cl := rsClient(t, c, rs[2].Server, true)
	rows, empty, calls := scanAll(t, cl, true, rs[2].Name, &pb.Scan{Filter: rowFilter(pb.CompareType_GREATER_OR_EQUAL, "r28")}, true)
	if strings.Join(rows, " ") != "r28 r29" || empty != 0 || calls != 1 {
		t.Fatalf("default limit: rows %v, %d heartbeats in %d calls", rows, empty, calls)
	}
}
