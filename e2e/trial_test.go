package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"commentbench/check"
	"commentbench/results"
)

// The seed's design on trial, shortened: --system seed shows each of the
// four flaws, --system fixed none of the three it cures (a hot product
// stays hot), and verify, run after, counts exactly what loadgen saw.
func TestSeedOnTrial(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	flaws := map[string]*results.Flaws{}
	for _, system := range []string{"seed", "fixed"} {
		data, out := filepath.Join(dir, system, "data"), filepath.Join(dir, system, "out")
		stdout, errOut, code := run(t, "loadgen", "--preset", "trial", "--system", system, "--duration", "4s", "--rank-every", "500ms",
			"--warmup", "0s", "--quiet", "--data-dir", data, "--out", out)
		if code != 0 {
			t.Fatalf("loadgen %s: exit %d\n%s%s", system, code, stdout, errOut)
		}
		sum, err := results.ReadSummary(out)
		if err != nil || sum.Flaws == nil {
			t.Fatalf("%s: summary %v, flaws %v", system, err, sum.Flaws)
		}
		f := sum.Flaws
		flaws[system] = f
		assertVerdictRebuilt(t, system, sum, stdout)
		if !strings.Contains(stdout, "the seed's flaws in this run (") {
			t.Errorf("%s: the console has no flaws block", system)
		}
		_, _, vcode := run(t, "verify", "--data-dir", data, "--run", out, "--out", out, "--quiet")
		rep, found, err := check.ReadReport(out)
		if err != nil || !found {
			t.Fatalf("%s: verify --out wrote no report: %v (exit %d)", system, err, vcode)
		}
		if rep.CollidedTotal() != f.CollidedTotal || rep.Ranks.Stale.Count != f.StaleRanks {
			t.Errorf("%s: verify found %d collided and %d stale ranks; loadgen saw %d and %d",
				system, rep.CollidedTotal(), rep.Ranks.Stale.Count, f.CollidedTotal, f.StaleRanks)
		}
		for _, ix := range rep.Indexes { // the rows too, listing by listing
			if ix.Collided.Count != f.Collided[ix.Table] {
				t.Errorf("%s: verify found %d collided rows in %s; loadgen saw %d", system, ix.Collided.Count, ix.Table, f.Collided[ix.Table])
			}
		}
		if rep.Run.Lost.Count != 0 {
			t.Errorf("%s: %d acknowledged comments lost", system, rep.Run.Lost.Count)
		}
	}
	s, fx := flaws["seed"], flaws["fixed"]
	if s.CollidedTotal == 0 || s.StaleRanks == 0 || s.RowsPerPage <= 11 || s.HottestListingRegion == nil || s.HottestListingRegion.Share == 0 {
		t.Errorf("seed: want every flaw non-zero: %+v", *s)
	}
	if fx.CollidedTotal != 0 || fx.StaleRanks != 0 || fx.RowsPerPage > 11 || fx.MaxRowsPerPage > 11 {
		t.Errorf("fixed: want 0 collided, 0 stale, at most 11 rows per page: %+v", *fx)
	}
	out, _, code := run(t, "loadgen", "flaws", filepath.Join(dir, "seed", "out"), filepath.Join(dir, "fixed", "out"))
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 4 || !strings.HasPrefix(lines[0], "collided comments: seed ") ||
		!strings.Contains(lines[0], " · fixed 0 hidden") || !strings.Contains(lines[3], " · fixed 0") {
		t.Errorf("loadgen flaws: exit %d\n%s", code, out)
	}
}
