package check

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"commentbench/comments"
	"commentbench/faults"
	"commentbench/keys"
	"commentbench/model"
	"commentbench/results"
	"commentbench/store"
	"commentbench/store/embedded"
)

// strategyData is a data set written with a strategy, failures injected.
type strategyData struct {
	t      *testing.T
	ctx    context.Context
	st     store.Store
	sys    *comments.System
	inj    *faults.Injector
	layout *keys.Design
	w      comments.Writes
	ids    keys.IDGen
	users  []string
	prods  []string
	run    string // a run dir holding the writes' consistency block and ledger
	mu     sync.Mutex
	ledger *results.LedgerWriter
	books  *results.Ledger
}

func newStrategyData(t *testing.T, d *keys.Design, w comments.Writes, spec faults.Spec) *strategyData {
	t.Helper()
	e, err := embedded.Open(embedded.Options{})
	must(t, err)
	t.Cleanup(func() { e.Close() })
	inj := faults.New(spec, 5)
	sd := &strategyData{t: t, ctx: context.Background(), st: e, inj: inj, layout: d, w: w,
		ids: keys.NewRandom(rand.New(rand.NewPCG(5, 6))), run: t.TempDir(),
		sys: comments.New(e, comments.Options{Layout: d, Writes: w, Faults: inj, LockTTL: time.Millisecond, VerifyGrace: time.Hour})}
	must(t, sd.sys.CreateTables(sd.ctx, keys.RandomLetters, 3))
	sd.books = results.NewLedger(sd.run, false)
	sd.ledger, err = sd.books.Writer(0)
	must(t, err)
	seller := sd.ids.Next()
	must(t, sd.sys.CreateSeller(sd.ctx, model.Seller{ID: seller, Name: "s"}))
	for range 3 {
		u := sd.ids.Next()
		must(t, sd.sys.CreateUser(sd.ctx, model.User{ID: u}))
		sd.users = append(sd.users, u)
		p := sd.ids.Next()
		must(t, sd.sys.CreateProduct(sd.ctx, model.Product{ID: p, SellerID: seller}))
		sd.prods = append(sd.prods, p)
	}
	return sd
}

// write writes comment i, returning what it wrote and the error.
func (sd *strategyData) write(i int) (model.Comment, error) {
	u, p := sd.users[i%len(sd.users)], sd.prods[i%len(sd.prods)]
	sd.mu.Lock()
	o := sd.ids.Next() // the generator is not safe for concurrent use
	sd.mu.Unlock()
	must(sd.t, sd.sys.CreateOrder(sd.ctx, model.Order{ID: o, UserID: u}))
	c, err := sd.sys.WriteComment(sd.ctx, comments.NewComment{OrderID: o, ProductID: p, UserID: u,
		Content: strings.Repeat("글", 1+i%7), Timestamp: ts0 + int64(i)})
	status := results.Acked
	if err != nil {
		status = results.Unknown
	}
	ck, kerr := sd.layout.CommentKey(c.OrderID, c.ProductID)
	must(sd.t, kerr)
	sd.mu.Lock()
	sd.ledger.Write(status, ck, c.ContentLen())
	sd.mu.Unlock()
	return c, err
}

// summarize writes the run's consistency block as loadgen's summary does.
func (sd *strategyData) summarize() {
	r := sd.sys.Residue()
	c := &results.Consistency{Writes: sd.w.String(),
		Injected: results.Injected{FailedWrites: r.Injected.Failed, LostReplies: r.Injected.Lost, AbandonedWriters: r.Injected.Abandoned},
		Unknown:  r.Unknown,
		Left: results.Left{Unreferenced: r.Unreferenced, Undefined: r.Undefined, Unverified: r.Unverified, Orphans: r.Orphans,
			StaleCopies: r.StaleCopies, LocksForward: r.LocksForward, LocksBack: r.LocksBack},
		Resolved: results.Resolved{Repaired: r.Repaired, Deleted: r.Deleted, RolledForward: r.RolledForward, RolledBack: r.RolledBack}}
	must(sd.t, results.WriteSummary(sd.run, results.Summary{Version: results.FormatVersion, Consistency: c}))
	must(sd.t, sd.books.Err())
}

func (sd *strategyData) check(repair bool) Report {
	sd.t.Helper()
	rep, err := Run(sd.ctx, sd.st, Options{Layout: sd.layout, Writes: sd.w, RunDir: sd.run, MemLimit: 4 << 10,
		TempDir: sd.t.TempDir(), Repair: repair})
	must(sd.t, err)
	return rep
}

// reconciled fails the test unless every line of the report's fault
// reconciliation agrees, and returns what the report found left.
func reconciled(t *testing.T, rep Report) (left int64) {
	t.Helper()
	if rep.Faults == nil {
		t.Fatal("no reconciliation of the run's failures")
	}
	for _, u := range rep.Faults.Unexplained {
		t.Errorf("unexplained: %s", u)
	}
	if len(rep.Faults.Unexplained) > 0 {
		for _, ix := range rep.Indexes {
			t.Logf("%s: unreferenced %v; stale %v; undefined %v; mismatched %v; extra %v", ix.Table, ix.Unreferenced, ix.StaleCopies, ix.Undefined, ix.Mismatched, ix.Extra)
		}
	}
	for _, l := range rep.Faults.Lines {
		left += l.Found
	}
	return left
}

