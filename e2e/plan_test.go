package e2e

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"commentbench/keys"
	"commentbench/plan"
	"commentbench/results"
)

// A steady run's tables, measured cell by cell at its end, agree with the
// storage model at the run's row counts; and `loadgen plan`, given the
// run's counts, predicts each table within 20% of what the run measured.
func TestStoragePlanMatchesRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	args := []string{"--preset", "steady", "--duration", "5s", "--warmup", "1s", "--users", "2000", "--products", "200",
		"--quiet", "--no-report", "--data-dir", filepath.Join(dir, "data"), "--out", filepath.Join(dir, "out")}
	out, errOut, code := run(t, "loadgen", args...)
	if code != 0 {
		t.Fatalf("loadgen %v: exit %d\n%s%s", args, code, out, errOut)
	}
	if !strings.Contains(out, "storage (bytes as HBase cells)") || !strings.Contains(out, "modeled") {
		t.Errorf("the console shows no measured and modeled storage:\n%s", out)
	}
	sum, err := results.ReadSummary(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	measured := measuredTables(t, sum)
	for _, s := range measured {
		within(t, s.Table+": model at the run's rows", float64(s.ModeledBytes), s.MeasuredBytes)
	}
	for _, p := range planFor(t, sum, measured[keys.Comment].Rows).Tables {
		if m := measured[p.Table]; m.Rows > 0 {
			within(t, p.Table+": loadgen plan", p.Bytes, m.MeasuredBytes)
		}
	}
}

// measuredTables are the summary's storage figures of the tables that hold
// rows; every table must be there and the comment tables must hold rows.
func measuredTables(t *testing.T, sum results.Summary) map[string]results.TableStorage {
	t.Helper()
	if len(sum.Storage) != len(keys.Tables) {
		t.Fatalf("summary storage has %d tables, want %d: %+v", len(sum.Storage), len(keys.Tables), sum.Storage)
	}
	out := map[string]results.TableStorage{}
	for _, s := range sum.Storage {
		if s.Rows > 0 {
			out[s.Table] = s
		}
	}
	for _, tb := range []string{keys.Comment, keys.Order, keys.UserComment, keys.ProductComment, keys.ProductRank} {
		if out[tb].Rows == 0 {
			t.Fatalf("the run left no rows in %s: %+v", tb, sum.Storage)
		}
	}
	return out
}

// planFor runs loadgen plan for one day of the run's comments on its
// design and population.
func planFor(t *testing.T, sum results.Summary, comments int64) plan.Report {
	t.Helper()
	var cfg struct {
		Scenario struct{ Users, Products, Sellers int } `json:"scenario"`
	}
	if err := json.Unmarshal(sum.Config, &cfg); err != nil || sum.Design == nil {
		t.Fatalf("summary config: %v, design %v", err, sum.Design)
	}
	sc := cfg.Scenario
	args := []string{"plan", "--layout", sum.Design.Name, "--comments-per-day", strconv.FormatInt(comments, 10), "--days", "1",
		"--users", strconv.Itoa(sc.Users), "--products", strconv.Itoa(sc.Products), "--sellers", strconv.Itoa(sc.Sellers), "--json"}
	out, errOut, code := run(t, "loadgen", args...)
	if code != 0 {
		t.Fatalf("loadgen %v: exit %d\n%s%s", args, code, out, errOut)
	}
	var r plan.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("plan --json: %v\n%s", err, out)
	}
	if len(r.Tables) != len(keys.Tables) || !r.Modeled {
		t.Fatalf("plan has %d tables, modeled %v", len(r.Tables), r.Modeled)
	}
	return r
}

func within(t *testing.T, what string, modeled float64, measured int64) {
	t.Helper()
	t.Logf("%s: modeled %.0f, measured %d bytes", what, modeled, measured)
	if math.Abs(modeled-float64(measured)) > 0.2*float64(measured) {
		t.Errorf("%s: modeled %.0f bytes, measured %d: more than 20%% apart", what, modeled, measured)
	}
}
