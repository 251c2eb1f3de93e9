package results

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"commentbench/spread"
)

// lineWidth is the console width every summary line fits in.
const lineWidth = 80

// opWidth is the widest op name the table shows whole; the other columns
// take the remaining 62 of 80.
const opWidth = 18

// PrintSummary writes a human summary of s, every line within 80 columns:
// the ops table, pacing, violations, region spread, SLOs, flaws and the
// verdict; no colour.
func PrintSummary(w io.Writer, s Summary) error { return PrintSummaryWith(w, s, Painter{}) }

// PrintSummaryWith is PrintSummary with severities painted by p.
func PrintSummaryWith(w io.Writer, s Summary, p Painter) error {
	var b strings.Builder
	printHeader(&b, s)
	printOps(&b, s.Ops, "op")
	if len(s.Actions) > 0 {
		printOps(&b, s.Actions, "action")
	}
	printListing(&b, s.Ops)
	printPacing(&b, s.Pacing)
	printViolations(&b, s.Violations)
	printSpread(&b, s.Spread)
	printServers(&b, s.Servers)
	printHotKeys(&b, s.HotKeys)
	printHotRows(&b, s)
	printStorage(&b, s.Storage)
	printSLOs(&b, s.SLOs)
	printSteps(&b, s.Steps, s.Capacity)
	printFlaws(&b, s.Flaws, s.system())
	printConsistency(&b, s.Consistency)
	printVerdict(&b, s.Verdict, p)
	_, err := io.WriteString(w, b.String())
	return err
}

// line writes one line, cut to lineWidth so no value can break the layout.
func line(b *strings.Builder, format string, a ...any) {
	s := fmt.Sprintf(format, a...)
	if utf8.RuneCountInString(s) > lineWidth {
		s = string([]rune(s)[:lineWidth-1]) + "…"
	}
	b.WriteString(s)
	b.WriteByte('\n')
}

func printHeader(b *strings.Builder, s Summary) {
	d := time.Duration(s.DurationSec * float64(time.Second)).Round(time.Millisecond)
	h := fmt.Sprintf("%s: %v from %s", s.Tool, d, s.Start.Format("2006-01-02 15:04:05"))
	if len(s.Merged) > 0 {
		h += fmt.Sprintf(", %d runs merged", len(s.Merged))
	}
	line(b, "%s", h)
}

func printOps(b *strings.Builder, ops []OpSummary, head string) {
	row := "%-*s %9s %8s %6s %6s %6s %6s %6s %7s"
	line(b, row, opWidth, head, "count", "rate/s", "p50", "p90", "p99", "p99.9", "max", "errors")
	var clamped int64
	var idle []string
	for _, o := range ops {
		if o.Count == 0 && o.Errors == 0 {
			idle = append(idle, o.Op) // a row of zeros says less than its name
			continue
		}
		l := o.Latency
		line(b, row, opWidth, cut(o.Op, opWidth), compact(o.Count, 9), rate(o.Rate),
			human(l.P50), human(l.P90), human(l.P99), human(l.P999), human(l.Max), compact(o.Errors, 7))
		clamped += o.Clamped
	}
	if len(idle) > 0 {
		for i, l := range wrapWords("not run: "+strings.Join(idle, ", "), lineWidth, lineWidth-2) {
			if i > 0 {
				l = "  " + l
			}
			line(b, "%s", l)
		}
	}
	for _, o := range ops {
		if len(o.ErrorsByKind) == 0 {
			continue
		}
		var kinds []string
		for _, k := range errorKinds(o.ErrorsByKind) {
			kinds = append(kinds, fmt.Sprintf("%s %d", k, o.ErrorsByKind[k]))
		}
		line(b, "errors %s: %s", o.Op, strings.Join(kinds, ", "))
	}
	if clamped > 0 {
		line(b, "clamped %d times outside 1µs..1h to the nearest bound", clamped)
	}
}

// cut shortens s to n runes, marking the cut.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "~"
}

// compact formats n in at most width characters, in k/M/G when it must.
func compact(n int64, width int) string {
	s := fmt.Sprint(n)
	for _, u := range []struct {
		div    float64
		suffix string
	}{{1e3, "k"}, {1e6, "M"}, {1e9, "G"}, {1e12, "T"}} {
		if len(s) <= width {
			break
		}
		s = fmt.Sprintf("%.1f%s", float64(n)/u.div, u.suffix)
	}
	return s
}

