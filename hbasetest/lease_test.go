package hbasetest

import (
	"strings"
	"testing"
	"time"

	"commentbench/hbase/pb"
	"commentbench/hbase/wire"
	"commentbench/store/embedded"

	"google.golang.org/protobuf/proto"
)

const testLease = 300 * time.Millisecond

// leaseCluster starts a one-server cluster whose scanners live testLease
// after their last call, with a table t of three rows.
func leaseCluster(t *testing.T) (*Cluster, *client, string) {
	t.Helper()
	eng, err := embedded.Open(embedded.Options{Servers: 1, DisableSplits: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	c, err := Start(Options{Engine: eng, ScannerTimeout: testLease})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	regs := createTable(t, eng, "t")
	cl := rsClient(t, c, regs[0].Server, true)
	for _, row := range []string{"a", "b", "c"} {
		req, cells := putReq(regs[0].Name, row, "q", "v")
		cl.mustCall("Mutate", req, cells, &pb.MutateResponse{})
	}
	return c, cl, regs[0].Name
}

// openScan opens a scanner that has returned one row.
func openLeased(t *testing.T, cl *client, region string) uint64 {
	t.Helper()
	resp := &pb.ScanResponse{}
	cl.mustCall("Scan", &pb.ScanRequest{Region: spec(region), Scan: &pb.Scan{}, NumberOfRows: proto.Uint32(1)}, nil, resp)
	if !resp.GetMoreResultsInRegion() || resp.GetTtl() != uint32(testLease.Milliseconds()) {
		t.Fatalf("open: more %v, ttl %d ms; want more rows and the lease, %v", resp.GetMoreResultsInRegion(), resp.GetTtl(), testLease)
	}
	return resp.GetScannerId()
}

func leasedNext(cl *client, region string, id uint64) *pb.ExceptionResponse {
	_, exc := cl.call("Scan", &pb.ScanRequest{Region: spec(region), ScannerId: proto.Uint64(id), NumberOfRows: proto.Uint32(1)}, nil, &pb.ScanResponse{})
	return exc
}

// wantLeaseExpired checks the answer HBase gives for a scanner whose lease
// ran out: an UnknownScannerException naming the scanner timeout.
func wantLeaseExpired(t *testing.T, exc *pb.ExceptionResponse) {
	t.Helper()
	wantExc(t, exc, wire.ExcUnknownScanner)
	if tr := exc.GetStackTrace(); !strings.Contains(tr, "b) Scanner lease expired because of long wait between consecutive client checkins") ||
		!strings.Contains(tr, "'hbase.client.scanner.timeout.period'") || !exc.GetDoNotRetry() {
		t.Fatalf("expired scanner answered %q (do_not_retry %v)", tr, exc.GetDoNotRetry())
	}
}

// A scanner outlives its last call by the lease, renewals included, and
// not longer: a next, a renew or a close after that is answered with
// UnknownScannerException, and the scanner is no longer held.
func TestScannerLeaseExpires(t *testing.T) {
	c, cl, region := leaseCluster(t)

	id := openLeased(t, cl, region)
	for range 3 {
		time.Sleep(testLease * 2 / 3)
		cl.mustCall("Scan", &pb.ScanRequest{Region: spec(region), ScannerId: proto.Uint64(id), Renew: proto.Bool(true)}, nil, &pb.ScanResponse{})
	}
	if exc := leasedNext(cl, region, id); exc != nil {
		t.Fatalf("next on a renewed scanner: %s", exc.GetStackTrace())
	}
	time.Sleep(testLease * 3 / 2)
	wantLeaseExpired(t, leasedNext(cl, region, id))

	renewed := openLeased(t, cl, region)
	closed := openLeased(t, cl, region)
	time.Sleep(testLease * 3 / 2)
	if n := c.OpenScanners(); n != 0 {
		t.Fatalf("%d scanners held after their leases expired", n)
	}
	_, exc := cl.call("Scan", &pb.ScanRequest{Region: spec(region), ScannerId: proto.Uint64(renewed), Renew: proto.Bool(true)}, nil, &pb.ScanResponse{})
	wantLeaseExpired(t, exc)
	_, exc = cl.call("Scan", &pb.ScanRequest{Region: spec(region), ScannerId: proto.Uint64(closed), CloseScanner: proto.Bool(true), NumberOfRows: proto.Uint32(0)}, nil, &pb.ScanResponse{})
	wantLeaseExpired(t, exc)

	// A scanner closed by its client is no error to close again.
	done := openLeased(t, cl, region)
	for range 2 {
		cl.mustCall("Scan", &pb.ScanRequest{Region: spec(region), ScannerId: proto.Uint64(done), CloseScanner: proto.Bool(true), NumberOfRows: proto.Uint32(0)}, nil, &pb.ScanResponse{})
	}
}

func TestScannerTimeoutOption(t *testing.T) {
	eng, err := embedded.Open(embedded.Options{Servers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	for _, d := range []time.Duration{-time.Second, 500 * time.Microsecond, 1500 * time.Microsecond, 50 * 24 * time.Hour} {
		if c, err := Start(Options{Engine: eng, ScannerTimeout: d}); err == nil {
			c.Close()
			t.Errorf("ScannerTimeout %v accepted", d)
		} else if !strings.Contains(err.Error(), "scanner timeout "+d.String()) {
			t.Errorf("ScannerTimeout %v: error %q does not name it", d, err)
		}
	}
	c, err := Start(Options{Engine: eng})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.lease != DefaultScannerTimeout || c.leaseMillis() != 60_000 {
		t.Fatalf("default lease %v", c.lease)
	}
}
