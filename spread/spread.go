// Package spread measures how regions, rows and requests are distributed
// over a table's regions and the cluster's servers: counts per server, the
// max/mean ratio, the Gini coefficient, and the tables that show them.
//
// It knows store.Region and nothing of the comment schema or of how the
// numbers were collected.
package spread

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"commentbench/store"
)

// Gini is the Gini coefficient of xs: 0 when every share is equal, near 1
// when one holds everything. Negative values are treated as zero.
func Gini(xs []float64) float64 {
	n := len(xs)
	if n == 0 {
		return 0
	}
	s := make([]float64, n)
	for i, x := range xs {
		s[i] = max(x, 0)
	}
	sort.Float64s(s)
	var sum, weighted float64
	for i, x := range s {
		sum += x
		weighted += float64(i+1) * x
	}
	if sum == 0 {
		return 0
	}
	return (2*weighted)/(float64(n)*sum) - float64(n+1)/float64(n)
}

// MaxMean is the largest value over the mean: 1 for a perfect spread, n when
// one of n holds everything; 0 for no data.
func MaxMean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var sum, hi float64
	for _, x := range xs {
		sum += x
		hi = max(hi, x)
	}
	if sum == 0 {
		return 0
	}
	return hi / (sum / float64(len(xs)))
}

// RegionsPerServer writes a table of region counts: one line per table, one
// column per server, and a total line.
func RegionsPerServer(w io.Writer, regions []store.Region) error {
	var servers, tables []string
	count := map[[2]string]int{}
	for _, r := range regions {
		if !slices.Contains(servers, r.Server) {
			servers = append(servers, r.Server)
		}
		if !slices.Contains(tables, r.Table) {
			tables = append(tables, r.Table)
		}
		count[[2]string{r.Table, r.Server}]++
		count[[2]string{"total", r.Server}]++
	}
	slices.Sort(servers)
	var b strings.Builder
	fmt.Fprintf(&b, "%-22s", "regions")
	for _, s := range servers {
		fmt.Fprintf(&b, " %6s", s)
	}
	fmt.Fprintf(&b, " %6s\n", "total")
	for _, t := range append(tables, "total") {
		fmt.Fprintf(&b, "%-22s", t)
		sum := 0
		for _, s := range servers {
			n := count[[2]string{t, s}]
			sum += n
			fmt.Fprintf(&b, " %6d", n)
		}
		fmt.Fprintf(&b, " %6d\n", sum)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
