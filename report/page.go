package report

import (
	"fmt"
	"html/template"
	"slices"
	"strings"

	"gonum.org/v1/plot/plotter"

	"commentbench/results"
	"commentbench/spread"
)

// runView is one run's sections.
type runView struct {
	Label, Dir    string
	Header        []field
	Verdict       []findingView
	SLOs          []sloView
	Ops, Actions  []opView
	ErrorKinds    []string
	Dists         []figure
	Throughput    *figure
	Latency       []figure
	LatencyLegend []legendItem
	ThinNote      string
	TailNote      string
	Heatmaps      []heatView
	Spread        spreadSection
	Listing       []listingView
	Wide          *wideView
	Flaws         *flawsView
	Violations    []violationView
	Servers       []serverView
	ServerChart   *figure
	ServerNote    string
	Steps         []stepView
	Capacity      *capacityView
	HotKeys       []NamedGrid
	Lint          *lintView
	Verify        *verifyView
	// Consistency is the run's consistency block (one row), if it has one.
	Consistency []consistencyView
}

// heatView is a run's heatmaps of a table, one per heatMetrics.
type heatView struct {
	Run, Table string
	Figs       []figure
	Hottest    string // by requests
	HotWrites  string
}

// heatMetrics are what a heatmap colours by: writes first, as a write
// hotspot is what a key design is judged by and reads can drown it.
var heatMetrics = []struct {
	name, unit string
	writes     bool
}{{"writes", "writes/s", true}, {"requests", "requests/s", false}}

func buildRun(r *Run) (*runView, error) {
	s := r.Summary
	v := &runView{Label: r.Label, Dir: r.Dir, Header: header(r), Verdict: findings(s.Verdict), SLOs: sloViews(s.SLOs),
		Ops: opViews(s.Ops, r.Label), Actions: opViews(s.Actions, r.Label), ErrorKinds: errorsByKind(s),
		Spread: spreadOf([]*Run{r}), Listing: listingViews(s, r.Label), Wide: wideOf(s, r.Label),
		Flaws: flawsOf(s.Flaws, r.Label), Violations: violationViews(s.Violations), Steps: stepViews(s.Steps),
		Capacity: capacityOf(s.Capacity, s.Steps),
		HotKeys:  r.Extras.HotKeys, Lint: lintOf(r), Verify: verifyOf(r.Verify, r.Label), Consistency: consistencyRows([]*Run{r})}
	for _, sv := range s.Servers {
		v.Servers = append(v.Servers, serverView{Server: sv.Server, Requests: thousands(sv.Requests), Utilization: share(sv.Utilization)})
	}
	return v, nil
}

// drawRun adds the charts to a run's view: steps picks which.
func drawRun(r *Run, v *runView, steps ...func(*Run, *runView) error) error {
	for _, step := range steps {
		if err := step(r, v); err != nil {
			return fmt.Errorf("%s: %w", r.Dir, err)
		}
	}
	return nil
}

// runDists draws each op's and action's distribution: latency from the
// intended start beside service time.
func runDists(r *Run, v *runView) error {
	for _, o := range entries(r.Summary) {
		lat, err := distribution(o.LatencyHist)
		if err != nil {
			return fmt.Errorf("%s: %w", o.Op, err)
		}
		svc, err := distribution(o.ServiceHist)
		if err != nil {
			return fmt.Errorf("%s: %w", o.Op, err)
		}
		if len(lat) == 0 {
			continue
		}
		ss := []series{{Name: "latency", Index: 0, XY: lat}, {Name: "service", Index: 1, Dashed: true, XY: svc}}
		chart, err := distributionChart(o.Op, ss)
		if err != nil {
			return err
		}
		v.Dists = append(v.Dists, figure{Chart: chart, Legend: legendOf(ss),
			Caption: fmt.Sprintf("%s: %s's latency and service time by percentile", r.Label, o.Op)})
	}
	return nil
}

// entries are the ops, then the actions marked as such.
func entries(s results.Summary) []results.OpSummary {
	out := slices.Clone(s.Ops)
	for _, a := range s.Actions {
		a.Op = "action " + a.Op
		out = append(out, a)
	}
	return out
}

