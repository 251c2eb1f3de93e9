package hbasetest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"commentbench/hbase/pb"
	"commentbench/hbase/wire"
	"commentbench/store"

	"google.golang.org/protobuf/proto"
)

// scanTable makes table "t" with regions ["", r10) [r10, r20) [r20, "")
// on one server and rows r00..r29.
func scanTable(t *testing.T) (*Cluster, []store.Region) {
	t.Helper()
	c, eng := newCluster(t, 1)
	rs := createTable(t, eng, "t", "r10", "r20")
	var muts []store.Mutation
	for i := range 30 {
		muts = append(muts, store.Put([]byte(fmt.Sprintf("r%02d", i)), store.Cell{Qualifier: []byte("q"), Value: []byte("v")}))
	}
	if err := eng.Mutate(context.Background(), "t", muts...); err != nil {
		t.Fatal(err)
	}
	return c, rs
}

type scanCall struct {
	rows          []string
	id            uint64
	more, moreAll bool
}

func doScan(t *testing.T, cl *client, codec bool, req *pb.ScanRequest) scanCall {
	t.Helper()
	resp := &pb.ScanResponse{}
	block := cl.mustCall("Scan", req, nil, resp)
	sc := scanCall{rows: scanRows(t, resp, block, codec), id: resp.GetScannerId(), more: resp.GetMoreResultsInRegion(), moreAll: resp.GetMoreResults()}
	if sc.more && resp.ScannerId == nil {
		t.Fatal("more_results_in_region without scanner_id")
	}
	return sc
}

func next(id uint64, region string, n uint32) *pb.ScanRequest {
	return &pb.ScanRequest{Region: spec(region), ScannerId: proto.Uint64(id), NumberOfRows: proto.Uint32(n)}
}

func TestScanForwardPaging(t *testing.T) {
	for _, codec := range []bool{true, false} {
		t.Run(fmt.Sprint("codec=", codec), func(t *testing.T) {
			c, rs := scanTable(t)
			cl := rsClient(t, c, rs[1].Server, codec)
			// Start below the region, stop inside it: [r10, r15).
			open := &pb.ScanRequest{Region: spec(rs[1].Name), Scan: &pb.Scan{StartRow: []byte("r05"), StopRow: []byte("r15")}, NumberOfRows: proto.Uint32(2)}
			s := doScan(t, cl, codec, open)
			if strings.Join(s.rows, " ") != "r10 r11" || !s.more {
				t.Fatalf("open: %+v", s)
			}
			renew := next(s.id, rs[1].Name, unlimitedRowsHint)
			renew.Renew = proto.Bool(true)
			if r := doScan(t, cl, codec, renew); len(r.rows) != 0 || r.id != s.id {
				t.Fatalf("renew: %+v", r)
			}
			s2 := doScan(t, cl, codec, next(s.id, rs[1].Name, 2))
			if strings.Join(s2.rows, " ") != "r12 r13" || !s2.more || s2.id != s.id {
				t.Fatalf("next: %+v", s2)
			}
			s3 := doScan(t, cl, codec, next(s.id, rs[1].Name, 5))
			if strings.Join(s3.rows, " ") != "r14" || s3.more || !s3.moreAll {
				t.Fatalf("last: %+v", s3)
			}
			// Closed server-side once the region is done.
			_, exc := cl.call("Scan", next(s.id, rs[1].Name, 5), nil, &pb.ScanResponse{})
			wantExc(t, exc, wire.ExcUnknownScanner)

			// Whole region with caching, then an explicit close.
			open = &pb.ScanRequest{Region: spec(rs[2].Name), Scan: &pb.Scan{Caching: proto.Uint32(3)}}
			s = doScan(t, cl, codec, open)
			if strings.Join(s.rows, " ") != "r20 r21 r22" || !s.more {
				t.Fatalf("caching: %+v", s)
			}
			closeReq := &pb.ScanRequest{Region: spec(rs[2].Name), ScannerId: proto.Uint64(s.id), CloseScanner: proto.Bool(true), NumberOfRows: proto.Uint32(0)}
			cl.mustCall("Scan", closeReq, nil, &pb.ScanResponse{})
			_, exc = cl.call("Scan", next(s.id, rs[2].Name, 1), nil, &pb.ScanResponse{})
			wantExc(t, exc, wire.ExcUnknownScanner)
			// Closing again is still a success.
			cl.mustCall("Scan", closeReq, nil, &pb.ScanResponse{})

			// A row limit ends the whole scan.
			open = &pb.ScanRequest{Region: spec(rs[0].Name), Scan: &pb.Scan{}, NumberOfRows: proto.Uint32(100), LimitOfRows: proto.Uint32(4)}
			s = doScan(t, cl, codec, open)
			if strings.Join(s.rows, " ") != "r00 r01 r02 r03" || s.more || s.moreAll {
				t.Fatalf("limit: %+v", s)
			}
		})
	}
}

