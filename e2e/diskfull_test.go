package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A run on a disk that fills up: loadgen stops at the first storage
// failure with one message naming the data dir and the cause, exit 2, no
// hang and no panic. The disk is a small tmpfs, which needs root.
func TestDiskFullRun(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root")
	}
	mnt := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=6m", "tmpfs", mnt).CombinedOutput(); err != nil {
		t.Skipf("mount tmpfs: %v: %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", mnt).Run() })
	data := filepath.Join(mnt, "data")
	cmd := exec.Command(filepath.Join(binDir, "loadgen"), "--preset", "ci", "--layout", "unique", "--ops", "0",
		"--duration", "2m", "--warmup", "0", "--quiet", "--data-dir", data, "--out", filepath.Join(t.TempDir(), "out"))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var code int
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		msg := stderr.String()
		if code != 2 || !strings.Contains(msg, "no space left on device") || !strings.Contains(msg, data) {
			t.Errorf("loadgen on a full disk: exit %d (%v), want 2 naming %s and the cause\n%s", code, err, data, msg)
		}
		if strings.Contains(msg, "panic") || strings.Contains(msg, "goroutine ") {
			t.Errorf("loadgen panicked on a full disk:\n%s", msg)
		}
	case <-time.After(90 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("loadgen still running 90 s after its disk filled\n%s", stderr.String())
	}
}
