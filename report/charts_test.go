package report

import (
	"bytes"
	"encoding/base64"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"gonum.org/v1/plot"

	"commentbench/results"
)

// scaleReads multiplies every region's reads in a run's regions.csv: a
// read-heavy load, whose reads drown the writes in a map of all requests.
func scaleReads(t *testing.T, dir string, k int) {
	t.Helper()
	path := filepath.Join(dir, RegionsFile)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	col := strings.Index(lines[0], "reads")
	col = strings.Count(lines[0][:col], ",")
	for i, l := range lines[1:] {
		f := strings.Split(l, ",")
		at := len(f) - (strings.Count(lines[0], ",") + 1) + col // region names hold commas; count from the end
		n, err := strconv.Atoi(f[at])
		if err != nil {
			t.Fatalf("%s row %d: reads %q: %v", path, i+2, f[at], err)
		}
		f[at] = strconv.Itoa(n * k)
		lines[i+1] = strings.Join(f, ",")
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// rowBrightness is each row's mean brightness in the heatmap's image, top
// row first: a cell is a pixel.
func rowBrightness(t *testing.T, svg *html.Node) []float64 {
	t.Helper()
	img := findOne(findOne(svg, has("class", "data")), tag("image"))
	if img == nil {
		t.Fatal("no heatmap image")
	}
	_, data, _ := strings.Cut(attr(img, "href"), "base64,") // xlink:href, its namespace apart
	raw, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		t.Fatal(err)
	}
	m, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	bounds := m.Bounds()
	var out []float64
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		sum := 0.0
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			r, g, b, _ := m.At(x, y).RGBA()
			sum += float64(r + g + b)
		}
		out = append(out, sum/float64(bounds.Dx()))
	}
	return out
}

// A write hotspot is a band whatever the reads: the product listing's
// region that takes 40-odd % of the writes of a read-heavy run is the
// brightest row of its writes map, far above the next, though its map of
// all requests hardly shows it.
func TestWriteHotspotIsABand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "seed")
	synthRun(t, dir, 20, "seed", 1)
	scaleReads(t, dir, 20)
	sum, err := results.ReadSummary(dir)
	if err != nil {
		t.Fatal(err)
	}
	hot := tableSpread(sum.Spread, "product-comment").HottestWrites
	page, _ := renderPage(t, dir)
	h := findOne(page, and(has("class", "heatmap"), has("data-table", "product-comment")))
	if h == nil {
		t.Fatal("no product-comment heatmap")
	}
	writes := findOne(h, and(tag("figure"), has("data-kind", "writes")))
	if writes == nil {
		t.Fatal("no writes heatmap of product-comment: the write hotspot has no map of its own")
	}
	rows := rowBrightness(t, writes)
	const hotRow = 1 // "GaA", the synthetic run's hot product's region
	for i, v := range rows {
		if i != hotRow && v*1.5 > rows[hotRow] {
			t.Errorf("writes map: row %d (%.0f) near the hot region's row (%.0f): no band", i, v, rows[hotRow])
		}
	}
	if !strings.Contains(text(writes), hot.Range) && !strings.Contains(text(h), hot.Range) {
		t.Errorf("the hottest writes region %s is not named by its heatmap", hot.Range)
	}
	requests := findOne(h, and(tag("figure"), has("data-kind", "requests")))
	if requests == nil {
		t.Fatal("no requests heatmap beside the writes one")
	}
	if all := rowBrightness(t, requests); all[hotRow] > 1.5*all[0] {
		t.Errorf("requests map: the hot row %.0f against %.0f: the reads no longer drown it, and this test shows nothing", all[hotRow], all[0])
	}
}

