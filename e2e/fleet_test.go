package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"commentbench/results"
)

// A fleet on one machine, as a Kubernetes Indexed Job runs it: loadgen
// processes told their index by JOB_COMPLETION_INDEX alone, started
// together through a real ZooKeeper, against the test cluster.

// fleetZK is the tests' ZooKeeper, or a skip.
func fleetZK(t *testing.T) string {
	t.Helper()
	zk := os.Getenv("COMMENTBENCH_ZK")
	if zk == "" {
		t.Skip("COMMENTBENCH_ZK is not set: `make test` starts a ZooKeeper and sets it")
	}
	return zk
}

// fleetMember is one loadgen process of a fleet.
type fleetMember struct {
	index    int
	out      string // its results dir
	cmd      *exec.Cmd
	stdout   bytes.Buffer
	stderr   bytes.Buffer
	exited   chan struct{}
	exitCode int
	exitedAt time.Time
}

// startMember starts loadgen as member index of a fleet: JOB_COMPLETION_INDEX
// set, no --worker-index; env adds variables.
func startMember(t *testing.T, index int, dir string, args []string, env ...string) *fleetMember {
	t.Helper()
	m := &fleetMember{index: index, out: filepath.Join(dir, fmt.Sprintf("member-%d", index)), exited: make(chan struct{})}
	m.cmd = exec.Command(filepath.Join(binDir, "loadgen"), append(slices.Clone(args), "--out", m.out)...)
	m.cmd.Env = append(append(os.Environ(), "JOB_COMPLETION_INDEX="+strconv.Itoa(index)), env...)
	m.cmd.Stdout, m.cmd.Stderr = &m.stdout, &m.stderr
	if err := m.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		err := m.cmd.Wait()
		var ee *exec.ExitError
		switch {
		case err == nil:
		case errors.As(err, &ee):
			m.exitCode = ee.ExitCode()
		default:
			m.exitCode = -1
		}
		m.exitedAt = time.Now()
		close(m.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-m.exited:
		default:
			_ = m.cmd.Process.Kill()
			<-m.exited
		}
	})
	return m
}

// wait returns the member's exit code, failing the test past limit.
func (m *fleetMember) wait(t *testing.T, limit time.Duration) int {
	t.Helper()
	select {
	case <-m.exited:
		return m.exitCode
	case <-time.After(limit):
		t.Fatalf("member %d still running after %v; stderr:\n%s", m.index, limit, m.stderr.String())
		return -1
	}
}

// fleetArgs are the flags every member of a test fleet runs with.
func fleetArgs(mc *minicluster, zk, runID string, total int, extra ...string) []string {
	args := append(slices.Clone(mc.flags), "--preset", "ci", "--layout", "unique", "--quiet", "--no-report",
		"--workers-total", strconv.Itoa(total), "--run-id", runID, "--coordinate", zk+"/commentbench-test",
		"--join-timeout", "20s")
	return append(args, extra...)
}

// freePorts are n loopback ports free a moment ago.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var ports []int
	var lns []net.Listener
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		lns = append(lns, ln)
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	for _, ln := range lns {
		ln.Close()
	}
	return ports
}

func testRunID(t *testing.T) string {
	return fmt.Sprintf("%s-%d", strings.ToLower(strings.TrimPrefix(t.Name(), "Test")), time.Now().UnixNano())
}

