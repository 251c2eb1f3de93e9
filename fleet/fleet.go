// Package fleet starts several loadgen processes, the members of a fleet,
// together through ZooKeeper: they join, agree on one start instant, see
// each other die and stop together. It owns the znodes of a run and the
// measurement of each member's clock against the ensemble's; it knows
// nothing of HBase, workloads or results (what a member does between Join
// and Done is its caller's business).
//
// A run lives under Config.Root, at <root>/<run id>:
//
//	members/<index>  ephemeral, JSON MemberInfo {index, host, pid, offset_ns, joined}: the member is alive
//	ready/<index>    ephemeral, empty: the member finished its load phase (Ready)
//	start            persistent, the start instant in decimal nanoseconds since the epoch, on the
//	                 ensemble's clock; created once, by whichever member sees every member ready first
//	stop             persistent, JSON {index, reason}: a member asked the fleet to stop (Stop)
//	done/<index>     persistent, empty: the member finished (Done); its session's end is no loss
//	clock/<session>  ephemeral, scratch node a joining member writes to read the ensemble's clock
//
// The recipes are ZooKeeper's standard ones: ephemeral nodes for liveness,
// two barriers (every index under members/, then under ready/), and a
// create-if-absent for the one agreed value (start). The persistent nodes
// outlive the run; a run id names one run, and Join refuses a run whose
// start or stop node already exists.
//
// Clock: Join measures Offset, this member's clock (Config.Now) minus the
// ensemble's, by writing its scratch node several times and comparing each
// write's modification time, which the ZooKeeper leader stamps in whole
// milliseconds on its own clock, with the midpoint of the local send and
// receive times, keeping the sample of the shortest round trip. The
// estimate is good to about half that round trip plus half a millisecond
// (an asymmetric network path spends the half round trip one way); on a
// LAN that is one to two milliseconds.
//
// Losses: a member whose members/ node goes away before it wrote done/
// is lost, whether it exited, crashed or let its session expire (ZooKeeper
// removes an expired session's ephemeral nodes; a crashed process's
// session expires Config.SessionTimeout after its last heartbeat). Every
// member reports each loss once on Lost, its own included: when its
// session expired, or it was cut off from ZooKeeper for SessionTimeout.
package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
)

// Defaults of Config's durations.
const (
	DefaultJoinTimeout    = 30 * time.Second
	DefaultMaxSkew        = 50 * time.Millisecond
	DefaultLead           = 3 * time.Second
	DefaultSessionTimeout = 10 * time.Second
)

// clockSamples is how many writes Join times to measure the clock offset.
const clockSamples = 7

// Config is one member's view of its run.
type Config struct {
	Servers []string // ZooKeeper's HOST:PORT list
	Root    string   // znode path under which runs live, e.g. "/commentbench"
	RunID   string   // every member of one run passes the same id; a znode name (no "/")
	Index   int      // this member, 0..Total-1
	Total   int      // members in the run
	Host    string   // this member's host name, recorded in its node; "" is os.Hostname()

	// JoinTimeout bounds the wait for the ZooKeeper session, then for every
	// member to join, then (in Ready) for every member to be ready; 0 is
	// DefaultJoinTimeout.
	JoinTimeout time.Duration
	// MaxSkew is the largest clock offset Join accepts; 0 is DefaultMaxSkew.
	MaxSkew time.Duration
	// Lead is how far after the last member is ready the start instant
	// lies; 0 is DefaultLead.
	Lead time.Duration
	// SessionTimeout is the ZooKeeper session's (the server may negotiate
	// it into its bounds, by default 4 s to 40 s): how long after a member
	// dies unannounced the others see it lost; 0 is DefaultSessionTimeout.
	SessionTimeout time.Duration
	// Now is the member's clock; nil is time.Now. Tests fake skew with it.
	Now func() time.Time

	dial zk.Dialer // tests cut a member off from ZooKeeper with it; nil is net.DialTimeout
}

// MemberInfo is a member as it registered, the JSON of its members/ node.
type MemberInfo struct {
	Index  int           `json:"index"`
	Host   string        `json:"host"`
	PID    int           `json:"pid"`
	Offset time.Duration `json:"offset_ns"` // its clock minus the ensemble's
	Joined time.Time     `json:"joined"`    // on its clock
}

// Lost is a member that left the fleet without marking itself done.
type Lost struct {
	Index int
	At    time.Time // when this member noticed, on its clock
}

