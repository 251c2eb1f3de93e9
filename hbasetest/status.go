package hbasetest

import (
	"slices"
	"time"

	"commentbench/hbase/pb"
	"commentbench/hbase/wire"
	"commentbench/store"

	"google.golang.org/protobuf/proto"
)

// The master's cluster-wide methods: status, region moves, the balancer
// switch and replication peers; snapshots are in snapshots.go.

// Version is the HBase version the cluster reports.
const Version = "2.5.0-commentbench"

// clusterCall serves the MasterService methods beyond table DDL.
func (c *Cluster) clusterCall(method string, param []byte) (proto.Message, error) {
	switch method {
	case "GetClusterStatus":
		return handle(param, &pb.GetClusterStatusRequest{}, c.clusterStatus)
	case "MoveRegion":
		return handle(param, &pb.MoveRegionRequest{}, c.moveRegionCall)
	case "SetBalancerRunning":
		return handle(param, &pb.SetBalancerRunningRequest{}, func(r *pb.SetBalancerRunningRequest) (proto.Message, error) {
			prev, err := c.eng.SetBalancer(r.GetOn())
			return &pb.SetBalancerRunningResponse{PrevBalanceValue: proto.Bool(prev)}, err
		})
	case "IsBalancerEnabled":
		return handle(param, &pb.IsBalancerEnabledRequest{}, func(*pb.IsBalancerEnabledRequest) (proto.Message, error) {
			return &pb.IsBalancerEnabledResponse{Enabled: proto.Bool(c.eng.BalancerEnabled())}, nil
		})
	}
	if resp, ok, err := c.replicationCall(method, param); ok {
		return resp, err
	}
	return c.snapshotCall(method, param)
}

// clusterStatus answers GetClusterStatus with the parts asked for (all
// when none is): per live server, its regions' request counters.
func (c *Cluster) clusterStatus(req *pb.GetClusterStatusRequest) (proto.Message, error) {
	want := func(o pb.Option) bool { return len(req.GetOptions()) == 0 || slices.Contains(req.GetOptions(), o) }
	st := &pb.ClusterStatus{}
	if want(pb.Option_HBASE_VERSION) {
		st.HbaseVersion = &pb.HBaseVersionFileContent{Version: proto.String(Version)}
	}
	if want(pb.Option_CLUSTER_ID) {
		st.ClusterId = &pb.ClusterId{ClusterId: proto.String(c.clusterID())}
	}
	if want(pb.Option_MASTER) {
		st.Master = c.master.serverName()
	}
	if want(pb.Option_BACKUP_MASTERS) {
		st.BackupMasters = []*pb.ServerName{}
	}
	if want(pb.Option_BALANCER_ON) {
		st.BalancerOn = proto.Bool(c.eng.BalancerEnabled())
	}
	live := c.liveServers()
	if want(pb.Option_SERVERS_NAME) {
		for _, n := range live {
			st.ServersName = append(st.ServersName, n.serverName())
		}
	}
	if want(pb.Option_DEAD_SERVERS) {
		for _, n := range c.servers {
			if !slices.Contains(live, n) {
				st.DeadServers = append(st.DeadServers, n.serverName())
			}
		}
	}
	if want(pb.Option_LIVE_SERVERS) {
		stats, err := c.eng.RegionStats(c.ctx)
		if err != nil {
			return nil, err
		}
		for _, n := range live {
			st.LiveServers = append(st.LiveServers, &pb.LiveServerInfo{Server: n.serverName(), ServerLoad: serverLoad(n.name, stats)})
		}
	}
	return &pb.GetClusterStatusResponse{ClusterStatus: st}, nil
}

