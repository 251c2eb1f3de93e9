package results

import (
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram range and precision, in microseconds.
const (
	lowestUs  = 1
	highestUs = int64(time.Hour / time.Microsecond)
	sigFigs   = 3
)

func newHist() *hdr.Histogram { return hdr.New(lowestUs, highestUs, sigFigs) }

// Set owns the op names and every worker's Recorder. The cumulative
// histograms live here rather than in each Recorder so a worker holds only
// its interval histograms: Collect folds them in once per interval.
type Set struct {
	ops []string

	mu        sync.Mutex // guards recorders and next
	recorders []*Recorder
	next      int

	// collectMu serialises Collect and Totals; everything below is theirs.
	collectMu sync.Mutex
	ivLat     []*hdr.Histogram // this interval's merged latency, per op
	cumLat    []*hdr.Histogram // every collected interval's latency
	cumSvc    []*hdr.Histogram // every collected interval's service time
	// One spare pair per op is swapped into each recorder in turn, so
	// collecting allocates nothing and a recorder needs no spare of its own.
	spareLat, spareSvc []*hdr.Histogram
}

// NewSet makes a Set for the named ops.
func NewSet(ops []string) *Set {
	n := len(ops)
	s := &Set{ops: slices.Clone(ops)}
	for _, hs := range []*[]*hdr.Histogram{&s.ivLat, &s.cumLat, &s.cumSvc, &s.spareLat, &s.spareSvc} {
		*hs = make([]*hdr.Histogram, n)
		for i := range n {
			(*hs)[i] = newHist()
		}
	}
	return s
}

// Ops returns the op names; Record's op argument indexes this slice.
func (s *Set) Ops() []string { return slices.Clone(s.ops) }

// Recorder records the operations of the workers that share it (see
// NewRecorder). Its mutex is held for a histogram update or a pointer swap.
type Recorder struct {
	mu  sync.Mutex
	ops []opRec
}

type opRec struct {
	lat, svc *hdr.Histogram   // since the last Collect
	errs     int64            // errors since the last Collect
	byKind   map[string]int64 // errors over the whole run
	clamped  int64            // values moved into range over the whole run
	cost     Cost             // listing pages' scans and rows over the whole run
}

// Cost is what an op's listing pages cost the backend: how many pages,
// the scans they issued and the rows the scans read. A salted listing's
// page issues a scan per bucket; the seed's scans read rows of other
// products: this is where either shows.
type Cost struct {
	Pages   int64 `json:"pages"`
	Scans   int64 `json:"scans"`
	Rows    int64 `json:"rows_read"`
	MaxRows int64 `json:"max_rows_per_page"`
	// Cells are the cells the pages read: what a page of a wide row costs,
	// where it reads one row.
	Cells int64 `json:"cells_read"`
}

func (c *Cost) add(o Cost) {
	c.Pages += o.Pages
	c.Scans += o.Scans
	c.Rows += o.Rows
	c.MaxRows = max(c.MaxRows, o.MaxRows)
	c.Cells += o.Cells
}

// ScansPerPage and RowsPerPage are the means over the pages.
func (c Cost) ScansPerPage() float64 { return perPage(c.Scans, c.Pages) }

// RowsPerPage is the mean number of rows a page's scans read.
func (c Cost) RowsPerPage() float64 { return perPage(c.Rows, c.Pages) }

// CellsPerPage is the mean number of cells a page read.
func (c Cost) CellsPerPage() float64 { return perPage(c.Cells, c.Pages) }

func perPage(n, pages int64) float64 {
	if pages == 0 {
		return 0
	}
	return float64(n) / float64(pages)
}

// Shards is how many Recorders a Set makes at most. A histogram pair per op
// is about 0.4 MB, so one Recorder per worker put a thousand workers at
// gigabytes (and seconds of allocation before the first arrival); past
// Shards, workers share Recorders, round robin, and contend only briefly.
const Shards = 8

// NewRecorder returns a Recorder for one worker goroutine: a new one for
// each of the first Shards callers, then the existing ones in turn. It is
// safe to call concurrently, also while Collect runs.
func (s *Set) NewRecorder() *Recorder {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.recorders) >= Shards {
		r := s.recorders[s.next%len(s.recorders)]
		s.next++
		return r
	}
	r := &Recorder{ops: make([]opRec, len(s.ops))}
	for i := range r.ops {
		r.ops[i] = opRec{lat: newHist(), svc: newHist(), byKind: map[string]int64{}}
	}
	s.recorders = append(s.recorders, r)
	return r
}

// Record records one finished operation; op indexes Set.Ops (out of range
// panics). latency = end - intended, service = end - start. A non-empty
// errKind makes it an error: counted by kind, its times not recorded, since
// a fast failure would otherwise flatter the latency percentiles.
func (r *Recorder) Record(op int, intended, start, end time.Time, errKind string) {
	r.mu.Lock()
	o := &r.ops[op]
	if errKind != "" {
		o.errs++
		o.byKind[errKind]++
	} else {
		o.clamped += record(o.lat, end.Sub(intended)) + record(o.svc, end.Sub(start))
	}
	r.mu.Unlock()
}

// RecordPage adds one listing page's cost to op: the scans it issued and
// the rows and cells they read.
func (r *Recorder) RecordPage(op int, scans, rows, cells int64) {
	r.mu.Lock()
	r.ops[op].cost.add(Cost{Pages: 1, Scans: scans, Rows: rows, MaxRows: rows, Cells: cells})
	r.mu.Unlock()
}

