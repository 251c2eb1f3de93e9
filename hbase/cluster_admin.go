package hbase

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"time"

	"google.golang.org/protobuf/proto"

	"commentbench/hbase/pb"
	"commentbench/hbase/wire"
)

// ClusterStatus is what the master says of the cluster.
type ClusterStatus struct {
	Version    string
	ClusterID  string
	Master     string // host:port
	BalancerOn bool
	Live       []ServerLoad
	Dead       []string // host:port
}

// ServerLoad is one live region server and the requests its regions took.
type ServerLoad struct {
	Server   string // host:port
	Requests uint64 // reads and writes since the regions opened
	Regions  []RegionLoad
}

// RegionLoad is one region's request counters.
type RegionLoad struct {
	Name          []byte
	Reads, Writes uint64
}

// ClusterStatus asks the master for the cluster's status.
func (c *Client) ClusterStatus(ctx context.Context) (ClusterStatus, error) {
	var resp pb.GetClusterStatusResponse
	if err := c.masterCall(ctx, "GetClusterStatus", &pb.GetClusterStatusRequest{}, &resp); err != nil {
		return ClusterStatus{}, err
	}
	st := resp.GetClusterStatus()
	out := ClusterStatus{
		Version:    st.GetHbaseVersion().GetVersion(),
		ClusterID:  st.GetClusterId().GetClusterId(),
		BalancerOn: st.GetBalancerOn(),
	}
	if st.Master != nil {
		out.Master = serverAddr(st.GetMaster())
	}
	for _, ls := range st.GetLiveServers() {
		sl := ServerLoad{Server: serverAddr(ls.GetServer()), Requests: ls.GetServerLoad().GetTotalNumberOfRequests()}
		for _, rl := range ls.GetServerLoad().GetRegionLoads() {
			sl.Regions = append(sl.Regions, RegionLoad{Name: rl.GetRegionSpecifier().GetValue(),
				Reads: rl.GetReadRequestsCount(), Writes: rl.GetWriteRequestsCount()})
		}
		out.Live = append(out.Live, sl)
	}
	for _, sn := range st.GetDeadServers() {
		out.Dead = append(out.Dead, serverAddr(sn))
	}
	return out, nil
}

// SetBalancer turns the master's balancer on or off and returns whether
// it was on.
func (c *Client) SetBalancer(ctx context.Context, on bool) (bool, error) {
	var resp pb.SetBalancerRunningResponse
	err := c.masterCall(ctx, "SetBalancerRunning", &pb.SetBalancerRunningRequest{On: proto.Bool(on), Synchronous: proto.Bool(true)}, &resp)
	return resp.GetPrevBalanceValue(), err
}

// BalancerEnabled asks whether the master's balancer is on.
func (c *Client) BalancerEnabled(ctx context.Context) (bool, error) {
	var resp pb.IsBalancerEnabledResponse
	err := c.masterCall(ctx, "IsBalancerEnabled", &pb.IsBalancerEnabledRequest{}, &resp)
	return resp.GetEnabled(), err
}

// MoveRegion asks the master to move a region (by its full name, as
// Regions lists it) to the region server at dest ("host:port"); dest ""
// lets the master choose. The client finds the region's new home at its
// next call there.
func (c *Client) MoveRegion(ctx context.Context, region []byte, dest string) error {
	enc, err := wire.EncodedRegionName(region)
	if err != nil {
		return fmt.Errorf("hbase: move: %w", err)
	}
	req := &pb.MoveRegionRequest{Region: &pb.RegionSpecifier{Type: pb.RegionSpecifier_ENCODED_REGION_NAME.Enum(), Value: []byte(enc)}}
	if dest != "" {
		host, port, err := net.SplitHostPort(dest)
		if err != nil {
			return fmt.Errorf("hbase: move to %q: %w", dest, err)
		}
		p, err := strconv.ParseUint(port, 10, 16)
		if err != nil {
			return fmt.Errorf("hbase: move to %q: %w", dest, err)
		}
		req.DestServerName = &pb.ServerName{HostName: proto.String(host), Port: proto.Uint32(uint32(p))}
	}
	return c.masterCall(ctx, "MoveRegion", req, &pb.MoveRegionResponse{})
}

