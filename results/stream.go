package results

import (
	"encoding/csv"
	"encoding/hex"
	"fmt"
	"io"
	"strconv"
	"time"

	"commentbench/store"
)

// csvWriter writes a header then rows, flushing after each call so the file
// is current while the run goes on and nothing accumulates in memory. The
// first error sticks: later writes return it.
type csvWriter struct {
	w        *csv.Writer
	runStart time.Time
	interval time.Duration
	err      error
}

func newCSVWriter(w io.Writer, runStart time.Time, interval time.Duration, header []string) csvWriter {
	c := csvWriter{w: csv.NewWriter(w), runStart: runStart, interval: interval}
	c.write([][]string{header})
	return c
}

func (c *csvWriter) write(rows [][]string) error {
	if c.err != nil {
		return c.err
	}
	if err := c.w.WriteAll(rows); err != nil { // WriteAll flushes
		c.err = fmt.Errorf("results: %w", err)
	}
	return c.err
}

func (c *csvWriter) elapsed(at time.Time) string {
	return strconv.FormatFloat(at.Sub(c.runStart).Seconds(), 'f', 3, 64)
}

// span is an interval's first three columns: start and end in seconds
// since the steady phase began, and whether it is partial.
func (c *csvWriter) span(start, end time.Time) []string {
	return []string{c.elapsed(start), c.elapsed(end), partial(end.Sub(start), c.interval)}
}

// partial marks an interval shorter than the results interval: the last
// one, cut short by the run's end, and the first when the warm-up ended
// between two ticks. Its counts cover less time, so a chart that plotted
// them per interval rather than per second would show a false dip. A
// hundredth of the interval is timer jitter, not a short interval.
func partial(d, interval time.Duration) string {
	if interval > 0 && d < interval-interval/100 {
		return "1"
	}
	return "0"
}

// TimelineWriter streams timeline.csv: one row per op per interval.
type TimelineWriter struct{ c csvWriter }

// timelineHeader is timeline.csv's header.
var timelineHeader = []string{"start_s", "end_s", "partial", "op", "count", "p50_ms", "p99_ms", "p999_ms", "max_ms", "errors"}

// NewTimelineWriter writes the header at once; an error there is returned
// by the first Write. runStart is the steady phase's start, interval the
// results interval (an interval shorter than it is marked partial).
func NewTimelineWriter(w io.Writer, runStart time.Time, interval time.Duration) *TimelineWriter {
	return &TimelineWriter{newCSVWriter(w, runStart, interval, timelineHeader)}
}

// Write adds iv's rows, skipping ops that neither succeeded nor failed.
func (t *TimelineWriter) Write(iv Interval) error {
	span := t.c.span(iv.Start, iv.End)
	var rows [][]string
	for _, o := range iv.Ops {
		if o.Count == 0 && o.Errors == 0 {
			continue
		}
		rows = append(rows, append(span[:3:3], o.Op, itoa(o.Count),
			msStr(o.P50), msStr(o.P99), msStr(o.P999), msStr(o.Max), itoa(o.Errors)))
	}
	return t.c.write(rows)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func msStr(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 3, 64)
}

// RegionsWriter streams regions.csv: one row per active region per
// interval, and each region's first interval even when idle, so the file
// names every region the run saw and a heatmap can draw the idle ones in
// key order.
type RegionsWriter struct {
	c    csvWriter
	seen map[string]bool
}

// regionsHeader is regions.csv's header. Keys are hex: they are bytes, and
// an empty one is the table's start or end.
var regionsHeader = []string{"start_s", "end_s", "partial", "table", "region", "server",
	"start_key_hex", "end_key_hex", "reads", "writes", "rows_scanned", "bytes_in", "bytes_out"}

// NewRegionsWriter writes the header at once; an error there is returned
// by the first Write. runStart and interval are as for NewTimelineWriter.
func NewRegionsWriter(w io.Writer, runStart time.Time, interval time.Duration) *RegionsWriter {
	return &RegionsWriter{c: newCSVWriter(w, runStart, interval, regionsHeader), seen: map[string]bool{}}
}

// Write adds one row per region in deltas, each holding the counter deltas
// of the interval from start to end; a region idle in it is skipped, to
// keep the file small, unless it was never written before.
func (rw *RegionsWriter) Write(start, end time.Time, deltas []store.RegionStat) error {
	span := rw.c.span(start, end)
	var rows [][]string
	for _, d := range deltas {
		if d.Counters == (store.Counters{}) && rw.seen[d.Name] {
			continue
		}
		rw.seen[d.Name] = true
		rows = append(rows, append(span[:3:3], d.Table, d.Name, d.Server,
			hex.EncodeToString(d.Start), hex.EncodeToString(d.End),
			utoa(d.ReadRequests), utoa(d.WriteRequests), utoa(d.RowsScanned), utoa(d.BytesIn), utoa(d.BytesOut)))
	}
	return rw.c.write(rows)
}

func utoa(n uint64) string { return strconv.FormatUint(n, 10) }
