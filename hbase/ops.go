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
// for the whole row) of one row, or with Increment an Increment.
type Mutation struct {
	Row       []byte
	Family    string
	Cells     []Cell // Put (or delete-typed cells, see Cell)
	DeleteRow bool
	// Increment makes the mutation HBase's Increment: each cell's value is
	// the 8-byte big-endian delta to add to its column's counter. In a
	// RowMutations it applies with the row's other mutations, atomically
	// (HBase 2.4+, HBASE-25242).
	Increment bool
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
	out := &pb.Get{Row: nonNil(g.Row), Column: columnsProto(g.Columns, ""), Filter: f}
	if timeRangeSize(g.TimeRange) > 0 { // HBase's client leaves out an all-time range
		out.TimeRange = g.TimeRange.proto()
	}
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
	return c.GetRow(ctx, table, Get{Row: row, Columns: c.familyColumns(family)})
}

// familyColumns is familyColumns(family), one slice per family for every
// Get of it: only read, it need not be built (and allocated) per call.
func (c *Client) familyColumns(family string) []Column {
	if family == "" {
		return nil
	}
	if cols, ok := c.famCols.Load(family); ok {
		return cols.([]Column)
	}
	cols, _ := c.famCols.LoadOrStore(family, familyColumns(family))
	return cols.([]Column)
}

// GetRow reads what g selects of one row. A family the table lacks is an
// error wrapping ErrNoSuchFamily.
func (c *Client) GetRow(ctx context.Context, table string, g Get) (Result, error) {
	filter, err := marshalFilter(g.Filter)
	if err != nil {
		return Result{}, err
	}
	rt := retrier{c: c}
	for {
		r, err := c.locate(ctx, table, g.Row)
		if err != nil {
			return Result{}, err
		}
		res, err := c.getOnce(ctx, r, &g, filter)
		if err == nil {
			res.Row = g.Row
			return res, nil
		}
		if err := rt.handle(ctx, err, r, r.addr, wire.ServiceClient); err != nil {
			return Result{}, err
		}
	}
}

// getOnce sends one Get to region r.
func (c *Client) getOnce(ctx context.Context, r *region, g *Get, filter []byte) (Result, error) {
	fb := getFrameBuf()
	defer fb.release()
	fb.body = appendGetRequest(fb.body[:0], r.name, g, filter)
	msg, cells, err := c.roundTrip(ctx, r.addr, wire.ServiceClient, "Get", fb, nil)
	if err != nil {
		return Result{}, err
	}
	return getResult(msg, cells)
}

