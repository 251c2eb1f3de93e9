// Package report turns run directories into one self-contained HTML page: a
// run's results laid out for a person, or several runs compared side by
// side, which is what the harness is for.
//
// It owns reading what a run left on disk for that purpose (summary.json,
// timeline.csv, regions.csv, verify.json, and the server model's servers.csv
// and the hot keys when a run has them), the rules of comparison
// (which runs compare, the verdict line per run, ratios to the first run) and
// the page with its charts, drawn with gonum/plot to SVG and inlined: no
// script, no font or file fetched, legible printed.
//
// It must not know how a run is made or checked: nothing of workload, store
// or a backend. It reads results and check's reports as files, and keys only
// to lint the design a run names and for the schema's table names.
// Percentiles come from the summary as the run computed them (nearest
// rank); the page never recomputes a figure the summary holds.
package report
