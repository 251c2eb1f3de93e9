package hbase

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	"commentbench/hbase/pb"
	"commentbench/hbase/wire"
)

// Mutation is a Put (Cells) or a Delete (delete-typed Cells, or DeleteRow
// for the whole row) of one row.
type Mutation struct {
	Row       []byte
	Family    string
	Cells     []Cell // Put (or delete-typed cells, see Cell)
	DeleteRow bool
	// TTL makes a Put's cells expire TTL after their timestamp (HBase's
	// per-cell TTL, the mutation's _ttl attribute); 0 never expires them.
	TTL time.Duration
}

// ttlAttribute is where HBase's Mutation.setTTL puts the TTL: 8 bytes,
// big-endian, in ms.
const ttlAttribute = "_ttl"

func (m Mutation) attributes() []*pb.NameBytesPair {
	if m.TTL <= 0 {
		return nil
	}
	return []*pb.NameBytesPair{{Name: proto.String(ttlAttribute), Value: binary.BigEndian.AppendUint64(nil, uint64(m.TTL.Milliseconds()))}}
}

// Column names a family, and some of its qualifiers or (none) all.
type Column struct {
	Family     string
	Qualifiers [][]byte
}

// TimeRange selects versions with From <= timestamp < To (ms); To 0 means
// no upper bound.
type TimeRange struct{ From, To int64 }

func (tr TimeRange) proto() *pb.TimeRange {
	out := &pb.TimeRange{}
	if tr.From > 0 {
		out.From = proto.Uint64(uint64(tr.From))
	}
	if tr.To > 0 {
		out.To = proto.Uint64(uint64(tr.To))
	}
	return out
}

func columnsProto(cols []Column, family string) []*pb.Column {
	var out []*pb.Column
	if family != "" {
		out = append(out, &pb.Column{Family: []byte(family)})
	}
	for _, c := range cols {
		out = append(out, &pb.Column{Family: []byte(c.Family), Qualifier: c.Qualifiers})
	}
	return out
}

// Get selects what to read of one row: the columns (empty: every family),
// versions per column (0: 1), a time range and a filter.
type Get struct {
	Row         []byte
	Columns     []Column
	MaxVersions int
	TimeRange   TimeRange
	Filter      Filter
}

func (g Get) proto() (*pb.Get, error) {
	f, err := encodeFilter(g.Filter)
	if err != nil {
		return nil, err
	}
	out := &pb.Get{Row: nonNil(g.Row), TimeRange: g.TimeRange.proto(), Column: columnsProto(g.Columns, ""), Filter: f}
	if g.MaxVersions > 1 {
		out.MaxVersions = proto.Uint32(uint32(g.MaxVersions))
	}
	return out, nil
}

func getProto(row []byte, family string) *pb.Get {
	g, _ := Get{Row: row, Columns: familyColumns(family)}.proto() // no filter: cannot fail
	return g
}

func familyColumns(family string) []Column {
	if family == "" {
		return nil
	}
	return []Column{{Family: family}}
}

// Get reads one row, restricted to family when it is not empty.
func (c *Client) Get(ctx context.Context, table string, row []byte, family string) (Result, error) {
	return c.GetRow(ctx, table, Get{Row: row, Columns: familyColumns(family)})
}

// GetRow reads what g selects of one row. A family the table lacks is an
// error wrapping ErrNoSuchFamily.
func (c *Client) GetRow(ctx context.Context, table string, g Get) (Result, error) {
	gp, err := g.proto()
	if err != nil {
		return Result{}, err
	}
	row := g.Row
	rt := retrier{c: c}
	for {
		r, err := c.locate(ctx, table, row)
		if err != nil {
			return Result{}, err
		}
		req := &pb.GetRequest{Region: regionSpec(r.name), Get: gp}
		var resp pb.GetResponse
		cells, err := c.rpc(ctx, r.addr, wire.ServiceClient, "Get", req, nil, &resp)
		if err == nil {
			var res Result
			var rest []byte
			res, rest, err = readResult(resp.GetResult(), cells)
			if err == nil && len(rest) != 0 {
				err = &retryableError{fmt.Sprintf("%d unread cellblock bytes in Get response", len(rest))}
			}
			if err == nil {
				res.Row = row
				return res, nil
			}
		}
		if err := rt.handle(ctx, err, r, r.addr, wire.ServiceClient); err != nil {
			return Result{}, err
		}
	}
}

