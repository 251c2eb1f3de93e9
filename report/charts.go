package report

import (
	"bytes"
	"fmt"
	"html/template"
	"image/color"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// The charts are gonum/plot plots drawn to SVG and inlined into the page:
// no script, nothing fetched. Their text names Liberation Sans, whose
// metrics the plots are laid out with, and the page carries that font
// (woff.go).

// palette10 is Tableau's ten: distinct in colour and in grey, so a printed
// page still tells the lines apart, with dashes past ten.
var palette10 = []color.RGBA{
	{0x4e, 0x79, 0xa7, 0xff}, {0xf2, 0x8e, 0x2b, 0xff}, {0xe1, 0x57, 0x59, 0xff}, {0x76, 0xb7, 0xb2, 0xff},
	{0x59, 0xa1, 0x4f, 0xff}, {0xed, 0xc9, 0x48, 0xff}, {0xb0, 0x7a, 0xa1, 0xff}, {0xff, 0x9d, 0xa7, 0xff},
	{0x9c, 0x75, 0x5f, 0xff}, {0xba, 0xb0, 0xac, 0xff},
}

// seriesColor is the i-th series' colour; a negative index is black, for
// a total drawn over its parts.
func seriesColor(i int) color.RGBA {
	if i < 0 {
		return color.RGBA{0x20, 0x20, 0x20, 0xff}
	}
	return palette10[i%len(palette10)]
}

func cssColor(c color.RGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }

// series is one line of a chart.
type series struct {
	Name   string
	Index  int // colour
	Dashed bool
	XY     plotter.XYs
}

// chartSize is a chart's drawing size in points.
type chartSize struct{ W, H vg.Length }

var (
	wide  = chartSize{W: 720, H: 260}
	small = chartSize{W: 360, H: 220}
)

func newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, xLabel, yLabel
	sans := func(s *font.Font) { s.Typeface, s.Variant = "Liberation", "Sans" }
	sans(&p.Title.TextStyle.Font)
	p.Title.TextStyle.Font.Size = 11
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		sans(&a.Label.TextStyle.Font)
		sans(&a.Tick.Label.Font)
		a.Label.TextStyle.Font.Size = 9
		a.Tick.Label.Font.Size = 8
	}
	sans(&p.Legend.TextStyle.Font)
	p.Legend.TextStyle.Font.Size = 8
	p.Add(plotter.NewGrid())
	return p
}

// addLines adds each series as a line; with a legend when there are
// several (or when asked: one line named is still worth its name).
func addLines(p *plot.Plot, ss []series, legend bool) error {
	for _, s := range ss {
		if len(s.XY) == 0 {
			continue
		}
		l, err := plotter.NewLine(s.XY)
		if err != nil {
			return fmt.Errorf("line %s: %w", s.Name, err)
		}
		l.Color = seriesColor(s.Index)
		l.Width = vg.Points(1.2)
		if s.Dashed || s.Index >= len(palette10) {
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
		}
		p.Add(l)
		if legend {
			p.Legend.Add(s.Name, l)
		}
	}
	return nil
}

// render draws p into inline SVG.
func render(p *plot.Plot, size chartSize) (template.HTML, error) {
	c := vgsvg.New(size.W, size.H)
	p.Draw(draw.New(c))
	return svgHTML(c)
}

var svgProlog = regexp.MustCompile(`(?s)^<\?xml[^>]*>\s*<!--.*?-->\s*`)
var svgSize = regexp.MustCompile(`^<svg width="([0-9.]+)pt" height="([0-9.]+)pt"`)

// svgHTML is the canvas as an element for an HTML page: without the XML
// prolog, sized in CSS pixels so it scales with the page (class chart).
func svgHTML(c *vgsvg.Canvas) (template.HTML, error) {
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return "", fmt.Errorf("svg: %w", err)
	}
	s := svgProlog.ReplaceAllString(b.String(), "")
	s = svgSize.ReplaceAllString(s, `<svg class="chart" role="img" width="$1" height="$2"`)
	// vgsvg leaves an image's aspect ratio to the default, which keeps it:
	// a heatmap of 600 intervals by 8 regions would be drawn 8 rows tall
	// and squeezed to the middle of its axes. Its box is its data's.
	s = strings.ReplaceAll(s, "<image ", `<image preserveAspectRatio="none" `)
	return template.HTML(s), nil
}

// percentileTicks label a log percentile axis, where x is log10(1/(1-q)):
// 0 is 0%, 1 is 90%, 2 is 99%, as HdrHistogram's plotter draws it.
func percentileTicks(_, hi float64) []plot.Tick {
	var ts []plot.Tick
	for x := 0.0; x <= math.Ceil(hi); x++ {
		ts = append(ts, plot.Tick{Value: x, Label: percentLabel(x)})
	}
	return ts
}

func percentLabel(x float64) string {
	if x == 0 {
		return "0%"
	}
	return strconv.FormatFloat(100*(1-math.Pow(10, -x)), 'f', int(x)-2+1, 64) + "%"
}