// stopNote is the stop node's JSON.
type stopNote struct {
	Index  int    `json:"index"`
	Reason string `json:"reason"`
}

func (n stopNote) String() string { return fmt.Sprintf("member %d: %s", n.Index, n.Reason) }

// Member is this process's place in a run, from Join to Close. Its
// methods are safe for concurrent use.
type Member struct {
	cfg     Config
	conn    *zk.Conn
	run     string // <root>/<run id>
	offset  time.Duration
	within  time.Duration // the offset's uncertainty, either way
	members []MemberInfo

	lost    chan Lost
	stopped chan string
	quit    chan struct{}
	wg      sync.WaitGroup
	closing sync.Once
	session chan struct{} // closed at the first session
	onSess  sync.Once

	mu           sync.Mutex
	changed      chan struct{} // closed and replaced whenever the state below changes
	present      map[int]bool  // members/ as last read
	seen         map[int]bool  // ever present
	settled      map[int]bool  // seen, then gone: counted lost or done
	ready        map[int]bool  // ready/ as last read
	lostSet      map[int]bool
	lostList     []Lost
	stop         *stopNote
	start        *time.Time
	registered   bool // this member's members/ node was created
	done         bool // Done succeeded
	closed       bool
	hadSession   bool
	disconnected bool
	discTimer    *time.Timer
}

type quietLogger struct{}

func (quietLogger) Printf(string, ...any) {}

