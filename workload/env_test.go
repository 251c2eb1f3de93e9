package workload

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"commentbench/comments"
	"commentbench/faults"
	"commentbench/keys"
	"commentbench/store"
	"commentbench/txn"
)

func TestRecentProductsDrain(t *testing.T) {
	r := newRecentProducts(8)
	for _, p := range []int{5, 2, 5, 0, 7} {
		r.add(p)
	}
	if got := r.drain(); !slices.Equal(got, []int{0, 2, 5, 7}) {
		t.Fatalf("drained %v, want [0 2 5 7]: each product once, in order", got)
	}
	if got := r.drain(); len(got) != 0 {
		t.Fatalf("second drain %v, want none: a drain clears", got)
	}
	r.add(2)
	if got := r.drain(); !slices.Equal(got, []int{2}) {
		t.Fatalf("after a drain and one add: %v, want [2]", got)
	}
}

func TestWrittenRows(t *testing.T) {
	partial := &comments.WriteError{Written: []string{"comment", "user-comment"}, Err: errors.New("down")}
	for _, c := range []struct {
		err  error
		want int64
	}{
		{nil, 3},
		{partial, 2},
		{fmt.Errorf("write: %w", partial), 2},
		{errors.New("refused before any put"), 0},
	} {
		if got := writtenRows(c.err); got != c.want {
			t.Errorf("writtenRows(%v) = %d, want %d", c.err, got, c.want)
		}
	}
	// A success is every write: it must not pay for errors.As's target.
	if n := testing.AllocsPerRun(100, func() { writtenRows(nil) }); n != 0 {
		t.Errorf("writtenRows(nil) allocates %v times, want 0", n)
	}
}

// now must agree with time.Now on both clocks: latencies subtract its
// stamps from time.Now's (an open loop's due times), and intervals are
// cut by wall time.
func TestNowAgreesWithTimeNow(t *testing.T) {
	for range 1000 {
		before := time.Now()
		n := now()
		after := time.Now()
		if n.Before(before) || n.After(after) {
			t.Fatalf("now() %v is outside [%v, %v] by the monotonic clock", n, before, after)
		}
		wall := n.Round(0) // the wall reading alone
		if d := wall.Sub(before.Round(0)); d < -time.Millisecond || d > after.Round(0).Sub(before.Round(0))+time.Millisecond {
			t.Fatalf("now()'s wall time is %v from time.Now's", d)
		}
	}
}

// An error is counted by the kind a user acts on differently: a wide
// row read whole past the store's max row size is its own kind.
func TestErrorKind(t *testing.T) {
	for err, want := range map[error]string{
		nil: "",
		fmt.Errorf("read product row: %w", store.ErrRowTooBig):                                           "row-too-big",
		fmt.Errorf("get: %w", store.ErrClosed):                                                           "closed",
		fmt.Errorf("write: %w", comments.ErrOrderNotFound):                                               "order-not-found",
		errors.New("disk on fire"):                                                                       "store",
		&comments.WriteError{Written: []string{"comment"}, Err: fmt.Errorf("put: %w", faults.ErrFailed)}: "injected-failure",
		&comments.WriteError{Written: []string{"comment"}, Err: faults.ErrAbandoned}:                     "abandoned",
		fmt.Errorf("put: %w", faults.ErrLost):                                                            "reply-lost",
		fmt.Errorf("commit: %w", txn.ErrConflict):                                                        "conflict",
		&comments.WriteError{Written: []string{"comment"}, Err: errors.New("timeout")}:                   "partial-write",
	} {
		if got := ErrorKind(err); got != want {
			t.Errorf("ErrorKind(%v) = %q, want %q", err, got, want)
		}
	}
}

// The latest reader is left out of a design that keeps no latest-comment
// listing, and so are its op and action.
func TestUnrunnable(t *testing.T) {
	mix := map[string]float64{"write": 1, "latest": 2}
	feed, err := keys.Builtin("feed")
	if err != nil {
		t.Fatal(err)
	}
	if got := Unrunnable(mix, feed); got != nil {
		t.Errorf("feed leaves out %v", got)
	}
	if got := Unrunnable(mix, keys.Unique); !slices.Equal(got, []string{"latest"}) {
		t.Errorf("unique leaves out %v, want latest", got)
	}
	if got := Unrun(mix, keys.Unique); !slices.Equal(got, []string{"site-latest", "action:read-latest"}) {
		t.Errorf("unique leaves out the results %v", got)
	}
	if r := runnable(mix, keys.Unique); len(r) != 1 || r["write"] != 1 || len(mix) != 2 {
		t.Errorf("runnable %v (mix now %v)", r, mix)
	}
}
