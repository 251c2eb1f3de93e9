// Package hbasetest is an in-process HBase 2.x cluster for tests: a master
// and one region server per simulated server of an embedded engine, each on
// its own 127.0.0.1 port, speaking HBase's RPC protocol (HBASE-WIRE) over the
// engine's tables and regions.
//
// It owns the server side of the protocol: connections, services, exceptions,
// hbase:meta computed live from the engine's regions, hbase:namespace,
// ClientService on user regions (every column family, server-side filters
// with HBase's return codes, check-and-mutate, RowMutations, cell TTLs,
// batched and partial scan results, the max row size, scan metrics as
// HBase counts them),
// scanner leases (hbase.client.scanner.timeout.period),
// MasterService (table procedures, snapshots and clones of them, cluster
// status, region moves, the balancer switch, replication peers), the
// ClientMetaService registry
// and fault injection (failing calls, a method that always fails, a
// read-only cluster, latency, killed servers, moves). It
// must not own the data: every row and region lives in the engine, so what
// a client sees through the wire and what a test reads from the engine
// never disagree. cmd/minicluster runs it as a process of its own.
package hbasetest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"commentbench/hbase/pb"
	"commentbench/store/embedded"

	"google.golang.org/protobuf/proto"
)

// Options configure a Cluster.
type Options struct {
	// Engine holds the data; its Servers() are the region servers.
	Engine *embedded.Engine
	// User is the effective user connections must declare; "" accepts any.
	User string
	// Security, when set, makes it a secured cluster: Kerberos, TLS or both.
	Security *Security
	// ScannerTimeout is HBase's hbase.client.scanner.timeout.period: how
	// long a scanner outlives the call that last used it. Whole
	// milliseconds; 0 is HBase's default, DefaultScannerTimeout.
	ScannerTimeout time.Duration
}

// masterName names the master node in Calls and internal maps; engine
// servers are "rs1".."rsN", so it cannot collide.
const masterName = "master"

// node is one listening process of the cluster: the master or a region
// server.
type node struct {
	name      string
	master    bool
	ln        net.Listener
	addr      string
	port      uint32
	startCode uint64

	mu    sync.Mutex
	conns map[net.Conn]struct{}
	dead  bool
}

func (n *node) serverName() *pb.ServerName {
	return &pb.ServerName{
		HostName:  proto.String("127.0.0.1"),
		Port:      proto.Uint32(n.port),
		StartCode: proto.Uint64(n.startCode),
	}
}

// Cluster is a running in-process HBase cluster. It does not own the engine:
// Close stops serving and leaves the engine open.
type Cluster struct {
	eng  *embedded.Engine
	user string
	sec  *security // nil: plain TCP and SIMPLE auth
	ctx  context.Context
	stop context.CancelFunc

	// lease is how long a scanner outlives its last call
	// (hbase.client.scanner.timeout.period).
	lease time.Duration

	master  *node
	servers []*node // engine order
	byName  map[string]*node

	latency    atomic.Int64 // ns added before every answer
	scanLimit  atomic.Int64 // ns a scan call may read for; 0 = defaultScanTimeLimit
	maxRow     atomic.Int64 // bytes of one row a read may return; 0 = store.DefaultMaxRowSize
	denyWrites atomic.Bool  // RejectWrites

	mu        sync.Mutex // guards the fields below
	metaHost  string     // server hosting hbase:meta,,1
	disabled  map[string]bool
	offline   map[string]int // tables a clone stages in or fills: not served
	procs     map[uint64]*pb.GetProcedureResultResponse
	nextProc  uint64
	failN     int
	failClass string
	calls     map[string]int64
	scanners  map[uint64]*scanner
	expired   map[uint64]struct{} // scanners whose lease ran out, till a call names them
	nextScan  uint64
	peers     map[string]peer
	closed    bool
	failing   map[string]string // method -> exception class (FailMethod)
	denied    map[string]int64  // changes refused by RejectWrites, per method

	zk *publisher // nil unless PublishZooKeeper was called

	adminMu sync.Mutex // serialises master procedures
	wg      sync.WaitGroup

	// gate is held shared by every ClientService call and exclusively
	// while a table goes offline, so that a call that found the table
	// online finishes before the table changes under it.
	gate sync.RWMutex
}

