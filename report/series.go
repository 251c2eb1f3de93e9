package report

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot/plotter"

	"commentbench/keys"
	"commentbench/results"
)

// maxPoints bounds a line's points, maxColumns a heatmap's: a long run's
// intervals are taken a few at a time, and the page says so. A line of 300
// points is as fine as a chart's width shows; a heatmap's columns are
// pixels, cheap, so it keeps more.
const (
	maxPoints  = 300
	maxColumns = 600
)

// opPoint is one op over one slot of time.
type opPoint struct {
	X              float64 // the slot's middle, seconds
	Rate           float64 // successes per second
	P50, P99, Max  float64 // ms: the slot's interval's
	Count, Errors  int64
	slot, interval int
}

// slot is the results interval an interval belongs to. Processes of a
// merged run each count their own seconds; their intervals share a slot
// when they started within half an interval of each other.
func slot(start, interval float64) int { return int(math.Round(start / interval)) }

// timeline gathers timeline.csv per op and slot. A merged run's file has
// one row per slot already, its percentiles those of the processes'
// merged histograms (loadgen merge); rows of an earlier version's merge,
// one per process, add their rates and keep the highest percentile.
func (r *Run) timeline() map[string][]opPoint {
	iv := r.intervalSec()
	charted := r.charted()
	acc := map[string]map[int]*opPoint{}
	for _, t := range r.Timeline {
		if !charted(t.Start) {
			continue
		}
		if acc[t.Op] == nil {
			acc[t.Op] = map[int]*opPoint{}
		}
		s := slot(t.Start, iv)
		p := acc[t.Op][s]
		if p == nil {
			p = &opPoint{slot: s}
			acc[t.Op][s] = p
		}
		p.X += (t.Start + t.End) / 2
		p.interval++
		if d := t.End - t.Start; d > 0 {
			p.Rate += float64(t.Count) / d
		}
		p.Count += t.Count
		p.Errors += t.Errors
		p.P50, p.P99, p.Max = max(p.P50, t.P50), max(p.P99, t.P99), max(p.Max, t.Max)
	}
	out := map[string][]opPoint{}
	for op, bySlot := range acc {
		pts := make([]opPoint, 0, len(bySlot))
		for _, p := range bySlot {
			p.X /= float64(p.interval)
			pts = append(pts, *p)
		}
		slices.SortFunc(pts, func(a, b opPoint) int { return a.slot - b.slot })
		out[op] = thin(pts)
	}
	return out
}

// thin takes a long run's points k at a time: rates averaged, percentiles
// the highest, so a spike stays visible.
func thin(pts []opPoint) []opPoint {
	k := (len(pts) + maxPoints - 1) / maxPoints
	if k <= 1 {
		return pts
	}
	var out []opPoint
	for i := 0; i < len(pts); i += k {
		group := pts[i:min(i+k, len(pts))]
		var m opPoint
		for _, p := range group {
			m.X += p.X
			m.Rate += p.Rate
			m.Count += p.Count
			m.Errors += p.Errors
			m.P50, m.P99, m.Max = max(m.P50, p.P50), max(m.P99, p.P99), max(m.Max, p.Max)
		}
		m.X /= float64(len(group))
		m.Rate /= float64(len(group))
		m.interval = len(group)
		out = append(out, m)
	}
	return out
}

// thinned is how many intervals a point of r's charts covers.
func (r *Run) thinned() int {
	slots := map[int]bool{}
	charted := r.charted()
	for _, t := range r.Timeline {
		if charted(t.Start) {
			slots[slot(t.Start, r.intervalSec())] = true
		}
	}
	return (len(slots) + maxPoints - 1) / maxPoints
}

// partialTail is the slot of the run's last interval when the run's end
// cut it short, and its length. Its rates are the run winding down, not
// its load, and its column would be drawn as wide as a whole interval's:
// the charts leave it out; the tables, from the summary, count it. A run
// shorter than one interval keeps its only one: leaving it out would
// leave nothing to chart.
func (r *Run) partialTail() (last int, length float64, ok bool) {
	iv := r.intervalSec()
	last, short, slots := math.MinInt, false, 0
	for _, t := range r.Timeline {
		s := slot(t.Start, iv)
		if s > last {
			last, short, length = s, true, 0
			slots++
		}
		if s == last {
			short = short && t.Partial && t.End-t.Start < 0.999*iv
			length = max(length, t.End-t.Start)
		}
	}
	return last, length, short && slots > 1
}

// charted says whether the charts draw the interval starting at start:
// every one but a partial last one.
func (r *Run) charted() func(start float64) bool {
	tail, _, cut := r.partialTail()
	iv := r.intervalSec()
	return func(start float64) bool { return !cut || slot(start, iv) < tail }
}

// chartEnd is where r's time axes end: the end of the last interval
// charted, in whole slots, so lines and heatmaps share it.
func (r *Run) chartEnd() float64 {
	last := 0
	charted := r.charted()
	for _, t := range r.Timeline {
		if charted(t.Start) {
			last = max(last, slot(t.Start, r.intervalSec())+1)
		}
	}
	return float64(last) * r.intervalSec()
}

// tailNote says what the charts left out, if anything.
func (r *Run) tailNote() string {
	if _, length, cut := r.partialTail(); cut {
		return fmt.Sprintf("%s: the last interval, cut to %.3f s by the run's end, is left out of the charts (the tables count it).", r.Label, length)
	}
	return ""
}

func xy(pts []opPoint, f func(opPoint) float64, floor float64) plotter.XYs {
	out := make(plotter.XYs, 0, len(pts))
	for _, p := range pts {
		out = append(out, plotter.XY{X: p.X, Y: max(f(p), floor)})
	}
	return out
}

