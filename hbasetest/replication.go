package hbasetest

import (
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"commentbench/hbase/pb"
	"commentbench/hbase/wire"

	"google.golang.org/protobuf/proto"
)

// Replication peers as HBase 2's master keeps them (ReplicationPeerManager):
// an id, the peer config and an enabled flag. Nothing is replicated; the
// master only remembers, checks and lists. Each change is a procedure,
// FINISHED by the time its id is answered, and its precondition failures
// are thrown by the call itself, as the master does for a client that
// sends no version (HBase's compatibility latch).

// excPeerNotFound is what the master throws for a peer id it does not
// have; a DoNotRetryIOException whose message is the id.
const excPeerNotFound = "org.apache.hadoop.hbase.ReplicationPeerNotFoundException"

// ReplicationPeer is a replication peer the master lists.
type ReplicationPeer struct {
	ID         string
	ClusterKey string // quorum:port:znode parent of the peer cluster
	Enabled    bool
}

// peer is a peer's state: its config as the master reads it back
// (replicate_all, serial and bandwidth always set) and whether it is on.
type peer struct {
	config  *pb.ReplicationPeer
	enabled bool
}

// AddReplicationPeer makes the master have a peer, replacing one of the
// same id, without the checks AddReplicationPeer on the wire makes.
func (c *Cluster) AddReplicationPeer(p ReplicationPeer) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.peers[p.ID] = peer{config: normalPeerConfig(&pb.ReplicationPeer{Clusterkey: proto.String(p.ClusterKey)}), enabled: p.Enabled}
}

// replicationCall serves the peer methods of MasterService; handled is
// false for any other method.
func (c *Cluster) replicationCall(method string, param []byte) (resp proto.Message, handled bool, err error) {
	switch method {
	case "ListReplicationPeers":
		resp, err = handle(param, &pb.ListReplicationPeersRequest{}, c.replicationPeers)
	case "AddReplicationPeer":
		resp, err = handle(param, &pb.AddReplicationPeerRequest{}, c.addPeer)
	case "RemoveReplicationPeer":
		resp, err = handle(param, &pb.RemoveReplicationPeerRequest{}, c.removePeer)
	case "EnableReplicationPeer":
		resp, err = handle(param, &pb.EnableReplicationPeerRequest{}, func(r *pb.EnableReplicationPeerRequest) (proto.Message, error) {
			id, err := c.setPeerState(r.GetPeerId(), true)
			return &pb.EnableReplicationPeerResponse{ProcId: proto.Uint64(id)}, err
		})
	case "DisableReplicationPeer":
		resp, err = handle(param, &pb.DisableReplicationPeerRequest{}, func(r *pb.DisableReplicationPeerRequest) (proto.Message, error) {
			id, err := c.setPeerState(r.GetPeerId(), false)
			return &pb.DisableReplicationPeerResponse{ProcId: proto.Uint64(id)}, err
		})
	case "GetReplicationPeerConfig":
		resp, err = handle(param, &pb.GetReplicationPeerConfigRequest{}, c.peerConfig)
	case "UpdateReplicationPeerConfig":
		resp, err = handle(param, &pb.UpdateReplicationPeerConfigRequest{}, c.updatePeer)
	default:
		return nil, false, nil
	}
	return resp, true, err
}

func (c *Cluster) addPeer(r *pb.AddReplicationPeerRequest) (proto.Message, error) {
	id := r.GetPeerId()
	if strings.Contains(id, "-") {
		return nil, excf(wire.ExcDoNotRetryIO, "Found invalid peer name: %s", id)
	}
	cfg := normalPeerConfig(r.GetPeerConfig())
	if err := checkPeerConfig(cfg); err != nil {
		return nil, err
	}
	c.mu.Lock()
	if _, ok := c.peers[id]; ok {
		c.mu.Unlock()
		return nil, excf(wire.ExcDoNotRetryIO, "Replication peer %s already exists", id)
	}
	c.peers[id] = peer{config: cfg, enabled: r.GetPeerState().GetState() == pb.ReplicationState_ENABLED}
	c.mu.Unlock()
	return &pb.AddReplicationPeerResponse{ProcId: proto.Uint64(c.newProc())}, nil
}

