package workload

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"commentbench/comments"
	"commentbench/keys"
	"commentbench/results"
	"commentbench/spread"
	"commentbench/store"
)

// Hot keys are counted in Space-Saving sketches (Metwally, Agrawal and El
// Abbadi, 2005): a run may touch millions of users, and a map of every key
// would grow with the run. A sketch keeps a fixed number of counters; a key
// that finds none free takes over the smallest and inherits its count, so
// every count is an upper bound, over by at most the count it inherited,
// and any key seen more often than the smallest counter is still held.
const (
	// hotCounters per sketch: the error bound is about N/hotCounters for a
	// stream of N, a few in ten thousand.
	hotCounters = 2048
	// HotTop is how many keys each list of the summary keeps.
	HotTop = 10
	// maxHotShards bounds the sketches' memory (0.9 MB a shard when full,
	// and no more however long the run) however many cores there are.
	maxHotShards = 16
)

// sketch is one Space-Saving summary. Counters stay in their slot for as
// long as their key holds them. A min-heap of (count, slot) finds the
// smallest: a heap move never touches the map, and compares counts held
// in the heap itself rather than in the slots. The heap is built at the
// first eviction, so a sketch that never fills (a run with fewer keys
// than counters) pays only the lookup of its key per add, which its pair
// makes (see pair).
type sketch struct {
	size    int
	slots   []hotSlot
	heap    []heapEntry // smallest count first; empty until evicted
	total   int64       // everything added, of every key
	evicted bool        // some key lost its counter: counts are bounds
}

type hotSlot struct {
	key        string
	count, err int64 // the key's true count is in [count-err, count]
	pos        int32 // the slot's place in heap
}

// heapEntry copies its slot's count, so the heap compares without
// reaching into the slots.
type heapEntry struct {
	count int64
	slot  int32
}

// bump counts n for the key in slot i.
func (s *sketch) bump(i int32, n int64) {
	s.total += n
	sl := &s.slots[i]
	sl.count += n
	if s.evicted {
		s.heap[sl.pos].count = sl.count
		s.down(int(sl.pos))
	}
}

// claim counts n for a key the sketch does not hold: in a free slot while
// there is one, else in the smallest counter's, whose count the key
// inherits. It returns the slot and the key evicted, if one was.
func (s *sketch) claim(key string, n int64) (slot int32, old string, evicted bool) {
	s.total += n
	if len(s.slots) < s.size {
		s.slots = append(s.slots, hotSlot{key: key, count: n})
		return int32(len(s.slots) - 1), "", false
	}
	if !s.evicted {
		s.heapify()
		s.evicted = true
	}
	i := s.heap[0].slot
	sl := &s.slots[i]
	old = sl.key
	sl.key, sl.err, sl.count = key, sl.count, sl.count+n
	s.heap[0].count = sl.count
	s.down(0)
	return i, old, true
}

// heapify orders every slot into the heap, once, when the sketch is full.
func (s *sketch) heapify() {
	s.heap = make([]heapEntry, len(s.slots))
	for i := range s.heap {
		s.heap[i], s.slots[i].pos = heapEntry{s.slots[i].count, int32(i)}, int32(i)
	}
	for i := len(s.heap)/2 - 1; i >= 0; i-- {
		s.down(i)
	}
}

// floor is the most a key the sketch does not hold can have been counted.
func (s *sketch) floor() int64 {
	if !s.evicted {
		return 0
	}
	return s.heap[0].count
}

func (s *sketch) less(a, b int) bool {
	return s.heap[a].count < s.heap[b].count
}

func (s *sketch) swap(a, b int) {
	s.heap[a], s.heap[b] = s.heap[b], s.heap[a]
	s.slots[s.heap[a].slot].pos, s.slots[s.heap[b].slot].pos = int32(a), int32(b)
}

func (s *sketch) down(i int) {
	for {
		c := 2*i + 1
		if c >= len(s.heap) {
			return
		}
		if c+1 < len(s.heap) && s.less(c+1, c) {
			c++
		}
		if !s.less(c, i) {
			return
		}
		s.swap(i, c)
		i = c
	}
}

// pair is the two sketches of one kind of key, requests and rows written,
// under one index: an op that counts both looks its key up once, which is
// most of what counting costs.
type pair struct {
	index map[string][2]int32 // the key's slot+1 in each sketch; 0: not held there
	s     [2]sketch
}

func newPair(size int) pair { return pair{s: [2]sketch{{size: size}, {size: size}}} }

// add counts n[0] in the first sketch and n[1] in the second; a zero is
// not counted at all, so each sketch sees only its own stream.
func (p *pair) add(key string, n [2]int64) {
	if p.index == nil {
		p.index = make(map[string][2]int32)
	}
	e := p.index[key]
	held := e
	for w := range p.s {
		switch {
		case n[w] == 0:
		case e[w] > 0:
			p.s[w].bump(e[w]-1, n[w])
		default:
			slot, old, evicted := p.s[w].claim(key, n[w])
			if evicted {
				p.release(old, w)
			}
			e[w] = slot + 1
		}
	}
	if e != held {
		p.index[key] = e
	}
}

