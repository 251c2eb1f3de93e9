package results

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"commentbench/spread"
)

// Severities of a finding, worst first.
const (
	Critical = "critical" // data lost or hidden, an SLO breached
	Warning  = "warning"  // a cost or a hotspot that will hurt at scale
	Hint     = "try"      // what the harness knows cures what it found
)

// Finding is one line of a run's verdict: what is wrong, where, how much.
type Finding struct {
	Kind     string  `json:"kind"`
	Severity string  `json:"severity"`
	Figure   float64 `json:"figure"`
	Message  string  `json:"message"`
}

// MaxVerdict is how many lines a verdict holds: what a person reads first,
// and often all a CI log keeps.
const MaxVerdict = 8

// Judge fills the summary's verdict from what it holds (flaws, violations,
// listing cost, spread, SLOs, pacing), worst first and cures last, in at
// most MaxVerdict console lines. pageSize is the run's listing page size.
func (s *Summary) Judge(pageSize int) {
	var j judgement
	j.lost(s)
	j.stale(s)
	if s.Capacity == nil { // a ramp or a search breaks its SLOs and falls behind on purpose: its answer is the knee
		j.slos(s.SLOs)
	}
	j.scans(s, pageSize)
	j.hotspots(s)
	if p := s.Pacing; p.FellBehind && s.Capacity == nil {
		j.add("behind", Warning, "a lower --rate", p.LateShare,
			"the run fell behind: %.0f%% of arrivals late, %d never started", 100*p.LateShare, p.Unstarted)
	}
	s.Verdict = j.ranked()
}

// judgement gathers findings, each with the cure the harness knows for it.
type judgement struct{ found []candidate }

type candidate struct {
	Finding
	cure string
}

func (j *judgement) add(kind, sev, cure string, fig float64, format string, a ...any) {
	f := Finding{Kind: kind, Severity: sev, Figure: fig, Message: fmt.Sprintf(format, a...)}
	j.found = append(j.found, candidate{f, cure})
}

func (j *judgement) lost(s *Summary) {
	switch f := s.Flaws; {
	case f != nil && f.CollidedTotal > 0:
		j.add("collided", Critical, "--layout unique", float64(f.CollidedTotal),
			"%d comments hidden by colliding index keys (verify --run confirms)", f.CollidedTotal)
	case s.violation("missing") > 0:
		n := s.violation("missing")
		j.add("hidden", Critical, "", float64(n), "listings came back %d comments short of what was acknowledged", n)
	}
	if n := s.violation("dangling"); n > 0 {
		j.add("dangling", Critical, "", float64(n), "%d listed index rows point at no comment", n)
	}
}

// stale finds rank rows a shorter ranking upserted over a longer one left
// behind, ranking a comment twice.
func (j *judgement) stale(s *Summary) {
	if f := s.Flaws; f != nil && f.StaleRanks > 0 {
		j.add("stale", Warning, "--ranks replace", float64(f.StaleRanks),
			"%d stale rank rows: comments ranked twice in one ranking", f.StaleRanks)
	}
}

func (j *judgement) slos(rs []SLOResult) {
	for _, r := range rs {
		if r.Met {
			continue
		}
		tail := fmt.Sprintf(" breached (%s)", formatActual(r))
		room := max(messageWidth(Critical)-len("SLO ")-utf8.RuneCountInString(tail), 12)
		j.add("slo", Critical, "", r.Actual, "SLO %s%s", cut(r.SLO, room), tail)
	}
}

// scans finds listing pages that read past their scans' range. A bounded
// scan reads at most a page and the row that tells a next page exists, so
// a page may read scans × (page size + 1) rows: a design that fans a page
// out over salt buckets reads more rows, legitimately.
func (j *judgement) scans(s *Summary, pageSize int) {
	cure := "--scan bounded"
	if s.scanMode() == "bounded" {
		cure = "" // already bounded: the harness knows no cure
	}
	if o, need := worstListing(s.Ops, pageSize); o != nil {
		j.add("scan", Warning, cure, o.Listing.RowsPerPage, "scans leave their range: %s reads %.0f rows a page, needs %.0f",
			o.Op, o.Listing.RowsPerPage, need)
	} else if n := s.violation("foreign-row"); n > 0 {
		j.add("scan", Warning, cure, float64(n), "%d rows of other listings came back in pages", n)
	}
}

// worstListing is the op whose pages read most past what their scans
// need, and that need; nil when every op's pages stay within it.
func worstListing(ops []OpSummary, pageSize int) (*OpSummary, float64) {
	var worst *OpSummary
	var need, over float64
	for i, o := range ops {
		c := o.Listing
		if c == nil || c.ScansPerPage <= 0 {
			continue
		}
		n := c.ScansPerPage * float64(pageSize+1)
		if r := c.RowsPerPage / n; r > 1 && r > over {
			worst, need, over = &ops[i], n, r
		}
	}
	return worst, need
}

