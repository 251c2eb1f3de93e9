package embedded

import (
	"fmt"
	"strings"
	"testing"

	"commentbench/store"

	"github.com/cockroachdb/pebble/v2"
)

// rawEntries lists what Pebble holds for a row, in key order: "q@ts" for a
// cell, "DF@ts", "DFV@ts", "DC:q@ts" and "DV:q@ts" for the markers.
func rawEntries(t *testing.T, e *Engine, table, row string) string {
	t.Helper()
	tb, err := e.table(table)
	if err != nil {
		t.Fatal(err)
	}
	it, err := e.db.NewIter(&pebble.IterOptions{LowerBound: appendRowPrefix(nil, tb.id, []byte(row)), UpperBound: rowPrefixEnd(tb.id, []byte(row))})
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var out []string
	for ok := it.First(); ok; ok = it.Next() {
		pl, err := rowPrefixLen(it.Key())
		if err != nil {
			t.Fatal(err)
		}
		en, err := parseEntry(it.Key()[pl:])
		if err != nil {
			t.Fatal(err)
		}
		q := string(unescape(nil, en.qualifier))
		switch en.kind {
		case kindPut:
			out = append(out, fmt.Sprintf("%s@%d", q, en.ts))
		case kindDeleteFamily:
			out = append(out, fmt.Sprintf("DF@%d", en.ts))
		case entryFamilyVersion:
			out = append(out, fmt.Sprintf("DFV@%d", en.ts))
		case entryDeleteColumn:
			out = append(out, fmt.Sprintf("DC:%s@%d", q, en.ts))
		case entryDeleteVersion:
			out = append(out, fmt.Sprintf("DV:%s@%d", q, en.ts))
		}
	}
	return strings.Join(out, " ")
}

// Each delete removes from Pebble what its marker hides, and only that
// (a marker subsumed by a newer one too), and keeps its marker.
func TestDeletesRemoveWhatTheyHide(t *testing.T) {
	clk := newClock(1000)
	e := openMem(t, Options{Now: clk.now, DisableSplits: true})
	mustCreate(t, e, "t")
	for _, c := range []struct {
		q  string
		ts int64
	}{{"q", 10}, {"q", 20}, {"q", 30}, {"q", 40}, {"r", 10}, {"r", 20}, {"s", 20}, {"s", 21}} {
		putAt(t, e, "r", c.q, c.ts)
		putAt(t, e, "other", c.q, c.ts)
	}
	const untouched = "q@40 q@30 q@20 q@10 r@20 r@10 s@21 s@20"
	steps := []struct {
		name string
		del  func() error
		want string
	}{
		{"DeleteColumn q at 20", func() error { return e.DeleteColumnAt(ctx, "t", []byte("r"), []byte("q"), 20) },
			"DC:q@20 q@40 q@30 r@20 r@10 s@21 s@20"},
		{"DeleteColumn q at 30 subsumes the older marker", func() error { return e.DeleteColumnAt(ctx, "t", []byte("r"), []byte("q"), 30) },
			"DC:q@30 q@40 r@20 r@10 s@21 s@20"},
		{"DeleteFamilyVersion at 20", func() error { return e.DeleteFamilyVersionAt(ctx, "t", []byte("r"), 20) },
			"DFV@20 DC:q@30 q@40 r@10 s@21"},
		{"Delete r at 10", func() error { return e.DeleteVersionAt(ctx, "t", []byte("r"), []byte("r"), 10) },
			"DFV@20 DC:q@30 DV:r@10 q@40 s@21"},
		{"Delete s at LATEST", func() error { return e.DeleteVersionAt(ctx, "t", []byte("r"), []byte("s"), 0) },
			"DFV@20 DC:q@30 DV:r@10 DV:s@21 q@40"},
		{"DeleteFamily at 30", func() error { return e.DeleteRowAt(ctx, "t", []byte("r"), 30) },
			"DF@30 q@40"},
	}
	for _, s := range steps {
		if err := s.del(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if got := rawEntries(t, e, "t", "r"); got != s.want {
			t.Fatalf("%s: Pebble holds %q, want %q", s.name, got, s.want)
		}
		if got := rawEntries(t, e, "t", "other"); got != untouched {
			t.Fatalf("%s: the other row holds %q", s.name, got)
		}
	}
}

// A whole-row delete removes every family's hidden cells, the last
// family's (index 255) included, and leaves the next row alone.
func TestDeleteRowOnLastFamily(t *testing.T) {
	e := openMem(t, Options{DisableSplits: true})
	var fams []string
	for i := range maxFamilies {
		fams = append(fams, fmt.Sprintf("f%03d", i))
	}
	if err := e.CreateTable(ctx, storeSpec("t", fams)); err != nil {
		t.Fatal(err)
	}
	for _, row := range []string{"a", "a\x00", "b"} {
		mustUpdate(t, e, "t", row, puts(5, "f000:q=1", "f254:q=1", "f255:q=1"))
	}
	if err := e.DeleteRowAt(ctx, "t", []byte("a"), 10); err != nil {
		t.Fatal(err)
	}
	if got := rawEntries(t, e, "t", "a"); got != strings.TrimSpace(strings.Repeat("DF@10 ", maxFamilies)) {
		t.Fatalf("row a holds %q", got)
	}
	for _, row := range []string{"a\x00", "b"} {
		if got := rawEntries(t, e, "t", row); got != "q@5 q@5 q@5" {
			t.Fatalf("row %q holds %q", row, got)
		}
	}
	if got := prefixAfter([]byte{1, 0xff, 0xff}); string(got) != "\x02\x00\x00" {
		t.Fatalf("prefixAfter carries into %q", got)
	}
	if got := prefixAfter([]byte{0xff, 0xff}); got != nil {
		t.Fatalf("prefixAfter of all 0xff: %q, want nil", got)
	}
}

func storeSpec(name string, fams []string) store.TableSpec {
	return store.TableSpec{Name: name, Families: fams}
}
