// Package results owns what a load run records and what it leaves behind:
// HDR latency histograms per worker, the per-interval collection, the result
// files (summary.json, timeline.csv, regions.csv, .hgrm), the console
// summary, SLO expressions, and the merging of several runs' summaries.
//
// It knows operations only by name and index; it must not know the comment
// schema, the store's data, or how operations are chosen.
//
// Latencies are microseconds in 1 µs .. 1 h at 3 significant figures.
// Latency is measured from the operation's intended start (coordinated
// omission corrected, as wrk2 does); service time from its actual start.
package results
