// Package spread measures how regions, rows and requests are distributed
// over a table's regions and the cluster's servers: counts per server, the
// max/mean ratio, the Gini coefficient, and the tables that show them.
//
// It knows store.Region and nothing of the comment schema or of how the
// numbers were collected.
package spread

import (
	"bytes"
	"fmt"
	"maps"
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

// Load is one region's activity over a period.
type Load struct {
	store.Region
	Reads, Writes uint64
	// Fair is the writes the region would have taken had the writes to its
	// table in each interval spread evenly over the regions it had then: a
	// region that lived through a run while others split late is not hot
	// for having taken more than 1/Regions of it.
	Fair float64
}

// Requests is what a region served: the load that saturates a server.
func (l Load) Requests() uint64 { return l.Reads + l.Writes }

// RegionShare is one region's part of its table's requests.
type RegionShare struct {
	Name   string  `json:"name"`
	Server string  `json:"server"`
	Range  string  `json:"range"` // start and end keys, decoded where possible
	Share  float64 `json:"share"` // of the table's requests, 0..1
	// Fair is, for the hottest writes, the share an even spread over the
	// regions of each interval gives the region (Load.Fair); 0 elsewhere.
	Fair float64 `json:"fair,omitempty"`
}

// TableSpread is how one table's requests fell over its regions and servers.
type TableSpread struct {
	Table    string        `json:"table"`
	Regions  int           `json:"regions"`
	Requests uint64        `json:"requests"`
	Hottest  []RegionShare `json:"hottest"`
	// Writes and HottestWrites: the region that took most of the table's
	// writes, with its share of them. A hot product or a monotonic key shows
	// here even when reads spread over every region.
	Writes        uint64       `json:"writes"`
	HottestWrites *RegionShare `json:"hottest_writes,omitempty"`
	// Over regions and over servers: max/mean (1 is even) and Gini (0 is even).
	RegionMaxMean float64 `json:"region_max_mean"`
	RegionGini    float64 `json:"region_gini"`
	ServerMaxMean float64 `json:"server_max_mean"`
	ServerGini    float64 `json:"server_gini"`
	// HottestServerShare is the busiest server's part of the table's requests.
	HottestServer      string  `json:"hottest_server"`
	HottestServerShare float64 `json:"hottest_server_share"`
	// Ceiling is 1/HottestServerShare: how many servers' worth of this load
	// the cluster takes before its hottest server saturates.
	Ceiling float64 `json:"ceiling"`
	// Unsplittable, when set, is the row that took most of the hottest
	// writes region's writes: a region that is one hot row stays hot,
	// since no split divides a row (see MarkUnsplittable).
	Unsplittable *RowShare `json:"unsplittable,omitempty"`
}

// RowShare is one row's part of its region's writes.
type RowShare struct {
	Row   string  `json:"row"` // decoded, as the design reads it
	Share float64 `json:"share"`
}

// RowWrites are the writes into one row over a period.
type RowWrites struct {
	Table  string
	Key    []byte
	Writes int64
}

// Unsplittable is the least part of its region's writes one row must take
// for the region to be called unsplittable: past half, a split at any row
// boundary leaves that row's half hot.
const Unsplittable = 0.5

// MarkUnsplittable names, for each table whose hottest writes region
// (from loads) took at least Unsplittable of it into one of rows, that
// row and its share of the region's writes.
func MarkUnsplittable(ts []TableSpread, loads []Load, rows []RowWrites, describe Describe) {
	for i := range ts {
		w := ts[i].HottestWrites
		if w == nil {
			continue
		}
		l := loadNamed(loads, w.Name)
		if l == nil || l.Writes == 0 {
			continue
		}
		if r := topRowIn(rows, *l); r != nil && float64(r.Writes) >= Unsplittable*float64(l.Writes) {
			ts[i].Unsplittable = &RowShare{Row: describeRow(describe, r), Share: min(1, float64(r.Writes)/float64(l.Writes))}
		}
	}
}

func loadNamed(loads []Load, name string) *Load {
	for i := range loads {
		if loads[i].Name == name {
			return &loads[i]
		}
	}
	return nil
}

// topRowIn is the most written of rows that lies in l's region.
func topRowIn(rows []RowWrites, l Load) *RowWrites {
	var top *RowWrites
	for i, r := range rows {
		if r.Table == l.Table && l.Contains(r.Key) && (top == nil || r.Writes > top.Writes) {
			top = &rows[i]
		}
	}
	return top
}

func describeRow(describe Describe, r *RowWrites) string {
	if describe != nil {
		return describe(r.Table, r.Key)
	}
	return fmt.Sprintf("%s[%q]", r.Table, r.Key)
}

// Tracker turns snapshots of ever-growing region counters into per-interval
// activity, and sums that activity per region.
type Tracker struct {
	prev   map[string]store.Counters
	totals map[string]*Load
}

// NewTracker starts with nothing seen.
func NewTracker() *Tracker {
	return &Tracker{prev: map[string]store.Counters{}, totals: map[string]*Load{}}
}

// Observe returns each region's activity since the previous snapshot and adds
// it to the totals. A region seen for the first time, or whose counters went
// backwards (a server restarted them), counts from zero.
func (t *Tracker) Observe(stats []store.RegionStat) []store.RegionStat {
	out := make([]store.RegionStat, 0, len(stats))
	type table struct {
		writes  uint64
		regions int
	}
	tables := map[string]*table{}
	for _, s := range stats {
		d := s.Counters
		if p, ok := t.prev[s.Name]; ok && !backwards(s.Counters, p) {
			d = s.Counters.Sub(p)
		}
		t.prev[s.Name] = s.Counters
		tot := t.totals[s.Name]
		if tot == nil {
			tot = &Load{}
			t.totals[s.Name] = tot
		}
		tot.Region = s.Region // a moved region keeps its name but changes server
		tot.Reads += d.ReadRequests
		tot.Writes += d.WriteRequests
		out = append(out, store.RegionStat{Region: s.Region, Counters: d})
		tb := tables[s.Table]
		if tb == nil {
			tb = &table{}
			tables[s.Table] = tb
		}
		tb.writes += d.WriteRequests
		tb.regions++
	}
	for _, s := range stats {
		tb := tables[s.Table]
		t.totals[s.Name].Fair += float64(tb.writes) / float64(tb.regions)
	}
	return out
}

func backwards(c, p store.Counters) bool {
	return c.ReadRequests < p.ReadRequests || c.WriteRequests < p.WriteRequests ||
		c.RowsScanned < p.RowsScanned || c.BytesIn < p.BytesIn || c.BytesOut < p.BytesOut
}

// Reset makes stats the baseline and forgets the totals: a run's warm-up
// ends here.
func (t *Tracker) Reset(stats []store.RegionStat) {
	t.totals = map[string]*Load{}
	t.Observe(stats)
	t.totals = map[string]*Load{}
}

// Totals is the activity summed per region since the last Reset, for every
// region seen (a region that split away keeps what it served before).
func (t *Tracker) Totals() []Load {
	out := make([]Load, 0, len(t.totals))
	for _, l := range t.totals {
		out = append(out, *l)
	}
	slices.SortFunc(out, func(a, b Load) int {
		if c := strings.Compare(a.Table, b.Table); c != 0 {
			return c
		}
		return bytes.Compare(a.Start, b.Start)
	})
	return out
}

// Describe renders a region's key range for people; the caller decodes keys
// its own way (the key layout), or nil prints them quoted.
type Describe func(table string, key []byte) string

// AllTables names the spread of every table's requests together.
const AllTables = "*"

// Tables computes each table's spread from per-region loads, naming the top
// hottest regions, and last the spread of all tables that served requests
// together (AllTables).
// servers lists every server, so one that served nothing counts as idle.
func Tables(loads []Load, servers []string, describe Describe, top int) []TableSpread {
	var out []TableSpread
	byTable := map[string][]Load{}
	var order []string
	for _, l := range loads {
		if _, ok := byTable[l.Table]; !ok {
			order = append(order, l.Table)
		}
		byTable[l.Table] = append(byTable[l.Table], l)
	}
	var busy []Load // the tables that served requests: idle ones would flatter the spread
	busyTables := 0
	for _, t := range order {
		ts := table(t, byTable[t], servers, describe, top)
		out = append(out, ts)
		if ts.Requests > 0 {
			busy = append(busy, byTable[t]...)
			busyTables++
		}
	}
	if busyTables > 1 {
		out = append(out, table(AllTables, busy, servers, describe, top))
	}
	return out
}

func table(name string, loads []Load, servers []string, describe Describe, top int) TableSpread {
	ts := TableSpread{Table: name, Regions: len(loads)}
	perRegion := make([]float64, len(loads))
	perServer := map[string]float64{}
	for _, s := range servers {
		perServer[s] = 0
	}
	for i, l := range loads {
		perRegion[i] = float64(l.Requests())
		perServer[l.Server] += float64(l.Requests())
		ts.Requests += l.Requests()
	}
	names := slices.Sorted(maps.Keys(perServer))
	serverLoads := make([]float64, len(names))
	for i, s := range names {
		serverLoads[i] = perServer[s]
		if perServer[s] > ts.HottestServerShare {
			ts.HottestServer, ts.HottestServerShare = s, perServer[s]
		}
	}
	ts.RegionMaxMean, ts.RegionGini = MaxMean(perRegion), Gini(perRegion)
	ts.ServerMaxMean, ts.ServerGini = MaxMean(serverLoads), Gini(serverLoads)
	if ts.Requests == 0 {
		ts.HottestServer, ts.HottestServerShare = "", 0
		return ts
	}
	ts.HottestServerShare /= float64(ts.Requests)
	ts.Ceiling = 1 / ts.HottestServerShare
	ts.Hottest = hottest(loads, ts.Requests, describe, top)
	ts.Writes, ts.HottestWrites = hottestWrites(loads, describe)
	return ts
}

func hottestWrites(loads []Load, describe Describe) (uint64, *RegionShare) {
	var total uint64
	var top *Load
	for i := range loads {
		total += loads[i].Writes
		if top == nil || loads[i].Writes > top.Writes {
			top = &loads[i]
		}
	}
	if total == 0 {
		return 0, nil
	}
	return total, &RegionShare{Name: top.Name, Server: top.Server, Share: float64(top.Writes) / float64(total),
		Fair: top.Fair / float64(total), Range: keyRange(top.Table, top.Start, top.End, describe)}
}

func hottest(loads []Load, total uint64, describe Describe, top int) []RegionShare {
	sorted := slices.Clone(loads)
	slices.SortStableFunc(sorted, func(a, b Load) int { return cmpDesc(a.Requests(), b.Requests()) })
	var out []RegionShare
	for _, l := range sorted[:min(top, len(sorted))] {
		if l.Requests() == 0 {
			break
		}
		out = append(out, RegionShare{Name: l.Name, Server: l.Server, Share: float64(l.Requests()) / float64(total),
			Range: keyRange(l.Table, l.Start, l.End, describe)})
	}
	return out
}

func cmpDesc(a, b uint64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

func keyRange(table string, start, end []byte, describe Describe) string {
	show := func(k []byte, edge string) string {
		if len(k) == 0 {
			return edge
		}
		if describe != nil {
			return describe(table, k)
		}
		return fmt.Sprintf("%q", k)
	}
	return "[" + show(start, "start") + ", " + show(end, "end") + ")"
}
