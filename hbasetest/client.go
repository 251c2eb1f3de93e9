package hbasetest

import (
	"bytes"
	"encoding/binary"
	"math"

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
	family string
}

// region resolves a RegionSpecifier on node n: NotServingRegionException
// unless n hosts it now (never was, split parent, moved, disabled, dummy).
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
	if !ok || r.Server != cn.node.name || c.isDisabled(r.Table) {
		return target{}, excf(wire.ExcNotServingRegion, "Region %s is not online on %s", name, cn.node.name)
	}
	fam, err := c.eng.Family(r.Table)
	if err != nil {
		return target{}, excf(wire.ExcNotServingRegion, "Region %s is not online on %s", name, cn.node.name)
	}
	return target{reg: r, family: fam}, nil
}

func (t target) checkRow(row []byte) error {
	if !t.reg.Contains(row) {
		return excf(wire.ExcWrongRegion, "Requested row out of range for region %s, row %q", t.reg.Name, row)
	}
	return nil
}

func noSuchFamily(fam []byte, t target) error {
	return excf(wire.ExcNoSuchColumnFamily, "Column family %s does not exist in region %s", fam, t.reg.Name)
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
	quals        map[string]bool // nil = every qualifier
	maxVersions  int
	minTs, maxTs int64
	offset, lim  int // store_offset / store_limit; lim 0 = none
}