func (c *Cluster) removePeer(r *pb.RemoveReplicationPeerRequest) (proto.Message, error) {
	c.mu.Lock()
	if _, ok := c.peers[r.GetPeerId()]; !ok {
		c.mu.Unlock()
		return nil, peerNotFound(r.GetPeerId())
	}
	delete(c.peers, r.GetPeerId())
	c.mu.Unlock()
	return &pb.RemoveReplicationPeerResponse{ProcId: proto.Uint64(c.newProc())}, nil
}

// setPeerState turns a peer on or off; HBase refuses to turn it to the
// state it is in.
func (c *Cluster) setPeerState(id string, enabled bool) (uint64, error) {
	c.mu.Lock()
	p, ok := c.peers[id]
	switch {
	case !ok:
		c.mu.Unlock()
		return 0, peerNotFound(id)
	case p.enabled == enabled:
		c.mu.Unlock()
		state := "disabled"
		if enabled {
			state = "enabled"
		}
		return 0, excf(wire.ExcDoNotRetryIO, "Replication peer %s has already been %s", id, state)
	}
	p.enabled = enabled
	c.peers[id] = p
	c.mu.Unlock()
	return c.newProc(), nil
}

func (c *Cluster) peerConfig(r *pb.GetReplicationPeerConfigRequest) (proto.Message, error) {
	c.mu.Lock()
	p, ok := c.peers[r.GetPeerId()]
	c.mu.Unlock()
	if !ok {
		return nil, peerNotFound(r.GetPeerId())
	}
	return &pb.GetReplicationPeerConfigResponse{PeerId: proto.String(r.GetPeerId()), PeerConfig: proto.Clone(p.config).(*pb.ReplicationPeer)}, nil
}

// updatePeer replaces a peer's config, as preUpdatePeerConfig and
// updatePeerConfig do: the cluster key and endpoint stay what they were,
// and the new configuration map is laid over the old one.
func (c *Cluster) updatePeer(r *pb.UpdateReplicationPeerConfigRequest) (proto.Message, error) {
	id := r.GetPeerId()
	cfg := normalPeerConfig(r.GetPeerConfig())
	if err := checkPeerConfig(cfg); err != nil {
		return nil, err
	}
	c.mu.Lock()
	p, ok := c.peers[id]
	if !ok {
		c.mu.Unlock()
		return nil, peerNotFound(id)
	}
	if err := checkPeerUpdate(id, p.config, cfg); err != nil {
		c.mu.Unlock()
		return nil, err
	}
	cfg.Configuration = mergeConfiguration(p.config.GetConfiguration(), cfg.GetConfiguration())
	p.config = cfg
	c.peers[id] = p
	c.mu.Unlock()
	return &pb.UpdateReplicationPeerConfigResponse{ProcId: proto.Uint64(c.newProc())}, nil
}

func checkPeerUpdate(id string, old, cfg *pb.ReplicationPeer) error {
	if old.GetClusterkey() != cfg.GetClusterkey() {
		return excf(wire.ExcDoNotRetryIO, "Changing the cluster key on an existing peer is not allowed. Existing key '%s' for peer %s does not match new key '%s'",
			javaString(old.Clusterkey), id, javaString(cfg.Clusterkey))
	}
	if old.GetReplicationEndpointImpl() != cfg.GetReplicationEndpointImpl() {
		return excf(wire.ExcDoNotRetryIO, "Changing the replication endpoint implementation class on an existing peer is not allowed. Existing class '%s' for peer %s does not match new class '%s'",
			javaString(old.ReplicationEndpointImpl), id, javaString(cfg.ReplicationEndpointImpl))
	}
	return nil
}

// javaString prints an optional string as Java concatenates it.
func javaString(s *string) string {
	if s == nil {
		return "null"
	}
	return *s
}

// mergeConfiguration is old's entries overridden and extended by new's.
func mergeConfiguration(old, new []*pb.NameStringPair) []*pb.NameStringPair {
	out := make([]*pb.NameStringPair, 0, len(old)+len(new))
	for _, o := range old {
		if !slices.ContainsFunc(new, func(n *pb.NameStringPair) bool { return n.GetName() == o.GetName() }) {
			out = append(out, proto.Clone(o).(*pb.NameStringPair))
		}
	}
	return append(out, new...)
}

func peerNotFound(id string) error { return excf(excPeerNotFound, "%s", id) }

