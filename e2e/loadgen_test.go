package e2e

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"commentbench/results"
	"commentbench/workload"
)

// loadgenCI runs the ci preset into dir/data and dir/out and returns the
// summary it wrote.
func loadgenCI(t *testing.T, dir, layout string, extra ...string) results.Summary {
	t.Helper()
	return loadgenInto(t, dir, append([]string{"--preset", "ci", "--layout", layout, "--duration", ciCap}, extra...)...)
}

// ciCap replaces the ci preset's minute, which a busy machine's run of
// 3000 operations can reach (1507 done beside make test's other tests),
// so the counts the tests compare are the operation budget's alone.
const ciCap = "10m"

// loadgenInto runs loadgen with args into dir/data and dir/out, quietly,
// wants exit 0, and returns the summary it wrote.
func loadgenInto(t *testing.T, dir string, args ...string) results.Summary {
	t.Helper()
	args = append(args, "--quiet", "--data-dir", filepath.Join(dir, "data"), "--out", filepath.Join(dir, "out"))
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

func opCount(s results.Summary, op string) int64 {
	for _, o := range s.Ops {
		if o.Op == op {
			return o.Count
		}
	}
	return 0
}

// The ci preset on both layouts: every op ran, counts agree across files,
// percentiles are ordered, histograms decode and merge; the pagers report
// the seed layout's missing comments and nothing on unique.
func TestLoadgenCIResults(t *testing.T) {
	t.Parallel()
	dirs := map[string]string{}
	sums := map[string]results.Summary{}
	for _, layout := range []string{"seed", "unique"} {
		dirs[layout] = t.TempDir()
		sums[layout] = loadgenCI(t, dirs[layout], layout)
		checkSummary(t, layout, sums[layout], filepath.Join(dirs[layout], "out"))
	}
	if m := sums["seed"].Violations[workload.VMissing]; m == nil || m.Count == 0 {
		t.Errorf("seed: violations %v; want missing comments from the bursts' collisions", sums["seed"].Violations)
	}
	if v := sums["unique"].Violations; len(v) != 0 {
		t.Errorf("unique: violations %v; want none", v)
	}
	checkMerge(t, sums, filepath.Join(dirs["seed"], "out"), filepath.Join(dirs["unique"], "out"))
}

func checkSummary(t *testing.T, layout string, s results.Summary, out string) {
	t.Helper()
	timeline := timelineCounts(t, filepath.Join(out, "timeline.csv"))
	for _, op := range workload.OpNames {
		if op == "site-latest" { // only a design that keeps the site's latest comments reads them
			if opCount(s, op) != 0 || slices.ContainsFunc(s.Ops, func(o results.OpSummary) bool { return o.Op == op }) {
				t.Errorf("%s: a design with no latest-comment listing shows op %s", layout, op)
			}
			continue
		}
		if opCount(s, op) == 0 {
			t.Errorf("%s: op %s never ran", layout, op)
		}
	}
	for _, o := range s.Ops {
		p := o.Latency
		if !(p.P50 <= p.P90 && p.P90 <= p.P99 && p.P99 <= p.P999 && p.P999 <= p.Max) {
			t.Errorf("%s %s: percentiles out of order %+v", layout, o.Op, p)
		}
		h, err := hdr.Decode([]byte(o.LatencyHist))
		if err != nil || h.TotalCount() != o.Count {
			t.Errorf("%s %s: histogram decodes to %v (err %v), want %d values", layout, o.Op, h.TotalCount(), err, o.Count)
		}
		if timeline[o.Op] != o.Count {
			t.Errorf("%s %s: timeline.csv counts %d, summary %d", layout, o.Op, timeline[o.Op], o.Count)
		}
		if _, err := os.Stat(filepath.Join(out, o.Op+".hgrm")); err != nil {
			t.Errorf("%s: %v", layout, err)
		}
	}
	if s.Pacing.Arrivals != 3000 {
		t.Errorf("%s: %d arrivals, want the preset's 3000", layout, s.Pacing.Arrivals)
	}
}

// timelineCounts sums timeline.csv's count column per op.
func timelineCounts(t *testing.T, path string) map[string]int64 {
	t.Helper()
	recs := csvRecords(t, path)
	if !strings.HasPrefix(strings.Join(recs[0], ","), "start_s,end_s,partial,op,count,p50_ms,p99_ms,p999_ms,max_ms,errors") {
		t.Fatalf("timeline.csv header %v", recs[0])
	}
	m := map[string]int64{}
	for _, r := range recs[1:] {
		n, _ := strconv.ParseInt(r[4], 10, 64)
		m[r[3]] += n
	}
	return m
}

func checkMerge(t *testing.T, sums map[string]results.Summary, a, b string) {
	t.Helper()
	merged := filepath.Join(t.TempDir(), "merged")
	// Runs of two key designs merge only when forced; one run twice never.
	if _, errOut, code := run(t, "loadgen", "merge", "--out", merged, a, b); code != 2 || !strings.Contains(errOut, "--force") {
		t.Errorf("merge of two designs unforced: exit %d\n%s", code, errOut)
	}
	if _, errOut, code := run(t, "loadgen", "merge", "--force", "--out", merged, a, a); code != 2 || !strings.Contains(errOut, "same run") {
		t.Errorf("merge of one run twice: exit %d\n%s", code, errOut)
	}
	// An SLO on an op no run has is refused as loadgen refuses it.
	if _, errOut, code := run(t, "loadgen", "merge", "--force", "--slo", "coment-write:p99<10ms", "--out", merged, a, b); code != 2 ||
		!strings.Contains(errOut, `op "coment-write": want one of`) {
		t.Errorf("merge with an SLO on no op: exit %d\n%s", code, errOut)
	}
	out, errOut, code := run(t, "loadgen", "merge", "--force", "--out", merged, a, b)
	if code != 0 || !strings.Contains(out, "merged 2 runs into") {
		t.Fatalf("merge: exit %d\n%s%s", code, out, errOut)
	}
	tl := timelineCounts(t, filepath.Join(merged, "timeline.csv"))
	for _, op := range []string{"order-create", "comment-write"} {
		if want := opCount(sums["seed"], op) + opCount(sums["unique"], op); tl[op] != want {
			t.Errorf("merged timeline.csv: %s %d, want %d", op, tl[op], want)
		}
	}
	m, err := results.ReadSummary(merged)
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range workload.OpNames {
		want := opCount(sums["seed"], op) + opCount(sums["unique"], op)
		if got := opCount(m, op); got != want {
			t.Errorf("merged %s: %d, want %d", op, got, want)
		}
	}
}

// SIGINT mid-run: loadgen stops issuing, drains, and leaves complete,
// parseable result files.
func TestLoadgenInterrupt(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		interruptRun(t, sig)
	}
}