// wireCells converts a mutation's cells and picks its type.
func wireCells(m Mutation) ([]wire.Cell, pb.MutationProto_MutationType, error) {
	if m.DeleteRow {
		if len(m.Cells) > 0 {
			return nil, 0, errors.New("hbase: DeleteRow mutation with cells")
		}
		return nil, pb.MutationProto_DELETE, nil
	}
	if len(m.Cells) == 0 {
		return nil, 0, errors.New("hbase: mutation without cells")
	}
	out := make([]wire.Cell, 0, len(m.Cells))
	puts, dels := 0, 0
	for _, c := range m.Cells {
		wc := wire.Cell{Row: m.Row, Family: c.Family, Qualifier: c.Qualifier, Value: c.Value, Type: c.Type}
		if len(wc.Family) == 0 {
			wc.Family = []byte(m.Family)
		}
		if wc.Type == 0 {
			wc.Type = wire.TypePut
		}
		if wc.Type == wire.TypePut {
			puts++
		} else {
			dels++
		}
		wc.Timestamp = wire.LatestTimestamp
		if c.Timestamp > 0 {
			wc.Timestamp = uint64(c.Timestamp)
		}
		if err := wc.Check(); err != nil {
			return nil, 0, fmt.Errorf("hbase: %w", err)
		}
		out = append(out, wc)
	}
	if puts > 0 && dels > 0 {
		return nil, 0, errors.New("hbase: mutation mixes put and delete cells")
	}
	if dels > 0 {
		return out, pb.MutationProto_DELETE, nil
	}
	return out, pb.MutationProto_PUT, nil
}

// encodeMutation builds the cellblock form of §6.2 and appends its cells.
func encodeMutation(a *action, block []byte) (*pb.MutationProto, []byte) {
	for _, wc := range a.cells {
		block = wire.AppendCell(block, wc)
	}
	return &pb.MutationProto{
		Row:                 nonNil(a.row),
		MutateType:          a.mutType.Enum(),
		AssociatedCellCount: proto.Int32(int32(len(a.cells))),
		Attribute:           a.attrs,
	}, block
}

// Mutate applies the mutations: one Mutate RPC for a single mutation,
// Multi RPCs grouped per region and server for several. Actions that hit
// region errors are re-located and resent on their own.
func (c *Client) Mutate(ctx context.Context, table string, muts []Mutation) error {
	if len(muts) == 0 {
		return nil
	}
	acts := make([]*action, len(muts))
	for i, m := range muts {
		cells, typ, err := wireCells(m)
		if err != nil {
			return err
		}
		acts[i] = &action{row: nonNil(m.Row), mutType: typ, cells: cells, attrs: m.attributes()}
	}
	if len(muts) == 1 {
		return c.mutateOne(ctx, table, acts[0])
	}
	if err := c.multi(ctx, table, acts); err != nil {
		return err
	}
	return firstErr(acts)
}

func (c *Client) mutateOne(ctx context.Context, table string, a *action) error {
	rt := retrier{c: c}
	for {
		r, err := c.locate(ctx, table, a.row)
		if err != nil {
			return err
		}
		mp, block := encodeMutation(a, nil)
		req := &pb.MutateRequest{Region: regionSpec(r.name), Mutation: mp}
		var resp pb.MutateResponse
		if _, err = c.rpc(ctx, r.addr, wire.ServiceClient, "Mutate", req, block, &resp); err == nil {
			return nil
		}
		if err := rt.handle(ctx, err, r, r.addr, wire.ServiceClient); err != nil {
			return err
		}
	}
}

// BatchGet reads rows with Multi calls grouped per region and server;
// results come in request order.
func (c *Client) BatchGet(ctx context.Context, table string, rows [][]byte, family string) ([]Result, error) {
	acts := make([]*action, len(rows))
	for i, row := range rows {
		acts[i] = &action{row: nonNil(row), get: getProto(row, family)}
	}
	if len(acts) == 0 {
		return nil, nil
	}
	if err := c.multi(ctx, table, acts); err != nil {
		return nil, err
	}
	if err := firstErr(acts); err != nil {
		return nil, err
	}
	out := make([]Result, len(acts))
	for i, a := range acts {
		out[i] = a.res
		out[i].Row = rows[i]
	}
	return out, nil
}

func firstErr(acts []*action) error {
	for _, a := range acts {
		if a.err != nil {
			return a.err
		}
	}
	return nil
}

// CheckAndPut applies put only if family:qualifier of row currently holds
// expected (nil or empty: the column is absent or empty). It reports
// whether the put was applied.
func (c *Client) CheckAndPut(ctx context.Context, table string, row []byte, family string, qualifier, expected []byte, put Mutation) (bool, error) {
	if put.Family == "" {
		put.Family = family
	}
	for _, cl := range put.Cells {
		if cl.Type != 0 && cl.Type != wire.TypePut {
			put.DeleteRow = true // not a put either way
		}
	}
	if put.DeleteRow {
		return false, errors.New("hbase: CheckAndPut needs a put")
	}
	return c.CheckAndMutate(ctx, table, CheckAndMutate{
		Row:       row,
		Condition: Condition{Family: family, Qualifier: qualifier, Op: Equal, Value: expected},
		Mutations: []Mutation{put},
	})
}

// action is one Get or mutation of a Multi batch.
type action struct {
	row     []byte
	get     *pb.Get
	mutType pb.MutationProto_MutationType
	cells   []wire.Cell
	attrs   []*pb.NameBytesPair

	res Result
	err error

	// per round
	region *region
	fail   error
}

