// Skewed choice of items (products): a Zipf law with any exponent, and an
// optional explicit hot set for flash sales.

package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
)

// MaxExponent bounds the Zipf exponent: beyond it nearly every pick is
// index 0, which a hot set says more plainly.
const MaxExponent = 10

// Popularity picks item indices in [0,n) with skew: index 0 is the hottest.
// It is read-only after construction, so it is safe for concurrent use as
// long as each goroutine passes its own *rand.Rand.
type Popularity struct {
	n, hotK  int
	hotShare float64
	// cdf is the cumulative Zipf probability over [hotK,n), ending at
	// exactly 1; nil for exponent 0, where a uniform pick needs no table.
	// math/rand's Zipf would need no table but only takes s > 1.
	cdf []float64
}

// NewPopularity builds a picker over n items. With probability hotShare a
// pick is uniform over the hot set [0,hotK); otherwise it follows Zipf with
// the given exponent over [hotK,n) (exponent 0 is uniform). hotK and
// hotShare are both zero for plain Zipf over all n items.
func NewPopularity(n int, exponent float64, hotK int, hotShare float64) (*Popularity, error) {
	if err := checkPopularity(n, exponent, hotK, hotShare); err != nil {
		return nil, err
	}
	p := &Popularity{n: n, hotK: hotK, hotShare: hotShare}
	if exponent > 0 && hotK < n {
		p.cdf = zipfCDF(n-hotK, exponent)
	}
	return p, nil
}

func checkPopularity(n int, exponent float64, hotK int, hotShare float64) error {
	switch {
	case n < 1:
		return fmt.Errorf("popularity: n %d: want at least 1 item", n)
	case !(exponent >= 0 && exponent <= MaxExponent):
		return fmt.Errorf("popularity: exponent %v: want 0 to %d", exponent, MaxExponent)
	case hotK < 0 || hotK > n:
		return fmt.Errorf("popularity: hotK %d: want 0 to n (%d)", hotK, n)
	case !(hotShare >= 0 && hotShare <= 1):
		return fmt.Errorf("popularity: hotShare %v: want 0 to 1", hotShare)
	case (hotK > 0) != (hotShare > 0):
		return fmt.Errorf("popularity: hotK %d with hotShare %v: want both 0 or both > 0", hotK, hotShare)
	case hotK == n && hotShare < 1:
		return fmt.Errorf("popularity: hotShare %v with every item hot (hotK = n = %d): want 1", hotShare, n)
	}
	return nil
}

// zipfCDF returns the cumulative probabilities of ranks 1..m under weights
// 1/rank^s.
func zipfCDF(m int, s float64) []float64 {
	cdf := make([]float64, m)
	sum := 0.0
	for k := range cdf {
		sum += math.Pow(float64(k+1), -s)
		cdf[k] = sum
	}
	for k := range cdf {
		cdf[k] /= sum
	}
	// Rounding may leave the last entry a hair below 1, which would let a
	// draw of u fall past the end.
	cdf[m-1] = 1
	return cdf
}

// Len is the number of items.
func (p *Popularity) Len() int { return p.n }

// Pick returns an item index in [0,n).
func (p *Popularity) Pick(r *rand.Rand) int {
	if p.hotK > 0 && (p.hotK == p.n || r.Float64() < p.hotShare) {
		return r.IntN(p.hotK)
	}
	if p.cdf == nil {
		return p.hotK + r.IntN(p.n-p.hotK)
	}
	u := r.Float64()
	return p.hotK + sort.Search(len(p.cdf), func(i int) bool { return p.cdf[i] > u })
}

// Share is the probability that Pick returns i (0 outside [0,n)).
func (p *Popularity) Share(i int) float64 {
	switch {
	case i < 0 || i >= p.n:
		return 0
	case i < p.hotK:
		return p.hotShare / float64(p.hotK)
	}
	rest := 1 - p.hotShare
	j := i - p.hotK
	if p.cdf == nil {
		return rest / float64(p.n-p.hotK)
	}
	if j == 0 {
		return rest * p.cdf[0]
	}
	return rest * (p.cdf[j] - p.cdf[j-1])
}
