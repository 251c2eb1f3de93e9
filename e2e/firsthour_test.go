package e2e

import (
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"commentbench/results"
)

// What a new user meets in the first hour, tried as they would.

// --help goes to stdout with exit 0, so `| less` and `| head` work; verify
// explains itself before its flags and lists none it would ignore; both
// commands print their version.
func TestHelpAndVersion(t *testing.T) {
	t.Parallel()
	out, errOut, code := run(t, "loadgen", "--help")
	if code != 0 || errOut != "" || !strings.Contains(out, "usage: loadgen") || !strings.Contains(out, "--duration") {
		t.Errorf("loadgen --help: exit %d, stderr %q, stdout:\n%s", code, errOut, out)
	}
	out, errOut, code = run(t, "verify", "--help")
	if code != 0 || errOut != "" || !strings.HasPrefix(out, "verify checks") ||
		!strings.Contains(out, "usage: verify") || !strings.Contains(out, "exit codes") {
		t.Errorf("verify --help: exit %d, stderr %q, stdout:\n%s", code, errOut, out)
	}
	// Flags of writing and splitting data: verify reads data, so has none.
	for _, ignored := range []string{"--servers", "--split-initial", "--split-max", "--no-splits", "--sync", "--drop-tables"} {
		if strings.Contains(out, ignored) {
			t.Errorf("verify --help lists %s, which verify ignores", ignored)
		}
	}
	for _, cmd := range []string{"loadgen", "verify"} {
		out, errOut, code := run(t, cmd, "--version")
		if code != 0 || errOut != "" || !regexp.MustCompile(`^`+cmd+` \S.*\n$`).MatchString(out) {
			t.Errorf("%s --version: exit %d, stderr %q, stdout %q; want one line naming the command and its version", cmd, code, errOut, out)
		}
	}
}

// The first line of stdout says what is being run: version, scenario,
// design, scans, ranks, backend and seed, before anything else.
func TestFirstLineNamesTheRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	args := []string{"--preset", "ci", "--ops", "200", "--layout", "salted", "--ranks", "upsert", "--seed", "7",
		"--quiet", "--no-report", "--data-dir", data, "--out", filepath.Join(dir, "out")}
	out, errOut, code := run(t, "loadgen", args...)
	if code != 0 {
		t.Fatalf("loadgen %v: exit %d\n%s%s", args, code, out, errOut)
	}
	version, _, _ := run(t, "loadgen", "--version")
	first, _, _ := strings.Cut(out, "\n")
	want := "commentbench " + strings.TrimSpace(version) + ": scenario ci, design salted, bounded scans, ranks upsert, writes non-atomic, embedded store in " + data + ", seed 7"
	if first != want {
		t.Errorf("first line %q\nwant       %q", first, want)
	}
}

