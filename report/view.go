package report

import (
	"fmt"
	"html/template"
	"maps"
	"slices"
	"strings"
	"time"

	"commentbench/check"
	"commentbench/keys"
	"commentbench/results"
	"commentbench/spread"
)

// The view is the page's content as strings, computed here so the
// template only lays it out.

type field struct{ Key, Label, Value string }

type findingView struct{ Severity, Word, Message string }

type sloView struct {
	SLO, Actual, Note string
	Met               bool
}

// cell is a number with its column's name; Ratio is to the first run's.
type cell struct{ Col, Value, Ratio string }

type opView struct {
	Op, Count, Rate, Errors string
	Latency, Service        []cell
	Run                     string // in a comparison
}

var percentileCols = []string{"p50", "p90", "p99", "p999", "max", "mean"}

func percentileValues(p results.Percentiles) []float64 {
	return []float64{p.P50, p.P90, p.P99, p.P999, p.Max, p.Mean}
}

func cells(p results.Percentiles) []cell {
	var out []cell
	for i, v := range percentileValues(p) {
		out = append(out, cell{Col: percentileCols[i], Value: ms(v)})
	}
	return out
}

func opViews(ops []results.OpSummary, run string) []opView {
	var out []opView
	for _, o := range ops {
		out = append(out, opView{Op: o.Op, Count: thousands(o.Count), Rate: rate(o.Rate), Errors: thousands(o.Errors),
			Latency: cells(o.Latency), Service: cells(o.Service), Run: run})
	}
	return out
}

func errorsByKind(s results.Summary) []string {
	var out []string
	for _, o := range append(slices.Clone(s.Ops), s.Actions...) {
		for _, k := range slices.Sorted(maps.Keys(o.ErrorsByKind)) {
			out = append(out, fmt.Sprintf("%s: %s %s", o.Op, k, thousands(o.ErrorsByKind[k])))
		}
	}
	return out
}

type spreadView struct {
	Run, Table, Regions, Requests           string
	Hottest, HottestShare, HottestServer    string
	HottestWrites, HottestWritesShare       string
	OneRow, OneRowShare                     string // the row no split divides, when one took most of the hottest writes region
	RegionGini, RegionMaxMean               string
	ServerGini, HottestServerShare, Ceiling string
}

func spreadViews(ts []spread.TableSpread, run string) []spreadView {
	var out []spreadView
	for _, t := range ts {
		v := spreadView{Run: run, Table: t.Table, Regions: thousands(int64(t.Regions)), Requests: uthousands(t.Requests),
			RegionGini: fixed2(t.RegionGini), RegionMaxMean: fixed2(t.RegionMaxMean),
			ServerGini: fixed2(t.ServerGini), HottestServerShare: share(t.HottestServerShare), Ceiling: fixed2(t.Ceiling)}
		if len(t.Hottest) > 0 {
			h := t.Hottest[0]
			v.Hottest, v.HottestShare, v.HottestServer = h.Range, share(h.Share), h.Server
		}
		if w := t.HottestWrites; w != nil {
			v.HottestWrites, v.HottestWritesShare = w.Range, share(w.Share)
		}
		if u := t.Unsplittable; u != nil {
			v.OneRow, v.OneRowShare = u.Row, share(u.Share)
		}
		out = append(out, v)
	}
	return out
}

// spreadSection is the spread per table, a row per run, and the tables no
// run sent a request to, named once.
type spreadSection struct {
	Runs   string // for the caption
	Groups []spreadGroup
	Idle   string
}

type spreadGroup struct {
	Table string
	Rows  []spreadView
}

func spreadOf(runs []*Run) spreadSection {
	tables := names(runs, func(r *Run) []string {
		var n []string
		for _, t := range r.Summary.Spread {
			n = append(n, t.Table)
		}
		return n
	})
	sec := spreadSection{Runs: runNames(runs)}
	var idle []string
	for _, t := range tables {
		g := spreadGroup{Table: t}
		busy := false
		for _, r := range runs {
			if ts := tableSpread(r.Summary.Spread, t); ts != nil {
				g.Rows = append(g.Rows, spreadViews([]spread.TableSpread{*ts}, r.Label)...)
				busy = busy || ts.Requests > 0
			}
		}
		if busy {
			sec.Groups = append(sec.Groups, g)
		} else {
			idle = append(idle, t)
		}
	}
	sec.Idle = strings.Join(idle, ", ")
	return sec
}

