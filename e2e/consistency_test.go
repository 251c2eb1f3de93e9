package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"commentbench/check"
	"commentbench/results"
)

// The consistency preset, shortened, on each --writes (one-row on
// between), on the embedded engine and through the HBase protocol, 1% of
// each kind of failure injected: non-atomic leaves drift and verify exits
// 1; one-row leaves drift in the user's timeline alone (the listing
// outside the comment's row); verified and transactional leave none and
// verify exits 0, saying what it resolved; every finding is what the
// failures left, every acknowledged comment is there, and after verify
// --repair --yes the data reads consistent.
func TestWritesStrategies(t *testing.T) {
	t.Parallel()
	cl, _ := cluster(t)
	for _, backend := range []string{"embedded", "hbase"} {
		for _, c := range []struct{ writes, layout string }{
			{"non-atomic", "unique"}, {"one-row", "between"}, {"verified", "unique"}, {"transactional", "unique"},
		} {
			t.Run(backend+"/"+c.writes, func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				where := []string{"--data-dir", filepath.Join(dir, "data")}
				if backend == "hbase" {
					where = hbaseArgs(cl, "cb_"+strings.ReplaceAll(c.writes, "-", "_")+"_")
				}
				out := filepath.Join(dir, "out")
				args := append([]string{"--preset", "consistency", "--writes", c.writes, "--layout", c.layout,
					"--duration", "2s", "--warmup", "0s", "--users", "1000", "--products", "100", "--workers", "4",
					"--quiet", "--no-report", "--out", out}, where...)
				if o, e, code := run(t, "loadgen", args...); code != 0 {
					t.Fatalf("loadgen %v: exit %d\n%s%s", args, code, o, e)
				}
				sum, err := results.ReadSummary(out)
				if err != nil {
					t.Fatal(err)
				}
				cons := sum.Consistency
				if cons == nil || cons.Writes != c.writes || cons.Injected.FailedWrites == 0 || cons.Injected.LostReplies == 0 || cons.Injected.AbandonedWriters == 0 {
					t.Fatalf("consistency block %+v: want every kind of failure injected", cons)
				}
				rep, code := verifyJSON(t, append(where, "--run", out)...)
				checkStrategy(t, c.writes, rep, code)
				if _, _, code := run(t, "verify", append(where, "--repair", "--yes", "--quiet")...); code > 1 {
					t.Fatalf("verify --repair --yes: exit %d", code)
				}
				after, code := verifyJSON(t, append(where, "--run", out)...)
				if code != 0 || !after.Consistent || after.Faults == nil || after.Faults.Note == "" {
					t.Errorf("after the repair: exit %d, %s, faults %+v", code, after.Verdict, after.Faults)
				}
			})
		}
	}
}

// checkStrategy holds what each strategy must leave after its failures.
func checkStrategy(t *testing.T, writes string, rep check.Report, code int) {
	t.Helper()
	if rep.Run == nil || rep.Run.Lost.Count != 0 || rep.Run.Acked == 0 {
		t.Fatalf("run %+v: want acknowledged comments and none lost", rep.Run)
	}
	f := rep.Faults
	if f == nil || len(f.Unexplained) != 0 || f.Unknown != 0 {
		t.Fatalf("faults %+v: want every finding explained by the injected failures", f)
	}
	drift := map[string]int64{}
	var unverified int64
	for _, ix := range rep.Indexes {
		drift[ix.Table] = ix.Unreferenced.Count + ix.Undefined.Count + ix.Mismatched.Count
		unverified += ix.Unverified.Count
	}
	switch writes {
	case "non-atomic":
		if code != 1 || drift["user-comment"] == 0 || drift["product-comment"] == 0 {
			t.Errorf("exit %d, drift %v: want drift in both listings, and exit 1", code, drift)
		}
	case "one-row":
		if code != 1 || drift["user-comment"] == 0 || drift["product-comment"] != 0 {
			t.Errorf("exit %d, drift %v: want drift in the user's timeline alone (outside the comment's row), and exit 1", code, drift)
		}
	case "verified", "transactional":
		if code != 0 || !rep.Consistent || drift["user-comment"]+drift["product-comment"] != 0 {
			t.Errorf("exit %d, %s, drift %v: want none", code, rep.Verdict, drift)
		}
		var resolved int64
		for _, l := range f.Lines {
			resolved += l.Found
		}
		if writes == "verified" && unverified == 0 {
			t.Errorf("verify found no unverified entry after %+v", f.Injected)
		}
		if writes == "transactional" && (rep.Locks == nil || resolved != rep.Locks.RolledForward+rep.Locks.RolledBack) {
			t.Errorf("locks %+v, lines %+v", rep.Locks, f.Lines)
		}
	}
}
