package results

import (
	"encoding/csv"
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
	err      error
}

func newCSVWriter(w io.Writer, runStart time.Time, header []string) csvWriter {
	c := csvWriter{w: csv.NewWriter(w), runStart: runStart}
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

// TimelineWriter streams timeline.csv: one row per op per interval.
type TimelineWriter struct{ c csvWriter }

// timelineHeader is timeline.csv's header.
var timelineHeader = []string{"elapsed_s", "op", "count", "p50_ms", "p99_ms", "p999_ms", "max_ms", "errors"}

// NewTimelineWriter writes the header at once; an error there is returned
// by the first Write.
func NewTimelineWriter(w io.Writer, runStart time.Time) *TimelineWriter {
	return &TimelineWriter{newCSVWriter(w, runStart, timelineHeader)}
}

// Write adds iv's rows, skipping ops that neither succeeded nor failed.
func (t *TimelineWriter) Write(iv Interval) error {
	at := t.c.elapsed(iv.End)
	var rows [][]string
	for _, o := range iv.Ops {
		if o.Count == 0 && o.Errors == 0 {
			continue
		}
		rows = append(rows, []string{at, o.Op, itoa(o.Count),
			msStr(o.P50), msStr(o.P99), msStr(o.P999), msStr(o.Max), itoa(o.Errors)})
	}
	return t.c.write(rows)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func msStr(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Millisecond), 'f', 3, 64)
}

// RegionsWriter streams regions.csv: one row per active region per interval.
type RegionsWriter struct{ c csvWriter }

// regionsHeader is regions.csv's header.
var regionsHeader = []string{"elapsed_s", "table", "region", "server",
	"reads", "writes", "rows_scanned", "bytes_in", "bytes_out"}

// NewRegionsWriter writes the header at once; an error there is returned
// by the first Write.
func NewRegionsWriter(w io.Writer, runStart time.Time) *RegionsWriter {
	return &RegionsWriter{newCSVWriter(w, runStart, regionsHeader)}
}

// Write adds one row per region in deltas, each holding the interval's
// counter deltas; idle regions are skipped to keep the file small.
func (rw *RegionsWriter) Write(at time.Time, deltas []store.RegionStat) error {
	el := rw.c.elapsed(at)
	var rows [][]string
	for _, d := range deltas {
		if d.Counters == (store.Counters{}) {
			continue
		}
		rows = append(rows, []string{el, d.Table, d.Name, d.Server,
			utoa(d.ReadRequests), utoa(d.WriteRequests), utoa(d.RowsScanned), utoa(d.BytesIn), utoa(d.BytesOut)})
	}
	return rw.c.write(rows)
}

func utoa(n uint64) string { return strconv.FormatUint(n, 10) }