type listingView struct {
	Run, Op, Pages, Scans, Rows, Cells               string
	ScansPerPage, RowsPerPage, MaxRows, CellsPerPage string
}

func listingViews(s results.Summary, run string) []listingView {
	var out []listingView
	for _, o := range s.Ops {
		if l := o.Listing; l != nil {
			out = append(out, listingView{Run: run, Op: o.Op, Pages: thousands(l.Pages), Scans: thousands(l.Scans),
				Rows: thousands(l.Rows), Cells: thousands(l.Cells), ScansPerPage: fixed2(l.ScansPerPage),
				RowsPerPage: fixed2(l.RowsPerPage), MaxRows: thousands(l.MaxRows), CellsPerPage: fixed2(l.CellsPerPage)})
		}
	}
	return out
}

type flawsView struct {
	Run, Collided, CollidedBy, ShortListings, RowsPerPage, MaxRowsPerPage, Hottest, HottestRange, StaleRanks string
}

func flawsOf(f *results.Flaws, run string) *flawsView {
	if f == nil {
		return nil
	}
	v := &flawsView{Run: run, Collided: thousands(f.CollidedTotal), ShortListings: thousands(f.ShortListings),
		RowsPerPage: fixed2(f.RowsPerPage), MaxRowsPerPage: thousands(f.MaxRowsPerPage), StaleRanks: thousands(f.StaleRanks)}
	var by []string
	for _, t := range slices.Sorted(maps.Keys(f.Collided)) {
		by = append(by, fmt.Sprintf("%s %s", t, thousands(f.Collided[t])))
	}
	v.CollidedBy = strings.Join(by, ", ")
	if h := f.HottestListingRegion; h != nil {
		v.Hottest, v.HottestRange = share(h.Share), h.Range
	}
	return v
}

type violationView struct {
	Kind, Count string
	Samples     []string
}

func violationViews(vs map[string]*results.Violation) []violationView {
	var out []violationView
	for _, k := range slices.Sorted(maps.Keys(vs)) {
		if v := vs[k]; v != nil {
			out = append(out, violationView{Kind: k, Count: thousands(v.Count), Samples: v.Samples[:min(3, len(v.Samples))]})
		}
	}
	return out
}

type serverView struct{ Server, Requests, Utilization string }

type stepView struct {
	N, Target, Achieved, Seconds, WorstP99, WorstOp, ErrorRate, SLOs, Busiest, Hottest string
}

func stepViews(steps []results.Step) []stepView {
	var out []stepView
	for i, st := range steps {
		v := stepView{N: fmt.Sprint(i + 1), Target: rate(st.Target), Achieved: rate(st.Achieved),
			Seconds: fixed2(st.Seconds), Hottest: share(st.Hottest), SLOs: "–"}
		var worst, errRate float64
		for _, o := range st.Ops {
			if o.P99 > worst {
				worst, v.WorstOp = o.P99, o.Op
			}
			errRate = max(errRate, o.ErrorRate)
		}
		v.WorstP99, v.ErrorRate = ms(worst), fixed2(errRate)+"%"
		if len(st.SLOs) > 0 {
			v.SLOs = map[bool]string{true: "met", false: "BREACHED"}[st.Met]
		}
		v.Busiest = busiest(st.Busiest)
		out = append(out, v)
	}
	return out
}

func busiest(b *results.ServerShare) string {
	if b == nil {
		return "–"
	}
	if b.Modeled {
		return fmt.Sprintf("%s %s utilized (modeled)", b.Server, share(b.Value))
	}
	return fmt.Sprintf("%s %s of requests", b.Server, share(b.Value))
}

type capacityView struct{ Knee, Breach string }

func capacityOf(c *results.Capacity, steps []results.Step) *capacityView {
	if c == nil {
		return nil
	}
	v := &capacityView{Knee: "none: the first step breached"}
	if c.KneeRate > 0 {
		v.Knee = rate(c.KneeRate) + "/s"
	}
	if s := c.Search; s != nil { // probes, not a ramp's steps: the search says where it lies
		v.Knee = fmt.Sprintf("%s (searched %s/s to %s/s by bisection, %d probes: %s)", v.Knee, rate(s.From), rate(s.To), s.Probes, s.Note)
	}
	if b := c.FirstBreach; b != nil {
		v.Breach = fmt.Sprintf("%s at %s/s (%s %s); busiest %s; hottest region %s of requests",
			b.SLO, rate(b.Target), fixed2(b.Actual), b.Unit, busiest(b.Busiest), share(b.Hottest))
	} else if len(steps) > 0 && c.Search == nil {
		v.Knee = "not reached: every SLO held up to " + rate(steps[len(steps)-1].Target) + "/s"
	}
	return v
}

