package txn

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"commentbench/store"
	"commentbench/store/embedded"
)

var ctx = context.Background()

// clock is a test's time in ms, moved by hand.
type clock struct{ ms atomic.Int64 }

// newClock starts at the wall clock's now: a cell a test puts without a
// timestamp is stamped by the store's clock, and a transaction writes
// after it only if its own clock is no earlier.
func newClock() *clock { c := &clock{}; c.ms.Store(time.Now().UnixMilli()); return c }

func (c *clock) now() int64             { return c.ms.Load() }
func (c *clock) add(d time.Duration)    { c.ms.Add(d.Milliseconds()) }
func (c *clock) opts(o Options) Options { o.Clock = c.now; return o }

// faulty fails or loses the replies of chosen CheckAndMutate calls
// (numbered from 0): failed ones are not applied, lost ones are.
type faulty struct {
	store.Store
	n          atomic.Int64
	fail, lose map[int64]bool
}

var errInjected = errors.New("injected")

func (f *faulty) CheckAndMutate(ctx context.Context, table string, q, expected []byte, m store.Mutation) (bool, error) {
	i := f.n.Add(1) - 1
	if f.fail[i] {
		return false, errInjected
	}
	ok, err := f.Store.CheckAndMutate(ctx, table, q, expected, m)
	if err == nil && f.lose[i] {
		return false, fmt.Errorf("reply lost: %w", errInjected)
	}
	return ok, err
}

