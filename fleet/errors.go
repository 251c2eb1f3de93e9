package fleet

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ErrStopped is wrapped by the error Join or Ready return when a member
// asked the fleet to stop (Stop) before it started; the error's text
// carries the reason.
var ErrStopped = errors.New("fleet stopped")

// SkewError is Join's refusal of a member whose clock is further from the
// ensemble's than Config.MaxSkew.
type SkewError struct {
	Offset time.Duration // this member's clock minus the ensemble's: positive when ahead
	Bound  time.Duration // Config.MaxSkew
}

func (e *SkewError) Error() string {
	dir, off := "ahead of", e.Offset
	if off < 0 {
		dir, off = "behind", -off
	}
	return fmt.Sprintf("this machine's clock is %v %s ZooKeeper's; --max-clock-skew allows %v", roundMs(off), dir, roundMs(e.Bound))
}

// Stages of MissingError.
const (
	StageJoin  = "join"
	StageReady = "ready"
)

// MissingError names the members that did not reach a barrier within
// Config.JoinTimeout: they did not join (Stage "join") or were not ready
// (Stage "ready").
type MissingError struct {
	Stage   string // StageJoin or StageReady
	Missing []int  // their indexes, ascending
	// Left, at join, are members that joined but had left again by the
	// timeout (such as one that gave up first): not among Missing.
	Left   []int
	Total  int
	Within time.Duration
}

func (e *MissingError) Error() string {
	what := "did not join"
	if e.Stage == StageReady {
		what = "were not ready"
		if len(e.Missing) == 1 {
			what = "was not ready"
		}
	}
	var s string
	if len(e.Missing) > 0 {
		s = fmt.Sprintf("%s %s of %d %s within %v", members(e.Missing), joinInts(e.Missing), e.Total, what, e.Within)
	}
	switch {
	case len(e.Left) > 0 && s == "":
		s = fmt.Sprintf("%s %s of %d joined, then left, before all had joined within %v", members(e.Left), joinInts(e.Left), e.Total, e.Within)
	case len(e.Left) > 0:
		s += fmt.Sprintf("; %s %s joined, then left", members(e.Left), joinInts(e.Left))
	}
	return s
}

func members(xs []int) string {
	if len(xs) == 1 {
		return "member"
	}
	return "members"
}

// LostError is Ready's answer when a member (possibly this one) left the
// fleet before the start was fixed: its ZooKeeper session ended without
// it marking itself done.
type LostError struct {
	Lost
	Total int
	Self  bool // the member lost is this one
}

func (e *LostError) Error() string {
	if e.Self {
		return fmt.Sprintf("this member (%d of %d) lost its ZooKeeper session before the fleet started; the others count it lost", e.Index, e.Total)
	}
	return fmt.Sprintf("member %d of %d left the fleet (its ZooKeeper session ended) before the fleet started", e.Index, e.Total)
}

// joinInts writes 2, 3, 5.
func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ", ")
}

// roundMs rounds d to the millisecond, the ensemble clock's resolution.
func roundMs(d time.Duration) time.Duration { return d.Round(time.Millisecond) }
