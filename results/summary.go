package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"commentbench/spread"
)

// FormatVersion is summary.json's format version; ReadSummary rejects others.
const FormatVersion = 1

// SummaryFile is the summary's file name inside a run directory.
const SummaryFile = "summary.json"

// MaxSamples caps a Violation's samples, so a run that breaks a check a
// million times still writes a small summary.
const MaxSamples = 10

// LoadPhase is what a run's load phase wrote, and in how long.
type LoadPhase struct {
	Comments int64   `json:"comments"`
	Seconds  float64 `json:"seconds"`
	// Method is how: "puts" (comment by comment through the write path),
	// "bulk load" (sorted tables ingested), "batched puts" (multi-row
	// requests) or "reused base" (the store started from a kept base,
	// Base, in RestoreSeconds; Seconds is then the generators' replay).
	Method         string  `json:"method,omitempty"`
	Base           string  `json:"base,omitempty"`
	RestoreSeconds float64 `json:"restore_seconds,omitempty"`
	// SaveSeconds is what keeping the load as base Base took after it.
	SaveSeconds float64 `json:"base_save_seconds,omitempty"`
}

// Summary is a whole run's results: summary.json.
type Summary struct {
	Version     int             `json:"version"`
	Tool        string          `json:"tool"`
	Config      json.RawMessage `json:"config,omitempty"` // the run's resolved configuration, opaque here
	Start       time.Time       `json:"start"`
	End         time.Time       `json:"end"`
	DurationSec float64         `json:"duration_sec"`
	Merged      []string        `json:"merged,omitempty"` // run dirs merged into this one
	// RunID is the run's name, recorded in the data it wrote too, so verify
	// --run can tell this run's results from another data set's.
	RunID string `json:"run_id,omitempty"`
	// Fleet is the run's place among processes started together, if it
	// was one of them (see Fleet).
	Fleet *Fleet `json:"fleet,omitempty"`
	// Interrupted: SIGINT or SIGTERM stopped the run early; what it did is
	// all here.
	Interrupted bool `json:"interrupted"`
	// Durability says what an acknowledged write survives: with the
	// embedded engine's --sync a crash, without it all but about the last
	// second's writes.
	Durability string `json:"durability,omitempty"`
	// Design is the key design the run used, whole, so runs are compared
	// by what their keys are, not by what the design was called.
	Design *DesignRecord `json:"design,omitempty"`
	// Stores names, for each of the design's tables kept in another's rows,
	// the store table that keeps it (the spread's figures are the store
	// tables'): a wide design keeps the product listing in product's rows.
	Stores map[string]string `json:"stores,omitempty"`
	// Load is the load phase the run began with, if it had one: unrecorded
	// writes that filled the store before the warm-up.
	Load *LoadPhase  `json:"load,omitempty"`
	Ops  []OpSummary `json:"ops"`
	// Actions are what a user did end to end (post a comment: create the
	// order, write the comment), each from when its arrival was due to the
	// end of its last op; recorded under ActionPrefix + name.
	Actions []OpSummary `json:"actions,omitempty"`
	Pacing  Pacing      `json:"pacing"`
	// Violations maps a pager check's kind to its count and samples.
	Violations map[string]*Violation `json:"violations,omitempty"`
	Spread     []spread.TableSpread  `json:"spread,omitempty"`
	SLOs       []SLOResult           `json:"slos,omitempty"`
	// Flaws is one figure per flaw of the seed's design.
	Flaws *Flaws `json:"flaws,omitempty"`
	// Servers are the modeled region servers (--server-capacity) over the
	// steady phase: requests and handler utilization. A model's figures.
	Servers []ServerLoad `json:"servers_modeled,omitempty"`
	// Steps and Capacity are a ramp's capacity search: each step's figures,
	// the knee and the first breach.
	Steps    []Step    `json:"steps,omitempty"`
	Capacity *Capacity `json:"capacity,omitempty"`
	// HotKeys are the products and users the run worked for most.
	HotKeys *HotKeys `json:"hot_keys,omitempty"`
	// HotRows are the rows the run wrote into most, by table.
	HotRows []HotRow `json:"hot_rows,omitempty"`
	// BiggestRows are each store table's biggest rows at the run's end,
	// where they were measured (see Storage); MaxRowSize is the store's
	// limit on reading one row whole (HBase's hbase.table.max.rowsize),
	// where known.
	BiggestRows []TableRows `json:"biggest_rows,omitempty"`
	MaxRowSize  int64       `json:"max_row_size,omitempty"`
	// Storage is each table's bytes at the end of the run, measured over
	// its cells beside the storage model's (modeled_bytes) for as many rows.
	Storage []TableStorage `json:"storage,omitempty"`
	// Consistency is how the run's comments kept their listings in step,
	// the failures injected and what they left.
	Consistency *Consistency `json:"consistency,omitempty"`
	// Verdict is what the run found, worst first, cures last: the console's
	// closing lines, for reports and CI logs to quote.
	Verdict []Finding `json:"verdict,omitempty"`
	// Backend holds the backend's own counters (the HBase client's RPCs,
	// retries and meta lookups), opaque here.
	Backend json.RawMessage `json:"backend,omitempty"`
}