func newStore(t *testing.T, tables ...string) store.Store {
	t.Helper()
	e, err := embedded.Open(embedded.Options{DisableSplits: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	for _, name := range tables {
		if err := e.CreateTable(ctx, store.TableSpec{Name: name, Family: "cf"}); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func cell(q, v string) store.Cell { return store.Cell{Qualifier: []byte(q), Value: []byte(v)} }

// seen is a row as a reader sees it, q=v space-separated.
func seen(t *testing.T, m *Manager, table, row string) string {
	t.Helper()
	r, err := m.st.Get(ctx, table, []byte(row))
	must(t, err)
	v, err := m.View(ctx, table, r)
	must(t, err)
	var s []string
	for _, c := range v.Cells {
		s = append(s, string(c.Qualifier)+"="+string(c.Value))
	}
	return strings.Join(s, " ")
}

// lockState is a row's lock state, "" when it has none.
func lockState(t *testing.T, st store.Store, table, row string) string {
	t.Helper()
	r, err := st.Get(ctx, table, []byte(row))
	must(t, err)
	v, ok := r.Value(LockColumn)
	if !ok {
		return ""
	}
	l, err := Decode(v)
	must(t, err)
	return l.State.String()
}

// The lock's bytes decode to the lock that made them, for locks of every
// shape.
func TestLockRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	bs := func() []byte {
		b := make([]byte, r.IntN(5))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		return b
	}
	for range 2000 {
		l := Lock{State: State(1 + r.IntN(4)), Tx: r.Int64() - r.Int64(), Ts: r.Int64N(1 << 50), Expiry: r.Int64N(1 << 50), Committed: r.IntN(2) == 0, Resolved: r.IntN(2) == 0}
		if r.IntN(2) == 0 {
			l.Primary = &Ref{Table: string(bs()), Row: bs()}
		}
		for range r.IntN(3) {
			l.Secondaries = append(l.Secondaries, Ref{Table: string(bs()), Row: bs()})
		}
		for range r.IntN(3) {
			c := Column{Qualifier: bs(), Present: r.IntN(2) == 0}
			if c.Present {
				c.Value = bs()
			}
			l.Before = append(l.Before, c)
		}
		for range r.IntN(3) {
			l.Deletes = append(l.Deletes, bs())
		}
		got, err := Decode(l.Encode())
		if err != nil || !reflect.DeepEqual(normal(got), normal(l)) {
			t.Fatalf("%+v\ndecoded %+v, %v", l, got, err)
		}
	}
}

// normal makes empty byte slices nil, as a decode of none gives.
func normal(l Lock) Lock {
	nb := func(b []byte) []byte {
		if len(b) == 0 {
			return nil
		}
		return b
	}
	if l.Primary != nil {
		p := Ref{Table: l.Primary.Table, Row: nb(l.Primary.Row)}
		l.Primary = &p
	}
	l.Secondaries = slices.Clone(l.Secondaries)
	for i := range l.Secondaries {
		l.Secondaries[i].Row = nb(l.Secondaries[i].Row)
	}
	l.Before = slices.Clone(l.Before)
	for i := range l.Before {
		l.Before[i].Qualifier, l.Before[i].Value = nb(l.Before[i].Qualifier), nb(l.Before[i].Value)
	}
	l.Deletes = slices.Clone(l.Deletes)
	for i := range l.Deletes {
		l.Deletes[i] = nb(l.Deletes[i])
	}
	return l
}

// FuzzDecode: any bytes either fail as ErrBadLock or decode to a lock
// whose encoding decodes to it again.
func FuzzDecode(f *testing.F) {
	p := Ref{Table: "t", Row: []byte("r")}
	f.Add(Lock{State: Prewritten, Tx: 7, Ts: 9, Primary: &p, Before: []Column{{Qualifier: []byte("q"), Present: true, Value: []byte("v")}}}.Encode())
	f.Add(Lock{State: Stable, Committed: true}.Encode())
	f.Add([]byte{1, 2, 0, 0, 0, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := Decode(b)
		if err != nil {
			if !errors.Is(err, ErrBadLock) {
				t.Fatalf("error %v is not ErrBadLock", err)
			}
			return
		}
		again, err := Decode(l.Encode())
		if err != nil || !reflect.DeepEqual(normal(again), normal(l)) {
			t.Fatalf("%x decoded to %+v, whose encoding decodes to %+v, %v", b, l, again, err)
		}
	})
}

// writeThree is a transaction over three rows of two tables, the first
// ("a", row "p") its primary; one row had a value before.
func writeThree(tx *Tx) {
	tx.Put("a", []byte("p"), cell("x", "1"))
	tx.Put("b", []byte("s1"), cell("y", "2"))
	tx.Put("b", []byte("s2"), cell("y", "3"), cell("z", "new"))
}

func prepareThree(t *testing.T, st store.Store) {
	t.Helper()
	must(t, st.Mutate(ctx, "b", store.Put([]byte("s2"), cell("z", "old"))))
}

var threeBefore = map[string]string{"a/p": "", "b/s1": "", "b/s2": "z=old"}
var threeAfter = map[string]string{"a/p": "x=1", "b/s1": "y=2", "b/s2": "y=3 z=new"}

func views(t *testing.T, m *Manager) map[string]string {
	t.Helper()
	out := map[string]string{}
	for k := range threeAfter {
		table, row, _ := strings.Cut(k, "/")
		out[k] = seen(t, m, table, row)
	}
	return out
}

// A committed transaction: every row shows its cells, every lock is
// stable, and it cost a prewrite and a stabilize per row and one commit.
func TestCommit(t *testing.T) {
	st := newStore(t, "a", "b")
	prepareThree(t, st)
	m := New(st, Options{})
	res, err := m.Update(ctx, func(tx *Tx) error { writeThree(tx); return nil })
	must(t, err)
	if !res.Committed || len(res.Left) != 0 || res.Writes != 7 {
		t.Errorf("result %+v: want committed, nothing left, 7 writes", res)
	}
	if got := views(t, m); !reflect.DeepEqual(got, threeAfter) {
		t.Errorf("seen %v, want %v", got, threeAfter)
	}
	for _, k := range []string{"a/p", "b/s1", "b/s2"} {
		table, row, _ := strings.Cut(k, "/")
		if s := lockState(t, st, table, row); s != "stable" {
			t.Errorf("%s's lock is %s", k, s)
		}
	}
	if m.Stats.Commits.Load() != 1 || m.Stats.RolledForward.Load()+m.Stats.RolledBack.Load() != 0 {
		t.Errorf("stats: %d commits, %d forward, %d back", m.Stats.Commits.Load(), m.Stats.RolledForward.Load(), m.Stats.RolledBack.Load())
	}
}

// A writer that dies before each step of its commit: until the lock
// expires a reader sees all of it (past the commit point) or none; the
// writer's result names the rows it left; once expired, the first reader
// finishes the transaction, forward or back, and the rows it changed are
// exactly those left. A read-only reader sees the same and counts each
// row it meets.
func TestAbandonAtEveryStep(t *testing.T) {
	const rows, steps = 3, 7
	for k := range steps {
		t.Run(fmt.Sprintf("step %d", k), func(t *testing.T) {
			st := newStore(t, "a", "b")
			prepareThree(t, st)
			clk := newClock()
			m := New(st, clk.opts(Options{Step: func(step, n int) error {
				if n != steps {
					t.Errorf("%d steps, want %d", n, steps)
				}
				if step == k {
					return errInjected
				}
				return nil
			}}))
			res, err := m.Update(ctx, func(tx *Tx) error { writeThree(tx); return nil })
			if !errors.Is(err, errInjected) {
				t.Fatalf("commit: %v, want the abandon", err)
			}
			committed := k > rows
			wantLeft := k // the rows prewritten
			if committed {
				wantLeft = rows - (k - rows - 1) // not made stable yet
			}
			if res.Committed != committed || len(res.Left) != wantLeft {
				t.Fatalf("result %+v: want committed %v, %d left", res, committed, wantLeft)
			}
			want := threeBefore
			if committed {
				want = threeAfter
			}
			ro := New(st, clk.opts(Options{ReadOnly: true}))
			if got := views(t, ro); !reflect.DeepEqual(got, want) {
				t.Errorf("before expiry a reader sees %v, want %v", got, want)
			}
			if !committed && ro.Stats.RolledBack.Load()+ro.Stats.RolledForward.Load() != 0 {
				t.Errorf("an undecided transaction counted as resolved")
			}
			// At rest, no writer is at work: an undecided transaction is one
			// whose writer is gone, rolled back before its locks expire.
			rest := New(st, clk.opts(Options{ReadOnly: true, AtRest: true}))
			if got := views(t, rest); !reflect.DeepEqual(got, want) {
				t.Errorf("at rest a reader sees %v, want %v", got, want)
			}
			if n := rest.Stats.RolledBack.Load() + rest.Stats.RolledForward.Load(); n != int64(wantLeft) {
				t.Errorf("at rest a reader would resolve %d rows, want %d", n, wantLeft)
			}
			clk.add(2 * time.Second)
			ro = New(st, clk.opts(Options{ReadOnly: true}))
			if got := views(t, ro); !reflect.DeepEqual(got, want) {
				t.Errorf("past expiry a read-only reader sees %v, want %v", got, want)
			}
			if n := ro.Stats.RolledBack.Load() + ro.Stats.RolledForward.Load(); n != int64(wantLeft) {
				t.Errorf("a read-only reader would resolve %d rows, want %d", n, wantLeft)
			}
			reader := New(st, clk.opts(Options{}))
			if got := views(t, reader); !reflect.DeepEqual(got, want) {
				t.Errorf("past expiry a reader sees %v, want %v", got, want)
			}
			fwd, back := reader.Stats.RolledForward.Load(), reader.Stats.RolledBack.Load()
			if (committed && (fwd != int64(wantLeft) || back != 0)) || (!committed && (back != int64(wantLeft) || fwd != 0)) {
				t.Errorf("the reader rolled %d forward and %d back, want the %d left, %s", fwd, back, wantLeft,
					map[bool]string{true: "forward", false: "back"}[committed])
			}
			for _, k := range []string{"a/p", "b/s1", "b/s2"} {
				table, row, _ := strings.Cut(k, "/")
				if s := lockState(t, st, table, row); s != "stable" && s != "" {
					t.Errorf("after the reader, %s's lock is %s", k, s)
				}
			}
			// The rows' next transaction writes after the one rolled back.
			m2 := New(st, clk.opts(Options{}))
			_, err = m2.Update(ctx, func(tx *Tx) error { writeThree(tx); return nil })
			must(t, err)
			if got := views(t, m2); !reflect.DeepEqual(got, threeAfter) {
				t.Errorf("after a second transaction: %v, want %v", got, threeAfter)
			}
		})
	}
}

// A reply lost at any write of a commit (applied, the writer told it
// failed) is read back from the lock: the transaction commits and leaves
// nothing.
func TestLostReplies(t *testing.T) {
	for k := range int64(7) {
		st := newStore(t, "a", "b")
		prepareThree(t, st)
		f := &faulty{Store: st, lose: map[int64]bool{k: true}}
		m := New(f, Options{})
		res, err := m.Update(ctx, func(tx *Tx) error { writeThree(tx); return nil })
		if err != nil || !res.Committed || len(res.Left) != 0 {
			t.Errorf("reply %d lost: %+v, %v; want committed, nothing left", k, res, err)
			continue
		}
		if got := views(t, New(st, Options{})); !reflect.DeepEqual(got, threeAfter) {
			t.Errorf("reply %d lost: %v", k, got)
		}
	}
}

// A write that fails (not applied) before the commit point fails the
// transaction and its writer rolls back what it prewrote; past the commit
// point the transaction stands, and the row it could not make stable is
// left for a reader, who rolls it forward, with the primary, which stays
// committed until then: a later transaction of the primary's row alone
// rolls the row forward first, so it is never taken for rolled back.
func TestFailedWrites(t *testing.T) {
	for k := range int64(7) {
		st := newStore(t, "a", "b")
		prepareThree(t, st)
		f := &faulty{Store: st, fail: map[int64]bool{k: true}}
		m := New(f, Options{Retries: -1})
		res, err := m.Update(ctx, func(tx *Tx) error { writeThree(tx); return nil })
		if k <= 3 != errors.Is(err, errInjected) {
			t.Fatalf("write %d failed: %v; want the failure before the commit point, success after", k, err)
		}
		reader := New(st, Options{})
		if k <= 3 {
			if res.Committed || len(res.Left) != 0 {
				t.Errorf("write %d failed before the commit point: %+v, want rolled back", k, res)
			}
			if got := views(t, reader); !reflect.DeepEqual(got, threeBefore) {
				t.Errorf("write %d failed: %v, want %v", k, got, threeBefore)
			}
			continue
		}
		wantLeft := 2 // the row and the primary
		if k == 6 {
			wantLeft = 1 // the primary alone
		}
		if !res.Committed || len(res.Left) != wantLeft {
			t.Errorf("write %d failed past the commit point: %+v, want committed with %d rows left", k, res, wantLeft)
		}
		if k < 6 {
			// The primary's row written again alone: the row left is
			// rolled forward, not taken for part of an aborted one.
			_, err := New(st, Options{}).Update(ctx, func(tx *Tx) error { tx.Put("a", []byte("p"), cell("x", "1")); return nil })
			must(t, err)
		}
		if got := views(t, reader); !reflect.DeepEqual(got, threeAfter) {
			t.Errorf("write %d failed: a reader sees %v", k, got)
		}
	}
}

// A transaction that read a row another transaction then changed
// conflicts, and its next attempt reads the change.
func TestConflict(t *testing.T) {
	st := newStore(t, "a")
	m := New(st, Options{})
	must(t, st.Mutate(ctx, "a", store.Put([]byte("r"), cell("n", "0"))))
	tx := m.Begin()
	got, err := tx.Get(ctx, "a", []byte("r"), []byte("n"))
	must(t, err)
	if v, _ := got.Value([]byte("n")); string(v) != "0" {
		t.Fatalf("read %q", v)
	}
	_, err = m.Update(ctx, func(o *Tx) error { o.Put("a", []byte("r"), cell("n", "1")); return nil })
	must(t, err)
	tx.Put("a", []byte("r"), cell("n", "2"))
	if _, err := tx.Commit(ctx); !errors.Is(err, ErrConflict) {
		t.Fatalf("commit over a change since the read: %v, want a conflict", err)
	}
	if s := seen(t, m, "a", "r"); s != "n=1" {
		t.Errorf("after the conflict: %s", s)
	}
}

// Deletes wait for the commit: while the transaction is undecided a
// reader still sees the column, once it has committed it is gone.
func TestDeleteAfterCommit(t *testing.T) {
	st := newStore(t, "a")
	must(t, st.Mutate(ctx, "a", store.Put([]byte("r"), cell("gone", "v"), cell("kept", "k"))))
	clk := newClock()
	var m *Manager
	m = New(st, clk.opts(Options{Step: func(step, _ int) error {
		if step == 1 { // prewritten, not committed
			if s := seen(t, New(st, clk.opts(Options{ReadOnly: true})), "a", "r"); s != "gone=v kept=k" {
				t.Errorf("undecided: %s", s)
			}
		}
		return nil
	}}))
	_, err := m.Update(ctx, func(tx *Tx) error {
		tx.Put("a", []byte("r"), cell("kept", "k2"))
		tx.Delete("a", []byte("r"), []byte("gone"))
		return nil
	})
	must(t, err)
	if s := seen(t, m, "a", "r"); s != "kept=k2" {
		t.Errorf("committed: %s", s)
	}
}

// Many writers appending to one column of one row, each in a
// transaction: every append that committed is there once, in the order of
// the commits, none that failed is, and the writers met conflicts.
func TestConcurrentAppends(t *testing.T) {
	st := newStore(t, "a")
	m := New(st, Options{Retries: 50})
	const writers, each = 8, 15
	var mu sync.Mutex
	type done struct {
		tx  int64
		tag string
	}
	var committed []done
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				tag := fmt.Sprintf("%d.%d", w, i)
				res, err := m.Update(ctx, func(tx *Tx) error {
					r, err := tx.Get(ctx, "a", []byte("r"), []byte("log"))
					if err != nil {
						return err
					}
					v, _ := r.Value([]byte("log"))
					time.Sleep(50 * time.Microsecond) // so others commit meanwhile
					tx.Put("a", []byte("r"), store.Cell{Qualifier: []byte("log"), Value: append(append([]byte(nil), v...), tag+","...)})
					return nil
				})
				if err == nil {
					mu.Lock()
					committed = append(committed, done{res.Tx, tag})
					mu.Unlock()
				} else if !errors.Is(err, ErrConflict) {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	slices.SortFunc(committed, func(a, b done) int { return int(a.tx - b.tx) })
	var want strings.Builder
	for _, d := range committed {
		want.WriteString(d.tag + ",")
	}
	if got := seen(t, m, "a", "r"); got != "log="+want.String() {
		t.Errorf("log\n%s\nwant, in commit order,\n%s", got, want.String())
	}
	if len(committed) < writers*each/2 || m.Stats.Conflicts.Load() == 0 {
		t.Errorf("%d of %d appends committed, %d conflicts: want most, and some conflicts", len(committed), writers*each, m.Stats.Conflicts.Load())
	}
}

// randomFaults fails, or loses the replies of, check-and-mutates at odds
// p each.
type randomFaults struct {
	store.Store
	mu sync.Mutex
	r  *rand.Rand
	p  float64
}

func (f *randomFaults) roll() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.r.Float64() < f.p
}

func (f *randomFaults) CheckAndMutate(ctx context.Context, table string, q, expected []byte, m store.Mutation) (bool, error) {
	if f.roll() {
		return false, errInjected
	}
	ok, err := f.Store.CheckAndMutate(ctx, table, q, expected, m)
	if err == nil && ok && f.roll() {
		return false, fmt.Errorf("lost: %w", store.ErrReplyLost)
	}
	return ok, err
}

// Writers on a few shared rows, their requests failing and their replies
// lost, their locks expiring at once, readers resolving what they meet:
// every row a writer says it left was resolved by someone, or is still
// locked, each exactly once, forward when its transaction committed and
// back when it did not.
func TestLeftIsResolvedOnce(t *testing.T) {
	for seed := range uint64(4) {
		st := newStore(t, "a", "b")
		f := &randomFaults{Store: st, r: rand.New(rand.NewPCG(seed, 1)), p: 0.08}
		writers := New(f, Options{TTL: time.Millisecond, Resolver: st, Retries: 3})
		readers := New(st, Options{TTL: time.Millisecond})
		var leftF, leftB atomic.Int64
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Go(func() {
				for i := range 60 {
					res, _ := writers.Update(ctx, func(tx *Tx) error {
						tx.Put("a", fmt.Appendf(nil, "p%d", (w+i)%3), cell("x", fmt.Sprint(i)))
						tx.Put("b", fmt.Appendf(nil, "s%d", i%4), cell("y", fmt.Sprint(w)))
						return nil
					})
					leftB.Add(res.LeftBefore)
					if res.Committed {
						leftF.Add(int64(len(res.Left)))
					} else {
						leftB.Add(int64(len(res.Left)))
					}
					if i%5 == 0 {
						rd := Reading(st, readers)
						rd.Scan(ctx, "b", store.Scan{}, func(store.Row) bool { return true })
					}
				}
			})
		}
		wg.Wait()
		time.Sleep(2 * time.Millisecond)
		ro := New(st, Options{ReadOnly: true, TTL: time.Millisecond})
		for _, table := range []string{"a", "b"} {
			Reading(st, ro).Scan(ctx, table, store.Scan{}, func(store.Row) bool { return true })
		}
		resF := writers.Stats.RolledForward.Load() + readers.Stats.RolledForward.Load() + ro.Stats.RolledForward.Load()
		resB := writers.Stats.RolledBack.Load() + readers.Stats.RolledBack.Load() + ro.Stats.RolledBack.Load()
		if leftF.Load() != resF || leftB.Load() != resB {
			t.Errorf("seed %d: left %d forward, %d back; resolved (or still locked) %d forward, %d back",
				seed, leftF.Load(), leftB.Load(), resF, resB)
		}
	}
}
