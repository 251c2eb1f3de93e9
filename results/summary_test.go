package results

import (
	"bufio"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"commentbench/spread"
)

// dataA and dataB record two different data sets; ops overlap partly.
func dataA(s *Set) {
	r := s.NewRecorder()
	recordUniform(r, 0, 1000)
	for i := range 300 {
		rec(r, 1, time.Duration(i*i)*time.Microsecond, time.Duration(i)*time.Microsecond)
	}
	r.Record(1, t0, t0, t0, "timeout")
}

func dataB(s *Set) {
	r := s.NewRecorder()
	for i := range 700 {
		rec(r, 0, time.Duration(5000+i*37)*time.Millisecond/10, time.Millisecond)
	}
	r.Record(0, t0, t0, t0, "order-not-found")
	r.Record(0, t0, t0, t0, "timeout")
	rec(r, 2, 2*time.Second, time.Second)
}

func summaryOf(t *testing.T, ops []string, start, end time.Time, fill ...func(*Set)) Summary {
	t.Helper()
	s := NewSet(ops)
	for _, f := range fill {
		f(s)
	}
	sum, err := s.Summary(start, end, map[string]int{"workers": 4})
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

func TestSummaryRoundTrip(t *testing.T) {
	sum := summaryOf(t, []string{"read", "write", "scan"}, t0, t0.Add(10*time.Second), dataA)
	sum.Pacing = Pacing{Mode: "open", Rate: 100, Arrivals: 1000, Late: 3}
	sum.Violations = map[string]*Violation{"leak": {Count: 1, Samples: []string{"p1 in p2"}}}
	sum.Spread = []spread.TableSpread{{Table: "comment", Regions: 4, Requests: 10}}
	slo, _ := ParseSLO("read:p99<=1s")
	sum.SLOs = Evaluate([]SLO{slo}, sum)
	dir := t.TempDir()
	if err := WriteSummary(dir, sum); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir, filepath.Join(dir, SummaryFile)} {
		got, err := ReadSummary(p)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, sum) {
			t.Errorf("read back from %s:\n%+v\nwant\n%+v", p, got, sum)
		}
	}
	if sum.Ops[0].Count != 1000 || sum.Ops[0].Rate != 100 || sum.Ops[1].Errors != 1 {
		t.Errorf("ops %+v", sum.Ops[:2])
	}
	h, err := decode(sum.Ops[0].LatencyHist)
	if err != nil || h.TotalCount() != 1000 || percentiles(h) != sum.Ops[0].Latency {
		t.Errorf("decoded histogram: %v, %d values, %+v", err, h.TotalCount(), percentiles(h))
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("dir holds %d files, want only summary.json (temp file left?)", len(ents))
	}
}

