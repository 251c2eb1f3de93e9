package embedded

import (
	"bytes"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"commentbench/hbase/wire"
	"commentbench/store"
)

// checkTiling fails unless a table's regions cover the key space without
// gap or overlap and their names follow HBASE-WIRE 5.1.
func checkTiling(t *testing.T, regions []store.Region) {
	t.Helper()
	if len(regions) == 0 || len(regions[0].Start) != 0 || regions[len(regions)-1].End != nil {
		t.Fatalf("regions do not span the table: %+v", regions)
	}
	for i, r := range regions {
		if i > 0 && !bytes.Equal(regions[i-1].End, r.Start) {
			t.Fatalf("gap or overlap between %q and %q", regions[i-1].Name, r.Name)
		}
		if r.End != nil && bytes.Compare(r.Start, r.End) >= 0 {
			t.Fatalf("empty region %q", r.Name)
		}
		if r.Name != string(wire.RegionName(r.Table, r.Start, r.ID)) {
			t.Fatalf("bad name %q", r.Name)
		}
	}
}

// checkBalance fails unless region counts per server differ by at most 1.
func checkBalance(t *testing.T, e *Engine) map[string]int {
	t.Helper()
	stats, err := e.RegionStats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, s := range e.Servers() {
		count[s] = 0
	}
	for _, s := range stats {
		count[s.Server]++
	}
	lo, hi := len(stats), 0
	for _, n := range count {
		lo, hi = min(lo, n), max(hi, n)
	}
	if hi-lo > 1 {
		t.Fatalf("unbalanced: %v", count)
	}
	return count
}

func mustRegions(t *testing.T, e *Engine, table string) []store.Region {
	t.Helper()
	r, err := e.Regions(ctx, table)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestSplitDuringPutsAndScans: writers add distinct rows while scanners
// sweep the table and regions split under them (explicitly and
// automatically). Every acknowledged row must end up present exactly once,
// and every scan must see strictly ordered rows, none twice.
func TestSplitDuringPutsAndScans(t *testing.T) {
	e := openMem(t, Options{InitialSplitSize: 8 << 10, MaxRegionSize: 32 << 10})
	mustCreate(t, e, "t")

	const writers, rowsPerWriter = 4, 1500
	value := bytes.Repeat([]byte("v"), 100)
	var acked sync.Map
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < rowsPerWriter; i += 4 {
				var muts []store.Mutation
				for j := i; j < i+4; j++ {
					// Interleave writers across the key space.
					row := fmt.Sprintf("row%05d-%d", (j*7919)%100000, w)
					muts = append(muts, store.Put([]byte(row), store.Cell{Qualifier: []byte("q"), Value: value}))
				}
				if err := e.Mutate(ctx, "t", muts...); err != nil {
					t.Error(err)
					return
				}
				for _, m := range muts {
					acked.Store(string(m.Row), true)
				}
			}
		}()
	}

	var scanWG sync.WaitGroup
	var mu sync.Mutex
	scans, scansAcrossChange := 0, 0
	for s := range 2 {
		scanWG.Add(1)
		go func() {
			defer scanWG.Done()
			rev := s == 1
			for {
				select {
				case <-stop:
					return
				default:
				}
				gen := e.Generation()
				var prev []byte
				_, err := e.Scan(ctx, "t", store.Scan{Reversed: rev}, func(r store.Row) bool {
					if prev != nil {
						c := bytes.Compare(prev, r.Key)
						if (!rev && c >= 0) || (rev && c <= 0) {
							t.Errorf("scan (reversed=%v) out of order or duplicate: %q then %q", rev, prev, r.Key)
							return false
						}
					}
					prev = r.Key
					return true
				})
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				scans++
				if e.Generation() != gen {
					scansAcrossChange++
				}
				mu.Unlock()
			}
		}()
	}

	moved := make(chan struct{})
	go func() { // explicit splits and moves alongside the automatic ones
		defer close(moved)
		// 60 at least, then on until a scan has overlapped one (a loaded
		// machine may not run the scanners while the writers write).
		deadline := time.Now().Add(10 * time.Second)
		for i := 0; ; i++ {
			mu.Lock()
			overlapped := scansAcrossChange > 0
			mu.Unlock()
			if i >= 60 && (overlapped || time.Now().After(deadline)) {
				return
			}
			time.Sleep(time.Millisecond)
			var key []byte
			acked.Range(func(k, _ any) bool { key = []byte(k.(string)); return i%2 == 0 })
			if key != nil {
				_ = e.SplitRegion(ctx, "t", key) // fails if key is already a boundary
			}
			regions, _ := e.Regions(ctx, "t")
			r := regions[i%len(regions)]
			_ = e.MoveRegion(r.Name, e.Servers()[i%3])
		}
	}()

	wg.Wait()
	<-moved
	close(stop)
	scanWG.Wait()
	if err := e.WaitIdle(); err != nil {
		t.Fatal(err)
	}

	seen := map[string]int{}
	_, err := e.Scan(ctx, "t", store.Scan{}, func(r store.Row) bool { seen[string(r.Key)]++; return true })
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	acked.Range(func(k, _ any) bool {
		n++
		if seen[k.(string)] != 1 {
			t.Errorf("row %q seen %d times", k, seen[k.(string)])
		}
		return true
	})
	if n != writers*rowsPerWriter || len(seen) != n {
		t.Fatalf("acked %d rows, table holds %d", n, len(seen))
	}
	regions := mustRegions(t, e, "t")
	checkTiling(t, regions)
	if len(regions) < 4 {
		t.Fatalf("expected splits, got %d regions", len(regions))
	}
	if scansAcrossChange == 0 {
		t.Fatalf("no scan overlapped a region change (%d scans): the test proved nothing", scans)
	}
	t.Logf("%d regions, %d scans, %d across region changes", len(regions), scans, scansAcrossChange)
}

