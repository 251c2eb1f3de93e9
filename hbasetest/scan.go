package hbasetest

import (
	"bytes"
	"math"
	"sync"
	"time"

	"commentbench/hbase/pb"
	"commentbench/hbase/wire"
	"commentbench/store"
	"commentbench/store/embedded"

	"google.golang.org/protobuf/proto"
)

const (
	defaultMaxResult  = 2 << 20 // HBase's default max_result_size
	unlimitedRowsHint = math.MaxInt32
	// defaultScanTimeLimit bounds the reading of one scan call (HBase
	// uses half the client's scanner timeout); see SetScanTimeLimit.
	defaultScanTimeLimit = time.Second
)

// SetScanTimeLimit sets how long one scan call may read before it answers
// with the rows it has (§6.5.2): more_results_in_region set, the scanner
// kept open at the next row, and heartbeat_message set when the client
// handles heartbeats (then possibly with no rows). A client that does not
// handle heartbeats gets at least one row, or the region's end. Every call
// reads at least one row past its start, so a scan always progresses.
// d <= 0 restores the default, 1 s.
func (c *Cluster) SetScanTimeLimit(d time.Duration) {
	c.scanLimit.Store(int64(max(d, 0)))
}

// SetMaxRowSize sets HBase's hbase.table.max.rowsize: a Get, or a scan
// call, fails with RowTooBigException once the cells it includes of one
// family of a row weigh more than n bytes (each as store.CellSize, the
// KeyValue HBase serializes), counted per read as HBase's StoreScanner
// does, so a scan cutting the row into batches or partial results reads
// it. n <= 0 restores the default, store.DefaultMaxRowSize (1 GiB).
func (c *Cluster) SetMaxRowSize(n int64) {
	c.maxRow.Store(max(n, 0))
}

func (c *Cluster) maxRowSize() int64 {
	if n := c.maxRow.Load(); n > 0 {
		return n
	}
	return store.DefaultMaxRowSize
}

func (c *Cluster) scanTimeLimit() time.Duration {
	if d := time.Duration(c.scanLimit.Load()); d > 0 {
		return d
	}
	return defaultScanTimeLimit
}

// scanner is an open server-side scanner over one region.
type scanner struct {
	mu         sync.Mutex
	id         uint64
	node       string
	regionName string
	t          target
	rev        bool
	start      []byte // first row (inclusive), nil = region edge
	stop       []byte // last bound (exclusive), nil = region edge
	floor      []byte // reversed with include_stop_row: lowest row (inclusive)
	rs         readSpec
	maxSize    uint64
	batch      int  // batch_size: cells per result; 0 = whole rows
	partials   bool // the scan allows partial results (allow_partial_results)
	remaining  int  // limit_of_rows left, in whole rows; -1 = none
	last       []byte
	started    bool
	resume     []byte  // where a call cut by the time limit stopped: the next row to read (inclusive); nil = after last
	row        rowRead // the row being returned: what is left of it
	inRow      bool    // a call cut row; the next returns the rest first
	lastUsed   time.Time
	track      bool // the open call asked for scan metrics

	metaRows [][]wire.Cell // meta scanners: the rows, computed at open
}

// budgetFilter wraps a scan's filter (nil: keep every row) with the time
// limit of one call. The engine asks it about every row it finds, so it
// can cut a call that a filter makes read row after row without handing
// one out. It remembers whether the wrapped filter ended the scan, and
// where the time ran out.
type budgetFilter struct {
	f        store.Filter
	done     bool
	doneOut  bool // the row that ended the scan lies outside the region
	deadline time.Time
	canStop  func() bool // whether the call may end now
	seen     int
	expired  bool
	at       []byte // the row the time ran out at (not read)

	// outside reports rows the engine reads that lie outside the region
	// scanner's range (a reversed scan's engine range spans past the
	// region); nil: none. outScanned and outFiltered count those rows,
	// kept or dropped, so that the call's metrics can leave them out.
	outside                 func(row []byte) bool
	outScanned, outFiltered int64
}

func (b *budgetFilter) Decide(row []byte, rev bool) (bool, bool) {
	// The first row of a call is always read, so every call progresses.
	if b.seen++; b.seen > 1 && b.canStop() && !time.Now().Before(b.deadline) {
		b.expired, b.at = true, bytes.Clone(row)
		return false, true
	}
	keep, done := true, false
	if b.f != nil {
		keep, done = b.f.Decide(row, rev)
	}
	out := b.outside != nil && b.outside(row)
	if out {
		b.outScanned++
		if !keep {
			b.outFiltered++
		}
	}
	if done {
		b.done, b.doneOut = true, out
	}
	return keep, done
}

