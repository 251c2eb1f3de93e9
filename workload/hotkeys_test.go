package workload

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"commentbench/comments"
	"commentbench/keys"
	"commentbench/results"
	"commentbench/store"
)

// stream is a random stream over keys 0..distinct-1, skewed so that a few
// keys are heavy, each add weighing 0 to 3 in either sketch of a pair, with
// its exact counts per sketch.
type stream struct {
	keys  []string
	ns    [][2]int64
	exact [2]map[string]int64
}

func newStream(r *rand.Rand, distinct, n int, exponent float64) stream {
	names := make([]string, distinct)
	for i := range names {
		names[i] = fmt.Sprintf("k%07d", i)
	}
	pop, _ := NewPopularity(distinct, exponent, 0, 0)
	st := stream{exact: [2]map[string]int64{{}, {}}}
	for range n {
		k, w := names[pop.Pick(r)], [2]int64{int64(r.IntN(4)), int64(r.IntN(4))}
		st.keys, st.ns = append(st.keys, k), append(st.ns, w)
		for i := range w {
			if w[i] > 0 {
				st.exact[i][k] += w[i]
			}
		}
	}
	return st
}

func (st stream) into(p *pair) {
	for i, k := range st.keys {
		p.add(k, st.ns[i])
	}
}

// checkSketch: sketch w of p is a heap (once evicted) whose every slot is
// where the heap and the pair's index say, with the counts agreeing; the
// index holds no key the sketch does not.
func checkSketch(t *testing.T, p *pair, w int) {
	t.Helper()
	s := &p.s[w]
	for i, sl := range s.slots {
		if p.index[sl.key][w] != int32(i)+1 {
			t.Fatalf("sketch %d: %s in slot %d, index says %d", w, sl.key, i, p.index[sl.key][w]-1)
		}
	}
	held := 0
	for _, e := range p.index {
		if e[w] > 0 {
			held++
		}
	}
	if held != len(s.slots) {
		t.Fatalf("sketch %d: index holds %d keys, %d slots", w, held, len(s.slots))
	}
	if !s.evicted {
		return
	}
	if len(s.heap) != len(s.slots) {
		t.Fatalf("sketch %d: %d slots, %d in the heap", w, len(s.slots), len(s.heap))
	}
	for pos, e := range s.heap {
		if int(s.slots[e.slot].pos) != pos || e.count != s.slots[e.slot].count {
			t.Fatalf("sketch %d: slot %d at heap %d says %d, counts %d and %d", w, e.slot, pos, s.slots[e.slot].pos, e.count, s.slots[e.slot].count)
		}
		if pos > 0 && s.less(pos, (pos-1)/2) {
			t.Fatalf("sketch %d: heap order broken at %d", w, pos)
		}
	}
}

// Under capacity each sketch of a pair is a plain count of its own stream:
// exact, no error, nothing evicted, no key of the other stream held.
func TestSketchExactUnderCapacity(t *testing.T) {
	st := newStream(rand.New(rand.NewPCG(1, 2)), 300, 20000, 1.1)
	p := newPair(300)
	st.into(&p)
	for w := range p.s {
		checkSketch(t, &p, w)
		s := &p.s[w]
		if s.evicted || s.floor() != 0 || len(s.slots) != len(st.exact[w]) {
			t.Fatalf("sketch %d: evicted %v, floor %d, %d slots for %d keys", w, s.evicted, s.floor(), len(s.slots), len(st.exact[w]))
		}
		for _, sl := range s.slots {
			if sl.count != st.exact[w][sl.key] || sl.err != 0 {
				t.Errorf("sketch %d: %s: %d±%d, exact %d", w, sl.key, sl.count, sl.err, st.exact[w][sl.key])
			}
		}
	}
}

