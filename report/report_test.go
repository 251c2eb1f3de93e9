package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"
	"gonum.org/v1/plot/plotter"

	"commentbench/results"
)

var now = time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)

func renderPage(t testing.TB, dirs ...string) (*html.Node, []byte) {
	t.Helper()
	runs, err := LoadAll(dirs, false)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Write(&b, runs, now); err != nil {
		t.Fatal(err)
	}
	return parsePage(t, b.Bytes()), b.Bytes()
}

func inputError(t *testing.T, err error, want ...string) {
	t.Helper()
	var ie *InputError
	if !errors.As(err, &ie) {
		t.Fatalf("error %v: want an InputError", err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
}

func TestLoadRefusesWhatIsNotARun(t *testing.T) {
	dir := t.TempDir()
	_, err := Load(dir)
	inputError(t, err, "is not a run", "summary.json")

	file := filepath.Join(dir, "x.txt")
	os.WriteFile(file, []byte("x"), 0o644)
	_, err = Load(file)
	inputError(t, err, "not a directory")

	run := filepath.Join(dir, "run")
	synthRun(t, run, 3, "seed", 1)
	for _, f := range []string{TimelineFile, RegionsFile} {
		if err := os.Remove(filepath.Join(run, f)); err != nil {
			t.Fatal(err)
		}
	}
	_, err = Load(run)
	inputError(t, err, "missing timeline.csv, regions.csv")
}

// Every op's row holds the summary's figures: count, rate, errors, and the
// latency and service percentiles, as the summary computed them.
func TestOneRunMatchesTheSummary(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	synthRun(t, dir, 20, "seed", 1)
	sum, err := results.ReadSummary(dir)
	if err != nil {
		t.Fatal(err)
	}
	page, raw := renderPage(t, dir)
	checkOps(t, byID(page, "op-table"), sum.Ops)
	checkOps(t, byID(page, "action-table"), sum.Actions)
	if got := number(t, text(findOne(page, has("data-field", "duration")))); !near(got, sum.DurationSec, 0.0005) {
		t.Errorf("duration %v, summary %v", got, sum.DurationSec)
	}
	for _, ts := range sum.Spread {
		if ts.Requests == 0 {
			continue
		}
		row := findOne(byID(page, "spread"), and(tag("tr"), has("data-table", ts.Table)))
		if row == nil {
			t.Fatalf("no spread row for %s", ts.Table)
		}
		if got := number(t, cellOf(t, row, "hottest-share")); !near(got, 100*ts.Hottest[0].Share, 0.05) {
			t.Errorf("%s hottest share %v%%, summary %v", ts.Table, got, ts.Hottest[0].Share)
		}
		if got := number(t, cellOf(t, row, "requests")); got != float64(ts.Requests) {
			t.Errorf("%s requests %v, summary %d", ts.Table, got, ts.Requests)
		}
		if ts.Table != "*" && findOne(page, and(has("class", "heatmap"), has("data-table", ts.Table))) == nil {
			t.Errorf("no heatmap for %s", ts.Table)
		}
	}
	if n := len(findAll(byID(page, "distributions"), tag("svg"))); n != len(sum.Ops)+len(sum.Actions) {
		t.Errorf("%d distributions, want one per op and action (%d)", n, len(sum.Ops)+len(sum.Actions))
	}
	selfContained(t, page, raw)
	for _, id := range []string{"servers", "capacity", "hot-keys", "verify", "wide-rows"} {
		if byID(page, id) != nil {
			t.Errorf("section %s shown for a run without its data", id)
		}
	}
}

func checkOps(t *testing.T, table *html.Node, ops []results.OpSummary) {
	t.Helper()
	if table == nil {
		t.Fatal("no op table")
	}
	for _, o := range ops {
		for _, kind := range []string{"latency", "service"} {
			row := findOne(table, and(tag("tr"), has("data-op", o.Op), has("data-kind", kind)))
			if row == nil {
				t.Fatalf("no %s row for %s", kind, o.Op)
			}
			p := o.Latency
			if kind == "service" {
				p = o.Service
			}
			for i, col := range percentileCols {
				if got := number(t, cellOf(t, row, col)); !near(got, percentileValues(p)[i], 0.0005) {
					t.Errorf("%s %s %s: page %v, summary %v", o.Op, kind, col, got, percentileValues(p)[i])
				}
			}
			if kind == "service" {
				continue
			}
			if got := number(t, cellOf(t, row, "count")); got != float64(o.Count) {
				t.Errorf("%s count %v, summary %d", o.Op, got, o.Count)
			}
			if got := number(t, cellOf(t, row, "rate")); !near(got, o.Rate, 0.05) {
				t.Errorf("%s rate %v, summary %v", o.Op, got, o.Rate)
			}
			if got := number(t, cellOf(t, row, "errors")); got != float64(o.Errors) {
				t.Errorf("%s errors %v, summary %d", o.Op, got, o.Errors)
			}
		}
	}
}

// selfContained: nothing that would fetch, no script, and a policy that
// forbids fetching anyway.
func selfContained(t *testing.T, page *html.Node, raw []byte) {
	t.Helper()
	if n := findAll(page, tag("script")); len(n) > 0 {
		t.Errorf("%d scripts in the page", len(n))
	}
	if n := findAll(page, tag("link")); len(n) > 0 {
		t.Errorf("%d links to other files", len(n))
	}
	for _, n := range findAll(page, func(n *html.Node) bool { return attr(n, "src") != "" }) {
		t.Errorf("<%s src=%q>: the page loads a file", n.Data, attr(n, "src"))
	}
	for _, n := range findAll(page, func(n *html.Node) bool { return attr(n, "xlink:href") != "" || attr(n, "href") != "" }) {
		h := attr(n, "xlink:href") + attr(n, "href")
		if !strings.HasPrefix(h, "data:") && !strings.HasPrefix(h, "#") {
			t.Errorf("<%s> refers to %q", n.Data, h)
		}
	}
	if bytes.Contains(raw, []byte("url(http")) || bytes.Contains(raw, []byte("@import")) {
		t.Error("the style fetches something")
	}
	csp := findOne(page, has("http-equiv", "Content-Security-Policy"))
	if csp == nil || !strings.Contains(attr(csp, "content"), "default-src 'none'") {
		t.Error("no content security policy forbidding fetches")
	}
}

// A partial last interval (the run's end cut it to 0.4 s) is left out of
// every chart: the lines, the heatmaps and their time axes stop at the
// last whole interval, and the page says what was left out.
func TestPartialLastIntervalLeftOut(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	synthRun(t, dir, 5, "seed", 2)
	r, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if last := r.Timeline[len(r.Timeline)-1]; !last.Partial || !near(last.End-last.Start, 0.4, 1e-9) {
		t.Fatalf("last interval %+v: want a partial 0.4 s", last)
	}
	if end := r.chartEnd(); end != 4 {
		t.Errorf("time axes end at %v, want 4 (the last whole interval's end)", end)
	}
	for op, pts := range r.timeline() {
		if len(pts) != 4 || pts[len(pts)-1].X > 4 {
			t.Errorf("%s: %d points, the last at %v: want the 4 whole intervals", op, len(pts), pts[len(pts)-1].X)
		}
	}
	for _, m := range heatMetrics {
		g, _ := r.heatmap("product-comment", m.writes)
		if len(g.xs) != 4 || g.end != 4 {
			t.Errorf("%s heatmap: %d columns to %v s, want 4 to 4 s", m.name, len(g.xs), g.end)
		}
	}
	page, _ := renderPage(t, dir)
	if got := text(byID(page, "timeline")); !strings.Contains(got, "the last interval, cut to 0.400 s by the run's end, is left out of the charts") {
		t.Errorf("the page does not say the partial interval is left out: %q", got)
	}
}

// A run shorter than one interval has only a partial one: it is charted,
// or the charts would be empty.
func TestOnlyIntervalPartialCharted(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	synthRun(t, dir, 1, "seed", 2)
	r, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Timeline) == 0 || !r.Timeline[0].Partial {
		t.Fatalf("timeline %+v: want one partial interval", r.Timeline)
	}
	if _, _, cut := r.partialTail(); cut {
		t.Error("the only interval is left out")
	}
	g, _ := r.heatmap("product-comment", true)
	if len(g.xs) != 1 {
		t.Errorf("writes heatmap: %d columns, want the one interval", len(g.xs))
	}
}

// Files written before intervals carried their start read as they did:
// each interval starts where the last ended.
func TestOldTimelineFormat(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	synthRun(t, dir, 2, "seed", 3)
	old := "elapsed_s,op,count,p50_ms,p99_ms,p999_ms,max_ms,errors\n" +
		"0.958,read,10,1.000,2.000,3.000,4.000,0\n0.958,write,5,1.000,2.000,3.000,4.000,1\n" +
		"1.958,read,20,1.000,2.000,3.000,4.000,0\n2.010,read,1,1.000,2.000,3.000,4.000,0\n"
	if err := os.WriteFile(filepath.Join(dir, TimelineFile), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]float64{{0, 0.958}, {0, 0.958}, {0.958, 1.958}, {1.958, 2.010}}
	for i, row := range r.Timeline {
		if !near(row.Start, want[i][0], 1e-9) || !near(row.End, want[i][1], 1e-9) {
			t.Errorf("row %d: %v..%v, want %v", i, row.Start, row.End, want[i])
		}
	}
}

func setScenario(t testing.TB, dir string, edit func(map[string]any)) {
	t.Helper()
	path := filepath.Join(dir, results.SummaryFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var top map[string]any
	if err := json.Unmarshal(b, &top); err != nil {
		t.Fatal(err)
	}
	edit(top["config"].(map[string]any)["scenario"].(map[string]any))
	if b, err = json.Marshal(top); err == nil {
		err = os.WriteFile(path, b, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// Runs that differ in the design compare; runs of another load are refused,
// naming each knob, unless forced.
func TestCompareRefusesOtherScenarios(t *testing.T) {
	base := t.TempDir()
	a, b, c := filepath.Join(base, "a"), filepath.Join(base, "b"), filepath.Join(base, "c")
	synthRun(t, a, 3, "seed", 1)
	synthRun(t, b, 3, "salted", 2)
	synthRun(t, c, 3, "unique", 3)
	setScenario(t, b, func(s map[string]any) { s["scan"], s["system"] = "seed", "seed" })
	if _, err := LoadAll([]string{a, b}, false); err != nil {
		t.Fatalf("runs of two designs on one scenario: %v", err)
	}
	setScenario(t, c, func(s map[string]any) { s["workers"], s["duration"] = 16, "10m" })
	_, err := LoadAll([]string{a, b, c}, false)
	inputError(t, err, "different scenarios", `duration "2s" vs "10m"`, "workers 8 vs 16", "--force")
	if _, err := LoadAll([]string{a, b, c}, true); err != nil {
		t.Errorf("--force: %v", err)
	}
}

func TestVerdictLine(t *testing.T) {
	base := t.TempDir()
	a, b := filepath.Join(base, "a"), filepath.Join(base, "b")
	synthRun(t, a, 3, "seed", 1)
	synthRun(t, b, 3, "salted", 1)
	runs, err := LoadAll([]string{a, b}, false)
	if err != nil {
		t.Fatal(err)
	}
	hot := func(r *Run) float64 { return tableSpread(r.Summary.Spread, "product-comment").HottestWrites.Share }
	got := VerdictLine(runs[1], runs[0])
	want := fmt.Sprintf("salted: hottest product-comment region %.0f%% of writes (seed %.0f%%); 1 scan per listing page (seed 1)",
		100*hot(runs[1]), 100*hot(runs[0]))
	if !strings.HasPrefix(got, want) || !strings.Contains(got, "3 hidden by colliding keys (seed 3)") {
		t.Errorf("verdict line\n%s\nwant it to start\n%s\nand hold the collisions", got, want)
	}
	cells := func(r *Run) string { c, _ := listingCost(r.Summary); return num(c.CellsPerPage()) }
	if want := fmt.Sprintf("; %s cells read per page (seed %s);", cells(runs[1]), cells(runs[0])); !strings.Contains(got, want) {
		t.Errorf("verdict line\n%s\nwant it to hold %q", got, want)
	}
	for _, absent := range []string{"per comment", "wide row", "one row", "verify", "(in "} { // no storage, verify or wide rows
		if strings.Contains(got, absent) {
			t.Errorf("verdict line\n%s\nholds %q, from figures the runs lack", got, absent)
		}
	}
	if first := VerdictLine(runs[0], runs[0]); strings.Contains(first, "(seed") {
		t.Errorf("the first run's line compares with itself: %s", first)
	}
}

// The server model's figures (servers.csv, steps, capacity) and hot keys
// appear when a run has them, as they are.
func TestModelSections(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	synthRun(t, dir, 4, "seed", 1)
	csv := "end_s,server,requests,utilization_modeled,queue_modeled\n" +
		"1.000,rs1,100,0.950,3\n1.000,rs2,50,0.300,0\n2.000,rs1,120,0.970,5\n2.000,rs2,40,0.250,0\n"
	if err := os.WriteFile(filepath.Join(dir, ServersFile), []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := results.ReadSummary(dir)
	if err != nil {
		t.Fatal(err)
	}
	sum.Servers = []results.ServerLoad{{Server: "rs1", Requests: 220, Utilization: 0.96, Modeled: true}}
	sum.Steps = []results.Step{{Target: 1000, Achieved: 990, Seconds: 2, Met: true},
		{Target: 2000, Achieved: 1500, Seconds: 2, Met: false, SLOs: []results.SLOResult{{SLO: "p99<=10ms"}}}}
	sum.Capacity = &results.Capacity{KneeRate: 1000, FirstBreach: &results.Breach{SLO: "product-latest:p99<=10ms", Actual: 31, Unit: "ms", Target: 2000}}
	if err := results.WriteSummary(dir, sum); err != nil {
		t.Fatal(err)
	}
	addHotKeys(t, dir, `{"products":[{"product":"PfHsNeVbRc","requests":900,"region":"product-comment,GaA"}]}`)
	page, _ := renderPage(t, dir)
	if s := byID(page, "servers"); s == nil || findOne(s, tag("svg")) == nil {
		t.Error("no modeled servers section with its chart")
	} else if got := text(findOne(s, and(tag("tr"), has("data-server", "rs1")))); got != "rs1 220 96.0%" {
		t.Errorf("modeled server row %q, want rs1 220 96.0%%", got)
	}
	if k := byID(page, "knee"); k == nil || !strings.Contains(text(k), "1000.0/s") || !strings.Contains(text(k), "product-latest:p99<=10ms at 2000.0/s") {
		t.Errorf("knee line missing or wrong")
	}
	if n := len(findAll(byID(page, "capacity"), and(tag("tr"), func(n *html.Node) bool { return attr(n, "data-step") != "" }))); n != 2 {
		t.Errorf("%d step rows, want 2", n)
	}
	if h := byID(page, "hot-keys"); h == nil {
		t.Error("no hot keys section")
	} else if got := text(h); !strings.Contains(got, "products product requests region PfHsNeVbRc 900") {
		t.Errorf("hot keys %q: not as the summary holds them", got)
	}
}

func addHotKeys(t *testing.T, dir, raw string) {
	t.Helper()
	path := filepath.Join(dir, results.SummaryFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.Replace(b, []byte("{"), []byte(`{"hot_keys":`+raw+`,`), 1)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A long run's lines are thinned to maxPoints, spikes kept.
func TestThin(t *testing.T) {
	pts := make([]opPoint, 1500)
	for i := range pts {
		pts[i] = opPoint{X: float64(i), Rate: 10, P99: 1}
	}
	pts[777].P99 = 50
	got := thin(pts)
	if len(got) > maxPoints {
		t.Fatalf("%d points, want at most %d", len(got), maxPoints)
	}
	top := 0.0
	for _, p := range got {
		top = math.Max(top, p.P99)
		if p.Rate != 10 {
			t.Fatalf("rate %v, want the mean 10", p.Rate)
		}
	}
	if top != 50 {
		t.Errorf("the spike is gone: highest p99 %v", top)
	}
}

// The distribution's points are the histogram's nearest-rank values: the
// p50 and p99 the summary shows sit on the line.
func TestDistributionIsTheSummarys(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	synthRun(t, dir, 10, "seed", 4)
	sum, err := results.ReadSummary(dir)
	if err != nil {
		t.Fatal(err)
	}
	o := sum.Ops[0]
	xy, err := distribution(o.LatencyHist)
	if err != nil {
		t.Fatal(err)
	}
	at := func(x float64) float64 { // the line's value at x, as drawn (a step per point)
		v := xy[0].Y
		for _, p := range xy {
			if p.X <= x+1e-9 {
				v = p.Y
			}
		}
		return v
	}
	if got := at(math.Log10(2)); got > o.Latency.P50 || got < o.Latency.P50*0.9 {
		t.Errorf("line at 50%%: %v, summary p50 %v", got, o.Latency.P50)
	}
	if last := xy[len(xy)-1]; last.Y != o.Latency.Max {
		t.Errorf("last point %v, summary max %v", last.Y, o.Latency.Max)
	}
}

// relabel makes a copied run another design's, by name only.
func relabel(tb testing.TB, dir, layout string) {
	tb.Helper()
	setScenario(tb, dir, func(s map[string]any) { s["layout"] = layout })
}

// A log axis takes only positive values: a chart whose series hold zeros,
// a single value, or nothing at all is drawn, never a panic, and keeps
// every positive point.
func TestLogChartsTakeAnyValues(t *testing.T) {
	for name, ss := range map[string][]series{
		"zeros":    {{Name: "a", XY: plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 2}, {X: 2, Y: -1}}}},
		"one":      {{Name: "a", XY: plotter.XYs{{X: 0, Y: 0.5}}}},
		"none":     {{Name: "a", XY: plotter.XYs{{X: 0, Y: 0}}}},
		"empty":    nil,
		"two runs": {{Name: "a", XY: plotter.XYs{{X: 0, Y: 3}}}, {Name: "b", Index: 1, XY: plotter.XYs{{X: 0, Y: 0}}}},
	} {
		if _, err := lineChart(name, "ms (log)", true, ss, small, 1); err != nil {
			t.Errorf("%s: line chart: %v", name, err)
		}
		if _, err := distributionChart(name, ss); err != nil {
			t.Errorf("%s: distribution: %v", name, err)
		}
	}
	ss := []series{{Name: "a", XY: plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 2}, {X: 2, Y: 4}}}}
	p := newPlot("t", "x", "y")
	if !logY(p, ss) || len(ss[0].XY) != 2 || p.Y.Min != 2 || p.Y.Max != 4 {
		t.Errorf("logY kept %v over [%v, %v], want the two positive points over [2, 4]", ss[0].XY, p.Y.Min, p.Y.Max)
	}
}

// A run stopped by a signal says so in its header, its SLOs are the
// summary's (actual and verdict), and a searched capacity says it was
// searched and where it lies.
func TestInterruptedSLOsAndSearch(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	synthRun(t, dir, 4, "seed", 1)
	sum, err := results.ReadSummary(dir)
	if err != nil {
		t.Fatal(err)
	}
	sum.Interrupted = true
	sum.SLOs = []results.SLOResult{{SLO: "comment-write:p99<=5ms", Metric: "p99", Met: false, Actual: 7.25, Unit: "ms"},
		{SLO: "*:error-rate<1%", Metric: "error-rate", Met: true, Actual: 0, Unit: "%"}}
	sum.Steps = []results.Step{{Target: 100, Met: true}, {Target: 200, Met: false}}
	sum.Capacity = &results.Capacity{KneeRate: 100, Search: &results.SearchNote{From: 100, To: 200, Within: 0.05, Probes: 2,
		Note: "between 100/s (held) and 200/s (breached)"}}
	if err := results.WriteSummary(dir, sum); err != nil {
		t.Fatal(err)
	}
	page, _ := renderPage(t, dir)
	if got := text(findOne(page, has("data-field", "interrupted"))); got != "yes" {
		t.Errorf("interrupted %q, want yes", got)
	}
	for _, r := range sum.SLOs {
		row := findOne(byID(page, "slos"), has("data-slo", r.SLO))
		if row == nil {
			t.Fatalf("no row for SLO %s", r.SLO)
		}
		want := map[bool]string{true: "met", false: "BREACHED"}[r.Met]
		if got := cellOf(t, row, "met"); got != want {
			t.Errorf("%s: %q, want %q", r.SLO, got, want)
		}
		if got := number(t, strings.Fields(cellOf(t, row, "actual"))[0]); !near(got, r.Actual, 0.005) {
			t.Errorf("%s: actual %v, summary %v", r.SLO, got, r.Actual)
		}
	}
	if k := text(byID(page, "knee")); !strings.Contains(k, "100.0/s (searched 100.0/s to 200.0/s by bisection, 2 probes: between 100/s (held) and 200/s (breached))") {
		t.Errorf("knee %q: want the search's answer", k)
	}
}
