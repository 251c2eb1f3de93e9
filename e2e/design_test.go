package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"commentbench/check"
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
	return loadgenInto(t, dir, "--scenario", scenario, "--layout", layout)
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
	t.Parallel()
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
	t.Parallel()
	entities := []string{"user", "seller", "product", "order", "comment"}
	for _, layout := range []string{"seed", "hashed"} {
		dir := t.TempDir()
		// Enough sellers and products that a fair hash puts no more than
		// 2/8 of them in one region by chance.
		sum := loadgenCI(t, dir, layout, "--ids", "sequential", "--regions", "8", "--sellers", "400", "--products", "800")
		bad := func(share float64) bool {
			if layout == "seed" {
				return share < 0.5
			}
			return share > 2.0/8
		}
		// The run's requests: the tables it wrote and read (orders and
		// comments; entities are written before the run).
		for _, table := range []string{"order", "comment"} {
			if share := tableSpread(t, sum, table).Hottest[0].Share; bad(share) {
				t.Errorf("%s %s: hottest region took %.2f of the run's requests", layout, table, share)
			}
		}
		// The data: every entity table, those seeded before the run too.
		data := dataSpread(t, dir)
		for _, table := range entities {
			td, ok := data[table]
			if !ok || td.Rows == 0 {
				t.Fatalf("%s: verify shows no rows in %s", layout, table)
			}
			var most int64
			for _, r := range td.Regions {
				most = max(most, r.Rows)
			}
			if share := float64(most) / float64(td.Rows); len(td.Regions) < 8 || bad(share) {
				t.Errorf("%s %s: hottest of %d regions holds %.2f of the rows, want %s", layout, table, len(td.Regions), share,
					map[string]string{"seed": ">= 0.5", "hashed": "<= 2/8 over 8 regions"}[layout])
			}
		}
	}
}

// dataSpread is verify's placement of each table's rows.
func dataSpread(t *testing.T, dir string) map[string]check.TableData {
	t.Helper()
	out, errOut, code := run(t, "verify", "--data-dir", filepath.Join(dir, "data"), "--json", "--quiet")
	if code > 1 {
		t.Fatalf("verify: exit %d\n%s", code, errOut)
	}
	var rep check.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Spread == nil {
		t.Fatalf("verify --json: %v, spread %v\n%.500s", err, rep.Spread != nil, out)
	}
	m := map[string]check.TableData{}
	for _, td := range rep.Spread.Tables {
		m[td.Table] = td
	}
	return m
}

// Designs written as a user writes one, shipped under layouts/: loadgen
// then verify, clean, on the embedded backend. The clustered timeline's
// copies are checked, and none is stale after the ci preset's edits.
func TestUserDesignEmbedded(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"product-hash", "between-clustered"} {
		dir := t.TempDir()
		loadgenCI(t, dir, layoutFile(t, name))
		out, errOut, code := run(t, "verify", "--data-dir", filepath.Join(dir, "data"), "--run", filepath.Join(dir, "out"))
		if code != 0 || !strings.Contains(out, "layout "+name) {
			t.Fatalf("verify: exit %d\n%s%s", code, out, errOut)
		}
		copies := regexp.MustCompile(`user-comment copies: 0 of its [1-9]\d* entries not what their comment says`)
		if name == "between-clustered" && !copies.MatchString(out) {
			t.Errorf("verify of %s does not say its timeline's copies were checked:\n%s", name, out)
		}
	}
}

func userDesign(t *testing.T) string { return layoutFile(t, "product-hash") }

