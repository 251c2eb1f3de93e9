package embedded

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"commentbench/store"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// rowBytes is what one row of one cell stores: its key and value.
func rowBytes(row, q, v string) int64 { return int64(cellKeyLen(row, q) + len(v)) }

// regionInfo is a table's regions as "start@server" with their sizes and
// split thresholds, from the routing.
func regionInfo(t *testing.T, e *Engine, table string) (starts []string, sizes, splitAt []int64) {
	t.Helper()
	tb, err := e.table(table)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range tb.routing.Load().regions {
		starts = append(starts, string(r.info.Start))
		sizes = append(sizes, r.stats.size.Load())
		splitAt = append(splitAt, r.splitAt.Load())
	}
	return starts, sizes, splitAt
}

// A split at a key gives daughter A the bytes below it and B the rest;
// both start with zero counters, share an id above the parent's, and the
// parent is retired.
func TestSplitAtKeySizesDaughters(t *testing.T) {
	e := openMem(t, Options{DisableSplits: true, Now: newClock(5000).now})
	mustCreate(t, e, "s")
	for _, r := range []string{"a", "bb", "c", "dd"} {
		mustPut(t, e, "s", r, cell("q", "val"))
	}
	mustGet(t, e, "s", "a")
	parent := regionAt(t, e, "s", "a")
	if err := e.SplitRegion(ctx, "s", []byte("c")); err != nil {
		t.Fatal(err)
	}
	if !parent.retired.Load() {
		t.Fatal("the parent was not retired")
	}
	starts, sizes, _ := regionInfo(t, e, "s")
	wantLeft := rowBytes("a", "q", "val") + rowBytes("bb", "q", "val")
	wantRight := rowBytes("c", "q", "val") + rowBytes("dd", "q", "val")
	if !reflect.DeepEqual(starts, []string{"", "c"}) || sizes[0] != wantLeft || sizes[1] != wantRight {
		t.Fatalf("daughters %q sizes %v, want [\"\" \"c\"] [%d %d]", starts, sizes, wantLeft, wantRight)
	}
	for _, row := range []string{"a", "c"} {
		r := regionAt(t, e, "s", row)
		if c := r.stats.snapshot(); c != (store.Counters{}) {
			t.Fatalf("daughter %q starts with counters %+v", r.info.Name, c)
		}
		if parent.info.ID != 5000 || r.info.ID != 5001 {
			t.Fatalf("daughter id %d, want parent's %d + 1", r.info.ID, parent.info.ID)
		}
	}
}

// Without a key a region splits at its middle row: the first row after the
// first where the bytes before it reach half the region's, else its last
// row; a region of one row does not split.
func TestSplitAtMiddleRow(t *testing.T) {
	big := strings.Repeat("x", 300)
	for _, c := range []struct {
		name string
		rows []string // row=value
		mid  string
	}{
		{"equal rows: half reached exactly at the third", []string{"a=vv", "b=vv", "c=vv", "d=vv"}, "c"},
		{"one short of half at the third", []string{"a=vvv", "b=vv", "c=vv", "d=vv"}, "c"},
		{"half passed at the second", []string{"a=" + big, "b=v", "c=v"}, "b"},
		{"big last row: the last row", []string{"a=v", "b=v", "c=" + big}, "c"},
		{"two rows, big second", []string{"a=v", "b=" + big}, "b"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := openMem(t, Options{DisableSplits: true})
			mustCreate(t, e, "s")
			var total, left int64
			for _, rv := range c.rows {
				r, v, _ := strings.Cut(rv, "=")
				mustPut(t, e, "s", r, cell("q", v))
				total += rowBytes(r, "q", v)
				if r < c.mid {
					left += rowBytes(r, "q", v)
				}
			}
			if err := e.SplitRegion(ctx, "s", nil); err != nil {
				t.Fatal(err)
			}
			starts, sizes, _ := regionInfo(t, e, "s")
			if !reflect.DeepEqual(starts, []string{"", c.mid}) || sizes[0] != left || sizes[1] != total-left {
				t.Fatalf("split into %q sizes %v, want at %q sizes [%d %d]", starts, sizes, c.mid, left, total-left)
			}
		})
	}
	t.Run("one row", func(t *testing.T) {
		e := openMem(t, Options{DisableSplits: true})
		mustCreate(t, e, "s")
		mustPut(t, e, "s", "only", cell("q", "v"), cell("r", "w"))
		regionAt(t, e, "s", "only").stats.size.Store(1 << 20) // an estimate off the mark
		if err := e.SplitRegion(ctx, "s", nil); err == nil {
			t.Fatal("a region of one row split")
		}
		_, sizes, _ := regionInfo(t, e, "s")
		if want := rowBytes("only", "q", "v") + rowBytes("only", "r", "w"); sizes[0] != want {
			t.Fatalf("size %d after a failed split, want the measured %d", sizes[0], want)
		}
	})
}