// Four members start within 20 ms of the instant they agreed on and step
// their ramp within 20 ms of each other; merge is exact; the cluster
// verifies clean; and Prometheus, scraping the four, sums to the merged
// rate. Not parallel: 20 ms is a few of a busy machine's scheduling
// delays (25 ms seen beside three other end-to-end tests).
func TestFleetStartsTogether(t *testing.T) {
	zk := fleetZK(t)
	mc := startMinicluster(t)
	dir := t.TempDir()
	const total = 4
	ports := freePorts(t, total+1)
	prom := startPrometheus(t, dir, ports[total], ports[:total])
	runID := testRunID(t)
	args := fleetArgs(mc, zk, runID, total, "--ops", "0", "--warmup", "1s", "--duration", "7s", "--interval", "250ms",
		"--ramp", "20:60:20/2s")
	var ms []*fleetMember
	for i := range total {
		ms = append(ms, startMember(t, i, dir, append(slices.Clone(args), "--metrics-addr", fmt.Sprintf("127.0.0.1:%d", ports[i]))))
	}
	var sums []results.Summary
	var outs []string
	for _, m := range ms {
		if code := m.wait(t, 2*time.Minute); code != 0 {
			t.Fatalf("member %d: exit %d\n%s%s", m.index, code, m.stdout.String(), m.stderr.String())
		}
		s, err := results.ReadSummary(m.out)
		if err != nil {
			t.Fatal(err)
		}
		sums, outs = append(sums, s), append(outs, m.out)
	}
	for i, s := range sums {
		f := s.Fleet
		if f == nil || f.Index != i || f.Total != total || s.RunID != runID || len(f.Members) != total {
			t.Fatalf("member %d's fleet record %+v (run %s)", i, f, s.RunID)
		}
		if !f.StartAt.Equal(sums[0].Fleet.StartAt) {
			t.Errorf("member %d started at %v, member 0 at %v", i, f.StartAt, sums[0].Fleet.StartAt)
		}
		off := f.Began.Sub(f.StartAt)
		if off < -20*time.Millisecond || off > 20*time.Millisecond {
			t.Errorf("member %d began %v from the shared instant; want within 20ms", i, off)
		}
		t.Logf("member %d began %v after the shared instant (clock offset measured %.1fms)", i, off, f.Members[i].OffsetMS)
		if len(s.Steps) < 3 {
			t.Fatalf("member %d: %d ramp steps, want 3", i, len(s.Steps))
		}
	}
	for k := range 3 {
		var starts []time.Time
		for _, s := range sums {
			if s.Steps[k].Start.IsZero() {
				t.Fatalf("step %d has no start", k)
			}
			starts = append(starts, s.Steps[k].Start)
		}
		first, last := slices.MinFunc(starts, time.Time.Compare), slices.MaxFunc(starts, time.Time.Compare)
		if spread := last.Sub(first); spread > 20*time.Millisecond {
			t.Errorf("ramp step %d began %v apart across members; want within 20ms", k, spread)
		} else {
			t.Logf("ramp step %d: the members' first arrivals %v apart", k, spread)
		}
	}

	merged := filepath.Join(dir, "merged")
	out, errOut, code := run(t, "loadgen", append([]string{"merge", "--out", merged}, outs...)...)
	if code != 0 {
		t.Fatalf("merge: exit %d\n%s%s", code, out, errOut)
	}
	m, err := results.ReadSummary(merged)
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range m.Ops {
		var want int64
		for _, s := range sums {
			want += opCount(s, op.Op)
		}
		if op.Count != want {
			t.Errorf("merged %s: %d, want the members' sum %d", op.Op, op.Count, want)
		}
	}
	if m.Fleet == nil || len(m.Fleet.Members) != total || len(m.Fleet.Missing) != 0 || m.RunID != runID {
		t.Errorf("merged fleet record %+v", m.Fleet)
	}
	if rep, code := verifyJSON(t, mc.flags...); code != 0 || !rep.Consistent {
		t.Errorf("verify of the cluster after the fleet: exit %d, %s", code, rep.Verdict)
	}

	// The fleet's rate as Prometheus saw it: the summed counters' rise
	// over the steady phase, from their values at its start to their
	// last, each member's final interval as it served it until it exited
	// (a counter read at the phase's end lags it by an interval and a
	// scrape; read after a member exits, it is stale).
	var count int64
	for _, op := range m.Ops {
		count += op.Count
	}
	want := float64(count) / m.End.Sub(m.Start).Seconds()
	lastExit := slices.MaxFunc(ms, func(a, b *fleetMember) int { return a.exitedAt.Compare(b.exitedAt) }).exitedAt
	at := fmt.Sprintf(`sum(commentbench_ops_total{run_id=%q})`, runID)
	last := fmt.Sprintf(`sum(max_over_time(commentbench_ops_total{run_id=%q}[1m]))`, runID)
	got := (prom.query(t, last, lastExit.Add(time.Second)) - prom.query(t, at, m.Start)) / m.End.Sub(m.Start).Seconds()
	t.Logf("Prometheus's summed rate %.1f/s, the merged summary's %.1f/s", got, want)
	if got < 0.9*want || got > 1.1*want {
		t.Errorf("Prometheus's summed rate %.1f/s, the merged summary's %.1f/s: want within 10%%", got, want)
	}
}

