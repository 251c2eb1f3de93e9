package report

import (
	"bytes"
	"fmt"
	"html"
	"html/template"
	"image"
	"image/color"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/palette"
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

// chartSize is a chart's drawing size in points, which the page shows as
// as many CSS pixels.
type chartSize struct{ W, H vg.Length }

var (
	wide  = chartSize{W: 720, H: 280}
	small = chartSize{W: 400, H: 250}
)

// Text sizes in points: at the page's 1:1 scale a label is as many pixels,
// readable at 100% zoom.
const (
	titleSize = 13
	labelSize = 12
)

func newPlot(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, xLabel, yLabel
	sans := func(s *font.Font) { s.Typeface, s.Variant = "Liberation", "Sans" }
	sans(&p.Title.TextStyle.Font)
	p.Title.TextStyle.Font.Size = titleSize
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		sans(&a.Label.TextStyle.Font)
		sans(&a.Tick.Label.Font)
		a.Label.TextStyle.Font.Size = labelSize
		a.Tick.Label.Font.Size = labelSize
	}
	p.Y.Tick.Marker = threeTicks{plot.DefaultTicks{}, false}
	p.Add(plotter.NewGrid())
	return p
}

// chart is a plot whose data are kept apart from its frame (title, axes,
// grid), to be drawn in a group of their own: the page can then be checked
// for data drawn outside the axes.
type chart struct {
	*plot.Plot
	data []plot.Plotter
}

// add extends the axes over ps's data, as plot.Add does.
func (c *chart) add(ps ...plot.Plotter) {
	for _, d := range ps {
		if r, ok := d.(plot.DataRanger); ok {
			x0, x1, y0, y1 := r.DataRange()
			c.X.Min, c.X.Max = math.Min(c.X.Min, x0), math.Max(c.X.Max, x1)
			c.Y.Min, c.Y.Max = math.Min(c.Y.Min, y0), math.Max(c.Y.Max, y1)
		}
	}
	c.data = append(c.data, ps...)
}

// addLines adds each series as a line. Their names go in the page's
// legend beside the chart, never over the data.
func (c *chart) addLines(ss []series) error {
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
		if dashed(s) {
			l.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
		}
		c.add(l)
	}
	return nil
}

func dashed(s series) bool { return s.Dashed || s.Index >= len(palette10) }

// layers is a chart being drawn: the frame on one canvas, the data on
// another of the same size, joined into one SVG by svgHTML.
type layers struct {
	size        chartSize
	frame, data *vgsvg.Canvas
	box         vg.Rectangle // where the data may be drawn
	keys        string       // SVG drawn over the rest: hover titles
}

func newLayers(size chartSize) *layers {
	return &layers{size: size, frame: vgsvg.New(size.W, size.H), data: vgsvg.New(size.W, size.H)}
}

// canvas is the whole drawing area of the frame's canvas.
func (l *layers) canvas() draw.Canvas { return draw.New(l.frame) }

// draw draws c in area of the frame's canvas, and its data at the same
// place on the data canvas; box is where they belong.
func (l *layers) draw(c *chart, area draw.Canvas) {
	c.Draw(area)
	dc := c.DataCanvas(area)
	dc.Canvas = palettedImages{l.data}
	for _, d := range c.data {
		d.Plot(dc, c.Plot)
	}
	l.box = dc.Rectangle
}

// palettedImages hands on images (a heatmap's cells, of a palette of 255
// colours) as paletted: PNG keeps them in a byte a pixel rather than four,
// which matters when a page holds two heatmaps per table and run.
type palettedImages struct{ vg.Canvas }

func (c palettedImages) DrawImage(r vg.Rectangle, img image.Image) {
	c.Canvas.DrawImage(r, paletted(img))
}

// paletted is img with a palette of its colours, or img itself when it
// has more than a palette holds.
func paletted(img image.Image) image.Image {
	b := img.Bounds()
	index := map[color.Color]uint8{}
	var pal color.Palette
	out := image.NewPaletted(b, nil)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := img.At(x, y)
			i, ok := index[c]
			if !ok {
				if len(pal) == 256 {
					return img
				}
				i = uint8(len(pal))
				index[c], pal = i, append(pal, c)
			}
			out.SetColorIndex(x, y, i)
		}
	}
	out.Palette = pal
	return out
}

// render draws c alone.
func render(c *chart, size chartSize) (template.HTML, error) {
	l := newLayers(size)
	l.draw(c, l.canvas())
	return l.svgHTML()
}

var svgOpen = regexp.MustCompile(`(?s)^.*?<svg[^>]*>\s*`)

