package hbase

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/protobuf/proto"

	"commentbench/hbase/pb"
	"commentbench/hbase/wire"
)

// Condition is what a CheckAndMutate checks on its row, under the row's
// lock: the newest value of Family:Qualifier within TimeRange compared
// with Value by Op, as HBase's checkAndMutate(...).ifMatches does (the
// expected Value first: Less holds when Value is less than the stored
// value; an empty Value stands for an absent or empty cell, which every
// operator but NotEqual matches; a non-empty Value matches no absent
// cell); or, with Filter set, whether Filter passes any cell of the row.
type Condition struct {
	Family    string
	Qualifier []byte
	Op        CompareOp
	Value     []byte
	Filter    Filter
	TimeRange TimeRange
}

// CheckAndMutate is one conditional mutation of Row: a single Put or
// Delete, or several (HBase's RowMutations), applied together only if
// Condition holds.
type CheckAndMutate struct {
	Row       []byte
	Condition Condition
	Mutations []Mutation
}

func (cm CheckAndMutate) condition() (*pb.Condition, error) {
	cd := cm.Condition
	out := &pb.Condition{Row: nonNil(cm.Row)}
	if cd.TimeRange != (TimeRange{}) {
		out.TimeRange = cd.TimeRange.proto()
	}
	if cd.Filter != nil {
		f, err := cd.Filter.encode()
		out.Filter = f
		return out, err
	}
	if cd.Op < Less || cd.Op > NoOp {
		return nil, fmt.Errorf("hbase: condition operator %d", cd.Op)
	}
	cmp, err := comparatorOf(cd.Value)
	if err != nil {
		return nil, err
	}
	out.Family, out.Qualifier = []byte(cd.Family), nonNil(cd.Qualifier)
	out.CompareType, out.Comparator = pb.CompareType(cd.Op).Enum(), cmp
	return out, nil
}

// inlineMutation is m in the inline form (§6.2), as gohbase sends
// conditional mutations: column values, no cellblock.
func inlineMutation(m Mutation) (*pb.MutationProto, error) {
	cells, typ, err := wireCells(m)
	if err != nil {
		return nil, err
	}
	if typ != pb.MutationProto_PUT && typ != pb.MutationProto_DELETE {
		return nil, fmt.Errorf("hbase: a conditional mutation is a put or a delete, not %v", typ)
	}
	mp := &pb.MutationProto{Row: nonNil(m.Row), MutateType: typ.Enum(), Attribute: m.attributes()}
	byFam := map[string]*pb.MutationProto_ColumnValue{}
	for _, wc := range cells {
		cv := byFam[string(wc.Family)]
		if cv == nil {
			cv = &pb.MutationProto_ColumnValue{Family: wc.Family}
			byFam[string(wc.Family)] = cv
			mp.ColumnValue = append(mp.ColumnValue, cv)
		}
		qv := &pb.MutationProto_ColumnValue_QualifierValue{Qualifier: nonNil(wc.Qualifier)}
		if wc.Timestamp != wire.LatestTimestamp {
			qv.Timestamp = proto.Uint64(wc.Timestamp)
		}
		if typ == pb.MutationProto_PUT {
			qv.Value = nonNil(wc.Value)
		} else if qv.DeleteType, err = deleteType(wc.Type); err != nil {
			return nil, err
		}
		cv.QualifierValue = append(cv.QualifierValue, qv)
	}
	return mp, nil
}

func deleteType(t byte) (*pb.MutationProto_DeleteType, error) {
	switch t {
	case wire.TypeDelete:
		return pb.MutationProto_DELETE_ONE_VERSION.Enum(), nil
	case wire.TypeDeleteColumn:
		return pb.MutationProto_DELETE_MULTIPLE_VERSIONS.Enum(), nil
	case wire.TypeDeleteFamily:
		return pb.MutationProto_DELETE_FAMILY.Enum(), nil
	case wire.TypeDeleteFamilyVersion:
		return pb.MutationProto_DELETE_FAMILY_VERSION.Enum(), nil
	}
	return nil, fmt.Errorf("hbase: cell type %d in a delete", t)
}

// CheckAndMutate applies cm's mutations if its condition holds, and
// reports whether it did. One mutation goes in a conditional Mutate;
// several in a conditional, atomic Multi, whose condition rides both in
// its RegionAction (HBase 2.4+) and in the MultiRequest (before), so
// either kind of server checks it.
func (c *Client) CheckAndMutate(ctx context.Context, table string, cm CheckAndMutate) (bool, error) {
	if len(cm.Mutations) == 0 {
		return false, errors.New("hbase: CheckAndMutate without mutations")
	}
	cond, err := cm.condition()
	if err != nil {
		return false, err
	}
	muts := make([]*pb.MutationProto, len(cm.Mutations))
	for i, m := range cm.Mutations {
		m.Row = cm.Row
		if muts[i], err = inlineMutation(m); err != nil {
			return false, err
		}
	}
	rt := retrier{c: c}
	for {
		r, err := c.locate(ctx, table, cm.Row)
		if err != nil {
			return false, err
		}
		var ok bool
		if len(muts) == 1 {
			ok, err = c.checkAndMutateOne(ctx, r, cond, muts[0])
		} else {
			ok, err = c.checkAndMutateRow(ctx, r, cond, muts)
		}
		if err == nil {
			return ok, nil
		}
		if err := rt.handle(ctx, err, r, r.addr, wire.ServiceClient); err != nil {
			return false, err
		}
	}
}

func (c *Client) checkAndMutateOne(ctx context.Context, r *region, cond *pb.Condition, m *pb.MutationProto) (bool, error) {
	req := &pb.MutateRequest{Region: regionSpec(r.name), Mutation: m, Condition: cond}
	var resp pb.MutateResponse
	if _, err := c.rpc(ctx, r.addr, wire.ServiceClient, "Mutate", req, nil, &resp); err != nil {
		return false, err
	}
	if resp.Processed == nil {
		return false, errors.New("hbase: conditional Mutate response without processed")
	}
	return resp.GetProcessed(), nil
}

func (c *Client) checkAndMutateRow(ctx context.Context, r *region, cond *pb.Condition, muts []*pb.MutationProto) (bool, error) {
	ra := &pb.RegionAction{Region: regionSpec(r.name), Atomic: proto.Bool(true), Condition: cond}
	for i, m := range muts {
		ra.Action = append(ra.Action, &pb.Action{Index: proto.Uint32(uint32(i + 1)), Mutation: m})
	}
	req := &pb.MultiRequest{RegionAction: []*pb.RegionAction{ra}, Condition: cond}
	var resp pb.MultiResponse
	if _, err := c.rpc(ctx, r.addr, wire.ServiceClient, "Multi", req, nil, &resp); err != nil {
		return false, err
	}
	rars := resp.GetRegionActionResult()
	if len(rars) != 1 {
		return false, &retryableError{fmt.Sprintf("conditional Multi answered %d region actions of 1", len(rars))}
	}
	if ex := rars[0].GetException(); ex != nil {
		return false, newError(ex.GetName(), string(ex.GetValue()))
	}
	for _, roe := range rars[0].GetResultOrException() {
		if ex := roe.GetException(); ex != nil {
			return false, newError(ex.GetName(), string(ex.GetValue()))
		}
	}
	switch {
	case rars[0].Processed != nil:
		return rars[0].GetProcessed(), nil
	case resp.Processed != nil:
		return resp.GetProcessed(), nil
	}
	return false, errors.New("hbase: conditional Multi response without processed")
}
