package report

import (
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// TimelineRow is one op in one interval of timeline.csv.
type TimelineRow struct {
	Start, End     float64 // seconds since the steady phase began
	Partial        bool
	Op             string
	Count, Errors  int64
	P50, P99, P999 float64 // ms
	Max            float64
	Process        string // the process a merged run's row came from
}

// RegionRow is one region in one interval of regions.csv.
type RegionRow struct {
	Start, End    float64
	Partial       bool
	Table, Region string
	Server        string
	StartKey      []byte
	Reads, Writes uint64
	Process       string
}

// csvTable is a CSV file read whole, its columns by name.
type csvTable struct {
	path string
	col  map[string]int
	rows [][]string
}

func readCSV(path string) (*csvTable, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.FieldsPerRecord = -1 // a run killed mid-row leaves a short last row: skipped below
	recs, err := cr.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("%s: empty, not even a header", path)
	}
	t := &csvTable{path: path, col: map[string]int{}}
	for i, h := range recs[0] {
		t.col[h] = i
	}
	for _, r := range recs[1:] {
		if len(r) == len(recs[0]) {
			t.rows = append(t.rows, r)
		}
	}
	return t, nil
}

func (t *csvTable) has(names ...string) bool {
	for _, n := range names {
		if _, ok := t.col[n]; !ok {
			return false
		}
	}
	return true
}

// cell is row's value in the named column, "" when the file has none.
func (t *csvTable) cell(row []string, name string) string {
	if i, ok := t.col[name]; ok {
		return row[i]
	}
	return ""
}

// spanReader reads an interval's start, end and partial mark. Files that
// carry only the end (elapsed_s, or end_s alone as servers.csv has it)
// start each interval at the previous one's end (the first one interval
// before its end), and no interval is known to be partial.
type spanReader struct {
	t        *csvTable
	endCol   string // without start_s: the column holding the end
	interval float64
	prevEnd  map[string]float64 // by process: merged files interleave them
	lastEnd  map[string]float64
}

func (s *spanReader) read(row []string) (start, end float64, partial bool, err error) {
	if s.t.has("start_s", "end_s") {
		if start, err = strconv.ParseFloat(s.t.cell(row, "start_s"), 64); err == nil {
			end, err = strconv.ParseFloat(s.t.cell(row, "end_s"), 64)
		}
		return start, end, s.t.cell(row, "partial") == "1", err
	}
	if end, err = strconv.ParseFloat(s.t.cell(row, s.endCol), 64); err != nil {
		return 0, 0, false, err
	}
	p := s.t.cell(row, "run")
	if last, ok := s.lastEnd[p]; ok && last != end {
		s.prevEnd[p] = last
	}
	s.lastEnd[p] = end
	if prev, ok := s.prevEnd[p]; ok {
		return prev, end, false, nil
	}
	return max(0, end-s.interval), end, false, nil
}

func newSpanReader(t *csvTable, interval float64) (*spanReader, error) {
	s := &spanReader{t: t, interval: interval, prevEnd: map[string]float64{}, lastEnd: map[string]float64{}}
	for _, c := range []string{"elapsed_s", "end_s"} {
		if t.has(c) {
			s.endCol = c
		}
	}
	if !t.has("start_s", "end_s") && s.endCol == "" {
		return nil, fmt.Errorf("%s: no start_s and end_s (nor elapsed_s) column", t.path)
	}
	return s, nil
}

// intervalSec is the run's results interval in seconds (1 when it records
// none).
func (r *Run) intervalSec() float64 {
	if d, err := time.ParseDuration(r.Config.Scenario.Interval); err == nil && d > 0 {
		return d.Seconds()
	}
	return 1
}

func (r *Run) readTimeline() error {
	t, err := readCSV(filepath.Join(r.Dir, TimelineFile))
	if err != nil {
		return inputErr("%w", err)
	}
	if !t.has("op", "count") {
		return inputErr("%s: no op and count columns: not a loadgen timeline", t.path)
	}
	spans, err := newSpanReader(t, r.intervalSec())
	if err != nil {
		return inputErr("%w", err)
	}
	for i, row := range t.rows {
		tr := TimelineRow{Op: t.cell(row, "op"), Process: t.cell(row, "run")}
		tr.Start, tr.End, tr.Partial, err = spans.read(row)
		if err == nil {
			err = parseInts(t, row, map[string]*int64{"count": &tr.Count, "errors": &tr.Errors})
		}
		if err == nil {
			err = parseFloats(t, row, map[string]*float64{"p50_ms": &tr.P50, "p99_ms": &tr.P99, "p999_ms": &tr.P999, "max_ms": &tr.Max})
		}
		if err != nil {
			return inputErr("%s: row %d: %w", t.path, i+2, err)
		}
		r.Timeline = append(r.Timeline, tr)
	}
	return nil
}

