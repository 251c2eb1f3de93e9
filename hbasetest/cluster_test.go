package hbasetest

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"net"
	"strconv"
	"testing"
	"time"

	"commentbench/hbase/pb"
	"commentbench/hbase/wire"

	"google.golang.org/protobuf/proto"
)

func TestBadPreambleClosesConnection(t *testing.T) {
	c, _ := newCluster(t, 2)
	addr, _ := c.ServerAddr("rs1")
	for name, open := range map[string]func(net.Conn) error{
		"kerberos auth": func(nc net.Conn) error {
			_, err := nc.Write([]byte("HBas\x00\x51\x00\x00\x00\x00"))
			return err
		},
		"not hbase": func(nc net.Conn) error {
			_, err := nc.Write([]byte("GET / HTTP/1.1\r\n\r\n"))
			return err
		},
		"master service on a region server": func(nc net.Conn) error {
			return wire.WritePreamble(nc, wire.ServiceMaster, "u", true)
		},
		"unknown codec": func(nc net.Conn) error {
			return wire.WriteConnectionHeader(nc, &pb.ConnectionHeader{
				UserInfo:            &pb.UserInformation{EffectiveUser: proto.String("u")},
				ServiceName:         proto.String(wire.ServiceClient),
				CellBlockCodecClass: proto.String("org.example.Codec"),
			})
		},
	} {
		t.Run(name, func(t *testing.T) {
			nc, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			if err := open(nc); err != nil {
				t.Fatal(err)
			}
			_ = nc.SetReadDeadline(time.Now().Add(5 * time.Second))
			if _, err := nc.Read(make([]byte, 1)); err != io.EOF {
				t.Fatalf("read after bad preamble: %v, want EOF", err)
			}
		})
	}
}

func TestUnknownMethodAndRegion(t *testing.T) {
	c, eng := newCluster(t, 2)
	rs := createTable(t, eng, "t", "m")
	cl := rsClient(t, c, "rs1", true)

	_, exc := cl.call("Frobnicate", &pb.GetClusterIdRequest{}, nil, &pb.GetResponse{})
	wantExc(t, exc, wire.ExcDoNotRetryIO)

	for _, name := range []string{"dummy", "t,,1.00000000000000000000000000000000."} {
		_, exc = cl.call("Get", getReq(name, "a"), nil, &pb.GetResponse{})
		wantExc(t, exc, wire.ExcNotServingRegion)
	}
	// A region of another server is not served here.
	for _, r := range rs {
		if r.Server != "rs1" {
			_, exc = cl.call("Get", getReq(r.Name, string(r.Start)+"x"), nil, &pb.GetResponse{})
			wantExc(t, exc, wire.ExcNotServingRegion)
		}
	}
	// Master methods on the master connection, unknown ones rejected.
	mc := dial(t, c.MasterAddr(), wire.ServiceMaster, false)
	_, exc = mc.call("Get", getReq("dummy", "a"), nil, &pb.GetResponse{})
	wantExc(t, exc, wire.ExcDoNotRetryIO)
}

func TestRegistry(t *testing.T) {
	c, _ := newCluster(t, 2)
	for _, addr := range c.Bootstrap() {
		cl := dial(t, addr, wire.ServiceClientMeta, true)
		id := &pb.GetClusterIdResponse{}
		cl.mustCall("GetClusterId", &pb.GetClusterIdRequest{}, nil, id)
		am := &pb.GetActiveMasterResponse{}
		cl.mustCall("GetActiveMaster", &pb.GetActiveMasterRequest{}, nil, am)
		ml := &pb.GetMetaRegionLocationsResponse{}
		cl.mustCall("GetMetaRegionLocations", &pb.GetMetaRegionLocationsRequest{}, nil, ml)
		bn := &pb.GetBootstrapNodesResponse{}
		cl.mustCall("GetBootstrapNodes", &pb.GetBootstrapNodesRequest{}, nil, bn)
		if id.GetClusterId() == "" || am.GetServerName() == nil || len(ml.GetMetaLocations()) != 1 || len(bn.GetServerName()) != 3 {
			t.Fatalf("registry answers: %v %v %v %v", id, am, ml, bn)
		}
		loc := ml.GetMetaLocations()[0].GetServerName()
		metaAddr, _ := c.ServerAddr(c.MetaServer())
		if got := net.JoinHostPort(loc.GetHostName(), itoa(loc.GetPort())); got != metaAddr {
			t.Fatalf("meta location %s, want %s", got, metaAddr)
		}
		if got := net.JoinHostPort(am.GetServerName().GetHostName(), itoa(am.GetServerName().GetPort())); got != c.MasterAddr() {
			t.Fatalf("active master %s, want %s", got, c.MasterAddr())
		}
	}
}

