package results

import (
	"strings"
	"testing"

	"commentbench/spread"
)

func judged() Summary {
	s := Summary{
		Flaws:      &Flaws{CollidedTotal: 7, RowsPerPage: 420},
		Violations: map[string]*Violation{"missing": {Count: 3}, "foreign-row": {Count: 9, Samples: []string{"walking X: row of Y"}}, "dangling": {Count: 2}},
		Spread: []spread.TableSpread{
			{Table: "order", Regions: 8, Requests: 100, Writes: 100, HottestWrites: &spread.RegionShare{Range: "[\"0\", end)", Share: 0.9}},
			{Table: "product-comment", Regions: 8, Requests: 50, Writes: 40, HottestWrites: &spread.RegionShare{Range: "[start, \"G\")", Share: 0.6}},
			{Table: "user-comment", Regions: 8, Requests: 50, Writes: 40, HottestWrites: &spread.RegionShare{Range: "[\"a\", \"b\")", Share: 0.2}},
		},
		SLOs:   []SLOResult{{SLO: "comment-write:p99<=1ms", Met: false, Actual: 4.5, Unit: "ms"}, {SLO: "x:p50<=1s", Met: true}},
		Pacing: Pacing{Mode: "open", Arrivals: 10, Late: 5, LateShare: 0.5, MaxLateMs: 500, FellBehind: true},
	}
	s.Judge(10)
	return s
}

// The verdict ranks what a run found: data lost or hidden, scans leaving
// their range, hotspots, SLO breaches, at most six lines with the cures
// last (here the SLO breach and the lag fall past the five), each finding
// with its figure.
func TestJudge(t *testing.T) {
	v := judged().Verdict
	var kinds []string
	for _, f := range v {
		kinds = append(kinds, f.Severity+":"+f.Kind)
	}
	want := "critical:lost critical:dangling warning:scan warning:hotspot warning:hotspot try:cure"
	if strings.Join(kinds, " ") != want {
		t.Fatalf("verdict %v\nwant    %s", kinds, want)
	}
	if v[0].Figure != 7 || v[2].Figure != 420 || v[3].Figure != 0.9 || !strings.Contains(v[3].Message, `order: region ["0", end) took 90%`) ||
		v[4].Figure != 0.6 {
		t.Errorf("figures: %+v", v)
	}
	for _, c := range []string{"--layout unique", "--scan bounded", "--layout hashed", "--layout salted"} {
		if !strings.Contains(v[5].Message, c) {
			t.Errorf("cures %q miss %q", v[5].Message, c)
		}
	}
	var empty Summary
	empty.Judge(10)
	if len(empty.Verdict) != 0 {
		t.Errorf("a clean run's verdict: %+v", empty.Verdict)
	}
}

// The console's verdict block is the summary's verdict, line for line and
// in order; severity is a word, and colour only when asked.
func TestConsoleVerdict(t *testing.T) {
	s := judged()
	var plain, colored strings.Builder
	if err := PrintSummaryWith(&plain, s, Painter{}); err != nil {
		t.Fatal(err)
	}
	if err := PrintSummaryWith(&colored, s, Painter{Color: true}); err != nil {
		t.Fatal(err)
	}
	out := plain.String()
	if strings.Contains(out, "\x1b[") {
		t.Error("escape codes without colour")
	}
	if !strings.Contains(colored.String(), "\x1b[31mCRITICAL\x1b[0m") {
		t.Error("no colour when asked")
	}
	block := out[strings.Index(out, "verdict:\n"):]
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(block), "\n")[1:] {
		if strings.HasPrefix(l, "   ") { // a finding wrapped onto the next line
			lines[len(lines)-1] += " " + strings.TrimSpace(l)
			continue
		}
		lines = append(lines, l)
	}
	if len(lines) != len(s.Verdict) {
		t.Fatalf("%d verdict lines, summary has %d\n%s", len(lines), len(s.Verdict), block)
	}
	for i, f := range s.Verdict {
		if !strings.HasPrefix(lines[i], "  "+strings.ToUpper(f.Severity)+" ") || !strings.Contains(lines[i], f.Message[:min(40, len(f.Message))]) {
			t.Errorf("line %d %q is not finding %+v", i, lines[i], f)
		}
	}
	if !strings.Contains(out, "foreign-row 9: pages held rows of another product or user") ||
		!strings.Contains(out, "    likely: a scan with no stop row ran past its listing") || !strings.Contains(out, "    e.g. walking X: row of Y") {
		t.Errorf("violations without their meaning or example:\n%s", out)
	}
}

func TestUseColor(t *testing.T) {
	cases := []struct {
		mode     string
		terminal bool
		noColor  string
		want     bool
	}{{"auto", true, "", true}, {"auto", false, "", false}, {"auto", true, "1", false},
		{"always", false, "1", true}, {"never", true, "", false}}
	for _, c := range cases {
		if got, err := UseColor(c.mode, c.terminal, c.noColor); err != nil || got != c.want {
			t.Errorf("UseColor(%q, %v, %q) = %v, %v; want %v", c.mode, c.terminal, c.noColor, got, err, c.want)
		}
	}
	if _, err := UseColor("sometimes", true, ""); err == nil || !strings.Contains(err.Error(), "--color") {
		t.Errorf("bad mode: %v", err)
	}
}