func (r *Run) readRegions() error {
	t, err := readCSV(filepath.Join(r.Dir, RegionsFile))
	if err != nil {
		return inputErr("%w", err)
	}
	if !t.has("table", "region", "reads", "writes") {
		return inputErr("%s: no table, region, reads and writes columns: not a loadgen regions file", t.path)
	}
	spans, err := newSpanReader(t, r.intervalSec())
	if err != nil {
		return inputErr("%w", err)
	}
	for i, row := range t.rows {
		rr := RegionRow{Table: t.cell(row, "table"), Region: t.cell(row, "region"), Server: t.cell(row, "server"),
			Process: t.cell(row, "run")}
		rr.Start, rr.End, rr.Partial, err = spans.read(row)
		if err == nil {
			rr.StartKey, err = startKey(t, row, rr.Table, rr.Region)
		}
		var reads, writes int64
		if err == nil {
			err = parseInts(t, row, map[string]*int64{"reads": &reads, "writes": &writes})
		}
		if err != nil {
			return inputErr("%s: row %d: %w", t.path, i+2, err)
		}
		rr.Reads, rr.Writes = uint64(reads), uint64(writes)
		r.Regions = append(r.Regions, rr)
	}
	return nil
}

// startKey is the region's start key: its own column, or, in files written
// before there was one, read out of HBase's region name
// (table,startKey,id.hash.), whose id holds no comma.
func startKey(t *csvTable, row []string, table, region string) ([]byte, error) {
	if t.has("start_key_hex") {
		return hex.DecodeString(t.cell(row, "start_key_hex"))
	}
	rest, ok := strings.CutPrefix(region, table+",")
	last := strings.LastIndexByte(rest, ',')
	if !ok || last < 0 {
		return nil, nil
	}
	return []byte(rest[:last]), nil
}

func parseInts(t *csvTable, row []string, into map[string]*int64) error {
	for name, dst := range into {
		s := t.cell(row, name)
		if s == "" {
			continue
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		*dst = n
	}
	return nil
}

func parseFloats(t *csvTable, row []string, into map[string]*float64) error {
	for name, dst := range into {
		s := t.cell(row, name)
		if s == "" {
			continue
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		*dst = v
	}
	return nil
}

// ServerSeries is the server model's utilization per server over time
// (servers.csv, issue 13): modeled, not measured.
type ServerSeries struct {
	Servers []string
	// Points by server: (interval midpoint s, utilization 0..1).
	Points map[string][][2]float64
	// Note says why the file was not drawn, when it was not.
	Note string
}

// readServers reads servers.csv when the server model wrote one: per
// interval and server, its utilization (utilization_modeled). A file
// without those columns is noted, not guessed at.
func (r *Run) readServers() error {
	t, err := readCSV(filepath.Join(r.Dir, ServersFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return inputErr("%w", err)
	}
	s := &ServerSeries{Points: map[string][][2]float64{}}
	r.Servers = s
	spans, err := newSpanReader(t, r.intervalSec())
	util := "utilization_modeled"
	if !t.has(util) {
		util = "utilization"
	}
	if err != nil || !t.has("server", util) {
		s.Note = fmt.Sprintf("%s has no server and utilization columns per interval: not drawn", ServersFile)
		return nil
	}
	for i, row := range t.rows {
		start, end, _, err := spans.read(row)
		var u float64
		if err == nil {
			u, err = strconv.ParseFloat(t.cell(row, util), 64)
		}
		if err != nil {
			return inputErr("%s: row %d: %w", t.path, i+2, err)
		}
		name := t.cell(row, "server")
		if _, ok := s.Points[name]; !ok {
			s.Servers = append(s.Servers, name)
		}
		s.Points[name] = append(s.Points[name], [2]float64{(start + end) / 2, u})
	}
	return nil
}