func itoa(p uint32) string { return strconv.FormatUint(uint64(p), 10) }

func TestMetaLookup(t *testing.T) {
	c, eng := newCluster(t, 3)
	createTable(t, eng, "t", "b", "m")
	createTable(t, eng, "u", "a")
	createTable(t, eng, "t-x")

	check := func(table, key, wantStart string) *pb.RegionInfo {
		t.Helper()
		infos, _ := metaLookup(t, c, table, key)
		if len(infos) != 1 {
			t.Fatalf("lookup %s/%q: %d rows", table, key, len(infos))
		}
		ri := infos[0]
		if wire.TableText(ri.GetTableName()) != table || string(ri.GetStartKey()) != wantStart {
			t.Fatalf("lookup %s/%q: region %s [%q, %q)", table, key, wire.TableText(ri.GetTableName()), ri.GetStartKey(), ri.GetEndKey())
		}
		return ri
	}
	check("t", "", "")
	check("t", "a", "")
	check("t", "b", "b")
	check("t", "c", "b")
	check("t", "zz", "m")
	// The byte-order trap of §5.7: "a\x01" sorts below "a," bytewise.
	check("u", "a\x01", "a")
	if infos, _ := metaLookup(t, c, "nope", "k"); len(infos) != 0 {
		t.Fatalf("unknown table: %d rows", len(infos))
	}

	// Splits show at once, with larger ids.
	parent := check("t", "e", "b")
	if err := eng.SplitRegion(context.Background(), "t", []byte("f")); err != nil {
		t.Fatal(err)
	}
	a := check("t", "e", "b")
	b := check("t", "g", "f")
	if a.GetRegionId() <= parent.GetRegionId() || b.GetRegionId() != a.GetRegionId() || string(a.GetEndKey()) != "f" {
		t.Fatalf("daughters %v %v of %v", a, b, parent)
	}

	// Forward listing of a table's rows (also returns t-x, as HBase would).
	addr, _ := c.ServerAddr(c.MetaServer())
	cl := dial(t, addr, wire.ServiceClient, true)
	start, stop := wire.MetaListRange("t")
	resp := &pb.ScanResponse{}
	block := cl.mustCall("Scan", &pb.ScanRequest{Region: spec(wire.MetaRegionName),
		Scan: &pb.Scan{StartRow: start, StopRow: stop, Column: []*pb.Column{{Family: []byte("info")}}}}, nil, resp)
	infos, _ := metaInfos(t, resp, block)
	var names []string
	for _, ri := range infos {
		names = append(names, wire.TableText(ri.GetTableName())+"/"+string(ri.GetStartKey()))
	}
	if want := "t/ t/b t/f t/m t-x/"; joinSp(names) != want {
		t.Fatalf("listing %q, want %q", joinSp(names), want)
	}
	if resp.GetMoreResultsInRegion() {
		t.Fatal("listing left the scanner open")
	}

	// Meta is only on its host; the probe Get answers there.
	ex := &pb.GetResponse{}
	cl.mustCall("Get", &pb.GetRequest{Region: spec(wire.MetaRegionName),
		Get: &pb.Get{Row: make([]byte, 17), ExistenceOnly: proto.Bool(true)}}, nil, ex)
	if ex.GetResult().Exists == nil {
		t.Fatal("probe answer without exists")
	}
	for _, s := range eng.Servers() {
		if s == c.MetaServer() {
			continue
		}
		_, exc := rsClient(t, c, s, true).call("Get", getReq(wire.MetaRegionName, "x"), nil, &pb.GetResponse{})
		wantExc(t, exc, wire.ExcNotServingRegion)
	}
}

func joinSp(s []string) string {
	var b bytes.Buffer
	for i, x := range s {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(x)
	}
	return b.String()
}