func (cn *conn) scan(param []byte) (proto.Message, []byte, error) {
	c := cn.c
	req := &pb.ScanRequest{}
	if err := decode(param, req); err != nil {
		return nil, nil, err
	}
	if req.ScannerId == nil {
		if req.Scan == nil {
			return nil, nil, excf(wire.ExcDoNotRetryIO, "ScanRequest without scan or scanner_id")
		}
		return cn.openScanner(req)
	}
	id := req.GetScannerId()
	if req.GetCloseScanner() && req.GetNumberOfRows() == 0 {
		if err := c.closeScanner(id); err != nil {
			return nil, nil, err
		}
		return &pb.ScanResponse{}, nil, nil
	}
	s, err := c.lockScanner(id, cn.node.name)
	if err != nil {
		return nil, nil, err
	}
	defer releaseScanner(s)
	if _, err := cn.region(&pb.RegionSpecifier{Type: pb.RegionSpecifier_REGION_NAME.Enum(), Value: []byte(s.regionName)}); err != nil {
		c.dropScanner(id)
		return nil, nil, err
	}
	if req.GetRenew() {
		return &pb.ScanResponse{ScannerId: proto.Uint64(id), Ttl: proto.Uint32(c.leaseMillis())}, nil, nil
	}
	return cn.serveRows(s, req)
}

func (c *Cluster) dropScanner(id uint64) {
	c.mu.Lock()
	delete(c.scanners, id)
	c.mu.Unlock()
}

func (cn *conn) openScanner(req *pb.ScanRequest) (proto.Message, []byte, error) {
	c := cn.c
	t, err := cn.region(req.GetRegion())
	if err != nil {
		return nil, nil, err
	}
	sc := req.GetScan()
	if len(sc.GetCfTimeRange()) > 0 {
		return nil, nil, excf(wire.ExcDoNotRetryIO, "cf_time_range is not supported")
	}
	s := &scanner{
		node:       cn.node.name,
		regionName: string(req.GetRegion().GetValue()),
		t:          t,
		rev:        sc.GetReversed(),
		maxSize:    sc.GetMaxResultSize(),
		batch:      int(sc.GetBatchSize()),
		partials:   sc.GetAllowPartialResults(),
		remaining:  -1,
		lastUsed:   time.Now(),
		track:      req.GetTrackScanMetrics(),
	}
	if s.maxSize == 0 {
		s.maxSize = defaultMaxResult
	}
	if req.GetLimitOfRows() > 0 {
		s.remaining = int(req.GetLimitOfRows())
	}
	if t.meta {
		rows, err := c.metaScan(sc)
		if err != nil {
			return nil, nil, err
		}
		s.metaRows = rows
	} else {
		if s.rs, err = t.readSpec(sc.GetColumn(), sc.GetTimeRange(), sc.GetMaxVersions(), sc.GetStoreOffset(), sc.GetStoreLimit(), sc.GetFilter()); err != nil {
			return nil, nil, err
		}
		stop := sc.GetStopRow()
		if sc.GetIncludeStopRow() && len(stop) > 0 {
			if s.rev {
				// The engine's lower bound is exclusive: cut in the reader.
				s.floor, stop = stop, nil
			} else {
				stop = append(bytes.Clone(stop), 0)
			}
		}
		s.start, s.stop = bounds(t.reg, sc.GetStartRow(), stop, s.rev)
		// include_start_row = false (§6.5.5's reversed continuation, or
		// a forward restart after a row): start after it, as after a
		// row already returned.
		if start := sc.GetStartRow(); sc.IncludeStartRow != nil && !sc.GetIncludeStartRow() && len(start) > 0 &&
			(s.rev || bytes.Compare(start, t.reg.Start) >= 0) {
			s.last, s.started = bytes.Clone(start), true
		}
	}
	c.mu.Lock()
	c.reapScanners()
	c.nextScan++
	s.id = c.nextScan
	c.scanners[s.id] = s
	c.mu.Unlock()
	if req.NumberOfRows == nil {
		n := uint32(unlimitedRowsHint)
		if sc.GetCaching() > 0 {
			n = sc.GetCaching()
		}
		req.NumberOfRows = proto.Uint32(n)
	}
	s.mu.Lock()
	defer releaseScanner(s)
	return cn.serveRows(s, req)
}

