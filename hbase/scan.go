package hbase

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"google.golang.org/protobuf/proto"

	"commentbench/hbase/pb"
	"commentbench/hbase/wire"
)

// Scan describes a range scan. Forward scans cover [Start, Stop); reversed
// ones go from Start (inclusive, empty = end of table) down to Stop
// (exclusive). Limit > 0 caps the rows delivered; Caching > 0 caps the
// results asked per RPC (by default only MaxResultSize bounds a call, as
// in HBase's client). Family and Columns restrict the columns (none: every
// family); MaxVersions (0: 1) and TimeRange select versions.
type Scan struct {
	Start, Stop []byte
	Reversed    bool
	Limit       int
	Family      string
	Columns     []Column
	MaxVersions int
	TimeRange   TimeRange
	Filter      Filter
	Caching     int
	// Batch > 0 caps the cells of a Result: a row with more comes as
	// several Results of the same Row, Batch cells each but the last,
	// Partial set on all but the last (HBase's Scan.setBatch; the
	// servers cut rows at Batch cells, and the client regroups what
	// their size limits cut smaller).
	Batch int
	// AllowPartial hands a row over in the chunks the servers send,
	// Partial set on all but the last, rather than whole (HBase's
	// Scan.setAllowPartialResults): a row too wide to hold costs one
	// chunk of memory.
	AllowPartial bool
	// MaxResultSize caps the bytes of cells one call answers (HBase's
	// Scan.setMaxResultSize); 0 is DefaultMaxResultSize. A server cuts a
	// row at it.
	MaxResultSize int64
}

// DefaultMaxResultSize is HBase's hbase.client.scanner.max.result.size.
const DefaultMaxResultSize = 2 << 20

// defaultCaching is HBase's hbase.client.scanner.caching, Integer.MAX_VALUE:
// the rows of a call are not counted, their bytes are. A fixed count left
// a call's size to its rows' width: narrow rows took a round trip per few
// hundred kilobytes, wide ones calls of any size.
const defaultCaching = 1<<31 - 1

// ScanStats describes one Scan call.
type ScanStats struct {
	Rows    int // rows delivered (one handed over in several Results counts once)
	RPCs    int // Scan RPCs sent (open, next, close, renew)
	Regions int // region scanners opened
	Reopens int // scanners re-opened after a failure

	// RowsScanned and RowsFiltered sum the server's scan metrics
	// (ROWS_SCANNED, ROWS_FILTERED) over every Scan call of every region
	// scanner, re-opened ones included: the rows the servers read,
	// filtered or not, and those their filters dropped. They may exceed
	// what was delivered: a server reads a whole batch of rows ahead of
	// the caller. NoServerMetrics is set, and both left 0, when a server
	// answered a call without scan metrics (one that does not track
	// them); callers then have only Rows.
	RowsScanned     int64
	RowsFiltered    int64
	NoServerMetrics bool
}

// Names of HBase's ServerSideScanMetrics in ScanResponse.scan_metrics.
const (
	metricRowsScanned  = "ROWS_SCANNED"
	metricRowsFiltered = "ROWS_FILTERED"
)

// addMetrics adds one call's scan metrics (per call, as HBase sends them).
func (st *ScanStats) addMetrics(m *pb.ScanMetrics) {
	if m == nil {
		st.NoServerMetrics = true
		return
	}
	for _, p := range m.GetMetrics() {
		switch p.GetName() {
		case metricRowsScanned:
			st.RowsScanned += p.GetValue()
		case metricRowsFiltered:
			st.RowsFiltered += p.GetValue()
		}
	}
}

// prefetch asks for a scan's next batch before handing this one over;
// benchmarks turn it off to measure what it buys.
var prefetch = true

// scanPos is where a (re)opened scanner starts (inclusive).
type scanPos struct {
	key       []byte
	locateKey []byte // key whose region to open at
	before    []byte // reversed hop: the region must end exactly here
}

// Scan calls each with every row of the scan in order until each returns
// false, the limit is reached or the range is exhausted. It hops regions
// per §6.5.5 and survives splits, moves and server loss by re-opening
// after the last delivered row, or at a row delivered in part (§6.5.6);
// partial rows are coalesced unless sc has Batch or AllowPartial.
func (c *Client) Scan(ctx context.Context, table string, sc Scan, each func(Result) bool) (ScanStats, error) {
	st, err := c.scan(ctx, table, sc, each)
	if st.NoServerMetrics {
		st.RowsScanned, st.RowsFiltered = 0, 0
	}
	return st, err
}

