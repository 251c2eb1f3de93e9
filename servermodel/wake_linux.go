package servermodel

import (
	"container/heap"
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// clock wakes waiters at their deadlines through one timer file.
type clock struct {
	mu    sync.Mutex
	due   deadlines
	armed time.Time // the deadline the timer file is set for; zero: none
	fd    int
	f     *os.File
}

var (
	theClock     *clock
	theClockOnce sync.Once
)

// preciseAt returns a channel closed at end, or nil where there is no
// timer file to time it with.
func preciseAt(end time.Time) <-chan struct{} {
	theClockOnce.Do(func() { theClock = newClock() })
	if theClock == nil {
		return nil
	}
	return theClock.at(end)
}

func newClock() *clock {
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil
	}
	c := &clock{fd: fd, f: os.NewFile(uintptr(fd), "servermodel-clock")} // non-blocking: the poller watches it
	go c.run()
	return c
}

func (c *clock) at(end time.Time) <-chan struct{} {
	ch := make(chan struct{})
	c.mu.Lock()
	defer c.mu.Unlock()
	heap.Push(&c.due, deadline{end, ch})
	if c.armed.IsZero() || end.Before(c.armed) {
		c.arm(end)
	}
	return ch
}

// arm sets the timer file to fire at t; called with mu held.
func (c *clock) arm(t time.Time) {
	d := max(time.Until(t), time.Microsecond) // zero would disarm it
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(int64(d))}
	if unix.TimerfdSettime(c.fd, 0, &spec, nil) == nil {
		c.armed = t
	}
}

// run reads the timer file (the poller parks it until the timer fires)
// and wakes every waiter due, then sets the file for the next.
func (c *clock) run() {
	var buf [8]byte
	for {
		_, err := c.f.Read(buf[:])
		c.mu.Lock()
		c.armed = time.Time{}
		c.due.popDue(time.Now())
		if len(c.due) > 0 {
			c.arm(c.due[0].at)
		}
		c.mu.Unlock()
		if err != nil && err != unix.EAGAIN {
			// A timer file that fails to read cannot time anyone: wake
			// them all, late rather than never.
			c.mu.Lock()
			c.due.popDue(time.Now().Add(time.Hour))
			c.mu.Unlock()
			time.Sleep(time.Millisecond)
		}
	}
}
