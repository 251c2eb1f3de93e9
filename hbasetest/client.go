package hbasetest

import (
	"bytes"
	"encoding/binary"
	"math"
	"slices"
	"sync"

	"commentbench/hbase/pb"
	"commentbench/hbase/wire"
	"commentbench/store"
	"commentbench/store/embedded"

	"google.golang.org/protobuf/proto"
)

// target is a region a ClientService call addressed and this server hosts.
type target struct {
	meta   bool
	reg    store.Region
	schema embedded.Schema
}

// region resolves a RegionSpecifier on node n: NotServingRegionException
// unless n hosts it now (never was, split parent, moved, disabled, offline
// for a clone, dummy).
func (cn *conn) region(spec *pb.RegionSpecifier) (target, error) {
	c := cn.c
	name := string(spec.GetValue())
	if spec.GetType() == pb.RegionSpecifier_ENCODED_REGION_NAME {
		return target{}, excf(wire.ExcNotServingRegion, "Region %s is not online on %s (encoded names unsupported)", name, cn.node.name)
	}
	if name == wire.MetaRegionName {
		if c.MetaServer() == cn.node.name {
			return target{meta: true}, nil
		}
		return target{}, excf(wire.ExcNotServingRegion, "Region %s is not online on %s", name, cn.node.name)
	}
	r, ok := c.eng.RegionByName(name)
	if !ok || r.Server != cn.node.name || c.unavailable(r.Table) {
		return target{}, excf(wire.ExcNotServingRegion, "Region %s is not online on %s", name, cn.node.name)
	}
	schema, err := c.eng.Schema(r.Table)
	if err != nil {
		return target{}, excf(wire.ExcNotServingRegion, "Region %s is not online on %s", name, cn.node.name)
	}
	return target{reg: r, schema: schema}, nil
}

func (t target) checkRow(row []byte) error {
	if !t.reg.Contains(row) {
		return excf(wire.ExcWrongRegion, "Requested row out of range for region %s, row %q", t.reg.Name, row)
	}
	return nil
}

// family checks that the table has family f, as HBase's checkFamily.
func (t target) family(f []byte) error {
	for _, s := range t.schema.Families {
		if s.Name == string(f) {
			return nil
		}
	}
	return excf(wire.ExcNoSuchColumnFamily, "Column family %s does not exist in region %s in table %s", f, t.reg.Name, t.reg.Table)
}

// result encodes cells as a Result: into out (the response cellblock) when
// the connection declared a codec, inline otherwise.
func (cn *conn) result(cells []wire.Cell, out *[]byte) *pb.Result {
	if cn.codec {
		for _, cl := range cells {
			*out = wire.AppendCell(*out, cl)
		}
		return &pb.Result{AssociatedCellCount: proto.Int32(int32(len(cells)))}
	}
	res := &pb.Result{}
	for _, cl := range cells {
		res.Cell = append(res.Cell, &pb.Cell{
			Row:       cl.Row,
			Family:    cl.Family,
			Qualifier: cl.Qualifier,
			Timestamp: proto.Uint64(cl.Timestamp),
			CellType:  pb.CellType(cl.Type).Enum(),
			Value:     cl.Value,
		})
	}
	return res
}

// readSpec is what a Get or Scan selects within a row.
type readSpec struct {
	fams []string // the families named; nil: every family
	// quals maps a named family to the qualifiers read; a family mapped
	// to nil reads all its columns.
	quals        map[string]map[string]bool
	maxVersions  int
	minTs, maxTs int64
	offset, lim  int // store_offset / store_limit, per family; lim 0 = none
	filter       filter
}