func (c *Client) scan(ctx context.Context, table string, sc Scan, each func(Result) bool) (ScanStats, error) {
	var st ScanStats
	filter, err := encodeFilter(sc.Filter)
	if err != nil {
		return st, err
	}
	caching := min(sc.Caching, defaultCaching)
	if caching <= 0 {
		caching = defaultCaching
	}
	pos := scanPos{key: nonNil(sc.Start), locateKey: sc.Start}
	if sc.Reversed && len(sc.Start) == 0 {
		pos.locateKey = lastKey
	}
	asm := &assembler{batch: sc.Batch, partial: sc.AllowPartial, reversed: sc.Reversed, limit: sc.Limit, st: &st, each: each}
	rt := retrier{c: c}
	rowsAtErr := 0

	// resume computes the position after what was delivered.
	resume := func(p scanPos) scanPos {
		if asm.lastRow == nil {
			return p
		}
		k := asm.resumeAt()
		return scanPos{key: k, locateKey: k}
	}

	for {
		r, err := c.locate(ctx, table, pos.locateKey)
		if err == nil && pos.before != nil && !bytes.Equal(r.end, pos.before) {
			r, err = c.predecessor(ctx, table, pos.before)
		}
		if err != nil {
			return st, err
		}
		done, next, err := c.scanRegion(ctx, r, sc, filter, caching, pos, &st, asm)
		if err != nil {
			asm.abort()
			// A lost scanner is re-opened like a moved region (§6.5.6).
			var he *Error
			if errors.As(err, &he) && (he.Class == wire.ExcUnknownScanner || he.Class == wire.ExcScannerReset) {
				err = &Error{Class: he.Class, Message: he.Message, Group: wire.Relocate}
			}
			if st.Rows > rowsAtErr {
				rt.attempt = 0 // progress since the last failure
			}
			rowsAtErr = st.Rows
			if herr := rt.handle(ctx, err, r, r.addr, wire.ServiceClient); herr != nil {
				return st, herr
			}
			st.Reopens++
			pos = resume(pos)
			if asm.lastRow != nil {
				pos.before = nil
			}
			continue
		}
		rt.attempt = 0
		if done {
			return st, nil
		}
		pos = next
	}
}

// scanRegion scans one region from pos. It returns done when the scan is
// over, or the position to continue at in the next region.
func (c *Client) scanRegion(ctx context.Context, r *region, sc Scan, filter *pb.Filter, caching int, pos scanPos,
	st *ScanStats, asm *assembler) (done bool, next scanPos, err error) {
	rs := &regionScan{c: c, ctx: ctx, r: r, sc: &sc, caching: caching, st: st, asm: asm}
	rs.req = rs.request(nil)
	rs.req.Scan = scanProto(&sc, filter, pos.key)
	rs.req.NumberOfRows = proto.Uint32(rs.rowsAfter(0))
	st.Regions++
	for {
		f := rs.next()
		stop, err := rs.deliver(f)
		switch {
		case err != nil:
			return false, scanPos{}, err
		case stop:
			if rs.settle() {
				rs.close()
			}
			return true, scanPos{}, nil
		case rs.scanner == nil:
			done, next := rs.hop(f.resp)
			return done, next, nil
		}
	}
}

// scanProto is the Scan message opening sc's scanner at start.
func scanProto(sc *Scan, filter *pb.Filter, start []byte) *pb.Scan {
	s := &pb.Scan{
		Column:        columnsProto(sc.Columns, sc.Family),
		StartRow:      start,
		StopRow:       nonNil(sc.Stop),
		TimeRange:     sc.TimeRange.proto(),
		MaxResultSize: proto.Uint64(DefaultMaxResultSize),
		Filter:        filter,
	}
	if sc.MaxVersions > 1 {
		s.MaxVersions = proto.Uint32(uint32(sc.MaxVersions))
	}
	if sc.Reversed {
		s.Reversed = proto.Bool(true)
	}
	if sc.MaxResultSize > 0 {
		s.MaxResultSize = proto.Uint64(uint64(sc.MaxResultSize))
	}
	if sc.Batch > 0 {
		s.BatchSize = proto.Uint32(uint32(min(uint64(sc.Batch), math.MaxUint32)))
	}
	if sc.AllowPartial {
		s.AllowPartialResults = proto.Bool(true)
	}
	return s
}

