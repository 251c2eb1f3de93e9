package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"commentbench/results"
	"commentbench/spread"
)

func tableSpread(t *testing.T, s results.Summary, table string) spread.TableSpread {
	t.Helper()
	for _, ts := range s.Spread {
		if ts.Table == table {
			return ts
		}
	}
	t.Fatalf("no spread for %s", table)
	return spread.TableSpread{}
}

// loadgenScenario runs a scenario file into dir/data and dir/out.
func loadgenScenario(t *testing.T, dir, layout, scenario string) results.Summary {
	t.Helper()
	args := []string{"--scenario", scenario, "--layout", layout, "--quiet",
		"--data-dir", filepath.Join(dir, "data"), "--out", filepath.Join(dir, "out")}
	out, errOut, code := run(t, "loadgen", args...)
	if code != 0 {
		t.Fatalf("loadgen %v: exit %d\n%s%s", args, code, out, errOut)
	}
	sum, err := results.ReadSummary(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

func listing(t *testing.T, s results.Summary, op string) *results.ListingCost {
	t.Helper()
	for _, o := range s.Ops {
		if o.Op == op && o.Listing != nil {
			return o.Listing
		}
	}
	t.Fatalf("no listing cost for %s", op)
	return nil
}

// A hot product takes most writes: on the seed's keys its comments all land
// in one product-comment region; salting with 8 buckets spreads them, at
// the price of 8 scans per listing page, and verify finds nothing wrong.
func TestDesignSaltCuresHotProduct(t *testing.T) {
	scenario := filepath.Join("testdata", "hot-product.yaml")
	shares := map[string]float64{}
	for _, layout := range []string{"seed", "salted"} {
		dir := t.TempDir()
		sum := loadgenScenario(t, dir, layout, scenario)
		pc := tableSpread(t, sum, "product-comment")
		if pc.HottestWrites == nil {
			t.Fatalf("%s: no writes to product-comment", layout)
		}
		shares[layout] = pc.HottestWrites.Share
		scans := listing(t, sum, "product-latest").ScansPerPage
		want := map[string]float64{"seed": 1, "salted": 8}[layout]
		if scans != want {
			t.Errorf("%s: %.2f scans per product-latest page, want %.0f", layout, scans, want)
		}
		if layout == "salted" {
			if _, _, code := run(t, "verify", "--data-dir", filepath.Join(dir, "data"), "--run", filepath.Join(dir, "out"), "--quiet"); code != 0 {
				t.Errorf("verify on salted: exit %d, want 0", code)
			}
		}
	}
	if shares["seed"] < 0.5 || shares["salted"] > 0.25 {
		t.Errorf("hottest product-comment region's share of writes: seed %.2f (want >= 0.5), salted %.2f (want <= 0.25)",
			shares["seed"], shares["salted"])
	}
}

// Sequential ids put every new order and comment at the end of the key
// space: on the seed's keys one region takes them; hashed spreads them.
func TestDesignHashCuresSequentialIDs(t *testing.T) {
	for _, layout := range []string{"seed", "hashed"} {
		sum := loadgenCI(t, t.TempDir(), layout, "--ids", "sequential", "--regions", "8")
		checked := 0
		for _, table := range []string{"user", "seller", "product", "order", "comment"} {
			ts := tableSpread(t, sum, table)
			if ts.Requests == 0 {
				continue
			}
			checked++
			share := ts.Hottest[0].Share
			switch {
			case layout == "seed" && share < 0.5:
				t.Errorf("seed %s: hottest region %.2f of requests, want >= 0.5 with sequential ids", table, share)
			case layout == "hashed" && share > 2.0/8:
				t.Errorf("hashed %s: hottest region %.2f of requests, want <= 2/8", table, share)
			}
		}
		if checked < 2 {
			t.Errorf("%s: only %d entity tables had requests", layout, checked)
		}
	}
}

// A design written as a user writes one, shipped under layouts/: loadgen
// then verify, clean, on the embedded backend.
func TestUserDesignEmbedded(t *testing.T) {
	dir := t.TempDir()
	loadgenCI(t, dir, userDesign(t))
	out, errOut, code := run(t, "verify", "--data-dir", filepath.Join(dir, "data"), "--run", filepath.Join(dir, "out"))
	if code != 0 || !strings.Contains(out, "layout product-hash") {
		t.Fatalf("verify: exit %d\n%s%s", code, out, errOut)
	}
}

func userDesign(t *testing.T) string {
	p, err := filepath.Abs(filepath.Join("..", "layouts", "product-hash.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// lint tells the seed's collisions (exit 1) and the time-led hotspot, and
// no collision on the cures; --print gives the file back.
func TestLint(t *testing.T) {
	out, _, code := run(t, "loadgen", "lint", "--layout", "seed")
	if code != 1 || strings.Count(out, "RISK") != 2 || !strings.Contains(out, "one millisecond with equal byte length") {
		t.Errorf("lint seed: exit %d, want 1 and two collision risks\n%s", code, out)
	}
	for _, layout := range []string{"unique", "salted", "hashed", "time-led", userDesign(t)} {
		out, _, code := run(t, "loadgen", "lint", "--layout", layout)
		if code != 0 || strings.Contains(out, "RISK") {
			t.Errorf("lint %s: exit %d, want 0 and no risk\n%s", layout, code, out)
		}
	}
	out, _, _ = run(t, "loadgen", "lint", "--layout", "time-led")
	if !strings.Contains(out, "HOT product-comment (monotonic): leads with ts") {
		t.Errorf("lint time-led: no hotspot finding\n%s", out)
	}
	out, _, code = run(t, "loadgen", "lint", "--layout", "salted", "--print")
	file, err := os.ReadFile(filepath.Join("..", "keys", "designs", "salted.yaml"))
	if err != nil || code != 0 || out != string(file) {
		t.Errorf("lint --print salted: exit %d, output is not the file (%v)", code, err)
	}
	out, _, code = run(t, "loadgen", "lint", "--layout", "salted", "--json")
	if code != 0 || !strings.Contains(out, `"kind": "scatter-gather"`) {
		t.Errorf("lint --json salted: exit %d\n%s", code, out)
	}
}

// A bad design file is refused with exit 2 before anything is created,
// naming the file, the line, the table and the part.
func TestBadDesignRefused(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	src, err := os.ReadFile(userDesign(t))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(src), "key: hash(productId,2) productId revTs orderId", "key: hash(productId,2) productld revTs orderId", 1)
	if err := os.WriteFile(bad, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	line := 1 + strings.Count(text[:strings.Index(text, "productld")], "\n")
	data := filepath.Join(dir, "data")
	for _, args := range [][]string{
		{"loadgen", "--preset", "ci", "--layout", bad, "--data-dir", data, "--out", filepath.Join(dir, "out")},
		{"loadgen", "lint", "--layout", bad},
	} {
		_, errOut, code := run(t, args[0], args[1:]...)
		want := bad + ":" + itoa(line) + `: table product-comment: part "productld": unknown part`
		if code != 2 || !strings.Contains(errOut, want) {
			t.Errorf("%v: exit %d, want 2 and %q\n%s", args, code, want, errOut)
		}
	}
	if _, err := os.Stat(data); !os.IsNotExist(err) {
		t.Errorf("the data dir was created for a bad design (%v)", err)
	}
}

// A loadgen whose design differs from the data's is refused before it
// writes, naming the first table and part that differ; verify reads the
// design from the data.
func TestDesignTravelsWithData(t *testing.T) {
	dir := t.TempDir()
	loadgenCI(t, dir, "seed")
	data := filepath.Join(dir, "data")
	_, errOut, code := run(t, "loadgen", "--preset", "ci", "--layout", "unique", "--quiet", "--data-dir", data, "--out", filepath.Join(dir, "out2"))
	if code != 2 || !strings.Contains(errOut, "table user-comment, part 3: none in unique, orderId in seed") &&
		!strings.Contains(errOut, "table user-comment, part 3: orderId in unique, none in seed") {
		t.Errorf("loadgen unique into seed data: exit %d, want 2 naming user-comment part 3\n%s", code, errOut)
	}
	out, errOut, code := run(t, "verify", "--data-dir", data, "--layout", "salted")
	if code != 2 || !strings.Contains(errOut, "table user-comment, part 1") {
		t.Errorf("verify --layout salted on seed data: exit %d\n%s%s", code, out, errOut)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
