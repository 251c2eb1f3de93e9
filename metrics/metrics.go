// Package metrics serves a running load's figures live, in Prometheus's
// text exposition format, for dashboards that watch long capacity runs:
// per op counts, errors and latency, per region and server requests when
// the backend counts them, the pacing's target and achieved rate, and the
// run's phase.
//
// It is fed one interval at a time and must not know how the figures were
// measured, nor anything of the comment schema.
package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"commentbench/results"
	"commentbench/store"
)

// Update is one interval of a run.
type Update struct {
	Phase    string // load, warmup, steady or done
	Interval results.Interval
	Regions  []store.RegionStat // the interval's counter deltas
	// Target is the open loop's arrival rate now (0: closed loop); Achieved
	// the operations per second the interval completed.
	Target, Achieved float64
}

// Phases a run goes through, as the phase gauge labels them.
var Phases = []string{"load", "warmup", "steady", "done"}

// Server serves /metrics.
type Server struct {
	srv *http.Server
	ln  net.Listener

	ops, errs     *prometheus.CounterVec
	actions       *prometheus.CounterVec
	regions       *prometheus.CounterVec
	servers       *prometheus.CounterVec
	target, rate  prometheus.Gauge
	phase         *prometheus.GaugeVec
	latency       *latency
	serveFinished chan struct{}
}

// Identity names the process every series comes from: the run's id and
// the process's index among the run's (its worker index; 0 alone). A
// scrape of a fleet then sums to the fleet's figures as it is.
type Identity struct {
	RunID  string
	Worker int
}

// Listen binds addr (HOST:PORT; an empty host is loopback, so a run never
// exposes itself unless told to) and starts serving /metrics, every
// series labelled run_id and worker with id.
func Listen(addr string, id Identity) (*Server, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("--metrics-addr %q: want HOST:PORT, e.g. 127.0.0.1:9464", addr)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return nil, fmt.Errorf("--metrics-addr %s: %w", addr, err)
	}
	s := newServer()
	reg := prometheus.NewRegistry()
	labels := prometheus.Labels{"run_id": id.RunID, "worker": strconv.Itoa(id.Worker)}
	prometheus.WrapRegistererWith(labels, reg).MustRegister(s.ops, s.errs, s.actions, s.regions, s.servers, s.target, s.rate, s.phase, s.latency)
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	s.ln = ln
	s.serveFinished = make(chan struct{})
	go func() {
		defer close(s.serveFinished)
		_ = s.srv.Serve(ln) // ends with ErrServerClosed on Close
	}()
	s.phase.WithLabelValues("warmup").Set(1)
	return s, nil
}

func newServer() *Server {
	return &Server{
		ops: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "commentbench_ops_total",
			Help: "Operations that succeeded, by op."}, []string{"op"}),
		errs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "commentbench_op_errors_total",
			Help: "Operations that failed, by op."}, []string{"op"}),
		actions: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "commentbench_actions_total",
			Help: "A user's actions (post a comment: create the order, write the comment) completed, by action; their ops are in commentbench_ops_total."}, []string{"action"}),
		regions: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "commentbench_region_requests_total",
			Help: "Requests a region served, by table, region, server and kind (read or write)."},
			[]string{"table", "region", "server", "kind"}),
		servers: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "commentbench_server_requests_total",
			Help: "Requests a region server served."}, []string{"server"}),
		target: prometheus.NewGauge(prometheus.GaugeOpts{Name: "commentbench_target_rate",
			Help: "The open loop's arrival rate now, per second (0 in a closed loop)."}),
		rate: prometheus.NewGauge(prometheus.GaugeOpts{Name: "commentbench_achieved_rate",
			Help: "Operations completed per second over the last interval."}),
		phase: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "commentbench_phase",
			Help: "1 for the run's current phase (warmup, steady, done), 0 for the others."}, []string{"phase"}),
		latency: newLatency(),
	}
}

// Addr is the address the server listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Update adds one interval's figures.
func (s *Server) Update(u Update) {
	ops := u.Interval
	ops.Ops = nil
	for _, o := range u.Interval.Ops {
		if name, ok := strings.CutPrefix(o.Op, results.ActionPrefix); ok {
			// A user's action is made of ops already counted: apart, so
			// the ops sum to the run's rate.
			s.actions.WithLabelValues(name).Add(float64(o.Count))
			continue
		}
		s.ops.WithLabelValues(o.Op).Add(float64(o.Count))
		s.errs.WithLabelValues(o.Op).Add(float64(o.Errors))
		ops.Ops = append(ops.Ops, o)
	}
	s.latency.update(ops)
	for _, r := range u.Regions {
		s.regions.WithLabelValues(r.Table, r.Name, r.Server, "read").Add(float64(r.Counters.ReadRequests))
		s.regions.WithLabelValues(r.Table, r.Name, r.Server, "write").Add(float64(r.Counters.WriteRequests))
		s.servers.WithLabelValues(r.Server).Add(float64(r.Counters.ReadRequests + r.Counters.WriteRequests))
	}
	s.target.Set(u.Target)
	s.rate.Set(u.Achieved)
	s.SetPhase(u.Phase)
}

// SetPhase marks the run's phase.
func (s *Server) SetPhase(phase string) {
	for _, p := range Phases {
		v := 0.0
		if p == phase {
			v = 1
		}
		s.phase.WithLabelValues(p).Set(v)
	}
}

// Close stops serving.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	<-s.serveFinished
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// latency exposes each op's latency as a summary: the count and sum over
// the run, and the quantiles of the last interval (nearest rank, as the
// rest of the harness computes them).
type latency struct {
	desc *prometheus.Desc
	mu   sync.Mutex
	ops  []string
	st   map[string]*opLatency
}

type opLatency struct {
	count     uint64
	sum       float64 // seconds
	quantiles map[float64]float64
}

var quantiles = []float64{0.5, 0.9, 0.99, 0.999}

func newLatency() *latency {
	return &latency{desc: prometheus.NewDesc("commentbench_latency_seconds",
		"Latency from the intended start: count and sum over the run, quantiles over the last interval.",
		[]string{"op"}, nil), st: map[string]*opLatency{}}
}

func (l *latency) update(iv results.Interval) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, o := range iv.Ops {
		st, ok := l.st[o.Op]
		if !ok {
			st = &opLatency{quantiles: map[float64]float64{}}
			l.st[o.Op], l.ops = st, append(l.ops, o.Op)
		}
		if o.Hist == nil {
			continue
		}
		st.count += uint64(o.Hist.TotalCount())
		st.sum += o.Hist.Mean() * float64(o.Hist.TotalCount()) / 1e6
		for _, q := range quantiles {
			st.quantiles[q] = float64(results.ValueAtPercentile(o.Hist, q*100)) / 1e6
		}
	}
}

func (l *latency) Describe(ch chan<- *prometheus.Desc) { ch <- l.desc }

func (l *latency) Collect(ch chan<- prometheus.Metric) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, op := range l.ops {
		st := l.st[op]
		qs := make(map[float64]float64, len(st.quantiles)) // the metric keeps it past the lock
		for q, v := range st.quantiles {
			qs[q] = v
		}
		ch <- prometheus.MustNewConstSummary(l.desc, st.count, st.sum, qs, op)
	}
}