// regionScan is a scan's pass over one region: its scanner, and the next
// batch asked for before this one is handed over, so that the server
// reads it while the caller consumes (the prefetch in flight).
type regionScan struct {
	c        *Client
	ctx      context.Context
	r        *region
	sc       *Scan
	caching  int
	st       *ScanStats
	asm      *assembler
	req      *pb.ScanRequest // the next call
	scanner  *uint64         // the open scanner; nil: none
	inflight <-chan fetched
}

// request is a Scan call on the region's scanner id (nil: one to open).
func (rs *regionScan) request(id *uint64) *pb.ScanRequest {
	return &pb.ScanRequest{
		Region:                  regionSpec(rs.r.name),
		ScannerId:               id,
		ClientHandlesPartials:   proto.Bool(true),
		ClientHandlesHeartbeats: proto.Bool(true),
		TrackScanMetrics:        proto.Bool(true),
	}
}

// rowsAfter is the rows to ask for once another `pending` rows are
// delivered: 0 when the limit may be reached by then.
func (rs *regionScan) rowsAfter(pending int) uint32 {
	n := rs.caching
	if lim := rs.sc.Limit; lim > 0 && lim-rs.st.Rows-pending < n {
		n = max(lim-rs.st.Rows-pending, 0)
	}
	return uint32(n)
}

// next is the next batch: the one asked ahead, or one asked now.
func (rs *regionScan) next() fetched {
	if rs.inflight != nil {
		f := <-rs.inflight
		rs.inflight = nil
		return f
	}
	rs.st.RPCs++
	return rs.c.fetch(rs.ctx, rs.r, rs.req)
}

// deliver hands f's results to the assembler; stop is the caller done or
// the limit reached. The next batch is asked for before this one is
// decoded: the server need not wait for the client's work on it.
func (rs *regionScan) deliver(f fetched) (stop bool, err error) {
	rs.follow(f)
	var chunks []chunk
	if err = f.err; err == nil {
		chunks, err = scanChunks(f.resp, f.cells)
	}
	if err != nil {
		f.stopKA()
		rs.abandon(err)
		return false, err
	}
	rs.st.addMetrics(f.resp.GetScanMetrics())
	defer f.stopKA()
	for _, ch := range chunks {
		if !rs.asm.put(ch) {
			return true, nil
		}
	}
	if rs.scanner == nil {
		return !rs.asm.flush(), nil
	}
	if rs.inflight == nil {
		rs.req.NumberOfRows = proto.Uint32(rs.rowsAfter(0))
	}
	return false, nil
}

// follow keeps the scanner f's response left open, and asks ahead for
// its next batch. Under a limit it asks only for rows surely wanted: each
// of f's results may end a row, and so may the one pending.
func (rs *regionScan) follow(f fetched) {
	rs.scanner = nil
	if !f.resp.GetMoreResultsInRegion() || f.resp.ScannerId == nil {
		return
	}
	rs.scanner = f.resp.ScannerId
	rs.req = rs.request(rs.scanner)
	results := len(f.resp.GetCellsPerResult()) + len(f.resp.GetResults())
	if ahead := rs.rowsAfter(results + 1); f.err == nil && prefetch && ahead > 0 {
		rs.req.NumberOfRows = proto.Uint32(ahead)
		rs.st.RPCs++
		rs.inflight = rs.c.prefetch(rs.ctx, rs.r, rs.req)
	}
}

// abandon leaves the region after err. A server exception or a broken
// connection means the scanner is gone already; only a response the
// client could not use leaves it open on the server, to be closed.
func (rs *regionScan) abandon(err error) {
	var re *retryableError
	if rs.settle() && rs.ctx.Err() == nil && errors.As(err, &re) {
		rs.close()
	}
}

// settle waits for the batch asked ahead, if any, and reports whether the
// scanner is still open: it stays open until that batch is back.
func (rs *regionScan) settle() (open bool) {
	if rs.inflight != nil {
		nf := <-rs.inflight
		rs.inflight = nil
		nf.stopKA()
		if nf.err != nil || !nf.resp.GetMoreResultsInRegion() {
			rs.scanner = nil
		}
	}
	return rs.scanner != nil
}

// close closes the open scanner, best effort.
func (rs *regionScan) close() {
	rs.st.RPCs++
	cctx, cancel := context.WithTimeout(context.WithoutCancel(rs.ctx), time.Second)
	defer cancel()
	var resp pb.ScanResponse
	_, _ = rs.c.rpc(cctx, rs.r.addr, wire.ServiceClient, "Scan", &pb.ScanRequest{
		Region: regionSpec(rs.r.name), ScannerId: rs.scanner, CloseScanner: proto.Bool(true), NumberOfRows: proto.Uint32(0),
	}, nil, &resp)
	rs.scanner = nil
}

