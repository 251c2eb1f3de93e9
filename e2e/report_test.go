package e2e

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"commentbench/check"
	"commentbench/keys"
	"commentbench/results"
)

// reportRun is a ci run of one design, verified into its dir.
type reportRun struct {
	layout, dir string
	sum         results.Summary
	rep         check.Report
}

func reportRuns(t *testing.T, base string, layouts ...string) []reportRun {
	t.Helper()
	var out []reportRun
	for _, l := range layouts {
		dir := filepath.Join(base, l)
		sum := loadgenCI(t, dir, l)
		res := filepath.Join(dir, "out")
		if _, err := os.Stat(filepath.Join(res, "report.html")); err != nil {
			t.Errorf("%s: loadgen wrote no report.html at the end of the run: %v", l, err)
		}
		vout, verr, code := run(t, "verify", "--data-dir", filepath.Join(dir, "data"), "--run", res, "--out", res)
		if code != 0 && code != 1 {
			t.Fatalf("verify %s: exit %d\n%s%s", l, code, vout, verr)
		}
		rep, found, err := check.ReadReport(res)
		if err != nil || !found {
			t.Fatalf("verify --out %s wrote no report (%v)", res, err)
		}
		out = append(out, reportRun{layout: l, dir: res, sum: sum, rep: rep})
	}
	return out
}

// The report of the ci preset's runs on seed, unique and salted: each
// section's figures are summary.json's and verify.json's, for one run and
// for the three compared; bad input exits 2 naming what is wrong.
func TestReport(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	runs := reportRuns(t, base, "seed", "unique", "salted")
	t.Run("one run", func(t *testing.T) {
		out, errOut, code := run(t, "loadgen", "report", runs[0].dir)
		page := filepath.Join(runs[0].dir, "report.html")
		if code != 0 || strings.TrimSpace(out) != "report: "+page {
			t.Fatalf("loadgen report: exit %d\n%s%s", code, out, errOut)
		}
		doc := parseFile(t, page)
		checkHeader(t, findOne(doc, has("id", "run")), runs[0].sum)
		checkOneRun(t, doc, runs[0])
	})
	t.Run("three runs", func(t *testing.T) {
		page := filepath.Join(base, "compare.html")
		args := []string{"report", "-o", page}
		for _, r := range runs {
			args = append(args, r.dir)
		}
		if out, errOut, code := run(t, "loadgen", args...); code != 0 {
			t.Fatalf("loadgen report: exit %d\n%s%s", code, out, errOut)
		}
		checkCompare(t, parseFile(t, page), runs)
		// With no -o the comparison goes beside the reference run, not
		// into the directory the command was typed in.
		cmd := exec.Command(filepath.Join(binDir, "loadgen"), "report", runs[0].dir, runs[1].dir)
		cmd.Dir = t.TempDir()
		if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), filepath.Join(runs[0].dir, "compare.html")) {
			t.Errorf("loadgen report A B: %v\n%s", err, out)
		}
		if entries, _ := os.ReadDir(cmd.Dir); len(entries) != 0 {
			t.Errorf("loadgen report A B wrote %v into the working directory", entries)
		}
	})
	t.Run("bad input", func(t *testing.T) { checkBadInput(t, base, runs[0]) })
}

