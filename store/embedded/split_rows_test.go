package embedded

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"commentbench/store"
)

// putWide writes row as n cells of 100 bytes, 100 cells a mutation, so
// its region grows past the split threshold as it is written.
func putWide(t *testing.T, e *Engine, table, row string, n int) {
	t.Helper()
	cells := wideCells(n, 100)
	for i := 0; i < n; i += 100 {
		mustPut(t, e, table, row, cells[i:min(i+100, n)]...)
	}
}

// A region that is one row, however far over its split threshold, stays
// one region: a region splits between rows, never inside one.
func TestOneRowRegionDoesNotSplit(t *testing.T) {
	e := openMem(t, Options{Servers: 1, InitialSplitSize: 16 << 10, MaxRegionSize: 16 << 10})
	mustCreate(t, e, "t")
	putWide(t, e, "t", "huge", 2000) // ~250 KiB: 15 times the threshold
	if err := e.WaitIdle(); err != nil {
		t.Fatal(err)
	}
	if n := len(mustRegions(t, e, "t")); n != 1 {
		t.Fatalf("a one-row region split into %d", n)
	}
	if err := e.SplitRegion(ctx, "t", nil); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("an admin split of a one-row region: %v, want ErrInvalid", err)
	}
	if r := mustGet(t, e, "t", "huge"); len(r.Cells) != 2000 {
		t.Fatalf("the row has %d cells", len(r.Cells))
	}
}

// A region of one huge row and a few small ones splits, but only where a
// row starts: every region starts at a row (or the table's start), the
// huge row ends up alone in a region over the threshold, and every row
// reads whole.
func TestHugeRowSplitsAtRowBoundaries(t *testing.T) {
	e := openMem(t, Options{Servers: 1, InitialSplitSize: 16 << 10, MaxRegionSize: 16 << 10})
	mustCreate(t, e, "t")
	small := []string{"a", "b", "x", "y"}
	for _, row := range small {
		putWide(t, e, "t", row, 20)
	}
	putWide(t, e, "t", "m", 2000)
	for _, row := range small {
		putWide(t, e, "t", row+"2", 20)
	}
	if err := e.WaitIdle(); err != nil {
		t.Fatal(err)
	}
	regions := mustRegions(t, e, "t")
	checkTiling(t, regions)
	if len(regions) < 2 {
		t.Fatalf("%d region: the table did not split", len(regions))
	}
	rows := []string{"", "m"}
	for _, r := range small {
		rows = append(rows, r, r+"2")
	}
	for _, r := range regions {
		if !slices.Contains(rows, string(r.Start)) {
			t.Fatalf("region %q starts inside the rows %q", r.Start, rows)
		}
	}
	var alone bool
	for _, r := range regions {
		if r.Contains([]byte("m")) {
			alone = string(r.Start) == "m" && string(r.End) == "x"
		}
	}
	if !alone {
		t.Fatalf("the huge row shares its region: %v", regionBounds(regions))
	}
	for _, row := range rows[1:] {
		want := 20
		if row == "m" {
			want = 2000
		}
		if r := mustGet(t, e, "t", row); len(r.Cells) != want {
			t.Fatalf("row %q has %d cells, want %d", row, len(r.Cells), want)
		}
	}
}

func regionBounds(regions []store.Region) []string {
	var out []string
	for _, r := range regions {
		out = append(out, fmt.Sprintf("[%q, %q)", r.Start, r.End))
	}
	return out
}
