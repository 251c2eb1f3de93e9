package workload

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"commentbench/store"
)

// splitCaptures are c captures of cells on rows drawn from a few dozen,
// long and short (past the compare prefix), puts and increments on
// separate columns, so that captures share rows and rows take several
// writes: the cells of one seed.
func splitCaptures(seed uint64, c, cells int) *merged {
	rng := rand.New(rand.NewPCG(seed, 7))
	m := &merged{}
	for id := range c {
		cp := newCapture()
		cp.id = uint16(id)
		for n := range cells {
			cp.next(int64(n*c + id))
			row := fmt.Appendf(nil, "%0*d", 1+rng.IntN(40), rng.IntN(60))
			mut := store.Mutation{Row: row}
			if rng.IntN(3) == 0 {
				mut.Increments = []store.Increment{{Qualifier: []byte("count"), Delta: int64(rng.IntN(5))}}
			} else {
				mut.Cells = []store.Cell{{Qualifier: fmt.Appendf(nil, "q%d", rng.IntN(4)), Value: fmt.Appendf(nil, "v%d", n)}}
			}
			if err := cp.Mutate(context.Background(), "t", mut); err != nil {
				panic(err)
			}
		}
		cp.sort()
		if t := cp.tables["t"]; t != nil {
			m.add(t)
		}
	}
	return m
}

// loadRows reads every row of parts, one part after another, as lines.
func loadRows(t testing.TB, parts []*merged) []string {
	var out []string
	for _, p := range parts {
		var err error
		next := p.rows(&err, false)
		for row, ok := next(); ok; row, ok = next() {
			line := fmt.Sprintf("%s %d", row.Key, row.Writes)
			for _, c := range row.Cells {
				line += fmt.Sprintf(" %s=%x", c.Qualifier, c.Value)
			}
			out = append(out, line)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// A table's cells cut into parts read, one part after another, as the
// rows of the whole: no row is lost, repeated or cut in two, whatever
// the captures and the number of parts.
func FuzzMergedSplit(f *testing.F) {
	for _, s := range [][4]uint64{{1, 3, 200, 4}, {2, 8, 50, 7}, {3, 1, 500, 2}, {4, 2, 3, 9}, {5, 4, 0, 3}} {
		f.Add(s[0], uint8(s[1]), uint16(s[2]), uint8(s[3]))
	}
	f.Fuzz(func(t *testing.T, seed uint64, captures uint8, cells uint16, n uint8) {
		c, k := 1+int(captures%8), int(n%12)
		m := splitCaptures(seed, c, int(cells%2000))
		whole := loadRows(t, []*merged{m})
		parts := m.split(k)
		if len(parts) > max(k, 1) {
			t.Fatalf("split into %d made %d parts", k, len(parts))
		}
		for i, p := range parts {
			if p.cells() == 0 {
				t.Fatalf("part %d of %d is empty", i, len(parts))
			}
		}
		if got := loadRows(t, parts); !slices.Equal(got, whole) {
			t.Fatalf("%d parts read %d rows, the whole %d: not the same", len(parts), len(got), len(whole))
		}
		if k >= 2 && len(whole) >= 4*k && len(parts) < 2 {
			t.Fatalf("%d rows split into %d made %d parts", len(whole), k, len(parts))
		}
	})
}

// A capture's cells sorted by radix are in compareRecs's order: rows of
// any bytes (0xff, zeros, a shared first dozen bytes, past the prefix),
// the same row's cells in the order they were written.
func FuzzCaptureSort(f *testing.F) {
	f.Add([]byte("\xff\xff\x00ab"), uint16(300), uint8(3))
	f.Add([]byte("product-000000000001-"), uint16(2000), uint8(30))
	f.Add([]byte{}, uint16(50), uint8(0))
	f.Fuzz(func(t *testing.T, stem []byte, cells uint16, spread uint8) {
		rng := rand.New(rand.NewPCG(uint64(cells), uint64(spread)))
		c := newCapture()
		for n := range int(cells % 4000) {
			c.next(int64(n))
			row := append(slices.Clone(stem[:rng.IntN(len(stem)+1)]), byte(rng.IntN(int(spread)+1)), byte(rng.IntN(256)))
			row = append(row, stem[:rng.IntN(len(stem)+1)]...)
			if err := c.Mutate(context.Background(), "t", store.Mutation{Row: row, Cells: []store.Cell{{Qualifier: []byte{byte(rng.IntN(3))}}}}); err != nil {
				t.Fatal(err)
			}
		}
		tb := c.tables["t"]
		if tb == nil {
			return
		}
		want := slices.Clone(tb.recs)
		slices.SortFunc(want, func(x, y capRec) int { return compareRecs(tb.arena, &x, tb.arena, &y) })
		defer func(b int) { bucketSortFrom = b }(bucketSortFrom)
		bucketSortFrom = 0
		tb.sort(nil)
		if !slices.Equal(tb.recs, want) {
			t.Fatalf("%d cells: the radix sort's order is not compareRecs's", len(want))
		}
	})
}