func TestPutGetCheckAndPutDelete(t *testing.T) {
	for _, codec := range []bool{true, false} {
		name := "inline"
		if codec {
			name = "cellblock"
		}
		t.Run(name, func(t *testing.T) {
			c, eng := newCluster(t, 1)
			r := createTable(t, eng, "t")[0]
			cl := rsClient(t, c, r.Server, codec)

			req, block := putReq(r.Name, "row1", "a", "1", "b", "2")
			mr := &pb.MutateResponse{}
			cl.mustCall("Mutate", req, block, mr)
			if !mr.GetProcessed() {
				t.Fatal("put not processed")
			}
			gr := &pb.GetResponse{}
			out := cl.mustCall("Get", getReq(r.Name, "row1"), nil, gr)
			if codec != (gr.GetResult().AssociatedCellCount != nil) || codec == (len(gr.GetResult().GetCell()) > 0) {
				t.Fatalf("codec %v: result %v with %d cellblock bytes", codec, gr.GetResult(), len(out))
			}
			cells, rest := resultCells(t, gr.GetResult(), out)
			if len(cells) != 2 || len(rest) != 0 || string(cells[0].Qualifier) != "a" || string(cells[1].Value) != "2" ||
				cells[0].Timestamp == wire.LatestTimestamp || string(cells[0].Family) != "cf" {
				t.Fatalf("get: %+v", cells)
			}

			// Existence probe.
			ex := &pb.GetResponse{}
			g := getReq(r.Name, "row1")
			g.Get.ExistenceOnly = proto.Bool(true)
			cl.mustCall("Get", g, nil, ex)
			if !ex.GetResult().GetExists() {
				t.Fatal("row1 does not exist")
			}

			// CheckAndPut: absent, equal, mismatch (inline form).
			cap := func(q, expected, value string) bool {
				t.Helper()
				bc, _ := proto.Marshal(&pb.BinaryComparator{Comparable: &pb.ByteArrayComparable{Value: []byte(expected)}})
				req := &pb.MutateRequest{Region: spec(r.Name),
					Mutation: &pb.MutationProto{Row: []byte("row1"), MutateType: pb.MutationProto_PUT.Enum(),
						ColumnValue: []*pb.MutationProto_ColumnValue{{Family: []byte("cf"),
							QualifierValue: []*pb.MutationProto_ColumnValue_QualifierValue{{Qualifier: []byte(q), Value: []byte(value)}}}}},
					Condition: &pb.Condition{Row: []byte("row1"), Family: []byte("cf"), Qualifier: []byte(q),
						CompareType: pb.CompareType_EQUAL.Enum(),
						Comparator:  &pb.Comparator{Name: proto.String(binaryComparatorClass), SerializedComparator: bc}},
				}
				resp := &pb.MutateResponse{}
				cl.mustCall("Mutate", req, nil, resp)
				if resp.Processed == nil {
					t.Fatal("processed not set")
				}
				return resp.GetProcessed()
			}
			if !cap("c", "", "3") || cap("c", "", "4") || !cap("c", "3", "5") || cap("c", "3", "6") {
				t.Fatal("check-and-put outcomes wrong")
			}
			row, _ := eng.Get(context.Background(), "t", []byte("row1"))
			if v, _ := row.Value([]byte("c")); string(v) != "5" {
				t.Fatalf("c = %q", v)
			}

			// Errors: wrong region row (empty region? use a row the region
			// holds: all rows are in the only region), unknown family.
			bad := getReq(r.Name, "row1")
			bad.Get.Column = []*pb.Column{{Family: []byte("nope")}}
			_, exc := cl.call("Get", bad, nil, &pb.GetResponse{})
			wantExc(t, exc, wire.ExcNoSuchColumnFamily)

			// Delete the row.
			del := &pb.MutateRequest{Region: spec(r.Name), Mutation: &pb.MutationProto{Row: []byte("row1"), MutateType: pb.MutationProto_DELETE.Enum()}}
			cl.mustCall("Mutate", del, nil, &pb.MutateResponse{})
			gr = &pb.GetResponse{}
			out = cl.mustCall("Get", getReq(r.Name, "row1"), nil, gr)
			if cells, _ := resultCells(t, gr.GetResult(), out); len(cells) != 0 {
				t.Fatalf("after delete: %+v", cells)
			}
		})
	}
}

