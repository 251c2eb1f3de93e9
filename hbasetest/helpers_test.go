package hbasetest

import (
	"bufio"
	"context"
	"net"
	"testing"
	"time"

	"commentbench/hbase/pb"
	"commentbench/hbase/wire"
	"commentbench/store"
	"commentbench/store/embedded"

	"google.golang.org/protobuf/proto"
)

// newCluster starts a cluster over a fresh in-memory engine without
// automatic splits.
func newCluster(t *testing.T, servers int) (*Cluster, *embedded.Engine) {
	t.Helper()
	eng, err := embedded.Open(embedded.Options{Servers: servers, DisableSplits: true})
	if err != nil {
		t.Fatal(err)
	}
	c, err := Start(Options{Engine: eng})
	if err != nil {
		eng.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Close()
		eng.Close()
	})
	return c, eng
}

func createTable(t *testing.T, eng *embedded.Engine, name string, splits ...string) []store.Region {
	t.Helper()
	return createVersioned(t, eng, name, 0, splits...)
}

// createVersioned creates a table of family cf whose reads return at most
// versions versions per column (0: no cap).
func createVersioned(t *testing.T, eng *embedded.Engine, name string, versions int, splits ...string) []store.Region {
	t.Helper()
	spec := store.TableSpec{Name: name, Family: "cf"}
	for _, s := range splits {
		spec.SplitKeys = append(spec.SplitKeys, []byte(s))
	}
	opts := embedded.TableOptions{MaxVersions: map[string]int{"cf": versions}}
	if err := eng.CreateTableWith(context.Background(), spec, opts); err != nil {
		t.Fatal(err)
	}
	return regions(t, eng, name)
}

func regions(t *testing.T, eng *embedded.Engine, name string) []store.Region {
	t.Helper()
	rs, err := eng.Regions(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// client is a raw test client: one connection, frames written and read by
// hand through package wire.
type client struct {
	t      *testing.T
	nc     net.Conn
	br     *bufio.Reader
	nextID uint32
}

func dial(t *testing.T, addr, service string, codec bool) *client {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nc.Close() })
	if err := wire.WritePreamble(nc, service, "tester", codec); err != nil {
		t.Fatal(err)
	}
	_ = nc.SetDeadline(time.Now().Add(20 * time.Second))
	return &client{t: t, nc: nc, br: bufio.NewReader(nc)}
}

// rsClient dials the region server hosting server's regions.
func rsClient(t *testing.T, c *Cluster, server string, codec bool) *client {
	t.Helper()
	addr, ok := c.ServerAddr(server)
	if !ok {
		t.Fatalf("no address for %s", server)
	}
	return dial(t, addr, wire.ServiceClient, codec)
}

func (cl *client) send(method string, msg proto.Message, cells []byte) uint32 {
	cl.t.Helper()
	cl.nextID++
	hdr := &pb.RequestHeader{CallId: proto.Uint32(cl.nextID), MethodName: proto.String(method)}
	if err := wire.WriteRequest(cl.nc, hdr, msg, cells); err != nil {
		cl.t.Fatal(err)
	}
	return cl.nextID
}

type reply struct {
	hdr   *pb.ResponseHeader
	msg   []byte
	cells []byte
}

func (cl *client) recv() reply {
	cl.t.Helper()
	hdr, msg, cells, err := wire.ReadResponse(cl.br)
	if err != nil {
		cl.t.Fatal(err)
	}
	return reply{hdr, msg, cells}
}

// call sends one request and decodes its answer into resp. It returns the
// response cellblock, or the exception (then resp is untouched).
func (cl *client) call(method string, req proto.Message, cells []byte, resp proto.Message) ([]byte, *pb.ExceptionResponse) {
	cl.t.Helper()
	id := cl.send(method, req, cells)
	r := cl.recv()
	if r.hdr.GetCallId() != id {
		cl.t.Fatalf("%s: answer for call %d, want %d", method, r.hdr.GetCallId(), id)
	}
	if e := r.hdr.GetException(); e != nil {
		return nil, e
	}
	if err := proto.Unmarshal(r.msg, resp); err != nil {
		cl.t.Fatalf("%s: decode: %v", method, err)
	}
	return r.cells, nil
}

// mustCall is call that fails the test on an exception.
func (cl *client) mustCall(method string, req proto.Message, cells []byte, resp proto.Message) []byte {
	cl.t.Helper()
	out, exc := cl.call(method, req, cells, resp)
	if exc != nil {
		cl.t.Fatalf("%s: %s: %s", method, exc.GetExceptionClassName(), exc.GetStackTrace())
	}
	return out
}

// wantExc checks a call-level exception's class and stack trace.
func wantExc(t *testing.T, exc *pb.ExceptionResponse, class string) {
	t.Helper()
	if exc == nil {
		t.Fatalf("no exception, want %s", class)
	}
	if exc.ExceptionClassName == nil || exc.StackTrace == nil || exc.GetStackTrace() == "" {
		t.Fatalf("exception without class or stack trace: %v", exc)
	}
	if exc.GetExceptionClassName() != class {
		t.Fatalf("exception %s (%s), want %s", exc.GetExceptionClassName(), exc.GetStackTrace(), class)
	}
}