// totalRate sums every op's rate per slot: the run's throughput. Actions
// are left out: their ops are already counted.
func totalRate(tl map[string][]opPoint) plotter.XYs {
	bySlot := map[float64]float64{}
	for op, pts := range tl {
		if strings.HasPrefix(op, results.ActionPrefix) {
			continue
		}
		for _, p := range pts {
			bySlot[math.Round(p.X*1000)/1000] += p.Rate
		}
	}
	xs := make([]float64, 0, len(bySlot))
	for x := range bySlot {
		xs = append(xs, x)
	}
	slices.Sort(xs)
	out := make(plotter.XYs, len(xs))
	for i, x := range xs {
		out[i] = plotter.XY{X: x, Y: bySlot[x]}
	}
	return out
}

// distribution is an op's latency distribution on a log percentile axis,
// x = log10(1/(1-q)), from the summary's histogram (nearest-rank values,
// as the summary's percentiles). Its last point is the max, at the rank of
// the last value but one's percentile: the axis has no place for 100%.
func distribution(enc string) (plotter.XYs, error) {
	h, err := results.DecodeHist(enc)
	if err != nil {
		return nil, fmt.Errorf("histogram: %w", err)
	}
	n := h.TotalCount()
	if n == 0 {
		return nil, nil
	}
	hi := math.Log10(float64(n))
	step := max(hi/120, 0.02)
	var xs, ps []float64
	for x := 0.0; x < hi; x += step {
		xs = append(xs, x)
		ps = append(ps, 100*(1-math.Pow(10, -x)))
	}
	vals := results.ValuesAtPercentiles(h, ps...)
	out := make(plotter.XYs, 0, len(xs)+1)
	for i, x := range xs {
		out = append(out, plotter.XY{X: x, Y: msFloor(vals[i])})
	}
	return append(out, plotter.XY{X: hi, Y: msFloor(h.Max())}), nil
}

// msFloor is µs in ms, at least a microsecond: a log axis has no zero.
func msFloor(us int64) float64 { return max(float64(us), 1) / 1000 }

// regionRow is one region of a heatmap.
type regionRow struct {
	name  string
	start []byte
	first int // the row's order in the file, for regions with one start key
}

// heatmap builds a table's grid from regions.csv: regions in key order,
// a column per slot (thinned past maxColumns), writes per second (writes)
// or requests.
func (r *Run) heatmap(table string, writes bool) (*heatGrid, int) {
	iv := r.intervalSec()
	charted := r.charted()
	idx := map[string]int{}
	var rows []regionRow
	cells := map[[2]int]float64{}
	lo, hi := math.MaxInt, math.MinInt
	for i, rr := range r.Regions {
		if rr.Table != table || !charted(rr.Start) {
			continue
		}
		if _, ok := idx[rr.Region]; !ok {
			idx[rr.Region] = len(rows)
			rows = append(rows, regionRow{name: rr.Region, start: rr.StartKey, first: i})
		}
		s := slot(rr.Start, iv)
		lo, hi = min(lo, s), max(hi, s)
		n := rr.Writes
		if !writes {
			n += rr.Reads
		}
		if d := rr.End - rr.Start; d > 0 {
			cells[[2]int{idx[rr.Region], s}] += float64(n) / d
		}
	}
	if len(rows) == 0 {
		return nil, 0
	}
	order := slices.Clone(rows)
	slices.SortStableFunc(order, func(a, b regionRow) int {
		if c := bytes.Compare(a.start, b.start); c != 0 {
			return c
		}
		return a.first - b.first
	})
	k := (hi - lo + maxColumns) / maxColumns
	cols := (hi-lo)/k + 1
	g := &heatGrid{z: make([][]float64, len(order)), end: float64(lo+cols*k) * iv}
	for c := range cols {
		g.xs = append(g.xs, (float64(lo+c*k)+float64(k)/2)*iv)
	}
	for i, row := range order {
		g.labels = append(g.labels, startLabel(row.start))
		g.names = append(g.names, row.name)
		g.ranges = append(g.ranges, keyRange(order, i))
		g.z[i] = make([]float64, cols)
		for s := lo; s <= hi; s++ {
			g.z[i][(s-lo)/k] += cells[[2]int{idx[row.name], s}] / float64(k)
		}
		for _, v := range g.z[i] {
			g.max = max(g.max, v)
		}
	}
	return g, k
}

// startLabel names a region by its start key, cut to fit beside the map
// (keyRange has it whole).
func startLabel(k []byte) string {
	if len(k) == 0 {
		return "start"
	}
	q := keys.QuoteBytes(k)
	if len(q) > 22 {
		q = q[:21] + "…"
	}
	return q
}

// keyRange is the i-th region's name and keys in full, up to the next
// region's start.
func keyRange(order []regionRow, i int) string {
	quote := func(k []byte, none string) string {
		if len(k) == 0 {
			return none
		}
		return keys.QuoteBytes(k)
	}
	end := "end"
	if i+1 < len(order) {
		end = quote(order[i+1].start, "end")
	}
	return fmt.Sprintf("%s: [%s, %s)", order[i].name, quote(order[i].start, "start"), end)
}

// heatTables are the tables with requests in the run, in regions.csv's
// order.
func (r *Run) heatTables() []string {
	var out []string
	busy := map[string]bool{}
	for _, rr := range r.Regions {
		if !slices.Contains(out, rr.Table) {
			out = append(out, rr.Table)
		}
		if rr.Reads+rr.Writes > 0 {
			busy[rr.Table] = true
		}
	}
	return slices.DeleteFunc(out, func(t string) bool { return !busy[t] })
}
