package report

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"commentbench/keys"
	"commentbench/results"
)

// compareView is the comparison's sections; Runs hold each run's own
// (header, SLOs, verdict, lint, verify, the server model's figures).
type compareView struct {
	Runs     []*runView
	Legend   []legendItem // a colour per run, in every overlaid chart
	Verdicts []verdictView
	Shapes   []shapeView
	// Consistency is the runs' consistency blocks side by side, and in
	// words which left drift and what the others paid.
	Consistency      []consistencyView
	ConsistencyWords string
	Ops              []opGroup
	Actions          []opGroup
	Dists            []figure
	Throughput       *figure
	P99              []figure
	ThinNote         string
	TailNote         string
	RunNames         string // every run, for the captions of what shows them all
	// LintShared are the lint findings every design has, said once.
	LintShared []keys.Finding
	Spread     spreadSection
	Listing    []listingGroup
	Heatmaps   []heatGroup
}

type verdictView struct{ Run, Text string }

type opGroup struct {
	Op   string
	Rows []opView
}

type listingGroup struct {
	Op   string
	Rows []listingView
}

type heatGroup struct {
	Table string
	Maps  []heatView // a run's each
}

func buildCompare(runs []*Run) (*compareView, error) {
	c := &compareView{}
	for i, r := range runs {
		v, err := buildRun(r)
		if err != nil {
			return nil, err
		}
		if err := drawRun(r, v, runServers); err != nil {
			return nil, err
		}
		c.Runs = append(c.Runs, v)
		c.Legend = append(c.Legend, legendItem{Name: r.Label, Color: cssColor(seriesColor(i))})
		c.Verdicts = append(c.Verdicts, verdictView{Run: r.Label, Text: VerdictLine(r, runs[0])})
		c.Shapes = append(c.Shapes, shapeOf(r))
	}
	c.RunNames = runNames(runs)
	c.LintShared = sharedLint(c.Runs)
	c.Consistency, c.ConsistencyWords = consistencyRows(runs), ConsistencyWords(runs)
	c.Ops = opGroups(runs, func(s results.Summary) []results.OpSummary { return s.Ops })
	c.Actions = opGroups(runs, func(s results.Summary) []results.OpSummary { return s.Actions })
	c.Spread = spreadOf(runs)
	c.Listing = listingGroups(runs)
	for _, step := range []func([]*Run, *compareView) error{cmpDists, cmpTimeline, cmpHeatmaps} {
		if err := step(runs, c); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// names lists what each run has, in the first run's order, then what
// only later runs have.
func names(runs []*Run, of func(*Run) []string) []string {
	var out []string
	for _, r := range runs {
		for _, n := range of(r) {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	return out
}

func find(ops []results.OpSummary, name string) *results.OpSummary {
	for i := range ops {
		if ops[i].Op == name {
			return &ops[i]
		}
	}
	return nil
}

// opGroups puts each op's runs together, each latency percentile with its
// ratio to the first run's (latency from the intended start: what the user
// waited).
func opGroups(runs []*Run, of func(results.Summary) []results.OpSummary) []opGroup {
	all := names(runs, func(r *Run) []string {
		var n []string
		for _, o := range of(r.Summary) {
			n = append(n, o.Op)
		}
		return n
	})
	var out []opGroup
	for _, name := range all {
		g := opGroup{Op: name}
		base := find(of(runs[0].Summary), name)
		for i, r := range runs {
			o := find(of(r.Summary), name)
			if o == nil {
				continue
			}
			v := opViews([]results.OpSummary{*o}, r.Label)[0]
			if i > 0 && base != nil {
				ref := percentileValues(base.Latency)
				for j, val := range percentileValues(o.Latency) {
					if ref[j] > 0 {
						v.Latency[j].Ratio = ratio(val / ref[j])
					}
				}
			}
			g.Rows = append(g.Rows, v)
		}
		out = append(out, g)
	}
	return out
}

func listingGroups(runs []*Run) []listingGroup {
	ops := names(runs, func(r *Run) []string {
		var n []string
		for _, l := range listingViews(r.Summary, "") {
			n = append(n, l.Op)
		}
		return n
	})
	var out []listingGroup
	for _, op := range ops {
		g := listingGroup{Op: op}
		for _, r := range runs {
			for _, l := range listingViews(r.Summary, r.Label) {
				if l.Op == op {
					g.Rows = append(g.Rows, l)
				}
			}
		}
		out = append(out, g)
	}
	return out
}

// cmpDists overlays each op's latency distribution, a line per run.
func cmpDists(runs []*Run, c *compareView) error {
	all := names(runs, func(r *Run) []string {
		var n []string
		for _, o := range entries(r.Summary) {
			n = append(n, o.Op)
		}
		return n
	})
	for _, name := range all {
		var ss []series
		for i, r := range runs {
			o := find(entries(r.Summary), name)
			if o == nil {
				continue
			}
			xy, err := distribution(o.LatencyHist)
			if err != nil {
				return fmt.Errorf("%s: %s: %w", r.Dir, name, err)
			}
			ss = append(ss, series{Name: r.Label, Index: i, XY: xy})
		}
		chart, err := distributionChart(name, ss)
		if err != nil {
			return err
		}
		c.Dists = append(c.Dists, figure{Chart: chart, Legend: legendOf(ss),
			Caption: fmt.Sprintf("%s: %s's latency by percentile", seriesNames(ss), name)})
	}
	return nil
}

// cmpTimeline overlays the runs' throughput, and each op's p99 over time.
func cmpTimeline(runs []*Run, c *compareView) error {
	tls := make([]map[string][]opPoint, len(runs))
	var total []series
	thin, end := 1, 0.0
	var tails []string
	for i, r := range runs {
		tls[i] = r.timeline()
		total = append(total, series{Name: r.Label, Index: i, XY: totalRate(tls[i])})
		thin, end = max(thin, r.thinned()), max(end, r.chartEnd())
		if n := r.tailNote(); n != "" {
			tails = append(tails, n)
		}
	}
	c.TailNote = strings.Join(tails, " ")
	chart, err := lineChart("throughput, all ops", "successes/s", false, total, wide, end)
	if err != nil {
		return err
	}
	c.Throughput = &figure{Chart: chart, Legend: c.Legend, Caption: c.RunNames + ": successes per second per interval, all operations"}
	ops := names(runs, func(r *Run) []string { return opNames(r.Summary) })
	for _, op := range ops {
		var ss []series
		for i := range runs {
			if pts := tls[i][op]; len(pts) > 0 {
				ss = append(ss, series{Name: runs[i].Label, Index: i,
					XY: xy(pts, func(p opPoint) float64 { return p.P99 }, 0.001)})
			}
		}
		chart, err := lineChart(op+" p99", "ms (log)", true, ss, small, end)
		if err != nil {
			return err
		}
		c.P99 = append(c.P99, figure{Chart: chart, Legend: legendOf(ss),
			Caption: fmt.Sprintf("%s: %s's p99 per interval", seriesNames(ss), op)})
	}
	if thin > 1 {
		c.ThinNote = fmt.Sprintf("Each point covers up to %d intervals: their mean rate, and the highest of their p99s.", thin)
	}
	return nil
}

// hotRange is how far apart the runs' hottest regions of a table are, in
// share of its requests: the tables where the designs differ come first.
func hotRange(runs []*Run, table string) float64 {
	lo, hi := 1.0, 0.0
	for _, r := range runs {
		if t := tableSpread(r.Summary.Spread, table); t != nil && len(t.Hottest) > 0 {
			lo, hi = min(lo, t.Hottest[0].Share), max(hi, t.Hottest[0].Share)
		}
	}
	return max(hi-lo, 0)
}

// cmpHeatmaps puts each table's heatmaps together, a run's after
// another's, each metric on one colour scale across the runs.
func cmpHeatmaps(runs []*Run, c *compareView) error {
	tables := names(runs, func(r *Run) []string { return r.heatTables() })
	slices.SortStableFunc(tables, func(a, b string) int { return cmp.Compare(hotRange(runs, b), hotRange(runs, a)) })
	for _, t := range tables {
		grids, thin := make([][]*heatGrid, len(runs)), make([]int, len(runs))
		top := make([]float64, len(heatMetrics))
		for i, r := range runs {
			for j, m := range heatMetrics {
				g, k := r.heatmap(t, m.writes)
				if g == nil {
					grids[i] = nil
					break
				}
				grids[i], thin[i], top[j] = append(grids[i], g), k, max(top[j], g.max)
			}
		}
		g := heatGroup{Table: t}
		for i, r := range runs {
			if grids[i] == nil {
				continue
			}
			for j := range heatMetrics {
				grids[i][j].max = top[j] // one scale, so a brighter band is more
			}
			h, err := heatFigure(r, t, grids[i], thin[i])
			if err != nil {
				return fmt.Errorf("%s: %w", r.Dir, err)
			}
			g.Maps = append(g.Maps, *h)
		}
		c.Heatmaps = append(c.Heatmaps, g)
	}
	return nil
}

// runNames are the runs' labels, for a caption.
func runNames(runs []*Run) string {
	var n []string
	for _, r := range runs {
		n = append(n, r.Label)
	}
	return strings.Join(n, ", ")
}

// seriesNames are a chart's runs, one line each, for its caption.
func seriesNames(ss []series) string {
	var n []string
	for _, s := range ss {
		n = append(n, s.Name)
	}
	return strings.Join(n, ", ")
}

// sharedLint takes the findings every run's design has out of each run's
// lint, to be said once; with one design linted there is nothing to share.
func sharedLint(views []*runView) []keys.Finding {
	var linted []*lintView
	for _, v := range views {
		if v.Lint != nil && v.Lint.Err == "" {
			linted = append(linted, v.Lint)
		}
	}
	if len(linted) < 2 {
		return nil
	}
	var shared []keys.Finding
	for _, f := range linted[0].Findings {
		if !slices.ContainsFunc(linted[1:], func(l *lintView) bool { return !slices.Contains(l.Findings, f) }) {
			shared = append(shared, f)
		}
	}
	for _, l := range linted {
		l.Findings = slices.DeleteFunc(slices.Clone(l.Findings), func(f keys.Finding) bool { return slices.Contains(shared, f) })
		l.Shared = len(shared)
	}
	return shared
}
