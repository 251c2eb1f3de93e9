package main

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"commentbench/hbase"
	"commentbench/hbase/pb"
	"commentbench/hbase/wire"
	"commentbench/hbasetest"
	"commentbench/store"

	"google.golang.org/protobuf/proto"
)

func TestParseSchedule(t *testing.T) {
	fs, err := parseSchedule("30s:move:cb_comment, 5s:kill:rs2,10s:split:cb_comment:GaA,20s:busy:50")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range fs {
		got = append(got, f.after.String()+" "+f.act.String())
	}
	want := "5s kill rs2|10s split cb_comment GaA|20s busy 50|30s move cb_comment"
	if strings.Join(got, "|") != want {
		t.Fatalf("schedule %q, want %q", strings.Join(got, "|"), want)
	}
	for _, bad := range []string{"kill:rs2", "5:kill:rs2", "5s:explode:rs2", "5s:kill", "5s:kill:rs1:rs2", "5s:busy:many", "5s:status", "-1s:busy:3"} {
		if _, err := parseSchedule(bad); err == nil {
			t.Errorf("parseSchedule(%q) accepted", bad)
		}
	}
	if fs, err := parseSchedule(""); err != nil || len(fs) != 0 {
		t.Errorf("empty schedule: %v %v", fs, err)
	}
}

// Each action does to the cluster what it says, as a client sees it.
func TestActions(t *testing.T) {
	mc, err := start(options{servers: 3, noSplits: true})
	if err != nil {
		t.Fatal(err)
	}
	defer mc.stop(io.Discard)
	ctx := context.Background()
	if err := mc.eng.CreateTable(ctx, store.TableSpec{Name: "t", Family: "f"}); err != nil {
		t.Fatal(err)
	}
	for _, row := range []string{"a", "b", "c", "d"} {
		if err := mc.eng.Mutate(ctx, "t", store.Put([]byte(row), store.Cell{Qualifier: []byte("q"), Value: []byte("v")})); err != nil {
			t.Fatal(err)
		}
	}
	must := func(line string) string {
		t.Helper()
		a, err := parseCommand(line)
		if err != nil {
			t.Fatal(err)
		}
		msg, err := mc.do(a)
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		return msg
	}
	if msg := must("split t c"); msg != "split t: 1 regions, now 2" {
		t.Errorf("split: %s", msg)
	}
	before, _ := mc.eng.Regions(ctx, "t")
	must("move t")
	after, _ := mc.eng.Regions(ctx, "t")
	for i := range after {
		if after[i].Server == before[i].Server || after[i].Name != before[i].Name {
			t.Errorf("move: %s on %s, then %s on %s", before[i].Name, before[i].Server, after[i].Name, after[i].Server)
		}
	}
	must("move t rs3")
	if rs, _ := mc.eng.Regions(ctx, "t"); rs[0].Server != "rs3" || rs[1].Server != "rs3" {
		t.Errorf("move to rs3: %v", rs)
	}

	c, err := hbase.Dial(ctx, hbase.Options{Bootstrap: mc.cl.Bootstrap(), MaxRetries: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	must("busy 5")
	if _, err := c.Get(ctx, "t", []byte("a"), ""); err == nil || !strings.Contains(err.Error(), "RegionTooBusy") {
		t.Errorf("get while busy: %v", err)
	}
	addr, _ := mc.cl.ServerAddr("rs3")
	must("kill rs3")
	if _, live := mc.cl.ServerAddr("rs3"); live {
		t.Error("rs3 still live")
	}
	if conn, err := net.Dial("tcp", addr); err == nil {
		conn.Close()
		t.Errorf("rs3's port %s still open", addr)
	}
	if st := must("status"); !strings.Contains(st, "rs3 dead 0 regions") {
		t.Errorf("status:\n%s", st)
	}
	if _, err := mc.do(action{verb: "kill", args: []string{"rs9"}}); err == nil {
		t.Error("killing an unknown server succeeded")
	}
}

// run prints the flags line first, and a cancelled run (the signal) closes
// every port and returns 0.
func TestRunStopsCleanly(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"--servers", "2", "--commands"}, strings.NewReader("status\n"), pw, io.Discard)
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, pr)
	addrs, ok := strings.CutPrefix(strings.TrimSpace(line), "--backend hbase --hbase-bootstrap ")
	if !ok || len(strings.Split(addrs, ",")) != 3 {
		t.Fatalf("flags line %q", line)
	}
	c, err := hbase.Dial(ctx, hbase.Options{Bootstrap: strings.Split(addrs, ",")})
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit %d", code)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("run did not return after the signal")
	}
	for _, a := range strings.Split(addrs, ",") {
		if conn, err := net.Dial("tcp", a); err == nil {
			conn.Close()
			t.Errorf("port %s still open", a)
		}
	}
	if code := run(context.Background(), []string{"--servers", "0"}, nil, io.Discard, io.Discard); code != 2 {
		t.Errorf("bad flags: exit %d, want 2", code)
	}
}