func rate(r float64) string {
	if r >= 1e5 {
		return compact(int64(r), 8)
	}
	return fmt.Sprintf("%.1f", r)
}

// human formats a duration given in ms with three significant digits at
// most: 812µs, 12.3ms, 1.20s.
func human(ms float64) string {
	us := ms * 1000
	switch {
	case ms <= 0:
		return "0"
	case us < 999.5:
		return fmt.Sprintf("%.0fµs", us)
	case ms < 9.995:
		return fmt.Sprintf("%.2fms", ms)
	case ms < 99.95:
		return fmt.Sprintf("%.1fms", ms)
	case ms < 999.5:
		return fmt.Sprintf("%.0fms", ms)
	case ms < 9995:
		return fmt.Sprintf("%.2fs", ms/1e3)
	case ms < 59950:
		return fmt.Sprintf("%.1fs", ms/1e3)
	}
	return fmt.Sprintf("%.1fm", ms/6e4)
}

// printListing shows what a listing page cost: the scans it issued and the
// rows they read, per op that pages.
func printListing(b *strings.Builder, ops []OpSummary) {
	first := true
	for _, o := range ops {
		if o.Listing == nil {
			continue
		}
		if first {
			line(b, "listing cost per page   scans   rows read (mean, max)   cells read (mean)")
			first = false
		}
		c := o.Listing
		rows := fmt.Sprintf("%.1f, %d", c.RowsPerPage, c.MaxRows)
		line(b, "  %-*s %7.1f   %-22s %.1f", opWidth, cut(o.Op, opWidth), c.ScansPerPage, rows, c.CellsPerPage)
	}
}

