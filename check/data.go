package check

import (
	"bytes"
	"context"
	"fmt"
	"iter"
	"slices"
	"sync"

	"commentbench/keys"
	"commentbench/spread"
	"commentbench/store"
)

// RegionData is what one region holds.
type RegionData struct {
	Name   string `json:"name"`
	Server string `json:"server"`
	Range  string `json:"range"`
	Rows   int64  `json:"rows"`
	Bytes  int64  `json:"bytes"` // row keys and values
}

// TableData is how one table's data sits on its regions and servers.
type TableData struct {
	Table   string       `json:"table"`
	Rows    int64        `json:"rows"`
	Bytes   int64        `json:"bytes"`
	Regions []RegionData `json:"regions"` // in key order
	// Over regions and over servers, by bytes: max/mean (1 is even) and
	// Gini (0 is even).
	RegionMaxMean float64 `json:"region_max_mean"`
	RegionGini    float64 `json:"region_gini"`
	ServerMaxMean float64 `json:"server_max_mean"`
	ServerGini    float64 `json:"server_gini"`
	// Biggest regions first, the smallest last.
	Biggest  []RegionData `json:"biggest"`
	Smallest RegionData   `json:"smallest"`
}

// ServerData is what one server holds over all tables.
type ServerData struct {
	Server  string `json:"server"`
	Regions int    `json:"regions"`
	Rows    int64  `json:"rows"`
	Bytes   int64  `json:"bytes"`
}

// DataSpread is the data's placement.
type DataSpread struct {
	Tables  []TableData  `json:"tables"`
	Servers []ServerData `json:"servers"`
}

// spreadWorkers bounds the region scans running at once.
const spreadWorkers = 2

// tally counts a table's rows and bytes per region while one of the
// check's own passes reads the whole table in key order, so the data
// spread needs no pass of its own. One goroutine owns a tally: the pass
// that reads its table.
type tally struct {
	regions []store.Region // in key order
	data    []RegionData
	at      int  // the region the last row fell in
	done    bool // the pass read the table to its end
}

func (c *checker) newTally(ctx context.Context, table string) (*tally, error) {
	rs, err := c.st.Regions(ctx, table)
	if err != nil {
		return nil, fmt.Errorf("regions of %s: %w", table, err)
	}
	if len(rs) == 0 {
		return nil, fmt.Errorf("regions of %s: none", table)
	}
	t := &tally{regions: rs, data: make([]RegionData, len(rs))}
	for i, r := range rs {
		t.data[i] = RegionData{Name: r.Name, Server: r.Server, Range: c.keyRange(r)}
	}
	return t, nil
}

// reset forgets what a pass read short of the table's end, for a pass
// that reads it whole.
func (t *tally) reset() {
	for i := range t.data {
		t.data[i].Rows, t.data[i].Bytes = 0, 0
	}
	t.at, t.done = 0, false
}

// add counts row in its region: the last whose start it has reached.
func (t *tally) add(row store.Row) {
	for t.at+1 < len(t.regions) && bytes.Compare(row.Key, t.regions[t.at+1].Start) >= 0 {
		t.at++
	}
	t.data[t.at].Rows++
	t.data[t.at].Bytes += rowBytes(row)
}

func rowBytes(row store.Row) int64 {
	n := int64(len(row.Key))
	for _, cell := range row.Cells {
		n += int64(len(cell.Value))
	}
	return n
}

// wholeTable is a pass's read of a whole table, tallied for the spread
// when the check measures it.
func (c *checker) wholeTable(ctx context.Context, table string) iter.Seq2[store.Row, error] {
	t := c.tallies[table]
	if t == nil || t.done { // a join's second read is not counted again
		return c.rows(ctx, table, store.Scan{})
	}
	return func(yield func(store.Row, error) bool) {
		for row, err := range c.rows(ctx, table, store.Scan{}) {
			if err == nil {
				t.add(row)
			}
			if !yield(row, err) || err != nil {
				return
			}
		}
		t.done = true
	}
}