// Leave takes the named ops and actions out of the summary: results no
// run of its design could record (an actor it left out).
func (s *Summary) Leave(names ...string) {
	s.Ops = slices.DeleteFunc(s.Ops, func(o OpSummary) bool { return slices.Contains(names, o.Op) })
	s.Actions = slices.DeleteFunc(s.Actions, func(o OpSummary) bool { return slices.Contains(names, ActionPrefix+o.Op) })
}

// StoreOf is the store table that keeps the design table's entries.
func (s *Summary) StoreOf(table string) string {
	if t, ok := s.Stores[table]; ok {
		return t
	}
	return table
}

// DesignRecord is a key design as its file gives it.
type DesignRecord struct {
	Name   string `json:"name"`
	Source string `json:"source"`
}

// OpSummary is one op over the run. Count is successes; Rate is Count per
// second over the run's DurationSec.
type OpSummary struct {
	Op           string           `json:"op"`
	Count        int64            `json:"count"`
	Errors       int64            `json:"errors"`
	ErrorsByKind map[string]int64 `json:"errors_by_kind,omitempty"`
	// Clamped counts latencies or service times outside 1 µs .. 1 h that
	// were recorded at the nearest bound.
	Clamped int64       `json:"clamped,omitempty"`
	Rate    float64     `json:"rate"`
	Latency Percentiles `json:"latency"` // from the intended start
	Service Percentiles `json:"service"` // from the actual start
	// Compressed base64 HdrHistograms (µs), kept so runs merge exactly.
	LatencyHist string `json:"latency_hist,omitempty"`
	ServiceHist string `json:"service_hist,omitempty"`
	// Listing is what the op's listing pages cost, for ops that read them.
	Listing *ListingCost `json:"listing,omitempty"`
}

// ListingCost is Cost with its means per page, as summary.json shows it.
type ListingCost struct {
	Cost
	ScansPerPage float64 `json:"scans_per_page"`
	RowsPerPage  float64 `json:"rows_per_page"`
	CellsPerPage float64 `json:"cells_per_page"`
}

func listingCost(c Cost) *ListingCost {
	if c.Pages == 0 {
		return nil
	}
	return &ListingCost{Cost: c, ScansPerPage: c.ScansPerPage(), RowsPerPage: c.RowsPerPage(), CellsPerPage: c.CellsPerPage()}
}

// Percentiles of one histogram, in milliseconds.
type Percentiles struct {
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	P999 float64 `json:"p999"`
	Max  float64 `json:"max"`
	Mean float64 `json:"mean"`
}

// Pacing is how operations were scheduled: Mode "closed" (each worker
// starts its next op when the last ends) or "open" (arrivals at Rate/s).
type Pacing struct {
	Mode      string  `json:"mode"`
	Rate      float64 `json:"rate,omitempty"`
	Ramp      string  `json:"ramp,omitempty"` // a stepped ramp's FROM:TO:STEP/EVERY, instead of Rate
	Arrivals  int64   `json:"arrivals,omitempty"`
	Late      int64   `json:"late,omitempty"`
	Unstarted int64   `json:"unstarted,omitempty"`
	// WarmupDropped are the warm-up's arrivals it never started: dropped
	// when the steady phase began, so they do not take its workers.
	WarmupDropped int64 `json:"warmup_dropped,omitempty"`
	// MaxLateMs is the largest lateness of an arrival: of one that
	// started, when it started; of one that never did, at the run's end.
	MaxLateMs float64 `json:"max_late_ms,omitempty"`
	// LateShare is the arrivals due in the steady phase that started late
	// or never started, over all it had due; FellBehind says the run could not
	// keep its schedule, so its latencies include the wait: an arrival was
	// BehindMs late (a millisecond of timer jitter is not falling behind),
	// and either some never started or a tenth started late. One arrival
	// due a moment before the run ended, still in hand, is not falling
	// behind.
	LateShare  float64 `json:"late_share,omitempty"`
	FellBehind bool    `json:"fell_behind,omitempty"`
}