// Start opens the master's and every region server's listener on
// 127.0.0.1:0 and starts serving.
func Start(o Options) (*Cluster, error) {
	if o.Engine == nil {
		return nil, errors.New("hbasetest: Options.Engine is nil")
	}
	sec, err := newSecurity(o.Security)
	if err != nil {
		return nil, err
	}
	lease, err := scannerLease(o.ScannerTimeout)
	if err != nil {
		return nil, err
	}
	ctx, stop := context.WithCancel(context.Background())
	c := &Cluster{
		eng:      o.Engine,
		user:     o.User,
		sec:      sec,
		lease:    lease,
		ctx:      ctx,
		stop:     stop,
		byName:   map[string]*node{},
		disabled: map[string]bool{},
		offline:  map[string]int{},
		procs:    map[uint64]*pb.GetProcedureResultResponse{},
		calls:    map[string]int64{},
		scanners: map[uint64]*scanner{},
		expired:  map[uint64]struct{}{},
		peers:    map[string]peer{},
		failing:  map[string]string{},
		denied:   map[string]int64{},
	}
	start := uint64(time.Now().UnixMilli())
	names := append([]string{masterName}, o.Engine.Servers()...)
	for i, name := range names {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			c.Close()
			return nil, fmt.Errorf("hbasetest: listen for %s: %w", name, err)
		}
		n := &node{
			name:      name,
			master:    name == masterName,
			ln:        ln,
			addr:      ln.Addr().String(),
			port:      uint32(ln.Addr().(*net.TCPAddr).Port),
			startCode: start + uint64(i),
			conns:     map[net.Conn]struct{}{},
		}
		c.byName[name] = n
		if n.master {
			c.master = n
		} else {
			c.servers = append(c.servers, n)
		}
	}
	if len(c.servers) == 0 {
		c.Close()
		return nil, errors.New("hbasetest: engine has no servers")
	}
	c.metaHost = c.servers[0].name
	if err := c.ensureNamespaceTable(); err != nil {
		c.Close()
		return nil, err
	}
	for _, n := range c.byName {
		c.wg.Add(1)
		go c.accept(n)
	}
	c.wg.Add(1)
	go c.watchRegions()
	return c, nil
}

// Engine returns the engine the cluster serves.
func (c *Cluster) Engine() *embedded.Engine { return c.eng }

// Bootstrap lists "127.0.0.1:port" of every live node answering
// ClientMetaService: the master first, then the region servers.
func (c *Cluster) Bootstrap() []string {
	out := []string{c.master.addr}
	for _, n := range c.liveServers() {
		out = append(out, n.addr)
	}
	return out
}

// MasterAddr is the master's "127.0.0.1:port".
func (c *Cluster) MasterAddr() string { return c.master.addr }

// ServerAddr is the address of an engine server ("rs1"...), and false for an
// unknown or killed one.
func (c *Cluster) ServerAddr(server string) (string, bool) {
	n, ok := c.byName[server]
	if !ok || n.master {
		return "", false
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.addr, !n.dead
}

// MetaServer is the engine server currently hosting hbase:meta,,1.
func (c *Cluster) MetaServer() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.metaHost
}

// FailNext makes the next n ClientService calls, on any server, fail with a
// call-level exception of class (a Java class name such as
// wire.ExcRegionTooBusy).
func (c *Cluster) FailNext(n int, class string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.failN, c.failClass = n, class
}

// SetLatency adds d before every answer.
func (c *Cluster) SetLatency(d time.Duration) { c.latency.Store(int64(d)) }

// Calls counts the calls received per method name, on every service.
func (c *Cluster) Calls() map[string]int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int64, len(c.calls))
	for k, v := range c.calls {
		out[k] = v
	}
	return out
}

