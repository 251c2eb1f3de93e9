package e2e

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"commentbench/check"
	"commentbench/results"
)

// loadgen killed with SIGKILL at random points: with --sync, verify --run
// finds every acknowledged comment in the ledger and in the data, every
// time, and no comment in the data that the ledger does not know: the
// writes a kill cut short are reported as in flight, at most one per
// writer. Without --sync, at most about the last second acknowledged is
// lost. verify never fails to check (exit 2), whatever the kill tore.
func TestCrashes(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7))
	kills := slices.Repeat([]bool{true}, 10)
	for i, sync := range append(kills, false) {
		dir := t.TempDir()
		data, out := filepath.Join(dir, "data"), filepath.Join(dir, "out")
		args := []string{"--preset", "ci", "--layout", "unique", "--ops", "0", "--duration", "5m", "--warmup", "0",
			"--quiet", "--data-dir", data, "--out", out}
		if sync {
			args = append(args, "--sync")
		}
		cmd := exec.Command(filepath.Join(binDir, "loadgen"), args...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		waitFor(t, func() bool { return lines(filepath.Join(out, "timeline.csv")) > 1 }, 60*time.Second)
		time.Sleep(time.Duration(r.IntN(2000)) * time.Millisecond)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
		vout, verr, code := run(t, "verify", "--data-dir", data, "--run", out, "--json", "--no-spread")
		var rep check.Report
		if err := json.Unmarshal([]byte(vout), &rep); err != nil || code == 2 || rep.Run == nil {
			t.Fatalf("kill %d (sync %v): verify exit %d, %v\n%s", i, sync, code, err, verr)
		}
		ru := rep.Run
		inFlight := ru.InFlightPresent + ru.InFlightAbsent
		perSecond := maxPerSecond(t, filepath.Join(out, "timeline.csv"))
		switch {
		case sync && (ru.Lost.Count != 0 || ru.NotInLedger.Count != 0):
			t.Errorf("kill %d with --sync: of %d acknowledged, %d lost; %d comments in the data, not in the ledger %q",
				i, ru.Acked, ru.Lost.Count, ru.NotInLedger.Count, ru.NotInLedger.Samples)
		case !sync && ru.Lost.Count > perSecond:
			t.Errorf("kill %d without --sync: %d lost, more than a second's %d writes", i, ru.Lost.Count, perSecond)
		case inFlight > ciWriters:
			t.Errorf("kill %d: %d writes in flight, more than the %d writers can have", i, inFlight, ciWriters)
		}
		if ru.Acked == 0 {
			t.Errorf("kill %d: the ledger held no acknowledged comment", i)
		}
		t.Logf("kill %d (sync %v): %d acknowledged, %d lost, in flight %d present %d absent", i, sync, ru.Acked, ru.Lost.Count,
			ru.InFlightPresent, ru.InFlightAbsent)
	}
}

// maxPerSecond is the most comment writes one interval of timeline.csv saw.
func maxPerSecond(t *testing.T, path string) int64 {
	t.Helper()
	var most int64
	for _, n := range timelineCountsPerInterval(t, path, "comment-write", "burst-write", "multi-order-write") {
		most = max(most, n)
	}
	return most
}

// timelineCountsPerInterval sums the named ops' counts per interval row
// group of timeline.csv (its first column names the interval).
func timelineCountsPerInterval(t *testing.T, path string, ops ...string) map[string]int64 {
	t.Helper()
	recs := csvRecords(t, path)
	opCol, countCol := slices.Index(recs[0], "op"), slices.Index(recs[0], "count")
	if opCol < 0 || countCol < 0 {
		t.Fatalf("timeline.csv header %v has no op or count", recs[0])
	}
	out := map[string]int64{}
	for _, r := range recs[1:] {
		if slices.Contains(ops, r[opCol]) {
			n, _ := strconv.ParseInt(r[countCol], 10, 64)
			out[r[0]] += n
		}
	}
	return out
}

