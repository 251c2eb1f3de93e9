package hbasetest

import (
	"errors"

	"commentbench/hbase/pb"
	"commentbench/hbase/wire"
	"commentbench/store/embedded"

	"google.golang.org/protobuf/proto"
)

// Snapshots through the master: taken, listed, deleted and restored by
// the engine, which keeps them with the data. Each call finishes its work
// before it answers; the procedure ids it hands out are FINISHED.

// snapshotTimeout is what a SnapshotResponse says a client may wait.
const snapshotTimeout = 60_000

func (c *Cluster) snapshotCall(method string, param []byte) (proto.Message, error) {
	switch method {
	case "Snapshot":
		return handle(param, &pb.SnapshotRequest{}, c.takeSnapshot)
	case "IsSnapshotDone":
		return handle(param, &pb.IsSnapshotDoneRequest{}, c.snapshotDone)
	case "GetCompletedSnapshots":
		return handle(param, &pb.GetCompletedSnapshotsRequest{}, func(*pb.GetCompletedSnapshotsRequest) (proto.Message, error) {
			infos, err := c.eng.Snapshots()
			resp := &pb.GetCompletedSnapshotsResponse{}
			for _, in := range infos {
				if !staging(in.Name) {
					resp.Snapshots = append(resp.Snapshots, snapshotDesc(in))
				}
			}
			return resp, err
		})
	case "DeleteSnapshot":
		return handle(param, &pb.DeleteSnapshotRequest{}, func(r *pb.DeleteSnapshotRequest) (proto.Message, error) {
			return &pb.DeleteSnapshotResponse{}, snapshotErr(c.eng.DeleteSnapshot(r.GetSnapshot().GetName()), r.GetSnapshot().GetName())
		})
	case "RestoreSnapshot":
		return handle(param, &pb.RestoreSnapshotRequest{}, c.restoreSnapshot)
	}
	return nil, unknownMethod(wire.ServiceMaster, method)
}

func snapshotDesc(in embedded.SnapshotInfo) *pb.SnapshotDescription {
	return &pb.SnapshotDescription{
		Name:         proto.String(in.Name),
		Table:        proto.String(in.Table),
		CreationTime: proto.Int64(in.Created),
		Type:         pb.SnapshotDescription_FLUSH.Enum(),
		Version:      proto.Int32(2),
	}
}

// snapshotErr maps the engine's snapshot errors to HBase's exceptions.
func snapshotErr(err error, name string) error {
	switch {
	case errors.Is(err, embedded.ErrNoSnapshot):
		return excf(wire.ExcSnapshotDoesNotExist, "Snapshot '%s' doesn't exist on the filesystem", name)
	case errors.Is(err, embedded.ErrSnapshotExists):
		return excf(wire.ExcSnapshotExists, "Snapshot '%s' already stored on the filesystem.", name)
	}
	return err
}

func (c *Cluster) takeSnapshot(req *pb.SnapshotRequest) (proto.Message, error) {
	desc := req.GetSnapshot()
	table, err := userTable(wire.TableFromText(desc.GetTable()))
	if err != nil {
		return nil, err
	}
	c.adminMu.Lock()
	defer c.adminMu.Unlock()
	if !c.exists(table) {
		return nil, excf(wire.ExcTableNotFound, "%s", table)
	}
	if err := c.eng.Snapshot(c.ctx, table, desc.GetName()); err != nil {
		return nil, snapshotErr(err, desc.GetName())
	}
	return &pb.SnapshotResponse{ExpectedTimeout: proto.Int64(snapshotTimeout), ProcId: proto.Int64(int64(c.newProc()))}, nil
}

func (c *Cluster) findSnapshot(name string) (embedded.SnapshotInfo, bool, error) {
	infos, err := c.eng.Snapshots()
	for _, in := range infos {
		if in.Name == name {
			return in, true, nil
		}
	}
	return embedded.SnapshotInfo{}, false, err
}

func (c *Cluster) snapshotDone(req *pb.IsSnapshotDoneRequest) (proto.Message, error) {
	name := req.GetSnapshot().GetName()
	in, ok, err := c.findSnapshot(name)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, excf(wire.ExcUnknownSnapshot, "Snapshot '%s' is not currently being taken and was not completed", name)
	}
	return &pb.IsSnapshotDoneResponse{Done: proto.Bool(true), Snapshot: snapshotDesc(in)}, nil
}

// restoreSnapshot puts a snapshot back into the table the request names
// (its own table when it names none), as HBase's restoreOrCloneSnapshot:
// its own table must be disabled (it stays so), or is created from it
// when it is gone; another table is a clone, created from the snapshot
// (and enabled), and must not exist.
func (c *Cluster) restoreSnapshot(req *pb.RestoreSnapshotRequest) (proto.Message, error) {
	name := req.GetSnapshot().GetName()
	c.adminMu.Lock()
	defer c.adminMu.Unlock()
	in, ok, err := c.findSnapshot(name)
	if err != nil {
		return nil, err
	}
	if !ok || staging(name) {
		return nil, snapshotErr(embedded.ErrNoSnapshot, name)
	}
	target, err := restoreTarget(req.GetSnapshot(), in)
	if err != nil {
		return nil, err
	}
	if target != in.Table {
		id, err := c.cloneSnapshot(in, target)
		return &pb.RestoreSnapshotResponse{ProcId: proto.Uint64(id)}, err
	}
	if c.exists(in.Table) && !c.isDisabled(in.Table) {
		return nil, excf(wire.ExcTableNotDisabled, "%s", in.Table)
	}
	if err := c.eng.RestoreSnapshot(c.ctx, name); err != nil {
		return nil, snapshotErr(err, name)
	}
	return &pb.RestoreSnapshotResponse{ProcId: proto.Uint64(c.newProc())}, nil
}

// restoreTarget is the table a restore request names, or the snapshot's
// own.
func restoreTarget(desc *pb.SnapshotDescription, in embedded.SnapshotInfo) (string, error) {
	if desc.GetTable() == "" {
		return in.Table, nil
	}
	return userTable(wire.TableFromText(desc.GetTable()))
}
