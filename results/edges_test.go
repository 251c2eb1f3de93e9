package results

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fullDisk makes path a link to /dev/full, where every write fails with
// "no space left on device" while opening and closing succeed.
func fullDisk(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full here")
	}
	if err := os.Symlink("/dev/full", path); err != nil {
		t.Fatal(err)
	}
}

// A ledger record holds a key of up to 255 bytes (one byte says its
// length); a longer key is not a comment key, and is not written.
func TestLedgerLongestKey(t *testing.T) {
	dir := t.TempDir()
	l := NewLedger(dir, false)
	w, err := l.Writer(0)
	if err != nil {
		t.Fatal(err)
	}
	longest := strings.Repeat("k", 255)
	w.Write(Acked, []byte(longest), 7)
	w.Write(Acked, []byte(longest+"x"), 8)
	w.Write(Unknown, []byte("short"), 9)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	var got []string
	torn, err := ReadLedger(dir, func(r LedgerRecord) error {
		got = append(got, string(r.Status)+string(r.Key)+"/"+string(rune('0'+r.Len)))
		return nil
	})
	if err != nil || torn != 0 || len(got) != 2 || got[0] != "a"+longest+"/7" || got[1] != "ushort/9" {
		t.Errorf("read back %d records %.20q..., torn %d, %v; want the 255-byte key and the short one", len(got), got, torn, err)
	}
}

// A ledger that cannot be written says so at the write, at Err and at
// Close, and keeps saying so.
func TestLedgerWriteFailure(t *testing.T) {
	dir := t.TempDir()
	fullDisk(t, filepath.Join(dir, "ledger-0000.bin"))
	l := NewLedger(dir, false)
	w, err := l.Writer(0)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(Acked, []byte("orderAAAAAproductBBB"), 3)
	if err := l.Err(); err == nil {
		t.Error("a write to a full disk left no error")
	}
	w.Write(Acked, []byte("orderBBBBBproductBBB"), 3)
	if err := l.Close(); err == nil {
		t.Error("Close after a failed write succeeded")
	}
	dir = t.TempDir()
	fullDisk(t, filepath.Join(dir, "ledger-0000.bin"))
	l = NewLedger(dir, false)
	if w, err = l.Writer(0); err != nil {
		t.Fatal(err)
	}
	w.Write(Acked, []byte("orderAAAAAproductBBB"), 3)
	if err := l.Close(); err == nil {
		t.Error("Close after a write to a full disk succeeded")
	}
}

