package progress

import (
	"strings"
	"testing"
	"time"
)

func TestLinesEveryInterval(t *testing.T) {
	var b strings.Builder
	l := &Lines{W: &b, Every: 10 * time.Second}
	for s := 0; s <= 25; s++ {
		l.Update(Status{Phase: "steady", Elapsed: time.Duration(s) * time.Second, Total: 30 * time.Second,
			Ops: int64(s * 100), Rate: 100, WorstP99: 1234 * time.Microsecond, Errors: 2})
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 { // at 0 s, 10 s, 20 s
		t.Fatalf("%d lines, want 3:\n%s", len(lines), b.String())
	}
	want := "loadgen: steady  10s/30s  ops 1000  100/s  worst p99 1.23ms  errors 2"
	if lines[1] != want {
		t.Errorf("line %q\nwant %q", lines[1], want)
	}
}