// withDefaults checks c and fills in its defaults.
func (c Config) withDefaults() (Config, error) {
	if len(c.Servers) == 0 {
		return c, errors.New("fleet: no ZooKeeper servers")
	}
	if err := checkPath(c.Root); err != nil {
		return c, fmt.Errorf("fleet: root: %v", err)
	}
	if c.RunID == "" {
		return c, errors.New("fleet: empty run id")
	}
	if err := checkName(c.RunID); err != nil {
		return c, fmt.Errorf("fleet: run id %q: %v", c.RunID, err)
	}
	if c.Total < 1 {
		return c, fmt.Errorf("fleet: %d members in total; want at least 1", c.Total)
	}
	if c.Index < 0 || c.Index >= c.Total {
		return c, fmt.Errorf("fleet: index %d: want 0..%d (below the total, %d)", c.Index, c.Total-1, c.Total)
	}
	if c.Host == "" {
		h, err := os.Hostname()
		if err != nil {
			h = "unknown"
		}
		c.Host = h
	}
	if c.JoinTimeout <= 0 {
		c.JoinTimeout = DefaultJoinTimeout
	}
	if c.MaxSkew <= 0 {
		c.MaxSkew = DefaultMaxSkew
	}
	if c.Lead <= 0 {
		c.Lead = DefaultLead
	}
	if c.SessionTimeout <= 0 {
		c.SessionTimeout = DefaultSessionTimeout
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.dial == nil {
		c.dial = net.DialTimeout
	}
	return c, nil
}

// Join connects to ZooKeeper, measures this member's clock against the
// ensemble's (a *SkewError past cfg.MaxSkew), registers this member under
// members/ (an error when its index is taken) and waits until all
// cfg.Total members are present: a *MissingError naming the absent ones
// after cfg.JoinTimeout, an error wrapping ErrStopped if a member asked the
// fleet to stop meanwhile.
func Join(ctx context.Context, cfg Config) (*Member, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	m := &Member{
		cfg:     cfg,
		run:     cfg.Root + "/" + cfg.RunID,
		lost:    make(chan Lost, cfg.Total),
		stopped: make(chan string, 1),
		quit:    make(chan struct{}),
		session: make(chan struct{}),
		changed: make(chan struct{}),
		present: map[int]bool{},
		seen:    map[int]bool{},
		settled: map[int]bool{},
		ready:   map[int]bool{},
		lostSet: map[int]bool{},
	}
	conn, _, err := zk.Connect(cfg.Servers, cfg.SessionTimeout, zk.WithLogger(quietLogger{}), zk.WithLogInfo(false),
		zk.WithEventCallback(m.onEvent), zk.WithDialer(cfg.dial))
	if err != nil {
		return nil, fmt.Errorf("fleet: zookeeper %s: %w", strings.Join(cfg.Servers, ","), err)
	}
	m.conn = conn
	if err := m.join(ctx); err != nil {
		m.Close()
		return nil, err
	}
	return m, nil
}

func (m *Member) join(ctx context.Context) error {
	cfg := m.cfg
	timer := time.NewTimer(cfg.JoinTimeout)
	select {
	case <-m.session:
		timer.Stop()
	case <-timer.C:
		return fmt.Errorf("fleet: no session with zookeeper %s within %v", strings.Join(cfg.Servers, ","), cfg.JoinTimeout)
	case <-ctx.Done():
		return fmt.Errorf("fleet: connecting to zookeeper %s: %w", strings.Join(cfg.Servers, ","), ctx.Err())
	}
	for _, p := range append(ancestors(m.run), m.run, m.path("members"), m.path("ready"), m.path("done"), m.path("clock")) {
		if err := m.create(ctx, p, nil, zk.FlagPersistent); err != nil && !errors.Is(err, zk.ErrNodeExists) {
			return err
		}
	}
	if ok, err := m.exists(ctx, m.path("stop")); err != nil {
		return err
	} else if ok {
		return fmt.Errorf("fleet: run %q was already stopped (%s exists); a new run needs a new run id", cfg.RunID, m.path("stop"))
	}
	if ok, err := m.exists(ctx, m.path("start")); err != nil {
		return err
	} else if ok {
		return fmt.Errorf("fleet: run %q has already started (%s exists); a new run needs a new run id", cfg.RunID, m.path("start"))
	}
	off, within, err := m.measure(ctx)
	if err != nil {
		return err
	}
	m.offset, m.within = off, within
	if c := m.correction(); c > cfg.MaxSkew || -c > cfg.MaxSkew {
		return &SkewError{Offset: off, Bound: cfg.MaxSkew}
	}
	if err := m.register(ctx); err != nil {
		return err
	}
	m.wg.Add(4)
	go m.watchChildren(m.path("members"), m.applyMembers)
	go m.watchChildren(m.path("ready"), m.applyReady)
	go m.watchNode(m.path("stop"), m.applyStop)
	go m.watchNode(m.path("start"), m.applyStart)

	timer.Reset(cfg.JoinTimeout)
	defer timer.Stop()
	for {
		m.mu.Lock()
		missing := m.missingLocked(m.present)
		stop, changed := m.stop, m.changed
		m.mu.Unlock()
		if stop != nil {
			return fmt.Errorf("%w before it started: %s", ErrStopped, stop)
		}
		if len(missing) == 0 {
			break
		}
		select {
		case <-changed:
		case <-timer.C:
			m.mu.Lock()
			var never, left []int
			for _, i := range m.missingLocked(m.present) {
				if m.seen[i] {
					left = append(left, i)
				} else {
					never = append(never, i)
				}
			}
			m.mu.Unlock()
			if len(never)+len(left) == 0 {
				continue
			}
			return &MissingError{Stage: StageJoin, Missing: never, Left: left, Total: cfg.Total, Within: cfg.JoinTimeout}
		case <-ctx.Done():
			return fmt.Errorf("fleet: waiting for members %s of %d to join: %w", joinInts(missing), cfg.Total, ctx.Err())
		}
	}
	for i := range cfg.Total {
		info := MemberInfo{Index: i}
		b, err := m.get(ctx, m.path("members", strconv.Itoa(i)))
		switch {
		case errors.Is(err, zk.ErrNoNode):
			// Gone since: Lost reports it; only its index is known.
		case err != nil:
			return err
		default:
			if err := json.Unmarshal(b, &info); err != nil {
				return fmt.Errorf("fleet: %s: %w", m.path("members", strconv.Itoa(i)), err)
			}
		}
		m.members = append(m.members, info)
	}
	return nil
}

// measure returns this member's clock minus the ensemble's (see the
// package comment).
func (m *Member) measure(ctx context.Context) (offset, within time.Duration, err error) {
	p := m.path("clock", strconv.FormatInt(m.conn.SessionID(), 16))
	if err := m.create(ctx, p, nil, zk.FlagEphemeral); err != nil && !errors.Is(err, zk.ErrNodeExists) {
		return 0, 0, err
	}
	defer func() { _, _ = call(ctx, func() (struct{}, error) { return struct{}{}, m.conn.Delete(p, -1) }) }()
	var best, bestRTT time.Duration = 0, -1
	for range clockSamples {
		t0 := m.cfg.Now()
		st, err := call(ctx, func() (*zk.Stat, error) { return m.conn.Set(p, nil, -1) })
		t1 := m.cfg.Now()
		if err != nil {
			return 0, 0, fmt.Errorf("fleet: reading zookeeper's clock through %s: %w", p, err)
		}
		rtt := max(t1.Sub(t0), 0)
		// Mtime is truncated to the millisecond: its middle is the estimate.
		server := time.UnixMilli(st.Mtime).Add(500 * time.Microsecond)
		if bestRTT < 0 || rtt < bestRTT {
			best, bestRTT = t0.Add(rtt/2).Sub(server), rtt
		}
	}
	// The server stamped the write somewhere in the round trip, to the
	// millisecond: the estimate is good to half the one plus the other.
	return best, bestRTT/2 + time.Millisecond, nil
}

// register creates this member's members/ node.
func (m *Member) register(ctx context.Context) error {
	info := MemberInfo{Index: m.cfg.Index, Host: m.cfg.Host, PID: os.Getpid(), Offset: m.offset, Joined: m.cfg.Now()}
	b, err := json.Marshal(info)
	if err != nil {
		return fmt.Errorf("fleet: %w", err)
	}
	p := m.path("members", strconv.Itoa(m.cfg.Index))
	err = m.create(ctx, p, b, zk.FlagEphemeral)
	if errors.Is(err, zk.ErrNodeExists) {
		var other MemberInfo
		if b, gerr := m.get(ctx, p); gerr == nil && json.Unmarshal(b, &other) == nil {
			return fmt.Errorf("fleet: index %d of run %q is already taken by host %s (pid %d); each member of a run needs its own index", m.cfg.Index, m.cfg.RunID, other.Host, other.PID)
		}
		return fmt.Errorf("fleet: index %d of run %q is already taken; each member of a run needs its own index", m.cfg.Index, m.cfg.RunID)
	}
	if err != nil {
		return err
	}
	m.mu.Lock()
	m.registered = true
	m.mu.Unlock()
	return nil
}

// Ready marks this member ready (its load phase is over) and waits until
// every member is; the first member to see them all fixes the start
// instant once, Config.Lead after that moment on the ensemble's clock, and
// every member returns that same instant. This member's clock reads it at
// Local(start). After Config.JoinTimeout it returns a *MissingError
// naming the members not ready; a *LostError if a member left first; an
// error wrapping ErrStopped if a member asked the fleet to stop.
func (m *Member) Ready(ctx context.Context) (time.Time, error) {
	p := m.path("ready", strconv.Itoa(m.cfg.Index))
	if err := m.create(ctx, p, nil, zk.FlagEphemeral); err != nil && !errors.Is(err, zk.ErrNodeExists) {
		return time.Time{}, err
	}
	timer := time.NewTimer(m.cfg.JoinTimeout)
	defer timer.Stop()
	for {
		m.mu.Lock()
		start, stop, changed := m.start, m.stop, m.changed
		missing := m.missingLocked(m.ready)
		var lost []Lost
		lost = append(lost, m.lostList...)
		m.mu.Unlock()
		switch {
		case start != nil:
			return *start, nil
		case stop != nil:
			return time.Time{}, fmt.Errorf("%w before it started: %s", ErrStopped, stop)
		case len(lost) > 0:
			// The start may have been fixed before the member left, its
			// node's watch not yet fired: it stands.
			b, err := m.get(ctx, m.path("start"))
			if err == nil {
				return parseStart(m.path("start"), b)
			}
			if !errors.Is(err, zk.ErrNoNode) {
				return time.Time{}, err
			}
			return time.Time{}, &LostError{Lost: lost[0], Total: m.cfg.Total, Self: lost[0].Index == m.cfg.Index}
		case len(missing) == 0:
			return m.fixStart(ctx)
		}
		select {
		case <-changed:
		case <-timer.C:
			return time.Time{}, &MissingError{Stage: StageReady, Missing: missing, Total: m.cfg.Total, Within: m.cfg.JoinTimeout}
		case <-ctx.Done():
			return time.Time{}, fmt.Errorf("fleet: waiting for members %s of %d to be ready: %w", joinInts(missing), m.cfg.Total, ctx.Err())
		}
	}
}

// fixStart creates the start node if no member did, and returns its instant.
func (m *Member) fixStart(ctx context.Context) (time.Time, error) {
	p := m.path("start")
	at := m.cfg.Now().Add(-m.correction()).Add(m.cfg.Lead)
	err := m.create(ctx, p, []byte(strconv.FormatInt(at.UnixNano(), 10)), zk.FlagPersistent)
	if err == nil {
		return at, nil
	}
	if !errors.Is(err, zk.ErrNodeExists) {
		return time.Time{}, err
	}
	b, err := m.get(ctx, p)
	if err != nil {
		return time.Time{}, err
	}
	return parseStart(p, b)
}

func parseStart(p string, b []byte) (time.Time, error) {
	ns, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("fleet: %s holds %q, not nanoseconds since the epoch", p, b)
	}
	return time.Unix(0, ns), nil
}