// Judged fills LateShare and FellBehind from the counts.
func (p Pacing) Judged() Pacing {
	p.LateShare, p.FellBehind = 0, false
	if p.Mode == "closed" {
		return p
	}
	if due := p.Arrivals + p.Unstarted; due > 0 {
		p.LateShare = float64(p.Late+p.Unstarted) / float64(due)
	}
	p.FellBehind = p.MaxLateMs >= BehindMs && (p.Unstarted > 0 || p.LateShare >= 0.1)
	return p
}

// BehindMs is the lateness, in ms, that a user would notice.
const BehindMs = 100

// Violation counts one check's failures and keeps the first few samples.
type Violation struct {
	Count   int64    `json:"count"`
	Samples []string `json:"samples,omitempty"`
}

// Add counts one failure, keeping its sample while there is room.
func (v *Violation) Add(sample string) {
	v.Count++
	if len(v.Samples) < MaxSamples {
		v.Samples = append(v.Samples, sample)
	}
}

// ActionPrefix marks a recorded name as an action's rather than an op's.
const ActionPrefix = "action:"

// add files an op or, under ActionPrefix, an action.
func (s *Summary) add(o OpSummary) {
	if name, ok := strings.CutPrefix(o.Op, ActionPrefix); ok {
		o.Op = name
		s.Actions = append(s.Actions, o)
		return
	}
	s.Ops = append(s.Ops, o)
}

// entries are the ops, then the actions under ActionPrefix: what merge and
// the files see.
func (s Summary) entries() []OpSummary {
	out := slices.Clone(s.Ops)
	for _, a := range s.Actions {
		a.Op = ActionPrefix + a.Op
		out = append(out, a)
	}
	return out
}

// Summary builds the run's summary from Totals. The caller fills Pacing,
// Violations, Spread and SLOs.
func (s *Set) Summary(start, end time.Time, config any) (Summary, error) {
	cfg, err := json.Marshal(config)
	if err != nil {
		return Summary{}, fmt.Errorf("results: config: %w", err)
	}
	sum := newSummary(start, end)
	if config != nil {
		sum.Config = cfg
	}
	for _, t := range s.Totals() {
		o, err := opSummary(t.Op, t.Latency, t.Service, t.Errors, t.ErrorsByKind)
		if err != nil {
			return Summary{}, err
		}
		o.Clamped = t.Clamped
		o.Listing = listingCost(t.Cost)
		sum.add(o)
	}
	sum.setRates()
	return sum, nil
}

func newSummary(start, end time.Time) Summary {
	return Summary{Version: FormatVersion, Tool: "commentbench loadgen", Start: start, End: end,
		DurationSec: end.Sub(start).Seconds()}
}

// setRates recomputes every op's rate over the summary's duration.
func (s *Summary) setRates() {
	for _, ops := range [][]OpSummary{s.Ops, s.Actions} {
		for i := range ops {
			ops[i].Rate = 0
			if s.DurationSec > 0 {
				ops[i].Rate = float64(ops[i].Count) / s.DurationSec
			}
		}
	}
}

func opSummary(op string, lat, svc *hdr.Histogram, errs int64, byKind map[string]int64) (OpSummary, error) {
	o := OpSummary{Op: op, Count: lat.TotalCount(), Errors: errs,
		Latency: percentiles(lat), Service: percentiles(svc)}
	if len(byKind) > 0 {
		o.ErrorsByKind = byKind
	}
	var err error
	if o.LatencyHist, err = encode(lat); err != nil {
		return o, fmt.Errorf("results: op %s: latency: %w", op, err)
	}
	if o.ServiceHist, err = encode(svc); err != nil {
		return o, fmt.Errorf("results: op %s: service: %w", op, err)
	}
	return o, nil
}

func percentiles(h *hdr.Histogram) Percentiles {
	q := valuesAt(h, 50, 90, 99, 99.9)
	return Percentiles{P50: ms(q[0]), P90: ms(q[1]), P99: ms(q[2]), P999: ms(q[3]),
		Max: ms(maxOf(h)), Mean: h.Mean() / 1000}
}