func spec(name string) *pb.RegionSpecifier {
	return &pb.RegionSpecifier{Type: pb.RegionSpecifier_REGION_NAME.Enum(), Value: []byte(name)}
}

// putReq is a Put of row with qualifier/value pairs in the cellblock form.
func putReq(region string, row string, kv ...string) (*pb.MutateRequest, []byte) {
	var block []byte
	for i := 0; i+1 < len(kv); i += 2 {
		block = wire.AppendCell(block, wire.Cell{Row: []byte(row), Family: []byte("cf"), Qualifier: []byte(kv[i]),
			Value: []byte(kv[i+1]), Timestamp: wire.LatestTimestamp, Type: wire.TypePut})
	}
	return &pb.MutateRequest{Region: spec(region), Mutation: &pb.MutationProto{
		Row: []byte(row), MutateType: pb.MutationProto_PUT.Enum(), AssociatedCellCount: proto.Int32(int32(len(kv) / 2)),
	}}, block
}

func getReq(region, row string) *pb.GetRequest {
	return &pb.GetRequest{Region: spec(region), Get: &pb.Get{Row: []byte(row), TimeRange: &pb.TimeRange{}}}
}

// resultCells extracts a Result's cells, inline or from block.
func resultCells(t *testing.T, res *pb.Result, block []byte) ([]wire.Cell, []byte) {
	t.Helper()
	var out []wire.Cell
	for _, c := range res.GetCell() {
		out = append(out, wire.Cell{Row: c.Row, Family: c.Family, Qualifier: c.Qualifier, Value: c.Value,
			Timestamp: c.GetTimestamp(), Type: byte(c.GetCellType())})
	}
	if n := int(res.GetAssociatedCellCount()); n > 0 {
		cells, rest, err := wire.ReadCells(block, n)
		if err != nil {
			t.Fatal(err)
		}
		out, block = append(out, cells...), rest
	}
	return out, block
}

// scanRows decodes a ScanResponse's rows, checking the cellblock form's
// invariants when codec is set.
func scanRows(t *testing.T, resp *pb.ScanResponse, block []byte, codec bool) []string {
	t.Helper()
	var rows []string
	if codec {
		if len(resp.GetCellsPerResult()) != len(resp.GetPartialFlagPerResult()) {
			t.Fatalf("cells_per_result %d vs partial flags %d", len(resp.GetCellsPerResult()), len(resp.GetPartialFlagPerResult()))
		}
		if len(resp.GetResults()) != 0 {
			t.Fatal("inline results on a codec connection")
		}
		for _, n := range resp.GetCellsPerResult() {
			cells, rest, err := wire.ReadCells(block, int(n))
			if err != nil {
				t.Fatal(err)
			}
			block = rest
			rows = append(rows, string(cells[0].Row))
		}
		if len(block) != 0 {
			t.Fatalf("%d unread cellblock bytes", len(block))
		}
		return rows
	}
	if len(block) != 0 || len(resp.GetCellsPerResult()) != 0 {
		t.Fatal("cellblock on a connection without codec")
	}
	for _, r := range resp.GetResults() {
		rows = append(rows, string(r.GetCell()[0].Row))
	}
	return rows
}

// metaLookup runs gohbase's reversed meta scan for key in table.
func metaLookup(t *testing.T, c *Cluster, table, key string) ([]*pb.RegionInfo, []string) {
	t.Helper()
	addr, _ := c.ServerAddr(c.MetaServer())
	cl := dial(t, addr, wire.ServiceClient, true)
	start, stop := wire.MetaLookupRange(table, []byte(key))
	resp := &pb.ScanResponse{}
	block := cl.mustCall("Scan", &pb.ScanRequest{
		Region: spec(wire.MetaRegionName),
		Scan: &pb.Scan{StartRow: start, StopRow: stop, Reversed: proto.Bool(true),
			Column: []*pb.Column{{Family: []byte("info")}}},
		NumberOfRows: proto.Uint32(1), CloseScanner: proto.Bool(true),
	}, nil, resp)
	return metaInfos(t, resp, block)
}

// metaInfos decodes meta rows, checks they are complete and returns their
// RegionInfos and servers.
func metaInfos(t *testing.T, resp *pb.ScanResponse, block []byte) ([]*pb.RegionInfo, []string) {
	t.Helper()
	var infos []*pb.RegionInfo
	var servers []string
	for _, n := range resp.GetCellsPerResult() {
		cells, rest, err := wire.ReadCells(block, int(n))
		if err != nil {
			t.Fatal(err)
		}
		block = rest
		var info *pb.RegionInfo
		server := ""
		for _, cl := range cells {
			switch string(cl.Qualifier) {
			case wire.MetaRegionInfo:
				if info, err = wire.DecodeRegionInfo(cl.Value); err != nil {
					t.Fatal(err)
				}
			case wire.MetaServer:
				server = string(cl.Value)
			}
		}
		if info == nil || server == "" {
			t.Fatalf("incomplete meta row %q", cells[0].Row)
		}
		infos = append(infos, info)
		servers = append(servers, server)
	}
	return infos, servers
}