// readSpec builds a Get's or Scan's selection. Every family named must
// exist (NoSuchColumnFamilyException), whatever comes before it. As in
// HBase, a whole-family column drops the qualifiers named for that family
// before it, and a qualifier named after it narrows the family again.
func (t target) readSpec(cols []*pb.Column, tr *pb.TimeRange, maxVersions, offset, limit uint32, f *pb.Filter) (readSpec, error) {
	rs := readSpec{maxVersions: max(int(maxVersions), 1), maxTs: math.MaxInt64, offset: int(offset), lim: int(limit)}
	for _, col := range cols {
		fam := col.GetFamily()
		if err := t.family(fam); err != nil {
			return rs, err
		}
		if rs.quals == nil {
			rs.quals = map[string]map[string]bool{}
		}
		name := string(fam)
		if _, seen := rs.quals[name]; !seen {
			rs.fams = append(rs.fams, name)
		}
		if len(col.GetQualifier()) == 0 {
			rs.quals[name] = nil
			continue
		}
		qs := rs.quals[name]
		if qs == nil {
			qs = map[string]bool{}
			rs.quals[name] = qs
		}
		for _, q := range col.GetQualifier() {
			qs[string(q)] = true
		}
	}
	if tr != nil {
		if tr.From != nil {
			rs.minTs = int64(min(tr.GetFrom(), math.MaxInt64))
		}
		if tr.To != nil {
			rs.maxTs = int64(min(tr.GetTo(), math.MaxInt64))
		}
		if rs.maxTs < rs.minTs {
			return rs, excf(wire.ExcDoNotRetryIO, "bad time range [%d, %d)", rs.minTs, rs.maxTs)
		}
	}
	var err error
	rs.filter, err = parseFilter(f)
	return rs, err
}

// filterVersions is what a filtered read asks the engine for: every
// version the family keeps, since with a filter HBase shows the filter
// the family's VERSIONS and caps what it includes at max_versions.
const filterVersions = math.MaxInt32

// engineRead is the engine read behind rs: the families, versions and
// time range (each family's VERSIONS caps the versions in the engine).
func (rs readSpec) engineRead() embedded.Read {
	rd := embedded.Read{Families: rs.fams, MaxVersions: rs.maxVersions, MinTs: rs.minTs, MaxTs: rs.maxTs}
	if rs.filter != nil {
		rd.MaxVersions = filterVersions
	}
	return rd
}

// selectCells turns an engine row into the wire cells of the columns rs
// names.
// famBytes holds each family name's bytes, shared by every cell of the
// family (cells are only read): a conversion per cell was a scan's most
// frequent allocation.
var famBytes sync.Map

func familyBytes(f string) []byte {
	if b, ok := famBytes.Load(f); ok {
		return b.([]byte)
	}
	b, _ := famBytes.LoadOrStore(f, []byte(f))
	return b.([]byte)
}

func (rs readSpec) selectCells(row embedded.Row) []wire.Cell {
	out := make([]wire.Cell, 0, len(row.Cells))
	for _, cl := range row.Cells {
		if qs := rs.quals[cl.Family]; qs != nil && !qs[string(cl.Qualifier)] {
			continue
		}
		out = append(out, wire.Cell{
			Row: row.Key, Family: familyBytes(cl.Family), Qualifier: cl.Qualifier, Value: cl.Value,
			Timestamp: uint64(cl.Timestamp), Type: wire.TypePut,
		})
	}
	return out
}

func (cn *conn) get(param []byte) (proto.Message, []byte, error) {
	req := &pb.GetRequest{}
	if err := decode(param, req); err != nil {
		return nil, nil, err
	}
	t, err := cn.region(req.GetRegion())
	if err != nil {
		return nil, nil, err
	}
	var out []byte
	res, err := cn.doGet(t, req.GetGet(), &out)
	if err != nil {
		return nil, nil, err
	}
	return &pb.GetResponse{Result: res}, out, nil
}

// doGet answers one Get; cells go to out only on success.
func (cn *conn) doGet(t target, g *pb.Get, out *[]byte) (*pb.Result, error) {
	c := cn.c
	if g.GetClosestRowBefore() {
		return nil, excf(wire.ExcDoNotRetryIO, "Get with closest_row_before is not supported")
	}
	if t.meta {
		return cn.metaGet(g, out)
	}
	if err := t.checkRow(g.GetRow()); err != nil {
		return nil, err
	}
	rs, err := t.readSpec(g.GetColumn(), g.GetTimeRange(), g.GetMaxVersions(), g.GetStoreOffset(), g.GetStoreLimit(), g.GetFilter())
	if err != nil {
		return nil, err
	}
	row, err := c.eng.GetRow(c.ctx, t.reg.Table, g.GetRow(), rs.engineRead())
	if err != nil {
		return nil, err
	}
	r, keep := rs.readRow(g.GetRow(), rs.selectCells(row), false)
	var cells []wire.Cell
	if keep {
		cells = r.cells
	}
	size := rowSize{max: c.maxRowSize(), region: t.reg.Name}
	if err := size.checkGet(cells); err != nil {
		return nil, err
	}
	if g.GetExistenceOnly() {
		return &pb.Result{Exists: proto.Bool(len(cells) > 0)}, nil
	}
	return cn.result(cells, out), nil
}

