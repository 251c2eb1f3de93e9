package e2e

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"commentbench/results"
	"commentbench/spread"
)

// consoleRun is one loadgen run the console tests read.
type consoleRun struct {
	name string
	args []string
}

// The console tells the finding, checked against summary.json line by
// line (regions split at run time, so a checked-in copy would not stay
// true): for the seed with its scans, unique, and a hot product, with and
// without split regions, each table's hottest region shows its server,
// share, times the mean and key range as summary.json has them, then the
// hottest server and where the writes went; idle tables are named once;
// no line passes 80 columns; the verdict block lists summary.json's
// findings word for word, in order, in at most six lines.
func TestConsoleTellsTheFinding(t *testing.T) {
	splits := []string{"--regions", "1", "--split-initial", "20000"} // long decoded keys
	runs := []consoleRun{
		{"seed-scans", []string{"--preset", "ci", "--layout", "seed", "--scan", "seed"}},
		{"seed-scans-split", append([]string{"--preset", "ci", "--layout", "seed", "--scan", "seed"}, splits...)},
		{"unique-split", append([]string{"--preset", "ci", "--layout", "unique"}, splits...)},
		{"hot-product", []string{"--scenario", filepath.Join("testdata", "hot-product.yaml"), "--layout", "unique", "--color", "always"}},
	}
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			out, sum := runConsole(t, r)
			if colored := strings.Contains(out, "\x1b["); colored != (r.name == "hot-product") {
				t.Errorf("escape codes %v with %v", colored, r.args)
			}
			plain := stripColor(out)
			checkConsoleWidth(t, plain)
			checkConsoleSpread(t, plain, sum.Spread)
			checkConsoleVerdict(t, plain, sum.Verdict)
			checkConsoleFindings(t, r.name, sum)
		})
	}
}

func runConsole(t *testing.T, r consoleRun) (string, results.Summary) {
	t.Helper()
	dir := t.TempDir()
	args := append(r.args, "--quiet", "--no-report", "--data-dir", filepath.Join(dir, "data"), "--out", filepath.Join(dir, "out"))
	out, errOut, code := run(t, "loadgen", args...)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	sum, err := results.ReadSummary(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	return out, sum
}

// checkConsoleWidth checks the summary's lines, from its header (the run's
// banner before it names paths, the user's own) to the results' path.
func checkConsoleWidth(t *testing.T, out string) {
	t.Helper()
	_, summary, ok := strings.Cut(out, "\ncommentbench loadgen: ")
	if !ok {
		t.Fatalf("no summary header:\n%s", out)
	}
	for _, l := range strings.Split(summary, "\n") {
		if strings.HasPrefix(l, "results in ") {
			break
		}
		if n := utf8.RuneCountInString(l); n > 80 {
			t.Errorf("%d columns: %q", n, l)
		}
	}
}

var (
	hottestRe = regexp.MustCompile(`^  hottest region on (\S+): (\d+)% of requests, ([\d.]+)x the mean(?:, (.*))?$`)
	writesRe  = regexp.MustCompile(`^  writes: (\d+)% of (\d+) in one region, (.*)$`)
)

// checkConsoleSpread reads the console's spread section table by table and
// rebuilds each line from summary.json.
func checkConsoleSpread(t *testing.T, out string, ts []spread.TableSpread) {
	t.Helper()
	lines := strings.Split(out, "\n")
	at := 0
	var idle []string
	for _, s := range ts {
		if s.Requests == 0 {
			idle = append(idle, s.Table)
			continue
		}
		name := s.Table
		if name == spread.AllTables {
			name = "* (every table with traffic)"
		}
		head := fmt.Sprintf("%s  %d regions, %d requests, gini %.2f", name, s.Regions, s.Requests, s.RegionGini)
		i := indexFrom(lines, at, head)
		if i < 0 {
			t.Errorf("no line %q after line %d:\n%s", head, at, out)
			return
		}
		at = checkConsoleTable(t, lines, i+1, s)
	}
	if want := "idle (no requests): " + strings.Join(idle, ", "); len(idle) > 0 && indexFrom(lines, at, want) < 0 {
		t.Errorf("no line %q after the tables:\n%s", want, out)
	}
}

// checkConsoleTable checks a table's lines from i, returning the line after them.
func checkConsoleTable(t *testing.T, lines []string, i int, s spread.TableSpread) int {
	t.Helper()
	h := s.Hottest[0]
	m := hottestRe.FindStringSubmatch(lines[i])
	if m == nil {
		t.Errorf("%s: %q is not the hottest region's line", s.Table, lines[i])
		return i
	}
	i++
	shown := m[4]
	if shown == "" { // the range on a line of its own
		shown, i = strings.TrimPrefix(lines[i], "    "), i+1
	}
	if got, want := m[1:4], []string{h.Server, fmt.Sprintf("%.0f", 100*h.Share), fmt.Sprintf("%.1f", h.Share*float64(s.Regions))}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("%s: hottest region on %s, %s%%, %sx the mean; summary.json says %v", s.Table, got[0], got[1], got[2], want)
	}
	table := s.Table
	if table == spread.AllTables {
		table = spread.RegionTable(h.Name)
		label, rest, _ := strings.Cut(shown, " ")
		if label != table {
			t.Errorf("*: hottest region's table %q, summary.json's region is %s", label, h.Name)
		}
		shown = rest
	}
	checkConsoleRange(t, s.Table, table, shown, h.Range)
	server := fmt.Sprintf("  hottest server %s: %.0f%% of requests (ceiling %.1fx; max/mean %.1f)",
		s.HottestServer, 100*s.HottestServerShare, s.Ceiling, s.ServerMaxMean)
	if lines[i] != server {
		t.Errorf("%s: %q, want %q", s.Table, lines[i], server)
	}
	i++
	if w := s.HottestWrites; w != nil && s.Table != spread.AllTables {
		m := writesRe.FindStringSubmatch(lines[i])
		if m == nil || m[1] != fmt.Sprintf("%.0f", 100*w.Share) || m[2] != fmt.Sprint(s.Writes) {
			t.Errorf("%s: %q, want %.0f%% of %d writes", s.Table, lines[i], 100*w.Share, s.Writes)
		} else {
			checkConsoleRange(t, s.Table, table, m[3], w.Range)
		}
		i++
	}
	return i
}

