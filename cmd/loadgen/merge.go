package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/pflag"

	"commentbench/results"
)

// merge combines the summaries of several processes that loaded one
// cluster (--worker-index) into one, histograms merged exactly.
func merge(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("loadgen merge", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	o := &options{}
	fs.StringVar(&o.out, "out", "", "directory for the merged results (default results/merged-<timestamp>)")
	sloExprs := fs.StringArray("slo", nil, "service level check on the merged results, repeatable")
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
		if err != nil {
			return fail(stderr, fmt.Errorf("--slo: %w", err))
		}
		o.slos = append(o.slos, s)
	}
	m, err := results.Merge(sums, fs.Args())
	if err != nil {
		return fail(stderr, fmt.Errorf("merge: %w", err))
	}
	m.SLOs = results.Evaluate(o.slos, m)
	m.Judge(pageSizeOf(m))
	if err := writeMerged(o.out, m, fs.Args()); err != nil {
		fmt.Fprintln(stderr, "loadgen merge:", err)
		return 1
	}
	if err := results.PrintSummary(stdout, m); err != nil {
		return 1
	}
	fmt.Fprintf(stdout, "merged %d runs into %s\n", len(sums), o.out)
	return sloExit(m.SLOs)
}

func writeMerged(dir string, m results.Summary, runs []string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := results.WriteSummary(dir, m); err != nil {
		return err
	}
	if err := results.MergeHlogs(runs, dir, 0); err != nil {
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
