// Package e2e runs the built commands as a user does: separate processes
// sharing a data directory, judged by their output and exit codes.
package e2e

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"commentbench/check"
)

var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "commentbench-e2e")
	if err != nil {
		panic(err)
	}
	binDir = dir
	build := exec.Command("go", "build", "-o", dir+"/", "commentbench/cmd/...")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		os.RemoveAll(dir)
		panic("build commands: " + err.Error())
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// run executes a built command and returns its stdout, stderr and exit code.
func run(t *testing.T, name string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, name), args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return out.String(), errb.String(), 0
	case errors.As(err, &ee):
		return out.String(), errb.String(), ee.ExitCode()
	}
	t.Fatalf("%s: %v", name, err)
	return "", "", -1
}

func rows(t *testing.T, verifyOut, table string) int {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(table) + `\s+(\d+) rows`).FindStringSubmatch(verifyOut)
	if m == nil {
		t.Fatalf("no row count for %s in:\n%s", table, verifyOut)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// loadgen then verify as separate processes on one data directory: on the
// unique layout every comment has its index rows and every acknowledged
// comment exists; the data survives the first process.
func TestLoadgenThenVerify(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sum := loadgenCI(t, dir, "unique")
	vout, verr, code := run(t, "verify", "--data-dir", filepath.Join(dir, "data"), "--run", filepath.Join(dir, "out"), "--json")
	if code != 0 {
		t.Fatalf("verify exit %d, want 0\n%s%s", code, vout, verr)
	}
	var rep check.Report
	if err := json.Unmarshal([]byte(vout), &rep); err != nil {
		t.Fatalf("verify --json: %v\n%s", err, vout)
	}
	written := opCount(sum, "comment-write") + opCount(sum, "burst-write") + opCount(sum, "multi-order-write")
	if rep.References.Comments != written || rep.Run == nil || rep.Run.Acked != written || rep.Run.Lost.Count != 0 {
		t.Errorf("verify saw %d comments, run %+v; loadgen acknowledged %d", rep.References.Comments, rep.Run, written)
	}
	for _, ix := range rep.Indexes {
		if ix.Referenced != written {
			t.Errorf("%s: %d referenced of %d comments", ix.Table, ix.Referenced, written)
		}
	}
	if !rep.Consistent || rep.Layout != "unique" || rep.Spread == nil {
		t.Errorf("verdict %q, layout %s", rep.Verdict, rep.Layout)
	}
}

// On the seed layout the same run leaves collided comments: verify says so,
// exits 1, and its dry-run repair changes nothing and names the layout that
// avoids them.
func TestVerifySeedCollisions(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	loadgenCI(t, dir, "seed")
	data := filepath.Join(dir, "data")
	before := dirFiles(t, data)
	vout, verr, code := run(t, "verify", "--data-dir", data, "--repair")
	if code != 1 || !strings.Contains(vout, "collided") || !strings.Contains(vout, "would repair") ||
		!strings.Contains(vout, "unique layout") || !strings.Contains(vout, "INCONSISTENT") {
		t.Fatalf("verify --repair on seed: exit %d\n%s%s", code, vout, verr)
	}
	if after := dirFiles(t, data); after != before {
		t.Errorf("a dry run changed the data directory:\n%s\n%s", before, after)
	}
}

func dirFiles(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range entries {
		info, _ := e.Info()
		b.WriteString(e.Name() + ":" + strconv.FormatInt(info.Size(), 10) + " ")
	}
	return b.String()
}

func TestVerifyRejectsBadInput(t *testing.T) {
	t.Parallel()
	empty := t.TempDir()
	os.WriteFile(filepath.Join(empty, "notes.txt"), []byte("not a store"), 0o644)
	seeded := t.TempDir()
	loadgenCI(t, seeded, "seed", "--ops", "100")
	data := filepath.Join(seeded, "data")
	before := dirFiles(t, data)
	cases := [][]string{
		{"--data-dir", empty},
		{"--data-dir", filepath.Join(empty, "missing")},
		{},
		{"--no-such-flag"},
		{"--data-dir", data, "--layout", "unique"},
		{"--data-dir", data, "--layout", "hex"},
		{"--data-dir", data, "--run", filepath.Join(empty, "no-run")},
		{"--data-dir", data, "--yes"},
		{"--data-dir", data, "--reuse-tables"},
		{"--data-dir", data, "--repair", "--reuse-tables"},
	}
	for _, args := range cases {
		out, errOut, code := run(t, "verify", args...)
		if code != 2 || errOut == "" {
			t.Errorf("verify %v: exit %d, stderr %q; want 2 and an error", args, code, errOut)
		}
		_ = out
	}
	if entries, _ := os.ReadDir(empty); len(entries) != 1 {
		t.Errorf("verify wrote into the directory it rejected: %v", entries)
	}
	if after := dirFiles(t, data); after != before {
		t.Errorf("rejected verify runs changed the data directory")
	}
}

// csvRecords reads a CSV file whole: its header and at least one row.
func csvRecords(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil || len(recs) < 2 {
		t.Fatalf("%s: %v, %d records", path, err, len(recs))
	}
	return recs
}