// strategyDesigns are each strategy's designs, as in package comments'
// tests.
func strategyDesigns(t *testing.T, w comments.Writes) []*keys.Design {
	b := func(name string) *keys.Design { d, err := keys.Builtin(name); must(t, err); return d }
	cl := func(name string) *keys.Design {
		src := clusteredDesigns[name]
		d, err := keys.Parse(name+".yaml", []byte(src))
		must(t, err)
		return d
	}
	switch w {
	case comments.OneRow:
		return []*keys.Design{b("between"), cl("between-clustered")}
	case comments.Verified:
		return []*keys.Design{b("unique"), b("feed"), cl("clustered")}
	}
	return []*keys.Design{b("unique"), b("between"), b("feed"), cl("clustered"), cl("between-clustered")}
}

var allWrites = []comments.Writes{comments.NonAtomic, comments.OneRow, comments.Verified, comments.Transactional}

// A writer stopped before each request of a comment write, on every
// strategy and design: what verify finds is what the run says its writer
// left (the drift of non-atomic and one-row; the unverified entries and
// the locks of the others, which are no inconsistency), and after a
// repair the data is consistent, its residue gone.
func TestStoppedWritersReconciled(t *testing.T) {
	for _, w := range allWrites {
		for _, d := range strategyDesigns(t, w) {
			t.Run(w.String()+"/"+d.Name(), func(t *testing.T) {
				for k := 1; ; k++ {
					sd := newStrategyData(t, d, w, faults.Spec{})
					for i := range 4 {
						if _, err := sd.write(i); err != nil {
							t.Fatal(err)
						}
					}
					steps := 0
					sd.inj.Stops = func(n int) int { steps = n; return k }
					_, err := sd.write(4)
					sd.inj.Stops = nil
					if k >= steps {
						if err != nil || k == 1 {
							t.Fatalf("%d steps: %v", steps, err)
						}
						return
					}
					time.Sleep(2 * time.Millisecond) // the locks expire
					sd.summarize()
					rep := sd.check(true)
					left := reconciled(t, rep)
					if left == 0 {
						t.Errorf("step %d of %d: the check found nothing left", k, steps)
					}
					drift := w == comments.NonAtomic || w == comments.OneRow
					if rep.Consistent == drift {
						t.Errorf("step %d: %s; want consistent %v (drift is inconsistent, unfinished writes are not)", k, rep.Verdict, !drift)
					}
					must(t, rep.Repair.Apply(sd.ctx, sd.st, sd.layout))
					again := sd.check(false)
					if !again.Consistent || again.Faults == nil || again.Faults.Note == "" {
						t.Errorf("step %d: after the repair: %s, faults %+v", k, again.Verdict, again.Faults)
					}
					for _, ix := range again.Indexes {
						if ix.Unverified.Count != 0 {
							t.Errorf("step %d: after the repair %s holds %d unverified entries", k, ix.Table, ix.Unverified.Count)
						}
					}
					if again.Locks != nil && again.Locks.RolledForward+again.Locks.RolledBack != 0 {
						t.Errorf("step %d: after the repair %+v locks are left", k, again.Locks)
					}
				}
			})
		}
	}
}

// Writers at once, every kind of failure injected (and edits of what was
// written): verify's counts are exactly what the run says its failed
// writes left, less what its readers set right; a repair leaves the data
// consistent.
func TestInjectedFailuresReconciled(t *testing.T) {
	for _, w := range allWrites {
		for _, d := range strategyDesigns(t, w) {
			t.Run(w.String()+"/"+d.Name(), func(t *testing.T) {
				sd := newStrategyData(t, d, w, faults.Spec{FailWrites: 0.05, LoseReplies: 0.05, Abandon: 0.05})
				var mu sync.Mutex
				var written []model.Comment
				var wg sync.WaitGroup
				for g := range 4 {
					wg.Go(func() {
						for i := range 40 {
							c, err := sd.write(g*1000 + i)
							if err == nil {
								mu.Lock()
								written = append(written, c)
								mu.Unlock()
							}
						}
					})
				}
				wg.Wait()
				for _, c := range written[:10] {
					sd.sys.EditComment(sd.ctx, c.OrderID, c.ProductID, "고쳤다") // some fail: that is the point
				}
				// Readers meanwhile: each walk of a listing may set right
				// what it meets.
				for _, p := range sd.prods {
					for cur := []byte(nil); ; {
						pg, err := sd.sys.ProductPage(sd.ctx, p, cur, 5)
						must(t, err)
						if cur = pg.Next; cur == nil {
							break
						}
					}
				}
				time.Sleep(2 * time.Millisecond)
				sd.summarize()
				r := sd.sys.Residue()
				if r.Injected.Failed+r.Injected.Lost+r.Injected.Abandoned == 0 {
					t.Fatal("nothing injected")
				}
				rep := sd.check(true)
				reconciled(t, rep)
				if rep.Faults.Unknown != 0 || rep.Run == nil || rep.Run.Lost.Count != 0 {
					t.Errorf("%d writes of unknown residue; run %+v: want every acknowledged comment there", rep.Faults.Unknown, rep.Run)
				}
				must(t, rep.Repair.Apply(sd.ctx, sd.st, sd.layout))
				if again := sd.check(false); !again.Consistent {
					t.Errorf("after the repair: %s", again.Verdict)
					for name, c := range counters(again) {
						t.Logf("%s: %v", name, c)
					}
				}
				t.Logf("%s: injected %+v, lines %+v", w, r.Injected, rep.Faults.Lines)
			})
		}
	}
}