func TestScanReversed(t *testing.T) {
	c, rs := scanTable(t)
	cl := rsClient(t, c, rs[1].Server, true)
	// Start at or above the region end: from the region's last row.
	s := doScan(t, cl, true, &pb.ScanRequest{Region: spec(rs[1].Name),
		Scan: &pb.Scan{StartRow: []byte("r25"), StopRow: []byte("r15"), Reversed: proto.Bool(true)}, NumberOfRows: proto.Uint32(3)})
	if strings.Join(s.rows, " ") != "r19 r18 r17" || !s.more {
		t.Fatalf("reversed open: %+v", s)
	}
	s2 := doScan(t, cl, true, next(s.id, rs[1].Name, 10))
	if strings.Join(s2.rows, " ") != "r16" || s2.more {
		t.Fatalf("reversed next: %+v", s2)
	}
	// Inclusive start inside the region, down to the region start.
	s = doScan(t, cl, true, &pb.ScanRequest{Region: spec(rs[1].Name),
		Scan: &pb.Scan{StartRow: []byte("r12"), Reversed: proto.Bool(true)}})
	if strings.Join(s.rows, " ") != "r12 r11 r10" || s.more {
		t.Fatalf("reversed to region start: %+v", s)
	}
	// Empty start on the last region.
	s = doScan(t, cl, true, &pb.ScanRequest{Region: spec(rs[2].Name),
		Scan: &pb.Scan{Reversed: proto.Bool(true)}, NumberOfRows: proto.Uint32(2)})
	if strings.Join(s.rows, " ") != "r29 r28" || !s.more {
		t.Fatalf("reversed last region: %+v", s)
	}
}

func TestScanFilters(t *testing.T) {
	c, rs := scanTable(t)
	cl := rsClient(t, c, rs[1].Server, false)
	bc, _ := proto.Marshal(&pb.BinaryComparator{Comparable: &pb.ByteArrayComparable{Value: []byte("r17")}})
	rf, _ := proto.Marshal(&pb.RowFilter{CompareFilter: &pb.CompareFilter{CompareOp: pb.CompareType_GREATER_OR_EQUAL.Enum(),
		Comparator: &pb.Comparator{Name: proto.String(binaryComparatorClass), SerializedComparator: bc}}})
	s := doScan(t, cl, false, &pb.ScanRequest{Region: spec(rs[1].Name),
		Scan: &pb.Scan{Filter: &pb.Filter{Name: proto.String(filterPkg + "RowFilter"), SerializedFilter: rf}}})
	if strings.Join(s.rows, " ") != "r17 r18 r19" || s.more {
		t.Fatalf("row filter: %+v", s)
	}
	pf, _ := proto.Marshal(&pb.PrefixFilter{Prefix: []byte("r1")})
	s = doScan(t, cl, false, &pb.ScanRequest{Region: spec(rs[1].Name),
		Scan: &pb.Scan{StartRow: []byte("r13"), Filter: &pb.Filter{Name: proto.String(filterPkg + "PrefixFilter"), SerializedFilter: pf}}})
	if strings.Join(s.rows, " ") != "r13 r14 r15 r16 r17 r18 r19" {
		t.Fatalf("prefix filter: %+v", s)
	}
	_, exc := cl.call("Scan", &pb.ScanRequest{Region: spec(rs[1].Name),
		Scan: &pb.Scan{Filter: &pb.Filter{Name: proto.String("org.apache.hadoop.hbase.filter.FuzzyRowFilter")}}}, nil, &pb.ScanResponse{})
	wantExc(t, exc, wire.ExcDoNotRetryIO)
	_, exc = cl.call("Scan", &pb.ScanRequest{Region: spec(rs[1].Name),
		Scan: &pb.Scan{Column: []*pb.Column{{Family: []byte("nope")}}}}, nil, &pb.ScanResponse{})
	wantExc(t, exc, wire.ExcNoSuchColumnFamily)
}

func TestScanSplitClosesScanner(t *testing.T) {
	c, rs := scanTable(t)
	cl := rsClient(t, c, rs[1].Server, true)
	s := doScan(t, cl, true, &pb.ScanRequest{Region: spec(rs[1].Name), Scan: &pb.Scan{}, NumberOfRows: proto.Uint32(1)})
	if err := c.Engine().SplitRegion(context.Background(), "t", []byte("r15")); err != nil {
		t.Fatal(err)
	}
	_, exc := cl.call("Scan", next(s.id, rs[1].Name, 1), nil, &pb.ScanResponse{})
	wantExc(t, exc, wire.ExcNotServingRegion)
	_, exc = cl.call("Scan", next(s.id, rs[1].Name, 1), nil, &pb.ScanResponse{})
	wantExc(t, exc, wire.ExcUnknownScanner)
}

func TestScanIncludeStartStop(t *testing.T) {
	c, rs := scanTable(t)
	cl := rsClient(t, c, rs[1].Server, true)
	for _, tc := range []struct {
		scan *pb.Scan
		want string
	}{
		{&pb.Scan{StartRow: []byte("r12"), StopRow: []byte("r15"), IncludeStartRow: proto.Bool(false), IncludeStopRow: proto.Bool(true)}, "r13 r14 r15"},
		{&pb.Scan{StartRow: []byte("r12"), StopRow: []byte("r10"), Reversed: proto.Bool(true), IncludeStartRow: proto.Bool(false), IncludeStopRow: proto.Bool(true)}, "r11 r10"},
		// §6.5.5: continue a reversed scan below the next region's start.
		{&pb.Scan{StartRow: []byte("r20"), Reversed: proto.Bool(true), IncludeStartRow: proto.Bool(false)}, "r19 r18 r17 r16 r15 r14 r13 r12 r11 r10"},
		{&pb.Scan{StartRow: []byte("r05"), StopRow: []byte("r11"), IncludeStartRow: proto.Bool(false)}, "r10"},
	} {
		s := doScan(t, cl, true, &pb.ScanRequest{Region: spec(rs[1].Name), Scan: tc.scan})
		if got := strings.Join(s.rows, " "); got != tc.want || s.more {
			t.Fatalf("%v: %q (more %v), want %q", tc.scan, got, s.more, tc.want)
		}
	}
}