type verifyView struct {
	Run, Layout, Verdict, Consistent string
	Indexes                          [][]string // table, then the counters of indexCols
	Ranks, References, RunRec        []field
	Samples                          []string
	CollidedTotal, Unreferenced      string
	Stale, Lost                      string
	IndexCols                        []string // the columns of Indexes after the table
}

var indexCols = []string{"rows", "referenced", "collections", "unreferenced", "undefined", "mismatched", "collided", "extra",
	"bad_value", "undecodable", "count_off", "stale_copies"}

func verifyOf(rep *check.Report, run string) *verifyView {
	if rep == nil {
		return nil
	}
	v := &verifyView{Run: run, Layout: rep.Layout, Verdict: rep.Verdict, Consistent: yesNo(rep.Consistent),
		CollidedTotal: thousands(rep.CollidedTotal()), Stale: thousands(rep.Ranks.Stale.Count), IndexCols: indexCols}
	var unref int64
	for _, ix := range rep.Indexes {
		unref += ix.Unreferenced.Count
		cs := []check.Counter{ix.Unreferenced, ix.Undefined, ix.Mismatched, ix.Collided, ix.Extra, ix.BadValue, ix.Undecodable,
			ix.CountOff, ix.StaleCopies}
		row := []string{ix.Table, thousands(ix.Rows), thousands(ix.Referenced), thousands(ix.Collections)}
		for _, c := range cs {
			v.Samples = append(v.Samples, samples(ix.Table+" "+indexCols[len(row)-1], c)...)
			row = append(row, thousands(c.Count))
		}
		v.Indexes = append(v.Indexes, row)
	}
	v.Unreferenced = thousands(unref)
	rk := rep.Ranks
	v.Ranks = counterFields([]string{"over_limit", "gaps", "stale", "dangling", "wrong_product", "unparsable", "bad_value", "bad_comment"},
		rk.OverLimit, rk.Gaps, rk.Stale, rk.Dangling, rk.WrongProduct, rk.Unparsable, rk.BadValue, rk.BadComment)
	v.Ranks = append([]field{{"rows", "rows", thousands(rk.Rows)}, {"products", "products", thousands(rk.Products)}}, v.Ranks...)
	rf := rep.References
	v.References = counterFields([]string{"bad_comments", "missing_order", "order_user", "missing_user", "missing_product", "missing_seller"},
		rf.BadComments, rf.MissingOrder, rf.OrderUser, rf.MissingUser, rf.MissingProduct, rf.MissingSeller)
	v.References = append([]field{{"comments", "comments", thousands(rf.Comments)}}, v.References...)
	for _, c := range []struct {
		name string
		c    check.Counter
	}{{"ranks stale", rk.Stale}, {"ranks dangling", rk.Dangling}, {"ranks gaps", rk.Gaps}} {
		v.Samples = append(v.Samples, samples(c.name, c.c)...)
	}
	v.Lost = "–"
	if r := rep.Run; r != nil {
		v.Lost = thousands(r.Lost.Count)
		v.RunRec = []field{{"acked", "acknowledged", thousands(r.Acked)}, {"lost", "lost", thousands(r.Lost.Count)},
			{"unknown_present", "unknown outcome, present", thousands(r.UnknownPresent)},
			{"unknown_absent", "unknown outcome, absent", thousands(r.UnknownAbsent)},
			{"in_flight_present", "in flight, present", thousands(r.InFlightPresent)},
			{"in_flight_absent", "in flight, absent", thousands(r.InFlightAbsent)},
			{"not_in_ledger", "in the data, not in the ledger", thousands(r.NotInLedger.Count)},
			{"torn_tails", "torn ledger tails", thousands(r.TornTails)}}
		v.Samples = append(v.Samples, samples("lost", r.Lost)...)
		v.Samples = append(v.Samples, samples("not in the ledger", r.NotInLedger)...)
	}
	return v
}