func checkOneRun(t *testing.T, doc *html.Node, r reportRun) {
	t.Helper()
	s := r.sum
	checkOps(t, findOne(doc, has("id", "op-table")), s.Ops, "", nil)
	checkOps(t, findOne(doc, has("id", "action-table")), s.Actions, "", nil)
	var verdict []string
	for _, li := range findAll(findOne(doc, has("id", "verdict")), tag("li")) {
		if c := attr(li, "class"); c == results.Critical || c == results.Warning || c == results.Hint {
			verdict = append(verdict, text(li))
		}
	}
	if len(verdict) != len(s.Verdict) {
		t.Errorf("%d verdict lines, summary %d", len(verdict), len(s.Verdict))
	}
	for i := range min(len(verdict), len(s.Verdict)) {
		if want := strings.ToUpper(s.Verdict[i].Severity) + " " + s.Verdict[i].Message; verdict[i] != want {
			t.Errorf("verdict %d: %q, summary %q", i, verdict[i], want)
		}
	}
	flaws := findOne(doc, tagClass("table", "flaws"))
	eq(t, "collided (flaws)", cell(t, flaws, "collided"), float64(s.Flaws.CollidedTotal), 0)
	eq(t, "stale ranks (flaws)", cell(t, flaws, "stale"), float64(s.Flaws.StaleRanks), 0)
	eq(t, "rows per page (flaws)", cell(t, flaws, "rows-per-page"), s.Flaws.RowsPerPage, 0.005)
	checkSpread(t, doc, s, "")
	checkListing(t, doc, s, "")
	checkVerify(t, findOne(doc, tagClass("div", "verify")), r.rep)
	checkLint(t, findOne(doc, tagClass("div", "lint")), r.layout)
	for _, ts := range s.Spread {
		if ts.Requests > 0 && ts.Table != "*" {
			h := findOne(doc, and(tagClass("div", "heatmap"), has("data-table", ts.Table)))
			if h == nil || findOne(h, tag("svg")) == nil {
				t.Errorf("no heatmap of %s", ts.Table)
				continue
			}
			if got, want := text(findOne(h, has("data-col", "hottest"))), ts.Hottest[0].Range; !strings.HasPrefix(got, want) {
				t.Errorf("%s heatmap names %q as hottest, summary %q", ts.Table, got, want)
			}
		}
	}
}

func checkHeader(t *testing.T, n *html.Node, s results.Summary) {
	t.Helper()
	field := func(k string) string { return text(findOne(n, has("data-field", k))) }
	eq(t, "duration", field("duration"), s.DurationSec, 0.0005)
	if got := field("interrupted"); got != "no" {
		t.Errorf("interrupted %q, want no", got)
	}
	if got, want := field("date"), s.Start.UTC().Format("2006-01-02T15:04:05Z07:00"); got != want {
		t.Errorf("date %q, summary %q", got, want)
	}
	if got := field("scenario"); got != "ci" {
		t.Errorf("scenario %q, want ci", got)
	}
	if got := field("version"); got == "" || got == "–" {
		t.Errorf("no version in the header (%q)", got)
	}
}

// checkOps compares each op's row with the summary: count, rate, errors,
// latency percentiles (and service time, on one run's page). base, when
// given, is the first run's ops: the ratios are to them.
func checkOps(t *testing.T, table *html.Node, ops []results.OpSummary, run string, base []results.OpSummary) {
	t.Helper()
	if table == nil {
		t.Fatal("no op table")
	}
	cols := []string{"p50", "p90", "p99", "p999", "max", "mean"}
	vals := func(p results.Percentiles) []float64 { return []float64{p.P50, p.P90, p.P99, p.P999, p.Max, p.Mean} }
	for _, o := range ops {
		sel := []pred{tag("tr"), has("data-op", o.Op)}
		if run != "" {
			sel = append(sel, has("data-run", run))
		} else {
			sel = append(sel, has("data-kind", "latency"))
		}
		row := findOne(table, and(sel...))
		if row == nil {
			t.Fatalf("no row for %s %s", run, o.Op)
		}
		eq(t, o.Op+" count", cell(t, row, "count"), float64(o.Count), 0)
		eq(t, o.Op+" rate", cell(t, row, "rate"), o.Rate, 0.05)
		eq(t, o.Op+" errors", cell(t, row, "errors"), float64(o.Errors), 0)
		var ref []float64
		for _, b := range base {
			if b.Op == o.Op {
				ref = vals(b.Latency)
			}
		}
		for i, c := range cols {
			// The page shows three decimals: off by up to half the last,
			// and a value on the half (0.1675 shown 0.168) is off by it.
			eq(t, o.Op+" "+c, cell(t, row, c), vals(o.Latency)[i], 0.0005+1e-9)
			if ref != nil && ref[i] > 0 {
				x := findOne(findOne(row, has("data-col", c)), has("class", "x"))
				if x == nil {
					t.Errorf("%s %s %s: no ratio to the first run", run, o.Op, c)
					continue
				}
				eq(t, o.Op+" "+c+" ratio", text(x), vals(o.Latency)[i]/ref[i], 0.0051) // shown to a hundredth
			}
		}
		if run == "" {
			svc := findOne(table, and(tag("tr"), has("data-op", o.Op), has("data-kind", "service")))
			for i, c := range cols {
				eq(t, o.Op+" service "+c, cell(t, svc, c), vals(o.Service)[i], 0.0005)
			}
		}
	}
}