// Over capacity, on random streams of every skew: each count is an upper
// bound over by at most its error, no error passes the floor, the floor is
// at most total/size, and every key counted more than the floor is held.
func TestSketchBoundsOverCapacity(t *testing.T) {
	for seed := range uint64(30) {
		r := rand.New(rand.NewPCG(seed, 7))
		size := 16 + r.IntN(200)
		exponent := []float64{0, 0.6, 1, 1.5}[seed%4]
		st := newStream(r, size*(2+r.IntN(20)), 5000+r.IntN(20000), exponent)
		p := newPair(size)
		st.into(&p)
		for w := range p.s {
			checkSketch(t, &p, w)
			checkBounds(t, &p, w, st.exact[w], fmt.Sprintf("seed %d sketch %d", seed, w))
		}
	}
}

func checkBounds(t *testing.T, p *pair, w int, exact map[string]int64, name string) {
	t.Helper()
	s := &p.s[w]
	var total int64
	for _, f := range exact {
		total += f
	}
	if !s.evicted || s.total != total || s.floor() > total/int64(s.size) {
		t.Fatalf("%s: evicted %v, total %d of %d, floor %d > %d/%d", name, s.evicted, s.total, total, s.floor(), total, s.size)
	}
	for _, sl := range s.slots {
		if f := exact[sl.key]; f > sl.count || f < sl.count-sl.err || sl.err > s.floor() {
			t.Errorf("%s: %s counted %d±%d (floor %d), exact %d", name, sl.key, sl.count, sl.err, s.floor(), f)
		}
	}
	for k, f := range exact {
		if p.index[k][w] == 0 && f > s.floor() {
			t.Errorf("%s: %s counted %d > floor %d, not held", name, k, f, s.floor())
		}
	}
}

// Sketches of parts of one stream merge into bounds on the whole: every
// listed count is over by at most its error, no error passes the bound,
// the top keys come first; and with no eviction the merge is exact.
func TestMergeSketches(t *testing.T) {
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 11))
		size, parts := 64, 1+r.IntN(6)
		distinct := []int{40, 5000}[seed%2] // exact, then approximate
		st := newStream(r, distinct, 20000, 1.2)
		ps := make([]pair, parts)
		for i := range ps {
			ps[i] = newPair(size)
		}
		for i, k := range st.keys {
			ps[r.IntN(parts)].add(k, st.ns[i])
		}
		for w := range 2 {
			var ss []*sketch
			for i := range ps {
				ss = append(ss, &ps[i].s[w])
			}
			checkMerged(t, mergeSketches(ss, 10), st.exact[w], distinct > size, fmt.Sprintf("seed %d sketch %d", seed, w))
		}
	}
}

func checkMerged(t *testing.T, l hotList, exact map[string]int64, approximate bool, name string) {
	t.Helper()
	if l.approximate != approximate || l.approximate != (l.bound > 0) {
		t.Fatalf("%s: approximate %v, bound %d; want approximate %v", name, l.approximate, l.bound, approximate)
	}
	for _, c := range l.top {
		if f := exact[c.key]; f > c.count || f < c.count-c.err || c.err > l.bound {
			t.Errorf("%s: %s merged %d±%d (bound %d), exact %d", name, c.key, c.count, c.err, l.bound, f)
		}
	}
	if l.top[0].key != "k0000000" {
		t.Errorf("%s: the heaviest key k0000000 (%d) is not first: %+v", name, exact["k0000000"], l.top[:3])
	}
	if !l.approximate && l.top[9].count != nthLargest(exact, 10) {
		t.Errorf("%s: exact merge's 10th %d, want %d", name, l.top[9].count, nthLargest(exact, 10))
	}
}

func nthLargest(m map[string]int64, n int) int64 {
	var xs []int64
	for _, v := range m {
		xs = append(xs, v)
	}
	for i := range n { // a partial selection sort: n is small
		for j := i + 1; j < len(xs); j++ {
			if xs[j] > xs[i] {
				xs[i], xs[j] = xs[j], xs[i]
			}
		}
	}
	return xs[n-1]
}

