package spread

import (
	"math"
	"strings"
	"testing"

	"commentbench/store"
)

func TestGini(t *testing.T) {
	cases := []struct {
		xs   []float64
		want float64
	}{
		{[]float64{5, 5, 5, 5}, 0},
		{[]float64{0, 0, 0, 8}, 0.75}, // one of four holds all: (n-1)/n
		{[]float64{1, 2, 3, 4}, 0.25},
		{nil, 0},
		{[]float64{0, 0}, 0},
	}
	for _, c := range cases {
		if got := Gini(c.xs); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("Gini(%v) = %v, want %v", c.xs, got, c.want)
		}
	}
}

func TestMaxMean(t *testing.T) {
	if got := MaxMean([]float64{1, 1, 1, 5}); got != 2.5 {
		t.Errorf("MaxMean = %v, want 2.5", got)
	}
	if got := MaxMean([]float64{0, 0}); got != 0 {
		t.Errorf("MaxMean of zeros = %v, want 0", got)
	}
}

func TestRegionsPerServer(t *testing.T) {
	regions := []store.Region{
		{Table: "comment", Server: "rs1"}, {Table: "comment", Server: "rs2"}, {Table: "comment", Server: "rs1"},
		{Table: "user", Server: "rs2"},
	}
	var b strings.Builder
	if err := RegionsPerServer(&b, regions); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"regions                   rs1    rs2  total",
		"comment                     2      1      3",
		"user                        0      1      1",
		"total                       2      2      4",
	}
	if got := strings.Split(strings.TrimSpace(b.String()), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("table:\n%s\nwant:\n%s", b.String(), strings.Join(want, "\n"))
	}
}
