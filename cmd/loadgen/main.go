// Command loadgen drives the comment system with a scenario of workload
// actors, records latency histograms and region spread, and writes the
// results; `loadgen merge` merges the results of several processes;
// `loadgen plan` models a key design's storage without running anything;
// `loadgen kube` prints the Kubernetes objects that run a fleet of it.
//
// Exit codes: 0 done, 1 an --slo was breached, 2 bad usage or a backend
// that could not be opened.
package main

import (
	"fmt"
	"io"
	"os"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "merge" {
		return merge(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "lint" {
		return lint(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "plan" {
		return planCmd(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "flaws" {
		return flaws(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "report" {
		return reportCmd(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "kube" {
		return kubeCmd(args[1:], stdout, stderr)
	}
	o, code := parse(args, stdout, stderr)
	if o == nil {
		return code
	}
	return load(o, stdout, stderr)
}

// usageError is bad input: exit 2 before anything is written.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }

func fail(stderr io.Writer, err error) int {
	fmt.Fprintln(stderr, "loadgen:", err)
	return 2
}
