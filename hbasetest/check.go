package hbasetest

import (
	"math"

	"commentbench/hbase/pb"
	"commentbench/hbase/wire"
	"commentbench/store/embedded"
)

// Check-and-mutate, as HBase's HRegion.checkAndMutate decides it: under
// the row's lock, read the condition's cell (or run its filter on the row)
// within its time range, decide, and apply the Puts and Deletes only on a
// match. Puts stamped LATEST get max(now, the checked cell's timestamp),
// so a clock behind the cell cannot hide the write under it.

// checkAndMutate applies muts (Puts and Deletes of cond's row) if cond
// holds, and reports whether it did.
func (c *Cluster) checkAndMutate(t target, cond *pb.Condition, muts []*pb.MutationProto, cells [][]wire.Cell) (bool, error) {
	row := cond.GetRow()
	rms, err := t.rowMutations(row, muts, cells)
	if err != nil {
		return false, err
	}
	check, err := t.condition(cond)
	if err != nil {
		return false, err
	}
	applied := false
	err = c.eng.UpdateRow(c.ctx, t.reg.Table, row, func(read embedded.RowReader, now int64) ([]embedded.RowMutation, error) {
		ok, cellTs, err := check(read)
		if err != nil || !ok {
			return nil, err
		}
		applied = true
		ts := max(now, cellTs)
		for _, rm := range rms {
			for i := range rm.Puts {
				if rm.Puts[i].Timestamp == 0 {
					rm.Puts[i].Timestamp = ts
				}
			}
		}
		return rms, nil
	})
	return applied, err
}

// condition parses cond into a check of the locked row: whether it holds,
// and the timestamp of the cell it matched (0 if none).
func (t target) condition(cond *pb.Condition) (func(embedded.RowReader) (bool, int64, error), error) {
	rd := embedded.Read{MaxTs: math.MaxInt64}
	if tr := cond.GetTimeRange(); tr != nil {
		rd.MinTs, rd.MaxTs = int64(min(tr.GetFrom(), math.MaxInt64)), int64(min(tr.GetTo(), math.MaxInt64))
		if rd.MaxTs < rd.MinTs {
			return nil, excf(wire.ExcDoNotRetryIO, "bad time range [%d, %d)", rd.MinTs, rd.MaxTs)
		}
	}
	row := cond.GetRow()
	if cond.Filter != nil {
		// HBase checks the filter with a Get of the row: the newest
		// version of each column the filter lets through.
		f, err := parseFilter(cond.GetFilter())
		if err != nil {
			return nil, err
		}
		rs := readSpec{maxVersions: 1, filter: f}
		rd.MaxVersions = filterVersions
		return func(read embedded.RowReader) (bool, int64, error) {
			cur, err := read(rd)
			if err != nil {
				return false, 0, err
			}
			r, keep := rs.readRow(row, rs.selectCells(cur), false)
			if !keep {
				return false, 0, nil
			}
			return true, int64(r.cells[0].Timestamp), nil
		}, nil
	}
	if err := t.family(cond.GetFamily()); err != nil {
		return nil, err
	}
	cmp, err := parseComparator(cond.GetComparator())
	if err != nil {
		return nil, err
	}
	fam, op := string(cond.GetFamily()), cond.GetCompareType()
	rd.Families = []string{fam}
	return func(read embedded.RowReader) (bool, int64, error) {
		cur, err := read(rd)
		if err != nil {
			return false, 0, err
		}
		cell, present := cur.Cell(fam, cond.GetQualifier())
		ok, err := conditionHolds(op, cmp, cell.Value, present)
		return ok, cell.Timestamp, err
	}, nil
}

// conditionHolds decides a value condition. An empty expected value
// stands for "absent or empty": every operator but NOT_EQUAL matches an
// absent or empty cell, NOT_EQUAL a present, non-empty one. Otherwise an
// absent cell matches nothing, and the operator applies to the expected
// value compared with the stored one (expected first): LESS holds when
// the stored value is greater.
func conditionHolds(op pb.CompareType, cmp comparator, stored []byte, present bool) (bool, error) {
	if len(cmp.value()) == 0 {
		empty := !present || len(stored) == 0
		return empty == (op != pb.CompareType_NOT_EQUAL), nil
	}
	if !present {
		return false, nil
	}
	c := cmp.compare(stored)
	switch op {
	case pb.CompareType_LESS:
		return c < 0, nil
	case pb.CompareType_LESS_OR_EQUAL:
		return c <= 0, nil
	case pb.CompareType_EQUAL:
		return c == 0, nil
	case pb.CompareType_NOT_EQUAL:
		return c != 0, nil
	case pb.CompareType_GREATER_OR_EQUAL:
		return c >= 0, nil
	case pb.CompareType_GREATER:
		return c > 0, nil
	}
	// HBase throws on NO_OP (or anything else) once it has a value to
	// compare; a condition on an absent cell never gets this far.
	return false, excf(wire.ExcDoNotRetryIO, "Unknown Compare op %v", op)
}
