package fleet

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"
)

// zkEnv names the real ZooKeeper `make test` starts (scripts/zookeeper.sh).
const zkEnv = "COMMENTBENCH_ZK"

const testRoot = "/commentbench-test/fleet"

// wait bounds every wait on an event; the events come far sooner.
const wait = 15 * time.Second

func servers(t *testing.T) []string {
	t.Helper()
	addr := os.Getenv(zkEnv)
	if addr == "" {
		t.Skipf("%s is not set: `make test` starts a ZooKeeper and sets it (or: bash scripts/zookeeper.sh start DIR; export %s=$(cat DIR/addr))", zkEnv, zkEnv)
	}
	return strings.Split(addr, ",")
}

// newRun returns a run id of the test's own, and a Config maker for it.
func newRun(t *testing.T, total int) (string, func(i int) Config) {
	t.Helper()
	srv := servers(t)
	t.Parallel()
	run := strings.ReplaceAll(t.Name(), "/", "_") + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	return run, func(i int) Config {
		return Config{
			Servers: srv, Root: testRoot, RunID: run, Index: i, Total: total,
			Host:        fmt.Sprintf("host%d", i),
			JoinTimeout: 5 * time.Second, Lead: 300 * time.Millisecond, SessionTimeout: 4 * time.Second,
		}
	}
}

// joinAll joins cfgs at once; every member that joined closes at the test's end.
func joinAll(t *testing.T, cfgs ...Config) ([]*Member, []error) {
	t.Helper()
	ms, errs := make([]*Member, len(cfgs)), make([]error, len(cfgs))
	var wg sync.WaitGroup
	for k, cfg := range cfgs {
		wg.Go(func() { ms[k], errs[k] = Join(context.Background(), cfg) })
	}
	wg.Wait()
	for _, m := range ms {
		if m != nil {
			t.Cleanup(func() { m.Close() })
		}
	}
	return ms, errs
}

func mustJoinAll(t *testing.T, cfgs ...Config) []*Member {
	t.Helper()
	ms, errs := joinAll(t, cfgs...)
	for k, err := range errs {
		if err != nil {
			t.Fatalf("member %d: Join: %v", cfgs[k].Index, err)
		}
	}
	return ms
}

func configs(mk func(int) Config, idx ...int) []Config {
	var out []Config
	for _, i := range idx {
		out = append(out, mk(i))
	}
	return out
}

