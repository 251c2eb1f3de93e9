package report

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"commentbench/check"
	"commentbench/results"
)

// strategyRun is a run written with --writes w: its consistency block,
// its post-comment latency, and, with verify, verify's drift.
func strategyRun(tb testing.TB, dir, w string, c results.Consistency, p50 float64, verifyDrift int64) {
	tb.Helper()
	synthRun(tb, dir, 3, "unique", 1)
	editSummary(tb, dir, func(s *results.Summary) {
		c.Writes = w
		s.Consistency = &c
		var cfg map[string]any
		if err := json.Unmarshal(s.Config, &cfg); err != nil {
			tb.Fatal(err)
		}
		cfg["scenario"].(map[string]any)["writes"] = w
		b, err := json.Marshal(cfg)
		if err != nil {
			tb.Fatal(err)
		}
		s.Config = b
		for i, a := range s.Actions {
			if a.Op == "post-comment" {
				s.Actions[i].Latency.P50, s.Actions[i].Count = p50, 1000
			}
		}
	})
	if verifyDrift >= 0 {
		writeVerify(tb, dir, check.Report{Layout: "unique", Consistent: verifyDrift == 0, Verdict: "v",
			Indexes: []check.IndexReport{{Table: "product-comment", Unreferenced: check.Counter{Count: verifyDrift}}}})
	}
}

// Runs that differ in how they wrote are named by it, side by side in
// the consistency table, and said in words: which left drift (verify's
// count where it ran, the run's where it did not) and what the others
// paid for leaving none.
func TestConsistencyComparison(t *testing.T) {
	base := t.TempDir()
	dirs := []string{filepath.Join(base, "na"), filepath.Join(base, "ver"), filepath.Join(base, "tx")}
	strategyRun(t, dirs[0], "non-atomic", results.Consistency{Acked: 1000, Requests: 3000, Bytes: 400_000,
		Left: results.Left{Unreferenced: map[string]int64{"product-comment": 37}}}, 0.5, 37)
	strategyRun(t, dirs[1], "verified", results.Consistency{Acked: 1000, Requests: 5000, Bytes: 500_000,
		Left: results.Left{Unverified: map[string]int64{"product-comment": 4}, Orphans: map[string]int64{"user-comment": 3}}}, 0.75, 0)
	strategyRun(t, dirs[2], "transactional", results.Consistency{Acked: 1000, Requests: 12000, Bytes: 900_000, Conflicts: 12, Retries: 10,
		Left: results.Left{LocksForward: 2, LocksBack: 1}}, 1.5, -1)
	runs, err := LoadAll(dirs, false)
	if err != nil {
		t.Fatalf("runs that differ only in --writes: %v", err)
	}
	if got := []string{runs[0].Label, runs[1].Label, runs[2].Label}; strings.Join(got, ",") != "non-atomic,verified,transactional" {
		t.Errorf("labels %v", got)
	}
	want := "non-atomic left drift (verify found 37 entries out of step with their comments); " +
		"verified left none (7 unfinished writes, set right by readers or verify), paying 1.7× the requests and 1.5× the post-comment p50 of non-atomic; " +
		"transactional left none (3 unfinished writes, set right by readers or verify), paying 4.0× the requests and 3.0× the post-comment p50 of non-atomic, with 12 conflicts."
	if got := ConsistencyWords(runs); got != want {
		t.Errorf("words\n%s\nwant\n%s", got, want)
	}
	rows := consistencyRows(runs)
	if len(rows) != 3 || rows[0].Drift != "37" || rows[0].DriftClass != "critical" || rows[1].Drift != "0" ||
		rows[2].Drift != "0 (run)" || rows[2].Requests != "12.0 (4.0×)" || rows[1].Unfinished != "7" || rows[2].Conflicts != "12 / 10" {
		t.Errorf("rows %+v", rows)
	}
	page, _ := renderPage(t, dirs...)
	table := findOne(page, and(tag("table"), has("class", "consistency")))
	if table == nil {
		t.Fatal("no consistency table")
	}
	if n := len(findAll(table, tag("tr"))); n != 4 {
		t.Fatalf("the consistency table has %d rows, want a header and one per run", n)
	}
	if w := text(findOne(page, has("class", "consistency-words"))); w != want {
		t.Errorf("the page's words %q", w)
	}
	if ConsistencyWords(runs[:1]) != "" {
		t.Error("words for one run")
	}
	same := filepath.Join(base, "na2")
	strategyRun(t, same, "non-atomic", results.Consistency{Acked: 1000, Requests: 3100}, 0.6, -1)
	two, err := LoadAll([]string{dirs[0], same}, false)
	if err != nil {
		t.Fatal(err)
	}
	if w := ConsistencyWords(two); w != "" {
		t.Errorf("words for two runs of one strategy: %q", w)
	}
}
