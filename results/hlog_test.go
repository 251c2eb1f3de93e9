package results

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

func histOf(vals ...int64) *hdr.Histogram {
	h := newHist()
	for _, v := range vals {
		_ = h.RecordValue(v)
	}
	return h
}

func interval(start time.Time, ops ...OpInterval) Interval {
	return Interval{Start: start, End: start.Add(time.Second), Ops: ops}
}

// Each op's intervals come back from its .hlog with their counts, tags and
// times; an op that recorded nothing in an interval writes no line.
func TestHlogRoundTrip(t *testing.T) {
	dir := t.TempDir()
	start := time.UnixMilli(1_795_435_200_250)
	w := NewHlogWriter(dir, start)
	for i, n := range []int{3, 0, 5} {
		var vals []int64
		for v := range n {
			vals = append(vals, int64(100+v))
		}
		o := OpInterval{Op: "comment-write", Count: int64(n)}
		if n > 0 {
			o.Hist = histOf(vals...)
		}
		if err := w.Write(interval(start.Add(time.Duration(i)*time.Second), o, OpInterval{Op: "idle"})); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	hs, err := ReadHlog(filepath.Join(dir, "comment-write.hlog"))
	if err != nil {
		t.Fatal(err)
	}
	if len(hs) != 2 || hs[0].TotalCount() != 3 || hs[1].TotalCount() != 5 {
		t.Fatalf("intervals read back: %d (%v), want counts 3 and 5", len(hs), counts(hs))
	}
	if hs[0].Tag() != "comment-write" || hs[1].StartTimeMs() != start.Add(2*time.Second).UnixMilli() {
		t.Errorf("tag %q, second interval starts %d, want comment-write and %d", hs[0].Tag(), hs[1].StartTimeMs(), start.Add(2*time.Second).UnixMilli())
	}
	if _, err := os.Stat(filepath.Join(dir, "idle.hlog")); !os.IsNotExist(err) {
		t.Errorf("an op that recorded nothing got a log (%v)", err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "comment-write.hlog"))
	if !strings.Contains(string(b), "#[Histogram log format version 1.3]") || !strings.Contains(string(b), "#[BaseTime: 1795435200 ") {
		t.Errorf("headers missing:\n%s", b)
	}
}

func counts(hs []*hdr.Histogram) []int64 {
	var out []int64
	for _, h := range hs {
		out = append(out, h.TotalCount())
	}
	return out
}

// Two processes' logs merge interval by interval: intervals starting in
// the same second add up, others stay apart, in time order.
func TestMergeHlogs(t *testing.T) {
	base := time.UnixMilli(1_795_435_200_000)
	a, b, out := t.TempDir(), t.TempDir(), t.TempDir()
	wa := NewHlogWriter(a, base.Add(100*time.Millisecond))
	wb := NewHlogWriter(b, base.Add(400*time.Millisecond))
	_ = wa.Write(interval(base.Add(100*time.Millisecond), OpInterval{Op: "x", Hist: histOf(1, 2)}))
	_ = wa.Write(interval(base.Add(1100*time.Millisecond), OpInterval{Op: "x", Hist: histOf(3)}))
	_ = wb.Write(interval(base.Add(400*time.Millisecond), OpInterval{Op: "x", Hist: histOf(4, 5, 6)}))
	_ = wb.Write(interval(base.Add(2400*time.Millisecond), OpInterval{Op: "y", Hist: histOf(7)}))
	if err := wa.Close(); err != nil {
		t.Fatal(err)
	}
	if err := wb.Close(); err != nil {
		t.Fatal(err)
	}
	if err := MergeHlogs([]string{a, b}, out, 0); err != nil {
		t.Fatal(err)
	}
	x, err := ReadHlog(filepath.Join(out, "x.hlog"))
	if err != nil {
		t.Fatal(err)
	}
	if got := counts(x); len(got) != 2 || got[0] != 5 || got[1] != 1 {
		t.Errorf("merged x: %v, want [5 1]", got)
	}
	if x[0].StartTimeMs() != base.UnixMilli() {
		t.Errorf("merged first interval starts %d, want the slot %d", x[0].StartTimeMs(), base.UnixMilli())
	}
	y, err := ReadHlog(filepath.Join(out, "y.hlog"))
	if err != nil || len(y) != 1 || y[0].TotalCount() != 1 {
		t.Errorf("merged y: %v %v, want one interval of 1", counts(y), err)
	}
}
