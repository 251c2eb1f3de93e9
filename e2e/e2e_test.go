// Package e2e runs the built commands as a user does: separate processes
// sharing a data directory, judged by their output and exit codes.
package e2e

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
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

// loadgen then verify as separate processes on one data directory: the
// unique layout keeps one index row per comment; the data survives the
// first process.
func TestLoadgenThenVerify(t *testing.T) {
	dir := t.TempDir()
	sum := loadgenCI(t, dir, "unique")
	vout, verr, code := run(t, "verify", "--data-dir", filepath.Join(dir, "data"))
	if code != 0 {
		t.Fatalf("verify exit %d, want 0\n%s%s", code, vout, verr)
	}
	written := int(opCount(sum, "comment-write") + opCount(sum, "burst-write") + opCount(sum, "multi-order-write"))
	for _, table := range []string{"comment", "user-comment", "product-comment"} {
		if n := rows(t, vout, table); n != written {
			t.Errorf("%s has %d rows; loadgen acknowledged %d comments", table, n, written)
		}
	}
}

func TestVerifyRejectsBadInput(t *testing.T) {
	empty := t.TempDir()
	os.WriteFile(filepath.Join(empty, "notes.txt"), []byte("not a store"), 0o644)
	cases := [][]string{
		{"--data-dir", empty},
		{"--data-dir", filepath.Join(empty, "missing")},
		{},
		{"--no-such-flag"},
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
}
