package hbase

import (
	"errors"
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"commentbench/hbase/pb"
	"commentbench/hbase/wire"
)

// A Get is the call a load test makes most, and protobuf reflection was
// most of the client's work in one: building the messages, sizing and
// encoding them, decoding the answer. Its request and the usual answer
// (a Result whose cells are all in the cellblock) are coded by hand
// here; getcodec_test.go holds them to what proto.Marshal and
// proto.Unmarshal make of the same messages.

// appendGetRequest appends GetRequest{region, g} as proto.Marshal encodes
// the messages g.proto and regionSpec build; filter is g's Filter
// marshalled (nil: none).
func appendGetRequest(b, region []byte, g *Get, filter []byte) []byte {
	b = protowire.AppendTag(b, 1, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(regionSpecSize(region)))
	b = appendRegionSpec(b, region)
	b = protowire.AppendTag(b, 2, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(getSize(g, filter)))
	return appendGet(b, g, filter)
}

func regionSpecSize(name []byte) int { return 2 + 1 + protowire.SizeBytes(len(name)) }

func appendRegionSpec(b, name []byte) []byte {
	b = append(b, 1<<3|byte(protowire.VarintType), byte(pb.RegionSpecifier_REGION_NAME))
	b = protowire.AppendTag(b, 2, protowire.BytesType)
	return protowire.AppendBytes(b, name)
}

func getSize(g *Get, filter []byte) int {
	n := 1 + protowire.SizeBytes(len(g.Row))
	for i := range g.Columns {
		n += 1 + protowire.SizeBytes(columnSize(&g.Columns[i]))
	}
	if filter != nil {
		n += 1 + protowire.SizeBytes(len(filter))
	}
	if tr := timeRangeSize(g.TimeRange); tr > 0 {
		n += 1 + protowire.SizeBytes(tr)
	}
	if g.MaxVersions > 1 {
		n += 1 + protowire.SizeVarint(uint64(uint32(g.MaxVersions)))
	}
	return n
}

// appendGet writes the fields in number order, as proto.Marshal does.
func appendGet(b []byte, g *Get, filter []byte) []byte {
	b = protowire.AppendTag(b, 1, protowire.BytesType)
	b = protowire.AppendBytes(b, g.Row)
	for i := range g.Columns {
		b = appendColumn(b, &g.Columns[i])
	}
	if filter != nil {
		b = protowire.AppendTag(b, 4, protowire.BytesType)
		b = protowire.AppendBytes(b, filter)
	}
	if tr := timeRangeSize(g.TimeRange); tr > 0 {
		b = protowire.AppendTag(b, 5, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(tr))
		b = appendTimeRange(b, g.TimeRange)
	}
	if g.MaxVersions > 1 {
		b = protowire.AppendTag(b, 6, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(uint32(g.MaxVersions)))
	}
	return b
}

func columnSize(c *Column) int {
	n := 1 + protowire.SizeBytes(len(c.Family))
	for _, q := range c.Qualifiers {
		n += 1 + protowire.SizeBytes(len(q))
	}
	return n
}

func appendColumn(b []byte, c *Column) []byte {
	b = protowire.AppendTag(b, 2, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(columnSize(c)))
	b = protowire.AppendTag(b, 1, protowire.BytesType)
	b = protowire.AppendString(b, c.Family)
	for _, q := range c.Qualifiers {
		b = protowire.AppendTag(b, 2, protowire.BytesType)
		b = protowire.AppendBytes(b, q)
	}
	return b
}

// timeRangeSize is 0 for the default range, which is left out, as HBase's
// client leaves out an all-time range.
func timeRangeSize(tr TimeRange) int {
	n := 0
	if tr.From > 0 {
		n += 1 + protowire.SizeVarint(uint64(tr.From))
	}
	if tr.To > 0 {
		n += 1 + protowire.SizeVarint(uint64(tr.To))
	}
	return n
}

func appendTimeRange(b []byte, tr TimeRange) []byte {
	if tr.From > 0 {
		b = protowire.AppendTag(b, 1, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(tr.From))
	}
	if tr.To > 0 {
		b = protowire.AppendTag(b, 2, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(tr.To))
	}
	return b
}

// getResult decodes a GetResponse and the cellblock after it, which the
// Result must use up.
func getResult(msg, block []byte) (Result, error) {
	var res Result
	var err error
	if n, ok := cellblockOnly(msg); ok {
		if res.Cells, block, err = readCells(block, int(n)); len(res.Cells) > 0 {
			res.Row = res.Cells[0].Row
		}
	} else {
		var resp pb.GetResponse
		if err := proto.Unmarshal(msg, &resp); err != nil {
			return Result{}, &retryableError{fmt.Sprintf("Get: undecodable response: %v", err)}
		}
		res, block, err = readResult(resp.GetResult(), block)
	}
	if err == nil && len(block) != 0 {
		err = &retryableError{fmt.Sprintf("%d unread cellblock bytes in Get response", len(block))}
	}
	if err != nil {
		return Result{}, err
	}
	return res, nil
}

// cellblockOnly reads a GetResponse holding at most one Result, whose
// cells (associated_cell_count of them) are all in the cellblock. Any
// other answer, inline cells or one that does not decode, is not ok: it is
// left to proto.Unmarshal.
func cellblockOnly(msg []byte) (n int32, ok bool) {
	seen := false
	err := eachField(msg, func(num protowire.Number, typ protowire.Type, v []byte) bool {
		if num != 1 {
			return true
		}
		if typ != protowire.BytesType || seen {
			return false
		}
		seen = true
		res, _ := protowire.ConsumeBytes(v)
		return eachField(res, func(num protowire.Number, typ protowire.Type, v []byte) bool {
			switch {
			case num == 1:
				return false // an inline cell
			case num == 2 && typ == protowire.VarintType:
				c, _ := protowire.ConsumeVarint(v)
				n = int32(c)
			}
			return true
		}) == nil
	})
	return n, err == nil
}

var (
	errStop     = errors.New("stopped by the caller")
	errBadField = errors.New("field number out of range")
)

// eachField calls f with each field of the encoded message b and its
// value's bytes, while f returns true; it fails on bytes that do not
// decode as a message.
func eachField(b []byte, f func(protowire.Number, protowire.Type, []byte) bool) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		if num > protowire.MaxValidNumber {
			return errBadField
		}
		b = b[n:]
		m := protowire.ConsumeFieldValue(num, typ, b)
		if m < 0 {
			return protowire.ParseError(m)
		}
		if !f(num, typ, b[:m]) {
			return errStop
		}
		b = b[m:]
	}
	return nil
}

// readCells decodes n cells from the front of block into one slice.
func readCells(block []byte, n int) ([]Cell, []byte, error) {
	if n < 0 {
		return nil, nil, &retryableError{"negative associated_cell_count"}
	}
	if n > len(block)/wire.MinCellLen {
		return nil, nil, &retryableError{fmt.Sprintf("bad cellblock: %d cells cannot fit in %d bytes", n, len(block))}
	}
	if n == 0 {
		return nil, block, nil
	}
	out := make([]Cell, n)
	for i := range out {
		wc, rest, err := wire.ReadCell(block)
		if err != nil {
			return nil, nil, &retryableError{fmt.Sprintf("bad cellblock: cell %d of %d: %v", i, n, err)}
		}
		out[i], block = fromWire(wc), rest
	}
	return out, block, nil
}
