package hbase

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"google.golang.org/protobuf/proto"

	"commentbench/hbase/pb"
	"commentbench/hbase/wire"
)

// RegionInfo describes one region as hbase:meta lists it.
type RegionInfo struct {
	Table      string
	Name       []byte
	ID         uint64
	Start, End []byte
	Server     string // host:port
}

// region is a located region: where to send calls for keys in [start, end).
type region struct {
	table      string
	name       []byte
	start, end []byte
	id         uint64
	addr       string
}

func (r *region) contains(key []byte) bool {
	return bytes.Compare(r.start, key) <= 0 && (len(r.end) == 0 || bytes.Compare(key, r.end) < 0)
}

// normTable drops the "default:" prefix so cache keys and meta checks use
// the textual form of §5.1.
func normTable(t string) string {
	return strings.TrimPrefix(t, wire.DefaultNamespace+":")
}

// regionCache holds, per table, located regions sorted by start key (§5.8).
type regionCache struct {
	mu     sync.Mutex
	tables map[string][]*region
}

// get returns the cached region containing key, or nil.
func (rc *regionCache) get(table string, key []byte) *region {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rs := rc.tables[table]
	i := sort.Search(len(rs), func(i int) bool { return bytes.Compare(rs[i].start, key) > 0 })
	if i == 0 {
		return nil
	}
	if r := rs[i-1]; r.contains(key) {
		return r
	}
	return nil
}

// put caches a freshly looked-up region. A region already cached by name
// only gets its address updated; otherwise overlapping entries are evicted,
// unless one of them has a larger region id, in which case r is stale and
// is not cached (gohbase's rule).
func (rc *regionCache) put(r *region) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rs := rc.tables[r.table]
	keep := rs[:0:0]
	for _, o := range rs {
		if bytes.Equal(o.name, r.name) {
			continue // replaced by r (same name, maybe new address)
		}
		overlap := (len(r.end) == 0 || bytes.Compare(o.start, r.end) < 0) &&
			(len(o.end) == 0 || bytes.Compare(r.start, o.end) < 0)
		if overlap {
			if o.id > r.id {
				return
			}
			continue
		}
		keep = append(keep, o)
	}
	keep = append(keep, r)
	sort.Slice(keep, func(i, j int) bool { return bytes.Compare(keep[i].start, keep[j].start) < 0 })
	rc.tables[r.table] = keep
}

// remove forgets r (by name) if it is still cached.
func (rc *regionCache) remove(r *region) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rs := rc.tables[r.table]
	for i, o := range rs {
		if bytes.Equal(o.name, r.name) {
			rc.tables[r.table] = append(rs[:i:i], rs[i+1:]...)
			return
		}
	}
}

// removeAddr forgets every region located on addr.
func (rc *regionCache) removeAddr(addr string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	for t, rs := range rc.tables {
		keep := rs[:0:0]
		for _, o := range rs {
			if o.addr != addr {
				keep = append(keep, o)
			}
		}
		rc.tables[t] = keep
	}
}

// removeTable forgets a table's regions (after admin changes).
func (rc *regionCache) removeTable(table string) {
	rc.mu.Lock()
	delete(rc.tables, table)
	rc.mu.Unlock()
}

// lastKey stands for "after every row" when locating the last region of a
// table (for reversed scans with an empty start row). Real row keys never
// reach it in practice.
var lastKey = bytes.Repeat([]byte{0xff}, 256)

// locate returns the region of table holding key, from the cache or from a
// meta lookup. Errors are classified like call errors; a table that meta
// does not know yields ErrTableNotFound.
func (c *Client) locate(ctx context.Context, table string, key []byte) (*region, error) {
	table = normTable(table)
	if r := c.cache.get(table, key); r != nil {
		return r, nil
	}
	c.count(func(k *Counters) { k.CacheMisses++ })
	rt := retrier{c: c}
	for {
		r, addr, err := c.metaLookup(ctx, table, key)
		if err == nil {
			c.cache.put(r)
			return r, nil
		}
		if err := rt.handle(ctx, err, nil, addr, wire.ServiceClient); err != nil {
			return nil, err
		}
	}
}

// metaLookup runs the one-row reversed meta scan of §5.5 and checks the row.
func (c *Client) metaLookup(ctx context.Context, table string, key []byte) (*region, string, error) {
	addr, err := c.meta(ctx)
	if err != nil {
		return nil, "", err
	}
	start, stop := wire.MetaLookupRange(table, key)
	req := &pb.ScanRequest{
		Region: regionSpec([]byte(wire.MetaRegionName)),
		Scan: &pb.Scan{
			Column:    []*pb.Column{{Family: []byte(wire.MetaFamily)}},
			StartRow:  start,
			StopRow:   stop,
			Reversed:  proto.Bool(true),
			TimeRange: &pb.TimeRange{},
		},
		NumberOfRows: proto.Uint32(1),
		CloseScanner: proto.Bool(true),
	}
	c.count(func(k *Counters) { k.MetaLookups++ })
	var resp pb.ScanResponse
	cells, err := c.rpc(ctx, addr, wire.ServiceClient, "Scan", req, nil, &resp)
	if err != nil {
		return nil, addr, err
	}
	rows, err := scanChunks(&resp, cells)
	if err != nil {
		return nil, addr, err
	}
	if len(rows) == 0 || len(rows[0].res.Cells) == 0 {
		return nil, addr, fmt.Errorf("%w: %s", ErrTableNotFound, table)
	}
	r, err := regionFromMeta(rows[0].res)
	if err != nil {
		return nil, addr, err
	}
	if r.table != table {
		return nil, addr, fmt.Errorf("%w: %s", ErrTableNotFound, table)
	}
	if !r.contains(key) {
		return nil, addr, &retryableError{fmt.Sprintf("meta lookup of %q in %s returned region %q not holding it", key, table, r.name)}
	}
	return r, addr, nil
}