// Snapshot is a snapshot the master keeps.
type Snapshot struct {
	Name, Table string
	Created     time.Time
}

// TakeSnapshot snapshots table under name and waits until it is done.
func (c *Client) TakeSnapshot(ctx context.Context, name, table string) error {
	desc := &pb.SnapshotDescription{Name: proto.String(name), Table: proto.String(table), Type: pb.SnapshotDescription_FLUSH.Enum()}
	var resp pb.SnapshotResponse
	if err := c.masterCall(ctx, "Snapshot", &pb.SnapshotRequest{Snapshot: desc}, &resp); err != nil {
		return err
	}
	// Every HBase 2 master answers IsSnapshotDone; only newer ones give a
	// procedure id.
	for n := 0; ; n++ {
		var done pb.IsSnapshotDoneResponse
		if err := c.masterCall(ctx, "IsSnapshotDone", &pb.IsSnapshotDoneRequest{Snapshot: desc}, &done); err != nil {
			return err
		}
		if done.GetDone() {
			return nil
		}
		if err := sleep(ctx, backoff(n+1)); err != nil {
			return err
		}
	}
}

// Snapshots lists the completed snapshots.
func (c *Client) Snapshots(ctx context.Context) ([]Snapshot, error) {
	var resp pb.GetCompletedSnapshotsResponse
	if err := c.masterCall(ctx, "GetCompletedSnapshots", &pb.GetCompletedSnapshotsRequest{}, &resp); err != nil {
		return nil, err
	}
	var out []Snapshot
	for _, d := range resp.GetSnapshots() {
		out = append(out, Snapshot{Name: d.GetName(), Table: d.GetTable(), Created: time.UnixMilli(d.GetCreationTime())})
	}
	return out, nil
}

// DeleteSnapshot deletes a snapshot.
func (c *Client) DeleteSnapshot(ctx context.Context, name string) error {
	req := &pb.DeleteSnapshotRequest{Snapshot: &pb.SnapshotDescription{Name: proto.String(name)}}
	return c.masterCall(ctx, "DeleteSnapshot", req, &pb.DeleteSnapshotResponse{})
}

// RestoreSnapshot puts a snapshot back into its table, which must be
// disabled, or creates the table from it if it is gone.
func (c *Client) RestoreSnapshot(ctx context.Context, name string) error {
	snaps, err := c.Snapshots(ctx)
	if err != nil {
		return err
	}
	desc := &pb.SnapshotDescription{Name: proto.String(name)}
	for _, s := range snaps {
		if s.Name == name {
			desc.Table = proto.String(s.Table)
		}
	}
	var resp pb.RestoreSnapshotResponse
	if err := c.masterCall(ctx, "RestoreSnapshot", &pb.RestoreSnapshotRequest{Snapshot: desc}, &resp); err != nil {
		return err
	}
	if desc.Table != nil {
		c.cache.removeTable(normTable(desc.GetTable()))
	}
	return c.waitProcedure(ctx, "RestoreSnapshot", resp.GetProcId())
}

// ReplicationPeer is a replication peer the master lists.
type ReplicationPeer struct {
	ID         string
	ClusterKey string
	Enabled    bool
}

// ReplicationPeers lists the peers whose whole id the Java regex matches
// (empty: all).
func (c *Client) ReplicationPeers(ctx context.Context, regex string) ([]ReplicationPeer, error) {
	req := &pb.ListReplicationPeersRequest{}
	if regex != "" {
		req.Regex = proto.String(regex)
	}
	var resp pb.ListReplicationPeersResponse
	if err := c.masterCall(ctx, "ListReplicationPeers", req, &resp); err != nil {
		return nil, err
	}
	var out []ReplicationPeer
	for _, d := range resp.GetPeerDesc() {
		out = append(out, ReplicationPeer{ID: d.GetId(), ClusterKey: d.GetConfig().GetClusterkey(),
			Enabled: d.GetState().GetState() == pb.ReplicationState_ENABLED})
	}
	return out, nil
}