func printPacing(b *strings.Builder, p Pacing) {
	if p.Mode != "open" {
		line(b, "pacing %s loop", orDash(p.Mode))
		return
	}
	at := fmt.Sprintf("at %.1f/s", p.Rate)
	if p.Ramp != "" {
		at = "ramp " + p.Ramp
	}
	line(b, "pacing open loop %s: %s arrivals, %s late, %s unstarted",
		at, compact(p.Arrivals, 9), compact(p.Late, 9), compact(p.Unstarted, 9))
	if p.WarmupDropped > 0 {
		line(b, "  %s warm-up arrivals never started, dropped when the steady phase began", compact(p.WarmupDropped, 9))
	}
	if p.FellBehind {
		line(b, "FELL BEHIND: %.0f%% of arrivals due late or never started (up to %s)",
			100*p.LateShare, human(p.MaxLateMs))
		line(b, "  so latencies include the wait for a free worker")
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func printViolations(b *strings.Builder, vs map[string]*Violation) {
	if len(vs) == 0 {
		line(b, "violations: none")
		return
	}
	line(b, "violations (what the pagers found walking listings):")
	for _, k := range slices.Sorted(maps.Keys(vs)) {
		v := vs[k]
		if v == nil {
			continue
		}
		m := violationMeaning[k]
		line(b, "  %s %d: %s", k, v.Count, m[0])
		if m[1] != "" {
			line(b, "    likely: %s", m[1])
		}
		if len(v.Samples) > 0 {
			line(b, "    e.g. %s", v.Samples[0])
		}
	}
}

// violationMeaning says what each pager finding is, and its likely cause.
var violationMeaning = map[string][2]string{
	"missing":      {"listings came back short of what was acknowledged", "index keys that collide (summed over walks)"},
	"foreign-row":  {"pages held rows of another product or user", "a scan with no stop row ran past its listing"},
	"duplicate":    {"a comment was listed twice in one walk", "a cursor that stepped back"},
	"out-of-order": {"rows came out of listing order", "keys that do not sort newest first"},
	"dangling":     {"index rows pointed at no comment", "a write that stopped between its puts"},
}

// printSpread writes, per table with traffic, its hottest region by share
// and key range, its hottest server on a line of its own, and where its
// writes went; tables with no traffic are named once, as idle.
func printSpread(b *strings.Builder, ts []spread.TableSpread) {
	var idle []string
	for _, t := range ts {
		if t.Requests == 0 {
			idle = append(idle, t.Table)
			continue
		}
		printTable(b, t)
	}
	if len(idle) > 0 {
		line(b, "idle (no requests): %s", strings.Join(idle, ", "))
	}
}

// serverWidth bounds a server's name (HBase's are host:port) so it leaves
// the figures room.
const serverWidth = 24

func printTable(b *strings.Builder, t spread.TableSpread) {
	name := t.Table
	if name == spread.AllTables {
		name = "* (every table with traffic)"
	}
	line(b, "%s  %d regions, %d requests, gini %.2f", name, t.Regions, t.Requests, t.RegionGini)
	if len(t.Hottest) > 0 {
		h := t.Hottest[0]
		head := fmt.Sprintf("  hottest region on %s: %.0f%% of requests, %.1fx the mean, ",
			cut(h.Server, serverWidth), 100*h.Share, h.Share*float64(t.Regions))
		table, label := regionTable(t.Table, h.Name)
		rangeLine(b, head, label, table, h.Range)
	}
	line(b, "  hottest server %s: %.0f%% of requests (ceiling %.1fx; max/mean %.1f)",
		cut(t.HottestServer, serverWidth), 100*t.HottestServerShare, t.Ceiling, t.ServerMaxMean)
	if w := t.HottestWrites; w != nil && t.Table != spread.AllTables {
		rangeLine(b, fmt.Sprintf("  writes: %.0f%% of %d in one region, ", 100*w.Share, t.Writes), "", t.Table, w.Range)
	}
	if u := t.Unsplittable; u != nil {
		line(b, "  unsplittable: one row took %.0f%% of its writes, %s", 100*u.Share, cut(u.Row, 40))
	}
}

// regionTable is the table a region of the spread's table belongs to: the
// table itself, or, on the all-tables line, the one its name says, which
// the line then names (label).
func regionTable(table, region string) (owner, label string) {
	if table != spread.AllTables {
		return table, ""
	}
	if owner = spread.RegionTable(region); owner == "" {
		return "", ""
	}
	return owner, owner + " "
}

// rangeLine ends a line of figures with a key range, so the width never
// cuts the figures. The range stays on their line when it fits there with
// each key down to its leading parts; else it takes a line of its own and
// is cut only past that line's width. label (a table's name, on the
// all-tables line) goes before the range.
func rangeLine(b *strings.Builder, head, label, table, rng string) {
	room := lineWidth - utf8.RuneCountInString(head+label)
	if utf8.RuneCountInString(spread.LeadingRange(table, rng, room)) <= room {
		line(b, "%s%s%s", head, label, spread.ShortRange(table, rng, room))
		return
	}
	line(b, "%s", strings.TrimSuffix(head, ", "))
	room = lineWidth - 4 - utf8.RuneCountInString(label)
	line(b, "    %s%s", label, spread.ShortRange(table, rng, room))
}

func printSLOs(b *strings.Builder, rs []SLOResult) {
	for _, r := range rs {
		verdict := "BREACHED"
		if r.Met {
			verdict = "met"
		}
		why := r.Note
		if why == "" {
			why = r.Metric + " " + formatActual(r)
		}
		tail := fmt.Sprintf("  %s (%s)", verdict, why)
		// Cut the expression rather than the verdict, which matters more.
		room := max(lineWidth-4-utf8.RuneCountInString(tail), 12)
		line(b, "SLO %s%s", cut(r.SLO, room), tail)
	}
}

func formatActual(r SLOResult) string {
	switch r.Unit {
	case "ms":
		return human(r.Actual)
	case "%":
		return fmt.Sprintf("%.2f%%", r.Actual)
	}
	if r.Actual < 100 {
		return fmt.Sprintf("%.3g%s", r.Actual, r.Unit) // slow ops stay visible
	}
	return fmt.Sprintf("%.0f%s", r.Actual, r.Unit)
}

// printServers shows the modeled servers' load, labelled as a model.
func printServers(b *strings.Builder, ss []ServerLoad) {
	if len(ss) == 0 {
		return
	}
	line(b, "region servers (modeled: --server-capacity):")
	for _, s := range ss {
		bar := strings.Repeat("#", int(s.Utilization*20+0.5))
		line(b, "  %-8s %5.0f%% busy  %-20s %d requests", cut(s.Server, 8), 100*s.Utilization, bar, s.Requests)
	}
}