// release forgets that sketch w holds key.
func (p *pair) release(key string, w int) {
	e := p.index[key]
	if e[w] = 0; e == [2]int32{} {
		delete(p.index, key)
		return
	}
	p.index[key] = e
}

// hotCount is a key's merged count: true count in [count-err, count].
type hotCount struct {
	key        string
	count, err int64
}

// hotList is several sketches of one stream merged.
type hotList struct {
	top          []hotCount
	total, bound int64 // bound: no count in top is over by more
	approximate  bool
}

// mergeSketches merges sketches of disjoint parts of one stream and keeps
// the top n. A key missing from a sketch may have had up to that sketch's
// floor there, so its count takes the floor as both count and error: each
// merged count stays an upper bound, over by at most the sum of floors.
func mergeSketches(ss []*sketch, n int) hotList {
	var l hotList
	union := map[string]*hotCount{}
	for _, s := range ss {
		l.total += s.total
		l.bound += s.floor()
		l.approximate = l.approximate || s.evicted
		for _, sl := range s.slots {
			c := union[sl.key]
			if c == nil {
				c = &hotCount{key: sl.key}
				union[sl.key] = c
			}
			c.count += sl.count - s.floor()
			c.err += sl.err - s.floor()
		}
	}
	for _, c := range union {
		c.count += l.bound // each sketch's floor, taken back where the key was held
		c.err += l.bound
		l.top = append(l.top, *c)
	}
	slices.SortFunc(l.top, func(a, b hotCount) int {
		return cmp.Or(cmp.Compare(b.count, a.count), cmp.Compare(a.err, b.err), cmp.Compare(a.key, b.key))
	})
	l.top = l.top[:min(n, len(l.top))]
	return l
}

// hotShard is what a few workers count into. Workers share shards so that
// memory stays a shard's per core, not a sketch's per worker (a run may
// have a thousand workers); the lock is held for a few map and heap steps.
// A shard is one allocation, padded, so two cores counting into two
// shards never write one cache line.
type hotShard struct {
	mu              sync.Mutex
	products, users pair // each: requests, rows written
	_               [64]byte
}

// hotKeys are a run's shards, made on first use.
type hotKeys struct {
	once   sync.Once
	shards []*hotShard
	next   atomic.Uint32
}

func (h *hotKeys) shard() *hotShard {
	h.once.Do(func() {
		h.shards = make([]*hotShard, min(maxHotShards, 2*runtime.GOMAXPROCS(0)))
		for i := range h.shards {
			h.shards[i] = &hotShard{products: newPair(hotCounters), users: newPair(hotCounters)}
		}
	})
	return h.shards[int(h.next.Add(1)-1)%len(h.shards)]
}

// countProduct counts requests made and rows written on behalf of a
// product, in the steady phase only, as the histograms are.
func (w *Worker) countProduct(id string, requests, rows int64) {
	if w.counting {
		sh := w.hotShard()
		sh.mu.Lock()
		sh.products.add(id, [2]int64{requests, rows})
		sh.mu.Unlock()
	}
}

// countUser is countProduct for a user.
func (w *Worker) countUser(id string, requests, rows int64) {
	if w.counting {
		sh := w.hotShard()
		sh.mu.Lock()
		sh.users.add(id, [2]int64{requests, rows})
		sh.mu.Unlock()
	}
}

// countComment counts a comment write for its product and its user: a
// request each, and the rows it put (all three, or those before a failed
// put; none when it was rejected before the first).
func (w *Worker) countComment(product, user string, err error) {
	if !w.counting {
		return
	}
	rows := writtenRows(err)
	sh := w.hotShard()
	sh.mu.Lock()
	sh.products.add(product, [2]int64{1, rows})
	sh.users.add(user, [2]int64{1, rows})
	sh.mu.Unlock()
}

// writtenRows is how many of a comment's three rows a write that returned
// err wrote.
func writtenRows(err error) int64 {
	if err == nil {
		return 3 // before errors.As's target, which escapes: no allocation per success
	}
	var we *comments.WriteError
	if errors.As(err, &we) {
		return int64(len(we.Written))
	}
	return 0
}

// countEdit counts an edit as a request for the product and, when it was
// written, one row for the product and one for the comment's user.
func (w *Worker) countEdit(product, user string, err error) {
	if err != nil {
		w.countProduct(product, 1, 0)
		return
	}
	w.countProduct(product, 1, 1)
	w.countUser(user, 0, 1)
}