func counterFields(names []string, cs ...check.Counter) []field {
	out := make([]field, len(cs))
	for i, c := range cs {
		out[i] = field{names[i], strings.ReplaceAll(names[i], "_", " "), thousands(c.Count)}
	}
	return out
}

// samples are a counter's first two decoded samples, to show what a
// finding looks like.
func samples(what string, c check.Counter) []string {
	var out []string
	for _, s := range c.Samples[:min(2, len(c.Samples))] {
		out = append(out, what+": "+s)
	}
	return out
}

// header is what the run was: the page's first lines.
func header(r *Run) []field {
	s, sc, c := r.Summary, r.Config.Scenario, r.Config
	design := orDash(sc.Layout)
	if sc.System != "" {
		design += " (system " + sc.System + ")"
	}
	backend := orDash(c.Backend)
	if c.Servers > 0 {
		backend += fmt.Sprintf(", %d servers", c.Servers)
	}
	bound := orDash(sc.Duration)
	if sc.Ops > 0 {
		bound += fmt.Sprintf(" or %s ops", thousands(sc.Ops))
	}
	pacing := s.Pacing.Mode + " loop"
	if s.Pacing.Ramp != "" {
		pacing += ", ramp " + s.Pacing.Ramp
	} else if s.Pacing.Rate > 0 {
		pacing += fmt.Sprintf(" at %s/s", rate(s.Pacing.Rate))
	}
	return []field{
		{"scenario", "scenario", orDash(sc.Name)},
		{"design", "key design", design},
		{"scan", "scans, ranks", orDash(sc.Scan) + ", " + orDash(sc.Ranks)},
		{"backend", "backend", backend},
		{"duration", "steady phase", seconds(s.DurationSec)},
		{"bound", "asked for", bound + ", warm-up " + orDash(sc.Warmup)},
		{"pacing", "pacing", pacing + fmt.Sprintf(", %d workers, seed %d", sc.Workers, sc.Seed)},
		{"version", "version", orDash(c.Version)},
		{"date", "started", s.Start.UTC().Format(time.RFC3339)},
		{"interrupted", "interrupted", yesNo(s.Interrupted)},
		{"run_id", "run id", orDash(s.RunID)},
		{"dir", "results", r.Dir},
	}
}

func findings(v []results.Finding) []findingView {
	var out []findingView
	for _, f := range v {
		out = append(out, findingView{Severity: f.Severity, Word: strings.ToUpper(f.Severity), Message: f.Message})
	}
	return out
}

func sloViews(rs []results.SLOResult) []sloView {
	var out []sloView
	for _, r := range rs {
		actual := fixed2(r.Actual) + " " + r.Unit
		if r.Unit == "ms" {
			actual = ms(r.Actual) + " ms"
		}
		out = append(out, sloView{SLO: r.SLO, Actual: actual, Met: r.Met, Note: r.Note})
	}
	return out
}

// lintView is the design's lint: its findings, and its tables' keys.
type lintView struct {
	Run, Design, File, Err string
	Findings               []keys.Finding
	Shared                 int // findings taken out as every compared design's
	Risk                   bool
	Tables                 []keys.TableLint
	KeyBytes               string
}

func lintOf(r *Run) *lintView {
	v := &lintView{Run: r.Label, Err: r.LintErr}
	if l := r.Lint; l != nil {
		v.Design, v.File, v.Findings, v.Risk, v.Tables = l.Design, l.File, l.Findings, l.CollisionRisk, l.Tables
		v.KeyBytes = fmt.Sprintf("%d bytes of row keys and %d of index values per comment written", l.KeyBytesPerComment, l.IndexValueBytes)
	}
	return v
}

// figure is a chart with what it shows: its caption names the run or
// runs, its legend sits below it, off the data.
type figure struct {
	Chart   template.HTML
	Caption string
	Legend  []legendItem
	Kind    string // what a heatmap colours by
}

type legendItem struct {
	Name, Color string
	Dashed      bool
}

func legendOf(ss []series) []legendItem {
	var out []legendItem
	for _, s := range ss {
		out = append(out, legendItem{Name: s.Name, Color: cssColor(seriesColor(s.Index)), Dashed: dashed(s)})
	}
	return out
}