// hop is where the scan goes once the region is exhausted (§6.5.5):
// done, or the position in the next region.
func (rs *regionScan) hop(resp *pb.ScanResponse) (done bool, next scanPos) {
	r, sc := rs.r, rs.sc
	if resp.MoreResults != nil && !resp.GetMoreResults() {
		return true, scanPos{}
	}
	if !sc.Reversed {
		if len(r.end) == 0 || (len(sc.Stop) > 0 && bytes.Compare(sc.Stop, r.end) <= 0) {
			return true, scanPos{}
		}
		return false, scanPos{key: r.end, locateKey: r.end}
	}
	if len(r.start) == 0 || (len(sc.Stop) > 0 && bytes.Compare(sc.Stop, r.start) >= 0) {
		return true, scanPos{}
	}
	// Continue in the preceding region from r.start: that region never
	// holds r.start itself, and a reversed start at or above a region's
	// end means "from its last row" (§8.6).
	return false, scanPos{key: r.start, locateKey: keyBefore(r.start), before: r.start}
}

// fetched is one Scan call's answer; stopKA stops the lease renewal that
// holds its scanner while the batch waits to be consumed.
type fetched struct {
	resp   *pb.ScanResponse
	cells  []byte
	err    error
	stopKA func()
}

// fetch makes one Scan call. A response the scan cannot go on from, more
// results in the region without a scanner id, is an error to retry.
func (c *Client) fetch(ctx context.Context, r *region, req *pb.ScanRequest) fetched {
	resp := new(pb.ScanResponse)
	cells, err := c.rpc(ctx, r.addr, wire.ServiceClient, "Scan", req, nil, resp)
	if err == nil && resp.GetMoreResultsInRegion() && resp.ScannerId == nil {
		err = &retryableError{"scan: more results in region without scanner id"}
	}
	f := fetched{resp: resp, cells: cells, err: err, stopKA: func() {}}
	if err == nil && resp.GetMoreResultsInRegion() {
		f.stopKA = c.keepAlive(r, resp.ScannerId, resp.GetTtl())
	}
	return f
}

// prefetch makes the call in the background; its answer, lease held, comes
// on the channel.
func (c *Client) prefetch(ctx context.Context, r *region, req *pb.ScanRequest) <-chan fetched {
	out := make(chan fetched, 1)
	go func() { out <- c.fetch(ctx, r, req) }()
	return out
}

// keyBefore is a key just below k, used only to locate the preceding
// region: drop a trailing 0x00, else decrement the last byte and append
// eight 0xFF (§6.5.5). Where this approximation falls short (a region
// starting between it and k), Scan finds the exact predecessor in meta.
func keyBefore(k []byte) []byte {
	if k[len(k)-1] == 0 {
		return append([]byte{}, k[:len(k)-1]...)
	}
	out := append([]byte{}, k...)
	out[len(out)-1]--
	return append(out, bytes.Repeat([]byte{0xff}, 8)...)
}

// keepAlive renews the scanner's lease while rows are being delivered, so
// a slow consumer does not lose the scanner; the returned func stops it.
func (c *Client) keepAlive(r *region, id *uint64, ttlMS uint32) func() {
	if id == nil {
		return func() {}
	}
	ttl := time.Duration(ttlMS) * time.Millisecond
	if ttl <= 0 {
		ttl = 60 * time.Second
	}
	stop := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(ttl / 2)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				ctx, cancel := context.WithTimeout(context.Background(), ttl/2)
				var resp pb.ScanResponse
				_, _ = c.rpc(ctx, r.addr, wire.ServiceClient, "Scan", &pb.ScanRequest{
					Region: regionSpec(r.name), ScannerId: id, Renew: proto.Bool(true),
					NumberOfRows: proto.Uint32(1<<31 - 1),
				}, nil, &resp)
				cancel()
			}
		}
	}()
	return func() {
		close(stop)
		<-finished
	}
}

// predecessor finds, by a forward meta scan, the region of table that ends
// exactly at end.
func (c *Client) predecessor(ctx context.Context, table string, end []byte) (*region, error) {
	regs, err := c.Regions(ctx, table)
	if err != nil {
		return nil, err
	}
	for _, ri := range regs {
		if bytes.Equal(ri.End, end) {
			return &region{table: ri.Table, name: ri.Name, start: ri.Start, end: ri.End, id: ri.ID, addr: ri.Server}, nil
		}
	}
	return nil, &retryableError{fmt.Sprintf("no region of %s ends at %q", table, end)}
}
