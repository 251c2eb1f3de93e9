package servermodel

import (
	"container/heap"
	"context"
	"time"
)

// A modeled request's wait is real time in the latency a run measures, so
// it must end when the model says. A Go timer under a millisecond wakes an
// idle thread about a millisecond late (the poller's timeout is whole
// milliseconds), which would add a millisecond to every modeled request of
// a fraction of one. Where the kernel has one, short waits are timed by a
// timer file that the poller watches like a socket: it wakes its waiters
// within a tenth of a millisecond or so, and nothing blocks a thread.

// preciseBelow is the wait under which the precise clock times it; a
// longer one is a Go timer, late by a tenth of a millisecond or so, and
// can be cancelled.
const preciseBelow = 5 * time.Millisecond

// waitUntil waits until end, or until ctx is done for a long wait (the
// server still does the work it was given).
func waitUntil(ctx context.Context, end time.Time) error {
	wait := time.Until(end)
	switch {
	case wait <= 0:
		return nil
	case wait < preciseBelow:
		if ch := preciseAt(end); ch != nil {
			<-ch
			return nil
		}
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

type deadline struct {
	at time.Time
	ch chan struct{}
}

// deadlines is a min-heap of deadlines.
type deadlines []deadline

func (d deadlines) Len() int           { return len(d) }
func (d deadlines) Less(i, j int) bool { return d[i].at.Before(d[j].at) }
func (d deadlines) Swap(i, j int)      { d[i], d[j] = d[j], d[i] }
func (d *deadlines) Push(x any)        { *d = append(*d, x.(deadline)) }
func (d *deadlines) Pop() any {
	old := *d
	x := old[len(old)-1]
	*d = old[:len(old)-1]
	return x
}

// popDue closes the channels of every deadline not after now.
func (d *deadlines) popDue(now time.Time) {
	for d.Len() > 0 && !(*d)[0].at.After(now) {
		close(heap.Pop(d).(deadline).ch)
	}
}
