package e2e

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
)

// scrape reads /metrics and parses it with Prometheus's own text parser.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("scrape %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var p expfmt.TextParser
	fams, err := p.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("parse /metrics: %v\n%s", err, body)
	}
	return fams
}

func sumOf(f *dto.MetricFamily, label, value string) float64 {
	var n float64
	for _, m := range f.GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == label && l.GetValue() == value {
				switch {
				case m.Counter != nil:
					n += m.Counter.GetValue()
				case m.Summary != nil:
					n += float64(m.Summary.GetSampleCount())
				case m.Gauge != nil:
					n += m.Gauge.GetValue()
				}
			}
		}
	}
	return n
}

// --metrics-addr serves the run live: scraped twice mid-run, parsed with
// Prometheus's parser, the op counters and latency summaries rise, the
// phase is steady, regions and servers are there, and the open loop's
// target rate is the one asked for.
func TestLiveMetrics(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(filepath.Join(binDir, "loadgen"), "--preset", "ci", "--layout", "unique", "--ops", "0",
		"--duration", "6s", "--rate", "400", "--workers", "4", "--metrics-addr", "127.0.0.1:0",
		"--data-dir", filepath.Join(dir, "data"), "--out", filepath.Join(dir, "out"))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	url := ""
	sc := bufio.NewScanner(stderr)
	for url == "" && sc.Scan() {
		if m := regexp.MustCompile(`live metrics at (http://\S+/metrics)`).FindStringSubmatch(sc.Text()); m != nil {
			url = m[1]
		}
	}
	if url == "" {
		t.Fatal("loadgen did not print its metrics address")
	}
	go func() { _, _ = io.Copy(io.Discard, stderr) }()
	time.Sleep(2500 * time.Millisecond)
	first := scrape(t, url)
	time.Sleep(2 * time.Second)
	second := scrape(t, url)
	for _, op := range []string{"order-create", "comment-write", "product-latest"} {
		a, b := sumOf(first["commentbench_ops_total"], "op", op), sumOf(second["commentbench_ops_total"], "op", op)
		if !(b > a && a > 0) {
			t.Errorf("%s: ops_total %v then %v, want rising from above 0", op, a, b)
		}
		la, lb := sumOf(first["commentbench_latency_seconds"], "op", op), sumOf(second["commentbench_latency_seconds"], "op", op)
		if !(lb > la) {
			t.Errorf("%s: latency summary count %v then %v, want rising", op, la, lb)
		}
	}
	if v := sumOf(second["commentbench_phase"], "phase", "steady"); v != 1 {
		t.Errorf("phase steady = %v, want 1", v)
	}
	if v := second["commentbench_target_rate"].GetMetric()[0].GetGauge().GetValue(); v != 400 {
		t.Errorf("target rate %v, want 400", v)
	}
	// Arrivals served a second, as the target counts them: near 400 on a
	// backend that keeps up, never the ops/s (each arrival makes several).
	if v := second["commentbench_achieved_rate"].GetMetric()[0].GetGauge().GetValue(); v < 300 || v > 500 {
		t.Errorf("achieved rate %v, want about the target 400", v)
	}
	if len(second["commentbench_region_requests_total"].GetMetric()) == 0 || len(second["commentbench_server_requests_total"].GetMetric()) == 0 {
		t.Error("no region or server requests")
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("loadgen: %v", err)
	}
	if _, err := http.Get(url); err == nil || !strings.Contains(err.Error(), "refused") {
		t.Errorf("metrics still served after the run: %v", err)
	}
}
