package check

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"commentbench/keys"
	"commentbench/store"
)

var errInjected = errors.New("injected failure")

// failing is a store whose reads of one table fail: a scan after yielding
// `after` rows (unless gets), a batch get at once. Everything else passes
// through.
type failing struct {
	store.Store
	table string
	after int
	gets  bool // only batch gets fail
}

func (f failing) Scan(ctx context.Context, table string, sc store.Scan, each func(store.Row) bool) (store.ScanMetrics, error) {
	if table != f.table || f.gets {
		return f.Store.Scan(ctx, table, sc, each)
	}
	n, stopped := 0, false
	m, err := f.Store.Scan(ctx, table, sc, func(r store.Row) bool {
		if n == f.after {
			return false
		}
		n++
		if !each(r) {
			stopped = true
			return false
		}
		return true
	})
	if err == nil && !stopped {
		err = errInjected
	}
	return m, err
}

func (f failing) BatchGet(ctx context.Context, table string, rows [][]byte) ([]store.Row, error) {
	if table == f.table {
		return nil, errInjected
	}
	return f.Store.BatchGet(ctx, table, rows)
}

// A check that cannot read a table says so and which table, whichever
// table it is and however far the read got: it never reports on data it
// did not see (verify exits 2, not 0 or 1).
func TestReadFailures(t *testing.T) {
	d := newDataset(t, keys.Unique)
	run := ledger(t, d.acked())
	for _, table := range keys.Tables {
		for _, after := range []int{0, 2} {
			for _, o := range []Options{{}, {Spread: true}, {RunDir: run}} {
				t.Run(fmt.Sprintf("%s/after %d/%+v", table, after, o), func(t *testing.T) {
					o.Layout, o.MemLimit, o.TempDir = d.layout, 4<<10, t.TempDir()
					_, err := Run(d.ctx, failing{Store: d.st, table: table, after: after}, o)
					if !errors.Is(err, errInjected) || !strings.Contains(err.Error(), table) {
						t.Errorf("a failing read of %s: %v, want the failure, naming the table", table, err)
					}
				})
			}
		}
	}
	// The ranks' comments are read by key.
	_, err := Run(d.ctx, failing{Store: d.st, table: keys.Comment, gets: true}, Options{Layout: d.layout, TempDir: t.TempDir()})
	if !errors.Is(err, errInjected) || !strings.Contains(err.Error(), "get comment") {
		t.Errorf("a failing get of the ranked comments: %v, want the failure", err)
	}
}

// failingWrites is a store whose writes to one table fail.
type failingWrites struct {
	store.Store
	table string
}

func (f failingWrites) Mutate(ctx context.Context, table string, muts ...store.Mutation) error {
	if table == f.table {
		return errInjected
	}
	return f.Store.Mutate(ctx, table, muts...)
}

// A repair that cannot write says so, naming the table, and does not say
// it was applied.
func TestRepairWriteFailures(t *testing.T) {
	for _, table := range []string{keys.ProductComment, keys.UserComment, keys.ProductRank} {
		t.Run(table, func(t *testing.T) {
			d := newDataset(t, keys.Unique)
			c := d.byProd[d.products[0]][5]
			d.del(keys.ProductComment, d.productKey(c))                    // a put
			d.put(keys.UserComment, d.userKey(d.ghost()), d.ck(d.ghost())) // a delete
			d.del(keys.ProductRank, d.rankKey(d.products[1], 4))           // a rerank
			r := d.check(true)
			assertPlan(t, r.Repair, repairPlan{puts: 1, deletes: 1, reranks: 1})
			err := r.Repair.Apply(d.ctx, failingWrites{Store: d.st, table: table}, d.layout)
			if !errors.Is(err, errInjected) || !strings.Contains(err.Error(), "repair") || r.Repair.Applied {
				t.Errorf("a repair whose writes to %s fail: %v (applied %v), want the failure", table, err, r.Repair.Applied)
			}
		})
	}
}

// Options left zero take their defaults; set ones are kept.
func TestOptionDefaults(t *testing.T) {
	var o Options
	o.defaults()
	if o.Codec == nil || o.Codec.Name() != "json" || o.MemLimit != 16<<20 || o.Rows == nil || o.Comments == nil {
		t.Errorf("defaults: %+v", o)
	}
	for _, limit := range []int{1, 4 << 10} {
		o := Options{MemLimit: limit}
		o.defaults()
		if o.MemLimit != limit {
			t.Errorf("MemLimit %d became %d", limit, o.MemLimit)
		}
	}
	o = Options{MemLimit: -1}
	o.defaults()
	if o.MemLimit != 16<<20 {
		t.Errorf("MemLimit -1 became %d, want the default", o.MemLimit)
	}
}