// layoutFile is the path of a design shipped under layouts/.
func layoutFile(t *testing.T, name string) string {
	p, err := filepath.Abs(filepath.Join("..", "layouts", name+".yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// lint tells the seed's collisions (exit 1) and the time-led hotspot, and
// no collision on the cures; --print gives the file back.
func TestLint(t *testing.T) {
	t.Parallel()
	out, _, code := run(t, "loadgen", "lint", "--layout", "seed")
	if code != 1 || strings.Count(out, "RISK") != 2 || !strings.Contains(out, "one millisecond with equal byte length") {
		t.Errorf("lint seed: exit %d, want 1 and two collision risks\n%s", code, out)
	}
	for _, layout := range []string{"unique", "salted", "hashed", "time-led", "between", "feed", userDesign(t), layoutFile(t, "between-clustered")} {
		out, _, code := run(t, "loadgen", "lint", "--layout", layout)
		if code != 0 || strings.Contains(out, "RISK") {
			t.Errorf("lint %s: exit %d, want 0 and no risk\n%s", layout, code, out)
		}
	}
	out, _, _ = run(t, "loadgen", "lint", "--layout", "time-led")
	if !strings.Contains(out, "HOT product-comment (monotonic): leads with ts") {
		t.Errorf("lint time-led: no hotspot finding\n%s", out)
	}
	out, _, _ = run(t, "loadgen", "lint", "--layout", "feed")
	if !strings.Contains(out, "HOT latest-comment (one-row): every comment writes into one row") ||
		!regexp.MustCompile(`product-comment: the one row every comment goes in, 30,000,000 cells \([\d.]+\n?\s*GiB\), \d+ bytes a comment; past the max row size \(1 GiB\) on day \d+`).MatchString(out) {
		t.Errorf("lint feed: no one-row hotspot finding\n%s", out)
	}
	out, _, _ = run(t, "loadgen", "lint", "--layout", "between")
	if !strings.Contains(out, "note comment (atomic): with --writes one-row, the comment and its\n       product-comment entry change in one row mutation") {
		t.Errorf("lint between: no atomic finding\n%s", out)
	}
	_, errOut, code := run(t, "loadgen", "lint", "--layout", "unique", "--writes", "one-row")
	if code != 2 || !strings.Contains(errOut, "--writes one-row on design unique: no listing is kept in the comment's row") {
		t.Errorf("lint --writes one-row on unique: exit %d, %q; want refused", code, errOut)
	}
	if _, _, code := run(t, "loadgen", "lint", "--layout", "between", "--writes", "one-row"); code != 0 {
		t.Errorf("lint --writes one-row on between: exit %d", code)
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
	t.Parallel()
	src, err := os.ReadFile(userDesign(t))
	if err != nil {
		t.Fatal(err)
	}
	const good = "key: hash(productId,2) productId revTs orderId"
	for _, c := range []struct {
		name, from, to, at, want string
	}{
		{"unknown part", good, "key: hash(productId,2) productld revTs orderId", "productld",
			`table product-comment: part "productld": unknown part`},
		{"salt out of range", good, "key: salt(orderId,productId,70000) productId revTs orderId", "salt(orderId,productId,70000)",
			`table product-comment: part "salt(orderId,productId,70000)": salt of 70000 buckets: want 1..65536`},
		{"listing not newest first", good, "key: orderId productId revTs", "orderId productId revTs",
			`table product-comment: part "orderId": a listing by productId is read newest first`},
		{"missing table", "  product-comment-rank:\n    key: productId lit(r) rank\n", "", "",
			`table product-comment-rank: missing`},
	} {
		dir := t.TempDir()
		bad := filepath.Join(dir, "bad.yaml")
		text := strings.Replace(string(src), c.from, c.to, 1)
		if text == string(src) {
			t.Fatalf("%s: the edit did not apply", c.name)
		}
		if err := os.WriteFile(bad, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		want := bad + ":"
		if c.at != "" {
			want += itoa(1+strings.Count(text[:strings.Index(text, c.at)], "\n")) + ":"
		}
		data := filepath.Join(dir, "data")
		for _, args := range [][]string{
			{"loadgen", "--preset", "ci", "--layout", bad, "--data-dir", data, "--out", filepath.Join(dir, "out")},
			{"loadgen", "lint", "--layout", bad},
			{"verify", "--layout", bad, "--data-dir", data},
		} {
			_, errOut, code := run(t, args[0], args[1:]...)
			if code != 2 || !strings.Contains(errOut, want) || !strings.Contains(errOut, c.want) {
				t.Errorf("%s: %v: exit %d, want 2 and %q ... %q\n%s", c.name, args, code, want, c.want, errOut)
			}
		}
		if _, err := os.Stat(data); !os.IsNotExist(err) {
			t.Errorf("%s: the data dir was created for a bad design (%v)", c.name, err)
		}
	}
}

// A loadgen whose design differs from the data's is refused before it
// writes, naming the first table and part that differ; verify reads the
// design from the data.
func TestDesignTravelsWithData(t *testing.T) {
	t.Parallel()
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

// merge compares runs by their designs' keys, not by the --layout text:
// one design at two paths merges, a design edited between runs does not.
func TestMergeComparesDesigns(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile(userDesign(t))
	if err != nil {
		t.Fatal(err)
	}
	base := t.TempDir()
	runWith := func(name string, text string) string {
		dir := filepath.Join(base, name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, "design.yaml")
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		loadgenCI(t, dir, file, "--ops", "300", "--no-report")
		return filepath.Join(dir, "out")
	}
	a := runWith("a", string(src))
	b := runWith("b", string(src))
	edited := runWith("c", strings.Replace(string(src), "revTs orderId\n", "revTs revLen orderId\n", 1))
	if _, errOut, code := run(t, "loadgen", "merge", "--out", filepath.Join(base, "ab"), a, b); code != 0 {
		t.Errorf("one design at two paths: merge exit %d\n%s", code, errOut)
	}
	_, errOut, code := run(t, "loadgen", "merge", "--out", filepath.Join(base, "ac"), a, edited)
	if code != 2 || !strings.Contains(errOut, "different key designs") || !strings.Contains(errOut, "product-comment") {
		t.Errorf("an edited design: merge exit %d, want 2 naming the table that differs\n%s", code, errOut)
	}
}