// Each interval is on disk once Write returns, before Close: a run killed
// afterwards keeps it. Its Interval_Max is in milliseconds.
func TestHlogLineOnDiskAtWrite(t *testing.T) {
	dir := t.TempDir()
	start := time.UnixMilli(1_795_435_200_000)
	w := NewHlogWriter(dir, start)
	if err := w.Write(interval(start.Add(2*time.Second), OpInterval{Op: "op", Hist: histOf(100, 2500)})); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "op.hlog"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "\nTag=op,2.000,1.000,2.5") {
		t.Errorf("before Close the log holds:\n%s\nwant the interval from 2 s, 1 s long, max 2.5 ms", b)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

type brokenWriter struct{}

func (brokenWriter) Write([]byte) (int, error) { return 0, errors.New("disk gone") }

// Close reports a flush that failed, and a file that would not close.
func TestHlogCloseFailures(t *testing.T) {
	start := time.UnixMilli(1_795_435_200_000)
	w := NewHlogWriter(t.TempDir(), start)
	if err := w.Write(interval(start, OpInterval{Op: "op", Hist: histOf(1)})); err != nil {
		t.Fatal(err)
	}
	w.files["op"].w = bufio.NewWriter(brokenWriter{})
	_, _ = w.files["op"].w.WriteString("pending")
	if err := w.Close(); err == nil || !strings.Contains(err.Error(), "disk gone") {
		t.Errorf("Close with a failing flush: %v", err)
	}

	w = NewHlogWriter(t.TempDir(), start)
	if err := w.Write(interval(start, OpInterval{Op: "op", Hist: histOf(1)})); err != nil {
		t.Fatal(err)
	}
	_ = w.files["op"].f.Close()
	if err := w.Close(); err == nil {
		t.Error("Close of a file that will not close succeeded")
	}
}

// A log that could not be written fails Write, naming the op, and every
// later Write.
func TestHlogWriteFailure(t *testing.T) {
	dir := t.TempDir()
	fullDisk(t, filepath.Join(dir, "op.hlog"))
	start := time.UnixMilli(1_795_435_200_000)
	w := NewHlogWriter(dir, start)
	err := w.Write(interval(start, OpInterval{Op: "op", Hist: histOf(1)}))
	if err == nil || !strings.Contains(err.Error(), "op.hlog") {
		t.Errorf("a write to a full disk: %v", err)
	}
	if err2 := w.Write(interval(start, OpInterval{Op: "other", Hist: histOf(1)})); err2 == nil {
		t.Error("the first error did not stick")
	}
	_ = w.Close()
}

// Logs merge by the slot of their own interval length: two processes'
// 2-second intervals that start in one 2-second slot are one interval.
// The merged log starts at its earliest slot, and each op keeps its own
// name, whatever its file is called.
func TestMergeHlogsSlotsAndNames(t *testing.T) {
	base := time.UnixMilli(1_795_435_200_000)
	a, b, out := t.TempDir(), t.TempDir(), t.TempDir()
	wa, wb := NewHlogWriter(a, base), NewHlogWriter(b, base)
	two := func(at time.Duration, op string, vals ...int64) Interval {
		s := base.Add(at)
		return Interval{Start: s, End: s.Add(2 * time.Second), Ops: []OpInterval{{Op: op, Hist: histOf(vals...)}}}
	}
	for _, iv := range []Interval{two(100*time.Millisecond, "a/b", 1), two(2100*time.Millisecond, "a/b", 2, 3)} {
		if err := wa.Write(iv); err != nil {
			t.Fatal(err)
		}
	}
	if err := wb.Write(two(1400*time.Millisecond, "a/b", 4, 5, 6)); err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(wa.Close(), wb.Close()); err != nil {
		t.Fatal(err)
	}
	if err := MergeHlogs([]string{a, b}, out, 0); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(out, "*"))
	if len(files) != 1 {
		t.Fatalf("merged into %q, want one log", files)
	}
	hs, err := ReadHlog(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if got := counts(hs); len(got) != 2 || got[0] != 4 || got[1] != 2 {
		t.Errorf("merged intervals %v, want [4 2]: 2-second slots", got)
	}
	for _, h := range hs {
		if h.Tag() != "a/b" {
			t.Errorf("merged tag %q, want a/b", h.Tag())
		}
	}
	if len(hs) == 2 && (hs[0].StartTimeMs() != base.UnixMilli() || hs[1].StartTimeMs() != base.UnixMilli()+2000 ||
		hs[0].EndTimeMs()-hs[0].StartTimeMs() != 2000) {
		t.Errorf("merged intervals at %d and %d, %d ms long", hs[0].StartTimeMs(), hs[1].StartTimeMs(), hs[0].EndTimeMs()-hs[0].StartTimeMs())
	}
	text, _ := os.ReadFile(files[0])
	if !strings.Contains(string(text), "#[StartTime: 1795435200 ") {
		t.Errorf("merged log's start is not its earliest slot:\n%s", text)
	}
}

// A log with no intervals, or intervals of no length, merges: by the
// second, and into nothing for an op that recorded nothing.
func TestMergeHlogsDegenerate(t *testing.T) {
	base := time.UnixMilli(1_795_435_200_000)
	a, out := t.TempDir(), t.TempDir()
	w := NewHlogWriter(a, base)
	if _, err := w.file("empty"); err != nil {
		t.Fatal(err)
	}
	if err := w.Write(Interval{Start: base.Add(1500 * time.Millisecond), End: base.Add(1500 * time.Millisecond),
		Ops: []OpInterval{{Op: "instant", Hist: histOf(7)}}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := MergeHlogs([]string{a}, out, 0); err != nil {
		t.Fatal(err)
	}
	for op, want := range map[string][]int64{"empty": nil, "instant": {1}} {
		hs, err := ReadHlog(filepath.Join(out, op+".hlog"))
		if got := counts(hs); err != nil || len(got) != len(want) {
			t.Errorf("%s merged: %v, %v; want %v", op, got, err, want)
		}
		if len(hs) == 1 && (hs[0].StartTimeMs() != base.UnixMilli()+1000 || hs[0].EndTimeMs() != base.UnixMilli()+2000) {
			t.Errorf("%s merged into [%d, %d), want the second it fell in", op, hs[0].StartTimeMs(), hs[0].EndTimeMs())
		}
	}
}

// A merged log that cannot be written is an error, naming it.
func TestMergeHlogsWriteFailure(t *testing.T) {
	base := time.UnixMilli(1_795_435_200_000)
	a, out := t.TempDir(), t.TempDir()
	w := NewHlogWriter(a, base)
	if err := w.Write(interval(base, OpInterval{Op: "op", Hist: histOf(1)})); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	fullDisk(t, filepath.Join(out, "op.hlog"))
	if err := MergeHlogs([]string{a}, out, 0); err == nil || !strings.Contains(err.Error(), "op.hlog") {
		t.Errorf("a merge onto a full disk: %v", err)
	}
}
