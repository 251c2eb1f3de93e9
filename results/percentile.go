package results

import (
	"math"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Percentiles everywhere in this package (summary, console, timeline, SLOs,
// merge) come from here, so a CI gate's p99 is the one HdrHistogram's Java
// reference, its JavaScript port, wrk2 and YCSB compute from the same
// histogram: the value at the nearest rank, ceil(p/100 · n). The Go library
// rounds the rank to nearest instead, which on the tail of a short run is a
// whole bucket apart; it is not asked.

// valuesAt returns the value at each percentile (ascending), one pass over
// the histogram's buckets.
func valuesAt(h *hdr.Histogram, ps ...float64) []int64 {
	out := make([]int64, len(ps))
	n := h.TotalCount()
	if n == 0 {
		return out
	}
	ranks := make([]int64, len(ps))
	for i, p := range ps {
		ranks[i] = nearestRank(p, n)
	}
	var cum int64
	next := 0
	for _, b := range h.Distribution() {
		if b.Count == 0 {
			continue
		}
		cum += b.Count
		for next < len(ps) && cum >= ranks[next] {
			if ps[next] == 0 {
				out[next] = b.From
			} else {
				out[next] = b.To
			}
			next++
		}
		if next == len(ps) {
			break
		}
	}
	return out
}

// nearestRank is the rank the reference takes for percentile p of n values:
// ceil(p/100 · n), computed as it does (less one ulp before rounding up, so
// a product that floating point puts a hair above an integer does not skip
// a value), and at least 1.
func nearestRank(p float64, n int64) int64 {
	p = min(max(p, 0), 100)
	fp := p / 100 * float64(n)
	if fp == 0 {
		return 1
	}
	return max(int64(math.Ceil(fp-ulp(fp))), 1)
}

// ulp is the reference's unit in the last place: 2^(floor(log2 x) − 52).
func ulp(x float64) float64 { return math.Pow(2, math.Floor(math.Log2(x))-52) }

// ValueAtPercentile is the nearest-rank value at percentile p (0..100).
func ValueAtPercentile(h *hdr.Histogram, p float64) int64 { return valuesAt(h, p)[0] }

// ValuesAtPercentiles is ValueAtPercentile at each of ps (ascending), in one
// pass over the histogram: what a distribution's plot needs.
func ValuesAtPercentiles(h *hdr.Histogram, ps ...float64) []int64 { return valuesAt(h, ps...) }
