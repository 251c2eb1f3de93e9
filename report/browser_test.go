package report

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// The page in a real browser: Debian's chromium, headless, which `make
// test` installs and names in COMMENTBENCH_CHROMIUM. Without it these
// tests skip.

func chromiumPath(tb testing.TB) string {
	tb.Helper()
	p := os.Getenv("COMMENTBENCH_CHROMIUM")
	if p == "" {
		tb.Skip("COMMENTBENCH_CHROMIUM is not set (make test installs chromium and sets it)")
	}
	return p
}

// visit is what a browser made of a page.
type visit struct {
	Console  []string // messages and exceptions the page wrote
	Requests []string // what it asked for, besides itself and data: URLs
	Load     time.Duration
	PNG      []byte // the whole page, when asked
	Fonts    string // each font face the page declares: family and status
}

// openPage loads path in a fresh headless browser, with nothing on that
// reaches out by itself (no background networking, no component updates,
// no sync), and records every console message and request the page makes;
// inspect, when given, looks at the page before the browser closes.
func openPage(tb testing.TB, path string, screenshot bool, inspect func(context.Context)) visit {
	tb.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		tb.Fatal(err)
	}
	url := "file://" + abs
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(chromiumPath(tb)), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.NoFirstRun, chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(tb.TempDir()), chromedp.WindowSize(1400, 1000))
	defer cancelAlloc()
	ctx, cancelTab := chromedp.NewContext(actx)
	defer cancelTab()
	ctx, cancelTime := context.WithTimeout(ctx, 90*time.Second)
	defer cancelTime()
	if err := chromedp.Do(ctx); err != nil { // start the browser before the clock
		tb.Fatalf("start %s: %v", chromiumPath(tb), err)
	}

	var v visit
	var mu sync.Mutex
	listen, stopListening := context.WithCancel(ctx)
	var wg sync.WaitGroup
	console, requests := chromedp.Console(listen), chromedp.Events(listen, network.RequestWillBeSent)
	wg.Go(func() {
		for m, err := range console {
			if err != nil {
				return
			}
			mu.Lock()
			v.Console = append(v.Console, m.String())
			mu.Unlock()
		}
	})
	wg.Go(func() {
		for ev, err := range requests {
			if err != nil {
				return
			}
			if u := ev.Request.URL; u != url && !strings.HasPrefix(u, "data:") {
				mu.Lock()
				v.Requests = append(v.Requests, u)
				mu.Unlock()
			}
		}
	})

	start := time.Now()
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		tb.Fatalf("open %s: %v", url, err)
	}
	// Loaded and painted: a capture of the window waits for its paint.
	if _, err := chromedp.Run(ctx, chromedp.CaptureScreenshot()); err != nil {
		tb.Fatalf("screenshot: %v", err)
	}
	v.Load = time.Since(start)
	if v.Fonts, err = chromedp.Run(ctx, chromedp.Evaluate[string](
		`[...document.fonts].map(f => f.family + " " + f.status).join(", ")`)); err != nil {
		tb.Fatalf("fonts: %v", err)
	}
	if screenshot { // the whole page, untimed: encoding it is the test's cost, not the page's
		if v.PNG, err = chromedp.Run(ctx, chromedp.FullScreenshot(100)); err != nil {
			tb.Fatalf("screenshot: %v", err)
		}
	}
	if inspect != nil {
		inspect(ctx)
	}
	time.Sleep(200 * time.Millisecond) // late messages, if any
	stopListening()
	wg.Wait()
	return v
}

// artifact keeps a test's file where CI keeps artifacts: .data/artifacts
// at the module's root.
func artifact(tb testing.TB, name string, b []byte) string {
	tb.Helper()
	dir, err := filepath.Abs(filepath.Join("..", ".data", "artifacts"))
	if err == nil {
		err = os.MkdirAll(dir, 0o755)
	}
	path := filepath.Join(dir, name)
	if err == nil {
		err = os.WriteFile(path, b, 0o644)
	}
	if err != nil {
		tb.Fatalf("keep %s: %v", name, err)
	}
	return path
}

// A 10-minute run's page, and three such runs compared, render in chromium
// with no console message and no request; the screenshots are kept, and
// the time to paint each is logged.
func TestBrowserRendersReport(t *testing.T) {
	chromiumPath(t)
	base := t.TempDir()
	dirs := tenMinuteRuns(t, base)
	for _, c := range []struct {
		name string
		dirs []string
	}{{"report-10min.png", dirs[:1]}, {"compare-10min.png", dirs}} {
		page := filepath.Join(base, strings.TrimSuffix(c.name, ".png")+".html")
		if err := WriteFile(page, c.dirs, false); err != nil {
			t.Fatal(err)
		}
		v := openPage(t, page, true, nil)
		for _, m := range v.Console {
			t.Errorf("%s: console: %s", c.name, m)
		}
		for _, r := range v.Requests {
			t.Errorf("%s: the page requested %s", c.name, r)
		}
		// The page's own font, decoded from the page: no font from the
		// machine stands in for it.
		if v.Fonts != "Liberation Sans loaded" {
			t.Errorf("%s: font faces %q, want the embedded Liberation Sans loaded", c.name, v.Fonts)
		}
		// How long it took is logged, not asserted: beside the other
		// tests of make test, a 1.2 s paint took 2.1 s.
		t.Logf("%s: loaded and painted in %v; screenshot %s", c.name, v.Load.Round(time.Millisecond), artifact(t, c.name, v.PNG))
	}
}

// tenMinuteRuns synthesizes one 10-minute run and two more like it with
// other designs' names (the copies cost nothing to make; their figures are
// the first run's).
func tenMinuteRuns(tb testing.TB, base string) []string {
	tb.Helper()
	first := filepath.Join(base, "seed")
	synthRun(tb, first, tenMinutes, "seed", 1)
	dirs := []string{first}
	for _, l := range []string{"unique", "salted"} {
		d := filepath.Join(base, l)
		if err := os.CopyFS(d, os.DirFS(first)); err != nil {
			tb.Fatal(err)
		}
		relabel(tb, d, l)
		dirs = append(dirs, d)
	}
	return dirs
}

// BenchmarkBrowserRender10Min is the time from navigation to the painted
// page of a 10-minute run in headless chromium, the browser started
// before the clock.
func BenchmarkBrowserRender10Min(b *testing.B) {
	chromiumPath(b)
	base := b.TempDir()
	dirs := tenMinuteRuns(b, base)
	for _, c := range []struct {
		name string
		dirs []string
	}{{"one", dirs[:1]}, {"compare3", dirs}} {
		b.Run(c.name, func(b *testing.B) {
			page := filepath.Join(base, c.name+".html")
			if err := WriteFile(page, c.dirs, false); err != nil {
				b.Fatal(err)
			}
			fi, err := os.Stat(page)
			if err != nil {
				b.Fatal(err)
			}
			var total time.Duration
			n := 0
			for b.Loop() {
				total += openPage(b, page, false, nil).Load
				n++
			}
			b.ReportMetric(float64(total.Milliseconds())/float64(n), "ms/render")
			b.ReportMetric(float64(fi.Size()), "page-bytes")
		})
	}
}