// The automatic split re-measures a region first: a region no bigger than
// its threshold is not split (nor even measured when its estimate is not
// over it); its size becomes what was measured and its threshold at least
// twice that.
func TestAutoSplitRemeasures(t *testing.T) {
	v := strings.Repeat("v", 300)
	exact := rowBytes("a", "q", v) + rowBytes("b", "q", v)
	e := openMem(t, Options{Servers: 1, InitialSplitSize: exact, MaxRegionSize: 1 << 30})
	mustCreate(t, e, "s")
	mustPut(t, e, "s", "a", cell("q", v))
	mustPut(t, e, "s", "b", cell("q", v))
	if err := e.WaitIdle(); err != nil {
		t.Fatal(err)
	}
	starts, sizes, at := regionInfo(t, e, "s")
	if len(starts) != 1 || sizes[0] != exact || at[0] != exact {
		t.Fatalf("at the threshold: regions %q sizes %v split at %v, want one of %d at %d", starts, sizes, at, exact, exact)
	}
	// Overwrites of the same cells: the estimate grows, the data does not.
	// The splitter waits for the admin lock until every put has landed, so
	// the split measures all of them (a put racing a split may be charged
	// to the region it retires: the estimate is an estimate).
	e.adminMu.Lock()
	for range 3 {
		mustPut(t, e, "s", "a", store.Cell{Qualifier: []byte("q"), Value: []byte(v), Timestamp: 7})
	}
	mustPut(t, e, "s", "b", store.Cell{Qualifier: []byte("q"), Value: []byte(v), Timestamp: 7})
	e.adminMu.Unlock()
	if err := e.WaitIdle(); err != nil {
		t.Fatal(err)
	}
	starts, sizes, _ = regionInfo(t, e, "s")
	if !reflect.DeepEqual(starts, []string{"", "b"}) || sizes[0]+sizes[1] != 4*rowBytes("a", "q", v) {
		t.Fatalf("over the threshold: regions %q sizes %v, want a split at b holding two versions a row", starts, sizes)
	}

	// A region measured at exactly its threshold: kept, threshold doubled.
	e2 := openMem(t, Options{Servers: 1, InitialSplitSize: exact, MaxRegionSize: 1 << 30})
	mustCreate(t, e2, "s")
	mustPut(t, e2, "s", "a", cell("q", v))
	mustPut(t, e2, "s", "b", cell("q", v))
	r := regionAt(t, e2, "s", "a")
	r.stats.size.Add(1)
	e2.kickSplitter()
	if err := e2.WaitIdle(); err != nil {
		t.Fatal(err)
	}
	starts, sizes, at = regionInfo(t, e2, "s")
	if len(starts) != 1 || sizes[0] != exact || at[0] != 2*exact {
		t.Fatalf("measured at the threshold: regions %q sizes %v split at %v, want one of %d at %d", starts, sizes, at, exact, 2*exact)
	}
	// Measured far below it: the threshold stays.
	e3 := openMem(t, Options{Servers: 1, InitialSplitSize: 4 * exact, MaxRegionSize: 1 << 30})
	mustCreate(t, e3, "s")
	mustPut(t, e3, "s", "a", cell("q", v))
	mustPut(t, e3, "s", "b", cell("q", v))
	regionAt(t, e3, "s", "a").stats.size.Add(4 * exact)
	e3.kickSplitter()
	if err := e3.WaitIdle(); err != nil {
		t.Fatal(err)
	}
	starts, sizes, at = regionInfo(t, e3, "s")
	if len(starts) != 1 || sizes[0] != exact || at[0] != 4*exact {
		t.Fatalf("measured below the threshold: regions %q sizes %v split at %v, want one of %d at %d", starts, sizes, at, exact, 4*exact)
	}
}

// One splitter pass repeats until no region is over its threshold: 64
// equal rows written with splits off and reopened with a threshold of 8
// rows end, after WaitIdle, in exactly 8 regions of 8 rows, made by 7
// splits (one region change each).
func TestSplitPassRepeatsUntilNoneOversized(t *testing.T) {
	fs := vfs.NewMem()
	e, err := Open(Options{FS: fs, CreateIfMissing: true, DisableSplits: true, Servers: 1})
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, e, "s")
	v := strings.Repeat("v", 100)
	var muts []store.Mutation
	for i := range 64 {
		muts = append(muts, store.Put([]byte(fmt.Sprintf("r%03d", i)), cell("q", v)))
	}
	if err := e.Mutate(ctx, "s", muts...); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	row := rowBytes("r000", "q", v)
	limit := 8 * row
	e, err = Open(Options{FS: fs, Servers: 1, InitialSplitSize: limit, MaxRegionSize: limit})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := e.WaitIdle(); err != nil {
		t.Fatal(err)
	}
	starts, sizes, _ := regionInfo(t, e, "s")
	want := []string{""}
	for i := 8; i < 64; i += 8 {
		want = append(want, fmt.Sprintf("r%03d", i))
	}
	if !reflect.DeepEqual(starts, want) {
		t.Fatalf("regions %q, want %q", starts, want)
	}
	for i, s := range sizes {
		if s != limit {
			t.Fatalf("region %q has %d bytes, want %d", starts[i], s, limit)
		}
	}
	if g := e.Generation(); g != 7 {
		t.Fatalf("%d region changes, want 7 splits", g)
	}
	if got, _ := scanKeysAll(t, e, "s"); len(got) != 64 {
		t.Fatalf("%d rows after the splits", len(got))
	}
}