func TestAutoSplitAndBalance(t *testing.T) {
	clk := newClock(5000) // a stuck clock: ids must still grow
	e := openMem(t, Options{Now: clk.now, InitialSplitSize: 4 << 10, MaxRegionSize: 16 << 10})
	mustCreate(t, e, "a")
	mustCreate(t, e, "b")
	parent := mustRegions(t, e, "a")[0]

	value := bytes.Repeat([]byte("x"), 100)
	for i := 0; i < 2000; i += 50 {
		var muts []store.Mutation
		for j := i; j < i+50; j++ {
			muts = append(muts, store.Put([]byte(fmt.Sprintf("k%06d", j)), store.Cell{Qualifier: []byte("q"), Value: value}))
		}
		if err := e.Mutate(ctx, "a", muts...); err != nil {
			t.Fatal(err)
		}
		if err := e.Mutate(ctx, "b", muts[:10]...); err != nil {
			t.Fatal(err)
		}
		// Each batch's splits done before the next: bytes written to a
		// region while it splits are not counted toward the next split
		// (TestSplitDuringPutsAndScans has writes race splits).
		if err := e.WaitIdle(); err != nil {
			t.Fatal(err)
		}
	}
	regions := mustRegions(t, e, "a")
	checkTiling(t, regions)
	// ~250 KB over a 16 KB max: many regions, none far over the limit.
	if len(regions) < 8 {
		t.Fatalf("only %d regions after auto splits", len(regions))
	}
	for _, r := range regions {
		if r.ID <= parent.ID {
			t.Fatalf("daughter %q id %d not above parent's %d", r.Name, r.ID, parent.ID)
		}
	}
	counts := checkBalance(t, e)
	t.Logf("%d regions of a; per server %v", len(regions), counts)

	// An explicit split: both daughters share one id above the parent's.
	p := regions[0]
	if err := e.SplitRegion(ctx, "a", nil); err != nil {
		t.Fatal(err)
	}
	after := mustRegions(t, e, "a")
	checkTiling(t, after)
	if len(after) <= len(regions) || after[0].ID <= p.ID || after[0].ID != after[1].ID || after[0].Name == p.Name {
		t.Fatalf("split of %q gave %+v, %+v", p.Name, after[0], after[1])
	}
	checkBalance(t, e)

	// Every row is still there once.
	keys, _ := scanKeysAll(t, e, "a")
	if len(keys) != 2000 || !sort.StringsAreSorted(keys) {
		t.Fatalf("%d rows after splits", len(keys))
	}
}

// TestSteppingPolicy: a table's only region on its server splits at the
// initial size, so one region splits early; afterwards the max size rules.
func TestSteppingPolicy(t *testing.T) {
	e := openMem(t, Options{Servers: 1, InitialSplitSize: 2 << 10, MaxRegionSize: 1 << 30})
	mustCreate(t, e, "s")
	value := bytes.Repeat([]byte("x"), 100)
	for i := range 100 {
		mustPut(t, e, "s", fmt.Sprintf("k%03d", i), store.Cell{Qualifier: []byte("q"), Value: value})
	}
	e.WaitIdle()
	if n := len(mustRegions(t, e, "s")); n != 2 {
		t.Fatalf("%d regions, want 2 (one split at the initial size, then the 1 GB max)", n)
	}
}

func scanKeysAll(t *testing.T, e *Engine, table string) ([]string, store.ScanMetrics) {
	var keys []string
	m, err := e.Scan(ctx, table, store.Scan{}, func(r store.Row) bool { keys = append(keys, string(r.Key)); return true })
	if err != nil {
		t.Fatal(err)
	}
	return keys, m
}