// KillServer stops a region server as a crash would: its listener and every
// connection close (calls in flight get no answer), its regions, and
// hbase:meta if it hosted it, move to the remaining servers, so later meta
// lookups return their new addresses. The last live server cannot be killed.
func (c *Cluster) KillServer(server string) error {
	n, ok := c.byName[server]
	if !ok || n.master {
		return fmt.Errorf("hbasetest: kill %q: no such region server", server)
	}
	c.mu.Lock()
	var live []*node
	for _, s := range c.liveServers() {
		if s != n {
			live = append(live, s)
		}
	}
	n.mu.Lock()
	dead := n.dead
	n.mu.Unlock()
	if dead || len(live) == 0 {
		c.mu.Unlock()
		if dead {
			return fmt.Errorf("hbasetest: kill %q: already dead", server)
		}
		return fmt.Errorf("hbasetest: kill %q: it is the last live server", server)
	}
	if c.metaHost == server {
		c.metaHost = live[0].name
	}
	for id, s := range c.scanners {
		if s.node == server {
			delete(c.scanners, id)
		}
	}
	c.mu.Unlock()
	n.kill()
	if err := c.reassign(); err != nil {
		return err
	}
	return c.publishMeta()
}

// kill closes the node's listener and connections and refuses new ones.
func (n *node) kill() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.dead = true
	n.ln.Close()
	for conn := range n.conns {
		conn.Close()
	}
}

// liveServers lists the region servers not killed, in engine order.
func (c *Cluster) liveServers() []*node {
	var out []*node
	for _, n := range c.servers {
		n.mu.Lock()
		if !n.dead {
			out = append(out, n)
		}
		n.mu.Unlock()
	}
	return out
}

// reassign moves every region of a dead server to the live ones, round
// robin. The engine's balancer or splitter may place regions on a dead
// server later; watchRegions calls reassign after every region change.
func (c *Cluster) reassign() error {
	live := c.liveServers()
	if len(live) == len(c.servers) || len(live) == 0 {
		return nil
	}
	isLive := map[string]bool{}
	for _, n := range live {
		isLive[n.name] = true
	}
	stats, err := c.eng.RegionStats(c.ctx)
	if err != nil {
		return err
	}
	var errs []error
	i := 0
	for _, r := range stats {
		if isLive[r.Server] {
			continue
		}
		if err := c.eng.MoveRegion(r.Name, live[i%len(live)].name); err != nil {
			// A region split or dropped meanwhile is handled by the
			// next region change.
			if _, ok := c.eng.RegionByName(r.Name); ok {
				errs = append(errs, err)
			}
		}
		i++
	}
	return errors.Join(errs...)
}

// watchRegions keeps regions off dead servers whatever the engine does.
func (c *Cluster) watchRegions() {
	defer c.wg.Done()
	for {
		ch := c.eng.RegionsChanged()
		_ = c.reassign()
		select {
		case <-ch:
		case <-c.ctx.Done():
			return
		}
	}
}

// Close stops every listener and connection and waits for calls in flight.
// The engine stays open.
func (c *Cluster) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	p := c.zk
	c.mu.Unlock()
	c.stop()
	p.close()
	for _, n := range c.byName {
		n.kill()
	}
	c.wg.Wait()
	return nil
}

func (c *Cluster) count(method string) {
	c.mu.Lock()
	c.calls[method]++
	c.mu.Unlock()
}

// takeFailure consumes one injected failure, if any is pending.
func (c *Cluster) takeFailure() (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.failN <= 0 {
		return "", false
	}
	c.failN--
	return c.failClass, true
}

func (c *Cluster) newProc() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nextProc++
	id := c.nextProc
	now := uint64(time.Now().UnixMilli())
	c.procs[id] = &pb.GetProcedureResultResponse{
		State:      pb.GetProcedureResultResponse_FINISHED.Enum(),
		StartTime:  proto.Uint64(now),
		LastUpdate: proto.Uint64(now),
	}
	return id
}

func (c *Cluster) isDisabled(table string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.disabled[table]
}

func (c *Cluster) addrOf(server string) (string, uint64) {
	n, ok := c.byName[server]
	if !ok {
		return "", 0
	}
	return n.addr, n.startCode
}

// clusterID is what GetClusterId answers: stable for the cluster's life.
func (c *Cluster) clusterID() string {
	return "hbasetest-" + strconv.FormatUint(c.master.startCode, 10)
}

// OpenScanners is how many scanners the cluster holds open: a client that
// stops a scan early must close the one it had, prefetch or not. One
// whose lease expired is not open.
func (c *Cluster) OpenScanners() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reapScanners()
	return len(c.scanners)
}
