//go:build !race

package results

import (
	"testing"
	"time"
)

// Every operation of a run is recorded: recording must not allocate, for a
// success or a failure of a kind already seen (the race detector's
// instrumentation allocates, hence the build tag).
func TestRecordDoesNotAllocate(t *testing.T) {
	s := NewSet([]string{"a", "b"})
	r := s.NewRecorder()
	end := t0.Add(3 * time.Millisecond)
	r.Record(1, t0, t0, end, "timeout") // the kind's first failure makes its entry
	i := 0
	if n := testing.AllocsPerRun(1000, func() {
		i++
		r.Record(i&1, t0, t0.Add(time.Duration(i)*time.Microsecond), end, "")
		r.Record(1, t0, t0, end, "timeout")
	}); n != 0 {
		t.Errorf("%v allocations per Record, want 0", n)
	}
}