func ms(us int64) float64 { return float64(us) / 1000 }

// encode is h's compressed base64 form; "" for an empty histogram, which
// keeps summaries of ops that never succeeded short.
func encode(h *hdr.Histogram) (string, error) {
	if h.TotalCount() == 0 {
		return "", nil
	}
	b, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
	return string(b), err
}

// decode reads encode's form into a histogram of this package's geometry,
// so histograms from any run merge without loss.
func decode(s string) (*hdr.Histogram, error) {
	h := newHist()
	if s == "" {
		return h, nil
	}
	d, err := hdr.Decode([]byte(s))
	if err != nil {
		return nil, err
	}
	if dropped := h.Merge(d); dropped > 0 {
		return nil, fmt.Errorf("%d values outside %d..%d µs", dropped, lowestUs, highestUs)
	}
	return h, nil
}

// DecodeHist reads an OpSummary's LatencyHist or ServiceHist back into a
// histogram, for readers that draw the whole distribution rather than the
// summary's percentiles.
func DecodeHist(s string) (*hdr.Histogram, error) { return decode(s) }

// WriteSummary writes dir/summary.json atomically, so a reader never sees a
// half-written file even if the run is killed while writing.
func WriteSummary(dir string, s Summary) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("results: summary: %w", err)
	}
	return writeAtomic(filepath.Join(dir, SummaryFile), append(b, '\n'))
}

// writeAtomic writes data to a temporary file beside path and renames it.
func writeAtomic(path string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("results: %w", err)
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(0o644) // CreateTemp makes 0600: results are for reading
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("results: write %s: %w", path, err)
	}
	return nil
}

// ReadSummary reads a summary from its file or from the run dir holding it.
func ReadSummary(path string) (Summary, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		path = filepath.Join(path, SummaryFile)
	}
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return Summary{}, fmt.Errorf("results: %s holds no %s: is it a loadgen results directory? (%w)", filepath.Dir(path), SummaryFile, err)
	}
	if err != nil {
		return Summary{}, fmt.Errorf("results: %w", err)
	}
	var s Summary
	if err := json.Unmarshal(b, &s); err != nil {
		return Summary{}, fmt.Errorf("results: %s: %w", path, err)
	}
	if len(s.Config) > 0 {
		// Undo WriteSummary's indenting, so a summary reads back as it was.
		var c bytes.Buffer
		if err := json.Compact(&c, s.Config); err == nil {
			s.Config = c.Bytes()
		}
	}
	if s.Version != FormatVersion {
		return Summary{}, fmt.Errorf("results: %s: format version %d, want %d", path, s.Version, FormatVersion)
	}
	return s, nil
}

// WriteHgrm writes <op>.hgrm (latency) and <op>.service.hgrm per op with
// successes: HdrHistogram's percentile distribution with values in ms, the
// input of its plotter.
func WriteHgrm(dir string, s Summary) error {
	var errs []error
	for _, o := range s.entries() {
		if o.Count == 0 {
			continue
		}
		name := fileName(o.Op)
		errs = append(errs, writeHgrm(filepath.Join(dir, name+".hgrm"), o.LatencyHist),
			writeHgrm(filepath.Join(dir, name+".service.hgrm"), o.ServiceHist))
	}
	return errors.Join(errs...)
}

func writeHgrm(path, enc string) error {
	h, err := decode(enc)
	if err != nil {
		return fmt.Errorf("results: %s: %w", path, err)
	}
	var b bytes.Buffer
	// 5 ticks per half distance is HdrHistogram's usual resolution; the
	// scale turns µs into ms.
	if _, err := h.PercentilesPrint(&b, 5, 1000); err != nil {
		return fmt.Errorf("results: %s: %w", path, err)
	}
	return writeAtomic(path, b.Bytes())
}

// fileName makes an op name safe as a file name.
func fileName(op string) string {
	if name, ok := strings.CutPrefix(op, ActionPrefix); ok {
		op = "action-" + name
	}
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '_'
	}, op)
}

// ServerLoad is one modeled region server over a run.
type ServerLoad struct {
	Server      string  `json:"server"`
	Requests    int64   `json:"requests"`
	Utilization float64 `json:"utilization"` // of its handlers' time, 0..1
	Modeled     bool    `json:"modeled"`
}
