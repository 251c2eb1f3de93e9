package main

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"commentbench/keys"
	"commentbench/results"
	"commentbench/workload"
)

// merge combines the summaries of several processes that loaded one
// cluster (--worker-index) into one, histograms merged exactly.
func merge(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("loadgen merge", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	o := &options{}
	fs.StringVar(&o.out, "out", "", "directory for the merged results (default results/merged-<timestamp>)")
	sloExprs := fs.StringArray("slo", nil, "service level check on the merged results, repeatable")
	force := fs.Bool("force", false, "merge runs of different scenarios or key designs all the same")
	partial := fs.Bool("partial", false, "merge a fleet's members although some are missing or were lost mid-run")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "loadgen merge: %v\n", err)
		return 2
	}
	if fs.NArg() == 0 {
		return fail(stderr, fmt.Errorf("merge: give the run directories to merge"))
	}
	if o.out == "" {
		o.out = "results/merged-" + time.Now().Format("20060102-150405")
	}
	if err := o.checkOut(); err != nil {
		return fail(stderr, err)
	}
	var sums []results.Summary
	for _, dir := range fs.Args() {
		s, err := results.ReadSummary(dir)
		if err != nil {
			return fail(stderr, fmt.Errorf("merge: %w", err))
		}
		sums = append(sums, s)
	}
	for _, e := range *sloExprs {
		s, err := results.ParseSLO(e)
		if err == nil {
			err = s.CheckOp(workload.ResultNames())
		}
		if err != nil {
			return fail(stderr, fmt.Errorf("--slo: %w", err))
		}
		o.slos = append(o.slos, s)
	}
	if err := mergeable(fs.Args(), sums, *force); err != nil {
		return fail(stderr, fmt.Errorf("merge: %w", err))
	}
	if err := wholeFleet(fs.Args(), sums, *partial, stderr); err != nil {
		return fail(stderr, fmt.Errorf("merge: %w", err))
	}
	m, err := results.Merge(sums, fs.Args())
	if err != nil {
		return fail(stderr, fmt.Errorf("merge: %w", err))
	}
	m.SLOs = results.Evaluate(o.slos, m)
	m.Judge(pageSizeOf(m))
	if err := writeMerged(o.out, m, fs.Args(), sums); err != nil {
		fmt.Fprintln(stderr, "loadgen merge:", err)
		return 1
	}
	if err := results.PrintSummary(stdout, m); err != nil {
		return 1
	}
	fmt.Fprintf(stdout, "merged %d %s into %s\n", len(sums), map[bool]string{true: "run", false: "runs"}[len(sums) == 1], o.out)
	return sloExit(m.SLOs)
}

func writeMerged(dir string, m results.Summary, runs []string, sums []results.Summary) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := results.WriteSummary(dir, m); err != nil {
		return err
	}
	starts := make([]time.Time, len(sums))
	for i, s := range sums {
		starts[i] = s.Start
	}
	// Intervals merge slot by slot; regions keep their rows (each process
	// saw the same regions, counted by the same engine or cluster).
	err := results.MergeIntervals(runs, starts, m.Start, dir)
	if errors.Is(err, results.ErrOldTimeline) {
		err = mergeCSV(runs, dir, "timeline.csv")
	}
	if err != nil {
		return err
	}
	if err := mergeCSV(runs, dir, "regions.csv"); err != nil {
		return err
	}
	return results.WriteHgrm(dir, m)
}

// pageSizeOf is the merged runs' listing page size, from the first run's
// configuration (10, the presets', if it says none).
func pageSizeOf(s results.Summary) int {
	var c struct {
		Scenario struct {
			PageSize int `json:"page_size"`
		} `json:"scenario"`
	}
	if json.Unmarshal(s.Config, &c) != nil || c.Scenario.PageSize < 1 {
		return 10
	}
	return c.Scenario.PageSize
}