// A report reads back as written; a directory without one is not an
// error, a report that does not parse is.
func TestReadReport(t *testing.T) {
	dir := t.TempDir()
	if _, found, err := ReadReport(dir); found || err != nil {
		t.Errorf("no report: found %v, %v", found, err)
	}
	want := Report{Layout: "seed", Consistent: true, Verdict: "CONSISTENT: 3 comments", CollidedComments: 2,
		Indexes: []IndexReport{{Table: keys.ProductComment, Collided: Counter{Count: 2, Samples: []string{"x"}}}}}
	must(t, WriteReport(dir, want))
	got, found, err := ReadReport(dir)
	if err != nil || !found || fmt.Sprint(got) != fmt.Sprint(want) || got.CollidedTotal() != 2 {
		t.Errorf("read back %+v, %v, %v; want %+v", got, found, err, want)
	}
	must(t, os.WriteFile(filepath.Join(dir, ReportFile), []byte("{"), 0o644))
	if _, found, err := ReadReport(dir); err == nil || found {
		t.Errorf("a corrupt report: found %v, %v", found, err)
	}
	if err := WriteReport(filepath.Join(dir, "no", "such"), want); err == nil {
		t.Error("a report written into a missing directory")
	}
}

// stalled is a store whose comment scan waits for its context to end, and
// whose reads of table fail at once.
type stalled struct {
	store.Store
	table   string
	stopped chan bool // whether the comment scan was stopped
}

func (s stalled) Scan(ctx context.Context, table string, sc store.Scan, each func(store.Row) bool) (store.ScanMetrics, error) {
	switch table {
	case s.table:
		return store.ScanMetrics{}, errInjected
	case keys.Comment:
		select {
		case <-ctx.Done():
			s.stopped <- true
			return store.ScanMetrics{}, ctx.Err()
		case <-time.After(10 * time.Second):
			s.stopped <- false
		}
	}
	return s.Store.Scan(ctx, table, sc, each)
}

// An index read alongside the comments that fails stops the comment read
// at once, and the check reports the index's failure, not the stop.
func TestFailingIndexStopsTheCommentPass(t *testing.T) {
	d := newDataset(t, keys.Unique)
	for _, table := range []string{keys.UserComment, keys.ProductComment} {
		st := stalled{Store: d.st, table: table, stopped: make(chan bool, 1)}
		_, err := Run(d.ctx, st, Options{Layout: d.layout, TempDir: t.TempDir()})
		if !errors.Is(err, errInjected) {
			t.Errorf("a failing read of %s: %v, want the failure", table, err)
		}
		if !<-st.stopped {
			t.Errorf("a failing read of %s left the comment pass running", table)
		}
	}
}

// failsLater lets the first let scans of table through, and fails the
// ones after at once.
type failsLater struct {
	store.Store
	table string
	let   int64
	n     *atomic.Int64
}

func (f failsLater) Scan(ctx context.Context, table string, sc store.Scan, each func(store.Row) bool) (store.ScanMetrics, error) {
	if table == f.table && f.n.Add(1) > f.let {
		return store.ScanMetrics{}, errInjected
	}
	return f.Store.Scan(ctx, table, sc, each)
}

// A join's reads fail as the first reads do: the comments read again for
// the join, the index read again, and the comments read a third time for
// its strays, each failure reported and naming the table.
func TestJoinReadFailures(t *testing.T) {
	d := newDataset(t, keys.Unique)
	a, b := d.byProd[d.products[0]][3], d.byProd[d.products[1]][5]
	d.put(keys.ProductComment, d.productKey(a), d.ck(b))
	d.put(keys.ProductComment, d.productKey(b), d.ck(a))
	for _, c := range []struct {
		table string
		let   int64
	}{{keys.Comment, 1}, {keys.Comment, 2}, {keys.ProductComment, 1}} {
		st := failsLater{Store: d.st, table: c.table, let: c.let, n: new(atomic.Int64)}
		_, err := Run(d.ctx, st, Options{Layout: d.layout, TempDir: t.TempDir()})
		if !errors.Is(err, errInjected) || !strings.Contains(err.Error(), c.table) {
			t.Errorf("%s failing after %d reads: %v, want the failure, naming the table", c.table, c.let, err)
		}
		if st.n.Load() != c.let+1 {
			t.Errorf("%s read %d times, want %d: the last failing", c.table, st.n.Load(), c.let+1)
		}
	}
}
