package hbasetest

import (
	"bytes"
	"encoding/binary"
	"errors"
	"slices"

	"commentbench/hbase/pb"
	"commentbench/hbase/wire"
	"commentbench/store"

	"google.golang.org/protobuf/proto"
)

// hbase:meta is not stored: its rows are computed from the engine's regions
// on every read, so splits and moves show at once and atomically (each
// table's regions come from one routing snapshot).

const metaSeqnum = "seqnumDuringOpen"

// metaRow is the meta row of a region (§5.4), cells in qualifier order.
func (c *Cluster) metaRow(r store.Region) ([]wire.Cell, error) {
	ri := &pb.RegionInfo{
		RegionId:  proto.Uint64(r.ID),
		TableName: wire.TableFromText(r.Table),
		StartKey:  append([]byte{}, r.Start...),
		EndKey:    append([]byte{}, r.End...),
		Offline:   proto.Bool(false),
		Split:     proto.Bool(false),
	}
	info, err := wire.EncodeRegionInfo(ri)
	if err != nil {
		return nil, err
	}
	addr, startCode := c.addrOf(r.Server)
	row := []byte(r.Name)
	fam := []byte(wire.MetaFamily)
	ts := r.ID
	cell := func(q string, v []byte) wire.Cell {
		return wire.Cell{Row: row, Family: fam, Qualifier: []byte(q), Value: v, Timestamp: ts, Type: wire.TypePut}
	}
	return []wire.Cell{
		cell(wire.MetaRegionInfo, info),
		cell(metaSeqnum, binary.BigEndian.AppendUint64(nil, 1)),
		cell(wire.MetaServer, []byte(addr)),
		cell(wire.MetaServerStartCode, binary.BigEndian.AppendUint64(nil, startCode)),
	}, nil
}

func checkMetaColumns(cols []*pb.Column) error {
	for _, col := range cols {
		if string(col.GetFamily()) != wire.MetaFamily {
			return excf(wire.ExcNoSuchColumnFamily, "Column family %s does not exist in region %s", col.GetFamily(), wire.MetaRegionName)
		}
	}
	return nil
}

// selectColumns keeps the cells the Get/Scan columns ask for.
func selectColumns(cells []wire.Cell, cols []*pb.Column) []wire.Cell {
	quals := map[string]bool{}
	for _, col := range cols {
		if len(col.GetQualifier()) == 0 {
			return cells
		}
		for _, q := range col.GetQualifier() {
			quals[string(q)] = true
		}
	}
	if len(cols) == 0 {
		return cells
	}
	var out []wire.Cell
	for _, cl := range cells {
		if quals[string(cl.Qualifier)] {
			out = append(out, cl)
		}
	}
	return out
}

// metaGet answers a Get on hbase:meta: the row of the region so named, or
// nothing (gohbase's probe key included).
func (cn *conn) metaGet(g *pb.Get, out *[]byte) (*pb.Result, error) {
	if err := checkMetaColumns(g.GetColumn()); err != nil {
		return nil, err
	}
	var cells []wire.Cell
	if r, ok := cn.c.eng.RegionByName(string(g.GetRow())); ok {
		all, err := cn.c.metaRow(r)
		if err != nil {
			return nil, err
		}
		cells = selectColumns(all, g.GetColumn())
	}
	if g.GetExistenceOnly() {
		return &pb.Result{Exists: proto.Bool(len(cells) > 0)}, nil
	}
	return cn.result(cells, out), nil
}

// metaScan computes the rows a scan of hbase:meta returns. A reversed scan
// whose start row is a region lookup ("T,K,:") is answered directly: the
// region of T holding K, then T's earlier regions, newest start first
// (§5.7 approach 1). Any other scan walks every region's row in the meta
// comparator's order (approach 2), never plain byte order.
func (c *Cluster) metaScan(sc *pb.Scan) ([][]wire.Cell, error) {
	if err := checkMetaColumns(sc.GetColumn()); err != nil {
		return nil, err
	}
	start, stop := sc.GetStartRow(), sc.GetStopRow()
	var regions []store.Region
	if table, key, err := wire.ParseMetaLookupKey(start); err == nil && sc.GetReversed() {
		all, err := c.eng.Regions(c.ctx, table)
		if errors.Is(err, store.ErrTableNotFound) {
			return [][]wire.Cell{}, nil
		}
		if err != nil {
			return nil, err
		}
		i := len(all) - 1
		for i >= 0 && bytes.Compare(all[i].Start, key) > 0 {
			i--
		}
		for ; i >= 0; i-- {
			regions = append(regions, all[i])
		}
	} else {
		stats, err := c.eng.RegionStats(c.ctx)
		if err != nil {
			return nil, err
		}
		for _, s := range stats {
			regions = append(regions, s.Region)
		}
		slices.SortFunc(regions, func(a, b store.Region) int {
			return wire.CompareMetaKeys([]byte(a.Name), []byte(b.Name))
		})
		if sc.GetReversed() {
			slices.Reverse(regions)
		}
	}
	rows := [][]wire.Cell{}
	for _, r := range regions {
		name := []byte(r.Name)
		if !sc.GetReversed() {
			if len(start) > 0 && wire.CompareMetaKeys(name, start) < 0 {
				continue
			}
			if len(stop) > 0 && wire.CompareMetaKeys(name, stop) >= 0 {
				continue
			}
		} else {
			if len(start) > 0 && wire.CompareMetaKeys(name, start) > 0 {
				continue
			}
			if len(stop) > 0 && wire.CompareMetaKeys(name, stop) <= 0 {
				continue
			}
		}
		cells, err := c.metaRow(r)
		if err != nil {
			return nil, err
		}
		if cells = selectColumns(cells, sc.GetColumn()); len(cells) > 0 {
			rows = append(rows, cells)
		}
	}
	return rows, nil
}
