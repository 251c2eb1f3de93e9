// Package workload drives the comment system the way its users would: actors
// that each perform one kind of behaviour (write a comment, burst a flash
// sale into one millisecond, page a listing and check it), mixed by weight in
// a scenario, paced closed- or open-loop by a runner.
//
// It owns what is done, when, and the checks a reader can make of what it
// reads. It must not know how a backend stores rows (it talks to
// comments.System) nor how results are written (it records into
// results.Recorder and reports intervals to its caller).
package workload
