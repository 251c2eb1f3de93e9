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
	strategies := []struct{ writes, layout string }{
		{"non-atomic", "unique"}, {"one-row", "between"}, {"verified", "unique"}, {"transactional", "unique"},
	}
	for _, backend := range []string{"embedded", "hbase"} {
		base := t.TempDir()
		var outs []string
		t.Run(backend, func(t *testing.T) {
			for _, c := range strategies {
				dir := filepath.Join(base, c.writes)
				outs = append(outs, filepath.Join(dir, "out"))
				t.Run(c.writes, func(t *testing.T) {
					t.Parallel()
					where := []string{"--data-dir", filepath.Join(dir, "data")}
					if backend == "hbase" {
						where = hbaseArgs(cl, "cb_"+strings.ReplaceAll(c.writes, "-", "_")+"_")
					}
					runStrategy(t, c.writes, c.layout, where, filepath.Join(dir, "out"))
				})
			}
		})
		if t.Failed() {
			return
		}
		// The runs compared: the words say which left drift and what the
		// others paid (verify's reports are in the runs, from before the
		// repair).
		out, errOut, code := run(t, "loadgen", append([]string{"report", "-o", filepath.Join(base, "compare.html")}, outs...)...)
		words := out[strings.LastIndex(out, "consistency: "):]
		for _, want := range []string{"consistency: non-atomic on unique left drift (verify found ", "; one-row on between left drift (verify found ",
			"; verified on unique left none", "; transactional on unique left none", " the requests and "} {
			if code != 0 || !strings.Contains(words, want) {
				t.Errorf("loadgen report: exit %d, lacks %q\n%s%s", code, want, out, errOut)
			}
		}
	}
}

// runStrategy runs the consistency preset, shortened, written with
// writes, checks what verify finds against the strategy's promise, then
// repairs the data and checks it reads consistent.
func runStrategy(t *testing.T, writes, layout string, where []string, out string) {
	args := append([]string{"--preset", "consistency", "--writes", writes, "--layout", layout,
		"--duration", "2s", "--warmup", "0s", "--users", "1000", "--products", "100", "--workers", "4",
		// 3% abandoned, not the preset's 1%: a slow machine's 2 s write a
		// few hundred comments, and at 1% none may be abandoned.
		"--abandon", "0.03", "--quiet", "--no-report", "--out", out}, where...)
	if o, e, code := run(t, "loadgen", args...); code != 0 {
		t.Fatalf("loadgen %v: exit %d\n%s%s", args, code, o, e)
	}
	sum, err := results.ReadSummary(out)
	if err != nil {
		t.Fatal(err)
	}
	cons := sum.Consistency
	if cons == nil || cons.Writes != writes || cons.Injected.FailedWrites == 0 || cons.Injected.LostReplies == 0 || cons.Injected.AbandonedWriters == 0 {
		t.Fatalf("consistency block %+v: want every kind of failure injected", cons)
	}
	rep, code := verifyJSON(t, append(where, "--run", out, "--out", out)...)
	checkStrategy(t, writes, rep, code)
	if _, _, code := run(t, "verify", append(where, "--repair", "--yes", "--quiet")...); code > 1 {
		t.Fatalf("verify --repair --yes: exit %d", code)
	}
	after, code := verifyJSON(t, append(where, "--run", out)...)
	if code != 0 || !after.Consistent || after.Faults == nil || after.Faults.Note == "" {
		t.Errorf("after the repair: exit %d, %s, faults %+v", code, after.Verdict, after.Faults)
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