// countPage counts a listing page read for the owner of table's listing.
func (w *Worker) countPage(table, owner string) {
	if table == keys.UserComment {
		w.countUser(owner, 1, 0)
		return
	}
	w.countProduct(owner, 1, 0)
}

func (w *Worker) hotShard() *hotShard {
	if w.hot == nil {
		w.hot = w.env.hot.shard()
	}
	return w.hot
}

// countRanked wraps a ranking job's report of each ranking it wrote so the
// product is counted one request and its rank rows.
func (w *Worker) countRanked(next func(string, [][]byte)) func(string, [][]byte) {
	return func(p string, ranking [][]byte) {
		w.countProduct(p, 1, int64(len(ranking)))
		if next != nil {
			next(p, ranking)
		}
	}
}

// summary merges the shards into the summary's lists; regions are looked
// up afterwards (LocateHotKeys). Nil when nothing was counted. Run calls
// it once every worker has stopped, so no shard is locked.
func (h *hotKeys) summary(n int) *results.HotKeys {
	if h.shards == nil {
		return nil
	}
	pick := func(f func(*hotShard) *sketch) []*sketch {
		out := make([]*sketch, len(h.shards))
		for i, sh := range h.shards {
			out[i] = f(sh)
		}
		return out
	}
	out := &results.HotKeys{Top: n}
	for _, l := range []struct {
		dst   results.HotList
		table string
		of    func(*hotShard) *sketch
	}{
		{out.List(0), keys.ProductComment, func(s *hotShard) *sketch { return &s.products.s[0] }},
		{out.List(1), keys.ProductComment, func(s *hotShard) *sketch { return &s.products.s[1] }},
		{out.List(2), keys.UserComment, func(s *hotShard) *sketch { return &s.users.s[0] }},
		{out.List(3), keys.UserComment, func(s *hotShard) *sketch { return &s.users.s[1] }},
	} {
		m := mergeSketches(pick(l.of), n)
		*l.dst.Total, *l.dst.Bound = m.total, m.bound
		out.Approximate = out.Approximate || m.approximate
		for _, c := range m.top {
			*l.dst.Keys = append(*l.dst.Keys, results.HotKey{Key: c.key, Count: c.count, Error: c.err,
				Share: float64(c.count) / float64(max(m.total, 1)), Table: l.table})
		}
	}
	return out
}

// LocateHotKeys names the region and server holding each hot key's listing
// (a product's product-comment rows, a user's user-comment rows) as the
// store has them now. A salted listing spans several regions: the first
// branch's region is named and Regions counts them all.
func LocateHotKeys(ctx context.Context, st store.Store, layout *keys.Design, describe spread.Describe, h *results.HotKeys) (*results.HotKeys, error) {
	if h == nil {
		return nil, nil
	}
	regions := map[string][]store.Region{}
	for i := range results.HotLists {
		for j := range *h.List(i).Keys {
			k := &(*h.List(i).Keys)[j]
			t := layout.Table(k.Table)
			if t == nil {
				continue
			}
			rs, ok := regions[t.Store]
			if !ok {
				var err error
				if rs, err = st.Regions(ctx, t.Store); err != nil {
					return h, err
				}
				regions[t.Store] = rs
			}
			locate(k, rs, layout, describe)
		}
	}
	return h, nil
}

// locate fills k's region from its table's regions rs, in key order.
func locate(k *results.HotKey, rs []store.Region, layout *keys.Design, describe spread.Describe) {
	l, err := layout.Listing(k.Table, k.Key)
	if err != nil {
		return // not an id of this design: nothing to place
	}
	spanned := map[int]bool{}
	for b, pre := range l.Branches {
		end := store.PrefixEnd(pre)
		if l.Wide { // a wide listing's branch is one row: the region holding it
			pre = pre[:l.RowLen]
			end = append(bytes.Clone(pre), 0)
		}
		in := overlapping(rs, pre, end)
		if b == 0 && len(in) > 0 {
			r := rs[in[0]]
			k.Region, k.Server, k.Range = r.Name, r.Server, regionRange(r, describe)
		}
		for _, i := range in {
			spanned[i] = true
		}
	}
	k.Regions = len(spanned)
}

// overlapping are the indexes of the regions holding keys in [start, end);
// a nil end is the table's end.
func overlapping(rs []store.Region, start, end []byte) []int {
	var out []int
	for i, r := range rs {
		if (end == nil || bytes.Compare(r.Start, end) < 0) && (r.End == nil || bytes.Compare(r.End, start) > 0) {
			out = append(out, i)
		}
	}
	return out
}

func regionRange(r store.Region, describe spread.Describe) string {
	show := func(key []byte, edge string) string {
		if len(key) == 0 {
			return edge
		}
		return describe(r.Table, key)
	}
	return "[" + show(r.Start, "start") + ", " + show(r.End, "end") + ")"
}
