package results

import (
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// writeRun writes one process's interval files, as a run does: each
// interval to the timeline and the interval log, counting from start.
func writeRun(t *testing.T, dir string, start time.Time, ivs ...Interval) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, "timeline.csv"))
	if err != nil {
		t.Fatal(err)
	}
	tw, hw := NewTimelineWriter(f, start, time.Second), NewHlogWriter(dir, start)
	for _, iv := range ivs {
		if err := tw.Write(iv); err != nil {
			t.Fatal(err)
		}
		if err := hw.Write(iv); err != nil {
			t.Fatal(err)
		}
	}
	if err := hw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func opIv(op string, errs int64, vals ...int64) OpInterval {
	h := histOf(vals...)
	o := opInterval(op, h, errs)
	o.Hist = h
	return o
}

// Two processes' intervals in the same second merge into one row whose
// percentiles are the nearest-rank ones of both together, not the higher
// of the two: 1..50 µs and 51..60 µs have a merged p50 of 30 µs, where
// the higher of their own p50s is 55 µs. Counts and errors add up; an
// interval only one process had stays its own row.
func TestMergeIntervalsTimeline(t *testing.T) {
	base := time.UnixMilli(1_795_435_200_000)
	a, b, out := t.TempDir(), t.TempDir(), t.TempDir()
	var low, high []int64
	for v := int64(1); v <= 60; v++ {
		if v <= 50 {
			low = append(low, v)
		} else {
			high = append(high, v)
		}
	}
	sa, sb := base.Add(100*time.Millisecond), base.Add(400*time.Millisecond)
	writeRun(t, a, sa, interval(sa, opIv("x", 1, low...)), interval(sa.Add(time.Second), opIv("x", 0, 7)))
	writeRun(t, b, sb, interval(sb, opIv("x", 2, high...)))
	if err := MergeIntervals([]string{a, b}, []time.Time{sa, sb}, sa, out); err != nil {
		t.Fatal(err)
	}
	recs := readTimelineCSV(t, out)
	want := [][]string{
		timelineHeader,
		{"0.000", "1.300", "0", "x", "60", "0.030", "0.060", "0.060", "0.060", "3"},
		{"1.000", "2.000", "0", "x", "1", "0.007", "0.007", "0.007", "0.007", "0"},
	}
	if len(recs) != len(want) {
		t.Fatalf("merged timeline:\n%v\nwant\n%v", recs, want)
	}
	for i := range want {
		for j := range want[i] {
			if recs[i][j] != want[i][j] {
				t.Errorf("row %d column %s: %s, want %s", i, timelineHeader[j], recs[i][j], want[i][j])
			}
		}
	}
}

// A timeline of an earlier version cannot go on the wall clock: merge
// says so, and the caller keeps its rows as they are.
func TestMergeIntervalsOldTimeline(t *testing.T) {
	a, out := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(a, "timeline.csv"), []byte("elapsed_s,op,count\n1,x,3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := MergeIntervals([]string{a}, []time.Time{time.Now()}, time.Now(), out); !errors.Is(err, ErrOldTimeline) {
		t.Errorf("old timeline: %v, want ErrOldTimeline", err)
	}
}

// timeline.csv's times are rounded to the millisecond, an interval log's
// cut: an interval starting 0.1 ms before a slot's end is written 2.000 s
// into the run and logged in the slot before. Its row joins the slot of
// its histogram, its percentiles and all; it is not left in the next slot
// with none.
func TestMergeIntervalsRoundedStart(t *testing.T) {
	base := time.UnixMilli(1_795_435_200_000)
	start := base.Add(300 * time.Microsecond)
	late := start.Add(1999600 * time.Microsecond) // base + 1.9999 s: slot 1, "2.000" in the CSV
	a, out := t.TempDir(), t.TempDir()
	writeRun(t, a, start, interval(start, opIv("a", 0, 1)), Interval{Start: late, End: late.Add(time.Second), Ops: []OpInterval{opIv("x", 0, 9, 9)}})
	if err := MergeIntervals([]string{a}, []time.Time{start}, start, out); err != nil {
		t.Fatal(err)
	}
	recs := readTimelineCSV(t, out)
	if len(recs) != 3 || recs[2][3] != "x" || recs[2][4] != "2" || recs[2][5] != "0.009" {
		t.Errorf("merged timeline %v: want x's row with its 2 values and p50 0.009 ms", recs)
	}
}

func readTimelineCSV(t *testing.T, dir string) [][]string {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "timeline.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}