// A heatmap's row labels are drawn at 11 px or more, and each row's
// region has its full keys in a hover title.
func TestHeatmapLabelsReadable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "seed")
	synthRun(t, dir, 5, "seed", 1)
	r, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	regions := map[string][]string{}
	for _, rr := range r.Regions {
		if !slices.Contains(regions[rr.Table], rr.Region) {
			regions[rr.Table] = append(regions[rr.Table], rr.Region)
		}
	}
	page, _ := renderPage(t, dir)
	for _, h := range findAll(page, has("class", "heatmap")) {
		table := attr(h, "data-table")
		for _, svg := range findAll(h, tag("svg")) {
			for _, tx := range findAll(svg, tag("text")) {
				if px := fontPx(t, attr(tx, "style")); px < 11 {
					t.Errorf("%s heatmap: %q at %v px, under 11", table, text(tx), px)
				}
			}
			var titles []string
			for _, ti := range findAll(svg, tag("title")) {
				titles = append(titles, text(ti))
			}
			for _, name := range regions[table] {
				if !slices.ContainsFunc(titles, func(s string) bool { return strings.HasPrefix(s, name+": [") }) {
					t.Errorf("%s heatmap: no hover title with %s's keys in full among %q", table, name, titles)
				}
			}
		}
	}
	long := []byte("product-comment|p0000000000000000000000000001")
	if got := startLabel(long); len(got) > 24 || !strings.HasSuffix(got, "…") {
		t.Errorf("label %q: want it cut to fit beside the map", got)
	}
	if got := keyRange([]regionRow{{name: "r1", start: long}}, 0); got != `r1: ["product-comment|p0000000000000000000000000001", end)` {
		t.Errorf("hover title %q: want the key in full", got)
	}
}

func fontPx(t *testing.T, style string) float64 {
	t.Helper()
	_, rest, ok := strings.Cut(style, "font-size:")
	if !ok {
		t.Fatalf("no font size in %q", style)
	}
	v, err := strconv.ParseFloat(strings.TrimSuffix(strings.Fields(strings.ReplaceAll(rest, ";", " "))[0], "px"), 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Every y axis has three labels at least, on a log axis within a decade
// too; a time axis is whole seconds from 0 at one of timeSteps.
func TestTicks(t *testing.T) {
	for _, c := range []struct {
		t      plot.Ticker
		lo, hi float64
	}{{threeTicks{plot.LogTicks{Prec: -1}, true}, 50, 240}, {threeTicks{plot.LogTicks{Prec: -1}, true}, 0.0021, 0.0093},
		{threeTicks{plot.DefaultTicks{}, false}, 0, 1}, {threeTicks{plot.DefaultTicks{}, false}, 0.5, 0.52}} {
		var labels []string
		for _, tk := range c.t.Ticks(c.lo, c.hi) {
			if tk.Label != "" && tk.Value >= c.lo && tk.Value <= c.hi {
				labels = append(labels, tk.Label)
			}
		}
		if len(labels) < 3 {
			t.Errorf("%v..%v: labels %q, want three at least", c.lo, c.hi, labels)
		}
	}
	for _, c := range []struct {
		hi   float64
		want string
	}{{19, "0 5 10 15"}, {29, "0 5 10 15 20 25"}, {599, "0 120 240 360 480"}, {3, "0 1 2 3"}} {
		var got []string
		for _, tk := range timeTicks(0, c.hi) {
			got = append(got, tk.Label)
		}
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("time axis to %v s: %q, want %q", c.hi, g, c.want)
		}
	}
}

// The lint findings every compared design has are said once, above the
// designs, and no design repeats them.
func TestSharedLintSaidOnce(t *testing.T) {
	base := t.TempDir()
	a, b := filepath.Join(base, "seed"), filepath.Join(base, "salted")
	synthRun(t, a, 3, "seed", 1)
	synthRun(t, b, 3, "salted", 2)
	runs, err := LoadAll([]string{a, b}, false)
	if err != nil {
		t.Fatal(err)
	}
	var shared []string
	for _, f := range runs[0].Lint.Findings {
		for _, g := range runs[1].Lint.Findings {
			if f == g {
				shared = append(shared, f.Table+" ("+f.Kind+"): "+f.Message) // as the page writes it
			}
		}
	}
	if len(shared) == 0 {
		t.Fatal("the two designs share no lint finding: nothing to test")
	}
	page, _ := renderPage(t, a, b)
	lint := text(byID(page, "lint"))
	for _, m := range shared {
		if n := strings.Count(lint, m); n != 1 {
			t.Errorf("shared finding %q said %d times, want once", m, n)
		}
	}
	if findOne(byID(page, "lint"), has("class", "lint-shared")) == nil {
		t.Error("no list of the findings every design has")
	}
}