// regionFromMeta decodes a meta row; rows without a server, offline ones
// and undecodable ones are retryable errors (§5.4).
func regionFromMeta(res Result) (*region, error) {
	var info, server []byte
	for _, cell := range res.Cells {
		if string(cell.Family) != wire.MetaFamily {
			continue
		}
		switch string(cell.Qualifier) {
		case wire.MetaRegionInfo:
			info = cell.Value
		case wire.MetaServer:
			server = cell.Value
		}
	}
	if info == nil {
		return nil, &retryableError{fmt.Sprintf("meta row %q has no regioninfo", res.Row)}
	}
	ri, err := wire.DecodeRegionInfo(info)
	if err != nil {
		return nil, &retryableError{fmt.Sprintf("meta row %q: %v", res.Row, err)}
	}
	r := &region{
		table: wire.TableText(ri.GetTableName()),
		name:  append([]byte(nil), res.Row...),
		start: append([]byte{}, ri.GetStartKey()...),
		end:   append([]byte{}, ri.GetEndKey()...),
		id:    ri.GetRegionId(),
		addr:  string(server),
	}
	if ri.GetOffline() {
		return r, &retryableError{fmt.Sprintf("region %q is offline", r.name)}
	}
	if len(server) == 0 {
		return r, &retryableError{fmt.Sprintf("region %q has no server location", r.name)}
	}
	return r, nil
}

// Regions lists the table's online regions with a forward meta scan (§5.6),
// in start-key order.
func (c *Client) Regions(ctx context.Context, table string) ([]RegionInfo, error) {
	table = normTable(table)
	start, stop := wire.MetaListRange(table)
	var out []RegionInfo
	rt := retrier{c: c}
	for {
		out = out[:0]
		addr, err := c.meta(ctx)
		if err == nil {
			err = c.scanMeta(ctx, addr, start, stop, func(res Result) error {
				r, err := regionFromMeta(res)
				if r == nil {
					return err
				}
				if r.table != table {
					return nil
				}
				if err != nil {
					if r.addr == "" {
						return err
					}
					return nil // offline (split parent)
				}
				out = append(out, RegionInfo{Table: r.table, Name: r.name, ID: r.id, Start: r.start, End: r.end, Server: r.addr})
				return nil
			})
		}
		if err == nil {
			sort.Slice(out, func(i, j int) bool { return bytes.Compare(out[i].Start, out[j].Start) < 0 })
			return out, nil
		}
		if err := rt.handle(ctx, err, nil, addr, wire.ServiceClient); err != nil {
			return nil, err
		}
	}
}

// scanMeta runs a forward scan of hbase:meta over [start, stop).
func (c *Client) scanMeta(ctx context.Context, addr string, start, stop []byte, each func(Result) error) error {
	req := &pb.ScanRequest{
		Region: regionSpec([]byte(wire.MetaRegionName)),
		Scan: &pb.Scan{
			Column:        []*pb.Column{{Family: []byte(wire.MetaFamily)}},
			StartRow:      start,
			StopRow:       stop,
			TimeRange:     &pb.TimeRange{},
			MaxResultSize: proto.Uint64(DefaultMaxResultSize),
		},
		NumberOfRows:          proto.Uint32(1000),
		ClientHandlesPartials: proto.Bool(true),
	}
	var pend *Result
	for {
		c.count(func(k *Counters) { k.MetaLookups++ })
		var resp pb.ScanResponse
		cells, err := c.rpc(ctx, addr, wire.ServiceClient, "Scan", req, nil, &resp)
		if err != nil {
			return err
		}
		chunks, err := scanChunks(&resp, cells)
		if err != nil {
			return err
		}
		for _, ch := range chunks {
			if pend != nil && bytes.Equal(pend.Row, ch.res.Row) {
				pend.Cells = append(pend.Cells, ch.res.Cells...)
			} else {
				if pend != nil {
					if err := each(*pend); err != nil {
						return err
					}
				}
				r := ch.res
				pend = &r
			}
			if !ch.partial {
				if err := each(*pend); err != nil {
					return err
				}
				pend = nil
			}
		}
		if !resp.GetMoreResultsInRegion() {
			if pend != nil {
				return each(*pend)
			}
			return nil
		}
		if resp.ScannerId == nil {
			return &retryableError{"meta scan: more results without scanner id"}
		}
		req = &pb.ScanRequest{
			Region:                regionSpec([]byte(wire.MetaRegionName)),
			ScannerId:             resp.ScannerId,
			NumberOfRows:          proto.Uint32(1000),
			ClientHandlesPartials: proto.Bool(true),
		}
	}
}
