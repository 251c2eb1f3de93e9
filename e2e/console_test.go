package e2e

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"commentbench/results"
)

// The console tells the finding: for the seed with its scans, unique, and a
// hot product, each table's hottest region (key range and share) is
// printed as summary.json has it, and the verdict block lists summary.json's
// findings in the same order. Piped, it has no colour; --color always has.
func TestConsoleTellsTheFinding(t *testing.T) {
	runs := []struct {
		name string
		args []string
	}{
		{"seed-scans", []string{"--preset", "ci", "--layout", "seed", "--scan", "seed"}},
		{"unique", []string{"--preset", "ci", "--layout", "unique"}},
		{"hot-product", []string{"--scenario", filepath.Join("testdata", "hot-product.yaml"), "--layout", "unique", "--color", "always"}},
	}
	for _, r := range runs {
		dir := t.TempDir()
		args := append(r.args, "--quiet", "--data-dir", filepath.Join(dir, "data"), "--out", filepath.Join(dir, "out"))
		out, errOut, code := run(t, "loadgen", args...)
		if code != 0 {
			t.Fatalf("%s: exit %d\n%s", r.name, code, errOut)
		}
		sum, err := results.ReadSummary(filepath.Join(dir, "out"))
		if err != nil {
			t.Fatal(err)
		}
		colored := strings.Contains(out, "\x1b[")
		if want := r.name == "hot-product"; colored != want {
			t.Errorf("%s: escape codes %v, want %v", r.name, colored, want)
		}
		plain := stripColor(out)
		for _, ts := range sum.Spread {
			if ts.Requests == 0 || len(ts.Hottest) == 0 {
				continue
			}
			h := ts.Hottest[0]
			want := fmt.Sprintf("  hottest region %s on %s: %.0f%% of requests", h.Range, h.Server, 100*h.Share)
			if !strings.Contains(plain, want) {
				t.Errorf("%s: %s: console lacks %q", r.name, ts.Table, want)
			}
		}
		block := plain[strings.LastIndex(plain, "verdict"):]
		var at int
		for _, f := range sum.Verdict {
			i := strings.Index(block[at:], strings.ToUpper(f.Severity)+" "+firstWords(f.Message, 4))
			if i < 0 {
				t.Errorf("%s: verdict finding %q not in the console after position %d:\n%s", r.name, f.Message, at, block)
				break
			}
			at += i + 1
		}
		switch r.name {
		case "seed-scans":
			if len(sum.Verdict) < 3 || sum.Verdict[0].Kind != "lost" || sum.Verdict[1].Kind != "scan" {
				t.Errorf("seed-scans verdict: %+v, want lost, then scan", sum.Verdict)
			}
		case "unique":
			if len(sum.Verdict) != 0 || !strings.Contains(plain, "verdict: nothing wrong found") {
				t.Errorf("unique verdict: %+v", sum.Verdict)
			}
		case "hot-product":
			if len(sum.Verdict) == 0 || sum.Verdict[0].Kind != "hotspot" || !strings.Contains(sum.Verdict[0].Message, "product-comment") {
				t.Errorf("hot-product verdict: %+v, want the product listing's hotspot first", sum.Verdict)
			}
		}
	}
}

func stripColor(s string) string {
	for _, c := range []string{"\x1b[31m", "\x1b[33m", "\x1b[36m", "\x1b[0m"} {
		s = strings.ReplaceAll(s, c, "")
	}
	return s
}

func firstWords(s string, n int) string {
	f := strings.Fields(s)
	return strings.Join(f[:min(n, len(f))], " ")
}