func TestReadSummaryRejects(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, SummaryFile), []byte(`{"version":2}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadSummary(dir); err == nil || !strings.Contains(err.Error(), "version 2") {
		t.Errorf("version 2: err %v", err)
	}
	if _, err := ReadSummary(filepath.Join(dir, "missing")); err == nil {
		t.Error("missing file: no error")
	}
}

// TestMergeExact: merging two runs' summaries gives what one Set that
// recorded both data sets gives.
func TestMergeExact(t *testing.T) {
	ops := []string{"read", "write", "scan"}
	a := summaryOf(t, ops[:2], t0, t0.Add(10*time.Second), dataA)
	b := summaryOf(t, ops, t0.Add(5*time.Second), t0.Add(20*time.Second), dataB)
	a.Violations = map[string]*Violation{"leak": {Count: 8, Samples: strings.Split("12345678", "")}}
	b.Violations = map[string]*Violation{"leak": {Count: 5, Samples: strings.Split("abcde", "")},
		"stale": {Count: 1, Samples: []string{"x"}}}
	a.Pacing, b.Pacing = Pacing{Mode: "open", Rate: 10, Arrivals: 5}, Pacing{Mode: "open", Rate: 20, Arrivals: 7, Late: 1}
	want := summaryOf(t, ops, t0, t0.Add(20*time.Second), dataA, dataB)

	got, err := Merge([]Summary{a, b}, []string{"run-a", "run-b"})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Ops, want.Ops) {
		t.Errorf("merged ops\n%+v\nwant\n%+v", got.Ops, want.Ops)
	}
	if !got.Start.Equal(t0) || !got.End.Equal(t0.Add(20*time.Second)) || got.DurationSec != 20 {
		t.Errorf("span %v..%v %vs", got.Start, got.End, got.DurationSec)
	}
	if got.Ops[0].Rate != float64(1700)/20 {
		t.Errorf("read rate %v, want 85", got.Ops[0].Rate)
	}
	leak := got.Violations["leak"]
	if leak.Count != 13 || len(leak.Samples) != MaxSamples || got.Violations["stale"].Count != 1 {
		t.Errorf("violations %+v", got.Violations)
	}
	if len(a.Violations["leak"].Samples) != 8 {
		t.Error("merge changed its input")
	}
	if got.Pacing != (Pacing{Mode: "open", Rate: 30, Arrivals: 12, Late: 1, LateShare: 1.0 / 12}) {
		t.Errorf("pacing %+v", got.Pacing)
	}
	if !reflect.DeepEqual(got.Merged, []string{"run-a", "run-b"}) || string(got.Config) != string(a.Config) {
		t.Errorf("merged %v config %s", got.Merged, got.Config)
	}
}

func TestMergeRejects(t *testing.T) {
	a := summaryOf(t, []string{"read", "write"}, t0, t0.Add(time.Second), dataA)
	dup := a
	dup.Ops = append([]OpSummary{}, a.Ops[0], a.Ops[0])
	bad := a
	bad.Ops = []OpSummary{a.Ops[0]}
	bad.Ops[0].Count++
	corrupt := a
	corrupt.Ops = []OpSummary{a.Ops[0]}
	corrupt.Ops[0].LatencyHist = "not base64!"
	for name, s := range map[string]Summary{"duplicate op": dup, "count mismatch": bad, "corrupt hist": corrupt} {
		if _, err := Merge([]Summary{a, s}, []string{"a", "b"}); err == nil {
			t.Errorf("%s: merged without error", name)
		}
	}
	if _, err := Merge(nil, nil); err == nil {
		t.Error("merge of nothing: no error")
	}
}

func TestWriteHgrm(t *testing.T) {
	sum := summaryOf(t, []string{"read", "write", "idle"}, t0, t0.Add(time.Second), dataA)
	dir := t.TempDir()
	if err := WriteHgrm(dir, sum); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "idle.hgrm")); err == nil {
		t.Error("wrote a .hgrm for an op that never succeeded")
	}
	for _, c := range []struct {
		file string
		p50  float64
	}{{"read.hgrm", sum.Ops[0].Latency.P50}, {"write.service.hgrm", sum.Ops[1].Service.P50}} {
		if got := hgrmP50(t, filepath.Join(dir, c.file)); got != c.p50 {
			t.Errorf("%s: value at 50%% %v, want %v", c.file, got, c.p50)
		}
	}
}

// hgrmP50 checks an .hgrm file's layout and returns the first value at or
// past the 50th percentile.
func hgrmP50(t *testing.T, path string) float64 {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan()
	if sc.Text() != " Value\tPercentile\tTotalCount\t1/(1-Percentile)" {
		t.Fatalf("%s: header %q", path, sc.Text())
	}
	p50, rows, footer := -1.0, 0, 0
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		switch {
		case len(fs) == 0:
		case strings.HasPrefix(fs[0], "#["):
			footer++
		case len(fs) == 4:
			rows++
			v, _ := strconv.ParseFloat(fs[0], 64)
			q, _ := strconv.ParseFloat(fs[1], 64)
			if q >= 0.5 && p50 < 0 {
				p50 = v
			}
		default:
			t.Fatalf("%s: line %q", path, sc.Text())
		}
	}
	if rows < 10 || footer != 3 {
		t.Fatalf("%s: %d rows, %d footer lines", path, rows, footer)
	}
	return p50
}
