package hbasestore

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"commentbench/store"
)

// counters are one region's client-side counts, kept with atomics so the
// request path takes no lock.
type counters struct {
	reads, writes, scanned, in, out atomic.Uint64
}

// entry is one region as the attribution knows it.
type entry struct {
	region store.Region
	c      *counters
}

// attribution maps each request's row to its region, as the client does to
// route it, and counts it there. The map is an immutable snapshot replaced
// at every RegionStats call (once an interval) and when a table is first
// seen; a request routed to a region that split since the last snapshot is
// counted on the parent, whose counters end with it, as HBase's do.
type attribution struct {
	snap atomic.Pointer[map[string][]entry]
	mu   sync.Mutex // one refresh at a time
}

func newAttribution() *attribution {
	a := &attribution{}
	a.snap.Store(&map[string][]entry{})
	return a
}

// at returns the counters of the region of table holding row, or nil when
// the regions cannot be listed.
func (a *attribution) at(ctx context.Context, s *Store, table string, row []byte) *counters {
	es, ok := (*a.snap.Load())[table]
	if !ok {
		var err error
		if es, err = a.refresh(ctx, s, table); err != nil {
			return nil
		}
	}
	i, _ := slices.BinarySearchFunc(es, row, func(e entry, k []byte) int {
		if bytes.Compare(e.region.Start, k) <= 0 {
			return -1
		}
		return 1
	})
	if i == 0 {
		return nil
	}
	if e := es[i-1]; e.region.Contains(row) {
		return e.c
	}
	return nil
}

// got counts a row read by a Get.
func (a *attribution) got(ctx context.Context, s *Store, table string, r store.Row) {
	if c := a.at(ctx, s, table, r.Key); c != nil {
		c.reads.Add(1)
		c.scanned.Add(1)
		c.out.Add(uint64(rowBytes(r)))
	}
}

// refresh lists table's regions, keeping the counters of regions that are
// still there.
func (a *attribution) refresh(ctx context.Context, s *Store, table string) ([]entry, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	regions, err := s.Regions(ctx, table)
	if err != nil {
		return nil, err
	}
	old := map[string]*counters{}
	for _, e := range (*a.snap.Load())[table] {
		old[e.region.Name] = e.c
	}
	es := make([]entry, len(regions))
	for i, r := range regions {
		c := old[r.Name]
		if c == nil {
			c = &counters{}
		}
		es[i] = entry{region: r, c: c}
	}
	next := map[string][]entry{}
	for k, v := range *a.snap.Load() {
		next[k] = v
	}
	next[table] = es
	a.snap.Store(&next)
	return es, nil
}

// Regions implements store.Store from hbase:meta.
func (s *Store) Regions(ctx context.Context, table string) ([]store.Region, error) {
	infos, err := s.c.Regions(ctx, s.name(table))
	if err != nil {
		return nil, s.tableErr("regions", table, err)
	}
	out := make([]store.Region, len(infos))
	for i, r := range infos {
		out[i] = store.Region{Table: table, ID: r.ID, Name: string(r.Name), Start: r.Start, Server: r.Server}
		if len(r.End) > 0 {
			out[i].End = r.End
		}
	}
	return out, nil
}

// RegionStats implements store.Store: the regions of every table under the
// prefix, refreshed from hbase:meta, with what this client sent to each.
func (s *Store) RegionStats(ctx context.Context) ([]store.RegionStat, error) {
	tables, err := s.ListTables(ctx)
	if err != nil {
		return nil, err
	}
	var out []store.RegionStat
	for _, t := range tables {
		es, err := s.attr.refresh(ctx, s, t.Name)
		if err != nil {
			return nil, fmt.Errorf("region stats: %w", err)
		}
		for _, e := range es {
			out = append(out, store.RegionStat{Region: e.region, Counters: store.Counters{
				ReadRequests: e.c.reads.Load(), WriteRequests: e.c.writes.Load(), RowsScanned: e.c.scanned.Load(),
				BytesIn: e.c.in.Load(), BytesOut: e.c.out.Load()}})
		}
	}
	return out, nil
}
