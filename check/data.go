package check

import (
	"bytes"
	"context"
	"fmt"
	"iter"
	"slices"
	"sync"

	"commentbench/entry"
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
	Cells  int64  `json:"cells"`
	Bytes  int64  `json:"bytes"` // row keys, qualifiers and values
	// rows are the region's biggest rows, biggest first.
	rows []RowSize
}

// RowSize is one row's size: what a wide row costs, and what no split can
// divide.
type RowSize struct {
	Row   string `json:"row"` // decoded, as the design reads it
	Cells int64  `json:"cells"`
	Bytes int64  `json:"bytes"` // its key, qualifiers and values
	key   []byte
}

// TopRows is how many of its biggest rows a table's spread names.
const TopRows = 3

// keep files a row's size among the region's biggest.
func (d *RegionData) keep(key []byte, cells, bytes int64) {
	if len(d.rows) == TopRows && bytes <= d.rows[TopRows-1].Bytes {
		return
	}
	r := RowSize{Cells: cells, Bytes: bytes, key: slices.Clone(key)}
	i, _ := slices.BinarySearchFunc(d.rows, r, func(a, b RowSize) int { return int(b.Bytes - a.Bytes) })
	d.rows = slices.Insert(d.rows, i, r)[:min(len(d.rows)+1, TopRows)]
}

// TableData is how one store table's data sits on its regions and
// servers.
type TableData struct {
	Table   string       `json:"table"`
	Rows    int64        `json:"rows"`
	Cells   int64        `json:"cells"`
	Bytes   int64        `json:"bytes"`
	Regions []RegionData `json:"regions"` // in key order
	// BiggestRows are the table's biggest rows by bytes, biggest first.
	BiggestRows []RowSize `json:"biggest_rows"`
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
	// The row being read, a batch of its cells at a time: its key, cells
	// and bytes so far (a wide row comes in batches).
	key          []byte
	reading      bool
	cells, bytes int64
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
		t.data[i].Rows, t.data[i].Cells, t.data[i].Bytes, t.data[i].rows = 0, 0, 0, nil
	}
	t.at, t.done, t.reading, t.cells, t.bytes = 0, false, false, 0, 0
}

// add counts row, or a batch of its cells, in its region: the last whose
// start it has reached.
func (t *tally) add(row store.Row) {
	n := rowBytes(row)
	if t.reading && bytes.Equal(row.Key, t.key) { // the row's next batch: its key counts once
		n -= int64(len(row.Key))
	} else {
		t.flush()
		for t.at+1 < len(t.regions) && bytes.Compare(row.Key, t.regions[t.at+1].Start) >= 0 {
			t.at++
		}
		t.key, t.reading = append(t.key[:0], row.Key...), true
		t.data[t.at].Rows++
	}
	d := &t.data[t.at]
	d.Cells += int64(len(row.Cells))
	d.Bytes += n
	t.cells += int64(len(row.Cells))
	t.bytes += n
}

// flush files the row read last among its region's biggest.
func (t *tally) flush() {
	if t.reading {
		t.data[t.at].keep(t.key, t.cells, t.bytes)
	}
	t.reading, t.cells, t.bytes = false, 0, 0
}

// finish ends a read of the whole table.
func (t *tally) finish() {
	t.flush()
	t.done = true
}

// rowBytes is a row's key and its cells' qualifiers and values: in the
// seed's design, where every row is one cell q, its key and value and one
// byte.
func rowBytes(row store.Row) int64 {
	n := int64(len(row.Key))
	for _, cell := range row.Cells {
		n += int64(len(cell.Qualifier) + len(cell.Value))
	}
	return n
}

