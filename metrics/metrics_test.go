package metrics

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"commentbench/results"
	"commentbench/store"
)

func hist(vals ...int64) *hdr.Histogram {
	h := hdr.New(1, 3_600_000_000, 3)
	for _, v := range vals {
		_ = h.RecordValue(v)
	}
	return h
}

// Two updates accumulate exactly: counts, errors, latency count and sum,
// last-interval quantiles, region and server requests, rates and phase.
func TestUpdateExact(t *testing.T) {
	s, err := Listen(":0", Identity{RunID: "r1", Worker: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !strings.HasPrefix(s.Addr(), "127.0.0.1:") {
		t.Errorf("an empty host bound %s, want loopback", s.Addr())
	}
	now := time.Now()
	region := store.RegionStat{Region: store.Region{Table: "comment", Name: "comment,,1.x.", Server: "rs1"},
		Counters: store.Counters{ReadRequests: 3, WriteRequests: 4}}
	s.Update(Update{Phase: "warmup", Interval: results.Interval{Start: now, End: now.Add(time.Second),
		Ops: []results.OpInterval{{Op: "w", Count: 2, Errors: 1, Hist: hist(1000, 3000)}}}, Regions: []store.RegionStat{region}})
	s.Update(Update{Phase: "steady", Target: 250, Achieved: 10, Interval: results.Interval{Start: now, End: now.Add(time.Second),
		Ops: []results.OpInterval{{Op: "w", Count: 1, Hist: hist(5000)}, {Op: results.ActionPrefix + "post", Count: 1, Hist: hist(7000)}}}, Regions: []store.RegionStat{region}})

	resp, err := http.Get("http://" + s.Addr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var p expfmt.TextParser
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	value := func(name string) float64 {
		m := fams[name].GetMetric()[0]
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue()
		case m.Gauge != nil:
			return m.Gauge.GetValue()
		}
		return -1
	}
	if v := value("commentbench_ops_total"); v != 3 {
		t.Errorf("ops_total %v, want 3", v)
	}
	if v := value("commentbench_actions_total"); v != 1 || len(fams["commentbench_ops_total"].GetMetric()) != 1 {
		t.Errorf("actions_total %v, ops series %d: want the action apart from the ops", v, len(fams["commentbench_ops_total"].GetMetric()))
	}
	if v := value("commentbench_op_errors_total"); v != 1 {
		t.Errorf("op_errors_total %v, want 1", v)
	}
	sum := fams["commentbench_latency_seconds"].GetMetric()[0].GetSummary()
	if sum.GetSampleCount() != 3 || sum.GetSampleSum() < 0.00899 || sum.GetSampleSum() > 0.00901 {
		t.Errorf("latency count %d sum %v, want 3 and 0.009", sum.GetSampleCount(), sum.GetSampleSum())
	}
	for _, q := range sum.GetQuantile() {
		if q.GetValue() < 0.004999 || q.GetValue() > 0.005003 {
			t.Errorf("quantile %v = %v, want the last interval's 0.005", q.GetQuantile(), q.GetValue())
		}
	}
	if v := value("commentbench_server_requests_total"); v != 14 {
		t.Errorf("server requests %v, want 14", v)
	}
	if len(fams["commentbench_region_requests_total"].GetMetric()) != 2 {
		t.Errorf("region series: %d, want read and write", len(fams["commentbench_region_requests_total"].GetMetric()))
	}
	if value("commentbench_target_rate") != 250 || value("commentbench_achieved_rate") != 10 {
		t.Errorf("rates: target %v achieved %v", value("commentbench_target_rate"), value("commentbench_achieved_rate"))
	}
	for name, f := range fams {
		for _, m := range f.GetMetric() {
			got := map[string]string{}
			for _, l := range m.GetLabel() {
				got[l.GetName()] = l.GetValue()
			}
			if got["run_id"] != "r1" || got["worker"] != "3" {
				t.Errorf("%s %v: want run_id r1 and worker 3", name, got)
			}
		}
	}
	for _, m := range fams["commentbench_phase"].GetMetric() {
		want := map[string]float64{"steady": 1}[m.GetLabel()[0].GetValue()]
		if m.GetGauge().GetValue() != want {
			t.Errorf("phase %s = %v, want %v", m.GetLabel()[0].GetValue(), m.GetGauge().GetValue(), want)
		}
	}
}

func TestListenBadAddr(t *testing.T) {
	if _, err := Listen("nonsense", Identity{}); err == nil || !strings.Contains(err.Error(), "--metrics-addr") {
		t.Errorf("bad address: %v", err)
	}
}