func (cn *conn) mutate(param, cellblock []byte) (proto.Message, []byte, error) {
	req := &pb.MutateRequest{}
	if err := decode(param, req); err != nil {
		return nil, nil, err
	}
	t, err := cn.region(req.GetRegion())
	if err != nil {
		return nil, nil, err
	}
	m := req.GetMutation()
	cells, rest, err := wire.ReadCells(cellblock, int(m.GetAssociatedCellCount()))
	if err != nil || len(rest) != 0 {
		return nil, nil, excf(wire.ExcDoNotRetryIO, "malformed request cellblock")
	}
	if cond := req.GetCondition(); cond != nil {
		ok, err := cn.c.checkAndMutate(t, cond, []*pb.MutationProto{m}, [][]wire.Cell{cells})
		if err != nil {
			return nil, nil, err
		}
		return &pb.MutateResponse{Processed: proto.Bool(ok)}, nil, nil
	}
	newCells, err := cn.c.apply(t, m, cells)
	if err != nil {
		return nil, nil, err
	}
	resp := &pb.MutateResponse{Processed: proto.Bool(true)}
	var out []byte
	if newCells != nil {
		resp.Result = cn.result(newCells, &out)
	}
	return resp, out, nil
}

// mutationCells gathers a mutation's cells from both forms (cellblock and
// inline column values), with HBase's timestamp precedence: the cell's (or
// qualifier value's) own, else the mutation's, else LATEST.
func mutationCells(m *pb.MutationProto, block []wire.Cell) ([]wire.Cell, error) {
	mts := wire.LatestTimestamp
	if m.Timestamp != nil {
		mts = m.GetTimestamp()
	}
	var out []wire.Cell
	for _, cl := range block {
		if !bytes.Equal(cl.Row, m.GetRow()) {
			return nil, excf(wire.ExcDoNotRetryIO, "cell row %q differs from mutation row %q", cl.Row, m.GetRow())
		}
		if cl.Timestamp == wire.LatestTimestamp {
			cl.Timestamp = mts
		}
		out = append(out, cl)
	}
	for _, cv := range m.GetColumnValue() {
		for _, qv := range cv.GetQualifierValue() {
			cl := wire.Cell{Row: m.GetRow(), Family: cv.GetFamily(), Qualifier: qv.GetQualifier(), Value: qv.GetValue(), Timestamp: mts, Type: wire.TypePut}
			if qv.Timestamp != nil {
				cl.Timestamp = qv.GetTimestamp()
			}
			if m.GetMutateType() == pb.MutationProto_DELETE {
				switch qv.GetDeleteType() {
				case pb.MutationProto_DELETE_ONE_VERSION:
					cl.Type = wire.TypeDelete
				case pb.MutationProto_DELETE_MULTIPLE_VERSIONS:
					cl.Type = wire.TypeDeleteColumn
				case pb.MutationProto_DELETE_FAMILY:
					cl.Type = wire.TypeDeleteFamily
				case pb.MutationProto_DELETE_FAMILY_VERSION:
					cl.Type = wire.TypeDeleteFamilyVersion
				}
			}
			out = append(out, cl)
		}
	}
	for _, cl := range out {
		if cl.Timestamp > math.MaxInt64 {
			return nil, excf(wire.ExcDoNotRetryIO, "timestamp %d out of range", cl.Timestamp)
		}
	}
	return out, nil
}

// engineTs maps a wire timestamp to the engine's: LATEST becomes 0, which
// the engine stamps with its clock (one now per mutation).
func engineTs(ts uint64) int64 {
	if ts == wire.LatestTimestamp {
		return 0
	}
	return int64(ts)
}