func interruptRun(t *testing.T, sig syscall.Signal) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	cmd := exec.Command(filepath.Join(binDir, "loadgen"), "--duration", "5m", "--warmup", "0",
		"--users", "2000", "--products", "200", "--quiet", "--out", out, "--data-dir", filepath.Join(dir, "data"))
	var stdout strings.Builder
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return lines(filepath.Join(out, "timeline.csv")) > 2 }, 60*time.Second)
	cmd.Process.Signal(sig)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 130 {
			t.Fatalf("loadgen after %v: %v, want exit 130\n%s", sig, err, stdout.String())
		}
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("loadgen did not exit within 60 s of %v", sig)
	}
	s, err := results.ReadSummary(out)
	if err != nil {
		t.Fatalf("summary after %v: %v", sig, err)
	}
	if !s.Interrupted {
		t.Errorf("%v: summary.json does not say interrupted", sig)
	}
	for _, f := range []string{"comment-write.hgrm", "comment-write.hlog", "ledger-0000.bin", "regions.csv"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("after %v: %v", sig, err)
		}
	}
	if opCount(s, "comment-write") == 0 || s.DurationSec <= 0 || !strings.Contains(stdout.String(), "interrupted") {
		t.Errorf("summary after %v: %d writes over %vs; stdout %q", sig, opCount(s, "comment-write"), s.DurationSec, stdout.String())
	}
	counts := timelineCounts(t, filepath.Join(out, "timeline.csv"))
	if counts["comment-write"] != opCount(s, "comment-write") {
		t.Errorf("%v: timeline.csv has %d writes, summary %d", sig, counts["comment-write"], opCount(s, "comment-write"))
	}
}

// A second signal exits at once, even while the first waits for requests
// in flight: here every request holds a modeled server's one handler for
// a second, so the drain would take many.
func TestLoadgenSecondInterrupt(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(filepath.Join(binDir, "loadgen"), "--preset", "ci", "--ops", "0", "--duration", "5m", "--warmup", "0",
		"--workers", "8", "--server-capacity", "1", "--server-handlers", "1", "--quiet", "--no-report",
		"--out", filepath.Join(dir, "out"), "--data-dir", filepath.Join(dir, "data"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() }) // a failed test leaves no loadgen behind
	waitFor(t, func() bool { return lines(filepath.Join(dir, "out", "timeline.csv")) > 0 }, 60*time.Second)
	cmd.Process.Signal(syscall.SIGINT)
	time.Sleep(300 * time.Millisecond)
	start := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 130 || !strings.Contains(stderr.String(), "second interrupt") {
			t.Fatalf("loadgen after a second SIGINT: %v, want exit 130 saying so\n%s", err, stderr.String())
		}
		t.Logf("exited %v after the second signal", time.Since(start))
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("loadgen still draining 20 s after a second SIGINT\n%s", stderr.String())
	}
}