// multi runs acts to completion: every round locates the pending actions,
// sends one Multi per server (concurrently), and keeps only the actions
// that failed with a retryable, relocate or server error for the next
// round (§4.3, §7.4). Actions that fail for good get their err set; multi
// itself returns an error only when the whole batch gives up.
func (c *Client) multi(ctx context.Context, table string, acts []*action) error {
	pending := acts
	attempt := 0
	for len(pending) > 0 {
		// Locate and group by server.
		byServer := map[string][]*action{}
		for _, a := range pending {
			r, err := c.locate(ctx, table, a.row)
			if err != nil {
				return err
			}
			a.region, a.fail = r, nil
			byServer[r.addr] = append(byServer[r.addr], a)
		}
		var wg sync.WaitGroup
		for addr, as := range byServer {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c.multiServer(ctx, addr, as)
			}()
		}
		wg.Wait()
		if ctx.Err() != nil {
			return ctx.Err()
		}

		var next []*action
		relocOnly := true
		var last error
		for _, a := range pending {
			if a.fail == nil {
				continue
			}
			g, _ := groupOf(a.fail)
			if g == wire.Surface {
				a.err = a.fail
				continue
			}
			if g != wire.Relocate {
				relocOnly = false
			}
			last = a.fail
			next = append(next, a)
		}
		if len(next) == 0 {
			return nil
		}
		attempt++
		if attempt > c.o.MaxRetries {
			err := fmt.Errorf("hbase: giving up after %d retries: %w", c.o.MaxRetries, last)
			for _, a := range next {
				a.err = err
			}
			return err
		}
		seen := map[string]bool{}
		for _, a := range next {
			g, class := groupOf(a.fail)
			c.count(func(k *Counters) { k.Retries[class]++ })
			switch g {
			case wire.Relocate:
				c.cache.remove(a.region)
			case wire.ServerBroken:
				if !seen[a.region.addr] {
					seen[a.region.addr] = true
					c.serverBroken(a.region.addr, wire.ServiceClient)
				}
			}
		}
		if !(relocOnly && attempt == 1) {
			if err := sleep(ctx, backoff(attempt)); err != nil {
				return err
			}
		}
		pending = next
	}
	return nil
}

// multiServer sends one Multi with acts (all located on addr) and sets each
// action's res or fail.
func (c *Client) multiServer(ctx context.Context, addr string, acts []*action) {
	req := &pb.MultiRequest{}
	var block []byte
	byRegion := map[string]int{} // region name -> RegionAction position
	var order [][]*action        // actions per RegionAction, in request order
	idx := map[uint32]*action{}
	for _, a := range acts {
		pos, ok := byRegion[string(a.region.name)]
		if !ok {
			pos = len(req.RegionAction)
			byRegion[string(a.region.name)] = pos
			req.RegionAction = append(req.RegionAction, &pb.RegionAction{Region: regionSpec(a.region.name)})
			order = append(order, nil)
		}
		order[pos] = append(order[pos], a)
	}
	n := uint32(0)
	for i, ra := range req.RegionAction {
		for _, a := range order[i] {
			n++
			act := &pb.Action{Index: proto.Uint32(n)}
			if a.get != nil {
				act.Get = a.get
			} else {
				act.Mutation, block = encodeMutation(a, block)
			}
			ra.Action = append(ra.Action, act)
			idx[n] = a
		}
	}
	failAll := func(err error) {
		for _, a := range acts {
			a.fail = err
		}
	}
	var resp pb.MultiResponse
	cells, err := c.rpc(ctx, addr, wire.ServiceClient, "Multi", req, block, &resp)
	if err != nil {
		failAll(err)
		return
	}
	rars := resp.GetRegionActionResult()
	if len(rars) != len(req.RegionAction) {
		failAll(&retryableError{fmt.Sprintf("Multi answered %d region actions of %d", len(rars), len(req.RegionAction))})
		return
	}
	answered := map[*action]bool{}
	for i, rar := range rars {
		if ex := rar.GetException(); ex != nil {
			if len(rar.GetResultOrException()) > 0 {
				failAll(&retryableError{"Multi region exception with entries"})
				return
			}
			e := newError(ex.GetName(), string(ex.GetValue()))
			for _, a := range order[i] {
				a.fail = e
				answered[a] = true
			}
			continue
		}
		for _, roe := range rar.GetResultOrException() {
			a := idx[roe.GetIndex()]
			if a == nil || answered[a] || (roe.Result == nil) == (roe.Exception == nil) {
				failAll(&retryableError{fmt.Sprintf("Multi: bad entry for index %d", roe.GetIndex())})
				return
			}
			answered[a] = true
			if ex := roe.GetException(); ex != nil {
				a.fail = newError(ex.GetName(), string(ex.GetValue()))
				continue
			}
			var res Result
			res, cells, err = readResult(roe.GetResult(), cells)
			if err != nil {
				failAll(err)
				return
			}
			a.res = res
		}
	}
	if len(cells) != 0 {
		failAll(&retryableError{fmt.Sprintf("%d unread cellblock bytes in Multi response", len(cells))})
		return
	}
	for _, a := range acts {
		if !answered[a] {
			a.fail = &retryableError{"Multi left an action unanswered"}
		}
	}
}
