// Package servermodel makes a hotspot felt: it puts a modeled region
// server in front of each simulated server of a store (the embedded
// engine's rs1..rsN), with a fixed number of handlers and a service time
// per request, so requests to a busy server queue and the wait is real
// time inside the latency a run measures. Everything it shapes is a model,
// and says so.
//
// It knows store.Store and regions, and nothing of the comment schema or
// of how a run is paced.
package servermodel

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"commentbench/store"
)

// Cost is one request's service time: a base, plus a cost per row it
// touches and per byte it moves.
type Cost struct {
	Base, PerRow, PerByte time.Duration
}

// DefaultHandlers is HBase's hbase.regionserver.handler.count.
const DefaultHandlers = 30

// DefaultCost prices a request as a small region server does: 1 ms, plus
// 5 µs a row and 10 ns a byte.
var DefaultCost = Cost{Base: time.Millisecond, PerRow: 5 * time.Microsecond, PerByte: 10 * time.Nanosecond}

// ParseCost reads base=1ms,row=5us,byte=10ns (any of the three; the rest
// keep def's).
func ParseCost(s string, def Cost) (Cost, error) {
	c := def
	for _, part := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		d, err := time.ParseDuration(strings.TrimSpace(v))
		if !ok || err != nil || d < 0 {
			return c, fmt.Errorf("--server-cost %q: want base=1ms,row=5us,byte=10ns (durations of 0 or more)", s)
		}
		switch strings.TrimSpace(k) {
		case "base":
			c.Base = d
		case "row":
			c.PerRow = d
		case "byte":
			c.PerByte = d
		default:
			return c, fmt.Errorf("--server-cost %q: unknown cost %q (want base, row or byte)", s, k)
		}
	}
	return c, nil
}

// Spec is the model as a scenario gives it (server_model:): Capacity
// requests a second one server takes at the base cost (0: no model), its
// Handlers, and Cost, the per-row and per-byte costs (and, if given, the
// base, which Capacity otherwise sets) in ParseCost's form.
type Spec struct {
	Capacity float64 `yaml:"capacity" json:"capacity"`
	Handlers int     `yaml:"handlers" json:"handlers"`
	Cost     string  `yaml:"cost" json:"cost"`
}

// DefaultSpecCost is the per-row and per-byte cost of a Spec that names
// none.
const DefaultSpecCost = "row=5us,byte=10ns"

// On says whether the spec asks for a model.
func (sp Spec) On() bool { return sp.Capacity != 0 }

// Options turns the spec into the model's options, checking it; the
// errors name the field as flag (and scenario field) and say what is
// allowed.
func (sp Spec) Options() (Options, error) {
	if sp.Handlers < 1 || sp.Handlers > 10000 {
		return Options{}, fmt.Errorf("--server-handlers %d: want 1..10000", sp.Handlers)
	}
	base, err := Capacity(sp.Capacity, sp.Handlers)
	if err != nil {
		return Options{}, err
	}
	def := DefaultCost
	def.Base = base
	text := sp.Cost
	if text == "" {
		text = DefaultSpecCost
	}
	cost, err := ParseCost(text, def)
	return Options{Handlers: sp.Handlers, Cost: cost}, err
}

// Options shape the model.
type Options struct {
	Handlers int // per server; DefaultHandlers when 0
	Cost     Cost
}

// Store is a store whose every request waits for a handler of the modeled
// server that holds its row, then for its service time.
type Store struct {
	store.Store
	o       Options
	mu      sync.Mutex
	servers map[string]*server
	maps    map[string]regionMap // per table, refreshed on a miss
	off     atomic.Bool          // passing requests straight through
}

// SetOn turns the model on or off; off, requests go straight to the
// store, unqueued and uncounted. A run seeds its population with the model
// off: setting up is not the load being modeled.
func (s *Store) SetOn(on bool) { s.off.Store(!on) }

var _ store.Store = (*Store)(nil)

type regionMap struct {
	regions []store.Region
	at      time.Time
}

// Wrap puts the model in front of st.
func Wrap(st store.Store, o Options) *Store {
	if o.Handlers <= 0 {
		o.Handlers = DefaultHandlers
	}
	return &Store{Store: st, o: o, servers: map[string]*server{}, maps: map[string]regionMap{}}
}

// server is one modeled region server. Its handlers live on a timeline of
// their own: each is free from some instant on, and a request takes the one
// free first, from the later of that instant and its own arrival, for its
// modeled service time. The caller then sleeps until its request's end, so
// the wait is real time in the latency it measures, while the server's
// account is exact: a sleep that wakes late (a busy machine's scheduler)
// delays that caller alone, never the handler's next request.
type server struct {
	mu       sync.Mutex
	free     []time.Time   // per handler, when it is free again
	booked   time.Duration // handler time booked, over the run, some of it ahead
	requests int64
	queued   []time.Time // when each request booked to start later starts
}