// body is a canvas's drawing without the document around it.
func body(c *vgsvg.Canvas) (string, error) {
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return "", fmt.Errorf("svg: %w", err)
	}
	s := svgOpen.ReplaceAllString(b.String(), "")
	return strings.TrimSuffix(strings.TrimSpace(s), "</svg>"), nil
}

// svgHTML joins the layers into an element for an HTML page, sized in CSS
// pixels so it scales with the page (class chart): the frame, the data in
// g.data, and the box they must stay in as rect.frame (undrawn), which is
// what the browser test measures against.
func (l *layers) svgHTML() (template.HTML, error) {
	frame, err := body(l.frame)
	if err != nil {
		return "", err
	}
	data, err := body(l.data)
	if err != nil {
		return "", err
	}
	w, h := l.size.W.Points(), l.size.H.Points()
	b := l.box
	s := fmt.Sprintf(`<svg class="chart" role="img" width="%g" height="%g" viewBox="0 0 %g %g" xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">
%s<g class="data">%s</g>
<rect class="frame" x="%.2f" y="%.2f" width="%.2f" height="%.2f" fill="none" stroke="none"/>%s</svg>`,
		w, h, w, h, frame, data, b.Min.X.Points(), h-b.Max.Y.Points(), b.Size().X.Points(), b.Size().Y.Points(), l.keys)
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

// timeSteps are the steps a time axis is labelled at, in seconds.
var timeSteps = []float64{1, 2, 5, 10, 15, 20, 30, 60, 120, 300, 600, 900, 1200, 1800, 3600, 7200}

// timeTicks is every chart's time axis: whole seconds from 0 at the first
// step that labels at most eight, written alike.
func timeTicks(lo, hi float64) []plot.Tick {
	step := timeSteps[len(timeSteps)-1]
	for _, s := range timeSteps {
		if (hi-lo)/s <= 8 {
			step = s
			break
		}
	}
	var ts []plot.Tick
	for x := math.Ceil(lo/step) * step; x <= hi+1e-9; x += step {
		ts = append(ts, plot.Tick{Value: x, Label: strconv.FormatFloat(x, 'f', 0, 64)})
	}
	return ts
}

// timeAxis puts p's x axis on the run's time, 0 to end.
func timeAxis(p *plot.Plot, end float64) {
	p.X.Label.Text = "seconds into the steady phase"
	p.X.Min, p.X.Max = 0, end
	p.X.Tick.Marker = plot.TickerFunc(timeTicks)
}

// threeTicks are a y axis's ticks with at least three labelled within its
// range: t's, or where t labels fewer (a log axis within one decade), three
// values spread over the range (evenly in log on a log axis), rounded to
// two significant digits inward.
type threeTicks struct {
	t   plot.Ticker
	log bool
}

func (m threeTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := m.t.Ticks(lo, hi)
	n := 0
	for _, t := range ts {
		if t.Label != "" && t.Value >= lo && t.Value <= hi {
			n++
		}
	}
	if n >= 3 {
		return ts
	}
	out := make([]plot.Tick, 3)
	for i, f := range []float64{0, 0.5, 1} {
		v := lo + f*(hi-lo)
		if m.log {
			v = lo * math.Pow(hi/lo, f)
		}
		v, label := sig2(v, 1-i)
		out[i] = plot.Tick{Value: v, Label: label}
	}
	return out
}

// sig2 rounds v to two significant digits, up (dir 1), down (-1) or to
// the nearest (0), and writes it.
func sig2(v float64, dir int) (float64, string) {
	if v == 0 {
		return 0, "0"
	}
	e := int(math.Floor(math.Log10(math.Abs(v)))) - 1
	unit := math.Pow(10, float64(e))
	round := map[int]func(float64) float64{-1: math.Floor, 0: math.Round, 1: math.Ceil}[dir]
	v = round(v/unit) * unit
	return v, strconv.FormatFloat(v, 'f', max(0, -e), 64)
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
	p.Y.Tick.Marker = threeTicks{plot.LogTicks{Prec: -1}, true}
	p.Y.Min, p.Y.Max = lo, hi
	return true
}

// distributionChart is one op's latency percentile distribution, a line
// per series (latency and service time, or one per run).
func distributionChart(title string, ss []series) (template.HTML, error) {
	c := &chart{Plot: newPlot(title, "percentile", "ms (log)")}
	c.X.Tick.Marker = plot.TickerFunc(percentileTicks)
	logY(c.Plot, ss)
	c.X.Min = 0
	if err := c.addLines(ss); err != nil {
		return "", err
	}
	return render(c, small)
}

// lineChart is values over the run's time, 0 to end seconds.
func lineChart(title, yLabel string, logScale bool, ss []series, size chartSize, end float64) (template.HTML, error) {
	c := &chart{Plot: newPlot(title, "", yLabel)}
	if !logScale || !logY(c.Plot, ss) {
		c.Y.Min = 0
	}
	if err := c.addLines(ss); err != nil {
		return "", err
	}
	timeAxis(c.Plot, end)
	return render(c, size)
}

// heatGrid is a Key Visualizer grid: time across, regions in key order
// down, a rate per second in each cell.
type heatGrid struct {
	xs     []float64 // cell centres, seconds
	end    float64   // the right edge of the last cell, seconds
	labels []string  // per region, top first
	names  []string  // the regions' names, as labels
	ranges []string  // per region, its key range in full
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

// regionTicks name every step-th region on the heatmap's side; a marked
// region keeps its name.
func (g *heatGrid) regionTicks(step int) plot.Ticker {
	return plot.TickerFunc(func(_, _ float64) []plot.Tick {
		n := len(g.labels)
		var ts []plot.Tick
		for i := range n {
			label := ""
			if i%step == 0 || strings.HasSuffix(g.labels[i], ")") {
				label = g.labels[i]
			}
			ts = append(ts, plot.Tick{Value: float64(n - 1 - i), Label: label})
		}
		return ts
	})
}

// heatChrome is the height of a heatmap's title and time axis, in points.
const heatChrome = 90

// heatSize is a heatmap's: two side by side fit the page's width unscaled,
// and a row is tall enough for its label, up to a height that still fits
// a screen.
func heatSize(rows int) chartSize {
	return chartSize{W: 640, H: vg.Length(max(170, min(rows*16+heatChrome, 520)))}
}

// heatmapChart draws the grid rasterized (one pixel a cell, scaled up by
// the browser without smoothing): a 10-minute run's thousands of cells
// cost a few kilobytes of PNG rather than a path each. A colour bar on the
// right gives the scale (unit); each row's full key range is its hover
// title.
func heatmapChart(title, unit string, g *heatGrid) (template.HTML, error) {
	cm := moreland.BlackBody()
	top := max(g.max, 1)
	cm.SetMin(0)
	cm.SetMax(top)
	h := plotter.NewHeatMap(g, cm.Palette(255))
	h.Min, h.Max, h.Rasterized = 0, top, true
	c := &chart{Plot: newPlot(title, "", "")}
	c.add(h)
	timeAxis(c.Plot, g.end)
	c.X.Padding, c.Y.Padding = 0, 0

	size := heatSize(len(g.labels))
	rowH := float64(size.H-heatChrome) / float64(len(g.labels))
	// Rows are named, not measured: labels without an axis line, as many
	// as fit without touching.
	c.Y.Tick.Marker = g.regionTicks(max(1, int(math.Ceil(float64(labelSize+3)/rowH))))
	c.Y.Width, c.Y.Tick.Length = 0, vg.Points(2)

	l := newLayers(size)
	dc := l.canvas()
	left, right := dc, dc
	left.Max.X = dc.Max.X - vg.Points(90)
	right.Min.X = left.Max.X + vg.Points(8)
	l.draw(c, left)
	// Level with the heatmap's data.
	right.Max.Y, right.Min.Y = l.box.Max.Y, l.box.Min.Y
	colourBar(cm, unit).Draw(right)
	l.keys = g.hoverTitles(l.box, size)
	return l.svgHTML()
}

// colourBar is a heatmap's scale: a key, drawn with the frame.
func colourBar(cm palette.ColorMap, unit string) *plot.Plot {
	bar := newPlot("", "", unit)
	bar.HideX()
	bar.Add(&plotter.ColorBar{ColorMap: cm, Vertical: true})
	bar.X.Padding, bar.Y.Padding = 0, 0
	return bar
}

// hoverTitles lay a transparent band over each row and its label, titled
// with the region's full key range: a browser shows it on hover.
func (g *heatGrid) hoverTitles(box vg.Rectangle, size chartSize) string {
	n := len(g.labels)
	rowH := box.Size().Y.Points() / float64(n)
	var b strings.Builder
	b.WriteString(`<g class="keys">`)
	for i, r := range g.ranges {
		y := size.H.Points() - box.Max.Y.Points() + float64(i)*rowH
		fmt.Fprintf(&b, `<rect x="0" y="%.2f" width="%.2f" height="%.2f" fill="transparent"><title>%s</title></rect>`,
			y, box.Max.X.Points(), rowH, html.EscapeString(r))
	}
	b.WriteString(`</g>`)
	return b.String()
}