// bounds intersects a scan's rows with a region's [start, end) (§6.5.2,
// §8.6). Forward: start inclusive, stop exclusive. Reversed: start is the
// highest row (inclusive; the region end, itself excluded by the reader,
// when the scan starts at or above it) and stop the exclusive lower bound;
// rows below the region start are cut by the reader.
func bounds(r store.Region, start, stop []byte, rev bool) ([]byte, []byte) {
	if len(start) == 0 {
		start = nil
	}
	if len(stop) == 0 {
		stop = nil
	}
	if !rev {
		if start == nil || bytes.Compare(start, r.Start) < 0 {
			start = r.Start
		}
		if r.End != nil && (stop == nil || bytes.Compare(stop, r.End) > 0) {
			stop = r.End
		}
		return start, stop
	}
	if r.End != nil && (start == nil || bytes.Compare(start, r.End) >= 0) {
		start = r.End
	}
	return start, stop
}

// serveRows answers one open or next call; the caller holds s.mu.
func (cn *conn) serveRows(s *scanner, req *pb.ScanRequest) (proto.Message, []byte, error) {
	c := cn.c
	call := c.newCall(s, req)
	more, whole, heartbeat := true, true, false
	if s.metaRows != nil || s.t.meta {
		more = call.metaRows()
	} else if call.want > 0 {
		var err error
		if more, whole, heartbeat, err = c.readRows(call, req.GetClientHandlesHeartbeats()); err != nil {
			c.dropScanner(s.id)
			return nil, nil, err
		}
	}
	if call.limitDone {
		more, whole = false, false
	}
	if n := len(call.results); !more && n > 0 {
		// A row cut by a batch whose rest the scanner then found empty
		// is whole after all (HBASE-21206).
		call.results[n-1].partial = false
	}
	resp := &pb.ScanResponse{
		ScannerId:           proto.Uint64(s.id),
		MoreResults:         proto.Bool(whole),
		MoreResultsInRegion: proto.Bool(more),
		Ttl:                 proto.Uint32(c.leaseMillis()),
	}
	if heartbeat {
		resp.HeartbeatMessage = proto.Bool(true)
	}
	if s.track || req.GetTrackScanMetrics() {
		resp.ScanMetrics = scanMetrics(call.m)
	}
	out := cn.encodeResults(resp, call.results)
	if !more || req.GetCloseScanner() {
		c.dropScanner(s.id)
	}
	return resp, out, nil
}

// encodeResults puts a call's results in resp: in the cellblock returned,
// with cells_per_result and partial_flag_per_result, when the connection
// declared a codec; inline otherwise.
func (cn *conn) encodeResults(resp *pb.ScanResponse, results []scanResult) []byte {
	if !cn.codec {
		for _, r := range results {
			res := cn.result(r.cells, nil)
			if r.partial {
				res.Partial = proto.Bool(true)
			}
			resp.Results = append(resp.Results, res)
		}
		return nil
	}
	// Sized first: growing a megabyte cellblock by appends was the
	// server's largest cost in a scan.
	size := 0
	for _, r := range results {
		for _, cl := range r.cells {
			size += cl.EncodedLen()
		}
	}
	out := make([]byte, 0, size)
	resp.CellsPerResult = make([]uint32, 0, len(results))
	resp.PartialFlagPerResult = make([]bool, 0, len(results))
	for _, r := range results {
		resp.CellsPerResult = append(resp.CellsPerResult, uint32(len(r.cells)))
		resp.PartialFlagPerResult = append(resp.PartialFlagPerResult, r.partial)
		for _, cl := range r.cells {
			out = wire.AppendCell(out, cl)
		}
	}
	return out
}

// Names of HBase's ServerSideScanMetrics sent in ScanResponse.scan_metrics.
const (
	metricRowsScanned  = "ROWS_SCANNED"
	metricRowsFiltered = "ROWS_FILTERED"
)

// scanMetrics is one call's metrics as HBase sends them (per call, not
// cumulative: the client sums them).
func scanMetrics(m store.ScanMetrics) *pb.ScanMetrics {
	return &pb.ScanMetrics{Metrics: []*pb.NameInt64Pair{
		{Name: proto.String(metricRowsScanned), Value: proto.Int64(m.RowsScanned)},
		{Name: proto.String(metricRowsFiltered), Value: proto.Int64(m.RowsFiltered)},
	}}
}

