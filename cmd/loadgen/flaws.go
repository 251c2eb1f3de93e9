package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"commentbench/check"
	"commentbench/results"
)

// flaws prints the seed's four flaws, one line each, across runs (the seed
// then the fixed design, say): what a person reads in five seconds. Where
// verify wrote its report into a run (verify --out), its counts of
// collided comments and stale ranks are the ones shown.
func flaws(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		fmt.Fprintln(stderr, "usage: loadgen flaws RUN_DIR... (the seed's run first, then the runs to compare)")
		return 2
	}
	var runs []flawRun
	for _, dir := range args {
		r, err := readFlawRun(dir)
		if err != nil {
			return fail(stderr, fmt.Errorf("flaws: %w", err))
		}
		runs = append(runs, r)
	}
	for _, l := range flawLines(runs) {
		fmt.Fprintln(stdout, l)
	}
	return 0
}

type flawRun struct {
	label                string
	collided, stale      int64
	rowsPerPage, hottest float64
}

func readFlawRun(dir string) (flawRun, error) {
	sum, err := results.ReadSummary(dir)
	if err != nil {
		return flawRun{}, err
	}
	if sum.Flaws == nil {
		return flawRun{}, fmt.Errorf("%s: its summary has no flaws (written by an older loadgen)", dir)
	}
	f := sum.Flaws
	r := flawRun{label: runLabel(sum), collided: f.CollidedTotal, stale: f.StaleRanks, rowsPerPage: f.RowsPerPage}
	if f.HottestListingRegion != nil {
		r.hottest = f.HottestListingRegion.Share
	}
	rep, found, err := check.ReadReport(dir)
	if err != nil {
		return r, fmt.Errorf("%s: %w", dir, err)
	}
	if found {
		r.collided, r.stale = rep.CollidedTotal(), rep.Ranks.Stale.Count
	}
	return r, nil
}

// runLabel is the run's system (seed or fixed), else its key design.
func runLabel(s results.Summary) string {
	var c struct {
		Scenario struct{ System, Layout string } `json:"scenario"`
	}
	_ = json.Unmarshal(s.Config, &c) // a label is all it gives
	if c.Scenario.System != "" {
		return c.Scenario.System
	}
	return c.Scenario.Layout
}

func flawLines(runs []flawRun) []string {
	each := func(f func(flawRun) string) string {
		parts := make([]string, len(runs))
		for i, r := range runs {
			parts[i] = r.label + " " + f(r)
		}
		return strings.Join(parts, " · ")
	}
	lines := []string{
		"collided comments: " + each(func(r flawRun) string { return thousands(r.collided) + " hidden" }),
		"rows read per page: " + each(func(r flawRun) string { return thousands(int64(r.rowsPerPage + 0.5)) }),
		"hottest product-listing region: " + each(func(r flawRun) string { return fmt.Sprintf("%.0f%%", 100*r.hottest) }),
		"stale ranks: " + each(func(r flawRun) string { return thousands(r.stale) }),
	}
	if last := runs[len(runs)-1]; len(runs) > 1 && last.hottest >= 0.5*runs[0].hottest && runs[0].hottest > 0 {
		lines[2] += " (a hot product stays hot without salting: see --layout salted)"
	}
	return lines
}

// thousands writes n with commas: 2,096.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		return "-" + s
	}
	return s
}