// The balancer moves the busiest server's newest region (highest id, then
// last in key order) to the idlest, ties going to the first server in
// order, until counts differ by at most one.
func TestBalancerMovesNewestFromBusiestToIdlest(t *testing.T) {
	for _, c := range []struct {
		name  string
		place []string // server of each region, a..
		want  []string
	}{
		{"all on rs1", []string{"rs1", "rs1", "rs1", "rs1", "rs1", "rs1"}, []string{"rs1", "rs1", "rs3", "rs2", "rs3", "rs2"}},
		{"idlest tie: the first", []string{"rs1", "rs1", "rs1"}, []string{"rs1", "rs3", "rs2"}},
		{"busiest tie: the first", []string{"rs1", "rs1", "rs2", "rs2"}, []string{"rs1", "rs3", "rs2", "rs2"}},
		{"one apart: stays", []string{"rs1", "rs1", "rs2", "rs3"}, []string{"rs1", "rs1", "rs2", "rs3"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := openMem(t, Options{DisableSplits: true})
			var splits []string
			for i := 1; i < len(c.place); i++ {
				splits = append(splits, string(rune('a'+i)))
			}
			mustCreate(t, e, "b", splits...)
			if was, err := e.SetBalancer(false); !was || err != nil {
				t.Fatalf("SetBalancer(false) = %v, %v", was, err)
			}
			for i, r := range mustRegions(t, e, "b") {
				if err := e.MoveRegion(r.Name, c.place[i]); err != nil {
					t.Fatal(err)
				}
			}
			if was, err := e.SetBalancer(true); was || err != nil {
				t.Fatalf("SetBalancer(true) = %v, %v", was, err)
			}
			var got []string
			for _, r := range mustRegions(t, e, "b") {
				got = append(got, r.Server)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("servers %v, want %v", got, c.want)
			}
		})
	}
	t.Run("the newest id first", func(t *testing.T) {
		e := openMem(t, Options{DisableSplits: true, Servers: 2})
		mustCreate(t, e, "b", "m")
		e.SetBalancer(false)
		for _, r := range mustRegions(t, e, "b") {
			if err := e.MoveRegion(r.Name, "rs1"); err != nil {
				t.Fatal(err)
			}
		}
		mustPut(t, e, "b", "c", cell("q", "v"))
		mustPut(t, e, "b", "d", cell("q", "v"))
		if err := e.SplitRegion(ctx, "b", []byte("d")); err != nil { // [,d) [d,m), newer than [m,)
			t.Fatal(err)
		}
		e.SetBalancer(true)
		var got []string
		for _, r := range mustRegions(t, e, "b") {
			got = append(got, string(r.Start)+"@"+r.Server)
		}
		if want := []string{"@rs1", "d@rs2", "m@rs1"}; !reflect.DeepEqual(got, want) {
			t.Fatalf("regions %v, want %v", got, want)
		}
	})
}

// A split the splitter cannot make (here a region holding a corrupt key)
// is reported by the next WaitIdle, once.
func TestWaitIdleReportsSplitErrors(t *testing.T) {
	e := openMem(t, Options{Servers: 1, InitialSplitSize: 100, MaxRegionSize: 100})
	mustCreate(t, e, "s")
	mustPut(t, e, "s", "a", cell("q", "v"))
	if err := e.WaitIdle(); err != nil {
		t.Fatalf("before the corruption: %v", err)
	}
	tb, _ := e.table("s")
	if err := e.db.Set(append(tableStart(tb.id), 'x'), nil, nil); err != nil { // a row without its terminator
		t.Fatal(err)
	}
	regionAt(t, e, "s", "a").stats.size.Store(1000)
	if err := e.WaitIdle(); !errors.Is(err, errCorruptKey) {
		t.Fatalf("WaitIdle after a failed split: %v, want the corrupt key", err)
	}
	regionAt(t, e, "s", "a").stats.size.Store(0)
	if err := e.WaitIdle(); err != nil {
		t.Fatalf("the error reported again: %v", err)
	}
}
