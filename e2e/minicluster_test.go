package e2e

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// minicluster is a minicluster process and the flags line it printed.
type minicluster struct {
	cmd    *exec.Cmd
	flags  []string
	stderr *strings.Builder
	waited chan error
}

// startMinicluster starts bin/minicluster with args and reads the flags
// line it prints first. The process is killed at cleanup if the test did
// not stop it.
func startMinicluster(t *testing.T, args ...string) *minicluster {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "minicluster"), args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	mc := &minicluster{cmd: cmd, stderr: &strings.Builder{}, waited: make(chan error, 1)}
	cmd.Stderr = mc.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 1)
	go func() {
		r := bufio.NewReader(stdout)
		line, _ := r.ReadString('\n')
		lines <- line
		_, _ = r.WriteTo(devNull{})
		mc.waited <- cmd.Wait()
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			<-mc.waited
		}
	})
	select {
	case line := <-lines:
		mc.flags = strings.Fields(line)
		if len(mc.flags) < 4 || mc.flags[0] != "--backend" || mc.flags[1] != "hbase" {
			t.Fatalf("minicluster printed %q first; stderr:\n%s", line, mc.stderr)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("minicluster printed no flags line; stderr:\n%s", mc.stderr)
	}
	return mc
}

type devNull struct{}

func (devNull) Write(p []byte) (int, error) { return len(p), nil }

// interrupt sends SIGINT (Ctrl-C) and returns the exit code once the
// process is gone.
func (mc *minicluster) interrupt(t *testing.T) int {
	t.Helper()
	if err := mc.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-mc.waited:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(30 * time.Second):
		t.Fatalf("minicluster still running 30s after SIGINT; stderr:\n%s", mc.stderr)
		return -1
	}
}

// addrs are the loopback addresses in the bootstrap flag.
func (mc *minicluster) addrs() []string {
	for i, f := range mc.flags {
		if f == "--hbase-bootstrap" && i+1 < len(mc.flags) {
			return strings.Split(mc.flags[i+1], ",")
		}
	}
	return nil
}

// gone checks that the process no longer exists and that none of addrs
// takes a connection.
func (mc *minicluster) gone(t *testing.T, addrs []string) {
	t.Helper()
	if err := syscall.Kill(mc.cmd.Process.Pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("process %d still there after exit: %v", mc.cmd.Process.Pid, err)
	}
	for _, a := range addrs {
		if conn, err := net.DialTimeout("tcp", a, time.Second); err == nil {
			conn.Close()
			t.Errorf("port %s still open after minicluster exited", a)
		}
	}
}

// The README's three commands: minicluster as a process, loadgen and verify
// through the flags it printed, then Ctrl-C: exit 0, the process and every
// port gone.
func TestMiniclusterLoadgenVerify(t *testing.T) {
	t.Parallel()
	mc := startMinicluster(t)
	addrs := mc.addrs()
	if len(addrs) != 4 {
		t.Fatalf("flags %v: want the master and 3 region servers", mc.flags)
	}
	dir := t.TempDir()
	args := append(append([]string{}, mc.flags...), "--preset", "ci", "--layout", "unique", "--quiet", "--out", filepath.Join(dir, "out"))
	if out, errOut, code := run(t, "loadgen", args...); code != 0 {
		t.Fatalf("loadgen through the minicluster: exit %d\n%s%s", code, out, errOut)
	}
	rep, code := verifyJSON(t, append(append([]string{}, mc.flags...), "--run", filepath.Join(dir, "out"))...)
	if code != 0 || !rep.Consistent || rep.Run == nil || rep.Run.Acked == 0 || rep.Run.Lost.Count != 0 || rep.Layout != "unique" {
		t.Fatalf("verify through the minicluster: exit %d, %s, run %+v", code, rep.Verdict, rep.Run)
	}
	if code := mc.interrupt(t); code != 0 {
		t.Fatalf("exit %d after SIGINT; stderr:\n%s", code, mc.stderr)
	}
	if !strings.Contains(mc.stderr.String(), "minicluster: stopped") {
		t.Errorf("stderr:\n%s", mc.stderr)
	}
	mc.gone(t, addrs)
}

// A failure rehearsal: a split, a server killed and a burst of busy
// answers, scheduled with --fault, while loadgen runs; nothing it
// acknowledged is lost.
func TestMiniclusterFaultSchedule(t *testing.T) {
	t.Parallel()
	mc := startMinicluster(t, "--fault", "1s:split:cb_comment,2s:kill:rs2,3s:busy:20,3s:move:cb_product-comment")
	dir := t.TempDir()
	args := append(append([]string{}, mc.flags...), "--preset", "ci", "--layout", "unique", "--ops", "0", "--duration", "5s",
		"--quiet", "--out", filepath.Join(dir, "out"))
	if out, errOut, code := run(t, "loadgen", args...); code != 0 {
		t.Fatalf("loadgen through the faults: exit %d\n%s%s\nminicluster:\n%s", code, out, errOut, mc.stderr)
	}
	rep, _ := verifyJSON(t, append(append([]string{}, mc.flags...), "--run", filepath.Join(dir, "out"))...)
	if rep.Run == nil || rep.Run.Acked == 0 || rep.Run.Lost.Count != 0 {
		t.Fatalf("run reconciliation %+v; want acknowledged comments and none lost", rep.Run)
	}
	for _, want := range []string{"split cb_comment", "killed rs2", "the next 20 calls fail", "moved"} {
		if !strings.Contains(mc.stderr.String(), want) {
			t.Errorf("minicluster did not report %q:\n%s", want, mc.stderr)
		}
	}
	addrs := mc.addrs()
	if code := mc.interrupt(t); code != 0 {
		t.Fatalf("exit %d after SIGINT", code)
	}
	mc.gone(t, addrs)
}

// With --zk the cluster is found through a real ZooKeeper alone, and its
// znodes go with it.
func TestMiniclusterZooKeeper(t *testing.T) {
	t.Parallel()
	zk := os.Getenv("COMMENTBENCH_ZK")
	if zk == "" {
		t.Skip("COMMENTBENCH_ZK is not set: `make test` starts a ZooKeeper and sets it")
	}
	root := fmt.Sprintf("/cb-e2e-%d", os.Getpid())
	mc := startMinicluster(t, "--zk", zk, "--zk-root", root)
	if want := []string{"--backend", "hbase", "--hbase-zk", zk, "--hbase-zk-root", root}; strings.Join(mc.flags, " ") != strings.Join(want, " ") {
		t.Fatalf("flags %v, want %v", mc.flags, want)
	}
	dir := t.TempDir()
	args := append(append([]string{}, mc.flags...), "--preset", "ci", "--layout", "unique", "--ops", "300", "--quiet", "--out", filepath.Join(dir, "out"))
	if out, errOut, code := run(t, "loadgen", args...); code != 0 {
		t.Fatalf("loadgen through ZooKeeper: exit %d\n%s%s", code, out, errOut)
	}
	if code := mc.interrupt(t); code != 0 {
		t.Fatalf("exit %d after SIGINT", code)
	}
	_, errOut, code := run(t, "verify", append(append([]string{}, mc.flags...), "--hbase-timeout", "3s")...)
	if code != 2 || errOut == "" {
		t.Errorf("verify after the cluster stopped: exit %d, %q; want 2: its znodes are gone", code, errOut)
	}
}