func TestRoundRobinAcrossTables(t *testing.T) {
	e := openMem(t, Options{})
	var servers []string
	for i := range 8 {
		name := fmt.Sprintf("t%d", i)
		mustCreate(t, e, name)
		servers = append(servers, mustRegions(t, e, name)[0].Server)
	}
	want := []string{"rs1", "rs2", "rs3", "rs1", "rs2", "rs3", "rs1", "rs2"}
	if !reflect.DeepEqual(servers, want) {
		t.Fatalf("servers %v, want %v", servers, want)
	}
	mustCreate(t, e, "pre", "b", "c", "d")
	var pre []string
	for _, r := range mustRegions(t, e, "pre") {
		pre = append(pre, r.Server)
	}
	if !reflect.DeepEqual(pre, []string{"rs3", "rs1", "rs2", "rs3"}) {
		t.Fatalf("pre-split servers %v", pre)
	}
}

func TestMoveRegion(t *testing.T) {
	e := openMem(t, Options{})
	mustCreate(t, e, "t", "m")
	mustPut(t, e, "t", "a", cell("q", "v"))
	r := mustRegions(t, e, "t")[0]
	gen := e.Generation()
	changed := e.RegionsChanged()
	if err := e.MoveRegion(r.Name, "rs3"); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	default:
		t.Fatal("RegionsChanged not signalled")
	}
	if e.Generation() <= gen {
		t.Fatal("generation did not grow")
	}
	got, ok := e.RegionByName(r.Name)
	if !ok || got.Server != "rs3" || got.ID != r.ID {
		t.Fatalf("after move: %+v", got)
	}
	// Counters follow the region: the put is still counted.
	stats, _ := e.RegionStats(ctx)
	if stats[0].Name != r.Name || stats[0].WriteRequests != 1 {
		t.Fatalf("counters lost on move: %+v", stats[0])
	}
	if got := cellsOf(mustGet(t, e, "t", "a")); got != "q=v" {
		t.Fatalf("data after move: %q", got)
	}
}

// TestReopen: rows, tables and regions (names, ids, servers) survive a
// close and reopen of the data dir, and region ids keep growing after it.
func TestReopen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	clk := newClock(1_700_000_000_000)
	opts := Options{Dir: dir, CreateIfMissing: true, Now: clk.now, DisableSplits: true}
	e, err := Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, e, "t", "k050")
	mustCreate(t, e, "u")
	for i := range 100 {
		mustPut(t, e, "t", fmt.Sprintf("k%03d", i), cell("q", fmt.Sprint(i)))
	}
	mustPut(t, e, "u", "x", cell("q", "1"))
	if err := e.SplitRegion(ctx, "t", []byte("k020")); err != nil {
		t.Fatal(err)
	}
	if err := e.SplitRegion(ctx, "t", nil); err != nil {
		t.Fatal(err)
	}
	if err := e.Mutate(ctx, "t", store.Delete([]byte("k007"))); err != nil {
		t.Fatal(err)
	}
	wantRegions := mustRegions(t, e, "t")
	wantTables, _ := e.ListTables(ctx)
	wantKeys, _ := scanKeysAll(t, e, "t")
	var maxID uint64
	for _, r := range wantRegions {
		maxID = max(maxID, r.ID)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}

	clk.set(1) // a clock gone backwards must not reissue ids
	opts.CreateIfMissing = false
	e, err = Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if got := mustRegions(t, e, "t"); !reflect.DeepEqual(got, wantRegions) {
		t.Fatalf("regions after reopen:\n got %+v\nwant %+v", got, wantRegions)
	}
	if got, _ := e.ListTables(ctx); !reflect.DeepEqual(got, wantTables) {
		t.Fatalf("tables after reopen: %+v", got)
	}
	if got, _ := scanKeysAll(t, e, "t"); !reflect.DeepEqual(got, wantKeys) || len(got) != 99 {
		t.Fatalf("rows after reopen: %d", len(got))
	}
	if got := cellsOf(mustGet(t, e, "u", "x")); got != "q=1" {
		t.Fatalf("table u after reopen: %q", got)
	}
	if err := e.SplitRegion(ctx, "t", []byte("k090")); err != nil {
		t.Fatal(err)
	}
	for _, r := range mustRegions(t, e, "t") {
		if strings.HasPrefix(r.Name, "t,k090,") && r.ID <= maxID {
			t.Fatalf("id %d reissued after reopen (max before %d)", r.ID, maxID)
		}
	}
	mustCreate(t, e, "v") // table ids continue too: no clash with t or u
	if r := mustGet(t, e, "v", "x"); r.Found() {
		t.Fatal("new table sees another table's data")
	}
	before := mustRegions(t, e, "t")
	e.Close()

	// Reopened with fewer servers, regions of the lost server are
	// reassigned and keep their names.
	opts.Servers = 2
	e, err = Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if !slices.ContainsFunc(before, func(r store.Region) bool { return r.Server == "rs3" }) {
		t.Fatal("test setup: no region on rs3 to reassign")
	}
	after := mustRegions(t, e, "t")
	for i, r := range after {
		if r.Server == "rs3" || r.Name != before[i].Name {
			t.Fatalf("after reopen with 2 servers: %+v (was %+v)", r, before[i])
		}
	}
}
