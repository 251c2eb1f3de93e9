package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"commentbench/check"
	"commentbench/results"
)

// loadgenBase runs the ci preset with a load phase, its base kept under
// bases, into dir; it returns the first line and the summary.
func loadgenBase(t *testing.T, dir, bases string, extra ...string) (string, results.Summary) {
	t.Helper()
	args := append([]string{"--preset", "ci", "--layout", "unique", "--load-per-user", "4", "--ops", "300",
		"--base-cache", bases, "--quiet", "--no-report", "--data-dir", filepath.Join(dir, "data"), "--out", filepath.Join(dir, "out")}, extra...)
	out, errOut, code := run(t, "loadgen", args...)
	if code != 0 {
		t.Fatalf("loadgen %v: exit %d\n%s%s", args, code, out, errOut)
	}
	sum, err := results.ReadSummary(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(out, "\n")
	return first, sum
}

// verifyRun checks a run's data with its ledger and returns the report,
// wanting it clean.
func verifyRun(t *testing.T, dir string) check.Report {
	t.Helper()
	vout, verr, code := run(t, "verify", "--data-dir", filepath.Join(dir, "data"), "--run", filepath.Join(dir, "out"), "--json")
	if code != 0 {
		t.Fatalf("verify exit %d, want 0\n%s%s", code, vout, verr)
	}
	var rep check.Report
	if err := json.Unmarshal([]byte(vout), &rep); err != nil {
		t.Fatalf("verify --json: %v\n%s", err, vout)
	}
	if !rep.Consistent || rep.Run == nil || rep.Run.Lost.Count != 0 || rep.Run.NotInLedger.Count != 0 {
		t.Fatalf("verify: verdict %q, run %+v", rep.Verdict, rep.Run)
	}
	return rep
}

// A bulk-loaded run verifies clean, its ledger proving every loaded
// comment; it keeps its base, and a second run of the same load starts
// from it (says so on its first line and in summary.json), verifies as
// clean with the base's comments proved by its own ledger, and holds the
// same loaded comments; --fresh-load loads again.
func TestBulkLoadBaseReuse(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	bases := filepath.Join(root, "bases")
	first, sum := loadgenBase(t, filepath.Join(root, "a"), bases)
	if !strings.HasSuffix(first, "load: bulk load") || sum.Load == nil || sum.Load.Method != "bulk load" || sum.Load.Comments != 2000 {
		t.Fatalf("first run: line %q, load %+v; want a bulk load of 2000", first, sum.Load)
	}
	repA := verifyRun(t, filepath.Join(root, "a"))
	if repA.Run.Acked < 2000 {
		t.Errorf("first run: %d acknowledged comments proved; want the load's 2000 and more", repA.Run.Acked)
	}
	kept, _ := filepath.Glob(filepath.Join(bases, "*", "base.json"))
	if len(kept) != 1 {
		t.Fatalf("bases kept: %v; want one", kept)
	}
	key := filepath.Base(filepath.Dir(kept[0]))

	first, sum = loadgenBase(t, filepath.Join(root, "b"), bases)
	if !strings.HasSuffix(first, "load: reused base "+key) {
		t.Errorf("second run's first line %q: want it to name reused base %s", first, key)
	}
	if sum.Load == nil || sum.Load.Method != "reused base" || sum.Load.Base != key || sum.Load.Comments != 2000 {
		t.Errorf("second run's load %+v: want base %s reused, 2000 comments", sum.Load, key)
	}
	repB := verifyRun(t, filepath.Join(root, "b"))
	if repB.Run.Acked != repA.Run.Acked {
		t.Errorf("second run proved %d comments, the first %d: the same seed should write as many", repB.Run.Acked, repA.Run.Acked)
	}

	_, sum = loadgenBase(t, filepath.Join(root, "c"), bases, "--fresh-load")
	if sum.Load == nil || sum.Load.Method != "bulk load" {
		t.Errorf("--fresh-load: load %+v; want loaded afresh", sum.Load)
	}
}

// A base cache that cannot be written is refused before the run, naming
// the flag.
func TestBulkLoadBadBaseCache(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, "loadgen", "--preset", "ci", "--load-per-user", "1", "--base-cache", filepath.Join(file, "bases"),
		"--quiet", "--out", filepath.Join(dir, "out"))
	if code != 2 || !strings.Contains(errOut, "--base-cache") || !strings.Contains(errOut, "not a directory") {
		t.Errorf("exit %d, stderr %q; want 2 naming --base-cache and the cause", code, errOut+out)
	}
}
