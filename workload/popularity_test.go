package workload

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

const popularityDraws = 200_000

// TestPopularityMatchesShare checks empirical frequencies of the hottest
// items against Share with a chi-square test over the top items plus one
// bin for the rest.
func TestPopularityMatchesShare(t *testing.T) {
	for _, s := range []float64{0, 0.5, 0.99, 1.0, 1.5} {
		p, err := NewPopularity(1000, s, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		counts := drawCounts(p, 1)
		if chi2 := chiSquareTop(p, counts, 20); chi2 > 45.3 { // p = 0.001, 20 df
			t.Errorf("exponent %v: chi-square %.1f over the top 20 items, want < 45.3", s, chi2)
		}
	}
}

func TestPopularitySkewOrder(t *testing.T) {
	p, _ := NewPopularity(100, 0.99, 0, 0)
	for i := 1; i < 100; i++ {
		if p.Share(i) >= p.Share(i-1) {
			t.Fatalf("Share(%d) = %v not below Share(%d) = %v", i, p.Share(i), i-1, p.Share(i-1))
		}
	}
	if r := p.Share(0) / p.Share(9); math.Abs(r-math.Pow(10, 0.99)) > 1e-9 {
		t.Errorf("Share(0)/Share(9) = %v, want 10^0.99", r)
	}
}

func TestPopularityHotSet(t *testing.T) {
	p, err := NewPopularity(1000, 0.99, 10, 0.6)
	if err != nil {
		t.Fatal(err)
	}
	counts := drawCounts(p, 2)
	hot := 0
	for _, c := range counts[:10] {
		hot += c
	}
	if got := float64(hot) / popularityDraws; math.Abs(got-0.6) > 0.01 {
		t.Errorf("hot set got %.3f of picks, want 0.6±0.01", got)
	}
	if chi2 := chiSquareTop(p, counts, 30); chi2 > 59.7 { // p = 0.001, 30 df
		t.Errorf("chi-square %.1f, want < 59.7", chi2)
	}
}

func TestPopularityAllHot(t *testing.T) {
	p, err := NewPopularity(5, 1, 5, 1)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 3))
	for range 1000 {
		if i := p.Pick(r); i < 0 || i >= 5 {
			t.Fatalf("Pick = %d outside [0,5)", i)
		}
	}
}

func TestPopularityShareSumsToOne(t *testing.T) {
	for _, c := range []struct {
		n, hotK  int
		s, share float64
	}{{1, 0, 0, 0}, {1000, 0, 0.99, 0}, {1000, 0, 1, 0}, {1000, 0, 0, 0}, {1000, 10, 0.99, 0.6}, {10, 10, 0, 1}, {100_000, 0, 1.5, 0}} {
		p, err := NewPopularity(c.n, c.s, c.hotK, c.share)
		if err != nil {
			t.Fatal(err)
		}
		sum := 0.0
		for i := range c.n {
			sum += p.Share(i)
		}
		if math.Abs(sum-1) > 1e-9 {
			t.Errorf("%+v: shares sum to %v", c, sum)
		}
		if p.Share(-1) != 0 || p.Share(c.n) != 0 {
			t.Errorf("%+v: Share outside [0,n) not 0", c)
		}
	}
}

func TestNewPopularityErrors(t *testing.T) {
	cases := []struct {
		n, hotK  int
		s, share float64
		want     string
	}{
		{0, 0, 1, 0, "n 0: want at least 1"},
		{10, 0, -0.1, 0, "exponent -0.1: want 0 to 10"},
		{10, 0, 11, 0, "exponent 11: want 0 to 10"},
		{10, 0, math.NaN(), 0, "exponent NaN"},
		{10, -1, 1, 0.5, "hotK -1: want 0 to n (10)"},
		{10, 11, 1, 0.5, "hotK 11: want 0 to n (10)"},
		{10, 2, 1, 1.5, "hotShare 1.5: want 0 to 1"},
		{10, 2, 1, 0, "want both 0 or both > 0"},
		{10, 0, 1, 0.5, "want both 0 or both > 0"},
		{10, 10, 1, 0.5, "every item hot"},
	}
	for _, c := range cases {
		_, err := NewPopularity(c.n, c.s, c.hotK, c.share)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewPopularity(%d, %v, %d, %v) = %v, want error containing %q", c.n, c.s, c.hotK, c.share, err, c.want)
		}
	}
}

func drawCounts(p *Popularity, seed uint64) []int {
	r := rand.New(rand.NewPCG(seed, 42))
	counts := make([]int, p.Len())
	for range popularityDraws {
		counts[p.Pick(r)]++
	}
	return counts
}

// chiSquareTop bins the top k items individually and the rest together.
func chiSquareTop(p *Popularity, counts []int, k int) float64 {
	chi2, restObs, restExp := 0.0, float64(popularityDraws), float64(popularityDraws)
	for i := range k {
		exp := p.Share(i) * popularityDraws
		d := float64(counts[i]) - exp
		chi2 += d * d / exp
		restObs -= float64(counts[i])
		restExp -= exp
	}
	d := restObs - restExp
	return chi2 + d*d/restExp
}
