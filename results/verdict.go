package results

import (
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
const MaxVerdict = 6

// Judge fills the summary's verdict from what it holds (flaws, violations,
// spread, SLOs, pacing), ranked by severity, cures last. pageSize is the
// run's listing page size: a page that reads more than one row past it has
// left its range.
func (s *Summary) Judge(pageSize int) {
	var found []Finding
	add := func(kind, sev string, fig float64, format string, a ...any) {
		found = append(found, Finding{Kind: kind, Severity: sev, Figure: fig, Message: fmt.Sprintf(format, a...)})
	}
	var cures []string
	f := s.Flaws
	switch {
	case f != nil && f.CollidedTotal > 0:
		add("lost", Critical, float64(f.CollidedTotal), "%d comments lost to colliding index keys (verify --run confirms)", f.CollidedTotal)
		cures = append(cures, "--layout unique")
	case s.violation("missing") > 0:
		add("hidden", Critical, float64(s.violation("missing")), "listings came back %d comments short of what was acknowledged", s.violation("missing"))
	}
	if n := s.violation("dangling"); n > 0 {
		add("dangling", Critical, float64(n), "%d listed index rows point at no comment", n)
	}
	for _, r := range s.SLOs {
		if !r.Met {
			add("slo", Critical, r.Actual, "SLO %s breached (%s)", r.SLO, formatActual(r))
		}
	}
	if f != nil && f.RowsPerPage > float64(pageSize+1) {
		add("scan", Warning, f.RowsPerPage, "listing pages read %.0f rows each for %d shown: scans leave their range", f.RowsPerPage, pageSize)
		cures = append(cures, "--scan bounded")
	} else if n := s.violation("foreign-row"); n > 0 {
		add("scan", Warning, float64(n), "%d rows of other listings came back in pages", n)
	}
	for _, t := range hotspots(s.Spread) {
		w := t.HottestWrites
		add("hotspot", Warning, w.Share, "%s: region %s took %.0f%% of its writes", t.Table, w.Range, 100*w.Share)
		if t.Table == ListingTable || t.Table == "user-comment" {
			cures = append(cures, "--layout salted")
		} else {
			cures = append(cures, "--layout hashed")
		}
	}
	if s.Pacing.FellBehind {
		add("behind", Warning, s.Pacing.LateShare, "the run fell behind: %.0f%% of arrivals late, %d never started", 100*s.Pacing.LateShare, s.Pacing.Unstarted)
		cures = append(cures, "a lower --rate")
	}
	slices.SortStableFunc(found, func(a, b Finding) int { return rank(a.Kind) - rank(b.Kind) })
	if len(cures) > 0 {
		found = append(found[:min(len(found), MaxVerdict-1)], Finding{Kind: "cure", Severity: Hint,
			Message: strings.Join(slices.Compact(cures), " · ")})
	}
	s.Verdict = found[:min(len(found), MaxVerdict)]
}

// kindOrder ranks findings: data lost or hidden first, then scans that
// leave their range, hotspots, SLO breaches, a run that fell behind.
var kindOrder = []string{"lost", "hidden", "dangling", "scan", "hotspot", "slo", "behind"}

func rank(kind string) int { return slices.Index(kindOrder, kind) }

func (s *Summary) violation(kind string) int64 {
	if v := s.Violations[kind]; v != nil {
		return v.Count
	}
	return 0
}

// hotspots are the tables one region of which took at least half the
// writes while the table has several regions, worst first, at most two.
func hotspots(ts []spread.TableSpread) []spread.TableSpread {
	var out []spread.TableSpread
	for _, t := range ts {
		if t.Table != spread.AllTables && t.Regions > 1 && t.HottestWrites != nil && t.HottestWrites.Share >= 0.5 {
			out = append(out, t)
		}
	}
	slices.SortStableFunc(out, func(a, b spread.TableSpread) int {
		switch {
		case a.HottestWrites.Share > b.HottestWrites.Share:
			return -1
		case a.HottestWrites.Share < b.HottestWrites.Share:
			return 1
		}
		return 0
	})
	return out[:min(len(out), 2)]
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
		// Wrapped, not cut: the verdict is what a person reads. The
		// colour's escapes take no columns, so the word is measured bare.
		word := strings.ToUpper(f.Severity)
		text := wrapWords(f.Message, lineWidth-3-len(word), lineWidth-4-len(word))
		pad := strings.Repeat(" ", len(word)+3)
		for i, l := range text {
			if i == 0 {
				b.WriteString("  " + p.Word(f.Severity) + " " + l + "\n")
			} else {
				b.WriteString(pad + l + "\n")
			}
		}
	}
}

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