// --max-row-size is the cluster's hbase.table.max.rowsize: a Get of a row
// past it fails with RowTooBigException; a non-positive size is refused.
func TestMaxRowSizeFlag(t *testing.T) {
	o, err := parseFlags([]string{"--servers", "1", "--max-row-size", "100"}, io.Discard, io.Discard)
	if err != nil || o.maxRow != 100 {
		t.Fatalf("parse: %+v %v", o, err)
	}
	if o, err := parseFlags(nil, io.Discard, io.Discard); err != nil || o.maxRow != store.DefaultMaxRowSize {
		t.Fatalf("default: %d %v", o.maxRow, err)
	}
	if _, err := parseFlags([]string{"--max-row-size", "0"}, io.Discard, io.Discard); err == nil {
		t.Error("--max-row-size 0 accepted")
	}
	mc, err := start(o)
	if err != nil {
		t.Fatal(err)
	}
	defer mc.stop(io.Discard)
	ctx := context.Background()
	if err := mc.eng.CreateTable(ctx, store.TableSpec{Name: "t", Family: "f"}); err != nil {
		t.Fatal(err)
	}
	// Four cells of 24 + 4 + 1 + 1 + 1 = 31 bytes: 124 bytes.
	cells := []store.Cell{{Qualifier: []byte("a"), Value: []byte("v")}, {Qualifier: []byte("b"), Value: []byte("v")},
		{Qualifier: []byte("c"), Value: []byte("v")}, {Qualifier: []byte("d"), Value: []byte("v")}}
	if err := mc.eng.Mutate(ctx, "t", store.Put([]byte("wide"), cells...), store.Put([]byte("thin"), cells[:3]...)); err != nil {
		t.Fatal(err)
	}
	c, err := hbase.Dial(ctx, hbase.Options{Bootstrap: mc.cl.Bootstrap()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Get(ctx, "t", []byte("wide"), ""); !errors.Is(err, hbase.ErrRowTooBig) {
		t.Errorf("get of 124 bytes: %v", err)
	}
	if _, err := c.Get(ctx, "t", []byte("thin"), ""); err != nil {
		t.Errorf("get of 93 bytes: %v", err)
	}
}

// --scanner-timeout is the cluster's hbase.client.scanner.timeout.period:
// each scan answer carries it as the scanner's lease; a value that is not
// a whole, positive number of milliseconds is refused, naming the flag and
// the value.
func TestScannerTimeoutFlag(t *testing.T) {
	if o, err := parseFlags(nil, io.Discard, io.Discard); err != nil || o.lease != hbasetest.DefaultScannerTimeout {
		t.Fatalf("default: %v %v", o.lease, err)
	}
	for _, bad := range []string{"0s", "-1s", "500us", "1500us", "1200h", "soon"} {
		_, err := parseFlags([]string{"--scanner-timeout", bad}, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), "scanner-timeout") {
			t.Errorf("--scanner-timeout %s: %v", bad, err)
		}
	}
	o, err := parseFlags([]string{"--servers", "1", "--no-splits", "--scanner-timeout", "250ms"}, io.Discard, io.Discard)
	if err != nil || o.lease != 250*time.Millisecond {
		t.Fatalf("parse: %v %v", o.lease, err)
	}
	mc, err := start(o)
	if err != nil {
		t.Fatal(err)
	}
	defer mc.stop(io.Discard)
	if err := mc.eng.CreateTable(context.Background(), store.TableSpec{Name: "t", Family: "f"}); err != nil {
		t.Fatal(err)
	}
	if ttl := scanTTL(t, mc, "t"); ttl != 250 {
		t.Fatalf("scan answered a lease of %d ms, want 250", ttl)
	}
}

// scanTTL opens a scanner on table's first region and returns the lease
// the answer gives it.
func scanTTL(t *testing.T, mc *minicluster, table string) uint32 {
	t.Helper()
	rs, err := mc.eng.Regions(context.Background(), table)
	if err != nil {
		t.Fatal(err)
	}
	addr, _ := mc.cl.ServerAddr(rs[0].Server)
	nc, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	_ = nc.SetDeadline(time.Now().Add(5 * time.Second))
	req := &pb.ScanRequest{Region: &pb.RegionSpecifier{Type: pb.RegionSpecifier_REGION_NAME.Enum(), Value: []byte(rs[0].Name)},
		Scan: &pb.Scan{}, NumberOfRows: proto.Uint32(1), CloseScanner: proto.Bool(true)}
	if err := wire.WritePreamble(nc, wire.ServiceClient, "tester", false); err != nil {
		t.Fatal(err)
	}
	if err := wire.WriteRequest(nc, &pb.RequestHeader{CallId: proto.Uint32(1), MethodName: proto.String("Scan")}, req, nil); err != nil {
		t.Fatal(err)
	}
	hdr, msg, _, err := wire.ReadResponse(bufio.NewReader(nc))
	if err != nil || hdr.GetException() != nil {
		t.Fatalf("scan: %v %v", err, hdr.GetException())
	}
	resp := &pb.ScanResponse{}
	if err := proto.Unmarshal(msg, resp); err != nil {
		t.Fatal(err)
	}
	return resp.GetTtl()
}
