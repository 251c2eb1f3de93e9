package embedded

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sort"
	"sync/atomic"

	"commentbench/hbase/wire"
	"commentbench/store"

	"github.com/cockroachdb/pebble/v2"
)

// Regions are logical key ranges over the single Pebble keyspace: a split or
// a move changes metadata and the routing table, never the data. That is
// what keeps a running scan exact across a split: its Pebble iterator walks
// the keys, and regions only decide which counters a row is charged to.

// regionStats are a region's counters. A move keeps them (the region keeps
// its name); a split starts its daughters from zero.
type regionStats struct {
	readRequests  atomic.Uint64
	writeRequests atomic.Uint64
	rowsScanned   atomic.Uint64
	bytesIn       atomic.Uint64
	bytesOut      atomic.Uint64
	// size is the approximate bytes (encoded key + value) stored in the
	// region: what the split policy compares with its threshold.
	size atomic.Int64
}

func (s *regionStats) snapshot() store.Counters {
	return store.Counters{
		ReadRequests:  s.readRequests.Load(),
		WriteRequests: s.writeRequests.Load(),
		RowsScanned:   s.rowsScanned.Load(),
		BytesIn:       s.bytesIn.Load(),
		BytesOut:      s.bytesOut.Load(),
	}
}

// region is one entry of a routing table. Its info never changes: a move
// or a split replaces the object and retires the old one, which lets readers
// use a region without locks and notice that it went away.
type region struct {
	tbl   *table
	info  store.Region
	stats *regionStats
	// splitAt is the size above which the region should split, set by the
	// split policy whenever its table's routing is rebuilt; 0 = never.
	splitAt atomic.Int64
	// retired is set once the region left the routing table (split, move,
	// drop). A scan that finds its region retired re-locates, as an HBase
	// client does after NotServingRegion.
	retired atomic.Bool
}

func newRegion(t *table, start, end []byte, id uint64, server string, stats *regionStats) *region {
	return &region{
		tbl:   t,
		stats: stats,
		info: store.Region{
			Table:  t.name,
			ID:     id,
			Name:   string(wire.RegionName(t.name, start, id)),
			Start:  start,
			End:    end,
			Server: server,
		},
	}
}

// routing is a table's regions sorted by start key. It is immutable once
// published: changes build a new one and swap the table's pointer, so the
// hot path is an atomic load and a binary search.
type routing struct {
	regions []*region
}

// index returns the position of the region that holds key.
func (rt *routing) index(key []byte) int {
	i := sort.Search(len(rt.regions), func(i int) bool {
		return bytes.Compare(rt.regions[i].info.Start, key) > 0
	})
	return i - 1 // regions[0] starts at "", so i >= 1
}

func (rt *routing) find(key []byte) *region { return rt.regions[rt.index(key)] }

func (rt *routing) last() *region { return rt.regions[len(rt.regions)-1] }

// table is a table's identity and its current routing.
type table struct {
	id       uint64 // fresh per creation, never reused
	name     string
	families []family // sorted by name: a family's index is its key byte
	def      byte     // the default family's index
	family   string   // the default family's name
	// defOnly selects the default family on tables with several; nil when
	// the table has one, so reads need not check.
	defOnly *famSet
	cellTTL bool
	routing atomic.Pointer[routing]
}

// newRouting publishes-ready routing over regions, applying the split
// policy (HBase 2.x SteppingSplitPolicy): a region whose table has exactly
// one region on the region's server splits at InitialSplitSize, any other at
// MaxRegionSize.
func (e *Engine) newRouting(regions []*region) *routing {
	perServer := map[string]int{}
	for _, r := range regions {
		perServer[r.info.Server]++
	}
	for _, r := range regions {
		at := e.opts.MaxRegionSize
		if perServer[r.info.Server] == 1 {
			at = e.opts.InitialSplitSize
		}
		if e.opts.DisableSplits {
			at = 0
		}
		r.splitAt.Store(at)
	}
	return &routing{regions: regions}
}

// publish installs a table's new routing, retires the regions it dropped,
// nudges the splitter for any region already over its (possibly lowered)
// threshold, and tells watchers. Callers hold adminMu.
func (e *Engine) publish(t *table, regions []*region) {
	old := t.routing.Load()
	t.routing.Store(e.newRouting(regions))
	if old != nil {
		for _, r := range old.regions {
			if !slices.Contains(regions, r) {
				r.retired.Store(true)
			}
		}
	}
	for _, r := range regions {
		if at := r.splitAt.Load(); at > 0 && r.stats.size.Load() > at {
			e.kickSplitter()
		}
	}
	e.regionsChanged()
}

