package hbasetest

import (
	"net"
	"testing"
	"time"

	"commentbench/hbase/pb"
	"commentbench/hbase/wire"
)

func TestOutOfOrderAnswers(t *testing.T) {
	c, eng := newCluster(t, 1)
	r := createTable(t, eng, "t")[0]
	cl := rsClient(t, c, r.Server, true)

	c.SetLatency(300 * time.Millisecond)
	slow := cl.send("Get", getReq(r.Name, "a"), nil)
	// Wait until the server has read the slow call (its latency is fixed
	// then), so the next call gets none.
	deadline := time.Now().Add(5 * time.Second)
	for c.Calls()["Get"] < 1 {
		if time.Now().After(deadline) {
			t.Fatal("slow call never arrived")
		}
		time.Sleep(time.Millisecond)
	}
	c.SetLatency(0)
	req, block := putReq(r.Name, "b", "q", "v")
	fast := cl.send("Mutate", req, block)
	first, second := cl.recv(), cl.recv()
	if first.hdr.GetCallId() != fast || second.hdr.GetCallId() != slow {
		t.Fatalf("answers for calls %d then %d, want %d then %d", first.hdr.GetCallId(), second.hdr.GetCallId(), fast, slow)
	}
	if c.Calls()["Mutate"] != 1 {
		t.Fatalf("calls %v", c.Calls())
	}
}

func TestFailNext(t *testing.T) {
	c, eng := newCluster(t, 2)
	rs := createTable(t, eng, "t", "m")
	c.FailNext(2, wire.ExcRegionTooBusy)
	for _, r := range rs[:2] {
		cl := rsClient(t, c, r.Server, true)
		_, exc := cl.call("Get", getReq(r.Name, string(r.Start)+"\x01"), nil, &pb.GetResponse{})
		wantExc(t, exc, wire.ExcRegionTooBusy)
	}
	cl := rsClient(t, c, rs[0].Server, true)
	cl.mustCall("Get", getReq(rs[0].Name, "a"), nil, &pb.GetResponse{})
	// Registry calls are not ClientService calls.
	c.FailNext(1, wire.ExcRegionTooBusy)
	mc := dial(t, c.MasterAddr(), wire.ServiceClientMeta, true)
	mc.mustCall("GetClusterId", &pb.GetClusterIdRequest{}, nil, &pb.GetClusterIdResponse{})
}

func TestKillServer(t *testing.T) {
	c, eng := newCluster(t, 3)
	rs := createTable(t, eng, "t", "f", "m")
	victim := c.MetaServer()
	var r = rs[0]
	for _, x := range rs {
		if x.Server == victim {
			r = x
		}
	}
	if r.Server != victim {
		t.Fatalf("no region on %s: %v", victim, rs)
	}
	oldAddr, _ := c.ServerAddr(victim)
	cl := dial(t, oldAddr, wire.ServiceClient, true)
	cl.mustCall("Get", getReq(r.Name, string(r.Start)+"\x01"), nil, &pb.GetResponse{})

	// A call in flight when the server dies gets no answer.
	c.SetLatency(time.Second)
	cl.send("Get", getReq(r.Name, string(r.Start)+"\x01"), nil)
	for c.Calls()["Get"] < 2 {
		time.Sleep(time.Millisecond)
	}
	if err := c.KillServer(victim); err != nil {
		t.Fatal(err)
	}
	c.SetLatency(0)
	if _, _, _, err := wire.ReadResponse(cl.br); err == nil {
		t.Fatal("answer from a killed server")
	}
	if nc, err := net.DialTimeout("tcp", oldAddr, time.Second); err == nil {
		// The port may be reused only by an unrelated listener; ours is closed.
		nc.Close()
		t.Log("old address accepted a connection")
	}
	if _, ok := c.ServerAddr(victim); ok {
		t.Fatal("killed server still has an address")
	}
	if c.MetaServer() == victim {
		t.Fatal("meta still on the killed server")
	}
	for _, a := range c.Bootstrap() {
		if a == oldAddr {
			t.Fatal("killed server still bootstraps")
		}
	}

	infos, servers := metaLookup(t, c, "t", string(r.Start)+"\x01")
	if len(infos) != 1 || servers[0] == oldAddr || servers[0] == "" {
		t.Fatalf("lookup after kill: %v at %v", infos, servers)
	}
	moved, _ := eng.RegionByName(r.Name)
	if moved.Server == victim {
		t.Fatal("region still on the killed server")
	}
	addr, _ := c.ServerAddr(moved.Server)
	if addr != servers[0] {
		t.Fatalf("meta says %s, region is on %s", servers[0], addr)
	}
	cl2 := dial(t, addr, wire.ServiceClient, true)
	cl2.mustCall("Get", getReq(r.Name, string(r.Start)+"\x01"), nil, &pb.GetResponse{})

	if err := c.KillServer(victim); err == nil {
		t.Fatal("killed twice")
	}
}
