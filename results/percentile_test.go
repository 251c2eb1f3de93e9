package results

import (
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Sixty values 1..60 µs: 0.99 · 60 = 59.4. The nearest rank is ceil = 60,
// so p99 is 60 µs; rounding the rank (the Go library's way) gives 59. Each
// value is exact at this precision, so the ranks are the values.
func TestNearestRankPercentile(t *testing.T) {
	h := newHist()
	for v := int64(1); v <= 60; v++ {
		_ = h.RecordValue(v)
	}
	if lib := h.ValueAtPercentile(99); lib != 59 {
		t.Fatalf("the library's p99 is %d; this test assumes it rounds the rank to 59", lib)
	}
	cases := []struct {
		p    float64
		want int64
	}{{99, 60}, {50, 30}, {90, 54}, {99.9, 60}, {100, 60}, {0, 1}, {1, 1}, {1.7, 2}, {98.4, 60}, {98.3, 59}}
	for _, c := range cases {
		if got := ValueAtPercentile(h, c.p); got != c.want {
			t.Errorf("p%g of 1..60: %d, want %d (rank ceil(%g))", c.p, got, c.want, c.p*60/100)
		}
	}
	got := valuesAt(h, 50, 90, 99, 99.9)
	if want := []int64{30, 54, 60, 60}; got[0] != want[0] || got[1] != want[1] || got[2] != want[2] || got[3] != want[3] {
		t.Errorf("valuesAt: %v, want %v", got, want)
	}
}

// A product that floating point puts a hair above an integer does not
// skip a value: 0.7 · 10 is 7.000000000000001, and the rank is 7, not 8.
func TestNearestRankULP(t *testing.T) {
	if r := nearestRank(70, 10); r != 7 {
		t.Errorf("rank of p70 over 10: %d, want 7", r)
	}
	if r := nearestRank(99, 0); r != 1 {
		t.Errorf("rank over an empty histogram: %d, want 1", r)
	}
	if v := ValueAtPercentile(newHist(), 99); v != 0 {
		t.Errorf("p99 of an empty histogram: %d, want 0", v)
	}
}

// A value is reported as the highest value of its bucket, as the reference
// does: at 3 significant figures 100 000 µs shares a bucket with its
// neighbours up to the bucket's top.
func TestPercentileHighestEquivalent(t *testing.T) {
	h := newHist()
	_ = h.RecordValue(100_000)
	if got, want := ValueAtPercentile(h, 50), h.Max(); got != want {
		t.Errorf("p50 of one value: %d, want its highest equivalent %d", got, want)
	}
}

// The SLO check and the interval figures (timeline.csv, the live line,
// ramp steps) read the same nearest-rank percentile as the summary: on
// 1..60 µs, p99 is 60 µs, where the library's rounded rank gives 59.
func TestNearestRankInSLOsAndIntervals(t *testing.T) {
	s := NewSet([]string{"op"})
	r := s.NewRecorder()
	for i := 1; i <= 60; i++ { // exact at this precision: the ranks are the values
		d := time.Duration(i) * time.Microsecond
		rec(r, 0, d, d)
	}
	iv := s.Collect(t0, t0.Add(time.Second))
	if got := iv.Ops[0].P99; got != 60*time.Microsecond {
		t.Errorf("interval p99 %v, want 60µs", got)
	}
	sum, err := s.Summary(t0, t0.Add(time.Second), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		slo string
		met bool
	}{{"op:p99<=59.5us", false}, {"op:p99<=60us", true}, {"op:p50<=30us", true}, {"op:p90<=53.5us", false}} {
		if r := Evaluate([]SLO{mustSLO(t, c.slo)}, sum)[0]; r.Met != c.met {
			t.Errorf("%s on 1..60 µs: met %v (actual %v), want %v", c.slo, r.Met, r.Actual, c.met)
		}
	}
	if BreachedNow([]SLO{mustSLO(t, "op:p99<=59.5us")}, Interval{Start: t0, End: t0.Add(time.Second),
		Ops: []OpInterval{{Op: "op", Count: 60, Hist: sumHist(t, sum)}}}) != true {
		t.Error("an interval's SLO check reads the rounded rank")
	}
}

func sumHist(t *testing.T, s Summary) *hdr.Histogram {
	t.Helper()
	h, err := DecodeHist(s.Ops[0].LatencyHist)
	if err != nil {
		t.Fatal(err)
	}
	return h
}