// marshalFilter encodes f's Filter message; nil for no filter.
func marshalFilter(f Filter) ([]byte, error) {
	pf, err := encodeFilter(f)
	if err != nil || pf == nil {
		return nil, err
	}
	b, err := proto.Marshal(pf)
	if err != nil {
		return nil, fmt.Errorf("hbase: encode filter: %w", err)
	}
	return b, nil
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
	if m.Increment {
		return incrementCells(m)
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

// incrementCells are an Increment's cells: each a column and its delta, in
// a cell of type Put, as HBase's client sends them.
func incrementCells(m Mutation) ([]wire.Cell, pb.MutationProto_MutationType, error) {
	out := make([]wire.Cell, 0, len(m.Cells))
	for _, c := range m.Cells {
		if len(c.Value) != 8 {
			return nil, 0, fmt.Errorf("hbase: increment of %q by %d bytes, want an 8-byte delta", c.Qualifier, len(c.Value))
		}
		wc := wire.Cell{Row: m.Row, Family: c.Family, Qualifier: c.Qualifier, Value: c.Value, Type: wire.TypePut, Timestamp: wire.LatestTimestamp}
		if len(wc.Family) == 0 {
			wc.Family = []byte(m.Family)
		}
		if err := wc.Check(); err != nil {
			return nil, 0, fmt.Errorf("hbase: %w", err)
		}
		out = append(out, wc)
	}
	return out, pb.MutationProto_INCREMENT, nil
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
		var err error
		if acts[i], err = mutationAction(m); err != nil {
			return err
		}
	}
	return c.mutateActions(ctx, table, acts)
}

// mutateActions sends a lone mutation in a Mutate call, anything else in
// Multi calls.
func (c *Client) mutateActions(ctx context.Context, table string, acts []*action) error {
	if len(acts) == 1 && acts[0].group == nil {
		return c.mutateOne(ctx, table, acts[0])
	}
	if err := c.multi(ctx, table, acts); err != nil {
		return err
	}
	return firstErr(acts)
}

func mutationAction(m Mutation) (*action, error) {
	cells, typ, err := wireCells(m)
	if err != nil {
		return nil, err
	}
	return &action{row: nonNil(m.Row), mutType: typ, cells: cells, attrs: m.attributes()}, nil
}

// RowMutations are Puts, Deletes and Increments of one row that apply
// together or not at all (HBase's RowMutations; an Increment in them needs
// HBase 2.4+). Each Mutation's Row is Row.
type RowMutations struct {
	Row       []byte
	Mutations []Mutation
}

// MutateRows applies each RowMutations atomically, as HBase's batch of
// RowMutations does: in Multi calls grouped per region and server, each
// in an atomic RegionAction of its own (one of a single mutation goes as
// that mutation, atomic for its row anyway). One that fails applies
// nothing; the others are applied or not on their own.
func (c *Client) MutateRows(ctx context.Context, table string, rms []RowMutations) error {
	if len(rms) == 0 {
		return nil
	}
	acts := make([]*action, len(rms))
	for i, rm := range rms {
		var err error
		if acts[i], err = rowMutationsAction(rm); err != nil {
			return err
		}
	}
	return c.mutateActions(ctx, table, acts)
}

func rowMutationsAction(rm RowMutations) (*action, error) {
	if len(rm.Mutations) == 0 {
		return nil, fmt.Errorf("hbase: RowMutations of row %q without mutations", rm.Row)
	}
	group := make([]*action, len(rm.Mutations))
	for i, m := range rm.Mutations {
		m.Row = rm.Row
		var err error
		if group[i], err = mutationAction(m); err != nil {
			return nil, err
		}
	}
	if len(group) == 1 {
		return group[0], nil
	}
	return &action{row: nonNil(rm.Row), group: group}, nil
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
	return c.runGets(ctx, table, acts, rows)
}

// BatchGetRows reads what each Get selects of its row (columns, versions,
// a filter: a slice of a wide row), one Get each, in Multi calls grouped
// per region and server; results come in request order. A Get that fails
// fails the batch with a *RowError naming its row.
func (c *Client) BatchGetRows(ctx context.Context, table string, gets []Get) ([]Result, error) {
	acts := make([]*action, len(gets))
	rows := make([][]byte, len(gets))
	for i, g := range gets {
		gp, err := g.proto()
		if err != nil {
			return nil, fmt.Errorf("hbase: get of row %q: %w", g.Row, err)
		}
		acts[i], rows[i] = &action{row: nonNil(g.Row), get: gp}, g.Row
	}
	return c.runGets(ctx, table, acts, rows)
}

func (c *Client) runGets(ctx context.Context, table string, acts []*action, rows [][]byte) ([]Result, error) {
	if len(acts) == 0 {
		return nil, nil
	}
	if err := c.multi(ctx, table, acts); err != nil {
		return nil, err
	}
	out := make([]Result, len(acts))
	for i, a := range acts {
		if a.err != nil {
			return nil, &RowError{Row: rows[i], Err: a.err}
		}
		out[i] = a.res
		out[i].Row = rows[i]
	}
	return out, nil
}

// RowError is the failure of one row's part of a batch.
type RowError struct {
	Row []byte
	Err error
}

func (e *RowError) Error() string { return fmt.Sprintf("row %q: %v", e.Row, e.Err) }
func (e *RowError) Unwrap() error { return e.Err }

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

// action is one Get or mutation of a Multi batch, or a RowMutations: a
// group of mutations of row, sent in an atomic RegionAction of its own.
type action struct {
	row     []byte
	get     *pb.Get
	mutType pb.MutationProto_MutationType
	cells   []wire.Cell
	attrs   []*pb.NameBytesPair
	group   []*action

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
	m := buildMulti(acts)
	var resp pb.MultiResponse
	cells, err := c.rpc(ctx, addr, wire.ServiceClient, "Multi", m.req, m.block, &resp)
	if err == nil {
		err = m.answer(&resp, cells)
	}
	if err != nil {
		for _, a := range acts {
			a.fail = err
		}
	}
}

// multiCall is one Multi request: its RegionActions, the actions each
// carries, in request order, and the action each index belongs to (every
// mutation of a RowMutations has an index of its own).
type multiCall struct {
	req   *pb.MultiRequest
	block []byte
	order [][]*action
	idx   map[uint32]*action
}

// buildMulti puts the plain actions of a region in one RegionAction, and
// each RowMutations in an atomic one of its own.
func buildMulti(acts []*action) *multiCall {
	m := &multiCall{req: &pb.MultiRequest{}, idx: map[uint32]*action{}}
	byRegion := map[string]int{} // region name -> RegionAction position
	for _, a := range acts {
		if a.group != nil {
			m.addRegionAction(&pb.RegionAction{Region: regionSpec(a.region.name), Atomic: proto.Bool(true)}, a)
			continue
		}
		pos, ok := byRegion[string(a.region.name)]
		if !ok {
			pos = m.addRegionAction(&pb.RegionAction{Region: regionSpec(a.region.name)})
			byRegion[string(a.region.name)] = pos
		}
		m.order[pos] = append(m.order[pos], a)
	}
	n := uint32(0)
	for i, ra := range m.req.RegionAction {
		for _, a := range m.order[i] {
			if a.group == nil {
				n++
				ra.Action = append(ra.Action, m.encode(n, a, a))
				continue
			}
			for _, g := range a.group {
				n++
				ra.Action = append(ra.Action, m.encode(n, g, a))
			}
		}
	}
	return m
}

func (m *multiCall) addRegionAction(ra *pb.RegionAction, acts ...*action) int {
	m.req.RegionAction = append(m.req.RegionAction, ra)
	m.order = append(m.order, acts)
	return len(m.order) - 1
}

// encode is a's Action at index n, answered to owner.
func (m *multiCall) encode(n uint32, a, owner *action) *pb.Action {
	act := &pb.Action{Index: proto.Uint32(n)}
	if a.get != nil {
		act.Get = a.get
	} else {
		act.Mutation, m.block = encodeMutation(a, m.block)
	}
	m.idx[n] = owner
	return act
}

// answer sets each action's res or fail from resp; an error is an answer
// the whole call must be retried for.
func (m *multiCall) answer(resp *pb.MultiResponse, cells []byte) error {
	rars := resp.GetRegionActionResult()
	if len(rars) != len(m.req.RegionAction) {
		return &retryableError{fmt.Sprintf("Multi answered %d region actions of %d", len(rars), len(m.req.RegionAction))}
	}
	seen := map[uint32]bool{}
	failed := map[*action]bool{} // by a region exception
	for i, rar := range rars {
		if ex := rar.GetException(); ex != nil {
			if len(rar.GetResultOrException()) > 0 {
				return &retryableError{"Multi region exception with entries"}
			}
			e := newError(ex.GetName(), string(ex.GetValue()))
			for _, a := range m.order[i] {
				a.fail, failed[a] = e, true
			}
			continue
		}
		for _, roe := range rar.GetResultOrException() {
			a := m.idx[roe.GetIndex()]
			if a == nil || seen[roe.GetIndex()] || (roe.Result == nil) == (roe.Exception == nil) {
				return &retryableError{fmt.Sprintf("Multi: bad entry for index %d", roe.GetIndex())}
			}
			seen[roe.GetIndex()] = true
			if ex := roe.GetException(); ex != nil {
				a.fail = newError(ex.GetName(), string(ex.GetValue()))
				continue
			}
			res, rest, err := readResult(roe.GetResult(), cells)
			if err != nil {
				return err
			}
			cells = rest
			if a.group == nil {
				a.res = res
			}
		}
	}
	if len(cells) != 0 {
		return &retryableError{fmt.Sprintf("%d unread cellblock bytes in Multi response", len(cells))}
	}
	for n, a := range m.idx {
		if !seen[n] && !failed[a] {
			a.fail = &retryableError{"Multi left an action unanswered"}
		}
	}
	return nil
}
