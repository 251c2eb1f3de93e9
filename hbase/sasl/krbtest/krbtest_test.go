package krbtest

import (
	"fmt"
	"net"
	"slices"
	"strconv"
	"testing"
)

// A start that fails twice is tried a third time; one that always fails
// is tried three times and its last error returned.
func TestRetry(t *testing.T) {
	calls := 0
	if err := retry(t, func() error {
		calls++
		if calls < 3 {
			return fmt.Errorf("port taken (%d)", calls)
		}
		return nil
	}); err != nil || calls != 3 {
		t.Errorf("two failures then a start: %v after %d calls, want nil after 3", err, calls)
	}
	calls = 0
	logs := &logged{TB: t}
	err := retry(logs, func() error { calls++; return fmt.Errorf("try %d", calls) })
	if err == nil || err.Error() != "try 3" || calls != 3 {
		t.Errorf("always failing: %v after %d calls, want try 3 after 3", err, calls)
	}
	// The last failure is returned, not logged too.
	if want := []string{"try 1: try 1", "try 2: try 2"}; !slices.Equal(logs.lines, want) {
		t.Errorf("logged %q, want %q", logs.lines, want)
	}
}

// logged keeps what a test logs.
type logged struct {
	testing.TB
	lines []string
}

func (l *logged) Logf(format string, args ...any) {
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

// The port FreePort gives can be bound on TCP and on UDP.
func TestFreePortBothProtocols(t *testing.T) {
	for range 20 {
		p := strconv.Itoa(FreePort(t))
		ln, err := net.Listen("tcp", "127.0.0.1:"+p)
		if err != nil {
			t.Fatalf("tcp %s: %v", p, err)
		}
		udp, err := net.ListenPacket("udp", "127.0.0.1:"+p)
		ln.Close()
		if err != nil {
			t.Fatalf("udp %s: %v", p, err)
		}
		udp.Close()
	}
}