func (c *Cluster) readSpec(t target, cols []*pb.Column, tr *pb.TimeRange, maxVersions, offset, limit uint32) (readSpec, error) {
	rs := readSpec{maxVersions: 1, maxTs: math.MaxInt64, offset: int(offset), lim: int(limit)}
	for _, col := range cols {
		if string(col.GetFamily()) != t.family {
			return rs, noSuchFamily(col.GetFamily(), t)
		}
		if len(col.GetQualifier()) == 0 {
			rs.quals = nil
			break
		}
		if rs.quals == nil {
			rs.quals = map[string]bool{}
		}
		for _, q := range col.GetQualifier() {
			rs.quals[string(q)] = true
		}
	}
	if maxVersions > 1 {
		rs.maxVersions = min(int(maxVersions), c.maxVersions(t.reg.Table))
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
	return rs, nil
}

// cells turns an engine row into the cells rs selects.
func (rs readSpec) cells(row store.Row, family string) []wire.Cell {
	var out []wire.Cell
	skipped := 0
	for _, cl := range row.Cells {
		if rs.quals != nil && !rs.quals[string(cl.Qualifier)] {
			continue
		}
		if skipped < rs.offset {
			skipped++
			continue
		}
		if rs.lim > 0 && len(out) >= rs.lim {
			break
		}
		out = append(out, wire.Cell{
			Row: row.Key, Family: []byte(family), Qualifier: cl.Qualifier, Value: cl.Value,
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
	if g.GetClosestRowBefore() || g.Filter != nil {
		return nil, excf(wire.ExcDoNotRetryIO, "Get with closest_row_before or a filter is not supported")
	}
	if t.meta {
		return cn.metaGet(g, out)
	}
	if err := t.checkRow(g.GetRow()); err != nil {
		return nil, err
	}
	rs, err := c.readSpec(t, g.GetColumn(), g.GetTimeRange(), g.GetMaxVersions(), g.GetStoreOffset(), g.GetStoreLimit())
	if err != nil {
		return nil, err
	}
	row, err := c.eng.GetVersions(c.ctx, t.reg.Table, g.GetRow(), rs.maxVersions, rs.minTs, rs.maxTs)
	if err != nil {
		return nil, err
	}
	cells := rs.cells(row, t.family)
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
		ok, err := cn.c.checkAndPut(t, cond, m, cells)
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

// putCells converts a Put's cells for the engine.
func putCells(t target, cells []wire.Cell) ([]store.Cell, error) {
	if len(cells) == 0 {
		return nil, excf(wire.ExcDoNotRetryIO, "No columns to put")
	}
	out := make([]store.Cell, len(cells))
	for i, cl := range cells {
		if cl.Type != wire.TypePut {
			return nil, excf(wire.ExcDoNotRetryIO, "cell of type %d in a Put", cl.Type)
		}
		if string(cl.Family) != t.family {
			return nil, noSuchFamily(cl.Family, t)
		}
		out[i] = store.Cell{Qualifier: cl.Qualifier, Value: cl.Value, Timestamp: engineTs(cl.Timestamp)}
		if out[i].Value == nil {
			out[i].Value = []byte{}
		}
	}
	return out, nil
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
	cells, err := mutationCells(m, block)
	if err != nil {
		return nil, err
	}
	switch m.GetMutateType() {
	case pb.MutationProto_PUT:
		sc, err := putCells(t, cells)
		if err != nil {
			return nil, err
		}
		return nil, c.eng.Mutate(c.ctx, t.reg.Table, store.Put(row, sc...))
	case pb.MutationProto_DELETE:
		if len(cells) == 0 {
			ts := int64(0)
			if m.Timestamp != nil {
				ts = engineTs(m.GetTimestamp())
			}
			return nil, c.eng.DeleteRowAt(c.ctx, t.reg.Table, row, ts)
		}
		marks, err := deleteMarkers(t, cells)
		if err != nil {
			return nil, err
		}
		return nil, c.eng.DeleteCells(c.ctx, t.reg.Table, row, marks...)
	case pb.MutationProto_INCREMENT, pb.MutationProto_APPEND:
		return c.readModifyWrite(t, row, m.GetMutateType() == pb.MutationProto_INCREMENT, cells)
	default:
		return nil, excf(wire.ExcDoNotRetryIO, "mutation type %v is not supported", m.GetMutateType())
	}
}

// deleteMarkers converts a Delete's cells (§8.2; cell types 8, 10, 12 and
// 14, LATEST as engine timestamp 0) for the engine.
func deleteMarkers(t target, cells []wire.Cell) ([]embedded.DeleteMarker, error) {
	marks := make([]embedded.DeleteMarker, len(cells))
	for i, cl := range cells {
		if string(cl.Family) != t.family {
			return nil, noSuchFamily(cl.Family, t)
		}
		m := embedded.DeleteMarker{Qualifier: cl.Qualifier, Timestamp: engineTs(cl.Timestamp)}
		switch cl.Type {
		case wire.TypeDelete:
			m.Kind = embedded.DeleteVersion
		case wire.TypeDeleteColumn:
			m.Kind = embedded.DeleteColumn
		case wire.TypeDeleteFamilyVersion:
			m.Kind = embedded.DeleteFamilyVersion
		case wire.TypeDeleteFamily:
			m.Kind = embedded.DeleteFamily
		default:
			return nil, excf(wire.ExcDoNotRetryIO, "cell of type %d in a Delete", cl.Type)
		}
		marks[i] = m
	}
	return marks, nil
}

// readModifyWrite runs an Increment or Append (§8.3), column by column,
// each as a compare-and-set on the engine so concurrent ones never lose an
// update. The new cell's timestamp is max(now, previous ts + 1).
func (c *Cluster) readModifyWrite(t target, row []byte, increment bool, cells []wire.Cell) ([]wire.Cell, error) {
	if len(cells) == 0 {
		return nil, excf(wire.ExcDoNotRetryIO, "No columns to update")
	}
	var out []wire.Cell
	for _, cl := range cells {
		if cl.Type != wire.TypePut {
			return nil, excf(wire.ExcDoNotRetryIO, "cell of type %d in an Increment/Append", cl.Type)
		}
		if string(cl.Family) != t.family {
			return nil, noSuchFamily(cl.Family, t)
		}
		if increment && len(cl.Value) != 8 {
			return nil, excf(wire.ExcDoNotRetryIO, "increment delta must be 8 bytes, got %d", len(cl.Value))
		}
		done := false
		for attempt := 0; attempt < 1000 && !done; attempt++ {
			cur, err := c.eng.GetVersions(c.ctx, t.reg.Table, row, 1, 0, math.MaxInt64)
			if err != nil {
				return nil, err
			}
			var old []byte
			prevTs := int64(-1)
			for _, x := range cur.Cells {
				if bytes.Equal(x.Qualifier, cl.Qualifier) {
					old, prevTs = x.Value, x.Timestamp
					break
				}
			}
			var nv []byte
			if increment {
				base := int64(0)
				if prevTs >= 0 {
					if len(old) != 8 {
						return nil, excf(wire.ExcDoNotRetryIO, "Field is not a long, it's %d bytes wide", len(old))
					}
					base = int64(binary.BigEndian.Uint64(old))
				}
				nv = binary.BigEndian.AppendUint64(nil, uint64(base+int64(binary.BigEndian.Uint64(cl.Value))))
			} else {
				nv = append(bytes.Clone(old), cl.Value...)
				if nv == nil {
					nv = []byte{}
				}
			}
			ts := max(c.eng.Now(), prevTs+1)
			var ok bool
			ok, err = c.eng.CheckAndPut(c.ctx, t.reg.Table, row, cl.Qualifier, old, store.Cell{Qualifier: cl.Qualifier, Value: nv, Timestamp: ts})
			if err != nil {
				return nil, err
			}
			if ok {
				done = true
				out = append(out, wire.Cell{Row: row, Family: cl.Family, Qualifier: cl.Qualifier, Value: nv, Timestamp: uint64(ts), Type: wire.TypePut})
			}
		}
		if !done {
			return nil, excf(wire.ExcRegionTooBusy, "too much contention on row %q", row)
		}
	}
	return out, nil
}

// checkAndPut runs a conditional Put: BinaryComparator with EQUAL only,
// where an empty expected value means "absent or empty" (§8.4).
func (c *Cluster) checkAndPut(t target, cond *pb.Condition, m *pb.MutationProto, block []wire.Cell) (bool, error) {
	if t.meta {
		return false, excf(wire.ExcDoNotRetryIO, "hbase:meta is read-only here")
	}
	row := m.GetRow()
	if !bytes.Equal(cond.GetRow(), row) {
		return false, excf(wire.ExcDoNotRetryIO, "condition row %q differs from mutation row %q", cond.GetRow(), row)
	}
	if err := t.checkRow(row); err != nil {
		return false, err
	}
	if string(cond.GetFamily()) != t.family {
		return false, noSuchFamily(cond.GetFamily(), t)
	}
	if cond.GetCompareType() != pb.CompareType_EQUAL || cond.Filter != nil || cond.TimeRange != nil {
		return false, excf(wire.ExcDoNotRetryIO, "only EQUAL conditions without filter or time range are supported")
	}
	expected, err := binaryComparator(cond.GetComparator())
	if err != nil {
		return false, err
	}
	if m.GetMutateType() != pb.MutationProto_PUT {
		return false, excf(wire.ExcDoNotRetryIO, "conditional %v is not supported", m.GetMutateType())
	}
	cells, err := mutationCells(m, block)
	if err != nil {
		return false, err
	}
	sc, err := putCells(t, cells)
	if err != nil {
		return false, err
	}
	return c.eng.CheckAndPut(c.ctx, t.reg.Table, row, cond.GetQualifier(), expected, sc...)
}

const binaryComparatorClass = "org.apache.hadoop.hbase.filter.BinaryComparator"

// binaryComparator extracts the value of a BinaryComparator.
func binaryComparator(cmp *pb.Comparator) ([]byte, error) {
	if cmp.GetName() != binaryComparatorClass {
		return nil, excf(wire.ExcDoNotRetryIO, "comparator %q is not supported", cmp.GetName())
	}
	bc := &pb.BinaryComparator{}
	if err := proto.Unmarshal(cmp.GetSerializedComparator(), bc); err != nil {
		return nil, excf(wire.ExcDoNotRetryIO, "bad BinaryComparator: %v", err)
	}
	return bc.GetComparable().GetValue(), nil
}

func (cn *conn) multi(param, cellblock []byte) (proto.Message, []byte, error) {
	req := &pb.MultiRequest{}
	if err := decode(param, req); err != nil {
		return nil, nil, err
	}
	if req.Condition != nil {
		return nil, nil, excf(wire.ExcDoNotRetryIO, "conditional Multi is not supported")
	}
	// Split the request cellblock among mutations first: a failed region
	// must still skip its cells.
	rest := cellblock
	actCells := make([][][]wire.Cell, len(req.GetRegionAction()))
	for i, ra := range req.GetRegionAction() {
		actCells[i] = make([][]wire.Cell, len(ra.GetAction()))
		for j, a := range ra.GetAction() {
			if n := a.GetMutation().GetAssociatedCellCount(); n > 0 {
				var err error
				if actCells[i][j], rest, err = wire.ReadCells(rest, int(n)); err != nil {
					return nil, nil, excf(wire.ExcDoNotRetryIO, "malformed request cellblock: %v", err)
				}
			}
		}
	}
	if len(rest) != 0 {
		return nil, nil, excf(wire.ExcDoNotRetryIO, "%d unclaimed bytes in the request cellblock", len(rest))
	}
	resp := &pb.MultiResponse{}
	var out []byte
	for i, ra := range req.GetRegionAction() {
		rar := &pb.RegionActionResult{}
		resp.RegionActionResult = append(resp.RegionActionResult, rar)
		t, err := cn.region(ra.GetRegion())
		if err == nil && ra.GetAtomic() {
			err = excf(wire.ExcDoNotRetryIO, "atomic RegionActions are not supported")
		}
		if err != nil {
			rar.Exception = nameBytes(err)
			continue
		}
		for j, a := range ra.GetAction() {
			roe := &pb.ResultOrException{Index: proto.Uint32(a.GetIndex())}
			var res *pb.Result
			switch {
			case a.Get != nil:
				res, err = cn.doGet(t, a.Get, &out)
			case a.Mutation != nil:
				var newCells []wire.Cell
				if newCells, err = cn.c.apply(t, a.Mutation, actCells[i][j]); err == nil {
					res = &pb.Result{}
					if newCells != nil {
						res = cn.result(newCells, &out)
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
			rar.ResultOrException = append(rar.ResultOrException, roe)
		}
	}
	return resp, out, nil
}