func lines(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	n := 0
	for sc := bufio.NewScanner(f); sc.Scan(); n++ {
	}
	return n
}

func waitFor(t *testing.T, cond func() bool, limit time.Duration) {
	t.Helper()
	for end := time.Now().Add(limit); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatal("condition not met in time")
}

// Every malformed flag, scenario file or SLO is rejected before any write:
// exit 2, the offending value named, no data or results directory created.
func TestLoadgenRejectsBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	badYAML := filepath.Join(dir, "bad.yaml")
	os.WriteFile(badYAML, []byte("workers: 4\nwrokers: 5\n"), 0o644)
	badValue := filepath.Join(dir, "badvalue.yaml")
	os.WriteFile(badValue, []byte("mix: {write: 1, teleport: 2}\n"), 0o644)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--workers", "-1"}, "-1"},
		{[]string{"--duration", "soon"}, "soon"},
		{[]string{"--layout", "hex"}, "hex"},
		{[]string{"--scan", "sideways"}, "sideways"},
		{[]string{"--backend", "cassandra"}, "cassandra"},
		{[]string{"--rate", "-5"}, "-5"},
		{[]string{"--ramp", "1000:10"}, "1000:10"},
		{[]string{"--arrival", "bursty"}, "bursty"},
		{[]string{"--zipf", "-1"}, "-1"},
		{[]string{"--preset", "nope"}, "nope"},
		{[]string{"--scenario", filepath.Join(dir, "missing.yaml")}, "missing.yaml"},
		{[]string{"--scenario", badYAML}, "wrokers"},
		{[]string{"--scenario", badValue}, "teleport"},
		{[]string{"--slo", "comment-write:p98<=1ms"}, "p98"},
		{[]string{"--slo", "comment-wrte:p99<=1ms"}, "comment-wrte"},
		{[]string{"--slo", "comment-write:p99<=fast"}, "fast"},
		{[]string{"--worker-index", "3", "--workers-total", "2"}, "--worker-index 3"},
		{[]string{"stray"}, "stray"},
		{[]string{"--no-such-flag"}, "no-such-flag"},
		{[]string{"--ramp", "100:200:50/1s", "--rate", "100"}, "--ramp 100:200:50/1s and --rate 100: give one"},
		{[]string{"--arrival", "poisson"}, "--arrival poisson: arrivals are for an open loop"},
		{[]string{"--system", "perfect"}, `system: "perfect" (want seed or fixed)`},
		{[]string{"--ranks", "sometimes"}, `ranks: "sometimes"`},
		{[]string{"--rank-shrink", "2"}, "rank_shrink: 2 is out of range"},
		{[]string{"--rate", "1k"}, "--rate 1k: want a number"},
		{[]string{"--seed", "-1"}, "--seed -1: want a whole number, 0 or more"},
		{[]string{"--warmup", "5x"}, `"5x" is not a duration: write e.g. 30s`},
		{[]string{"--scenario", badYAML}, "--scenario: " + badYAML + ": "},
		{[]string{"--products", "0"}, `scenario "steady": products: 0 is out of range`}, // one problem, not a second of hot_share
	}
	for _, c := range cases {
		data, out := filepath.Join(dir, "data"), filepath.Join(dir, "out")
		_, errOut, code := run(t, "loadgen", append(c.args, "--data-dir", data, "--out", out)...)
		if code != 2 || !strings.Contains(errOut, c.want) || strings.Contains(errOut, "strconv") {
			t.Errorf("loadgen %v: exit %d, stderr %q; want 2 naming %q", c.args, code, errOut, c.want)
		}
		for _, d := range []string{data, out} {
			if _, err := os.Stat(d); err == nil {
				t.Errorf("loadgen %v created %s despite bad input", c.args, d)
				os.RemoveAll(d)
			}
		}
	}
	empty := t.TempDir()
	if _, errOut, code := run(t, "loadgen", "merge", "--out", filepath.Join(dir, "merged"), empty); code != 2 ||
		!strings.Contains(errOut, empty+" holds no summary.json: is it a loadgen results directory?") {
		t.Errorf("loadgen merge of an empty directory: exit %d, stderr %q", code, errOut)
	}
}