// The hot path does not allocate once a pair is full: a held key's count
// and a new key's eviction reuse what is there.
func TestSketchAddDoesNotAllocate(t *testing.T) {
	p := newPair(hotCounters)
	names := make([]string, 4*hotCounters)
	for i := range names {
		names[i] = fmt.Sprintf("u%09d", i)
	}
	for _, k := range names {
		p.add(k, [2]int64{1, 3})
	}
	i := 0
	allocs := testing.AllocsPerRun(20000, func() {
		p.add(names[i%len(names)], [2]int64{1, int64(i % 2)}) // mostly evictions: a quarter are held
		i += 7
	})
	if allocs > 0.01 {
		t.Errorf("%.3f allocations per add", allocs)
	}
}

// One product takes most picks: it leads both product lists, exactly (the
// run is under the sketches' capacity) with what the run recorded: every
// request of the run's product and user ops, three rows per acknowledged
// comment; its region and server are where store.Regions puts its
// listing's first row.
func TestHotProductLeads(t *testing.T) {
	sc := testScenario(t, "unique")
	sc.Popularity = PopularitySpec{Exponent: 0.99, HotProducts: 1, HotShare: 0.8}
	sc.Mix = map[string]float64{"write": 50, "burst": 5, "multi-order": 5, "list": 20, "pager": 10, "timeline": 5, "ranked": 5}
	sc.Ops, sc.Warmup = 1500, 0
	st := openEngine(t)
	env, out, tot := runHot(t, st, sc)
	h, err := LocateHotKeys(context.Background(), st, env.Sys.Layout(), env.Sys.Layout().Describe, out.HotKeys)
	if err != nil {
		t.Fatal(err)
	}
	hot := env.Pop.Products[0]
	if h.Approximate || h.ProductsByRequests[0].Key != hot || h.ProductsByRows[0].Key != hot {
		t.Fatalf("approximate %v; first by requests %+v, by rows %+v; want %s", h.Approximate, h.ProductsByRequests[0], h.ProductsByRows[0], hot)
	}
	if got, want := h.ProductsByRows[0].Count, 3*env.Acked.products[0].Load(); got != want {
		t.Errorf("hot product's rows %d, want 3 per acknowledged comment: %d", got, want)
	}
	if got, want := h.Totals.ProductsByRequests, requests(tot, "comment-write", "burst-write", "multi-order-write", "product-latest", "product-page", "ranked"); got != want {
		t.Errorf("product requests %d, the run recorded %d", got, want)
	}
	if got, want := h.Totals.UsersByRequests, requests(tot, "comment-write", "burst-write", "multi-order-write", "user-timeline"); got != want {
		t.Errorf("user requests %d, the run recorded %d", got, want)
	}
	if s := h.ProductsByRequests[0].Share; s < 0.6 {
		t.Errorf("hot product's share of requests %.2f, want most", s)
	}
	checkPlaced(t, st, env.Sys.Layout(), h.ProductsByRequests[0])
	checkPlaced(t, st, env.Sys.Layout(), h.UsersByRows[0])
}

// Only the steady phase counts: after a warm-up, the lists' totals are
// what the histograms recorded, not what the run did, with several
// workers counting into shared shards.
func TestHotKeysSteadyOnly(t *testing.T) {
	sc := testScenario(t, "unique")
	sc.Mix = map[string]float64{"write": 1, "list": 1}
	sc.Ops, sc.Warmup, sc.Workers = 300, Duration(300*time.Millisecond), 4 // shards shared
	env, out, tot := runHot(t, openEngine(t), sc)
	acked := ackedComments(env)
	written := requests(tot, "comment-write")
	if got := out.HotKeys.Totals.ProductsByRequests; got != written+requests(tot, "product-latest") {
		t.Errorf("product requests %d, the steady phase recorded %d", got, written+requests(tot, "product-latest"))
	}
	if acked <= written {
		t.Fatalf("%d comments acknowledged, %d recorded: the warm-up wrote none, the test shows nothing", acked, written)
	}
}