// ttlAttribute is the mutation attribute HBase's Mutation.setTTL sets: the
// cells' time to live in ms, as an 8-byte big-endian long.
const ttlAttribute = "_ttl"

// cellTTL reads a mutation's TTL attribute; 0 means none (HBase's
// Long.MAX_VALUE, "no TTL", too).
func cellTTL(m *pb.MutationProto) (int64, error) {
	for _, a := range m.GetAttribute() {
		if a.GetName() != ttlAttribute {
			continue
		}
		if len(a.GetValue()) != 8 {
			return 0, excf(wire.ExcDoNotRetryIO, "%s attribute of %d bytes, want 8", ttlAttribute, len(a.GetValue()))
		}
		ttl := int64(binary.BigEndian.Uint64(a.GetValue()))
		if ttl == math.MaxInt64 {
			return 0, nil
		}
		if ttl <= 0 {
			return 0, excf(wire.ExcDoNotRetryIO, "%s of %d ms", ttlAttribute, ttl)
		}
		return ttl, nil
	}
	return 0, nil
}

// rowMutation converts a Put or a Delete for the engine.
func (t target) rowMutation(m *pb.MutationProto, block []wire.Cell) (embedded.RowMutation, error) {
	cells, err := mutationCells(m, block)
	if err != nil {
		return embedded.RowMutation{}, err
	}
	switch m.GetMutateType() {
	case pb.MutationProto_PUT:
		return t.putMutation(m, cells)
	case pb.MutationProto_DELETE:
		return t.deleteMutation(m, cells)
	}
	return embedded.RowMutation{}, excf(wire.ExcDoNotRetryIO, "mutation type %v is not supported here", m.GetMutateType())
}

func (t target) putMutation(m *pb.MutationProto, cells []wire.Cell) (embedded.RowMutation, error) {
	if len(cells) == 0 {
		return embedded.RowMutation{}, excf(wire.ExcDoNotRetryIO, "No columns to put")
	}
	ttl, err := cellTTL(m)
	if err != nil {
		return embedded.RowMutation{}, err
	}
	var rm embedded.RowMutation
	for _, cl := range cells {
		if cl.Type != wire.TypePut {
			return rm, excf(wire.ExcDoNotRetryIO, "cell of type %d in a Put", cl.Type)
		}
		if err := t.family(cl.Family); err != nil {
			return rm, err
		}
		v := cl.Value
		if v == nil {
			v = []byte{}
		}
		rm.Puts = append(rm.Puts, embedded.Put{
			Family: string(cl.Family), Qualifier: cl.Qualifier, Value: v, Timestamp: engineTs(cl.Timestamp), TTL: ttl,
		})
	}
	return rm, nil
}

// deleteMutation converts a Delete (§8.2; cell types 8, 10, 12 and 14,
// LATEST as engine timestamp 0). No cells deletes the whole row: a
// DeleteFamily on every family at the mutation's timestamp.
func (t target) deleteMutation(m *pb.MutationProto, cells []wire.Cell) (embedded.RowMutation, error) {
	var rm embedded.RowMutation
	if len(cells) == 0 {
		ts := int64(0)
		if m.Timestamp != nil {
			ts = engineTs(m.GetTimestamp())
		}
		for _, f := range t.schema.Families {
			rm.Deletes = append(rm.Deletes, embedded.DeleteMarker{Kind: embedded.DeleteFamily, Family: f.Name, Timestamp: ts})
		}
		return rm, nil
	}
	for _, cl := range cells {
		if err := t.family(cl.Family); err != nil {
			return rm, err
		}
		d := embedded.DeleteMarker{Family: string(cl.Family), Qualifier: cl.Qualifier, Timestamp: engineTs(cl.Timestamp)}
		switch cl.Type {
		case wire.TypeDelete:
			d.Kind = embedded.DeleteVersion
		case wire.TypeDeleteColumn:
			d.Kind = embedded.DeleteColumn
		case wire.TypeDeleteFamilyVersion:
			d.Kind = embedded.DeleteFamilyVersion
		case wire.TypeDeleteFamily:
			d.Kind = embedded.DeleteFamily
		default:
			return rm, excf(wire.ExcDoNotRetryIO, "cell of type %d in a Delete", cl.Type)
		}
		rm.Deletes = append(rm.Deletes, d)
	}
	return rm, nil
}