func (s *Store) server(name string) *server {
	s.mu.Lock()
	defer s.mu.Unlock()
	sv, ok := s.servers[name]
	if !ok {
		sv = &server{free: make([]time.Time, s.o.Handlers)}
		s.servers[name] = sv
	}
	return sv
}

// reserve books a request that arrived at `at` and needs cost, on the
// handler free first: FIFO, in the order requests are booked. It returns
// when the request ends.
func (sv *server) reserve(at time.Time, cost time.Duration) time.Time {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	h := 0
	for i, f := range sv.free {
		if f.Before(sv.free[h]) {
			h = i
		}
	}
	start := sv.free[h]
	if start.Before(at) {
		start = at
	}
	end := start.Add(cost)
	sv.free[h] = end
	sv.booked += cost
	sv.requests++
	if start.After(at) {
		sv.queued = append(sv.queued, start)
	}
	return end
}

// stat is the server as of now: the handler time spent so far (what is
// booked past now is not spent yet: a handler's bookings past now follow
// each other without a gap) and the requests still waiting to start.
func (sv *server) stat(now time.Time) (busy time.Duration, waiting int64) {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	busy = sv.booked
	for _, f := range sv.free {
		if f.After(now) {
			busy -= f.Sub(now)
		}
	}
	sv.queued = slices.DeleteFunc(sv.queued, func(t time.Time) bool { return !t.After(now) })
	return busy, int64(len(sv.queued))
}

// serverOf is the server holding row of table, from a region map at most a
// second old.
func (s *Store) serverOf(ctx context.Context, table string, row []byte) string {
	s.mu.Lock()
	m, ok := s.maps[table]
	s.mu.Unlock()
	if !ok || time.Since(m.at) > time.Second {
		regions, err := s.Store.Regions(ctx, table)
		if err != nil {
			return ""
		}
		m = regionMap{regions: regions, at: time.Now()}
		s.mu.Lock()
		s.maps[table] = m
		s.mu.Unlock()
	}
	// The first region whose end is past row (the last has no end).
	i := sort.Search(len(m.regions), func(i int) bool {
		return m.regions[i].End == nil || bytes.Compare(row, m.regions[i].End) < 0
	})
	if i < len(m.regions) {
		return m.regions[i].Server
	}
	return ""
}

// serve runs op on row's server: op does the real work, then the request
// is booked on the server's handlers for the modeled service time of what
// op did (rows, bytes), and the caller waits for its end.
func (s *Store) serve(ctx context.Context, table string, row []byte, op func() (rows, bytes int)) error {
	name := ""
	if !s.off.Load() {
		name = s.serverOf(ctx, table, row)
	}
	if name == "" { // off, or no such table (yet): nothing to queue on, the backend answers
		op()
		return nil
	}
	at := time.Now()
	rows, n := op()
	cost := s.o.Cost.Base + time.Duration(rows)*s.o.Cost.PerRow + time.Duration(n)*s.o.Cost.PerByte
	sv := s.server(name)
	return waitUntil(ctx, sv.reserve(at, cost))
}

// Mutate implements store.Store, charged to the first row's server.
func (s *Store) Mutate(ctx context.Context, table string, muts ...store.Mutation) error {
	if len(muts) == 0 {
		return s.Store.Mutate(ctx, table, muts...)
	}
	var err error
	if werr := s.serve(ctx, table, muts[0].Row, func() (int, int) {
		err = s.Store.Mutate(ctx, table, muts...)
		n := 0
		for _, m := range muts {
			n += len(m.Row) + cellBytes(m.Cells)
		}
		return len(muts), n
	}); werr != nil {
		return werr
	}
	return err
}

// CheckAndMutate implements store.Store.
func (s *Store) CheckAndMutate(ctx context.Context, table string, qualifier, expected []byte, m store.Mutation) (bool, error) {
	var applied bool
	var err error
	if werr := s.serve(ctx, table, m.Row, func() (int, int) {
		applied, err = s.Store.CheckAndMutate(ctx, table, qualifier, expected, m)
		return 1, len(m.Row) + cellBytes(m.Cells)
	}); werr != nil {
		return false, werr
	}
	return applied, err
}

// Get implements store.Store.
func (s *Store) Get(ctx context.Context, table string, row []byte) (store.Row, error) {
	var r store.Row
	var err error
	if werr := s.serve(ctx, table, row, func() (int, int) {
		r, err = s.Store.Get(ctx, table, row)
		return 1, len(row) + cellBytes(r.Cells)
	}); werr != nil {
		return r, werr
	}
	return r, err
}

