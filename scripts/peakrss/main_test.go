package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A child that holds 64 MiB touched reports at least that, and its exit
// status comes back unchanged.
func TestPeakOfAChild(t *testing.T) {
	if os.Getenv("PEAKRSS_CHILD") == "1" {
		b := make([]byte, 64<<20)
		for i := range b {
			b[i] = byte(i)
		}
		os.Exit(int(b[3]))
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "rss")
	t.Setenv("PEAKRSS_CHILD", "1")
	code, err := run(out, []string{exe, "-test.run", "^TestPeakOfAChild$"})
	if err != nil {
		t.Fatal(err)
	}
	if code != 3 {
		t.Errorf("exit status %d, want the child's 3", code)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	kib, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		t.Fatalf("%q: %v", raw, err)
	}
	if kib < 64<<10 || kib > 1<<20 {
		t.Errorf("peak RSS %d KiB, want at least the child's 65536 and below 1 GiB", kib)
	}
}

func TestMissingCommand(t *testing.T) {
	if _, err := run(filepath.Join(t.TempDir(), "rss"), []string{"/nonexistent/command"}); err == nil {
		t.Error("no error for a command that does not exist")
	}
}