// One member never comes: every member that did exits 2 naming it, and
// no table is created.
func TestFleetMemberMissing(t *testing.T) {
	t.Parallel()
	zk := fleetZK(t)
	mc := startMinicluster(t)
	dir := t.TempDir()
	args := fleetArgs(mc, zk, testRunID(t), 3, "--join-timeout", "3s", "--table-prefix", "fleetmiss_")
	var ms []*fleetMember
	for i := range 2 {
		ms = append(ms, startMember(t, i, dir, args))
	}
	for _, m := range ms {
		if code := m.wait(t, time.Minute); code != 2 || !strings.Contains(m.stderr.String(), "member 2 of 3 did not join within 3s") {
			t.Errorf("member %d: exit %d, want 2 naming member 2\n%s", m.index, code, m.stderr.String())
		}
	}
	out, errOut, code := run(t, "verify", append(slices.Clone(mc.flags), "--table-prefix", "fleetmiss_", "--layout", "unique")...)
	if code != 2 || !strings.Contains(errOut, "table user is missing") {
		t.Errorf("verify after the missing member's fleet: exit %d, want no tables\n%s%s", code, out, errOut)
	}
}

// A member killed mid-run: the others finish and name it; merge refuses
// without --partial and says why, and merges the rest with it.
func TestFleetMemberKilled(t *testing.T) {
	t.Parallel()
	zk := fleetZK(t)
	mc := startMinicluster(t)
	dir := t.TempDir()
	runID := testRunID(t)
	args := fleetArgs(mc, zk, runID, 3, "--ops", "0", "--warmup", "0s", "--duration", "9s", "--rate", "30",
		"--member-timeout", "4s")
	var ms []*fleetMember
	for i := range 3 {
		ms = append(ms, startMember(t, i, dir, args))
	}
	time.Sleep(time.Until(fleetStart(t, zk, runID).Add(2 * time.Second)))
	if err := ms[2].cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var outs []string
	for _, m := range ms[:2] {
		if code := m.wait(t, time.Minute); code != 0 {
			t.Fatalf("member %d: exit %d\n%s", m.index, code, m.stderr.String())
		}
		s, err := results.ReadSummary(m.out)
		if err != nil {
			t.Fatal(err)
		}
		if s.Fleet == nil || len(s.Fleet.Lost) != 1 || s.Fleet.Lost[0].Index != 2 {
			t.Errorf("member %d's fleet record %+v: want member 2 lost", m.index, s.Fleet)
		}
		if !strings.Contains(m.stderr.String(), "fleet member 2 is gone") {
			t.Errorf("member %d said nothing of member 2:\n%s", m.index, m.stderr.String())
		}
		outs = append(outs, m.out)
	}
	merged := filepath.Join(dir, "merged")
	_, errOut, code := run(t, "loadgen", append([]string{"merge", "--out", merged}, outs...)...)
	if code != 2 || !strings.Contains(errOut, "no results from member(s) 2") || !strings.Contains(errOut, "member 2 was lost mid-run") ||
		!strings.Contains(errOut, "--partial") {
		t.Errorf("merge without --partial: exit %d\n%s", code, errOut)
	}
	out, errOut, code := run(t, "loadgen", append([]string{"merge", "--partial", "--out", merged}, outs...)...)
	if code != 0 {
		t.Fatalf("merge --partial: exit %d\n%s%s", code, out, errOut)
	}
	if m, err := results.ReadSummary(merged); err != nil || m.Fleet == nil || !slices.Equal(m.Fleet.Missing, []int{2}) {
		t.Errorf("merged fleet record %+v (%v): want member 2 missing", m.Fleet, err)
	}
}

// fleetStart is the instant a test fleet's members agreed on, read from
// ZooKeeper once they have.
func fleetStart(t *testing.T, zkAddr, runID string) time.Time {
	t.Helper()
	conn, _, err := zk.Connect(strings.Split(zkAddr, ","), 10*time.Second, zk.WithLogInfo(false))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var b []byte
	waitFor(t, func() bool {
		b, _, err = conn.Get("/commentbench-test/" + runID + "/start")
		return err == nil
	}, time.Minute)
	ns, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		t.Fatalf("start node holds %q", b)
	}
	return time.Unix(0, ns)
}

// A member whose clock is 300 ms ahead refuses to start, saying by how
// much.
func TestFleetClockSkew(t *testing.T) {
	t.Parallel()
	zk := fleetZK(t)
	mc := startMinicluster(t)
	m := startMember(t, 0, t.TempDir(), fleetArgs(mc, zk, testRunID(t), 2), "COMMENTBENCH_FAKE_CLOCK_OFFSET=300ms")
	code := m.wait(t, time.Minute)
	got := regexp.MustCompile(`clock is (\d+)ms ahead of ZooKeeper's; --max-clock-skew allows 50ms`).FindStringSubmatch(m.stderr.String())
	if code != 2 || got == nil {
		t.Fatalf("exit %d, want 2 and how far off\n%s", code, m.stderr.String())
	}
	if ms, _ := strconv.Atoi(got[1]); ms < 270 || ms > 330 {
		t.Errorf("measured %sms ahead, the clock was set 300ms ahead", got[1])
	}
}

