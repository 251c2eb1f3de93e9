package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/pflag"

	"commentbench/report"
)

// reportCmd writes the HTML report of one run (into its dir by default) or
// the comparison of several, the first the reference. Bad input (not a
// run, a run missing files, runs of different scenarios) exits 2; a page
// that cannot be written, 1.
func reportCmd(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("loadgen report", pflag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors and usage are said below, once
	out := fs.StringP("out", "o", "", "the HTML file to write")
	force := fs.Bool("force", false, "compare runs of different scenarios all the same")
	usage := func(w io.Writer) {
		fmt.Fprintln(w, "usage: loadgen report RUN_DIR... [-o FILE] [--force]")
		fmt.Fprintln(w, "  one run: its page (default RUN_DIR/report.html); several: compared side by side,")
		fmt.Fprintln(w, "  the first the reference (default FIRST_RUN_DIR/compare.html)")
		fmt.Fprint(w, fs.FlagUsages())
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			usage(stdout)
			return 0
		}
		fmt.Fprintln(stderr, "loadgen report:", err)
		usage(stderr)
		return 2
	}
	if fs.NArg() == 0 {
		usage(stderr)
		return 2
	}
	path := *out
	switch {
	case path != "":
	case fs.NArg() == 1:
		path = filepath.Join(fs.Arg(0), report.FileName)
	default: // beside the reference run, not wherever the command was typed
		path = filepath.Join(fs.Arg(0), "compare.html")
	}
	runs, err := report.LoadAll(fs.Args(), *force)
	if err == nil {
		err = report.Save(path, runs)
	}
	if err != nil {
		var bad *report.InputError
		if errors.As(err, &bad) {
			return fail(stderr, fmt.Errorf("report: %w", err))
		}
		fmt.Fprintln(stderr, "loadgen:", err)
		return 1
	}
	fmt.Fprintf(stdout, "report: %s\n", path)
	if len(runs) > 1 { // the comparison's lines, to paste into a design review
		for _, r := range runs {
			fmt.Fprintln(stdout, report.VerdictLine(r, runs[0]))
		}
		if w := report.ConsistencyWords(runs); w != "" {
			fmt.Fprintln(stdout, "consistency: "+w)
		}
	}
	return 0
}

// writeReport writes report.html into the run's dir at the end of a run
// (unless --no-report). The run is done and its results are written, so a
// page that fails is said, not made the run's failure.
func (o *options) writeReport(stdout, stderr io.Writer) {
	if o.noReport {
		return
	}
	path := filepath.Join(o.out, report.FileName)
	if err := report.WriteFile(path, []string{o.out}, false); err != nil {
		fmt.Fprintln(stderr, "loadgen: no report:", err)
		return
	}
	fmt.Fprintf(stdout, "report in %s\n", path)
}