// scanMode is the run's --scan as its configuration records it, "" when
// it does not say.
func (s *Summary) scanMode() string { return s.scenario().Scan }

// runScenario is what the verdict and the console read of the run's
// configuration.
type runScenario struct {
	Layout string `json:"layout"`
	Scan   string `json:"scan"`
	Ranks  string `json:"ranks"`
}

func (s *Summary) scenario() runScenario {
	var c struct {
		Scenario runScenario `json:"scenario"`
	}
	_ = json.Unmarshal(s.Config, &c) // a summary without one says nothing of it
	return c.Scenario
}

// system names the system that ran as the run's first line does: "design
// seed, bounded scans, ranks replace".
func (s *Summary) system() string {
	c := s.scenario()
	return fmt.Sprintf("design %s, %s scans, ranks %s", orDash(c.Layout), orDash(c.Scan), orDash(c.Ranks))
}

func (j *judgement) hotspots(s *Summary) {
	hot := hotspots(s.Spread)
	if len(hot) > maxHotLines {
		j.manyHotspots(s, hot)
		return
	}
	for _, t := range hot {
		w := t.HottestWrites
		head := fmt.Sprintf("%s: %.0f%% of writes to one region, ", t.Table, 100*w.Share)
		if u := t.Unsplittable; u != nil {
			head = fmt.Sprintf("%s: %.0f%% of writes to one region, %.0f%% of those to one row no split divides, ", t.Table, 100*w.Share, 100*u.Share)
		}
		room := messageWidth(Warning) - utf8.RuneCountInString(head)
		j.add("hotspot", Warning, hotCure(s, t), w.Share, "%s%s", head, spread.ShortRange(t.Table, w.Range, max(room, minRange)))
	}
}

// maxHotLines is how many hot tables the verdict names a line each; more
// share one line.
const maxHotLines = 2

// manyHotspots says every hot table in one line, hottest first.
func (j *judgement) manyHotspots(s *Summary, hot []spread.TableSpread) {
	var parts, cures []string
	for _, t := range hot {
		parts = append(parts, fmt.Sprintf("%s %.0f%%", t.Table, 100*t.HottestWrites.Share))
		if c := hotCure(s, t); !slices.Contains(cures, c) {
			cures = append(cures, c)
		}
	}
	j.add("hotspot", Warning, strings.Join(cures, " · "), hot[0].HottestWrites.Share,
		"%d tables send their writes to one region: %s", len(hot), strings.Join(parts, ", "))
}

// hotCure is what spreads a hot table's writes: a hash of an entity's key,
// a salt of a listing's (which a hash would not split), and a row no split
// divides only by a listing kept tall and salted.
func hotCure(s *Summary, t spread.TableSpread) string {
	if t.Unsplittable != nil || t.Table == s.StoreOf(ListingTable) || t.Table == s.StoreOf("user-comment") {
		return "--layout salted"
	}
	return "--layout hashed"
}

// minRange is the fewest columns a hotspot's message gives its key range,
// however long the table's name.
const minRange = 16

// ranked orders the findings by severity, then kind, and keeps what fits
// in MaxVerdict lines: every critical finding before anything lesser, and
// a lesser one only with room left for the cures of all that is kept.
func (j *judgement) ranked() []Finding {
	slices.SortStableFunc(j.found, func(a, b candidate) int {
		return cmp.Or(severityRank(a.Severity)-severityRank(b.Severity), rank(a.Kind)-rank(b.Kind))
	})
	room := MaxVerdict
	var kept []candidate
	for _, f := range j.found {
		n := len(verdictLines(f.Finding))
		need := n
		if f.Severity != Critical {
			need += cureLines(append(slices.Clip(kept), f))
		}
		if need <= room {
			kept, room = append(kept, f), room-n
		}
	}
	out := make([]Finding, 0, len(kept)+1)
	for _, f := range kept {
		out = append(out, f.Finding)
	}
	if c := cureOf(kept); c.Message != "" && cureLines(kept) <= room {
		out = append(out, c)
	}
	return out
}

func cureLines(fs []candidate) int {
	c := cureOf(fs)
	if c.Message == "" {
		return 0
	}
	return len(verdictLines(c))
}

// cureOf is the line of cures for the findings, in their order.
func cureOf(fs []candidate) Finding {
	var cures []string
	for _, f := range fs {
		if f.cure != "" && !slices.Contains(cures, f.cure) {
			cures = append(cures, f.cure)
		}
	}
	return Finding{Kind: "cure", Severity: Hint, Message: strings.Join(cures, " · ")}
}

