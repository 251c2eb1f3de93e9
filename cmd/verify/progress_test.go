package main

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"commentbench/progress"
)

// showProgress runs the poller in mode m over counters that say 15,000
// rows read of an estimated 30,000 (3,000 comments of 10 rows), long
// enough for one poll, and returns what it wrote.
func showProgress(t *testing.T, m progress.Mode) string {
	t.Helper()
	var rows, comments atomic.Int64
	rows.Store(15000)
	comments.Store(3000)
	var b strings.Builder
	p := startProgress(&b, m, &rows, &comments, 10)
	time.Sleep(pollEvery + pollEvery/2)
	p.stop()
	return b.String()
}

// In a log, the first poll writes a line led by the command's name.
func TestProgressLines(t *testing.T) {
	out := showProgress(t, progress.Lines)
	if !strings.HasPrefix(out, "verify: 15k rows read, ") || !strings.Contains(out, "ETA ~") || strings.Count(out, "\n") != 1 {
		t.Errorf("lines: %q, want one line of rows read with an ETA", out)
	}
}

// On a terminal the bar shows the same, and is gone once the check ends.
func TestProgressBar(t *testing.T) {
	out := showProgress(t, progress.Bar)
	if !strings.Contains(out, "15k rows read") || !strings.Contains(out, "50%") {
		t.Errorf("bar: %q, want rows read and half the bar", out)
	}
	if !strings.HasSuffix(out, strings.Repeat(" ", 20)+"\r") {
		t.Errorf("bar: %q, want it cleared at the end", out)
	}
}

func TestProgressQuiet(t *testing.T) {
	if out := showProgress(t, progress.Quiet); out != "" {
		t.Errorf("quiet: %q", out)
	}
}
