package results

import (
	"cmp"
	"encoding/csv"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// A merged run's timeline.csv has one row per op and slot of wall-clock
// time, like one run's: counts and errors summed over the processes, and
// percentiles read from the slot's merged histogram (the merged .hlog's),
// so they are the nearest-rank percentiles of everything the processes
// recorded in that slot, never the highest of their own.

// ErrOldTimeline is a timeline.csv of an earlier version, whose rows
// cannot be put on the wall clock: a merge keeps them as they are.
var ErrOldTimeline = errors.New("timeline.csv of an earlier version")

// tlRow is one row of a run's timeline.csv, on the wall clock.
type tlRow struct {
	op            string
	start, end    time.Time
	count, errors int64
	partial       bool
}

// MergeIntervals writes a merged run's per-interval files into out: one
// .hlog per op (MergeHlogs) and timeline.csv, for the runs in dirs whose
// steady phases began at starts; the timeline counts its seconds from
// origin, the merged run's start.
func MergeIntervals(dirs []string, starts []time.Time, origin time.Time, out string) error {
	m, err := mergeHlogs(dirs, out, 0)
	if err != nil {
		return err
	}
	type key struct {
		op   string
		slot int64
	}
	acc := map[key]*tlRow{}
	for i, d := range dirs {
		rows, err := readTimeline(filepath.Join(d, "timeline.csv"), starts[i])
		if err != nil {
			return err
		}
		for _, r := range rows {
			k := key{r.op, m.rowSlot(i, r)}
			a := acc[k]
			if a == nil {
				a = &tlRow{op: r.op, start: r.start, end: r.end}
				acc[k] = a
			}
			a.start, a.end = minTime(a.start, r.start), maxTime(a.end, r.end)
			a.count, a.errors, a.partial = a.count+r.count, a.errors+r.errors, a.partial || r.partial
		}
	}
	f, err := os.Create(filepath.Join(out, "timeline.csv"))
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	_ = w.Write(timelineHeader)
	keys := slices.SortedFunc(maps.Keys(acc), func(a, b key) int {
		return cmp.Or(cmp.Compare(a.slot, b.slot), cmp.Compare(a.op, b.op))
	})
	sec := func(t time.Time) string { return strconv.FormatFloat(t.Sub(origin).Seconds(), 'f', 3, 64) }
	for _, k := range keys {
		r := acc[k]
		var o OpInterval // an op that only failed in the slot has no latency
		if h := m.byOp[k.op][k.slot]; h != nil {
			o = opInterval(k.op, h, 0)
		}
		_ = w.Write([]string{sec(r.start), sec(r.end), map[bool]string{true: "1", false: "0"}[r.partial], r.op,
			itoa(r.count), msStr(o.P50), msStr(o.P99), msStr(o.P999), msStr(o.Max), itoa(r.errors)})
	}
	w.Flush()
	if err := errors.Join(w.Error(), f.Close()); err != nil {
		return fmt.Errorf("results: merge timeline.csv: %w", err)
	}
	return nil
}

// rowSlot is the slot run i's timeline row went to: the slot of that run's
// interval histogram of the op that starts with it (the CSV's times are
// rounded to the ms, a histogram's cut: matched within a few ms, they
// never land in neighbouring slots), else the slot of its start.
func (m *mergedLogs) rowSlot(i int, r tlRow) int64 {
	at := r.start.UnixMilli()
	hs := m.runs[i][r.op]
	j, _ := slices.BinarySearchFunc(hs, at-2, func(h *hdr.Histogram, t int64) int { return int(h.StartTimeMs() - t) })
	if j < len(hs) && hs[j].StartTimeMs() <= at+2 {
		return m.slotOf(hs[j])
	}
	return at / m.interval.Milliseconds()
}

// readTimeline reads a run's timeline.csv onto the wall clock; a run
// without one has no rows.
func readTimeline(path string, start time.Time) ([]tlRow, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(recs) == 0 || !slices.Equal(recs[0], timelineHeader) {
		return nil, fmt.Errorf("%s: %w", path, ErrOldTimeline)
	}
	at := func(s string) (time.Time, error) {
		v, err := strconv.ParseFloat(s, 64)
		return start.Add(time.Duration(v * float64(time.Second))), err
	}
	var out []tlRow
	for i, rec := range recs[1:] {
		s, err1 := at(rec[0])
		e, err2 := at(rec[1])
		n, err3 := strconv.ParseInt(rec[4], 10, 64)
		ne, err4 := strconv.ParseInt(rec[9], 10, 64)
		if err := errors.Join(err1, err2, err3, err4); err != nil {
			return nil, fmt.Errorf("%s: row %d: %w", path, i+2, err)
		}
		out = append(out, tlRow{op: rec[3], start: s, end: e, count: n, errors: ne, partial: rec[2] == "1"})
	}
	return out, nil
}
