package results

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// SLO is one parsed --slo expression: OP:METRIC CMP VALUE.
type SLO struct {
	Op     string // an op name, or "*" for all ops merged
	Metric string // p50 p90 p99 p999 max mean error-rate throughput
	Cmp    string // <= < >= >
	// Value is in the metric's unit: ms for latency, percent for
	// error-rate, ops/s for throughput.
	Value float64
	Text  string // the expression as given, trimmed
}

// SLOResult is one SLO evaluated against a summary.
type SLOResult struct {
	SLO    string  `json:"slo"`
	Metric string  `json:"metric"`
	Met    bool    `json:"met"`
	Actual float64 `json:"actual"`
	Unit   string  `json:"unit"` // ms, %, /s
	Note   string  `json:"note,omitempty"`
}

var (
	latencyMetrics = []string{"p50", "p90", "p99", "p999", "max", "mean"}
	metrics        = append(slices.Clone(latencyMetrics), "error-rate", "throughput")
	// Longest first, so "<=" is not read as "<".
	comparisons = []string{"<=", ">=", "<", ">"}
)

// ParseSLO parses OP:METRIC CMP VALUE; spaces around the parts are optional.
func ParseSLO(expr string) (SLO, error) {
	text := strings.TrimSpace(expr)
	fail := func(format string, a ...any) (SLO, error) {
		return SLO{}, fmt.Errorf("slo %q: "+format, append([]any{text}, a...)...)
	}
	op, rest, ok := strings.Cut(text, ":")
	if !ok {
		return fail("want OP:METRIC CMP VALUE, e.g. product-latest:p99<=200ms")
	}
	if strings.TrimSpace(op)+":" == ActionPrefix { // action:NAME:METRIC...
		var name string
		if name, rest, ok = strings.Cut(rest, ":"); !ok {
			return fail("want action:NAME:METRIC CMP VALUE, e.g. action:post-comment:p99<=300ms")
		}
		op = ActionPrefix + strings.TrimSpace(name)
	}
	s := SLO{Op: strings.TrimSpace(op), Text: text}
	if s.Op == "" || strings.ContainsAny(s.Op, " \t<>=") {
		return fail("op %q: want an op name or *", s.Op)
	}
	i := strings.IndexAny(rest, "<>=")
	if i < 0 {
		return fail("no comparison: want one of %s", strings.Join(comparisons, ", "))
	}
	s.Metric = strings.TrimSpace(rest[:i])
	if s.Metric == "p99.9" {
		s.Metric = "p999"
	}
	if !slices.Contains(metrics, s.Metric) {
		return fail("metric %q: want one of %s", s.Metric, strings.Join(metrics, ", "))
	}
	s.Cmp, rest = cutComparison(rest[i:])
	if s.Cmp == "" {
		return fail("comparison %q: want one of %s", leadingOps(rest), strings.Join(comparisons, ", "))
	}
	v, err := parseValue(s.Metric, strings.TrimSpace(rest))
	if err != nil {
		return fail("%v", err)
	}
	s.Value = v
	return s, nil
}

// cutComparison splits the comparison off the front of s; it returns ""
// for anything else, such as "=", "==" or "<>".
func cutComparison(s string) (cmp, rest string) {
	for _, c := range comparisons {
		if r, ok := strings.CutPrefix(s, c); ok && !strings.ContainsAny(r[:min(1, len(r))], "<>=") {
			return c, r
		}
	}
	return "", s
}

// leadingOps is the run of comparison characters s starts with.
func leadingOps(s string) string {
	return s[:len(s)-len(strings.TrimLeft(s, "<>="))]
}

// parseValue reads v in metric's unit.
func parseValue(metric, v string) (float64, error) {
	switch metric {
	case "error-rate":
		n, ok := strings.CutSuffix(v, "%")
		f, err := strconv.ParseFloat(strings.TrimSpace(n), 64)
		if !ok || err != nil || f < 0 || f > 100 {
			return 0, fmt.Errorf("value %q: want a percentage from 0%% to 100%%, like 1%% or 0.5%%", v)
		}
		return f, nil
	case "throughput":
		n, _ := strings.CutSuffix(v, "/s")
		f, err := strconv.ParseFloat(strings.TrimSpace(n), 64)
		if err != nil || f < 0 {
			return 0, fmt.Errorf("value %q: want ops per second, like 500/s or 500", v)
		}
		return f, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("value %q: want a duration, like 200ms, 1.5s or 800us", v)
	}
	return float64(d) / float64(time.Millisecond), nil
}

// CheckOp rejects an op that is neither "*" nor one of ops, so a typo is
// caught before a run rather than breaching after it.
func (s SLO) CheckOp(ops []string) error {
	if s.Op == "*" || slices.Contains(ops, s.Op) {
		return nil
	}
	return fmt.Errorf("slo %q: op %q: want one of %s or *", s.Text, s.Op, strings.Join(ops, ", "))
}

// Evaluate checks each SLO against s. An SLO on an op that did not run, or
// a latency SLO on an op with no successes, is breached with Actual 0.
func Evaluate(slos []SLO, s Summary) []SLOResult {
	out := make([]SLOResult, 0, len(slos))
	for _, slo := range slos {
		out = append(out, evaluate(slo, s))
	}
	return out
}

func evaluate(slo SLO, s Summary) SLOResult {
	r := SLOResult{SLO: slo.Text, Metric: slo.Metric, Unit: unitOf(slo.Metric)}
	st, err := statsOf(s, slo.Op)
	switch {
	case err != nil:
		r.Note = err.Error()
	case st.count+st.errors == 0:
		r.Note = "op did not run"
	case st.count == 0 && r.Unit == "ms":
		r.Note = "no successful operations"
	default:
		r.Actual = st.value(slo.Metric, s.DurationSec)
		r.Met = compare(r.Actual, slo.Cmp, slo.Value)
	}
	return r
}

func unitOf(metric string) string {
	switch metric {
	case "error-rate":
		return "%"
	case "throughput":
		return "/s"
	}
	return "ms"
}

// opStats is what an SLO measures: one op, or all merged.
type opStats struct {
	count, errors int64
	lat           *hdr.Histogram
}

func statsOf(s Summary, op string) (opStats, error) {
	st := opStats{lat: newHist()}
	entries := s.Ops
	if strings.HasPrefix(op, ActionPrefix) {
		entries = s.entries()
	}
	for _, o := range entries {
		if op != "*" && o.Op != op {
			continue
		}
		h, err := decode(o.LatencyHist)
		if err != nil {
			return st, fmt.Errorf("op %s: %v", o.Op, err)
		}
		st.lat.Merge(h)
		st.count += o.Count
		st.errors += o.Errors
	}
	return st, nil
}

func (st opStats) value(metric string, durationSec float64) float64 {
	switch metric {
	case "error-rate":
		return 100 * float64(st.errors) / float64(st.count+st.errors)
	case "throughput":
		if durationSec <= 0 {
			return 0
		}
		return float64(st.count) / durationSec
	case "mean":
		return st.lat.Mean() / 1000
	case "max":
		return ms(maxOf(st.lat))
	}
	q := map[string]float64{"p50": 50, "p90": 90, "p99": 99, "p999": 99.9}[metric]
	return ms(ValueAtPercentile(st.lat, q))
}

func compare(a float64, cmp string, b float64) bool {
	switch cmp {
	case "<=":
		return a <= b
	case "<":
		return a < b
	case ">=":
		return a >= b
	}
	return a > b
}