func checkSpread(t *testing.T, doc *html.Node, s results.Summary, run string) {
	t.Helper()
	for _, ts := range s.Spread {
		if ts.Requests == 0 {
			continue
		}
		sel := []pred{tag("tr"), has("data-table", ts.Table)}
		if run != "" {
			sel = append(sel, has("data-run", run))
		}
		row := findOne(findOne(doc, has("id", "spread")), and(sel...))
		if row == nil {
			t.Errorf("no spread row for %s %s", run, ts.Table)
			continue
		}
		eq(t, ts.Table+" requests", cell(t, row, "requests"), float64(ts.Requests), 0)
		eq(t, ts.Table+" regions", cell(t, row, "regions"), float64(ts.Regions), 0)
		eq(t, ts.Table+" hottest share", cell(t, row, "hottest-share"), 100*ts.Hottest[0].Share, 0.05)
		if ts.HottestWrites != nil {
			eq(t, ts.Table+" hottest writes", cell(t, row, "hottest-writes-share"), 100*ts.HottestWrites.Share, 0.05)
		}
		eq(t, ts.Table+" gini", cell(t, row, "gini"), ts.RegionGini, 0.005)
		eq(t, ts.Table+" ceiling", cell(t, row, "ceiling"), ts.Ceiling, 0.005)
	}
}

func checkListing(t *testing.T, doc *html.Node, s results.Summary, run string) {
	t.Helper()
	for _, o := range s.Ops {
		l := o.Listing
		if l == nil {
			continue
		}
		sel := []pred{tag("tr"), has("data-op", o.Op)}
		if run != "" {
			sel = append(sel, has("data-run", run))
		}
		row := findOne(findOne(doc, has("id", "listing")), and(sel...))
		if row == nil {
			t.Errorf("no listing row for %s %s", run, o.Op)
			continue
		}
		eq(t, o.Op+" pages", cell(t, row, "pages"), float64(l.Pages), 0)
		eq(t, o.Op+" scans", cell(t, row, "scans"), float64(l.Scans), 0)
		eq(t, o.Op+" rows", cell(t, row, "rows"), float64(l.Rows), 0)
		eq(t, o.Op+" scans/page", cell(t, row, "scans-per-page"), l.ScansPerPage, 0.005)
		eq(t, o.Op+" rows/page", cell(t, row, "rows-per-page"), l.RowsPerPage, 0.005)
	}
}

func checkVerify(t *testing.T, n *html.Node, rep check.Report) {
	t.Helper()
	if n == nil {
		t.Fatal("no verify section")
	}
	if got := text(findOne(n, has("data-col", "verdict"))); got != rep.Verdict {
		t.Errorf("verify verdict %q, verify.json %q", got, rep.Verdict)
	}
	for _, ix := range rep.Indexes {
		row := findOne(n, has("data-index", ix.Table))
		if row == nil {
			t.Errorf("no verify row for %s", ix.Table)
			continue
		}
		for col, want := range map[string]int64{"rows": ix.Rows, "referenced": ix.Referenced, "unreferenced": ix.Unreferenced.Count,
			"collided": ix.Collided.Count, "undefined": ix.Undefined.Count, "mismatched": ix.Mismatched.Count} {
			eq(t, ix.Table+" "+col, cell(t, row, col), float64(want), 0)
		}
	}
	eq(t, "stale ranks", cell(t, findOne(n, has("data-group", "ranks")), "stale"), float64(rep.Ranks.Stale.Count), 0)
	eq(t, "rank rows", cell(t, findOne(n, has("data-group", "ranks")), "rows"), float64(rep.Ranks.Rows), 0)
	if rep.Run != nil {
		g := findOne(n, has("data-group", "run"))
		eq(t, "acked", cell(t, g, "acked"), float64(rep.Run.Acked), 0)
		eq(t, "lost", cell(t, g, "lost"), float64(rep.Run.Lost.Count), 0)
	}
}

// checkLint: the page lists the design's lint findings, as lint finds them.
func checkLint(t *testing.T, n *html.Node, layout string) {
	t.Helper()
	d, err := keys.Load(layout)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := d.Lint(keys.RandomLetters, 4)
	if err != nil {
		t.Fatal(err)
	}
	items := findAll(n, tag("li"))
	if len(items) != len(rep.Findings) {
		t.Fatalf("%s: %d lint findings on the page, lint %d", layout, len(items), len(rep.Findings))
	}
	for i, f := range rep.Findings {
		if attr(items[i], "data-kind") != f.Kind || !strings.HasSuffix(text(items[i]), f.Message) {
			t.Errorf("%s finding %d: %q, lint %s %q", layout, i, text(items[i]), f.Kind, f.Message)
		}
	}
}