// serverLoad sums the counters of the regions server hosts.
func serverLoad(server string, stats []store.RegionStat) *pb.ServerLoad {
	now := uint64(time.Now().UnixMilli())
	load := &pb.ServerLoad{ReportStartTime: proto.Uint64(now), ReportEndTime: proto.Uint64(now)}
	var reads, writes uint64
	for _, s := range stats {
		if s.Server != server {
			continue
		}
		reads, writes = reads+s.ReadRequests, writes+s.WriteRequests
		load.RegionLoads = append(load.RegionLoads, &pb.RegionLoad{
			RegionSpecifier:    &pb.RegionSpecifier{Type: pb.RegionSpecifier_REGION_NAME.Enum(), Value: []byte(s.Name)},
			ReadRequestsCount:  proto.Uint64(s.ReadRequests),
			WriteRequestsCount: proto.Uint64(s.WriteRequests),
		})
	}
	load.ReadRequestsCount, load.WriteRequestsCount = proto.Uint64(reads), proto.Uint64(writes)
	load.TotalNumberOfRequests = proto.Uint64(reads + writes)
	return load
}

func (c *Cluster) moveRegionCall(req *pb.MoveRegionRequest) (proto.Message, error) {
	name, err := c.regionName(req.GetRegion())
	if err != nil {
		return nil, err
	}
	dest := ""
	if sn := req.GetDestServerName(); sn != nil {
		n := c.nodeAt(sn)
		if n == nil {
			return nil, excf(wire.ExcDoNotRetryIO, "move %s: server %s:%d is not a region server of this cluster", name, sn.GetHostName(), sn.GetPort())
		}
		dest = n.name
	}
	return &pb.MoveRegionResponse{}, c.MoveRegion(name, dest)
}

// regionName resolves a RegionSpecifier to a region's full name; HBase's
// admin names regions by their encoded name (the hex after the id).
func (c *Cluster) regionName(spec *pb.RegionSpecifier) (string, error) {
	v := string(spec.GetValue())
	if spec.GetType() == pb.RegionSpecifier_ENCODED_REGION_NAME {
		if v == wire.MetaEncodedName {
			return wire.MetaRegionName, nil
		}
		stats, err := c.eng.RegionStats(c.ctx)
		if err != nil {
			return "", err
		}
		for _, s := range stats {
			if enc, err := wire.EncodedRegionName([]byte(s.Name)); err == nil && enc == v {
				return s.Name, nil
			}
		}
	} else if _, ok := c.eng.RegionByName(v); ok || v == wire.MetaRegionName {
		return v, nil
	}
	return "", excf(wire.ExcUnknownRegion, "%s", v)
}

// nodeAt finds the live region server a ServerName points to.
func (c *Cluster) nodeAt(sn *pb.ServerName) *node {
	for _, n := range c.liveServers() {
		if n.port == sn.GetPort() && (sn.GetHostName() == "127.0.0.1" || sn.GetHostName() == "localhost") {
			return n
		}
	}
	return nil
}

// MoveRegion moves a region (by full name; hbase:meta,,1 too) to a live
// region server, as HBase's admin move does: server "" picks the next
// live server after the region's own. The region keeps its name; clients
// holding it get NotServingRegionException and look it up again.
func (c *Cluster) MoveRegion(region, server string) error {
	live := c.liveServers()
	if len(live) == 0 {
		return excf(wire.ExcDoNotRetryIO, "move %s: no live region server", region)
	}
	cur := c.MetaServer()
	if region != wire.MetaRegionName {
		r, ok := c.eng.RegionByName(region)
		if !ok {
			return excf(wire.ExcUnknownRegion, "%s", region)
		}
		cur = r.Server
	}
	if server == "" {
		server = nextServer(live, cur)
	} else if n, ok := c.byName[server]; !ok || n.master || !slices.Contains(live, n) {
		return excf(wire.ExcDoNotRetryIO, "move %s: %s is not a live region server", region, server)
	}
	if region == wire.MetaRegionName {
		c.mu.Lock()
		c.metaHost = server
		c.mu.Unlock()
		return c.publishMeta()
	}
	return c.eng.MoveRegion(region, server)
}

// nextServer is the live server after cur in engine order, wrapping.
func nextServer(live []*node, cur string) string {
	for i, n := range live {
		if n.name == cur {
			return live[(i+1)%len(live)].name
		}
	}
	return live[0].name
}