// A second loadgen into data that holds a run is refused before it writes,
// naming what it found; --append adds a run whose ids overwrite nothing
// (both runs' acknowledged comments all there), --fresh wipes the data.
func TestReusedData(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	first := loadgenCI(t, dir, "unique")
	if !strings.HasPrefix(first.Durability, "no sync: ") || !strings.Contains(first.Durability, "last second") {
		t.Errorf("summary durability %q: want the loss window without --sync", first.Durability)
	}
	_, errOut, code := run(t, "loadgen", "--preset", "ci", "--layout", "unique", "--quiet", "--data-dir", data, "--out", filepath.Join(dir, "again"))
	if code != 2 || !strings.Contains(errOut, "already holds 1 run(s) (run "+first.RunID+" of ") || !strings.Contains(errOut, "--append") {
		t.Fatalf("second run: exit %d, want 2 naming the run\n%s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "again")); !os.IsNotExist(err) {
		t.Errorf("the refused run wrote its results dir (%v)", err)
	}
	if out, errOut, code := run(t, "loadgen", "--preset", "ci", "--layout", "unique", "--quiet", "--append",
		"--data-dir", data, "--out", filepath.Join(dir, "appended")); code != 0 {
		t.Fatalf("--append: exit %d\n%s%s", code, out, errOut)
	}
	written := func(s results.Summary) int64 {
		return opCount(s, "comment-write") + opCount(s, "burst-write") + opCount(s, "multi-order-write")
	}
	second, err := results.ReadSummary(filepath.Join(dir, "appended"))
	if err != nil {
		t.Fatal(err)
	}
	for _, runDir := range []string{filepath.Join(dir, "out"), filepath.Join(dir, "appended")} {
		rep, code := verifyJSON(t, "--data-dir", data, "--run", runDir, "--no-spread")
		if code != 0 || rep.Run.Lost.Count != 0 || rep.References.Comments < written(first)+written(second) {
			t.Errorf("after --append, verify --run %s: exit %d, lost %d, %d comments for %d written",
				runDir, code, rep.Run.Lost.Count, rep.References.Comments, written(first)+written(second))
		}
	}
	if out, errOut, code := run(t, "loadgen", "--preset", "ci", "--layout", "unique", "--quiet", "--fresh",
		"--data-dir", data, "--out", filepath.Join(dir, "fresh")); code != 0 {
		t.Fatalf("--fresh: exit %d\n%s%s", code, out, errOut)
	}
	third, _ := results.ReadSummary(filepath.Join(dir, "fresh"))
	rep, code := verifyJSON(t, "--data-dir", data, "--run", filepath.Join(dir, "fresh"), "--no-spread")
	if code != 0 || rep.References.Comments != written(third) {
		t.Errorf("after --fresh: exit %d, %d comments, want only the new run's %d", code, rep.References.Comments, written(third))
	}
	if _, errOut, code := run(t, "loadgen", "--append", "--fresh", "--data-dir", data); code != 2 || !strings.Contains(errOut, "give one") {
		t.Errorf("--append with --fresh: exit %d\n%s", code, errOut)
	}
}

// The ci preset is deterministic: the same seed gives the same counts, the
// same collisions and the same pager findings, so a CI gate can compare
// runs.
func TestCIDeterministic(t *testing.T) {
	t.Parallel()
	var first results.Summary
	for i := range 2 {
		s := loadgenCI(t, t.TempDir(), "seed")
		s.Ops = append(s.Ops, s.Actions...)
		if i == 0 {
			first = s
			continue
		}
		for j, o := range s.Ops {
			if o.Op != first.Ops[j].Op || o.Count != first.Ops[j].Count || o.Errors != first.Ops[j].Errors {
				t.Errorf("%s: %d (%d errors) then %d (%d errors)", o.Op, first.Ops[j].Count, first.Ops[j].Errors, o.Count, o.Errors)
			}
		}
		if s.Flaws.CollidedTotal != first.Flaws.CollidedTotal || s.Flaws.ShortListings != first.Flaws.ShortListings {
			t.Errorf("collided %d then %d, short listings %d then %d", first.Flaws.CollidedTotal, s.Flaws.CollidedTotal,
				first.Flaws.ShortListings, s.Flaws.ShortListings)
		}
	}
}

// verify --run with another data set's run refuses (exit 2), instead of
// counting all of its comments lost.
func TestVerifyRunOfAnotherDataSet(t *testing.T) {
	t.Parallel()
	a, b := t.TempDir(), t.TempDir()
	loadgenCI(t, a, "unique")
	loadgenCI(t, b, "unique")
	_, errOut, code := run(t, "verify", "--data-dir", filepath.Join(a, "data"), "--run", filepath.Join(b, "out"), "--quiet")
	if code != 2 || !strings.Contains(errOut, "did not write this data") {
		t.Errorf("verify --run of another data set: exit %d\n%s", code, errOut)
	}
}

// The same rule on the hbase backend: a table set that holds a run is
// refused, naming the run; --append adds to it, --fresh starts over.
func TestReusedTablesHBase(t *testing.T) {
	t.Parallel()
	cl, _ := cluster(t)
	base := t.TempDir()
	args := func(out string, extra ...string) []string {
		return append(append(hbaseArgs(cl, "cb_reuse_"), "--preset", "ci", "--layout", "unique", "--ops", "400", "--quiet",
			"--no-report", "--out", filepath.Join(base, out)), extra...)
	}
	if out, errOut, code := run(t, "loadgen", args("first")...); code != 0 {
		t.Fatalf("first run: exit %d\n%s%s", code, out, errOut)
	}
	first, err := results.ReadSummary(filepath.Join(base, "first"))
	if err != nil {
		t.Fatal(err)
	}
	_, errOut, code := run(t, "loadgen", args("again")...)
	if code != 2 || !strings.Contains(errOut, "run "+first.RunID) || !strings.Contains(errOut, "--append") {
		t.Fatalf("second run on the same tables: exit %d, want 2 naming run %s\n%s", code, first.RunID, errOut)
	}
	for _, c := range []struct{ out, flag string }{{"appended", "--append"}, {"fresh", "--fresh"}} {
		if out, errOut, code := run(t, "loadgen", args(c.out, c.flag)...); code != 0 {
			t.Fatalf("%s: exit %d\n%s%s", c.flag, code, out, errOut)
		}
		rep, code := verifyJSON(t, append(hbaseArgs(cl, "cb_reuse_"), "--run", filepath.Join(base, c.out), "--no-spread")...)
		if code != 0 || rep.Run.Lost.Count != 0 {
			t.Errorf("after %s: verify exit %d, lost %d", c.flag, code, rep.Run.Lost.Count)
		}
	}
}

// ciWriters is how many comment writes the ci preset can have in flight:
// one worker, whose bursts write 4 comments at once.
const ciWriters = 4