// prometheus is Debian's Prometheus server, scraping a fleet.
type prometheus struct{ addr string }

// startPrometheus runs Prometheus on loopback port, scraping targets
// every 250 ms, until the test ends.
func startPrometheus(t *testing.T, dir string, port int, targets []int) *prometheus {
	t.Helper()
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Skip("Debian's prometheus is not installed: `make test` installs it")
	}
	var ts []string
	for _, p := range targets {
		ts = append(ts, fmt.Sprintf("'127.0.0.1:%d'", p))
	}
	cfg := filepath.Join(dir, "prometheus.yml")
	body := fmt.Sprintf("global:\n  scrape_interval: 250ms\n  scrape_timeout: 200ms\nscrape_configs:\n  - job_name: fleet\n    static_configs:\n      - targets: [%s]\n", strings.Join(ts, ", "))
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	p := &prometheus{addr: fmt.Sprintf("127.0.0.1:%d", port)}
	cmd := exec.Command(bin, "--config.file="+cfg, "--storage.tsdb.path="+filepath.Join(dir, "tsdb"),
		"--web.listen-address="+p.addr, "--web.enable-lifecycle")
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &errb, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	// Ready to be queried is not yet scraping: its targets come from
	// discovery seconds later. Every target has an up series (0 while
	// nothing listens) once they are scraped.
	waitFor(t, func() bool {
		resp, err := http.Get(fmt.Sprintf("http://%s/api/v1/query?query=%s", p.addr, url.QueryEscape("count(up)")))
		if err != nil {
			return false
		}
		defer resp.Body.Close()
		var r struct {
			Data struct {
				Result []struct {
					Value [2]any `json:"value"`
				} `json:"result"`
			} `json:"data"`
		}
		return json.NewDecoder(resp.Body).Decode(&r) == nil && len(r.Data.Result) == 1 && r.Data.Result[0].Value[1] == strconv.Itoa(len(targets))
	}, time.Minute)
	return p
}

// query evaluates an instant query at at and returns its one value.
func (p *prometheus) query(t *testing.T, q string, at time.Time) float64 {
	t.Helper()
	u := fmt.Sprintf("http://%s/api/v1/query?query=%s&time=%.3f", p.addr, url.QueryEscape(q), float64(at.UnixMilli())/1000)
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			Result []struct {
				Value [2]any `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	if r.Status != "success" || len(r.Data.Result) != 1 {
		t.Fatalf("Prometheus %s: %s %s, %d results", q, r.Status, r.Error, len(r.Data.Result))
	}
	s, _ := r.Data.Result[0].Value[1].(string)
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("Prometheus %s: value %q", q, s)
	}
	return v
}

// Ctrl-C on one member stops them all: the others hear why and end as
// interrupted, their results written.
func TestFleetInterrupt(t *testing.T) {
	t.Parallel()
	zk := fleetZK(t)
	mc := startMinicluster(t)
	dir := t.TempDir()
	runID := testRunID(t)
	args := fleetArgs(mc, zk, runID, 2, "--ops", "0", "--warmup", "0s", "--duration", "30s", "--rate", "20")
	ms := []*fleetMember{startMember(t, 0, dir, args), startMember(t, 1, dir, args)}
	time.Sleep(time.Until(fleetStart(t, zk, runID).Add(time.Second)))
	if err := ms[0].cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if code := m.wait(t, time.Minute); code != 130 {
			t.Errorf("member %d: exit %d, want 130 (interrupted)\n%s", m.index, code, m.stderr.String())
		}
		if s, err := results.ReadSummary(m.out); err != nil || !s.Interrupted || s.DurationSec > 20 {
			t.Errorf("member %d's results: %v, interrupted %v after %.0fs", m.index, err, s.Interrupted, s.DurationSec)
		}
	}
	if !strings.Contains(ms[1].stderr.String(), "the fleet was stopped (member 0: interrupted)") {
		t.Errorf("member 1 did not say why it stopped:\n%s", ms[1].stderr.String())
	}
}
