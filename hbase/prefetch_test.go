package hbase

import "flag"

var noPrefetch = flag.Bool("scan.noprefetch", false, "BenchmarkScan10k: scan without asking for the next batch ahead")

func init() {
	scanBenchSetup = func() func() {
		prefetch = !*noPrefetch
		return func() { prefetch = true }
	}
}