// A duration without a unit is refused on the command line, saying what
// to write; --duration 0 without --ops agrees that a duration takes a
// unit. A scenario file takes a bare number as seconds, as the README
// says: the run is 10 s long.
func TestDurationUnits(t *testing.T) {
	t.Parallel()
	_, errOut, code := run(t, "loadgen", "--duration", "10")
	if code != 2 || !strings.Contains(errOut, `"--duration"`) || !strings.Contains(errOut, "10 has no unit: write e.g. 10s or 10m") {
		t.Errorf("--duration 10: exit %d, stderr %q", code, errOut)
	}
	_, errOut, code = run(t, "loadgen", "--duration", "0")
	if code != 2 || !strings.Contains(errOut, "never stop") || !strings.Contains(errOut, "with a unit (30s)") {
		t.Errorf("--duration 0: exit %d, stderr %q", code, errOut)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "ten.yaml")
	if err := os.WriteFile(file, []byte("preset: ci\nduration: 10\nops: 100\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, "loadgen", "--scenario", file, "--quiet", "--no-report", "--out", filepath.Join(dir, "out"))
	if code != 0 {
		t.Fatalf("duration: 10 in a scenario file: exit %d\n%s%s", code, out, errOut)
	}
	if got := scenarioField(t, filepath.Join(dir, "out"), "duration"); got != `"10s"` {
		t.Errorf("duration: 10 in a scenario file ran as %s, want \"10s\" (seconds, as documented)", got)
	}
}

// scenarioField is one field of the scenario a run's summary.json records,
// as JSON.
func scenarioField(t *testing.T, run, field string) string {
	t.Helper()
	s, err := results.ReadSummary(run)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`"` + field + `":("[^"]*"|[^,}]*)`).FindStringSubmatch(string(s.Config))
	if m == nil {
		t.Fatalf("no %s in the config: %s", field, s.Config)
	}
	return m[1]
}

// merge keeps both runs' regions.csv rows, each with its run; refuses runs
// of different scenarios unless --force; and counts in words that agree.
func TestMergeFirstHour(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	runOf := func(name string, args ...string) string {
		dir := filepath.Join(base, name)
		loadgenCI(t, dir, "unique", append([]string{"--ops", "300", "--no-report"}, args...)...)
		return filepath.Join(dir, "out")
	}
	a, b, steady := runOf("a"), runOf("b", "--seed", "2"), runOf("steady", "--preset", "steady", "--warmup", "0", "--users", "500", "--products", "50")

	out, errOut, code := run(t, "loadgen", "merge", "--out", filepath.Join(base, "one"), a)
	if code != 0 || !strings.Contains(out, "merged 1 run into") {
		t.Errorf("merge of one run: exit %d\n%s%s", code, out, errOut)
	}
	_, errOut, code = run(t, "loadgen", "merge", "--out", filepath.Join(base, "mixed"), a, steady)
	if code != 2 || !strings.Contains(errOut, `scenario "ci"`) || !strings.Contains(errOut, `scenario "steady"`) || !strings.Contains(errOut, "--force") {
		t.Errorf("merge of two scenarios: exit %d, want 2 naming both and --force\n%s", code, errOut)
	}
	if _, errOut, code = run(t, "loadgen", "merge", "--force", "--out", filepath.Join(base, "forced"), a, steady); code != 0 {
		t.Errorf("merge --force of two scenarios: exit %d\n%s", code, errOut)
	}

	merged := filepath.Join(base, "ab")
	if out, errOut, code := run(t, "loadgen", "merge", "--out", merged, a, b); code != 0 || !strings.Contains(out, "merged 2 runs into") {
		t.Fatalf("merge: exit %d\n%s%s", code, out, errOut)
	}
	got := csvRecords(t, filepath.Join(merged, "regions.csv"))
	ra, rb := csvRecords(t, filepath.Join(a, "regions.csv")), csvRecords(t, filepath.Join(b, "regions.csv"))
	if want := len(ra) + len(rb) - 1; len(got) != want {
		t.Fatalf("merged regions.csv: %d records, want %d (both runs' rows under one header)", len(got), want)
	}
	header := got[0]
	if header[len(header)-1] != "run" || strings.Join(header[:len(header)-1], ",") != strings.Join(ra[0], ",") {
		t.Errorf("merged regions.csv header %v, want the runs' header and a run column", header)
	}
	runs := map[string]int{}
	for _, rec := range got[1:] {
		runs[rec[len(rec)-1]]++
	}
	if runs[a] != len(ra)-1 || runs[b] != len(rb)-1 {
		t.Errorf("merged regions.csv rows by run: %v, want %d of %s and %d of %s", runs, len(ra)-1, a, len(rb)-1, b)
	}
}

// verify on a data dir a running loadgen holds says the dir is in use and
// what to do, not the lock's errno; loadgen --append likewise.
func TestDataDirInUse(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	lg := exec.Command(filepath.Join(binDir, "loadgen"), "--preset", "ci", "--ops", "0", "--duration", "2m", "--quiet",
		"--no-report", "--data-dir", data, "--out", filepath.Join(dir, "out"))
	if err := lg.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		lg.Process.Signal(syscall.SIGKILL)
		lg.Wait()
	})
	// The lock is taken as the data dir's LOCK file is created.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(data, "LOCK")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("loadgen never opened its data dir")
		}
	}
	time.Sleep(100 * time.Millisecond)
	for _, c := range [][]string{
		{"verify", "--data-dir", data},
		{"loadgen", "--preset", "ci", "--append", "--quiet", "--data-dir", data, "--out", filepath.Join(dir, "out2")},
	} {
		_, errOut, code := run(t, c[0], c[1:]...)
		if code != 2 || !strings.Contains(errOut, data) || !strings.Contains(errOut, "in use by another process") ||
			strings.Contains(errOut, "temporarily unavailable") {
			t.Errorf("%v while loadgen runs: exit %d, stderr %q", c, code, errOut)
		}
	}
}

// A loadgen refused for what the data dir holds (another design; an
// earlier run, without --append) leaves the dir as it found it: every file
// byte for byte, none added (but for the lock Pebble takes to read).
func TestRefusedRunWritesNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	loadgenCI(t, dir, "seed", "--ops", "200", "--no-report")
	before := dirContents(t, data)
	for i, args := range [][]string{{"--layout", "unique"}, {"--layout", "seed"}} {
		_, errOut, code := run(t, "loadgen", append(args, "--preset", "ci", "--quiet", "--no-report", "--data-dir", data,
			"--out", filepath.Join(dir, "refused", strconv.Itoa(i)))...)
		if code != 2 {
			t.Fatalf("%v: exit %d, want 2\n%s", args, code, errOut)
		}
		after := dirContents(t, data)
		if !maps.Equal(before, after) {
			t.Errorf("%v: the refused run changed the data dir:\nbefore %v\nafter  %v", args, before, after)
		}
	}
}

// dirContents is every file under dir (Pebble's LOCK aside) and its content.
func dirContents(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == "LOCK" {
			return err
		}
		b, err := os.ReadFile(path)
		files[path] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
