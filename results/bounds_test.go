package results

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The histograms hold 1µs..1h: a latency at either bound is recorded as it
// is, one past it is clamped to it and counted, in latency and service.
func TestClampBounds(t *testing.T) {
	for _, c := range []struct {
		d       time.Duration
		clamped int64
	}{
		{time.Microsecond, 0}, {time.Hour, 0}, {999 * time.Nanosecond, 2}, {time.Hour + time.Microsecond, 2}, // latency and service
	} {
		s := NewSet([]string{"op"})
		rec(s.NewRecorder(), 0, c.d, c.d)
		if tot := s.Totals()[0]; tot.Clamped != c.clamped {
			t.Errorf("%v: clamped %d, want %d", c.d, tot.Clamped, c.clamped)
		}
	}
}

// An interval carries a histogram for each op that recorded something in
// it, and none for an op that did not: its log gets no line.
func TestIntervalHistOnlyWhenRecorded(t *testing.T) {
	s := NewSet([]string{"busy", "idle"})
	rec(s.NewRecorder(), 0, time.Millisecond, time.Millisecond)
	iv := s.Collect(t0, t0.Add(time.Second))
	if iv.Ops[0].Hist == nil || iv.Ops[0].Hist.TotalCount() != 1 || iv.Ops[1].Hist != nil || iv.Ops[1].Count != 0 {
		t.Errorf("interval ops %+v", iv.Ops)
	}
	if again := s.Collect(t0.Add(time.Second), t0.Add(2*time.Second)); again.Ops[0].Hist != nil {
		t.Errorf("a second, empty interval carries %+v", again.Ops[0])
	}
}

// Bounds of SLO values: 0 and 100% are rates, 0s a latency; a comparison
// with nothing before it names the missing metric.
func TestParseSLOBounds(t *testing.T) {
	for expr, want := range map[string]float64{"*:error-rate<=100%": 100, "*:error-rate<=0%": 0, "x:p99<=0s": 0, "x:throughput>=0": 0} {
		if s, err := ParseSLO(expr); err != nil || s.Value != want {
			t.Errorf("ParseSLO(%q) = %+v, %v; want value %v", expr, s, err, want)
		}
	}
	if _, err := ParseSLO("x:<=1ms"); err == nil || !strings.Contains(err.Error(), `metric "": want one of`) {
		t.Errorf("an SLO with no metric: %v", err)
	}
}

// "<" is strict, "<=" is not, and so on; throughput over no time is 0.
func TestSLOComparisonsAtEquality(t *testing.T) {
	for cmp, want := range map[string]bool{"<=": true, "<": false, ">=": true, ">": false} {
		if got := compare(5, cmp, 5); got != want {
			t.Errorf("5 %s 5 = %v, want %v", cmp, got, want)
		}
	}
	if v := (opStats{count: 10}).value("throughput", 0); v != 0 {
		t.Errorf("throughput over no time: %v, want 0", v)
	}
}

// Pacing over no arrivals has no late share (not NaN); over none started,
// all of them; rates over no time are 0 (not infinite): the summary must
// still write as JSON.
func TestNothingOverNothing(t *testing.T) {
	if p := (Pacing{Mode: "open"}).Judged(); p.LateShare != 0 || p.FellBehind {
		t.Errorf("pacing with nothing due: %+v", p)
	}
	p := Pacing{Mode: "open", Unstarted: 3, MaxLateMs: BehindMs}.Judged()
	if p.LateShare != 1 || math.IsNaN(p.LateShare) || !p.FellBehind {
		t.Errorf("pacing with no arrivals started: %+v", p)
	}
	s := NewSet([]string{"op"})
	rec(s.NewRecorder(), 0, time.Millisecond, time.Millisecond)
	sum, err := s.Summary(t0, t0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Ops[0].Rate != 0 || sum.Config != nil {
		t.Errorf("a summary over no time: rate %v, config %q; want 0 and none", sum.Ops[0].Rate, sum.Config)
	}
	if err := WriteSummary(t.TempDir(), sum); err != nil {
		t.Errorf("a summary over no time does not write: %v", err)
	}
	sum, err = s.Summary(t0, t0.Add(2*time.Second), map[string]int{"workers": 2})
	if err != nil || string(sum.Config) != `{"workers":2}` || sum.Ops[0].Rate != 0.5 {
		t.Errorf("summary config %q rate %v, %v", sum.Config, sum.Ops[0].Rate, err)
	}
}

// A summary file is for reading: 0644, whatever the umask made of the
// temporary file.
func TestSummaryFileMode(t *testing.T) {
	dir := t.TempDir()
	if err := WriteSummary(dir, Summary{Version: FormatVersion}); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, SummaryFile))
	if err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("summary.json mode %v, %v; want 0644", fi.Mode(), err)
	}
}

// A merge of runs fewer names than runs still names each run in its errors.
func TestMergeNamesBeyondTheList(t *testing.T) {
	good := Summary{Version: FormatVersion}
	bad := Summary{Version: FormatVersion + 1}
	_, err := Merge([]Summary{good, bad}, []string{"first"})
	if err == nil || !strings.Contains(err.Error(), "merge summary 2:") {
		t.Errorf("merge error %v, want it to name summary 2", err)
	}
	_, err = Merge([]Summary{bad}, []string{"first"})
	if err == nil || !strings.Contains(err.Error(), "merge first:") {
		t.Errorf("merge error %v, want it to name first", err)
	}
}
