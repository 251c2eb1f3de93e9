package hbasetest

import (
	"maps"

	"commentbench/hbase/pb"
	"commentbench/hbase/wire"
)

// FailMethod makes every call of method (its name on the wire, such as
// "GetTableNames" or "Mutate", on any service) fail with a call-level
// exception of class until FailMethod(method, "") clears it. Unlike
// FailNext it lasts: a test need not know how many calls a command makes.
func (c *Cluster) FailMethod(method, class string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if class == "" {
		delete(c.failing, method)
		return
	}
	c.failing[method] = class
}

// RejectWrites turns the cluster read-only for its clients, as HBase's
// AccessController does for a user with only READ: every mutation (Mutate,
// and a Multi carrying any) and every master call that changes tables,
// snapshots or assignments is answered with an AccessDeniedException
// before it touches anything. Reads go on. Denied counts what it refused.
func (c *Cluster) RejectWrites(on bool) { c.denyWrites.Store(on) }

// Denied counts, per method, the calls RejectWrites refused: a client
// that wrote nothing while it was on leaves it empty.
func (c *Cluster) Denied() map[string]int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return maps.Clone(c.denied)
}

// masterChanges are the MasterService calls that change the cluster.
var masterChanges = map[string]bool{
	"CreateTable": true, "DisableTable": true, "EnableTable": true, "DeleteTable": true,
	"Snapshot": true, "DeleteSnapshot": true, "RestoreSnapshot": true,
	"MoveRegion": true, "SetBalancerRunning": true,
	"AddReplicationPeer": true, "RemoveReplicationPeer": true, "EnableReplicationPeer": true,
	"DisableReplicationPeer": true, "UpdateReplicationPeerConfig": true,
}

// injected is the failure FailMethod or RejectWrites set for this call, if
// any.
func (c *Cluster) injected(service, method string, param []byte) error {
	c.mu.Lock()
	class, failing := c.failing[method]
	c.mu.Unlock()
	if failing {
		return excf(class, "injected failure of %s", method)
	}
	if !c.denyWrites.Load() || !changes(service, method, param) {
		return nil
	}
	c.mu.Lock()
	c.denied[method]++
	c.mu.Unlock()
	return excf(wire.ExcAccessDenied, "Insufficient permissions for %s (action=WRITE): the cluster is read-only", method)
}

// changes reports whether a call would change data or the cluster. A Multi
// that does not decode is let through, to fail as it would anyway.
func changes(service, method string, param []byte) bool {
	switch service {
	case wire.ServiceMaster:
		return masterChanges[method]
	case wire.ServiceClient:
	default:
		return false
	}
	switch method {
	case "Mutate":
		return true
	case "Multi":
		req := &pb.MultiRequest{}
		if decode(param, req) != nil {
			return false
		}
		for _, ra := range req.GetRegionAction() {
			for _, a := range ra.GetAction() {
				if a.GetMutation() != nil {
					return true
				}
			}
		}
	}
	return false
}