func TestWrongRegionAndVersions(t *testing.T) {
	c, eng := newCluster(t, 1)
	rs := createVersioned(t, eng, "t", 3, "m")
	cl := rsClient(t, c, rs[0].Server, true)
	req, block := putReq(rs[0].Name, "zz", "a", "1")
	_, exc := cl.call("Mutate", req, block, &pb.MutateResponse{})
	wantExc(t, exc, wire.ExcWrongRegion)
	_, exc = cl.call("Get", getReq(rs[1].Name, "a"), nil, &pb.GetResponse{})
	wantExc(t, exc, wire.ExcWrongRegion)

	// Explicit timestamps, max_versions capped by the family's VERSIONS
	// (3 here), time ranges.
	for _, ts := range []uint64{10, 20, 30} {
		req, _ := putReq(rs[0].Name, "c")
		req.Mutation.AssociatedCellCount = nil
		req.Mutation.Timestamp = proto.Uint64(ts)
		req.Mutation.ColumnValue = []*pb.MutationProto_ColumnValue{{Family: []byte("cf"),
			QualifierValue: []*pb.MutationProto_ColumnValue_QualifierValue{{Qualifier: []byte("q"), Value: []byte{byte(ts)}}}}}
		cl.mustCall("Mutate", req, nil, &pb.MutateResponse{})
	}
	g := getReq(rs[0].Name, "c")
	g.Get.MaxVersions = proto.Uint32(5)
	g.Get.TimeRange = &pb.TimeRange{From: proto.Uint64(0), To: proto.Uint64(30)}
	gr := &pb.GetResponse{}
	out := cl.mustCall("Get", g, nil, gr)
	cells, _ := resultCells(t, gr.GetResult(), out)
	if len(cells) != 2 || cells[0].Timestamp != 20 || cells[1].Timestamp != 10 {
		t.Fatalf("versions: %+v", cells)
	}
	// A family delete at 20 hides 10 and 20 only.
	del := &pb.MutateRequest{Region: spec(rs[0].Name), Mutation: &pb.MutationProto{Row: []byte("c"), MutateType: pb.MutationProto_DELETE.Enum(),
		ColumnValue: []*pb.MutationProto_ColumnValue{{Family: []byte("cf"), QualifierValue: []*pb.MutationProto_ColumnValue_QualifierValue{{
			Qualifier: []byte{}, Timestamp: proto.Uint64(20), DeleteType: pb.MutationProto_DELETE_FAMILY.Enum()}}}}}}
	cl.mustCall("Mutate", del, nil, &pb.MutateResponse{})
	g.Get.TimeRange = nil
	gr = &pb.GetResponse{}
	out = cl.mustCall("Get", g, nil, gr)
	cells, _ = resultCells(t, gr.GetResult(), out)
	if len(cells) != 1 || cells[0].Timestamp != 30 {
		t.Fatalf("after family delete: %+v", cells)
	}
}

func TestMulti(t *testing.T) {
	c, eng := newCluster(t, 2)
	rs := createTable(t, eng, "t", "d", "h", "p")
	// Two regions of one server, and one of the other.
	var mine, other []int
	for i, r := range rs {
		if r.Server == rs[0].Server {
			mine = append(mine, i)
		} else {
			other = append(other, i)
		}
	}
	if len(mine) < 2 || len(other) < 1 {
		t.Fatalf("placement %v", rs)
	}
	r1, r2, far := rs[mine[0]], rs[mine[1]], rs[other[0]]
	row := func(r int) string { return string(rs[r].Start) + "\x01" }
	cl := rsClient(t, c, r1.Server, true)

	put := func(idx uint32, rowKey, v string) (*pb.Action, []byte) {
		req, block := putReq("", rowKey, "q", v)
		return &pb.Action{Index: proto.Uint32(idx), Mutation: req.Mutation}, block
	}
	a1, b1 := put(1, row(mine[0]), "v1")
	a2, b2 := put(2, row(mine[1]), "v2")
	a3, b3 := put(3, row(other[0]), "v3") // region-level NSRE: cells skipped
	a4, b4 := put(4, row(mine[1]), "v4")
	req := &pb.MultiRequest{RegionAction: []*pb.RegionAction{
		{Region: spec(r1.Name), Action: []*pb.Action{a1}},
		{Region: spec(far.Name), Action: []*pb.Action{a3}},
		{Region: spec(r2.Name), Action: []*pb.Action{a2, a4}},
	}}
	resp := &pb.MultiResponse{}
	cl.mustCall("Multi", req, bytes.Join([][]byte{b1, b3, b2, b4}, nil), resp)
	rar := resp.GetRegionActionResult()
	if len(rar) != 3 || rar[1].GetException().GetName() != wire.ExcNotServingRegion || len(rar[1].GetResultOrException()) != 0 {
		t.Fatalf("region results %v", rar)
	}
	if len(rar[0].GetResultOrException()) != 1 || rar[0].GetResultOrException()[0].GetIndex() != 1 || rar[0].GetResultOrException()[0].Result == nil {
		t.Fatalf("region 1: %v", rar[0])
	}
	got, _ := eng.Get(context.Background(), "t", []byte(row(mine[1])))
	if v, _ := got.Value([]byte("q")); string(v) != "v4" {
		t.Fatalf("r2 row = %q", v)
	}

	// Gets and a failing action, results matched by index, cells in entry
	// order.
	bad := &pb.Action{Index: proto.Uint32(7), Get: &pb.Get{Row: []byte(row(mine[0])), Column: []*pb.Column{{Family: []byte("zz")}}}}
	req = &pb.MultiRequest{RegionAction: []*pb.RegionAction{
		{Region: spec(r2.Name), Action: []*pb.Action{{Index: proto.Uint32(5), Get: &pb.Get{Row: []byte(row(mine[1]))}}}},
		{Region: spec(r1.Name), Action: []*pb.Action{bad, {Index: proto.Uint32(6), Get: &pb.Get{Row: []byte(row(mine[0]))}}}},
	}}
	resp = &pb.MultiResponse{}
	block := cl.mustCall("Multi", req, nil, resp)
	vals := map[uint32]string{}
	for _, ra := range resp.GetRegionActionResult() {
		for _, roe := range ra.GetResultOrException() {
			if (roe.Result == nil) == (roe.Exception == nil) {
				t.Fatalf("entry %d: result and exception %v", roe.GetIndex(), roe)
			}
			if roe.Exception != nil {
				vals[roe.GetIndex()] = roe.GetException().GetName()
				continue
			}
			var cells []wire.Cell
			cells, block = resultCells(t, roe.GetResult(), block)
			vals[roe.GetIndex()] = string(cells[0].Value)
		}
	}
	if len(block) != 0 || vals[5] != "v4" || vals[6] != "v1" || vals[7] != wire.ExcNoSuchColumnFamily {
		t.Fatalf("multi gets: %v (%d bytes left)", vals, len(block))
	}
}