// normalPeerConfig is a copy of cfg as the master reads it: HBase's
// ReplicationPeerConfig replicates all user tables unless told otherwise,
// and writes replicate_all, serial and bandwidth back always.
func normalPeerConfig(cfg *pb.ReplicationPeer) *pb.ReplicationPeer {
	out := &pb.ReplicationPeer{}
	if cfg != nil {
		out = proto.Clone(cfg).(*pb.ReplicationPeer)
	}
	out.ReplicateAll = proto.Bool(out.ReplicateAll == nil || out.GetReplicateAll())
	out.Serial = proto.Bool(out.GetSerial())
	out.Bandwidth = proto.Int64(out.GetBandwidth())
	return out
}

// checkPeerConfig makes ReplicationPeerManager.checkPeerConfig's checks: a
// cluster key ZooKeeper can use (unless a custom endpoint replicates, one
// this cluster cannot load to ask), and tables or namespaces to replicate
// only when not replicating all, exclusions only when replicating all.
func checkPeerConfig(cfg *pb.ReplicationPeer) error {
	if strings.TrimSpace(cfg.GetReplicationEndpointImpl()) == "" {
		if err := checkClusterKey(cfg.GetClusterkey()); err != nil {
			return err
		}
	}
	if cfg.GetReplicateAll() {
		if len(cfg.GetNamespaces()) > 0 || len(cfg.GetTableCfs()) > 0 {
			return excf(wire.ExcDoNotRetryIO, "Need clean namespaces or table-cfs config firstly when you want replicate all cluster")
		}
		return checkNamespaceConflict(cfg.GetExcludeNamespaces(), cfg.GetExcludeTableCfs())
	}
	if len(cfg.GetExcludeNamespaces()) > 0 || len(cfg.GetExcludeTableCfs()) > 0 {
		return excf(wire.ExcDoNotRetryIO, "Need clean exclude-namespaces or exclude-table-cfs config firstly when replicate_all flag is false")
	}
	return checkNamespaceConflict(cfg.GetNamespaces(), cfg.GetTableCfs())
}

// zkParent is what ZKConfig.transformClusterKey accepts as a znode parent.
var zkParent = regexp.MustCompile(`^/.*[^/]$`)

// checkClusterKey accepts quorum:clientPort:znodeParent, the quorum
// possibly holding host:port pairs itself.
func checkClusterKey(key string) error {
	parts := strings.Split(key, ":")
	n := len(parts)
	if n >= 3 && zkParent.MatchString(parts[n-1]) {
		if _, err := strconv.ParseInt(parts[n-2], 10, 32); err == nil {
			return nil
		}
	}
	return excf(wire.ExcDoNotRetryIO, "Invalid cluster key: %s", key)
}

// checkNamespaceConflict refuses a table listed beside its own namespace.
func checkNamespaceConflict(namespaces [][]byte, tcfs []*pb.TableCF) error {
	for _, t := range tcfs {
		ns := string(t.GetTableName().GetNamespace())
		if slices.ContainsFunc(namespaces, func(n []byte) bool { return string(n) == ns }) {
			return excf(wire.ExcDoNotRetryIO, "Table-cfs %s is conflict with namespaces %s in peer config", wire.TableText(t.GetTableName()), ns)
		}
	}
	return nil
}

// replicationPeers lists the peers whose whole id the regex matches, by
// id.
func (c *Cluster) replicationPeers(req *pb.ListReplicationPeersRequest) (proto.Message, error) {
	pat := ".*"
	if req.Regex != nil {
		pat = req.GetRegex()
	}
	re, err := regexp.Compile("^(?:" + pat + ")$")
	if err != nil {
		return nil, excf(wire.ExcDoNotRetryIO, "bad regex %q: %v", pat, err)
	}
	resp := &pb.ListReplicationPeersResponse{}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range slices.Sorted(maps.Keys(c.peers)) {
		if !re.MatchString(id) {
			continue
		}
		p := c.peers[id]
		state := pb.ReplicationState_DISABLED
		if p.enabled {
			state = pb.ReplicationState_ENABLED
		}
		resp.PeerDesc = append(resp.PeerDesc, &pb.ReplicationPeerDescription{
			Id:     proto.String(id),
			State:  &pb.ReplicationState{State: state.Enum()},
			Config: proto.Clone(p.config).(*pb.ReplicationPeer),
		})
	}
	return resp, nil
}