// Four members join at once, see each other, and get one start instant
// at least Lead after the last of them called Ready.
func TestStartTogether(t *testing.T) {
	run, mk := newRun(t, 4)
	ms := mustJoinAll(t, configs(mk, 0, 1, 2, 3)...)
	for k, m := range ms {
		got := m.Members()
		if len(got) != 4 {
			t.Fatalf("member %d: Members() = %+v, want 4", k, got)
		}
		for i, info := range got {
			if info.Index != i || info.Host != fmt.Sprintf("host%d", i) || info.PID != os.Getpid() || info.Joined.IsZero() {
				t.Errorf("member %d: Members()[%d] = %+v", k, i, info)
			}
		}
		if off := m.Offset(); off > 20*time.Millisecond || off < -20*time.Millisecond {
			t.Errorf("member %d: offset %v against a ZooKeeper on this machine", k, off)
		}
	}

	starts, errs := make([]time.Time, 4), make([]error, 4)
	calls := make([]time.Time, 4)
	var wg sync.WaitGroup
	for k, m := range ms {
		wg.Go(func() {
			time.Sleep(time.Duration(k) * 50 * time.Millisecond) // not all at once
			calls[k] = time.Now()
			starts[k], errs[k] = m.Ready(context.Background())
		})
	}
	wg.Wait()
	for k, err := range errs {
		if err != nil {
			t.Fatalf("member %d: Ready: %v", k, err)
		}
	}
	for k := range starts {
		if !starts[k].Equal(starts[0]) {
			t.Errorf("member %d starts at %v, member 0 at %v", k, starts[k], starts[0])
		}
	}
	// The member that fixed the start read its clock after the last Ready
	// began; it reads the start Lead after that (the others within their
	// offsets of it).
	last := slices.MaxFunc(calls, time.Time.Compare)
	latest := ms[0].Local(starts[0])
	for _, m := range ms[1:] {
		latest = later(latest, m.Local(starts[0]))
	}
	if lead := latest.Sub(last); lead < 300*time.Millisecond {
		t.Errorf("start is %v after the last Ready, want at least the lead, 300ms", lead)
	}

	// The run has started: no member may join it again.
	if m, err := Join(context.Background(), mk(0)); err == nil {
		m.Close()
		t.Error("a member joined a started run")
	} else if want := fmt.Sprintf(`fleet: run %q has already started (%s/%s/start exists); a new run needs a new run id`, run, testRoot, run); err.Error() != want {
		t.Errorf("joining a started run:\n got %v\nwant %s", err, want)
	}
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// Member 1 of 3 never comes: the others give up after their JoinTimeout,
// naming it; member 2 gives up first, and member 0 then says it left.
func TestJoinMissing(t *testing.T) {
	_, mk := newRun(t, 3)
	cfgs := configs(mk, 0, 2)
	cfgs[0].JoinTimeout = 1500 * time.Millisecond
	cfgs[1].JoinTimeout = 500 * time.Millisecond
	began := time.Now()
	_, errs := joinAll(t, cfgs...)
	for k, want := range []string{
		"member 1 of 3 did not join within 1.5s; member 2 joined, then left",
		"member 1 of 3 did not join within 500ms",
	} {
		var me *MissingError
		if !errors.As(errs[k], &me) {
			t.Fatalf("member %d: Join: %v, want a *MissingError", cfgs[k].Index, errs[k])
		}
		if me.Stage != StageJoin || !slices.Equal(me.Missing, []int{1}) || me.Total != 3 {
			t.Errorf("member %d: %+v, want member 1 of 3 missing at join", cfgs[k].Index, me)
		}
		if errs[k].Error() != want {
			t.Errorf("member %d: %q, want %q", cfgs[k].Index, errs[k], want)
		}
	}
	if d := time.Since(began); d < 1500*time.Millisecond {
		t.Errorf("Join gave up after %v, before the join timeout (1.5s)", d)
	}
}

// Both members join; only member 0 becomes ready: it gives up after
// JoinTimeout, naming member 1.
func TestReadyMissing(t *testing.T) {
	_, mk := newRun(t, 2)
	cfgs := configs(mk, 0, 1)
	cfgs[0].JoinTimeout = time.Second
	ms := mustJoinAll(t, cfgs...)
	began := time.Now()
	_, err := ms[0].Ready(context.Background())
	var me *MissingError
	if !errors.As(err, &me) || me.Stage != StageReady || !slices.Equal(me.Missing, []int{1}) {
		t.Fatalf("Ready: %v, want member 1 missing at ready", err)
	}
	if want := "member 1 of 2 was not ready within 1s"; err.Error() != want {
		t.Errorf("Ready: %q, want %q", err, want)
	}
	if d := time.Since(began); d < time.Second {
		t.Errorf("Ready gave up after %v, before the timeout (1s)", d)
	}
}

// Member 1 marks itself done and closes, then member 2 closes without:
// member 0 hears of member 2 only, and its Ready fails on the loss.
func TestLost(t *testing.T) {
	run, mk := newRun(t, 3)
	ms := mustJoinAll(t, configs(mk, 0, 1, 2)...)
	if err := ms[1].Done(); err != nil {
		t.Fatal(err)
	}
	ms[1].Close()
	// Member 0 sees member 1 go before member 2 (ZooKeeper orders the two).
	waitNode(t, fmt.Sprintf("%s/%s/members/1", testRoot, run), false)
	ms[2].Close()
	select {
	case l := <-ms[0].Lost():
		if l.Index != 2 || l.At.IsZero() {
			t.Fatalf("Lost() = %+v, want member 2 (member 1 was done)", l)
		}
	case <-time.After(wait):
		t.Fatal("member 0 did not hear that member 2 was lost")
	}
	// Member 1 left first: had it been counted lost, it would have come first.
	select {
	case l := <-ms[0].Lost():
		t.Errorf("Lost() then yielded %+v", l)
	default:
	}
	_, err := ms[0].Ready(context.Background())
	var le *LostError
	if !errors.As(err, &le) || le.Index != 2 || le.Self {
		t.Errorf("Ready after a loss: %v, want member 2 lost", err)
	}
}

// cutter dials ZooKeeper until it is told to cut the member off: then it
// closes the member's connection and refuses new ones, so the session
// expires on the server.
type cutter struct {
	mu    sync.Mutex
	cut   bool
	conns []net.Conn
}

func (c *cutter) dial(network, addr string, timeout time.Duration) (net.Conn, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cut {
		return nil, errors.New("cut off")
	}
	conn, err := net.DialTimeout(network, addr, timeout)
	if err == nil {
		c.conns = append(c.conns, conn)
	}
	return conn, err
}

func (c *cutter) sever() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cut = true
	for _, conn := range c.conns {
		conn.Close()
	}
}

