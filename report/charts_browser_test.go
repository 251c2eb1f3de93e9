package report

import (
	"context"
	_ "embed"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// measure.js reads every chart and table of the page as laid out at 100%
// zoom: what the assertions below are made on.
//
//go:embed testdata/measure.js
var measureJS string

// rect is an element's box in CSS pixels, as the browser laid it out.
type rect struct{ L, T, R, B float64 }

func (r rect) inside(o rect, tol float64) bool {
	return r.L >= o.L-tol && r.T >= o.T-tol && r.R <= o.R+tol && r.B <= o.B+tol
}

func (r rect) holds(x, y float64) bool { return x >= r.L && x <= r.R && y >= r.T && y <= r.B }

type textBox struct {
	Text   string
	Px     float64 // the font size as drawn
	Box    rect
	Turned bool // on its side, as an axis's name
}

type chartMeasure struct {
	Title, Caption, Run string
	Framed              bool // the chart marks its plot's frame
	Frame, Box          rect // the plot's frame (else the chart's), the whole chart's
	Data                []rect
	Points              [][2]float64
	Texts               []textBox
	Legends             []rect
}

type tableMeasure struct{ Kind, Caption, Run string }

type pageMeasure struct {
	Charts   []chartMeasure
	Captions []tableMeasure
	Sections []string
}

// A run's page and two runs compared, as chromium lays them out at 100%:
// a screenshot of each section kept, and every chart checked as a reader
// would look at it.
func TestBrowserChartsReadable(t *testing.T) {
	chromiumPath(t)
	base := t.TempDir()
	seed, salted := filepath.Join(base, "seed"), filepath.Join(base, "salted")
	synthRun(t, seed, 30, "seed", 1)
	synthRun(t, salted, 30, "salted", 2)
	for _, c := range []struct {
		name string
		dirs []string
		runs []string
	}{{"report", []string{seed}, []string{"seed"}}, {"compare", []string{seed, salted}, []string{"seed", "salted"}}} {
		page := filepath.Join(base, c.name+".html")
		if err := WriteFile(page, c.dirs, false); err != nil {
			t.Fatal(err)
		}
		var m pageMeasure
		openPage(t, page, false, func(ctx context.Context) {
			m = measurePage(t, ctx, c.name)
		})
		if len(m.Charts) == 0 {
			t.Fatalf("%s: no chart measured", c.name)
		}
		for _, ch := range m.Charts {
			checkChart(t, c.name, ch)
		}
		checkCaptions(t, c.name, m, c.runs)
	}
}

// measurePage keeps a screenshot of each section and measures the page.
func measurePage(t *testing.T, ctx context.Context, name string) pageMeasure {
	t.Helper()
	m, err := chromedp.Run(ctx, chromedp.Evaluate[pageMeasure](measureJS))
	if err != nil {
		t.Fatalf("%s: measure: %v", name, err)
	}
	for _, id := range m.Sections {
		png, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.ID(id)))
		if err != nil {
			t.Fatalf("%s: screenshot of #%s: %v", name, id, err)
		}
		artifact(t, fmt.Sprintf("%s-%s.png", name, id), png)
	}
	t.Logf("%s: %d charts measured; a screenshot of each of its %d sections in .data/artifacts", name, len(m.Charts), len(m.Sections))
	return m
}

func checkChart(t *testing.T, page string, c chartMeasure) {
	t.Helper()
	where := page + ": " + c.Title
	if !c.Framed {
		t.Errorf("%s: no plot frame marked (rect.frame): what is data, and where it may be drawn, is unknown", where)
	}
	for _, d := range c.Data {
		if !d.inside(c.Frame, 1) {
			t.Errorf("%s: data drawn at %+v, outside the plot frame %+v", where, d, c.Frame)
		}
	}
	for _, x := range c.Texts {
		if x.Px < 11 {
			t.Errorf("%s: %q drawn at %.1f px, under 11", where, x.Text, x.Px)
		}
		if !x.Box.inside(c.Box, 2) { // a text's box is its line's, a little past its ink
			t.Errorf("%s: text %q cut off by the chart's edge: %+v, chart %+v", where, x.Text, x.Box, c.Box)
		}
		inner := rect{c.Frame.L + 2, c.Frame.T + 2, c.Frame.R - 2, c.Frame.B - 2}
		if x.Box.inside(inner, 0) {
			t.Errorf("%s: text %q drawn over the data", where, x.Text)
		}
	}
	for _, l := range c.Legends {
		for _, p := range c.Points {
			if l.holds(p[0], p[1]) {
				t.Errorf("%s: the legend at %+v covers a data point (%.0f, %.0f)", where, l, p[0], p[1])
				break
			}
		}
	}
	if n := len(yLabels(c)); n < 3 {
		t.Errorf("%s: %d y labels %q, want at least 3", where, n, yLabels(c))
	}
	checkTimeTicks(t, where, c)
}

// yLabels are the texts left of the frame and level with it, but for the
// axis's own name, turned on its side.
func yLabels(c chartMeasure) []string {
	var out []string
	for _, x := range c.Texts {
		mid := (x.Box.T + x.Box.B) / 2
		if x.Box.R <= c.Frame.L+1 && mid >= c.Frame.T-2 && mid <= c.Frame.B+2 && !x.Turned {
			out = append(out, x.Text)
		}
	}
	return out
}

// checkTimeTicks: a time axis is labelled in whole seconds from 0 at one
// of timeSteps.
func checkTimeTicks(t *testing.T, where string, c chartMeasure) {
	t.Helper()
	var ticks []float64
	timeAxis := false
	for _, x := range c.Texts {
		if x.Box.T < c.Frame.B-1 {
			continue
		}
		if x.Text == "seconds into the steady phase" {
			timeAxis = true
			continue
		}
		v, err := strconv.Atoi(x.Text)
		if err != nil {
			ticks = append(ticks, math.NaN())
			continue
		}
		ticks = append(ticks, float64(v))
	}
	if !timeAxis {
		return
	}
	if len(ticks) < 3 || ticks[0] != 0 {
		t.Errorf("%s: time ticks %v, want at least three from 0", where, ticks)
		return
	}
	step := ticks[1] - ticks[0]
	for i := 1; i < len(ticks); i++ {
		if ticks[i]-ticks[i-1] != step {
			t.Errorf("%s: time ticks %v, want whole seconds at one step", where, ticks)
			return
		}
	}
	if !slices.Contains(timeSteps, step) {
		t.Errorf("%s: time ticks at a step of %v, not one of %v", where, step, timeSteps)
	}
}

// checkCaptions: every table and chart names its run (the one it sits in,
// else every run of the page).
func checkCaptions(t *testing.T, page string, m pageMeasure, runs []string) {
	t.Helper()
	if len(m.Captions) == 0 {
		t.Fatalf("%s: no table or figure found", page)
	}
	for _, c := range m.Captions {
		want := runs
		if c.Run != "" {
			want = []string{c.Run}
		}
		for _, r := range want {
			if !strings.Contains(c.Caption, r) {
				t.Errorf("%s: a %s captioned %q, which does not name run %s", page, c.Kind, c.Caption, r)
			}
		}
	}
}