// scanResult is one Result of a scan call: a row, or a part of one.
type scanResult struct {
	cells   []wire.Cell
	partial bool // more of the row follows (mayHaveMoreCellsInRow)
}

// callRead is one Scan call's reading under its limits, as RSRpcServices
// and ScannerContext run them: number_of_rows counts results (a row's
// parts each count), max_result_size the cells' data size, checked
// between results, and also between cells when the call may cut a row
// (the client handles partials and no filter needs rows whole);
// batch_size caps each result's cells; limit_of_rows counts whole rows.
type callRead struct {
	s         *scanner
	want      int
	cutBySize bool
	size      int64
	rowSize   rowSize
	results   []scanResult
	limitDone bool
	m         store.ScanMetrics
}

func (c *Cluster) newCall(s *scanner, req *pb.ScanRequest) *callRead {
	call := &callRead{
		s:       s,
		want:    int(req.GetNumberOfRows()),
		rowSize: rowSize{max: c.maxRowSize(), region: s.t.reg.Name},
	}
	call.cutBySize = (req.GetClientHandlesPartials() || s.partials) && (s.rs.filter == nil || !s.rs.filter.wholeRow())
	return call
}

func (call *callRead) full() bool {
	return call.limitDone || len(call.results) >= call.want || call.size >= int64(call.s.maxSize)
}

// metaRows answers from a meta scanner's rows; it reports whether rows
// are left.
func (call *callRead) metaRows() bool {
	s := call.s
	n := min(call.want, len(s.metaRows))
	if s.remaining >= 0 {
		n = min(n, s.remaining)
		s.remaining -= n
		call.limitDone = s.remaining == 0
	}
	for _, r := range s.metaRows[:n] {
		call.results = append(call.results, scanResult{cells: r})
	}
	s.metaRows = s.metaRows[n:]
	call.m.RowsScanned = int64(n)
	return len(s.metaRows) > 0
}

// take returns results from s.row until it is returned whole or the call
// is full; inRow says the call left some of it.
func (call *callRead) take() error {
	s := call.s
	s.inRow = true
	for {
		res, err := call.cut(&s.row)
		if err != nil {
			return err
		}
		if len(res.cells) > 0 {
			call.results = append(call.results, res)
		} else {
			// The rest of a row cut at its last cell held none HBase
			// returns: it finds the row empty and counts it filtered.
			call.m.RowsFiltered++
		}
		if !res.partial {
			call.rowDone()
			s.inRow, s.row = false, rowRead{}
			return nil
		}
		if call.full() {
			return nil
		}
	}
}

// cut is the next result of r: its cells up to a batch, or, when the call
// may cut rows, up to the size limit. It is partial when the cut leaves
// cells of the row behind.
func (call *callRead) cut(r *rowRead) (scanResult, error) {
	call.rowSize.start()
	n, hit := 0, false
	for n < len(r.cells) && !hit {
		sz, err := call.rowSize.add(&r.cells[n])
		if err != nil {
			return scanResult{}, err
		}
		n++
		call.size += sz
		hit = (call.s.batch > 0 && n >= call.s.batch) || (call.cutBySize && call.size >= int64(call.s.maxSize))
	}
	res := scanResult{cells: r.cells[:n:n], partial: hit && (n < len(r.cells) || r.tail)}
	r.cells = r.cells[n:]
	return res, nil
}

// rowDone counts a whole row against limit_of_rows.
func (call *callRead) rowDone() {
	if s := call.s; s.remaining > 0 {
		s.remaining--
		call.limitDone = s.remaining == 0
	}
}

// takeRest returns the rest of the row the last call cut; the row counts
// as scanned in the call that returns its end.
func (call *callRead) takeRest() error {
	if err := call.take(); err != nil {
		return err
	}
	if !call.s.inRow {
		call.m.RowsScanned++
	}
	return nil
}