func checkCompare(t *testing.T, doc *html.Node, runs []reportRun) {
	t.Helper()
	if n := len(findAll(findOne(doc, has("id", "runs")), tagClass("div", "run"))); n != len(runs) {
		t.Errorf("%d runs in the header, want %d", n, len(runs))
	}
	for i, r := range runs {
		checkHeader(t, findOne(doc, and(tagClass("div", "run"), has("data-run", r.layout))), r.sum)
		var base []results.OpSummary
		if i > 0 {
			base = runs[0].sum.Ops
		}
		checkOps(t, findOne(doc, has("id", "op-table")), r.sum.Ops, r.layout, base)
		checkSpread(t, doc, r.sum, r.layout)
		checkListing(t, doc, r.sum, r.layout)
		checkVerify(t, findOne(doc, and(tagClass("div", "verify"), has("data-run", r.layout))), r.rep)
		line := text(findOne(doc, and(tagClass("p", "verdict-line"), has("data-run", r.layout))))
		checkVerdictLine(t, line, r, runs[0], i == 0)
	}
	if n, want := len(findAll(findOne(doc, has("id", "distributions")), tag("svg"))), len(runs[0].sum.Ops)+len(runs[0].sum.Actions); n != want {
		t.Errorf("%d overlaid distributions, want one per op and action (%d)", n, want)
	}
}

// checkVerdictLine reads the figures back out of a run's verdict line: the
// product listing's hottest region's share of writes, scans and rows per
// listing page, comments hidden by colliding keys (verify's count), each with
// the first run's beside it.
func checkVerdictLine(t *testing.T, line string, r, first reportRun, isFirst bool) {
	t.Helper()
	if !strings.HasPrefix(line, r.layout+": ") {
		t.Fatalf("verdict line %q: not %s's", line, r.layout)
	}
	hot := func(r reportRun) float64 {
		for _, ts := range r.sum.Spread {
			if ts.Table == "product-comment" {
				return math.Round(100 * ts.HottestWrites.Share)
			}
		}
		return -1
	}
	perPage := func(r reportRun) (scans, rows float64) {
		var pages, s, n int64
		for _, o := range r.sum.Ops {
			if (o.Op == "product-latest" || o.Op == "product-page") && o.Listing != nil {
				pages, s, n = pages+o.Listing.Pages, s+o.Listing.Scans, n+o.Listing.Rows
			}
		}
		return float64(s) / float64(pages), float64(n) / float64(pages)
	}
	rs, rr := perPage(r)
	fs, fr := perPage(first)
	for _, c := range []struct {
		re        string
		own, base float64
		tol       float64
	}{
		{`hottest product-comment region (\d+)% of writes(?: \(seed (\d+)%\))?`, hot(r), hot(first), 0},
		{`([\d.,]+) scans? per listing page(?: \(seed ([\d.,]+)\))?`, rs, fs, 0.05},
		{`([\d.,]+) rows read per page(?: \(seed ([\d.,]+)\))?`, rr, fr, 0.5},
		{`([\d,]+) hidden by colliding keys(?: \(seed ([\d,]+)\))?`, float64(r.rep.CollidedTotal()), float64(first.rep.CollidedTotal()), 0},
	} {
		m := regexp.MustCompile(c.re).FindStringSubmatch(line)
		if m == nil {
			t.Errorf("verdict line %q: no %s", line, c.re)
			continue
		}
		eq(t, r.layout+" "+c.re, m[1], c.own, c.tol)
		if isFirst != (m[2] == "") {
			t.Errorf("verdict line %q: the first run's figure %q", line, m[2])
		} else if !isFirst {
			eq(t, r.layout+" "+c.re+" (seed's)", m[2], c.base, c.tol)
		}
	}
}