// Member 1 is cut off from ZooKeeper: once its session expires the
// other sees it lost, and member 1 sees itself lost.
func TestSessionExpiry(t *testing.T) {
	_, mk := newRun(t, 2)
	cfgs := configs(mk, 0, 1)
	var c cutter
	cfgs[1].dial = c.dial
	ms := mustJoinAll(t, cfgs...)
	c.sever()
	for k, m := range ms {
		select {
		case l := <-m.Lost():
			if l.Index != 1 {
				t.Errorf("member %d: Lost() = %+v, want member 1", k, l)
			}
		case <-time.After(wait):
			t.Errorf("member %d did not hear that member 1 was lost", k)
		}
	}
}

// Member 0 stops the fleet: the others hear its reason, it does not hear
// itself, a second Stop changes nothing, and Ready fails with ErrStopped.
func TestStop(t *testing.T) {
	run, mk := newRun(t, 3)
	ms := mustJoinAll(t, configs(mk, 0, 1, 2)...)
	if err := ms[0].Stop("interrupted"); err != nil {
		t.Fatal(err)
	}
	for k, m := range ms[1:] {
		select {
		case r := <-m.Stopped():
			if r != "member 0: interrupted" {
				t.Errorf("member %d: Stopped() = %q, want %q", k+1, r, "member 0: interrupted")
			}
		case <-time.After(wait):
			t.Fatalf("member %d did not hear the stop", k+1)
		}
	}
	select {
	case r := <-ms[0].Stopped():
		t.Errorf("member 0 heard its own stop: %q", r)
	default:
	}
	if err := ms[1].Stop("second"); err != nil {
		t.Errorf("a second Stop: %v", err)
	}
	_, err := ms[1].Ready(context.Background())
	if !errors.Is(err, ErrStopped) || err.Error() != "fleet stopped before it started: member 0: interrupted" {
		t.Errorf("Ready after Stop: %v", err)
	}
	if m, err := Join(context.Background(), mk(1)); err == nil {
		m.Close()
		t.Error("a member joined a stopped run")
	} else if !strings.Contains(err.Error(), fmt.Sprintf("run %q was already stopped", run)) {
		t.Errorf("joining a stopped run: %v", err)
	}
}

