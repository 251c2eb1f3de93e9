package hbasetest

import (
	"slices"
	"strings"
	"testing"

	"commentbench/hbase/pb"
	"commentbench/hbase/wire"

	"google.golang.org/protobuf/proto"
)

// wantExcMsg checks an exception's class and the message its stack trace
// starts with.
func wantExcMsg(t *testing.T, exc *pb.ExceptionResponse, class, msg string) {
	t.Helper()
	wantExc(t, exc, class)
	if !strings.HasPrefix(exc.GetStackTrace(), class+": "+msg+"\n") {
		t.Fatalf("%s said %q, want %q", class, exc.GetStackTrace(), msg)
	}
}

func peerState(on bool) *pb.ReplicationState {
	if on {
		return &pb.ReplicationState{State: pb.ReplicationState_ENABLED.Enum()}
	}
	return &pb.ReplicationState{State: pb.ReplicationState_DISABLED.Enum()}
}

func listPeers(t *testing.T, mc *client, regex string) []*pb.ReplicationPeerDescription {
	t.Helper()
	r := &pb.ListReplicationPeersResponse{}
	mc.mustCall("ListReplicationPeers", &pb.ListReplicationPeersRequest{Regex: proto.String(regex)}, nil, r)
	return r.GetPeerDesc()
}

// A peer is added, listed as it was given, turned off and on, read,
// updated and removed, each change a finished procedure, with HBase's
// errors for a peer that exists already, one that does not, and configs
// the master refuses.
func TestReplicationPeers(t *testing.T) {
	c, _ := newCluster(t, 1)
	mc := dial(t, c.MasterAddr(), wire.ServiceMaster, true)
	cfg := &pb.ReplicationPeer{
		Clusterkey:    proto.String("zk1:2181,zk2:2181:2181:/hbase-1"),
		ReplicateAll:  proto.Bool(false),
		Serial:        proto.Bool(true),
		TableCfs:      []*pb.TableCF{{TableName: tn("t"), Families: [][]byte{[]byte("cf"), []byte("cf1")}}},
		Configuration: []*pb.NameStringPair{{Name: proto.String("a"), Value: proto.String("1")}},
	}
	add := &pb.AddReplicationPeerRequest{PeerId: proto.String("p1"), PeerConfig: cfg, PeerState: peerState(true)}
	ar := &pb.AddReplicationPeerResponse{}
	mc.mustCall("AddReplicationPeer", add, nil, ar)
	waitProc(t, mc, ar.GetProcId())
	_, exc := mc.call("AddReplicationPeer", add, nil, &pb.AddReplicationPeerResponse{})
	wantExcMsg(t, exc, wire.ExcDoNotRetryIO, "Replication peer p1 already exists")

	peers := listPeers(t, mc, "p.*")
	want := proto.Clone(cfg).(*pb.ReplicationPeer)
	want.Bandwidth = proto.Int64(0)
	if len(peers) != 1 || peers[0].GetId() != "p1" || peers[0].GetState().GetState() != pb.ReplicationState_ENABLED || !proto.Equal(peers[0].GetConfig(), want) {
		t.Fatalf("listed %v, want p1 enabled with %v", peers, want)
	}
	if got := listPeers(t, mc, "p"); len(got) != 0 {
		t.Fatalf("the regex must match whole ids: %v", got)
	}

	setState(t, mc, "p1", false)
	_, exc = mc.call("DisableReplicationPeer", &pb.DisableReplicationPeerRequest{PeerId: proto.String("p1")}, nil, &pb.DisableReplicationPeerResponse{})
	wantExcMsg(t, exc, wire.ExcDoNotRetryIO, "Replication peer p1 has already been disabled")
	if got := listPeers(t, mc, ".*"); got[0].GetState().GetState() != pb.ReplicationState_DISABLED {
		t.Fatalf("after disable: %v", got)
	}
	setState(t, mc, "p1", true)
	_, exc = mc.call("EnableReplicationPeer", &pb.EnableReplicationPeerRequest{PeerId: proto.String("p1")}, nil, &pb.EnableReplicationPeerResponse{})
	wantExcMsg(t, exc, wire.ExcDoNotRetryIO, "Replication peer p1 has already been enabled")

	updatePeer(t, mc, cfg)
	missingPeer(t, mc, "nope")
	refusedConfigs(t, mc)

	rr := &pb.RemoveReplicationPeerResponse{}
	mc.mustCall("RemoveReplicationPeer", &pb.RemoveReplicationPeerRequest{PeerId: proto.String("p1")}, nil, rr)
	waitProc(t, mc, rr.GetProcId())
	if got := listPeers(t, mc, ".*"); len(got) != 0 {
		t.Fatalf("after remove: %v", got)
	}
}

// setState turns peer id on or off and waits for the procedure.
func setState(t *testing.T, mc *client, id string, on bool) {
	t.Helper()
	if on {
		r := &pb.EnableReplicationPeerResponse{}
		mc.mustCall("EnableReplicationPeer", &pb.EnableReplicationPeerRequest{PeerId: proto.String(id)}, nil, r)
		waitProc(t, mc, r.GetProcId())
		return
	}
	r := &pb.DisableReplicationPeerResponse{}
	mc.mustCall("DisableReplicationPeer", &pb.DisableReplicationPeerRequest{PeerId: proto.String(id)}, nil, r)
	waitProc(t, mc, r.GetProcId())
}

