package faults

import (
	"context"
	"errors"
	"strings"
	"testing"

	"commentbench/store"
	"commentbench/store/embedded"
)

var ctx = context.Background()

func newStore(t *testing.T) store.Store {
	t.Helper()
	e, err := embedded.Open(embedded.Options{DisableSplits: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	if err := e.CreateTable(ctx, store.TableSpec{Name: "t", Family: "cf"}); err != nil {
		t.Fatal(err)
	}
	return e
}

func put(row string) store.Mutation {
	return store.Put([]byte(row), store.Cell{Qualifier: []byte("q"), Value: []byte("v")})
}

func exists(t *testing.T, st store.Store, row string) bool {
	t.Helper()
	r, err := st.Get(ctx, "t", []byte(row))
	if err != nil {
		t.Fatal(err)
	}
	return r.Found()
}

// A failed write is not applied and says so; a lost reply's write is
// applied and says it failed; each is counted once; reads pass through.
func TestFailAndLose(t *testing.T) {
	st := newStore(t)
	fail := New(Spec{FailWrites: 1}, 1).Store(st)
	if err := fail.Mutate(ctx, "t", put("a")); !errors.Is(err, ErrFailed) || exists(t, st, "a") {
		t.Errorf("failed write: %v, applied %v", err, exists(t, st, "a"))
	}
	if ok, err := fail.CheckAndMutate(ctx, "t", []byte("q"), nil, put("b")); ok || !errors.Is(err, ErrFailed) || exists(t, st, "b") {
		t.Errorf("failed check and mutate: %v %v, applied %v", ok, err, exists(t, st, "b"))
	}
	in := New(Spec{LoseReplies: 1}, 1)
	lose := in.Store(st)
	if err := lose.Mutate(ctx, "t", put("c")); !errors.Is(err, ErrLost) || !exists(t, st, "c") {
		t.Errorf("lost reply: %v, applied %v", err, exists(t, st, "c"))
	}
	if ok, err := lose.CheckAndMutate(ctx, "t", []byte("q"), nil, put("d")); ok || !errors.Is(err, ErrLost) || !exists(t, st, "d") {
		t.Errorf("lost check and mutate reply: %v %v, applied %v", ok, err, exists(t, st, "d"))
	}
	if _, err := lose.Get(ctx, "t", []byte("d")); err != nil {
		t.Errorf("a read failed: %v", err)
	}
	if c := in.Counts(); c != (Counts{Lost: 2}) {
		t.Errorf("counts %+v, want 2 lost", c)
	}
}

// At odds p, about p of the requests fail, and the counts are exactly the
// failures the callers saw.
func TestOdds(t *testing.T) {
	st := newStore(t)
	in := New(Spec{FailWrites: 0.1, LoseReplies: 0.1}, 7)
	f := in.Store(st)
	var failed, lost int64
	const n = 5000
	for range n {
		err := f.Mutate(ctx, "t", put("r"))
		switch {
		case errors.Is(err, ErrFailed):
			failed++
		case errors.Is(err, ErrLost):
			lost++
		case err != nil:
			t.Fatal(err)
		}
	}
	if c := in.Counts(); c.Failed != failed || c.Lost != lost {
		t.Errorf("counts %+v, callers saw %d failed and %d lost", c, failed, lost)
	}
	if failed < n/20 || failed > n/5 || lost < n/25 || lost > n/5 {
		t.Errorf("%d failed and %d lost of %d at 10%% each", failed, lost, n)
	}
}

// A writer stops before a request it has not made and after one it has:
// never at the first or past the last; one that makes one request never
// stops; and the stops are counted.
func TestAbandonAt(t *testing.T) {
	in := New(Spec{Abandon: 1}, 3)
	seen := map[int]bool{}
	for range 500 {
		at := in.AbandonAt(4)
		if at < 1 || at > 3 {
			t.Fatalf("abandoned before request %d of 4", at)
		}
		seen[at] = true
	}
	if len(seen) != 3 || in.AbandonAt(1) != -1 || in.Counts().Abandoned != 500 {
		t.Errorf("stops at %v, one request: %d, %d counted", seen, in.AbandonAt(1), in.Counts().Abandoned)
	}
	if New(Spec{}, 1).AbandonAt(5) != -1 || (*Injector)(nil).AbandonAt(5) != -1 {
		t.Error("no odds, yet a writer stopped")
	}
	if s := (*Injector)(nil).Store(nil); s != nil {
		t.Error("a nil injector wraps the store")
	}
}

func TestSpecValidate(t *testing.T) {
	if err := (Spec{FailWrites: 0.01, LoseReplies: 1, Abandon: 0}).Validate(); err != nil {
		t.Error(err)
	}
	err := Spec{LoseReplies: 1.5}.Validate()
	if err == nil || !strings.Contains(err.Error(), "--lose-replies 1.5") || !strings.Contains(err.Error(), "0 to 1") {
		t.Errorf("odds of 1.5: %v", err)
	}
}
