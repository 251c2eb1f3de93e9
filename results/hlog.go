package results

import (
	"bufio"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// HlogSuffix names an op's interval log: <op>.hlog.
const HlogSuffix = ".hlog"

// HlogWriter streams each op's latency per interval into <op>.hlog, in
// HdrHistogram's interval log format (version 1.3), which its log processor
// and plotters read: a start and a base time, then one tagged compressed
// histogram per interval. Values are microseconds. An op's file appears
// with its first interval that recorded anything.
type HlogWriter struct {
	dir   string
	start time.Time
	base  int64 // ms since the epoch, whole seconds: the BaseTime header holds seconds
	files map[string]*hlogFile
	err   error
}

type hlogFile struct {
	f *os.File
	w *bufio.Writer
}

// NewHlogWriter writes into dir; start is the steady phase's start.
func NewHlogWriter(dir string, start time.Time) *HlogWriter {
	return &HlogWriter{dir: dir, start: start, base: start.Unix() * 1000, files: map[string]*hlogFile{}}
}

// Write adds one interval: a line per op that recorded a latency in it.
// The first error sticks.
func (w *HlogWriter) Write(iv Interval) error {
	for _, o := range iv.Ops {
		if w.err != nil || o.Hist == nil {
			continue
		}
		f, err := w.file(o.Op)
		if err == nil {
			err = writeHlogLine(f.w, w.base, o.Op, iv.Start, iv.End, o.Hist)
		}
		if err == nil {
			err = f.w.Flush() // whole lines on disk, whatever ends the run
		}
		if err != nil {
			w.err = fmt.Errorf("results: %s%s: %w", o.Op, HlogSuffix, err)
		}
	}
	return w.err
}

func (w *HlogWriter) file(op string) (*hlogFile, error) {
	if f, ok := w.files[op]; ok {
		return f, nil
	}
	f, err := os.Create(filepath.Join(w.dir, fileName(op)+HlogSuffix))
	if err != nil {
		return nil, err
	}
	hf := &hlogFile{f: f, w: bufio.NewWriter(f)}
	w.files[op] = hf
	return hf, writeHlogHeader(hf.w, w.start.UnixMilli(), w.base)
}

func writeHlogHeader(w *bufio.Writer, startMs, baseMs int64) error {
	lw := hdr.NewHistogramLogWriter(w)
	for _, f := range []func() error{lw.OutputLogFormatVersion,
		func() error { return lw.OutputStartTime(startMs) },
		func() error { return lw.OutputBaseTime(baseMs) },
		func() error { return lw.OutputComment("[values in microseconds; Interval_Max in milliseconds]") },
		lw.OutputLegend} {
		if err := f(); err != nil {
			return err
		}
	}
	return nil
}

// writeHlogLine writes one interval. The library's writer scales the max
// by a fixed ratio meant for nanoseconds, so the line is written here, with
// the library's encoding.
func writeHlogLine(w *bufio.Writer, baseMs int64, tag string, start, end time.Time, h *hdr.Histogram) error {
	enc, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
	if err != nil {
		return err
	}
	from := float64(start.UnixMilli()-baseMs) / 1000
	_, err = fmt.Fprintf(w, "Tag=%s,%.3f,%.3f,%.3f,%s\n", tag, from, end.Sub(start).Seconds(), float64(maxOf(h))/1000, enc)
	return err
}

// Close flushes and closes every file.
func (w *HlogWriter) Close() error {
	for _, f := range w.files {
		if err := f.w.Flush(); err != nil && w.err == nil {
			w.err = err
		}
		if err := f.f.Close(); err != nil && w.err == nil {
			w.err = err
		}
	}
	return w.err
}

// ReadHlog reads an interval log: each interval's histogram, with its
// absolute start and end (ms) and tag as HdrHistogram's reader sets them.
func ReadHlog(path string) ([]*hdr.Histogram, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := hdr.NewHistogramLogReader(f)
	var out []*hdr.Histogram
	for {
		h, err := r.NextIntervalHistogram()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if h == nil {
			return out, nil
		}
		out = append(out, h)
	}
}

// MergeHlogs writes into out one <op>.hlog per op found in any of dirs,
// merging the intervals of several processes that start in the same
// interval-length slot of wall-clock time, so a merged log reads as one
// run's. interval 0 takes the length of the first interval read.
func MergeHlogs(dirs []string, out string, interval time.Duration) error {
	_, err := mergeHlogs(dirs, out, interval)
	return err
}

// mergedLogs are merged interval histograms: per op, per slot of wall-clock
// time interval long (a slot is start ms / interval ms); and each run's
// own, per op, to tell which slot a run's interval went to.
type mergedLogs struct {
	byOp     map[string]map[int64]*hdr.Histogram
	runs     []map[string][]*hdr.Histogram
	interval time.Duration
}

func (m *mergedLogs) slotOf(h *hdr.Histogram) int64 {
	return h.StartTimeMs() / m.interval.Milliseconds()
}

func mergeHlogs(dirs []string, out string, interval time.Duration) (*mergedLogs, error) {
	m := &mergedLogs{byOp: map[string]map[int64]*hdr.Histogram{}}
	for _, d := range dirs {
		logs, err := readRunHlogs(d)
		if err != nil {
			return nil, err
		}
		m.runs = append(m.runs, logs)
		for _, hs := range logs {
			if interval <= 0 && len(hs) > 0 {
				interval = time.Duration(hs[0].EndTimeMs()-hs[0].StartTimeMs()) * time.Millisecond
			}
		}
	}
	if interval <= 0 {
		interval = time.Second
	}
	m.interval = interval
	var first int64 = -1
	for _, logs := range m.runs {
		for op, hs := range logs {
			if m.byOp[op] == nil {
				m.byOp[op] = map[int64]*hdr.Histogram{}
			}
			for _, h := range hs {
				slot := m.slotOf(h)
				if m.byOp[op][slot] == nil {
					m.byOp[op][slot] = newHist()
				}
				m.byOp[op][slot].Merge(h)
				// A slot can start before its first interval: the log's times
				// count from the earliest slot, so none is negative (readers
				// skip a line with a minus sign).
				if at := slot * interval.Milliseconds(); first < 0 || at < first {
					first = at
				}
			}
		}
	}
	return m, writeMergedHlogs(out, m.byOp, first, interval)
}

// readRunHlogs reads one run's interval logs, per op.
func readRunHlogs(dir string) (map[string][]*hdr.Histogram, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*"+HlogSuffix))
	if err != nil {
		return nil, err
	}
	logs := map[string][]*hdr.Histogram{}
	for _, p := range paths {
		hs, err := ReadHlog(p)
		if err != nil {
			return nil, err
		}
		op := strings.TrimSuffix(filepath.Base(p), HlogSuffix)
		if len(hs) > 0 && hs[0].Tag() != "" {
			op = hs[0].Tag() // the file name is made safe; the tag is the name
		}
		logs[op] = append(logs[op], hs...)
	}
	return logs, nil
}

func writeMergedHlogs(out string, byOp map[string]map[int64]*hdr.Histogram, firstMs int64, interval time.Duration) error {
	for _, op := range slices.Sorted(maps.Keys(byOp)) {
		f, err := os.Create(filepath.Join(out, fileName(op)+HlogSuffix))
		if err != nil {
			return err
		}
		w := bufio.NewWriter(f)
		base := firstMs / 1000 * 1000
		err = writeHlogHeader(w, firstMs, base)
		for _, slot := range slices.Sorted(maps.Keys(byOp[op])) {
			if err != nil {
				break
			}
			start := time.UnixMilli(slot * interval.Milliseconds())
			err = writeHlogLine(w, base, op, start, start.Add(interval), byOp[op][slot])
		}
		if err == nil {
			err = w.Flush()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("results: merge %s%s: %w", op, HlogSuffix, err)
		}
	}
	return nil
}