// Offset is this member's clock (Config.Now) minus the ensemble's, as Join
// measured it: positive when this member's clock is ahead.
func (m *Member) Offset() time.Duration { return m.offset }

// Local returns the instant t of the ensemble's clock (Ready's start) as
// this member's clock reads it: t plus the offset, less what of it the
// measurement cannot tell from nothing (see correction).
func (m *Member) Local(t time.Time) time.Time { return t.Add(m.correction()) }

// correction is the smallest offset the measurement allows: Offset moved
// toward zero by its uncertainty. Clocks kept in step by NTP are off by
// less than a ZooKeeper round trip can measure; correcting them by the
// raw estimate would add its error to every start.
func (m *Member) correction() time.Duration {
	switch {
	case m.offset > m.within:
		return m.offset - m.within
	case m.offset < -m.within:
		return m.offset + m.within
	}
	return 0
}

// Members returns every member as it registered, by index, read when Join
// returned. A member that left before it could be read has only its Index.
func (m *Member) Members() []MemberInfo { return slices.Clone(m.members) }

// Lost reports each member (this one included, see the package comment)
// that left the fleet without marking itself done, once. The channel is
// buffered for every member and never closed.
func (m *Member) Lost() <-chan Lost { return m.lost }

// Stopped yields, once, the reason another member gave Stop, such as
// "member 2: interrupted". It is never closed.
func (m *Member) Stopped() <-chan string { return m.stopped }