// logY puts p's y axis on a log scale over the positive values of ss, and
// drops the others from ss's lines (a log axis has no place for them;
// gonum/plot panics on them). With no positive value at all the axis stays
// linear and logY says false.
func logY(p *plot.Plot, ss []series) bool {
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, s := range ss {
		kept := make(plotter.XYs, 0, len(s.XY))
		for _, pt := range s.XY {
			if pt.Y > 0 && !math.IsInf(pt.Y, 0) {
				kept = append(kept, pt)
				lo, hi = min(lo, pt.Y), max(hi, pt.Y)
			}
		}
		ss[i].XY = kept
	}
	if lo > hi {
		return false
	}
	if lo == hi { // gonum widens an empty range by ±1, below zero
		lo, hi = lo/2, hi*2
	}
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Y.Min, p.Y.Max = lo, hi
	return true
}

// distributionChart is one op's latency percentile distribution, a line
// per series (latency and service time, or one per run).
func distributionChart(title string, ss []series) (template.HTML, error) {
	p := newPlot(title, "percentile", "ms (log)")
	p.X.Tick.Marker = plot.TickerFunc(percentileTicks)
	logY(p, ss)
	p.Legend.Top, p.Legend.Left = true, true
	p.X.Min = 0
	if err := addLines(p, ss, true); err != nil {
		return "", err
	}
	return render(p, small)
}

// lineChart is values over the run's time.
func lineChart(title, yLabel string, logScale bool, ss []series, size chartSize, legend bool) (template.HTML, error) {
	p := newPlot(title, "seconds into the steady phase", yLabel)
	p.X.Min = 0
	if !logScale || !logY(p, ss) {
		p.Y.Min = 0
	}
	p.Legend.Top = true
	if err := addLines(p, ss, legend); err != nil {
		return "", err
	}
	return render(p, size)
}

// heatGrid is a Key Visualizer grid: time across, regions in key order
// down, requests per second in each cell.
type heatGrid struct {
	xs     []float64 // cell centres, seconds
	labels []string  // per region, top first
	names  []string  // the regions' names, as labels
	z      [][]float64
	max    float64
}

func (g *heatGrid) Dims() (c, r int) { return len(g.xs), len(g.labels) }
func (g *heatGrid) X(c int) float64  { return g.xs[c] }
func (g *heatGrid) Y(r int) float64  { return float64(r) }

// Z turns rows around: row 0 is drawn at the bottom, the first region
// belongs on top.
func (g *heatGrid) Z(c, r int) float64 { return g.z[len(g.labels)-1-r][c] }

// mark adds a note to the named region's label.
func (g *heatGrid) mark(name, note string) {
	if i := slices.Index(g.names, name); i >= 0 {
		g.labels[i] += " (" + note + ")"
	}
}

// regionTicks name the regions on the heatmap's side, thinned to about 24;
// a marked region keeps its name.
func (g *heatGrid) regionTicks(_, _ float64) []plot.Tick {
	n := len(g.labels)
	step := max(1, (n+23)/24)
	var ts []plot.Tick
	for i := range n {
		label := ""
		if i%step == 0 || strings.HasSuffix(g.labels[i], ")") {
			label = g.labels[i]
		}
		ts = append(ts, plot.Tick{Value: float64(n - 1 - i), Label: label})
	}
	return ts
}

// heatmapChart draws the grid rasterized (one pixel a cell, scaled up by
// the browser without smoothing): a 10-minute run's thousands of cells
// cost a few kilobytes of PNG rather than a path each. A colour bar on the
// right gives the scale.
func heatmapChart(title string, g *heatGrid) (template.HTML, error) {
	cm := moreland.BlackBody()
	top := max(g.max, 1)
	cm.SetMin(0)
	cm.SetMax(top)
	h := plotter.NewHeatMap(g, cm.Palette(255))
	h.Min, h.Max, h.Rasterized = 0, top, true
	p := newPlot(title, "seconds into the steady phase", "")
	p.Add(h)
	p.X.Padding, p.Y.Padding = 0, 0
	// Rows are named, not measured: labels without an axis line.
	p.Y.Tick.Marker = plot.TickerFunc(g.regionTicks)
	p.Y.Tick.Label.Font.Size = 7
	p.Y.Width, p.Y.Tick.Length = 0, vg.Points(2)

	bar := newPlot("", "", "requests/s")
	bar.HideX()
	bar.Add(&plotter.ColorBar{ColorMap: cm, Vertical: true})
	bar.X.Padding, bar.Y.Padding = 0, 0

	rows := len(g.labels)
	size := chartSize{W: wide.W, H: vg.Length(max(130, min(rows*12+80, 440)))}
	c := vgsvg.New(size.W, size.H)
	dc := draw.New(c)
	left, right := dc, dc
	left.Max.X = dc.Max.X - vg.Points(80)
	right.Min.X = left.Max.X + vg.Points(8)
	// Level with the heatmap: below its title, above its time axis.
	right.Max.Y, right.Min.Y = dc.Max.Y-vg.Points(18), dc.Min.Y+vg.Points(26)
	p.Draw(left)
	bar.Draw(right)
	return svgHTML(c)
}
