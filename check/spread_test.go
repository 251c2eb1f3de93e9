package check

import (
	"commentbench/comments"
	"context"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"

	"commentbench/keys"
	"commentbench/store"
)

// The spread the passes count as they read is the spread a scan of every
// region finds (what the check did before, and still does for a table no
// pass read to its end), for every built-in design's regions, and for a
// design whose comments leave their orders' key order (the orders read
// live up to there are counted once, by the sorted join's read).
func TestSpreadInPassesEqualsRegionScans(t *testing.T) {
	pf, err := keys.Parse("product-first.yaml", []byte(productFirst))
	must(t, err)
	designs := []*keys.Design{pf}
	for _, name := range keys.BuiltinNames() {
		designs = append(designs, builtin(t, name))
	}
	for _, l := range designs {
		t.Run(l.Name(), func(t *testing.T) {
			d := newDataset(t, l)
			inPass := d.check(false).Spread
			c := &checker{st: d.st, o: Options{Layout: d.layout, Spread: true}}
			c.o.defaults()
			must(t, c.startTallies(d.ctx)) // no pass runs: every table is scanned by region
			scanned, err := c.spread(d.ctx)
			must(t, err)
			if !reflect.DeepEqual(inPass, scanned) {
				t.Fatalf("counted in the passes:\n%+v\nscanned by region:\n%+v", inPass, scanned)
			}
		})
	}
}

// scanCounter counts the scans of each table, and apart the scans of part
// of a table: the check's passes read whole tables, so only a spread
// measured apart from them makes these.
type scanCounter struct {
	store.Store
	bounded atomic.Int64
	mu      sync.Mutex
	n       map[string]int
}

func (s *scanCounter) Scan(ctx context.Context, table string, sc store.Scan, each func(store.Row) bool) (store.ScanMetrics, error) {
	if sc.Start != nil || sc.Stop != nil {
		s.bounded.Add(1)
	}
	s.mu.Lock()
	if s.n == nil {
		s.n = map[string]int{}
	}
	s.n[table]++
	s.mu.Unlock()
	return s.Store.Scan(ctx, table, sc, each)
}

// scans is how many scans of table there were.
func (s *scanCounter) scans(table string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n[table]
}

// A run's ledger is reconciled as the comment pass goes: checking with
// --run costs no scan of the comments beyond the check's own.
func TestRunReconciledInTheCommentPass(t *testing.T) {
	d := newDataset(t, keys.Unique)
	scans := func(run string) int {
		sc := &scanCounter{Store: d.st}
		rep, err := Run(d.ctx, sc, Options{Layout: d.layout, MemLimit: 4 << 10, TempDir: t.TempDir(), RunDir: run})
		must(t, err)
		if run != "" && (rep.Run == nil || rep.Run.Acked != 36) {
			t.Fatalf("run report %+v, want 36 acknowledged", rep.Run)
		}
		return sc.scans(keys.Comment)
	}
	without, with := scans(""), scans(ledger(t, d.acked()))
	if with != without {
		t.Fatalf("%d scans of the comments with --run, %d without", with, without)
	}
}

// The orders are joined live, in the comment pass, on a design whose
// comment keys lead with their orders' keys: one read of the order table
// and none after. A design whose comment keys do not reads it twice: live
// up to the first comment out of order, then whole for the sorted join.
//
// An order with two comments (one per product) keeps the join live: its
// comments come one after the other, at the same order key. And the
// comments after the join has ended are filed for their users and
// products as any other: with every user gone, every comment's is
// missing.
func TestOrdersJoinedLive(t *testing.T) {
	pf, err := keys.Parse("product-first.yaml", []byte(productFirst))
	must(t, err)
	for _, c := range []struct {
		layout *keys.Design
		scans  int
	}{{keys.Unique, 1}, {builtin(t, "hashed"), 1}, {pf, 2}} {
		d := newDataset(t, c.layout)
		first := d.byProd[d.products[0]][0]
		_, err := d.sys.WriteComment(d.ctx, comments.NewComment{OrderID: first.OrderID, ProductID: d.products[1],
			UserID: first.UserID, Content: "같은 주문, 다른 상품", Timestamp: first.Timestamp + 1})
		must(t, err)
		sc := &scanCounter{Store: d.st}
		rep, err := Run(d.ctx, sc, Options{Layout: d.layout, MemLimit: 4 << 10, TempDir: t.TempDir(), Spread: true})
		must(t, err)
		if got := sc.scans(keys.Order); got != c.scans || !rep.Consistent {
			t.Errorf("%s: %d scans of the orders (consistent: %v), want %d", c.layout.Name(), got, rep.Consistent, c.scans)
		}
		for _, u := range d.users {
			d.del(keys.User, d.userRow(u))
		}
		rep, err = Run(d.ctx, d.st, Options{Layout: d.layout, MemLimit: 4 << 10, TempDir: t.TempDir()})
		must(t, err)
		if got := rep.References.MissingUser.Count; got != rep.References.Comments || got != 37 {
			t.Errorf("%s: every user deleted, %d of %d comments' users missing; want all 37", c.layout.Name(), got, rep.References.Comments)
		}
	}
}

// The spread costs no pass of its own: every table is read to its end by a
// check's pass (the orders too, past the last one a comment references; an
// entity table past its last referenced row), and no region is scanned
// apart, for every built-in design, with and without a run to reconcile.
func TestSpreadCostsNoScanOfItsOwn(t *testing.T) {
	for _, name := range keys.BuiltinNames() {
		t.Run(name, func(t *testing.T) {
			d := newDataset(t, builtin(t, name))
			sc := &scanCounter{Store: d.st}
			rep, err := Run(d.ctx, sc, Options{Layout: d.layout, MemLimit: 4 << 10, TempDir: t.TempDir(), Spread: true})
			must(t, err)
			if rep.Spread == nil || sc.bounded.Load() != 0 {
				t.Fatalf("spread %v after %d scans of single regions, want it from the passes' whole-table reads", rep.Spread != nil, sc.bounded.Load())
			}
		})
	}
}

// A row falls in the region whose range holds it: a region's start row is
// its own, its end row the next region's, and the last region is open.
func TestTallyPlacesRowsByRange(t *testing.T) {
	regions := []store.Region{{Name: "r1", End: []byte("b")}, {Name: "r2", Start: []byte("b"), End: []byte("d")}, {Name: "r3", Start: []byte("d")}}
	tl := &tally{regions: regions, data: make([]RegionData, len(regions))}
	for _, k := range []string{"a", "b", "c", "d", "e", "zz"} {
		tl.add(store.Row{Key: []byte(k), Cells: []store.Cell{{Value: []byte("vv")}}})
	}
	var got []int64
	for _, d := range tl.data {
		got = append(got, d.Rows, d.Bytes)
	}
	if want := []int64{1, 3, 2, 6, 3, 10}; !reflect.DeepEqual(got, want) {
		t.Fatalf("rows, bytes per region %v, want %v", got, want)
	}
}