// mergeable refuses what would merge into nonsense: one run twice (counted
// twice), or runs of different scenarios or key designs (unless forced).
func mergeable(dirs []string, sums []results.Summary, force bool) error {
	seen := map[string]string{}
	for i, s := range sums {
		abs, _ := filepath.Abs(dirs[i])
		run := "run " + s.RunID
		if s.Fleet != nil { // a fleet's members share the run's id
			run = fmt.Sprintf("run %s member %d", s.RunID, s.Fleet.Index)
		}
		for _, k := range []string{"dir " + abs, run} {
			if k == "run " {
				continue
			}
			if first, dup := seen[k]; dup {
				return fmt.Errorf("%s and %s are the same run: it would count twice", first, dirs[i])
			}
			seen[k] = dirs[i]
		}
	}
	if force {
		return nil
	}
	want := scenarioOf(sums[0])
	for i, s := range sums[1:] {
		if got := scenarioOf(s); got != want {
			return fmt.Errorf("%s ran %s, %s ran %s: give --force to merge them anyway", dirs[0], want, dirs[i+1], got)
		}
		if diff := designDiff(sums[0], s); diff != "" {
			return fmt.Errorf("%s and %s ran different key designs (%s): give --force to merge them anyway", dirs[0], dirs[i+1], diff)
		}
	}
	return nil
}

// designDiff compares the designs two runs recorded, by their keys: the
// same file at two paths is one design, one path edited between runs is
// two. Runs from before designs were recorded compare by name alone.
func designDiff(a, b results.Summary) string {
	if a.Design == nil || b.Design == nil {
		return ""
	}
	da, erra := keys.Parse(a.Design.Name, []byte(a.Design.Source))
	db, errb := keys.Parse(b.Design.Name, []byte(b.Design.Source))
	if erra != nil || errb != nil {
		return fmt.Sprintf("a recorded design does not parse: %v", errors.Join(erra, errb))
	}
	return da.Diff(db)
}

// scenarioOf names a run's scenario and key design, for comparing runs.
func scenarioOf(s results.Summary) string {
	var c struct {
		Scenario struct{ Name, Layout string } `json:"scenario"`
	}
	_ = json.Unmarshal(s.Config, &c)
	if s.Design != nil { // a design file's path is not what it is
		return fmt.Sprintf("scenario %q", c.Scenario.Name)
	}
	return fmt.Sprintf("scenario %q with design %q", c.Scenario.Name, c.Scenario.Layout)
}

// mergeCSV writes the runs' rows of a streamed CSV into one file, each row
// with the run it came from in a last column: intervals of different
// processes do not line up, so rows are kept, not summed.
func mergeCSV(runs []string, dir, name string) error {
	var out [][]string
	for _, r := range runs {
		f, err := os.Open(filepath.Join(r, name))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		recs, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil {
			return fmt.Errorf("%s/%s: %w", r, name, err)
		}
		if len(recs) == 0 {
			continue
		}
		if out == nil {
			out = append(out, append(recs[0], "run"))
		}
		for _, rec := range recs[1:] {
			out = append(out, append(rec, r))
		}
	}
	if out == nil {
		return nil
	}
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	if err := w.WriteAll(out); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// wholeFleet refuses to merge part of a fleet unless partial: every
// member of the run must be there once, and none lost mid-run (its
// results, if any, stop where it died). With partial it says what is
// left out.
func wholeFleet(dirs []string, sums []results.Summary, partial bool, stderr io.Writer) error {
	missing, lost, err := results.FleetParts(sums, dirs)
	if err != nil || (len(missing) == 0 && len(lost) == 0) {
		return err
	}
	var why []string
	if len(missing) > 0 {
		why = append(why, fmt.Sprintf("no results from member(s) %s", intList(missing)))
	}
	for _, l := range lost {
		why = append(why, fmt.Sprintf("member %d was lost mid-run at %s", l.Index, l.At.UTC().Format("15:04:05.000")))
	}
	total := sums[0].Fleet.Total
	if !partial {
		return fmt.Errorf("run %s had %d members: %s; give --partial to merge the %d there are", sums[0].RunID, total, strings.Join(why, ", "), len(sums))
	}
	fmt.Fprintf(stderr, "loadgen merge: --partial: %s; merging %d of %d members\n", strings.Join(why, ", "), len(sums), total)
	return nil
}

// intList writes 1, 3, 4.
func intList(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}