func TestIncrementAppend(t *testing.T) {
	c, eng := newCluster(t, 1)
	r := createTable(t, eng, "t")[0]
	cl := rsClient(t, c, r.Server, true)
	rmw := func(typ pb.MutationProto_MutationType, q string, v []byte) wire.Cell {
		t.Helper()
		block := wire.AppendCell(nil, wire.Cell{Row: []byte("r"), Family: []byte("cf"), Qualifier: []byte(q), Value: v,
			Timestamp: wire.LatestTimestamp, Type: wire.TypePut})
		req := &pb.MutateRequest{Region: spec(r.Name), Mutation: &pb.MutationProto{Row: []byte("r"), MutateType: typ.Enum(),
			AssociatedCellCount: proto.Int32(1)}}
		resp := &pb.MutateResponse{}
		out := cl.mustCall("Mutate", req, block, resp)
		cells, rest := resultCells(t, resp.GetResult(), out)
		if len(cells) != 1 || len(rest) != 0 {
			t.Fatalf("%v result: %+v", typ, cells)
		}
		return cells[0]
	}
	delta := func(n int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(n)) }
	a := rmw(pb.MutationProto_INCREMENT, "n", delta(5))
	b := rmw(pb.MutationProto_INCREMENT, "n", delta(-2))
	if !bytes.Equal(a.Value, delta(5)) || !bytes.Equal(b.Value, delta(3)) || b.Timestamp <= a.Timestamp {
		t.Fatalf("increments: %+v %+v", a, b)
	}
	rmw(pb.MutationProto_APPEND, "s", []byte("ab"))
	if s := rmw(pb.MutationProto_APPEND, "s", []byte("cd")); string(s.Value) != "abcd" {
		t.Fatalf("append: %q", s.Value)
	}
	// Not a long.
	block := wire.AppendCell(nil, wire.Cell{Row: []byte("r"), Family: []byte("cf"), Qualifier: []byte("s"), Value: delta(1),
		Timestamp: wire.LatestTimestamp, Type: wire.TypePut})
	_, exc := cl.call("Mutate", &pb.MutateRequest{Region: spec(r.Name), Mutation: &pb.MutationProto{Row: []byte("r"),
		MutateType: pb.MutationProto_INCREMENT.Enum(), AssociatedCellCount: proto.Int32(1)}}, block, &pb.MutateResponse{})
	wantExc(t, exc, wire.ExcDoNotRetryIO)
}