func checkBadInput(t *testing.T, base string, seed reportRun) {
	empty := filepath.Join(base, "empty")
	os.MkdirAll(empty, 0o755)
	torn := filepath.Join(base, "torn")
	if err := os.CopyFS(torn, os.DirFS(seed.dir)); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(torn, "timeline.csv"))
	os.Remove(filepath.Join(torn, "regions.csv"))
	other := filepath.Join(base, "other")
	if out, errOut, code := run(t, "loadgen", "--preset", "ci", "--layout", "unique", "--users", "400", "--quiet", "--no-report",
		"--data-dir", filepath.Join(other, "data"), "--out", filepath.Join(other, "out")); code != 0 {
		t.Fatalf("loadgen: exit %d\n%s%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(other, "out", "report.html")); !os.IsNotExist(err) {
		t.Errorf("--no-report: the run wrote report.html (%v)", err)
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{nil, []string{"usage: loadgen report"}},
		{[]string{empty}, []string{empty, "is not a run"}},
		{[]string{filepath.Join(seed.dir, "summary.json")}, []string{"not a directory"}},
		{[]string{torn}, []string{torn, "missing timeline.csv, regions.csv"}},
		{[]string{seed.dir, filepath.Join(other, "out")}, []string{"different scenarios", "users 500 vs 400", "--force"}},
	} {
		out, errOut, code := run(t, "loadgen", append([]string{"report", "-o", filepath.Join(base, "bad.html")}, c.args...)...)
		if code != 2 {
			t.Errorf("report %v: exit %d, want 2\n%s%s", c.args, code, out, errOut)
		}
		for _, w := range c.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("report %v: %q does not say %q", c.args, errOut, w)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(base, "bad.html")); !os.IsNotExist(err) {
		t.Errorf("bad input wrote a page (%v)", err)
	}
	if out, errOut, code := run(t, "loadgen", "report", "--force", "-o", filepath.Join(base, "forced.html"),
		seed.dir, filepath.Join(other, "out")); code != 0 {
		t.Errorf("report --force: exit %d\n%s%s", code, out, errOut)
	}
}

// The page read as a browser's parser reads it; figures found by the
// data-* attributes the template puts on them.

func parseFile(t *testing.T, path string) *html.Node {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	n, err := html.Parse(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	return n
}

type pred func(*html.Node) bool

func findAll(n *html.Node, p pred) []*html.Node {
	var out []*html.Node
	if n == nil {
		return nil
	}
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && p(n) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

func findOne(n *html.Node, p pred) *html.Node {
	if all := findAll(n, p); len(all) > 0 {
		return all[0]
	}
	return nil
}

func attr(n *html.Node, key string) string {
	if n == nil {
		return ""
	}
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func has(key, val string) pred { return func(n *html.Node) bool { return attr(n, key) == val } }

func tag(name string) pred { return func(n *html.Node) bool { return n.Data == name } }

func tagClass(name, class string) pred {
	return func(n *html.Node) bool { return n.Data == name && attr(n, "class") == class }
}

func and(ps ...pred) pred {
	return func(n *html.Node) bool {
		for _, p := range ps {
			if !p(n) {
				return false
			}
		}
		return true
	}
}

// text is a node's text, spaces collapsed, block elements apart.
func text(n *html.Node) string {
	if n == nil {
		return ""
	}
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
		if n.Type == html.ElementNode && n.Data != "span" && n.Data != "b" && n.Data != "i" {
			b.WriteByte(' ')
		}
	}
	walk(n)
	return strings.Join(strings.Fields(b.String()), " ")
}

// cell is the figure in a row's column: the value alone where a ratio
// stands beside it.
func cell(t *testing.T, row *html.Node, col string) string {
	t.Helper()
	c := findOne(row, has("data-col", col))
	if c == nil {
		t.Fatalf("no %s cell in %v", col, row.Attr)
	}
	if v := findOne(c, has("class", "v")); v != nil {
		return text(v)
	}
	return text(c)
}

// eq reads a figure as the page writes it (thousands commas, %, ×, s) and
// compares it with want.
func eq(t *testing.T, what, s string, want, tol float64) {
	t.Helper()
	c := strings.NewReplacer(",", "", "%", "", "×", "", " s", "").Replace(strings.TrimSpace(s))
	got, err := strconv.ParseFloat(c, 64)
	if err != nil {
		t.Errorf("%s: %q is not a number", what, s)
		return
	}
	if math.Abs(got-want) > tol {
		t.Errorf("%s: page %s, want %s", what, s, fmt.Sprint(want))
	}
}