// checkConsoleRange: the console shows summary.json's range whole, its keys
// without their table's name, or each key's beginning marked with "…".
func checkConsoleRange(t *testing.T, what, table, shown, full string) {
	t.Helper()
	fs, fe, ok := spread.SplitRange(full)
	ss, se, ok2 := spread.SplitRange(shown)
	if !ok || !ok2 {
		t.Errorf("%s: range %q shown as %q, cut or garbled", what, full, shown)
		return
	}
	for _, k := range [][2]string{{fs, ss}, {fe, se}} {
		key := k[0]
		if in, ok := strings.CutPrefix(key, table+"["); ok {
			key = strings.TrimSuffix(in, "]")
		}
		cut, short := strings.CutSuffix(k[1], spread.Ellipsis)
		if short && !strings.HasPrefix(key, cut) || !short && key != k[1] {
			t.Errorf("%s: range %q shown as %q: %q is not key %q", what, full, shown, k[1], key)
		}
	}
}

func indexFrom(lines []string, from int, want string) int {
	for i := from; i < len(lines); i++ {
		if lines[i] == want {
			return i
		}
	}
	return -1
}

// checkConsoleVerdict: the console's block is summary.json's verdict, finding by
// finding in order, each its severity's word and its whole message.
func checkConsoleVerdict(t *testing.T, out string, v []results.Finding) {
	t.Helper()
	if len(v) == 0 {
		if !strings.Contains(out, "\nverdict: nothing wrong found\n") {
			t.Errorf("no verdict line:\n%s", out)
		}
		return
	}
	_, after, _ := strings.Cut(out, "\nverdict:\n")
	var block, findings []string
	for _, l := range strings.Split(after, "\n") {
		if !strings.HasPrefix(l, "  ") {
			break
		}
		block = append(block, l)
		if strings.HasPrefix(l, "   ") && len(findings) > 0 { // a finding wrapped on
			findings[len(findings)-1] += " " + strings.TrimSpace(l)
		} else {
			findings = append(findings, strings.TrimSpace(l))
		}
	}
	if len(block) > results.MaxVerdict {
		t.Errorf("verdict of %d lines:\n%s", len(block), strings.Join(block, "\n"))
	}
	var want []string
	for _, f := range v {
		want = append(want, strings.ToUpper(f.Severity)+" "+f.Message)
	}
	if strings.Join(findings, "\n") != strings.Join(want, "\n") {
		t.Errorf("console verdict\n%s\nsummary.json's\n%s", strings.Join(findings, "\n"), strings.Join(want, "\n"))
	}
}

// checkConsoleFindings: what each run must be told.
func checkConsoleFindings(t *testing.T, name string, sum results.Summary) {
	t.Helper()
	v := sum.Verdict
	var kinds []string
	for _, f := range v {
		kinds = append(kinds, f.Kind)
	}
	want := map[string]string{
		"seed-scans": "collided scan cure", "seed-scans-split": "collided scan cure",
		"unique-split": "", // one region of two taking half is no hotspot
		"hot-product":  "hotspot cure",
	}[name]
	// unique-split's tables split as the run goes, when the machine gets
	// to it: a region that kept half the writes while its table had
	// four regions for a while took twice its fair share. The verdict
	// must then say so, as the figures beside it do.
	if name == "unique-split" && hotByRule(sum.Spread) {
		want = "hotspot cure"
	}
	if got := strings.Join(kinds, " "); got != want {
		t.Errorf("verdict kinds %q, want %q: %+v", got, want, v)
	}
	if strings.HasPrefix(name, "seed-scans") && (!strings.Contains(v[1].Message, "rows a page, needs 11") || v[2].Message != "--layout unique · --scan bounded") {
		t.Errorf("seed scans: %+v", v)
	}
	if name == "hot-product" && !strings.HasPrefix(v[0].Message, "product-comment: ") {
		t.Errorf("hot product: %+v, want the product listing's hotspot", v)
	}
}

func stripColor(s string) string {
	return regexp.MustCompile("\x1b\\[[0-9;]*m").ReplaceAllString(s, "")
}

// hotByRule says whether a table's hottest region took at least
// results.HotShare of its writes and results.HotOverFair times its fair
// share, as the spread recorded them.
func hotByRule(ts []spread.TableSpread) bool {
	for _, t := range ts {
		w := t.HottestWrites
		if t.Table == spread.AllTables || w == nil {
			continue
		}
		fair := w.Fair
		if fair == 0 {
			fair = 1 / float64(t.Regions)
		}
		if w.Share >= results.HotShare && w.Share >= results.HotOverFair*fair {
			return true
		}
	}
	return false
}