func severityRank(sev string) int { return slices.Index([]string{Critical, Warning, Hint}, sev) }

// kindOrder ranks findings of one severity: data lost or hidden first,
// then scans that leave their range, hotspots, SLO breaches, a run that
// fell behind.
var kindOrder = []string{"collided", "hidden", "dangling", "scan", "hotspot", "stale", "slo", "behind"}

func rank(kind string) int { return slices.Index(kindOrder, kind) }

func (s *Summary) violation(kind string) int64 {
	if v := s.Violations[kind]; v != nil {
		return v.Count
	}
	return 0
}

// hotspots are the tables one region of which took at least a quarter of
// the writes and twice its fair share or more (half of two regions' writes
// is an even spread), worst first.
func hotspots(ts []spread.TableSpread) []spread.TableSpread {
	var out []spread.TableSpread
	for _, t := range ts {
		if hotTable(t) {
			out = append(out, t)
		}
	}
	slices.SortStableFunc(out, func(a, b spread.TableSpread) int {
		return cmp.Compare(b.HottestWrites.Share, a.HottestWrites.Share)
	})
	return out
}

// HotShare and HotOverFair are the rule a table's hottest region breaks:
// it took HotShare of the table's writes or more, and HotOverFair times
// what an even spread would give it.
const (
	HotShare    = 0.25
	HotOverFair = 2
)

func hotTable(t spread.TableSpread) bool {
	w := t.HottestWrites
	return t.Table != spread.AllTables && w != nil && w.Share >= HotShare && w.Share >= HotOverFair*fairShare(t)
}

// fairShare is what the hottest writes' region would take of an even
// spread: over the regions of each interval, or, in a summary written
// before that was kept, over all the table's regions.
func fairShare(t spread.TableSpread) float64 {
	if f := t.HottestWrites.Fair; f > 0 {
		return f
	}
	return 1 / float64(t.Regions)
}

// Painter marks severities on the console: a word always, colour when asked
// (a terminal, no NO_COLOR), never colour alone.
type Painter struct{ Color bool }

const (
	red    = "\x1b[31m"
	yellow = "\x1b[33m"
	cyan   = "\x1b[36m"
	reset  = "\x1b[0m"
)

// Word is the severity as the console shows it.
func (p Painter) Word(sev string) string {
	word := strings.ToUpper(sev)
	if !p.Color {
		return word
	}
	c := map[string]string{Critical: red, Warning: yellow, Hint: cyan}[sev]
	return c + word + reset
}

func printVerdict(b *strings.Builder, v []Finding, p Painter) {
	if len(v) == 0 {
		line(b, "verdict: nothing wrong found")
		return
	}
	line(b, "verdict:")
	for _, f := range v {
		// The colour's escapes take no columns, so the word is measured
		// bare.
		pad := strings.Repeat(" ", len(f.Severity)+3)
		for i, l := range verdictLines(f) {
			if i == 0 {
				b.WriteString("  " + p.Word(f.Severity) + " " + l + "\n")
			} else {
				b.WriteString(pad + l + "\n")
			}
		}
	}
}

// verdictLines is a finding's message wrapped, not cut (the verdict is what
// a person reads), after its severity word and then under the message.
func verdictLines(f Finding) []string {
	w := messageWidth(f.Severity)
	return wrapWords(f.Message, w, w-1)
}

// messageWidth is the columns a finding's first line leaves its message:
// two of indent, the severity word and a space.
func messageWidth(sev string) int { return lineWidth - 3 - len(sev) }

// wrapWords folds text into lines of at most first columns, then rest.
func wrapWords(text string, first, rest int) []string {
	var out []string
	cur, width := "", first
	for _, w := range strings.Fields(text) {
		if cur != "" && utf8.RuneCountInString(cur)+1+utf8.RuneCountInString(w) > width {
			out, cur, width = append(out, cur), "", rest
		}
		if cur != "" {
			cur += " "
		}
		cur += w
	}
	return append(out, cur)
}

// ColorModes are the values of --color.
var ColorModes = []string{"auto", "always", "never"}

// UseColor decides --color: always, never, or auto (a terminal, and no
// NO_COLOR in the environment, as no-color.org asks).
func UseColor(mode string, terminal bool, noColor string) (bool, error) {
	switch mode {
	case "always":
		return true, nil
	case "never":
		return false, nil
	case "auto":
		return terminal && noColor == "", nil
	}
	return false, fmt.Errorf("--color %q: want one of %s", mode, strings.Join(ColorModes, ", "))
}