// Each of verify's counters of unfinished writes counts exactly what a
// writer stopped at a known step left: on unique, a verified write is
// five requests (the user's entry and the product's unverified, the
// comment, the two verified) and a transaction seven (three prewrites,
// the commit, three rows made stable: the user's, the product's, the
// comment's).
func TestUnfinishedCounted(t *testing.T) {
	unique, _ := keys.Builtin("unique")
	for _, c := range []struct {
		w          comments.Writes
		stop       int
		unverified map[string][2]int64 // listing: unverified, of them rolled back
		fwd, back  int64               // locks
	}{
		{comments.Verified, 1, map[string][2]int64{"user-comment": {1, 1}}, 0, 0},
		{comments.Verified, 2, map[string][2]int64{"user-comment": {1, 1}, "product-comment": {1, 1}}, 0, 0},
		{comments.Verified, 3, map[string][2]int64{"user-comment": {1, 0}, "product-comment": {1, 0}}, 0, 0},
		{comments.Verified, 4, map[string][2]int64{"product-comment": {1, 0}}, 0, 0},
		{comments.Transactional, 2, nil, 0, 2},
		{comments.Transactional, 3, nil, 0, 3},
		{comments.Transactional, 5, nil, 2, 0},
		{comments.Transactional, 6, nil, 1, 0},
	} {
		t.Run(fmt.Sprintf("%s/stop %d", c.w, c.stop), func(t *testing.T) {
			sd := newStrategyData(t, unique, c.w, faults.Spec{})
			sd.inj.Stops = func(int) int { return c.stop }
			if _, err := sd.write(0); err == nil {
				t.Fatal("the writer did not stop")
			}
			rep := sd.check(false)
			for _, ix := range rep.Indexes {
				want := c.unverified[ix.Table]
				if got := [2]int64{ix.Unverified.Count, ix.UnverifiedBack}; got != want {
					t.Errorf("%s: %d unverified, %d rolled back; want %v", ix.Table, got[0], got[1], want)
				}
			}
			var fwd, back int64
			if rep.Locks != nil {
				fwd, back = rep.Locks.RolledForward, rep.Locks.RolledBack
			}
			if fwd != c.fwd || back != c.back {
				t.Errorf("locks %d forward, %d back; want %d, %d", fwd, back, c.fwd, c.back)
			}
			if !rep.Consistent {
				t.Errorf("an unfinished write made the data inconsistent: %s", rep.Verdict)
			}
		})
	}
}

// Drift the injected failures did not leave is no explained finding: an
// entry deleted by hand is named, and makes the data inconsistent even
// under a strategy whose unfinished writes do not.
func TestUnexplainedDrift(t *testing.T) {
	unique, _ := keys.Builtin("unique")
	sd := newStrategyData(t, unique, comments.Verified, faults.Spec{FailWrites: 0.5})
	var c model.Comment
	written, failed := false, false
	for i := 0; !written || !failed; i++ {
		w, err := sd.write(i)
		if err == nil && !written {
			c, written = w, true
		}
		failed = failed || err != nil
	}
	sd.summarize()
	k, err := unique.Encode(keys.Key{Table: keys.UserComment, UserID: c.UserID, ProductID: c.ProductID, OrderID: c.OrderID,
		Timestamp: c.Timestamp, ContentLen: c.ContentLen()})
	must(t, err)
	must(t, sd.st.Mutate(sd.ctx, keys.UserComment, store.Delete(k)))
	rep := sd.check(false)
	if rep.Faults == nil || len(rep.Faults.Unexplained) != 1 ||
		rep.Faults.Unexplained[0] != "missing entries in user-comment: 1 found, the injected failures explain 0" || rep.Consistent {
		t.Errorf("faults %+v, %s", rep.Faults, rep.Verdict)
	}
}

// A run that injected nothing has nothing to reconcile: no block, and no
// word of failures that explain what verify found.
func TestNothingInjectedNothingReconciled(t *testing.T) {
	unique, _ := keys.Builtin("unique")
	sd := newStrategyData(t, unique, comments.Verified, faults.Spec{})
	_, err := sd.write(0)
	must(t, err)
	sd.summarize()
	if rep := sd.check(false); rep.Faults != nil || !rep.Consistent {
		t.Errorf("faults %+v, %s", rep.Faults, rep.Verdict)
	}
}
