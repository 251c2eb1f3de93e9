package check

import (
	"context"
	"fmt"
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

// spread scans every region of every table, a few at a time.
func (c *checker) spread(ctx context.Context) (*DataSpread, error) {
	var regions []store.Region
	for _, t := range keys.Tables {
		rs, err := c.st.Regions(ctx, t)
		if err != nil {
			return nil, fmt.Errorf("regions of %s: %w", t, err)
		}
		regions = append(regions, rs...)
	}
	data := make([]RegionData, len(regions))
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
	for i := range regions {
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
		d.Bytes += int64(len(row.Key))
		for _, cell := range row.Cells {
			d.Bytes += int64(len(cell.Value))
		}
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