// readRows fills call with the rows after the scanner's position (the
// rest of a row cut by the last call first), within the cluster's scan
// time limit. more reports rows left in the region; whole is false once a
// filter ended the scan; heartbeat is set when the time limit cut the call
// and the client handles heartbeats (without them the call goes on until
// it has a row). The call's metrics count the rows it read (ROWS_SCANNED),
// filtered or not, and those its filter dropped (ROWS_FILTERED), as HBase
// counts them: the engine's counts, plus the rows the filter's cell or row
// stage emptied, less the rows the engine handed over that the call did
// not take (the row the time ran out at, the row past a full call, a
// reversed scan's rows outside the region), since the next call reads
// those again or they are not the region's, less a row the call cut,
// counted by the call that returns its end, and less the scanned count of
// the row at which the filter ended the scan.
func (c *Cluster) readRows(call *callRead, heartbeats bool) (more, whole, heartbeat bool, err error) {
	s := call.s
	if s.inRow {
		if err := call.takeRest(); err != nil {
			return false, false, false, err
		}
		if s.inRow || call.full() {
			return true, true, false, nil
		}
	}
	sc := store.Scan{Start: s.start, Stop: s.stop, Reversed: s.rev}
	switch {
	case s.resume != nil:
		sc.Start = s.resume
	case s.started && s.rev:
		sc.Start = s.last
	case s.started:
		sc.Start = append(bytes.Clone(s.last), 0)
	}
	s.resume = nil
	bf := &budgetFilter{
		deadline: time.Now().Add(c.scanTimeLimit()),
		canStop:  func() bool { return heartbeats || len(call.results) > 0 },
	}
	if s.rs.filter != nil {
		bf.f = keyStage{s.rs.filter}
	}
	sc.Filter = bf
	reg := s.t.reg
	if s.rev {
		// Rows the callback below skips or stops at without reading them.
		bf.outside = func(row []byte) bool {
			return (reg.End != nil && bytes.Compare(row, reg.End) >= 0) || (s.started && bytes.Compare(row, s.last) >= 0) ||
				bytes.Compare(row, reg.Start) < 0 || (s.floor != nil && bytes.Compare(row, s.floor) < 0)
		}
	}
	unread := int64(0)  // rows passed to the callback but left for the next call
	dropped := int64(0) // rows the filter's cell or row stage dropped
	cut := int64(0)     // a row the call returned part of
	var rowErr error
	m, err := c.eng.ScanRows(c.ctx, reg.Table, sc, s.rs.engineRead(), func(row embedded.Row) bool {
		if s.rev {
			if (reg.End != nil && bytes.Compare(row.Key, reg.End) >= 0) || (s.started && bytes.Compare(row.Key, s.last) >= 0) {
				return true
			}
			if bytes.Compare(row.Key, reg.Start) < 0 || (s.floor != nil && bytes.Compare(row.Key, s.floor) < 0) {
				return false
			}
		}
		if call.full() {
			more = true
			unread++
			return false
		}
		r, keep := s.rs.readRow(row.Key, s.rs.selectCells(row), s.rev)
		if rowErr = s.checkWholeRow(r); rowErr != nil {
			return false
		}
		if !keep {
			// HBase reads the row and finds nothing to return in it.
			dropped++
			return true
		}
		s.last = row.Key // the engine's copy: ours to keep
		s.started = true
		s.row = r
		if rowErr = call.take(); rowErr != nil {
			return false
		}
		if s.inRow {
			more = true
			cut++
			return false
		}
		return true
	})
	if err == nil {
		err = rowErr
	}
	if err != nil {
		return false, false, false, err
	}
	m.RowsScanned -= bf.outScanned + unread + cut
	m.RowsFiltered += dropped - bf.outFiltered
	call.m.Add(m)
	if bf.done && !bf.doneOut {
		// HBase counts the row at which a filter ends the scan as
		// filtered, but returns before counting it as scanned
		// (RegionScannerImpl.nextInternal); the engine counted both.
		call.m.RowsScanned--
	}
	if bf.expired {
		// The engine counted the row the time ran out at as read and
		// dropped; it is read in the next call.
		call.m.RowsScanned--
		call.m.RowsFiltered--
		s.resume = bf.at
		return true, true, heartbeats, nil
	}
	return more, !bf.done || more, false, nil
}

// checkWholeRow refuses to cut into batches a row that a filter must see
// whole (hasFilterRow), as HBase's RegionScannerImpl does once a row
// reaches the batch.
func (s *scanner) checkWholeRow(r rowRead) error {
	if s.batch > 0 && len(r.cells) >= s.batch && s.rs.filter != nil && s.rs.filter.wholeRow() {
		return excf(wire.ExcIncompatibleFilter, "Filter whose hasFilterRow() returns true is incompatible with scans that must  stop mid-row because of a limit. ScannerContext:{batch limit %d reached in row %s}",
			s.batch, toStringBinary(r.key))
	}
	return nil
}