func runHot(t *testing.T, st store.Store, sc Scenario) (*Env, Outcome, map[string]results.OpTotals) {
	t.Helper()
	return runStopped(t, st, sc, 0)
}

// runStopped is runHot with the run's context cancelled stopAfter into
// the run (after the seeding) when that is above 0.
func runStopped(t *testing.T, st store.Store, sc Scenario, stopAfter time.Duration) (*Env, Outcome, map[string]results.OpTotals) {
	t.Helper()
	if err := sc.Validate(); err != nil {
		t.Fatal(err)
	}
	layout, err := keys.Load(sc.Layout)
	if err != nil {
		t.Fatal(err)
	}
	set := results.NewSet(ResultNames())
	cfg := Config{Scenario: sc, Results: set, WorkersTotal: 1, Sys: comments.New(st, comments.Options{Layout: layout})}
	env, err := Prepare(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if stopAfter > 0 {
		var cancel func()
		ctx, cancel = context.WithTimeout(ctx, stopAfter)
		defer cancel()
	}
	out, err := env.Run(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	tot := map[string]results.OpTotals{}
	for _, o := range set.Totals() {
		tot[o.Op] = o
	}
	return env, out, tot
}

// ackedComments is the comments the run's writes had acknowledged: every
// write has ended when Run returns.
func ackedComments(env *Env) int64 {
	var n int64
	for i := range env.Acked.products {
		n += env.Acked.products[i].Load()
	}
	return n
}

func requests(tot map[string]results.OpTotals, ops ...string) int64 {
	var n int64
	for _, op := range ops {
		n += tot[op].Count + tot[op].Errors
	}
	return n
}

// checkPlaced: the key's region and server are those store.Regions gives
// for the first key of its listing.
func checkPlaced(t *testing.T, st store.Store, layout *keys.Design, k results.HotKey) {
	t.Helper()
	l, err := layout.Listing(k.Table, k.Key)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := st.Regions(context.Background(), k.Table)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if r.Contains(l.Branches[0]) {
			if k.Region != r.Name || k.Server != r.Server || k.Regions != 1 {
				t.Errorf("%s placed in %s on %s (%d regions), store.Regions says %s on %s", k.Key, k.Region, k.Server, k.Regions, r.Name, r.Server)
			}
			return
		}
	}
	t.Errorf("no region holds %s's listing", k.Key)
}

// A salted listing spans a region per branch here: the first branch's
// region is named, and Regions counts them all.
func TestLocateSalted(t *testing.T) {
	layout, err := keys.Load("salted")
	if err != nil {
		t.Fatal(err)
	}
	const id = "ABCDEFGHIJ"
	l, err := layout.Listing(keys.ProductComment, id)
	if err != nil || len(l.Branches) < 2 {
		t.Fatalf("salted listing %d branches, %v: the test needs a salted product listing", len(l.Branches), err)
	}
	starts := [][]byte{nil}
	for _, b := range l.Branches {
		starts = append(starts, b)
	}
	slices.SortFunc(starts, bytes.Compare)
	var rs []store.Region
	for i, s := range starts {
		r := store.Region{Table: keys.ProductComment, Name: fmt.Sprintf("r%d", i), Start: s, Server: fmt.Sprintf("rs%d", i%3)}
		if i+1 < len(starts) {
			r.End = starts[i+1]
		}
		rs = append(rs, r)
	}
	k := results.HotKey{Key: id, Table: keys.ProductComment}
	locate(&k, rs, layout, layout.Describe)
	first := slices.IndexFunc(rs, func(r store.Region) bool { return bytes.Equal(r.Start, l.Branches[0]) })
	if k.Region != rs[first].Name || k.Server != rs[first].Server || k.Regions != len(l.Branches) {
		t.Errorf("placed %+v; want %s on %s, %d regions", k, rs[first].Name, rs[first].Server, len(l.Branches))
	}
}