func runTimeline(r *Run, v *runView) error {
	tl := r.timeline()
	var ss []series
	for i, op := range opNames(r.Summary) {
		ss = append(ss, series{Name: op, Index: i, XY: xy(tl[op], func(p opPoint) float64 { return p.Rate }, 0)})
	}
	total := series{Name: "all ops", Index: -1, Dashed: true, XY: totalRate(tl)}
	ss = append(ss, total)
	end := r.chartEnd()
	chart, err := lineChart("throughput", "successes/s", false, ss, wide, end)
	if err != nil {
		return err
	}
	v.Throughput = &figure{Chart: chart, Legend: legendOf(ss), Caption: r.Label + ": successes per second per interval, by operation"}
	for _, op := range opNames(r.Summary) {
		pts := tl[op]
		if len(pts) == 0 {
			continue
		}
		ls := []series{
			{Name: "p50", Index: 0, XY: xy(pts, func(p opPoint) float64 { return p.P50 }, 0.001)},
			{Name: "p99", Index: 2, XY: xy(pts, func(p opPoint) float64 { return p.P99 }, 0.001)},
			{Name: "max", Index: 9, Dashed: true, XY: xy(pts, func(p opPoint) float64 { return p.Max }, 0.001)},
		}
		chart, err := lineChart(op, "ms (log)", true, ls, small, end)
		if err != nil {
			return err
		}
		v.Latency = append(v.Latency, figure{Chart: chart, Caption: fmt.Sprintf("%s: %s's latency per interval", r.Label, op)})
		v.LatencyLegend = legendOf(ls)
	}
	if k := r.thinned(); k > 1 {
		v.ThinNote = fmt.Sprintf("Each point covers %d intervals: their mean rate, and the highest of their percentiles.", k)
	}
	v.TailNote = r.tailNote()
	return nil
}

// opNames are the run's ops in the summary's order.
func opNames(s results.Summary) []string {
	var out []string
	for _, o := range s.Ops {
		out = append(out, o.Op)
	}
	return out
}

func runHeatmaps(r *Run, v *runView) error {
	for _, table := range r.heatTables() {
		h, err := heatmapOf(r, table)
		if err != nil {
			return err
		}
		if h != nil {
			v.Heatmaps = append(v.Heatmaps, *h)
		}
	}
	return nil
}

func heatmapOf(r *Run, table string) (*heatView, error) {
	var grids []*heatGrid
	k := 0
	for _, m := range heatMetrics {
		g, thin := r.heatmap(table, m.writes)
		if g == nil {
			return nil, nil
		}
		grids, k = append(grids, g), thin
	}
	return heatFigure(r, table, grids, k)
}

// heatFigure draws a run's grids of a table (one per heatMetrics), naming
// the hottest region of each.
func heatFigure(r *Run, table string, grids []*heatGrid, k int) (*heatView, error) {
	h := &heatView{Run: r.Label, Table: table}
	if t := tableSpread(r.Summary.Spread, table); t != nil {
		if w := t.HottestWrites; w != nil {
			h.HotWrites = fmt.Sprintf("%s, %s of writes", w.Range, share(w.Share))
			grids[0].mark(w.Name, "hottest")
		}
		if len(t.Hottest) > 0 {
			hot := t.Hottest[0]
			h.Hottest = fmt.Sprintf("%s on %s, %s of requests", hot.Range, hot.Server, share(hot.Share))
			grids[1].mark(hot.Name, "hottest")
		}
	}
	for i, m := range heatMetrics {
		chart, err := heatmapChart(fmt.Sprintf("%s %s (%s)", table, m.unit, r.Label), m.unit, grids[i])
		if err != nil {
			return nil, fmt.Errorf("heatmap %s: %w", table, err)
		}
		caption := fmt.Sprintf("%s: %s per second in each of %s's %d regions, in key order top to bottom",
			r.Label, m.name, table, len(grids[i].labels))
		if k > 1 {
			caption += fmt.Sprintf("; each column %d intervals", k)
		}
		h.Figs = append(h.Figs, figure{Chart: chart, Caption: caption, Kind: m.name})
	}
	return h, nil
}

func tableSpread(ts []spread.TableSpread, table string) *spread.TableSpread {
	for i := range ts {
		if ts[i].Table == table {
			return &ts[i]
		}
	}
	return nil
}

func runServers(r *Run, v *runView) error {
	s := r.Servers
	if s == nil {
		return nil
	}
	if s.Note != "" {
		v.ServerNote = s.Note
		return nil
	}
	var ss []series
	end := r.chartEnd()
	for i, name := range s.Servers {
		var xy plotter.XYs
		for _, p := range s.Points[name] {
			if p[0] <= end { // the partial last interval's midpoint lies past it
				xy = append(xy, plotter.XY{X: p[0], Y: p[1]})
			}
		}
		ss = append(ss, series{Name: name, Index: i, XY: xy})
	}
	chart, err := lineChart("server utilization (modeled)", "share of handler time", false, ss, wide, end)
	if err != nil {
		return err
	}
	v.ServerChart = &figure{Chart: chart, Legend: legendOf(ss), Caption: r.Label + ": each server's modeled utilization per interval"}
	return nil
}

// page is everything the template lays out.
type page struct {
	Title     string
	Generated string
	Compare   bool
	Run       *runView     // one run
	Cmp       *compareView // several
	Style     template.CSS
}

func title(runs []*Run) string {
	var names []string
	for _, r := range runs {
		names = append(names, r.Label)
	}
	if len(runs) == 1 {
		return "commentbench run: " + runs[0].Label + " (" + runs[0].Config.Scenario.Name + ")"
	}
	return "commentbench: " + strings.Join(names, " vs ")
}
