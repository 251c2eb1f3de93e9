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
// (exclusive). Limit > 0 caps the rows delivered; Caching is the results
// asked per RPC (default 1000). Family and Columns restrict the columns
// (none: every family); MaxVersions (0: 1) and TimeRange select versions.
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
	// Scan.setMaxResultSize); 0 is 2 MiB. A server cuts a row at it.
	MaxResultSize int64
}

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

const scanMaxResultSize = 2 << 20

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
	caching := sc.Caching
	if caching <= 0 {
		caching = 1000
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
	s := &pb.Scan{
		Column:        columnsProto(sc.Columns, sc.Family),
		StartRow:      pos.key,
		StopRow:       nonNil(sc.Stop),
		TimeRange:     sc.TimeRange.proto(),
		MaxResultSize: proto.Uint64(scanMaxResultSize),
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
	// rowsAfter is the rows to ask for once another `pending` rows are
	// delivered: 0 when the limit may be reached by then.
	rowsAfter := func(pending int) uint32 {
		n := caching
		if sc.Limit > 0 && sc.Limit-st.Rows-pending < n {
			n = max(sc.Limit-st.Rows-pending, 0)
		}
		return uint32(n)
	}
	req := &pb.ScanRequest{
		Region:                  regionSpec(r.name),
		Scan:                    s,
		NumberOfRows:            proto.Uint32(rowsAfter(0)),
		ClientHandlesPartials:   proto.Bool(true),
		ClientHandlesHeartbeats: proto.Bool(true),
		TrackScanMetrics:        proto.Bool(true),
	}
	st.Regions++
	var scannerID *uint64
	closeScanner := func() {
		if scannerID == nil {
			return
		}
		st.RPCs++
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		var resp pb.ScanResponse
		_, _ = c.rpc(cctx, r.addr, wire.ServiceClient, "Scan", &pb.ScanRequest{
			Region: regionSpec(r.name), ScannerId: scannerID, CloseScanner: proto.Bool(true), NumberOfRows: proto.Uint32(0),
		}, nil, &resp)
	}
	// The next batch is asked for before this one is handed over, so the
	// server reads it while the caller consumes: the prefetch in flight.
	var inflight <-chan fetched
	for {
		var f fetched
		if inflight != nil {
			f, inflight = <-inflight, nil
		} else {
			st.RPCs++
			f = c.fetch(ctx, r, req)
		}
		resp, err := f.resp, f.err
		var chunks []chunk
		if err == nil {
			chunks, err = scanChunks(resp, f.cells)
		}
		if err != nil {
			f.stopKA()
			// A server exception or a broken connection means the scanner
			// is gone already; only a response we could not use leaves it
			// open on the server.
			var re *retryableError
			if resp.GetMoreResultsInRegion() && resp.ScannerId != nil && ctx.Err() == nil && errors.As(err, &re) {
				scannerID = resp.ScannerId
				closeScanner()
			}
			return false, scanPos{}, err
		}
		st.addMetrics(resp.GetScanMetrics())
		scannerID = nil
		if resp.GetMoreResultsInRegion() {
			scannerID = proto.Uint64(resp.GetScannerId())
			req = &pb.ScanRequest{
				Region:                  regionSpec(r.name),
				ScannerId:               scannerID,
				ClientHandlesPartials:   proto.Bool(true),
				ClientHandlesHeartbeats: proto.Bool(true),
				TrackScanMetrics:        proto.Bool(true),
			}
			// Under a limit, ask ahead only for rows surely wanted: each
			// chunk may end a row, and so may the one pending.
			if ahead := rowsAfter(len(chunks) + 1); prefetch && ahead > 0 {
				req.NumberOfRows = proto.Uint32(ahead)
				st.RPCs++
				inflight = c.prefetch(ctx, r, req)
			}
		}
		stop := false
		for _, ch := range chunks {
			if !asm.put(ch) {
				stop = true
				break
			}
		}
		if !stop && scannerID == nil {
			stop = !asm.flush()
		}
		f.stopKA()
		if stop {
			if inflight != nil {
				// The scanner stays open until the batch asked ahead is
				// back; it is closed after it.
				nf := <-inflight
				nf.stopKA()
				if nf.err != nil || !nf.resp.GetMoreResultsInRegion() {
					scannerID = nil
				}
			}
			closeScanner()
			return true, scanPos{}, nil
		}
		if scannerID != nil {
			if inflight == nil {
				req.NumberOfRows = proto.Uint32(rowsAfter(0))
			}
			continue
		}
		// Region exhausted: hop (§6.5.5).
		if resp.MoreResults != nil && !resp.GetMoreResults() {
			return true, scanPos{}, nil
		}
		if !sc.Reversed {
			if len(r.end) == 0 || (len(sc.Stop) > 0 && bytes.Compare(sc.Stop, r.end) <= 0) {
				return true, scanPos{}, nil
			}
			return false, scanPos{key: r.end, locateKey: r.end}, nil
		}
		if len(r.start) == 0 || (len(sc.Stop) > 0 && bytes.Compare(sc.Stop, r.start) >= 0) {
			return true, scanPos{}, nil
		}
		// Continue in the preceding region from r.start: that region never
		// holds r.start itself, and a reversed start at or above a region's
		// end means "from its last row" (§8.6).
		return false, scanPos{key: r.start, locateKey: keyBefore(r.start), before: r.start}, nil
	}
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