// wholeTable is a pass's read of a whole table's entries in key order,
// tallied for the spread when the check measures it and the table is its
// store table's only one, in rows of the seed's shape. The entries of a
// table kept in columns, or in another table's rows, are read a batch of
// each row's cells at a time and handed on one entry each (entry.Each);
// the spread of such a store table is measured by a read of its own.
func (c *checker) wholeTable(ctx context.Context, table string) iter.Seq2[store.Row, error] {
	tk := c.o.Layout.Table(table)
	plain := !tk.Wide() && len(c.o.Layout.InStore(tk.Store)) == 1
	var t *tally
	if tk.Store == table { // a store table is tallied by its own table's pass
		t = c.tallies[table]
	}
	scan := c.rows(ctx, tk.Store, entry.ScanOf(tk, store.Scan{}))
	if plain {
		scan = c.rows(ctx, table, store.Scan{})
	}
	entries := func(yield func(store.Row, error) bool) {
		counting := t != nil && !t.done // a join's second read is not counted again
		for row, err := range scan {
			if err != nil {
				yield(store.Row{}, err)
				return
			}
			if counting {
				t.add(row)
			}
			if plain {
				if !yield(row, nil) {
					return
				}
				continue
			}
			if !entry.Each(tk, row, func(e store.Row) bool { return yield(e, nil) }) {
				return
			}
		}
		if counting {
			t.finish()
		}
	}
	var out iter.Seq2[store.Row, error] = entries
	if slices.Contains(keys.Indexes, table) {
		out = c.unframed(table, out)
	}
	if tk.Copy {
		return c.referenceCopies(tk, out)
	}
	return out
}

// startTallies readies a tally per store table, before the passes start.
func (c *checker) startTallies(ctx context.Context) error {
	c.tallies = map[string]*tally{}
	for _, table := range c.o.Layout.StoreTables() {
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
	for _, table := range c.o.Layout.StoreTables() {
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
	return summarizeSpread(regions, data, c.o.Layout.Describe), nil
}

// regionData reads a region's rows, a batch of cells at a time so a wide
// row of any size is read in pieces, and sums them up.
func (c *checker) regionData(ctx context.Context, r store.Region) (RegionData, error) {
	d := RegionData{Name: r.Name, Server: r.Server, Range: c.keyRange(r)}
	var key []byte
	var cells, size int64
	flush := func() {
		if key != nil {
			d.Rows++
			d.keep(key, cells, size)
		}
	}
	for row, err := range c.rows(ctx, r.Table, store.Scan{Start: r.Start, Stop: r.End, Batch: entry.Batch}) {
		if err != nil {
			return d, err
		}
		if key == nil || !bytes.Equal(row.Key, key) { // a row's next batch has its key again
			flush()
			key, cells, size = append(key[:0], row.Key...), 0, int64(len(row.Key))
			d.Bytes += int64(len(row.Key))
		}
		n := rowBytes(row) - int64(len(row.Key))
		cells += int64(len(row.Cells))
		size += n
		d.Cells += int64(len(row.Cells))
		d.Bytes += n
	}
	flush()
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

func summarizeSpread(regions []store.Region, data []RegionData, describe spread.Describe) *DataSpread {
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
		ds.Tables = append(ds.Tables, tableData(regions[start].Table, data[start:end], order, describe))
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

func tableData(table string, regions []RegionData, servers []string, describe spread.Describe) TableData {
	t := TableData{Table: table, Regions: regions}
	var top RegionData
	byRegion := make([]float64, len(regions))
	byServer := map[string]float64{}
	for _, s := range servers {
		byServer[s] = 0
	}
	for i, r := range regions {
		t.Rows += r.Rows
		t.Cells += r.Cells
		t.Bytes += r.Bytes
		for _, rs := range r.rows {
			top.keep(rs.key, rs.Cells, rs.Bytes)
		}
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
	for _, rs := range top.rows {
		rs.Row = describe(table, rs.key)
		t.BiggestRows = append(t.BiggestRows, rs)
	}
	if len(bySize) > 0 {
		t.Smallest = bySize[len(bySize)-1]
	}
	return t
}