// An SLO breach makes the exit code 1, so CI can gate on it.
func TestLoadgenSLOExit(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		slo  string
		code int
	}{
		{"comment-write:p50<=1us", 1},
		{"*:error-rate<=1%", 0},
	} {
		dir := t.TempDir()
		out, errOut, code := run(t, "loadgen", "--preset", "ci", "--ops", "300", "--quiet", "--slo", c.slo,
			"--out", filepath.Join(dir, "out"))
		if code != c.code {
			t.Errorf("--slo %s: exit %d, want %d\n%s%s", c.slo, code, c.code, out, errOut)
		}
		verdict := map[int]string{0: "met", 1: "BREACHED"}[c.code]
		if !strings.Contains(out, verdict) {
			t.Errorf("--slo %s: summary does not say %s:\n%s", c.slo, verdict, out)
		}
	}
}

// An SLO on an action, through the command line: an open loop far past
// what the machine serves breaches it (exit 1, every op of a late arrival
// carrying its wait), one well below capacity meets it (exit 0).
func TestActionSLO(t *testing.T) {
	for _, c := range []struct {
		rate string
		code int
	}{{"100000", 1}, {"40", 0}} {
		dir := t.TempDir()
		args := []string{"--preset", "ci", "--layout", "unique", "--ops", "0", "--duration", "2s", "--warmup", "0s",
			"--rate", c.rate, "--workers", "2", "--quiet", "--no-report",
			"--slo", "action:post-comment:p99<=300ms", "--slo", "comment-write:p99<=300ms",
			"--data-dir", filepath.Join(dir, "data"), "--out", filepath.Join(dir, "out")}
		out, errOut, code := run(t, "loadgen", args...)
		if code != c.code {
			t.Errorf("--rate %s: exit %d, want %d\n%s%s", c.rate, code, c.code, out, errOut)
			continue
		}
		sum, err := results.ReadSummary(filepath.Join(dir, "out"))
		if err != nil {
			t.Fatal(err)
		}
		if len(sum.SLOs) != 2 || sum.SLOs[0].Met != (c.code == 0) || sum.SLOs[1].Met != (c.code == 0) {
			t.Errorf("--rate %s: SLO results %+v", c.rate, sum.SLOs)
		}
	}
}

// 1,024 workers on the embedded engine stay within 512 MiB of peak RSS,
// measured by the kernel for the whole process, and start recording at
// once (histograms are per op and shard, not per worker).
func TestThousandWorkersMemory(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(filepath.Join(binDir, "loadgen"), "--preset", "ci", "--layout", "unique", "--workers", "1024",
		"--ops", "0", "--duration", "3s", "--warmup", "0s", "--quiet", "--no-report",
		"--data-dir", filepath.Join(dir, "data"), "--out", filepath.Join(dir, "out"))
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("loadgen: %v\n%s", err, errb.String())
	}
	peak := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss / 1024 // KiB on Linux
	if peak > 512 {
		t.Errorf("1,024 workers: peak RSS %d MiB, want at most 512", peak)
	}
	sum, err := results.ReadSummary(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	if sum.Pacing.Arrivals == 0 || sum.DurationSec < 2.5 {
		t.Errorf("1,024 workers did %d arrivals over %.1f s", sum.Pacing.Arrivals, sum.DurationSec)
	}
	t.Logf("1,024 workers: peak RSS %d MiB, %d arrivals", peak, sum.Pacing.Arrivals)
}

// A load phase through the binary: its comments are written before the
// run, said on the console and in summary.json, not recorded, and in the
// ledger verify reconciles (acked counts them with the run's own writes).
func TestLoadPhase(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	args := []string{"--preset", "ci", "--layout", "unique", "--users", "300", "--load-per-user", "4", "--ops", "200",
		"--data-dir", filepath.Join(dir, "data"), "--out", filepath.Join(dir, "out")}
	out, errOut, code := run(t, "loadgen", args...)
	if code != 0 || !strings.Contains(out, "load phase: 1200 comments in ") {
		t.Fatalf("loadgen %v: exit %d, want 0 and the load phase's line\n%s%s", args, code, out, errOut)
	}
	sum, err := results.ReadSummary(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	if sum.Load == nil || sum.Load.Comments != 1200 || sum.Load.Seconds <= 0 {
		t.Fatalf("summary.json load = %+v, want 1200 comments in some time", sum.Load)
	}
	written := opCount(sum, "comment-write") + opCount(sum, "burst-write") + opCount(sum, "multi-order-write")
	rep, vcode := verifyJSON(t, "--data-dir", filepath.Join(dir, "data"), "--run", filepath.Join(dir, "out"))
	if vcode != 0 || rep.Run == nil || rep.Run.Acked != 1200+written || rep.References.Comments != rep.Run.Acked {
		t.Errorf("verify: exit %d, run %+v, %d comments; want 0 and %d acknowledged (1200 loaded, %d in the run), all there",
			vcode, rep.Run, rep.References.Comments, 1200+written, written)
	}
}