// record puts d into h, clamped into the histogram's range so nothing is
// dropped; it returns 1 if d had to be clamped.
func record(h *hdr.Histogram, d time.Duration) int64 {
	us := int64(d / time.Microsecond)
	var clamped int64
	if us < lowestUs {
		us, clamped = lowestUs, 1
	} else if us > highestUs {
		us, clamped = highestUs, 1
	}
	_ = h.RecordValue(us) // cannot fail: us is in range
	return clamped
}

// Interval is one collection period's merged results.
type Interval struct {
	Start, End time.Time
	Ops        []OpInterval // in Set.Ops order
}

// Achieved is the interval's rate of arrivals served, per second: its
// actions, failed ones too (an open loop's target counts arrivals, and an
// arrival is one action however many ops it makes). The clock-driven
// rank job and bursts are actions too, a handful a second at most.
func (iv Interval) Achieved() float64 {
	d := iv.End.Sub(iv.Start)
	if d <= 0 {
		return 0
	}
	var n int64
	for _, op := range iv.Ops {
		if strings.HasPrefix(op.Op, ActionPrefix) {
			n += op.Count + op.Errors
		}
	}
	return float64(n) / d.Seconds()
}

// OpInterval is one op's successes, errors and latency over an interval.
type OpInterval struct {
	Op                       string
	Count, Errors            int64
	P50, P90, P99, P999, Max time.Duration
	// Hist is the interval's latency histogram (a copy), nil when the op
	// recorded nothing: what the interval log writes.
	Hist *hdr.Histogram
}

func (s *Set) snapshotRecorders() []*Recorder {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.recorders)
}

// Collect ends an interval: every recorder's interval histograms are swapped
// for empty ones, merged into the interval and into the run's totals.
func (s *Set) Collect(start, end time.Time) Interval {
	s.collectMu.Lock()
	defer s.collectMu.Unlock()
	for _, h := range s.ivLat {
		h.Reset()
	}
	errs := make([]int64, len(s.ops))
	for _, r := range s.snapshotRecorders() {
		s.drain(r, errs)
	}
	iv := Interval{Start: start, End: end, Ops: make([]OpInterval, len(s.ops))}
	for i, h := range s.ivLat {
		s.cumLat[i].Merge(h)
		iv.Ops[i] = opInterval(s.ops[i], h, errs[i])
		if h.TotalCount() > 0 {
			iv.Ops[i].Hist = h.Clone()
		}
	}
	return iv
}

// drain swaps r's interval histograms for the spares under r's lock (so a
// worker waits only for pointer swaps) and merges them after unlocking.
func (s *Set) drain(r *Recorder, errs []int64) {
	r.mu.Lock()
	for i := range r.ops {
		o := &r.ops[i]
		o.lat, s.spareLat[i] = s.spareLat[i], o.lat
		o.svc, s.spareSvc[i] = s.spareSvc[i], o.svc
		errs[i] += o.errs
		o.errs = 0
	}
	r.mu.Unlock()
	for i := range s.ops {
		s.ivLat[i].Merge(s.spareLat[i])
		s.cumSvc[i].Merge(s.spareSvc[i])
		s.spareLat[i].Reset()
		s.spareSvc[i].Reset()
	}
}

func opInterval(op string, h *hdr.Histogram, errs int64) OpInterval {
	q := valuesAt(h, 50, 90, 99, 99.9)
	return OpInterval{
		Op: op, Count: h.TotalCount(), Errors: errs,
		P50: us(q[0]), P90: us(q[1]), P99: us(q[2]), P999: us(q[3]), Max: us(maxOf(h)),
	}
}

func us(v int64) time.Duration { return time.Duration(v) * time.Microsecond }

// maxOf is h.Max but 0 for an empty histogram.
func maxOf(h *hdr.Histogram) int64 {
	if h.TotalCount() == 0 {
		return 0
	}
	return h.Max()
}

// OpTotals is one op over the whole run so far. Count is successes only.
type OpTotals struct {
	Op                     string
	Count, Errors, Clamped int64
	ErrorsByKind           map[string]int64
	Latency, Service       *hdr.Histogram
	Cost                   Cost
}

// Totals merges every recorder's histograms and error counts, including
// what has not been collected yet, so it is complete whenever it is called.
func (s *Set) Totals() []OpTotals {
	s.collectMu.Lock()
	defer s.collectMu.Unlock()
	ts := make([]OpTotals, len(s.ops))
	for i, op := range s.ops {
		ts[i] = OpTotals{Op: op, ErrorsByKind: map[string]int64{},
			Latency: s.cumLat[i].Clone(), Service: s.cumSvc[i].Clone()}
	}
	for _, r := range s.snapshotRecorders() {
		r.addTo(ts)
	}
	for i := range ts {
		ts[i].Count = ts[i].Latency.TotalCount()
	}
	return ts
}

// addTo adds r's uncollected histograms and its error counts to ts.
func (r *Recorder) addTo(ts []OpTotals) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range r.ops {
		o, t := &r.ops[i], &ts[i]
		t.Latency.Merge(o.lat)
		t.Service.Merge(o.svc)
		t.Clamped += o.clamped
		t.Cost.add(o.cost)
		for k, n := range o.byKind {
			t.ErrorsByKind[k] += n
			t.Errors += n
		}
	}
}

// errorKinds returns m's kinds sorted, for stable output.
func errorKinds(m map[string]int64) []string { return slices.Sorted(maps.Keys(m)) }
