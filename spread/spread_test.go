package spread

import (
	"fmt"
	"math"
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

func TestTrackerDeltas(t *testing.T) {
	r1 := store.Region{Table: "t", Name: "r1", Server: "rs1"}
	r2 := store.Region{Table: "t", Name: "r2", Server: "rs2", Start: []byte("m")}
	tr := NewTracker()
	tr.Reset([]store.RegionStat{{Region: r1, Counters: store.Counters{ReadRequests: 100}}})
	d := tr.Observe([]store.RegionStat{
		{Region: r1, Counters: store.Counters{ReadRequests: 130, WriteRequests: 5}},
		{Region: r2, Counters: store.Counters{WriteRequests: 7}}, // born since: counts from zero
	})
	if d[0].ReadRequests != 30 || d[0].WriteRequests != 5 || d[1].WriteRequests != 7 {
		t.Fatalf("deltas %+v", d)
	}
	// r1's counters restart (a server restarted): the new value is the delta.
	d = tr.Observe([]store.RegionStat{{Region: r1, Counters: store.Counters{ReadRequests: 4}}})
	if d[0].ReadRequests != 4 {
		t.Fatalf("after restart delta %+v, want 4 reads", d[0])
	}
	tot := tr.Totals()
	if len(tot) != 2 || tot[0].Reads != 34 || tot[0].Writes != 5 || tot[1].Writes != 7 {
		t.Fatalf("totals %+v", tot)
	}
}

// A region's fair writes follow the regions its table had in each
// interval: one region took all of the first, then its two daughters
// shared the second evenly by right, whatever each took.
func TestTrackerFairWrites(t *testing.T) {
	p := store.Region{Table: "t", Name: "p"}
	a := store.Region{Table: "t", Name: "a", End: []byte("m")}
	b := store.Region{Table: "t", Name: "b", Start: []byte("m")}
	u1, u2 := store.Region{Table: "u", Name: "u1"}, store.Region{Table: "u", Name: "u2"}
	tr := NewTracker()
	tr.Reset(nil)
	tr.Observe([]store.RegionStat{
		{Region: p, Counters: store.Counters{WriteRequests: 100}},
		{Region: u1, Counters: store.Counters{WriteRequests: 10}}, {Region: u2},
	})
	tr.Observe([]store.RegionStat{
		{Region: a, Counters: store.Counters{WriteRequests: 30}},
		{Region: b, Counters: store.Counters{WriteRequests: 70}},
		{Region: u1, Counters: store.Counters{WriteRequests: 10}}, {Region: u2},
	})
	want := map[string]float64{"p": 100, "a": 50, "b": 50, "u1": 5, "u2": 5}
	for _, l := range tr.Totals() {
		if l.Fair != want[l.Name] {
			t.Errorf("region %s: fair writes %v, want %v", l.Name, l.Fair, want[l.Name])
		}
	}
	for _, ts := range Tables(tr.Totals(), nil, nil, 1) {
		if ts.Table == "t" && (ts.HottestWrites.Name != "p" || ts.HottestWrites.Share != 0.5 || ts.HottestWrites.Fair != 0.5) {
			t.Errorf("t's hottest writes %+v, want p with half, its fair share half too", ts.HottestWrites)
		}
	}
}

func TestTablesSpread(t *testing.T) {
	loads := []Load{
		{Region: store.Region{Table: "pc", Name: "a", Server: "rs1"}, Reads: 90},
		{Region: store.Region{Table: "pc", Name: "b", Server: "rs2", Start: []byte("m")}, Writes: 10},
	}
	got := Tables(loads, []string{"rs1", "rs2", "rs3"}, nil, 1)
	if len(got) != 1 {
		t.Fatalf("%d tables, want 1 (no all-tables line for one table)", len(got))
	}
	ts := got[0]
	if ts.Requests != 100 || ts.HottestServer != "rs1" || math.Abs(ts.HottestServerShare-0.9) > 1e-9 ||
		math.Abs(ts.Ceiling-1/0.9) > 1e-9 || ts.RegionMaxMean != 1.8 {
		t.Errorf("spread %+v", ts)
	}
	// rs3 served nothing and still counts: 3 servers, mean 33.3, max 90.
	if math.Abs(ts.ServerMaxMean-2.7) > 1e-9 {
		t.Errorf("server max/mean %v, want 2.7 (idle rs3 counted)", ts.ServerMaxMean)
	}
	if len(ts.Hottest) != 1 || ts.Hottest[0].Name != "a" || ts.Hottest[0].Range != "[start, end)" {
		t.Errorf("hottest %+v", ts.Hottest)
	}
}

// The region that took most of a table's writes is named with its share of
// them, whatever the reads did; a table nothing wrote to has none.
func TestHottestWrites(t *testing.T) {
	loads := []Load{
		{Region: store.Region{Table: "pc", Name: "a", Server: "rs1", End: []byte("m")}, Reads: 900},
		{Region: store.Region{Table: "pc", Name: "b", Server: "rs2", Start: []byte("m"), End: []byte("t")}, Reads: 5, Writes: 30},
		{Region: store.Region{Table: "pc", Name: "c", Server: "rs3", Start: []byte("t")}, Writes: 10},
		{Region: store.Region{Table: "user", Name: "u1", Server: "rs1"}, Reads: 50},
		{Region: store.Region{Table: "order", Name: "o1", Server: "rs2", End: []byte("k")}, Writes: 20},
		{Region: store.Region{Table: "order", Name: "o2", Server: "rs3", Start: []byte("k")}, Writes: 20},
		{Region: store.Region{Table: "idle", Name: "i1", Server: "rs1"}},
	}
	describe := func(table string, key []byte) string { return table + ":" + string(key) }
	got := map[string]TableSpread{}
	for _, ts := range Tables(loads, []string{"rs1", "rs2", "rs3"}, describe, 2) {
		got[ts.Table] = ts
	}
	cases := []struct {
		table  string
		writes uint64
		want   *RegionShare
	}{
		// The reads went to a; the writes to b, three in four.
		{"pc", 40, &RegionShare{Name: "b", Server: "rs2", Range: "[pc:m, pc:t)", Share: 0.75}},
		// Only reads.
		{"user", 0, nil},
		// A tie goes to the region first in key order.
		{"order", 40, &RegionShare{Name: "o1", Server: "rs2", Range: "[start, order:k)", Share: 0.5}},
		// No requests at all.
		{"idle", 0, nil},
		// Every table together: b's 30 of all 80 writes.
		{AllTables, 80, &RegionShare{Name: "b", Server: "rs2", Range: "[pc:m, pc:t)", Share: 0.375}},
	}
	for _, c := range cases {
		ts, ok := got[c.table]
		if !ok {
			t.Errorf("no spread for table %s", c.table)
			continue
		}
		if ts.Writes != c.writes {
			t.Errorf("%s: %d writes, want %d", c.table, ts.Writes, c.writes)
		}
		switch {
		case c.want == nil && ts.HottestWrites != nil:
			t.Errorf("%s: hottest writes %+v, want none", c.table, *ts.HottestWrites)
		case c.want != nil && (ts.HottestWrites == nil || *ts.HottestWrites != *c.want):
			t.Errorf("%s: hottest writes %+v, want %+v", c.table, ts.HottestWrites, *c.want)
		}
	}
	// The requests' hottest region is still the one that served the reads.
	if pc := got["pc"]; len(pc.Hottest) == 0 || pc.Hottest[0].Name != "a" {
		t.Errorf("pc hottest by requests %+v, want a first", pc.Hottest)
	}
	// Without a describer the range's keys are quoted.
	plain := Tables(loads[1:3], []string{"rs2", "rs3"}, nil, 1)
	if len(plain) != 1 || plain[0].HottestWrites == nil || plain[0].HottestWrites.Range != `["m", "t")` {
		t.Errorf("undescribed hottest writes %+v", plain)
	}
}

// The all-tables line counts only tables that served requests: idle ones
// would add regions with nothing in them and flatter the spread.
func TestAllTablesLeavesIdleOut(t *testing.T) {
	r := func(table, name, server string, reads uint64) Load {
		return Load{Region: store.Region{Table: table, Name: name, Server: server}, Reads: reads}
	}
	loads := []Load{r("a", "a1", "rs1", 30), r("a", "a2", "rs2", 10), r("b", "b1", "rs1", 60), r("idle", "i1", "rs2", 0), r("idle", "i2", "rs1", 0)}
	ts := Tables(loads, []string{"rs1", "rs2"}, nil, 3)
	all := ts[len(ts)-1]
	if all.Table != AllTables || all.Regions != 3 || all.Requests != 100 || all.Hottest[0].Share != 0.6 {
		t.Errorf("all tables: %+v, want 3 regions, 100 requests, b1 at 0.6", all)
	}
	one := Tables(loads[2:], []string{"rs1", "rs2"}, nil, 3)
	if len(one) != 2 || one[len(one)-1].Table == AllTables {
		t.Errorf("one busy table and one idle: %d entries, want no all-tables line", len(one))
	}
}

// A region idle over an interval has nothing to show for it, whichever of
// its counters stood still: an unchanged counter is not one that went
// backwards.
func TestTrackerIdleInterval(t *testing.T) {
	r1 := store.Region{Table: "t", Name: "r1", Server: "rs1"}
	c := store.Counters{ReadRequests: 10, WriteRequests: 20, RowsScanned: 30, BytesIn: 40, BytesOut: 50}
	tr := NewTracker()
	tr.Reset([]store.RegionStat{{Region: r1, Counters: c}})
	if d := tr.Observe([]store.RegionStat{{Region: r1, Counters: c}}); d[0].Counters != (store.Counters{}) {
		t.Errorf("an idle interval's delta %+v, want zero", d[0].Counters)
	}
	// Each counter moving alone shows as itself.
	for i, next := range []store.Counters{
		{ReadRequests: 11, WriteRequests: 20, RowsScanned: 30, BytesIn: 40, BytesOut: 50},
		{ReadRequests: 11, WriteRequests: 22, RowsScanned: 30, BytesIn: 40, BytesOut: 50},
		{ReadRequests: 11, WriteRequests: 22, RowsScanned: 33, BytesIn: 40, BytesOut: 50},
		{ReadRequests: 11, WriteRequests: 22, RowsScanned: 33, BytesIn: 44, BytesOut: 50},
		{ReadRequests: 11, WriteRequests: 22, RowsScanned: 33, BytesIn: 44, BytesOut: 55},
	} {
		d := tr.Observe([]store.RegionStat{{Region: r1, Counters: next}})[0].Counters
		want := next.Sub(c)
		if d != want || d == (store.Counters{}) {
			t.Errorf("step %d: delta %+v, want %+v", i, d, want)
		}
		c = next
	}
	if tot := tr.Totals(); len(tot) != 1 || tot[0].Reads != 1 || tot[0].Writes != 2 {
		t.Errorf("totals %+v, want 1 read and 2 writes", tot)
	}
}

// Totals come by table, then by start key, whatever order the regions were
// seen in.
func TestTotalsOrder(t *testing.T) {
	regions := []store.Region{
		{Table: "b", Name: "b2", Start: []byte("m")},
		{Table: "a", Name: "a2", Start: []byte("z")},
		{Table: "b", Name: "b1"},
		{Table: "a", Name: "a1", Start: []byte("c")},
	}
	for range 10 { // the tracker keeps regions in a map: try its orders
		tr := NewTracker()
		var stats []store.RegionStat
		for _, r := range regions {
			stats = append(stats, store.RegionStat{Region: r, Counters: store.Counters{ReadRequests: 1}})
		}
		tr.Observe(stats)
		var names []string
		for _, l := range tr.Totals() {
			names = append(names, l.Name)
		}
		if fmt.Sprint(names) != "[a1 a2 b1 b2]" {
			t.Fatalf("totals in order %v, want [a1 a2 b1 b2]", names)
		}
	}
}

// Servers that served a table equally: the first by name is the hottest,
// so a report does not change from one run to the next.
func TestHottestServerTie(t *testing.T) {
	loads := []Load{
		{Region: store.Region{Table: "t", Name: "r1", Server: "rs2"}, Reads: 40},
		{Region: store.Region{Table: "t", Name: "r2", Server: "rs1"}, Reads: 40},
		{Region: store.Region{Table: "t", Name: "r3", Server: "rs3"}, Reads: 20},
	}
	ts := Tables(loads, []string{"rs3", "rs2", "rs1"}, nil, 3)[0]
	if ts.HottestServer != "rs1" || ts.HottestServerShare != 0.4 || ts.Ceiling != 2.5 {
		t.Errorf("hottest server %s at %v (ceiling %v), want rs1 at 0.4 (2.5)", ts.HottestServer, ts.HottestServerShare, ts.Ceiling)
	}
}
