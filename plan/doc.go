// Package plan is the storage model of the comment system's tables: what
// a row costs as HBase stores its cell, how many rows each table holds
// after some days of comments, and how many regions that fills.
//
// It owns the arithmetic, the flags' size syntax and the plan's report. It
// must not know stores or runs: the value sizes it prices are handed to it
// (sampled by whoever can encode the workload's entities), and a run's
// measured bytes are compared with it elsewhere. Every figure it gives is
// an estimate, and is labelled "modeled" wherever it is shown.
package plan
