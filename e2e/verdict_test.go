package e2e

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"commentbench/results"
	"commentbench/spread"
)

// A run with five hot tables: sequential ids on a time-led design send
// every table's writes to its last region. The verdict names all five, in
// one line, beside the figures it comes from.
func TestVerdictFiveHotTables(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	stdout, errOut, code := run(t, "loadgen", "--preset", "ci", "--ids", "sequential", "--layout", "time-led", "--ops", "0",
		"--duration", "3s", "--warmup", "0", "--data-dir", filepath.Join(dir, "data"), "--out", out, "--no-report")
	if code != 0 {
		t.Fatalf("loadgen: exit %d\n%s%s", code, stdout, errOut)
	}
	sum, err := results.ReadSummary(out)
	if err != nil {
		t.Fatal(err)
	}
	assertVerdictRebuilt(t, "five hot tables", sum, stdout)
	if !strings.Contains(stdout, "5 tables send their writes to one region") {
		t.Errorf("the verdict does not name the five hot tables:\n%s", stdout)
	}
}

// assertVerdictRebuilt builds the verdict the summary's own figures call
// for, by the rules the README states, and checks it is the run's, line
// for line, and that the console says "nothing wrong" only when it is
// empty.
func assertVerdictRebuilt(t *testing.T, name string, s results.Summary, console string) {
	t.Helper()
	want := rebuildVerdict(s)
	var got []string
	for _, f := range s.Verdict {
		got = append(got, f.Severity+": "+f.Message)
	}
	same := len(got) == len(want)
	for i := 0; same && i < len(got); i++ {
		// A hot table's line ends in its region's key range, shortened
		// to fit: the rebuild gives what comes before it.
		same = got[i] == want[i] || strings.HasSuffix(want[i], ", ") && strings.HasPrefix(got[i], want[i])
	}
	if !same {
		t.Errorf("%s: verdict\n  %s\nwant, from the summary's figures\n  %s", name, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	if nothing := strings.Contains(console, "verdict: nothing wrong found"); nothing != (len(want) == 0) {
		t.Errorf("%s: the console says nothing wrong: %v, with %d findings", name, nothing, len(want))
	}
}

// rebuildVerdict is the verdict of a run with no SLOs and a page size of
// 10, from its summary: collisions (or short listings), dangling rows,
// scans past their range, hot tables, stale ranks, a run that fell
// behind, then their cures.
func rebuildVerdict(s results.Summary) []string {
	var crit, warn, cures []string
	cure := func(c string) {
		for _, c := range strings.Split(c, " · ") {
			if c != "" && !slices.Contains(cures, c) {
				cures = append(cures, c)
			}
		}
	}
	violation := func(kind string) int64 {
		if v := s.Violations[kind]; v != nil {
			return v.Count
		}
		return 0
	}
	if f := s.Flaws; f != nil && f.CollidedTotal > 0 {
		crit = append(crit, fmt.Sprintf("%d comments hidden by colliding index keys (verify --run confirms)", f.CollidedTotal))
		cure("--layout unique")
	} else if n := violation("missing"); n > 0 {
		crit = append(crit, fmt.Sprintf("listings came back %d comments short of what was acknowledged", n))
	}
	if n := violation("dangling"); n > 0 {
		crit = append(crit, fmt.Sprintf("%d listed index rows point at no comment", n))
	}
	warn = append(warn, rebuildScans(s, cure)...)
	warn = append(warn, rebuildHot(s, cure)...)
	if f := s.Flaws; f != nil && f.StaleRanks > 0 {
		warn = append(warn, fmt.Sprintf("%d stale rank rows: comments ranked twice in one ranking", f.StaleRanks))
		cure("--ranks replace")
	}
	if p := s.Pacing; p.FellBehind {
		warn = append(warn, fmt.Sprintf("the run fell behind: %.0f%% of arrivals late, %d never started", 100*p.LateShare, p.Unstarted))
		cure("a lower --rate")
	}
	var out []string
	for _, m := range crit {
		out = append(out, results.Critical+": "+m)
	}
	for _, m := range warn {
		out = append(out, results.Warning+": "+m)
	}
	if len(cures) > 0 {
		out = append(out, results.Hint+": "+strings.Join(cures, " · "))
	}
	return out
}

func rebuildScans(s results.Summary, cure func(string)) []string {
	var worst *results.OpSummary
	var need, over float64
	for i, o := range s.Ops {
		if c := o.Listing; c != nil && c.ScansPerPage > 0 {
			n := c.ScansPerPage * 11
			if r := c.RowsPerPage / n; r > 1 && r > over {
				worst, need, over = &s.Ops[i], n, r
			}
		}
	}
	if worst == nil {
		return nil
	}
	if !strings.Contains(string(s.Config), `"scan":"bounded"`) {
		cure("--scan bounded")
	}
	return []string{fmt.Sprintf("scans leave their range: %s reads %.0f rows a page, needs %.0f", worst.Op, worst.Listing.RowsPerPage, need)}
}

// rebuildHot: a table whose hottest region took a quarter of its writes
// and twice an even spread's share; more than two share one line.
func rebuildHot(s results.Summary, cure func(string)) []string {
	var hot []spread.TableSpread
	for _, t := range s.Spread {
		w := t.HottestWrites
		if t.Table != spread.AllTables && w != nil && w.Share >= 0.25 && w.Share >= 2*w.Fair {
			hot = append(hot, t)
		}
	}
	slices.SortStableFunc(hot, func(a, b spread.TableSpread) int {
		switch {
		case a.HottestWrites.Share > b.HottestWrites.Share:
			return -1
		case a.HottestWrites.Share < b.HottestWrites.Share:
			return 1
		}
		return 0
	})
	cureOf := func(t spread.TableSpread) string {
		if t.Unsplittable != nil || t.Table == s.StoreOf(results.ListingTable) || t.Table == s.StoreOf("user-comment") {
			return "--layout salted"
		}
		return "--layout hashed"
	}
	if len(hot) > 2 {
		var parts []string
		for _, t := range hot {
			parts = append(parts, fmt.Sprintf("%s %.0f%%", t.Table, 100*t.HottestWrites.Share))
			cure(cureOf(t))
		}
		return []string{fmt.Sprintf("%d tables send their writes to one region: %s", len(hot), strings.Join(parts, ", "))}
	}
	var out []string
	for _, t := range hot {
		cure(cureOf(t))
		out = append(out, fmt.Sprintf("%s: %.0f%% of writes to one region, ", t.Table, 100*t.HottestWrites.Share))
	}
	return out
}