// BatchGet implements store.Store: one request per server its rows live
// on, as HBase's multi-get groups them, each charged for its rows.
func (s *Store) BatchGet(ctx context.Context, table string, rows [][]byte) ([]store.Row, error) {
	out, err := s.Store.BatchGet(ctx, table, rows)
	if err != nil || s.off.Load() {
		return out, err
	}
	return out, s.serveRows(ctx, table, rows, out)
}

// Read implements store.Store, charged as the BatchGet of its rows (a
// batch of Gets, each with its columns): one request per server its rows
// live on, each for its rows and the bytes they returned.
func (s *Store) Read(ctx context.Context, table string, reads []store.Read) ([]store.Row, store.ScanMetrics, error) {
	out, m, err := s.Store.Read(ctx, table, reads)
	if err != nil || s.off.Load() {
		return out, m, err
	}
	rows := make([][]byte, len(reads))
	for i, rd := range reads {
		rows[i] = rd.Row
	}
	return out, m, s.serveRows(ctx, table, rows, out)
}

// serveRows books the requests of a multi-get that read rows into out:
// one per server, concurrently, each charged for its rows and their bytes.
func (s *Store) serveRows(ctx context.Context, table string, rows [][]byte, out []store.Row) error {
	per := map[string][]int{}
	for i, r := range rows {
		sv := s.serverOf(ctx, table, r)
		per[sv] = append(per[sv], i)
	}
	var wg sync.WaitGroup
	errs := make([]error, 0, len(per))
	var mu sync.Mutex
	for _, idx := range per {
		wg.Go(func() {
			werr := s.serve(ctx, table, rows[idx[0]], func() (int, int) {
				n := 0
				for _, i := range idx {
					n += len(rows[i]) + cellBytes(out[i].Cells)
				}
				return len(idx), n
			})
			mu.Lock()
			errs = append(errs, werr)
			mu.Unlock()
		})
	}
	wg.Wait()
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// Scan implements store.Store: charged to the server of its first row for
// every row the backend read. A scan that crosses servers is priced on
// one; the model errs toward the hot server. With Batch, a row handed over
// in chunks is still one row, its key charged once a chunk.
func (s *Store) Scan(ctx context.Context, table string, sc store.Scan, each func(store.Row) bool) (store.ScanMetrics, error) {
	var m store.ScanMetrics
	var err error
	if werr := s.serve(ctx, table, sc.Start, func() (int, int) {
		n := 0
		m, err = s.Store.Scan(ctx, table, sc, func(r store.Row) bool {
			n += len(r.Key) + cellBytes(r.Cells)
			return each(r)
		})
		return int(m.RowsScanned), n
	}); werr != nil {
		return m, werr
	}
	return m, err
}

func cellBytes(cs []store.Cell) int {
	n := 0
	for _, c := range cs {
		n += len(c.Qualifier) + len(c.Value)
	}
	return n
}

// ServerStat is one modeled server over the run so far.
type ServerStat struct {
	Server   string
	Requests int64
	Busy     time.Duration // handler time spent
	Waiting  int64         // requests queued now
	Handlers int
}

// Stats snapshots every modeled server, by name.
func (s *Store) Stats() []ServerStat {
	s.mu.Lock()
	names := make([]string, 0, len(s.servers))
	for n := range s.servers {
		names = append(names, n)
	}
	s.mu.Unlock()
	slices.Sort(names)
	out := make([]ServerStat, 0, len(names))
	now := time.Now()
	for _, n := range names {
		sv := s.server(n)
		busy, waiting := sv.stat(now)
		sv.mu.Lock()
		out = append(out, ServerStat{Server: n, Requests: sv.requests, Busy: busy, Waiting: waiting, Handlers: s.o.Handlers})
		sv.mu.Unlock()
	}
	return out
}

// Utilization is the share of the handlers' time in d that b was.
func Utilization(busy, d time.Duration, handlers int) float64 {
	if d <= 0 || handlers <= 0 {
		return 0
	}
	return float64(busy) / (float64(d) * float64(handlers))
}

// Capacity converts --server-capacity (requests a second one server takes
// at the base cost) into that base cost.
func Capacity(perSecond float64, handlers int) (time.Duration, error) {
	if !(perSecond > 0) {
		return 0, fmt.Errorf("--server-capacity %s: want requests per second above 0", strconv.FormatFloat(perSecond, 'g', -1, 64))
	}
	return time.Duration(float64(handlers) / perSecond * float64(time.Second)), nil
}
