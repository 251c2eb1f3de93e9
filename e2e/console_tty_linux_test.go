package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// --color auto colours severities on a terminal, and not when NO_COLOR is
// set there (no-color.org) or when the output is piped; the words say the
// severity either way. The terminal is a pseudo-terminal from /dev/ptmx.
func TestConsoleColorOnTerminal(t *testing.T) {
	args := []string{"--preset", "ci", "--layout", "seed", "--quiet", "--no-report"} // a verdict with a CRITICAL
	env := withoutNoColor(os.Environ())
	for _, c := range []struct {
		name     string
		terminal bool
		env      []string
		color    bool
	}{
		{"terminal", true, env, true},
		{"terminal NO_COLOR=1", true, append(env, "NO_COLOR=1"), false},
		{"piped", false, env, false},
	} {
		dir := t.TempDir()
		cmd := exec.Command(filepath.Join(binDir, "loadgen"),
			append(args, "--data-dir", filepath.Join(dir, "data"), "--out", filepath.Join(dir, "out"))...)
		cmd.Env = c.env
		var out string
		if c.terminal {
			out = runOnTerminal(t, cmd)
		} else {
			b, err := cmd.Output()
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			out = string(b)
		}
		if !strings.Contains(stripColor(out), "  CRITICAL ") {
			t.Errorf("%s: no CRITICAL finding by word:\n%s", c.name, out)
		}
		if got := strings.Contains(out, "\x1b["); got != c.color {
			t.Errorf("%s: escape codes %v, want %v:\n%q", c.name, got, c.color, out)
		}
	}
}

func withoutNoColor(env []string) []string {
	var out []string
	for _, e := range env {
		if !strings.HasPrefix(e, "NO_COLOR=") {
			out = append(out, e)
		}
	}
	return out
}

// runOnTerminal runs cmd with its stdout on a new pseudo-terminal and
// returns what it wrote there.
func runOnTerminal(t *testing.T, cmd *exec.Cmd) string {
	t.Helper()
	ptmx, tty, err := openPTY()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = tty, &stderr
	if err := cmd.Start(); err != nil {
		tty.Close()
		t.Fatal(err)
	}
	tty.Close() // the child holds it now: its exit ends the reads below
	read := make(chan []byte)
	go func() {
		b, err := io.ReadAll(ptmx)
		if err != nil && !errors.Is(err, syscall.EIO) { // EIO: the terminal's last holder left
			t.Errorf("reading the terminal: %v", err)
		}
		read <- b
	}()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	return string(<-read)
}

// openPTY opens a pseudo-terminal pair: the controlling side and the
// terminal a child writes to.
func openPTY() (*os.File, *os.File, error) {
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, nil, err
	}
	fd := int(ptmx.Fd())
	n, err := unix.IoctlGetUint32(fd, unix.TIOCGPTN)
	if err == nil {
		err = unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0) // unlock the terminal side
	}
	if err != nil {
		ptmx.Close()
		return nil, nil, err
	}
	tty, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		ptmx.Close()
		return nil, nil, err
	}
	return ptmx, tty, nil
}
