// Package faults injects the failures an index consistency strategy must
// survive, the same for every strategy: a write request that fails before
// it is applied, one that is applied but whose reply is lost (the client
// cannot tell it from a failure: the ambiguous case), and a writer that
// stops partway through its protocol, as a crashed client does.
//
// It owns the odds, the draws and the counts of what it injected. It must
// not know what the writes are (comments, indexes, locks): the comment
// system asks it, at each step of a write, whether the writer goes on.
package faults

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"

	"commentbench/store"
)

// Spec is the odds of each kind of failure, per write request (fail,
// lose) or per write (abandon).
type Spec struct {
	FailWrites  float64 `json:"fail_writes,omitempty" yaml:"fail_writes"`
	LoseReplies float64 `json:"lose_replies,omitempty" yaml:"lose_replies"`
	Abandon     float64 `json:"abandon,omitempty" yaml:"abandon"`
}

// Validate refuses odds outside 0..1, naming the flag.
func (s Spec) Validate() error {
	for _, f := range []struct {
		flag string
		p    float64
	}{{"--fail-writes", s.FailWrites}, {"--lose-replies", s.LoseReplies}, {"--abandon", s.Abandon}} {
		if f.p < 0 || f.p > 1 || f.p != f.p {
			return fmt.Errorf("%s %v: want a probability from 0 to 1 (0.01 is 1%%)", f.flag, f.p)
		}
	}
	return nil
}

// Any reports whether the spec injects anything.
func (s Spec) Any() bool { return s.FailWrites > 0 || s.LoseReplies > 0 || s.Abandon > 0 }

// The injected failures, told apart with errors.Is.
var (
	// ErrFailed is a write request that failed before it was applied.
	ErrFailed = errors.New("injected: the write failed before it was applied")
	// ErrLost is a write request that was applied, whose reply was lost.
	ErrLost = fmt.Errorf("injected: %w", store.ErrReplyLost)
	// ErrAbandoned is a writer that stopped partway through its protocol.
	ErrAbandoned = errors.New("injected: the writer stopped partway")
)

// Counts are the failures injected so far.
type Counts struct {
	Failed    int64 `json:"failed_writes"`
	Lost      int64 `json:"lost_replies"`
	Abandoned int64 `json:"abandoned_writers"`
}

// Injector draws failures at a spec's odds and counts them.
type Injector struct {
	// Stops, if set, decides where each writer stops in place of the
	// draws: given a protocol's count of requests, the request it stops
	// before (-1: none). Tests use it to stop a writer at every step.
	Stops func(n int) int

	spec                    Spec
	mu                      sync.Mutex
	r                       *rand.Rand
	failed, lost, abandoned atomic.Int64
}

// New is an injector of spec, its draws from seed.
func New(spec Spec, seed uint64) *Injector {
	return &Injector{spec: spec, r: rand.New(rand.NewPCG(seed, 0x6661756c7473))}
}

// Spec is the injector's odds; a nil injector's are none.
func (in *Injector) Spec() Spec {
	if in == nil {
		return Spec{}
	}
	return in.spec
}

// Counts is what the injector has injected.
func (in *Injector) Counts() Counts {
	if in == nil {
		return Counts{}
	}
	return Counts{Failed: in.failed.Load(), Lost: in.lost.Load(), Abandoned: in.abandoned.Load()}
}

func (in *Injector) draw(p float64) bool {
	if p <= 0 {
		return false
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.r.Float64() < p
}

// AbandonAt draws whether a writer whose protocol makes n requests stops
// partway, and if so before which of them (1..n-1, so that it has made
// one and left one): -1 when it goes on to the end.
func (in *Injector) AbandonAt(n int) int {
	if in != nil && in.Stops != nil {
		at := in.Stops(n)
		if at >= 0 {
			in.abandoned.Add(1)
		}
		return at
	}
	if in == nil || n < 2 || !in.draw(in.spec.Abandon) {
		return -1
	}
	in.mu.Lock()
	at := 1 + in.r.IntN(n-1)
	in.mu.Unlock()
	in.abandoned.Add(1)
	return at
}

// Store wraps st so that its write requests fail, or lose their replies,
// at the injector's odds. A nil injector is st itself.
func (in *Injector) Store(st store.Store) store.Store {
	if in == nil {
		return st
	}
	return &faultyStore{Store: st, in: in}
}

// faultyStore is a store whose write requests fail at the injector's odds.
type faultyStore struct {
	store.Store
	in *Injector
}

// before draws a failure of a request before it is applied.
func (f *faultyStore) before(op, table string) error {
	if f.in.draw(f.in.spec.FailWrites) {
		f.in.failed.Add(1)
		return fmt.Errorf("%s %s: %w", op, table, ErrFailed)
	}
	return nil
}

// after draws the loss of an applied request's reply.
func (f *faultyStore) after(op, table string) error {
	if f.in.draw(f.in.spec.LoseReplies) {
		f.in.lost.Add(1)
		return fmt.Errorf("%s %s: %w", op, table, ErrLost)
	}
	return nil
}

// Mutate implements store.Store.
func (f *faultyStore) Mutate(ctx context.Context, table string, muts ...store.Mutation) error {
	if err := f.before("mutate", table); err != nil {
		return err
	}
	if err := f.Store.Mutate(ctx, table, muts...); err != nil {
		return err
	}
	return f.after("mutate", table)
}

// CheckAndMutate implements store.Store. Only a change that was made can
// lose its reply: one whose check failed was not applied.
func (f *faultyStore) CheckAndMutate(ctx context.Context, table string, q, expected []byte, m store.Mutation) (bool, error) {
	if err := f.before("check-and-mutate", table); err != nil {
		return false, err
	}
	ok, err := f.Store.CheckAndMutate(ctx, table, q, expected, m)
	if err != nil || !ok {
		return ok, err
	}
	if err := f.after("check-and-mutate", table); err != nil {
		return false, err
	}
	return true, nil
}