// startTallies readies a tally per table, before the passes start.
func (c *checker) startTallies(ctx context.Context) error {
	c.tallies = map[string]*tally{}
	for _, table := range keys.Tables {
		t, err := c.newTally(ctx, table)
		if err != nil {
			return err
		}
		c.tallies[table] = t
	}
	return nil
}

// spread is the tallies the passes made; a table no pass read to its end
// has its regions scanned now, a few at a time.
func (c *checker) spread(ctx context.Context) (*DataSpread, error) {
	var regions []store.Region
	var data []RegionData
	var todo []int
	for _, table := range keys.Tables {
		t := c.tallies[table]
		for i := range t.regions {
			if !t.done {
				todo = append(todo, len(regions))
			}
			regions, data = append(regions, t.regions[i]), append(data, t.data[i])
		}
	}
	errs := make([]error, len(regions))
	next := make(chan int)
	var wg sync.WaitGroup
	for range spreadWorkers {
		wg.Go(func() {
			for i := range next {
				data[i], errs[i] = c.regionData(ctx, regions[i])
			}
		})
	}
	for _, i := range todo {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return summarizeSpread(regions, data), nil
}

func (c *checker) regionData(ctx context.Context, r store.Region) (RegionData, error) {
	d := RegionData{Name: r.Name, Server: r.Server, Range: c.keyRange(r)}
	for row, err := range c.rows(ctx, r.Table, store.Scan{Start: r.Start, Stop: r.End}) {
		if err != nil {
			return d, err
		}
		d.Rows++
		d.Bytes += rowBytes(row)
	}
	return d, nil
}

func (c *checker) keyRange(r store.Region) string {
	show := func(k []byte, edge string) string {
		if len(k) == 0 {
			return edge
		}
		return c.o.Layout.Describe(r.Table, k)
	}
	return "[" + show(r.Start, "start") + ", " + show(r.End, "end") + ")"
}

func summarizeSpread(regions []store.Region, data []RegionData) *DataSpread {
	ds := &DataSpread{}
	servers := map[string]*ServerData{}
	var order []string
	for _, r := range regions {
		if _, ok := servers[r.Server]; !ok {
			servers[r.Server], order = &ServerData{Server: r.Server}, append(order, r.Server)
		}
	}
	slices.Sort(order)
	for start := 0; start < len(regions); {
		end := start
		for end < len(regions) && regions[end].Table == regions[start].Table {
			end++
		}
		ds.Tables = append(ds.Tables, tableData(regions[start].Table, data[start:end], order))
		start = end
	}
	for _, d := range data {
		s := servers[d.Server]
		s.Regions++
		s.Rows += d.Rows
		s.Bytes += d.Bytes
	}
	for _, name := range order {
		ds.Servers = append(ds.Servers, *servers[name])
	}
	return ds
}

func tableData(table string, regions []RegionData, servers []string) TableData {
	t := TableData{Table: table, Regions: regions}
	byRegion := make([]float64, len(regions))
	byServer := map[string]float64{}
	for _, s := range servers {
		byServer[s] = 0
	}
	for i, r := range regions {
		t.Rows += r.Rows
		t.Bytes += r.Bytes
		byRegion[i] = float64(r.Bytes)
		byServer[r.Server] += float64(r.Bytes)
	}
	serverLoads := make([]float64, 0, len(servers))
	for _, s := range servers {
		serverLoads = append(serverLoads, byServer[s])
	}
	t.RegionMaxMean, t.RegionGini = spread.MaxMean(byRegion), spread.Gini(byRegion)
	t.ServerMaxMean, t.ServerGini = spread.MaxMean(serverLoads), spread.Gini(serverLoads)
	bySize := slices.Clone(regions)
	slices.SortStableFunc(bySize, func(a, b RegionData) int { return int(b.Bytes - a.Bytes) })
	t.Biggest = bySize[:min(3, len(bySize))]
	if len(bySize) > 0 {
		t.Smallest = bySize[len(bySize)-1]
	}
	return t
}