// regionsChanged bumps the generation and wakes RegionsChanged watchers.
func (e *Engine) regionsChanged() {
	e.changeMu.Lock()
	e.generation++
	close(e.changeCh)
	e.changeCh = make(chan struct{})
	e.changeMu.Unlock()
}

// RegionsChanged returns a channel that is closed at the next change to any
// table's regions (create, drop, split, move). Take a new channel after each
// wake-up; changes in between are not queued, so re-read the regions.
func (e *Engine) RegionsChanged() <-chan struct{} {
	e.changeMu.Lock()
	defer e.changeMu.Unlock()
	return e.changeCh
}

// Generation counts region changes since Open; it only grows.
func (e *Engine) Generation() uint64 {
	e.changeMu.Lock()
	defer e.changeMu.Unlock()
	return e.generation
}

// Servers lists the simulated region servers, "rs1".."rsN".
func (e *Engine) Servers() []string { return slices.Clone(e.servers) }

// copyRegion returns r's info with its own key slices, so callers cannot
// reach into the routing table.
func copyRegion(r *region) store.Region {
	info := r.info
	info.Start = bytes.Clone(info.Start)
	if info.Start == nil {
		info.Start = []byte{}
	}
	info.End = bytes.Clone(info.End)
	return info
}

// Regions implements store.Store.
func (e *Engine) Regions(ctx context.Context, tableName string) ([]store.Region, error) {
	t, err := e.enter(tableName)
	if err != nil {
		return nil, err
	}
	defer e.release()
	rt := t.routing.Load()
	out := make([]store.Region, len(rt.regions))
	for i, r := range rt.regions {
		out[i] = copyRegion(r)
	}
	return out, nil
}

// RegionStats implements store.Store: every region of every table, tables
// by name, regions in key order.
func (e *Engine) RegionStats(ctx context.Context) ([]store.RegionStat, error) {
	if err := e.acquire(); err != nil {
		return nil, err
	}
	defer e.release()
	var out []store.RegionStat
	for _, t := range e.sortedTables() {
		for _, r := range t.routing.Load().regions {
			out = append(out, store.RegionStat{Region: copyRegion(r), Counters: r.stats.snapshot()})
		}
	}
	return out, nil
}

// RegionByName finds a serving region by its name.
func (e *Engine) RegionByName(name string) (store.Region, bool) {
	if r := e.regionByName(name); r != nil {
		return copyRegion(r), true
	}
	return store.Region{}, false
}

func (e *Engine) regionByName(name string) *region {
	for _, t := range *e.tables.Load() {
		for _, r := range t.routing.Load().regions {
			if r.info.Name == name {
				return r
			}
		}
	}
	return nil
}

// MoveRegion reassigns a region to another server, as HBase's admin move:
// the region keeps its name, id and counters.
func (e *Engine) MoveRegion(name, server string) error {
	if err := e.acquire(); err != nil {
		return err
	}
	defer e.release()
	if !slices.Contains(e.servers, server) {
		return fmt.Errorf("embedded: move %q: %w: unknown server %q", name, store.ErrInvalid, server)
	}
	e.adminMu.Lock()
	defer e.adminMu.Unlock()
	r := e.regionByName(name)
	if r == nil {
		return fmt.Errorf("embedded: move: %w: no serving region %q", store.ErrInvalid, name)
	}
	return e.moveLocked(r, server)
}

// moveLocked moves r to server: one synced meta write, then a new routing
// where a fresh region object (same name, same counters) replaces r.
func (e *Engine) moveLocked(r *region, server string) error {
	if r.info.Server == server {
		return nil
	}
	t := r.tbl
	moved := newRegion(t, r.info.Start, r.info.End, r.info.ID, server, r.stats)
	b := e.db.NewBatch()
	defer b.Close()
	putRegionRecord(b, moved)
	if err := b.Commit(pebble.Sync); err != nil {
		return fmt.Errorf("embedded: move %q: %w", r.info.Name, err)
	}
	regions := slices.Clone(t.routing.Load().regions)
	regions[slices.Index(regions, r)] = moved
	e.publish(t, regions)
	return nil
}