// Stop asks every member to stop, giving reason (e.g. "interrupted"):
// the others' Stopped yields "member <index>: <reason>". Only the first
// Stop of a run counts; a later one returns nil and changes nothing.
func (m *Member) Stop(reason string) error {
	b, err := json.Marshal(stopNote{Index: m.cfg.Index, Reason: reason})
	if err != nil {
		return fmt.Errorf("fleet: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), m.cfg.SessionTimeout)
	defer cancel()
	if err := m.create(ctx, m.path("stop"), b, zk.FlagPersistent); err != nil && !errors.Is(err, zk.ErrNodeExists) {
		return err
	}
	return nil
}

// Done marks this member finished, so that the others do not count it lost
// when its session ends (Close).
func (m *Member) Done() error {
	ctx, cancel := context.WithTimeout(context.Background(), m.cfg.SessionTimeout)
	defer cancel()
	if err := m.create(ctx, m.path("done", strconv.Itoa(m.cfg.Index)), nil, zk.FlagPersistent); err != nil && !errors.Is(err, zk.ErrNodeExists) {
		return err
	}
	m.mu.Lock()
	m.done = true
	m.mu.Unlock()
	return nil
}

// Close ends this member's session, which removes its ephemeral nodes
// (without Done first, the others count it lost). It may be called more
// than once.
func (m *Member) Close() error {
	m.closing.Do(func() {
		m.mu.Lock()
		m.closed = true
		if m.discTimer != nil {
			m.discTimer.Stop()
		}
		m.mu.Unlock()
		close(m.quit)
		m.conn.Close()
		m.wg.Wait()
	})
	return nil
}

// path is <root>/<run id>/<parts...>.
func (m *Member) path(parts ...string) string {
	p := m.run
	for _, s := range parts {
		p += "/" + s
	}
	return p
}

// ancestors lists p's proper ancestors but "/", outermost first.
func ancestors(p string) []string {
	var out []string
	for i := 1; i < len(p); i++ {
		if p[i] == '/' {
			out = append(out, p[:i])
		}
	}
	return out
}

// missingLocked lists the indexes not in have.
func (m *Member) missingLocked(have map[int]bool) []int {
	var out []int
	for i := range m.cfg.Total {
		if !have[i] {
			out = append(out, i)
		}
	}
	return out
}

// changedLocked wakes whoever waits on the state.
func (m *Member) changedLocked() {
	close(m.changed)
	m.changed = make(chan struct{})
}

// indexes reads a children list as member indexes of this run.
func (m *Member) indexes(kids []string) map[int]bool {
	out := make(map[int]bool, len(kids))
	for _, k := range kids {
		if i, err := strconv.Atoi(k); err == nil && i >= 0 && i < m.cfg.Total && strconv.Itoa(i) == k {
			out[i] = true
		}
	}
	return out
}

// applyMembers takes a new members/ list: a member seen before and gone
// now is lost unless its done/ node exists (read afresh: ZooKeeper shows
// one client its changes in order, and a member writes done/ before its
// session ends).
func (m *Member) applyMembers(kids []string) {
	now := m.indexes(kids)
	var gone []int
	m.mu.Lock()
	for i := range m.seen {
		if !now[i] && !m.settled[i] {
			gone = append(gone, i)
		}
	}
	for i := range now {
		m.seen[i] = true
		m.settled[i] = false
	}
	m.present = now
	m.changedLocked()
	m.mu.Unlock()
	slices.Sort(gone)
	for _, i := range gone {
		done, ok := m.doneExists(i)
		if !ok {
			return // closing
		}
		m.mu.Lock()
		m.settled[i] = true
		if !done {
			m.lostLocked(i)
		}
		m.mu.Unlock()
	}
}

// doneExists reads whether done/<i> exists, retrying until it can; ok is
// false when the member closes first.
func (m *Member) doneExists(i int) (done, ok bool) {
	backoff := retryMin
	for {
		done, _, err := m.conn.Exists(m.path("done", strconv.Itoa(i)))
		if err == nil {
			return done, true
		}
		if !m.pause(&backoff) {
			return false, false
		}
	}
}

func (m *Member) applyReady(kids []string) {
	now := m.indexes(kids)
	m.mu.Lock()
	m.ready = now
	m.changedLocked()
	m.mu.Unlock()
}

func (m *Member) applyStop(b []byte) {
	var n stopNote
	if err := json.Unmarshal(b, &n); err != nil {
		n = stopNote{Index: -1, Reason: string(b)}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.stop != nil {
		return
	}
	m.stop = &n
	m.changedLocked()
	if n.Index != m.cfg.Index {
		select {
		case m.stopped <- n.String():
		default:
		}
	}
}

func (m *Member) applyStart(b []byte) {
	at, err := parseStart(m.path("start"), b)
	if err != nil {
		return // Ready's own read of the node reports it
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.start == nil {
		m.start = &at
		m.changedLocked()
	}
}

// lostLocked reports member i lost, once.
func (m *Member) lostLocked(i int) {
	if m.closed || m.lostSet[i] || (i == m.cfg.Index && (m.done || !m.registered)) {
		return
	}
	l := Lost{Index: i, At: m.cfg.Now()}
	m.lostSet[i] = true
	m.lostList = append(m.lostList, l)
	m.changedLocked()
	select {
	case m.lost <- l:
	default: // cannot happen: each index once, and the buffer holds them all
	}
}

// onEvent follows the session: this member is lost when ZooKeeper
// expired its session, or when it was cut off for SessionTimeout (the
// server would have expired it by then unless it negotiated longer).
// It runs on the client's goroutine and must not block.
func (m *Member) onEvent(ev zk.Event) {
	if ev.Type != zk.EventSession {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	switch ev.State {
	case zk.StateHasSession:
		m.onSess.Do(func() { close(m.session) })
		m.hadSession, m.disconnected = true, false
		if m.discTimer != nil {
			m.discTimer.Stop()
			m.discTimer = nil
		}
	case zk.StateDisconnected:
		if m.hadSession && !m.disconnected && !m.closed {
			m.disconnected = true
			m.discTimer = time.AfterFunc(m.cfg.SessionTimeout, func() {
				m.mu.Lock()
				defer m.mu.Unlock()
				if m.disconnected {
					m.lostLocked(m.cfg.Index)
				}
			})
		}
	case zk.StateExpired:
		m.lostLocked(m.cfg.Index)
	}
}

const (
	retryMin = 50 * time.Millisecond
	retryMax = time.Second
)

// pause waits *backoff before a retry, doubling it; false when the member
// closes first.
func (m *Member) pause(backoff *time.Duration) bool {
	t := time.NewTimer(*backoff)
	defer t.Stop()
	*backoff = min(*backoff*2, retryMax)
	select {
	case <-t.C:
		return true
	case <-m.quit:
		return false
	}
}

// watchChildren calls apply with path's children now and after every
// change, re-arming the watch after each fire (and after a lost
// connection or session) until the member closes.
func (m *Member) watchChildren(path string, apply func([]string)) {
	defer m.wg.Done()
	backoff := retryMin
	for {
		kids, _, ev, err := m.conn.ChildrenW(path)
		if err != nil {
			if !m.pause(&backoff) {
				return
			}
			continue
		}
		backoff = retryMin
		apply(kids)
		select {
		case <-ev:
		case <-m.quit:
			return
		}
	}
}

// watchNode calls apply once with path's data, when the node exists
// (start and stop are written once and never change).
func (m *Member) watchNode(path string, apply func([]byte)) {
	defer m.wg.Done()
	backoff := retryMin
	for {
		ok, _, ev, err := m.conn.ExistsW(path)
		if err == nil && ok {
			var b []byte
			if b, _, err = m.conn.Get(path); err == nil {
				apply(b)
				return
			}
		}
		if err != nil {
			if errors.Is(err, zk.ErrNoNode) {
				continue // deleted between the two reads: watch again
			}
			if !m.pause(&backoff) {
				return
			}
			continue
		}
		backoff = retryMin
		select {
		case <-ev:
		case <-m.quit:
			return
		}
	}
}

// call runs f, or gives up when ctx ends first (f's request then ends with
// the connection).
func call[T any](ctx context.Context, f func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	go func() {
		v, err := f()
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}

func (m *Member) create(ctx context.Context, p string, data []byte, flags int32) error {
	_, err := call(ctx, func() (string, error) { return m.conn.Create(p, data, flags, zk.WorldACL(zk.PermAll)) })
	if err != nil {
		return fmt.Errorf("fleet: creating %s: %w", p, err)
	}
	return nil
}

func (m *Member) exists(ctx context.Context, p string) (bool, error) {
	ok, err := call(ctx, func() (bool, error) { ok, _, err := m.conn.Exists(p); return ok, err })
	if err != nil {
		return false, fmt.Errorf("fleet: reading %s: %w", p, err)
	}
	return ok, nil
}

func (m *Member) get(ctx context.Context, p string) ([]byte, error) {
	b, err := call(ctx, func() ([]byte, error) { b, _, err := m.conn.Get(p); return b, err })
	if err != nil {
		return nil, fmt.Errorf("fleet: reading %s: %w", p, err)
	}
	return b, nil
}

// Mark records that this member reached the point name (say, "tables":
// the run's tables are made), for AwaitMark in the others.
func (m *Member) Mark(ctx context.Context, name string) error {
	if err := m.create(ctx, m.path("mark-"+name), nil, zk.FlagPersistent); err != nil && !errors.Is(err, zk.ErrNodeExists) {
		return err
	}
	return nil
}

// AwaitMark waits until a member has made Mark(name): one member does
// what the others must not do at the same time (create the tables), and
// they go on after. It gives up after Config.JoinTimeout, or when a
// member is lost or the fleet is stopped first.
func (m *Member) AwaitMark(ctx context.Context, name string) error {
	ctx, cancel := context.WithTimeout(ctx, m.cfg.JoinTimeout)
	defer cancel()
	tick := time.NewTicker(markPoll)
	defer tick.Stop()
	for {
		ok, err := m.exists(ctx, m.path("mark-"+name))
		if err != nil {
			if ctx.Err() == context.DeadlineExceeded {
				return fmt.Errorf("fleet: no member marked %q within %v", name, m.cfg.JoinTimeout)
			}
			return err
		}
		if ok {
			return nil
		}
		m.mu.Lock()
		stop, lost := m.stop, slices.Clone(m.lostList)
		m.mu.Unlock()
		switch {
		case stop != nil:
			return fmt.Errorf("%w before it started: %s", ErrStopped, stop)
		case len(lost) > 0:
			return &LostError{Lost: lost[0], Total: m.cfg.Total, Self: lost[0].Index == m.cfg.Index}
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			if ctx.Err() == context.DeadlineExceeded {
				return fmt.Errorf("fleet: no member marked %q within %v", name, m.cfg.JoinTimeout)
			}
			return ctx.Err()
		}
	}
}

// markPoll is how often AwaitMark looks: a mark is awaited once a run,
// for seconds at most.
const markPoll = 50 * time.Millisecond
