package results

import "testing"

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