// A member whose clock is 200ms off is refused, naming the offset; one
// 10ms ahead joins, and so does the refused index with a good clock.
func TestSkew(t *testing.T) {
	_, mk := newRun(t, 1)
	for _, skew := range []time.Duration{200 * time.Millisecond, -200 * time.Millisecond} {
		cfg := mk(0)
		cfg.Now = func() time.Time { return time.Now().Add(skew) }
		m, err := Join(context.Background(), cfg)
		if err == nil {
			m.Close()
			t.Fatalf("skew %v: joined", skew)
		}
		var se *SkewError
		if !errors.As(err, &se) {
			t.Fatalf("skew %v: %v, want a *SkewError", skew, err)
		}
		if d := se.Offset - skew; d > 30*time.Millisecond || d < -30*time.Millisecond || se.Bound != DefaultMaxSkew {
			t.Errorf("skew %v: %+v, want the offset within 30ms of it and the bound 50ms", skew, se)
		}
		dir := "ahead of"
		if skew < 0 {
			dir = "behind"
		}
		if !strings.HasPrefix(err.Error(), "this machine's clock is ") || !strings.HasSuffix(err.Error(), "ms "+dir+" ZooKeeper's; --max-clock-skew allows 50ms") {
			t.Errorf("skew %v: %q", skew, err)
		}
	}
	cfg := mk(0)
	cfg.Now = func() time.Time { return time.Now().Add(10 * time.Millisecond) }
	m, err := Join(context.Background(), cfg)
	if err != nil {
		t.Fatalf("10ms ahead: %v", err)
	}
	defer m.Close()
	if off := m.Offset(); off > 40*time.Millisecond || off < -20*time.Millisecond {
		t.Errorf("10ms ahead: offset %v", off)
	}
	if got := m.Members(); len(got) != 1 || got[0].Offset != m.Offset() {
		t.Errorf("10ms ahead: Members() = %+v, want its offset %v", got, m.Offset())
	}
}

// A second member with a taken index is refused, naming the first; the
// first still joins with the right second member.
func TestDuplicateIndex(t *testing.T) {
	run, mk := newRun(t, 2)
	first := make(chan error, 1)
	var m0 *Member
	go func() {
		var err error
		m0, err = Join(context.Background(), mk(0))
		first <- err
	}()
	waitNode(t, fmt.Sprintf("%s/%s/members/0", testRoot, run), true)
	dup := mk(0)
	dup.Host = "other"
	if m, err := Join(context.Background(), dup); err == nil {
		m.Close()
		t.Error("a second member 0 joined")
	} else if want := fmt.Sprintf("fleet: index 0 of run %q is already taken by host host0 (pid %d); each member of a run needs its own index", run, os.Getpid()); err.Error() != want {
		t.Errorf("second member 0:\n got %v\nwant %s", err, want)
	}
	m1 := mustJoinAll(t, mk(1))[0]
	if err := <-first; err != nil {
		t.Fatalf("member 0: %v", err)
	}
	defer m0.Close()
	if got := m1.Members(); len(got) != 2 || got[0].Host != "host0" {
		t.Errorf("Members() = %+v, want host0 as member 0", got)
	}
}

// waitNode waits until the znode p exists (or, with exists false, is gone).
func waitNode(t *testing.T, p string, exists bool) {
	t.Helper()
	conn, _, err := zk.Connect(servers(t), 4*time.Second, zk.WithLogger(quietLogger{}), zk.WithLogInfo(false))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	deadline := time.Now().Add(wait)
	for {
		ok, _, ev, err := conn.ExistsW(p)
		if err == nil && ok == exists {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s exists %v, want %v: %v", p, ok, exists, err)
		}
		if err != nil {
			time.Sleep(50 * time.Millisecond)
			continue
		}
		select {
		case <-ev:
		case <-time.After(time.Until(deadline)):
		}
	}
}

// One member marks a point the others wait for: they wait until it does,
// and give up, saying on what, after JoinTimeout when nobody does.
func TestMark(t *testing.T) {
	_, mk := newRun(t, 2)
	cfgs := configs(mk, 0, 1)
	cfgs[1].JoinTimeout = 5 * time.Second
	ms := mustJoinAll(t, cfgs...)
	got := make(chan error, 1)
	go func() { got <- ms[1].AwaitMark(context.Background(), "tables") }()
	select {
	case err := <-got:
		t.Fatalf("AwaitMark returned %v before the mark", err)
	case <-time.After(300 * time.Millisecond):
	}
	if err := ms[0].Mark(context.Background(), "tables"); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-got:
		if err != nil {
			t.Errorf("AwaitMark after the mark: %v", err)
		}
	case <-time.After(wait):
		t.Fatal("AwaitMark did not see the mark")
	}
	short := ms[0]
	short.cfg.JoinTimeout = 300 * time.Millisecond
	if err := short.AwaitMark(context.Background(), "nobody"); err == nil || err.Error() != `fleet: no member marked "nobody" within 300ms` {
		t.Errorf("AwaitMark of a mark nobody makes: %v", err)
	}
}