// apply runs a Put, Delete, Increment or Append on a user region. It
// returns the new cells of an Increment or Append (nil otherwise).
func (c *Cluster) apply(t target, m *pb.MutationProto, block []wire.Cell) ([]wire.Cell, error) {
	if t.meta {
		return nil, excf(wire.ExcDoNotRetryIO, "hbase:meta is read-only here")
	}
	row := m.GetRow()
	if err := t.checkRow(row); err != nil {
		return nil, err
	}
	switch m.GetMutateType() {
	case pb.MutationProto_INCREMENT, pb.MutationProto_APPEND:
		cells, err := mutationCells(m, block)
		if err != nil {
			return nil, err
		}
		return c.readModifyWrite(t, m, cells)
	}
	rm, err := t.rowMutation(m, block)
	if err != nil {
		return nil, err
	}
	return nil, c.eng.UpdateRow(c.ctx, t.reg.Table, row, func(embedded.RowReader, int64) ([]embedded.RowMutation, error) {
		return []embedded.RowMutation{rm}, nil
	})
}

// readModifyWrite runs an Increment or Append (§8.3) on the row under its
// lock. Each new cell's timestamp is max(now, previous ts + 1).
func (c *Cluster) readModifyWrite(t target, m *pb.MutationProto, cells []wire.Cell) ([]wire.Cell, error) {
	rmw, err := t.readModify(m, cells)
	if err != nil {
		return nil, err
	}
	var out []wire.Cell
	err = c.eng.UpdateRow(c.ctx, t.reg.Table, m.GetRow(), func(read embedded.RowReader, now int64) ([]embedded.RowMutation, error) {
		rm, cells, err := rmw.apply(read, now)
		out = cells
		return []embedded.RowMutation{rm}, err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// readModify is a checked Increment or Append, to apply under its row's
// lock.
type readModify struct {
	row       []byte
	cells     []wire.Cell
	fams      []string
	increment bool
	ttl       int64
}

func (t target) readModify(m *pb.MutationProto, cells []wire.Cell) (readModify, error) {
	rmw := readModify{row: m.GetRow(), cells: cells, increment: m.GetMutateType() == pb.MutationProto_INCREMENT}
	if len(cells) == 0 {
		return rmw, excf(wire.ExcDoNotRetryIO, "No columns to update")
	}
	var err error
	if rmw.ttl, err = cellTTL(m); err != nil {
		return rmw, err
	}
	for _, cl := range cells {
		if cl.Type != wire.TypePut {
			return rmw, excf(wire.ExcDoNotRetryIO, "cell of type %d in an Increment/Append", cl.Type)
		}
		if err := t.family(cl.Family); err != nil {
			return rmw, err
		}
		if rmw.increment && len(cl.Value) != 8 {
			return rmw, excf(wire.ExcDoNotRetryIO, "increment delta must be 8 bytes, got %d", len(cl.Value))
		}
		if !slices.Contains(rmw.fams, string(cl.Family)) {
			rmw.fams = append(rmw.fams, string(cl.Family))
		}
	}
	return rmw, nil
}

// apply reads the columns and returns their new cells, as a mutation and
// as the Result HBase answers.
func (rmw readModify) apply(read embedded.RowReader, now int64) (embedded.RowMutation, []wire.Cell, error) {
	var rm embedded.RowMutation
	var out []wire.Cell
	cur, err := read(embedded.Read{Families: rmw.fams})
	if err != nil {
		return rm, nil, err
	}
	for _, cl := range rmw.cells {
		nv, prevTs, err := updated(cur, cl, rmw.increment)
		if err != nil {
			return rm, nil, err
		}
		ts := max(now, prevTs+1)
		rm.Puts = append(rm.Puts, embedded.Put{Family: string(cl.Family), Qualifier: cl.Qualifier, Value: nv, Timestamp: ts, TTL: rmw.ttl})
		out = append(out, wire.Cell{Row: rmw.row, Family: cl.Family, Qualifier: cl.Qualifier, Value: nv, Timestamp: uint64(ts), Type: wire.TypePut})
	}
	return rm, out, nil
}

// updated is the new value of an Increment's or Append's column, and the
// timestamp of the value it replaces (-1 if none).
func updated(cur embedded.Row, cl wire.Cell, increment bool) ([]byte, int64, error) {
	old, ok := cur.Cell(string(cl.Family), cl.Qualifier)
	prevTs := int64(-1)
	if ok {
		prevTs = old.Timestamp
	}
	if !increment {
		nv := append(bytes.Clone(old.Value), cl.Value...)
		if nv == nil {
			nv = []byte{}
		}
		return nv, prevTs, nil
	}
	base := int64(0)
	if ok {
		if len(old.Value) != 8 {
			return nil, 0, excf(wire.ExcDoNotRetryIO, "Field is not a long, it's %d bytes wide", len(old.Value))
		}
		base = int64(binary.BigEndian.Uint64(old.Value))
	}
	return binary.BigEndian.AppendUint64(nil, uint64(base+int64(binary.BigEndian.Uint64(cl.Value)))), prevTs, nil
}

func (cn *conn) multi(param, cellblock []byte) (proto.Message, []byte, error) {
	req := &pb.MultiRequest{}
	if err := decode(param, req); err != nil {
		return nil, nil, err
	}
	actCells, err := splitCellblock(req, cellblock)
	if err != nil {
		return nil, nil, err
	}
	resp := &pb.MultiResponse{}
	var out []byte
	for i, ra := range req.GetRegionAction() {
		rar := &pb.RegionActionResult{}
		resp.RegionActionResult = append(resp.RegionActionResult, rar)
		t, err := cn.region(ra.GetRegion())
		if err != nil {
			rar.Exception = nameBytes(err)
			continue
		}
		// Before HBase 2.4 the condition of an atomic RegionAction rode
		// on the MultiRequest; 2.4 moved it into the RegionAction.
		cond := ra.GetCondition()
		if cond == nil && ra.GetAtomic() {
			cond = req.GetCondition()
		}
		if cond != nil || ra.GetAtomic() {
			cn.atomicRegionAction(t, ra, actCells[i], cond, rar, resp)
			continue
		}
		for j, a := range ra.GetAction() {
			rar.ResultOrException = append(rar.ResultOrException, cn.action(t, a, actCells[i][j], &out))
		}
	}
	return resp, out, nil
}

// splitCellblock hands each mutation its cells, first of all: a failed
// region must still skip its cells.
func splitCellblock(req *pb.MultiRequest, cellblock []byte) ([][][]wire.Cell, error) {
	rest := cellblock
	actCells := make([][][]wire.Cell, len(req.GetRegionAction()))
	for i, ra := range req.GetRegionAction() {
		actCells[i] = make([][]wire.Cell, len(ra.GetAction()))
		for j, a := range ra.GetAction() {
			if n := a.GetMutation().GetAssociatedCellCount(); n > 0 {
				var err error
				if actCells[i][j], rest, err = wire.ReadCells(rest, int(n)); err != nil {
					return nil, excf(wire.ExcDoNotRetryIO, "malformed request cellblock: %v", err)
				}
			}
		}
	}
	if len(rest) != 0 {
		return nil, excf(wire.ExcDoNotRetryIO, "%d unclaimed bytes in the request cellblock", len(rest))
	}
	return actCells, nil
}

// action answers one action of a plain RegionAction.
func (cn *conn) action(t target, a *pb.Action, cells []wire.Cell, out *[]byte) *pb.ResultOrException {
	roe := &pb.ResultOrException{Index: proto.Uint32(a.GetIndex())}
	var res *pb.Result
	var err error
	switch {
	case a.Get != nil:
		res, err = cn.doGet(t, a.Get, out)
	case a.Mutation != nil:
		var newCells []wire.Cell
		if newCells, err = cn.c.apply(t, a.Mutation, cells); err == nil {
			res = &pb.Result{}
			if newCells != nil {
				res = cn.result(newCells, out)
			}
		}
	default:
		err = excf(wire.ExcDoNotRetryIO, "action %d has neither get nor mutation", a.GetIndex())
	}
	if err != nil {
		roe.Exception = nameBytes(err)
	} else {
		roe.Result = res
	}
	return roe
}

// atomicRegionAction runs a RegionAction whose mutations apply together or
// not at all (HBase's RowMutations), under a condition when it has one.
// Every action is answered with an empty Result. processed, of the
// RegionActionResult (HBase 2.4+) and of the MultiResponse (before), is
// the condition's outcome, or true for a RowMutations without one, as
// HBase's multi sets it.
func (cn *conn) atomicRegionAction(t target, ra *pb.RegionAction, cells [][]wire.Cell, cond *pb.Condition, rar *pb.RegionActionResult, resp *pb.MultiResponse) {
	muts := make([]*pb.MutationProto, len(ra.GetAction()))
	for j, a := range ra.GetAction() {
		if a.Mutation == nil {
			rar.Exception = nameBytes(excf(wire.ExcDoNotRetryIO, "an atomic RegionAction holds action %d that is no mutation", a.GetIndex()))
			return
		}
		muts[j] = a.Mutation
	}
	var processed bool
	var err error
	if cond != nil {
		processed, err = cn.c.checkAndMutate(t, cond, muts, cells)
	} else {
		processed, err = true, cn.c.mutateRow(t, muts, cells)
	}
	if err != nil {
		rar.Exception = nameBytes(err)
		return
	}
	for _, a := range ra.GetAction() {
		rar.ResultOrException = append(rar.ResultOrException, &pb.ResultOrException{Index: proto.Uint32(a.GetIndex()), Result: &pb.Result{}})
	}
	rar.Processed = proto.Bool(processed)
	resp.Processed = proto.Bool(processed)
}

// rowMutations converts the Puts and Deletes of one row, all of which
// must name that row.
func (t target) rowMutations(row []byte, muts []*pb.MutationProto, cells [][]wire.Cell) ([]embedded.RowMutation, error) {
	if t.meta {
		return nil, excf(wire.ExcDoNotRetryIO, "hbase:meta is read-only here")
	}
	if err := t.checkRow(row); err != nil {
		return nil, err
	}
	out := make([]embedded.RowMutation, len(muts))
	for i, m := range muts {
		if !bytes.Equal(m.GetRow(), row) {
			return nil, excf(wire.ExcDoNotRetryIO, "Action's getRow must match: mutation row %q, expected %q", m.GetRow(), row)
		}
		var err error
		if out[i], err = t.rowMutation(m, cells[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// mutateRow applies several mutations of one row atomically: Puts,
// Deletes and, as HBase 2.4 allows in RowMutations (HBASE-25242),
// Increments and Appends, each reading the row as it stood before.
func (c *Cluster) mutateRow(t target, muts []*pb.MutationProto, cells [][]wire.Cell) error {
	if len(muts) == 0 {
		return nil
	}
	row := muts[0].GetRow()
	rms := make([]embedded.RowMutation, len(muts))
	rmws := make([]*readModify, len(muts))
	for i, m := range muts {
		switch m.GetMutateType() {
		case pb.MutationProto_INCREMENT, pb.MutationProto_APPEND:
			if !bytes.Equal(m.GetRow(), row) {
				return excf(wire.ExcDoNotRetryIO, "Action's getRow must match: mutation row %q, expected %q", m.GetRow(), row)
			}
			mc, err := mutationCells(m, cells[i])
			if err != nil {
				return err
			}
			rmw, err := t.readModify(m, mc)
			if err != nil {
				return err
			}
			rmws[i] = &rmw
		default:
			one, err := t.rowMutations(row, muts[i:i+1], cells[i:i+1])
			if err != nil {
				return err
			}
			rms[i] = one[0]
		}
	}
	return c.eng.UpdateRow(c.ctx, t.reg.Table, row, func(read embedded.RowReader, now int64) ([]embedded.RowMutation, error) {
		for i, rmw := range rmws {
			if rmw == nil {
				continue
			}
			var err error
			if rms[i], _, err = rmw.apply(read, now); err != nil {
				return nil, err
			}
		}
		return rms, nil
	})
}