// updatePeer changes p1's tables and lays new settings over the old; its
// cluster key must stay.
func updatePeer(t *testing.T, mc *client, cfg *pb.ReplicationPeer) {
	t.Helper()
	moved := proto.Clone(cfg).(*pb.ReplicationPeer)
	moved.Clusterkey = proto.String("zk9:2181:/hbase")
	_, exc := mc.call("UpdateReplicationPeerConfig", &pb.UpdateReplicationPeerConfigRequest{PeerId: proto.String("p1"), PeerConfig: moved}, nil, &pb.UpdateReplicationPeerConfigResponse{})
	wantExcMsg(t, exc, wire.ExcDoNotRetryIO, "Changing the cluster key on an existing peer is not allowed. Existing key 'zk1:2181,zk2:2181:2181:/hbase-1' for peer p1 does not match new key 'zk9:2181:/hbase'")

	next := proto.Clone(cfg).(*pb.ReplicationPeer)
	next.TableCfs = []*pb.TableCF{{TableName: tn("ns:u")}}
	next.Configuration = []*pb.NameStringPair{{Name: proto.String("b"), Value: proto.String("2")}, {Name: proto.String("a"), Value: proto.String("3")}}
	ur := &pb.UpdateReplicationPeerConfigResponse{}
	mc.mustCall("UpdateReplicationPeerConfig", &pb.UpdateReplicationPeerConfigRequest{PeerId: proto.String("p1"), PeerConfig: next}, nil, ur)
	waitProc(t, mc, ur.GetProcId())
	gr := &pb.GetReplicationPeerConfigResponse{}
	mc.mustCall("GetReplicationPeerConfig", &pb.GetReplicationPeerConfigRequest{PeerId: proto.String("p1")}, nil, gr)
	var conf []string
	for _, p := range gr.GetPeerConfig().GetConfiguration() {
		conf = append(conf, p.GetName()+"="+p.GetValue())
	}
	slices.Sort(conf)
	tcfs := gr.GetPeerConfig().GetTableCfs()
	if gr.GetPeerId() != "p1" || len(tcfs) != 1 || wire.TableText(tcfs[0].GetTableName()) != "ns:u" || !slices.Equal(conf, []string{"a=3", "b=2"}) {
		t.Fatalf("config after update: %v", gr)
	}
}

// missingPeer: every method on a peer id the master lacks.
func missingPeer(t *testing.T, mc *client, id string) {
	t.Helper()
	pid := proto.String(id)
	calls := []struct {
		method    string
		req, resp proto.Message
	}{
		{"RemoveReplicationPeer", &pb.RemoveReplicationPeerRequest{PeerId: pid}, &pb.RemoveReplicationPeerResponse{}},
		{"EnableReplicationPeer", &pb.EnableReplicationPeerRequest{PeerId: pid}, &pb.EnableReplicationPeerResponse{}},
		{"DisableReplicationPeer", &pb.DisableReplicationPeerRequest{PeerId: pid}, &pb.DisableReplicationPeerResponse{}},
		{"GetReplicationPeerConfig", &pb.GetReplicationPeerConfigRequest{PeerId: pid}, &pb.GetReplicationPeerConfigResponse{}},
		{"UpdateReplicationPeerConfig", &pb.UpdateReplicationPeerConfigRequest{PeerId: pid,
			PeerConfig: &pb.ReplicationPeer{Clusterkey: proto.String("zk:2181:/hbase")}}, &pb.UpdateReplicationPeerConfigResponse{}},
	}
	for _, cl := range calls {
		_, exc := mc.call(cl.method, cl.req, nil, cl.resp)
		wantExcMsg(t, exc, excPeerNotFound, id)
		if !exc.GetDoNotRetry() {
			t.Errorf("%s of a missing peer: do_not_retry unset", cl.method)
		}
	}
}

// refusedConfigs: the peer ids and configs ReplicationPeerManager refuses.
func refusedConfigs(t *testing.T, mc *client) {
	t.Helper()
	tables := []*pb.TableCF{{TableName: tn("t")}}
	cases := []struct {
		id  string
		cfg *pb.ReplicationPeer
		msg string
	}{
		{"a-b", &pb.ReplicationPeer{Clusterkey: proto.String("zk:2181:/hbase")}, "Found invalid peer name: a-b"},
		{"k", &pb.ReplicationPeer{Clusterkey: proto.String("zk:2181")}, "Invalid cluster key: zk:2181"},
		{"k", &pb.ReplicationPeer{Clusterkey: proto.String("zk:x:/hbase")}, "Invalid cluster key: zk:x:/hbase"},
		{"k", &pb.ReplicationPeer{Clusterkey: proto.String("zk:2181:/hbase/")}, "Invalid cluster key: zk:2181:/hbase/"},
		// Unset, replicate_all is true: tables then conflict.
		{"all", &pb.ReplicationPeer{Clusterkey: proto.String("zk:2181:/hbase"), TableCfs: tables},
			"Need clean namespaces or table-cfs config firstly when you want replicate all cluster"},
		{"some", &pb.ReplicationPeer{Clusterkey: proto.String("zk:2181:/hbase"), ReplicateAll: proto.Bool(false), ExcludeTableCfs: tables},
			"Need clean exclude-namespaces or exclude-table-cfs config firstly when replicate_all flag is false"},
		{"ns", &pb.ReplicationPeer{Clusterkey: proto.String("zk:2181:/hbase"), ReplicateAll: proto.Bool(false),
			Namespaces: [][]byte{[]byte("default")}, TableCfs: tables}, "Table-cfs t is conflict with namespaces default in peer config"},
	}
	for _, tc := range cases {
		req := &pb.AddReplicationPeerRequest{PeerId: proto.String(tc.id), PeerConfig: tc.cfg, PeerState: peerState(true)}
		_, exc := mc.call("AddReplicationPeer", req, nil, &pb.AddReplicationPeerResponse{})
		wantExcMsg(t, exc, wire.ExcDoNotRetryIO, tc.msg)
	}
	if got := listPeers(t, mc, ".*"); len(got) != 1 {
		t.Fatalf("a refused peer was kept: %v", got)
	}
}
