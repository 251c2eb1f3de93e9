package results

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"commentbench/spread"
)

func judged() Summary {
	s := Summary{
		Ops: []OpSummary{{Op: "product-page", Listing: &ListingCost{ScansPerPage: 1, RowsPerPage: 420}},
			{Op: "ranked", Listing: &ListingCost{ScansPerPage: 1, RowsPerPage: 10}}},
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

// The verdict ranks what a run found by severity: data lost or hidden and
// SLO breaches, then scans leaving their range and hotspots, the cures of
// what it kept last; eight lines at most, so the lag falls off, each
// finding with its figure.
func TestJudge(t *testing.T) {
	v := judged().Verdict
	var kinds []string
	for _, f := range v {
		kinds = append(kinds, f.Severity+":"+f.Kind)
	}
	want := "critical:collided critical:dangling critical:slo warning:scan warning:hotspot warning:hotspot try:cure"
	if strings.Join(kinds, " ") != want {
		t.Fatalf("verdict %v\nwant    %s", kinds, want)
	}
	if v[0].Figure != 7 || v[2].Figure != 4.5 || v[3].Figure != 420 || v[4].Figure != 0.9 ||
		!strings.Contains(v[4].Message, `order: 90% of writes to one region, ["0", end)`) ||
		v[3].Message != "scans leave their range: product-page reads 420 rows a page, needs 11" {
		t.Errorf("figures: %+v", v)
	}
	if c := v[6].Message; c != "--layout unique · --scan bounded · --layout hashed · --layout salted" {
		t.Errorf("cures %q, want those of the findings kept, in their order", c)
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

// A design that fans a page out over salt buckets reads up to a page and
// one row per scan, legitimately: salted's bounded scans (8 a page, 46
// rows) are no leak. Past that budget they are, and --scan bounded is the
// cure only for a run whose scans were not bounded already.
func TestJudgeFanOut(t *testing.T) {
	listing := func(scans, rows float64) []OpSummary {
		return []OpSummary{{Op: "product-latest", Listing: &ListingCost{ScansPerPage: 1, RowsPerPage: 9}},
			{Op: "product-page", Listing: &ListingCost{ScansPerPage: scans, RowsPerPage: rows}}}
	}
	for _, c := range []struct {
		scan        string
		scans, rows float64
		want, cure  string
	}{
		{"bounded", 8, 46.2, "", ""},
		{"bounded", 7.35, 80.8, "", ""}, // a last page needs fewer buckets
		{"bounded", 8, 88, "", ""},
		{"bounded", 8, 120, "scans leave their range: product-page reads 120 rows a page, needs 88", ""},
		{"seed", 1, 372, "scans leave their range: product-page reads 372 rows a page, needs 11", "--scan bounded"},
		{"", 1, 372, "scans leave their range: product-page reads 372 rows a page, needs 11", "--scan bounded"},
	} {
		s := Summary{Ops: listing(c.scans, c.rows), Flaws: &Flaws{RowsPerPage: c.rows},
			Config: []byte(`{"scenario":{"layout":"salted","scan":"` + c.scan + `","page_size":10}}`)}
		s.Judge(10)
		var got, cure string
		for _, f := range s.Verdict {
			switch f.Kind {
			case "scan":
				got = f.Message
			case "cure":
				cure = f.Message
			}
		}
		if got != c.want || cure != c.cure {
			t.Errorf("--scan %q, %v scans and %v rows a page: finding %q, cure %q; want %q, %q",
				c.scan, c.scans, c.rows, got, cure, c.want, c.cure)
		}
	}
}

// No critical finding is dropped while a lesser one is shown, findings come
// worst first, and the block, wrapped lines counted, stays within six lines
// however long the messages.
func TestVerdictRanking(t *testing.T) {
	longRange := "[product-comment[prod=TmUKsWFOeR c ts=2026-11-24T21:34:09.578Z len=57], " +
		"product-comment[prod=XyZabcdEfG c ts=2026-11-24T21:35:00.000Z len=3])"
	hot := func(table string) spread.TableSpread {
		return spread.TableSpread{Table: table, Regions: 8, Writes: 10, HottestWrites: &spread.RegionShare{Range: longRange, Share: 0.9}}
	}
	breach := func(n int) []SLOResult {
		var out []SLOResult
		for i := range n {
			expr := fmt.Sprintf("action:post-comment-%d-%s:p99<=1ms", i, strings.Repeat("x", 60))
			out = append(out, SLOResult{SLO: expr, Actual: 4.5, Unit: "ms"})
		}
		return out
	}
	for breaches := range 7 {
		s := Summary{
			Ops:     []OpSummary{{Op: "product-page", Listing: &ListingCost{ScansPerPage: 1, RowsPerPage: 420}}},
			Flaws:   &Flaws{CollidedTotal: 7},
			Spread:  []spread.TableSpread{hot("product-comment"), hot("order")},
			SLOs:    breach(breaches),
			Pacing:  Pacing{FellBehind: true, LateShare: 0.5},
			Verdict: nil,
		}
		s.Judge(10)
		var b strings.Builder
		printVerdict(&b, s.Verdict, Painter{})
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")[1:]
		if len(lines) > MaxVerdict {
			t.Errorf("%d breaches: %d verdict lines\n%s", breaches, len(lines), b.String())
		}
		for _, l := range lines {
			if utf8.RuneCountInString(l) > lineWidth {
				t.Errorf("%d breaches: verdict line over %d columns: %q", breaches, lineWidth, l)
			}
		}
		criticals, lesser := 0, false
		for i, f := range s.Verdict {
			if i > 0 && severityRank(f.Severity) < severityRank(s.Verdict[i-1].Severity) {
				t.Errorf("%d breaches: %s after %s", breaches, f.Severity, s.Verdict[i-1].Severity)
			}
			if f.Severity == Critical {
				criticals++
			} else {
				lesser = true
			}
		}
		if want := min(1+breaches, MaxVerdict); criticals != want {
			t.Errorf("%d breaches: %d critical findings shown, want %d:\n%s", breaches, criticals, want, b.String())
		}
		if criticals < 1+breaches && lesser {
			t.Errorf("%d breaches: a critical finding dropped for a lesser one:\n%s", breaches, b.String())
		}
	}
}
