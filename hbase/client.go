package hbase

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/protobuf/proto"

	"commentbench/hbase/pb"
	"commentbench/hbase/sasl"
	"commentbench/hbase/wire"
)

// Options configures Dial.
type Options struct {
	Bootstrap   []string      // RPC connection registry (HBase 2.5+): "host:port" of masters/region servers
	ZooKeeper   []string      // quorum "host:port"; when set, tried before Bootstrap
	ZKRoot      string        // default "/hbase"
	User        string        // default "root"
	DialTimeout time.Duration // default 5 s
	CallTimeout time.Duration // per-RPC deadline when ctx has none, default 30 s
	MaxRetries  int           // default 10

	// Kerberos, when set, authenticates every connection with SASL GSSAPI
	// (auth byte 0x51) as these credentials; nil is SIMPLE auth.
	Kerberos *sasl.Credentials
	// ServicePrincipal is the servers' principal; _HOST becomes each
	// server's host name and a missing realm the default one. Default
	// DefaultServicePrincipal.
	ServicePrincipal string
	// Protection is the SASL layer required (authentication, integrity or
	// privacy); 0 takes the strongest the server offers.
	Protection sasl.Protection
	// TLS, when set, wraps every connection in TLS before the preamble
	// (HBase 2.6's hbase.client.netty.tls.enabled); Kerberos runs inside.
	TLS *tls.Config
}

func (o *Options) defaults() {
	if o.ZKRoot == "" {
		o.ZKRoot = "/hbase"
	}
	if o.User == "" {
		o.User = "root"
	}
	if o.DialTimeout <= 0 {
		o.DialTimeout = 5 * time.Second
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = 30 * time.Second
	}
	if o.MaxRetries <= 0 {
		o.MaxRetries = 10
	}
}

// Counters are client-side statistics since Dial.
type Counters struct {
	RPCs        map[string]int64 // by method name
	Retries     map[string]int64 // by exception class, "transport" or "client"
	MetaLookups int64
	CacheMisses int64
}

type connKey struct{ addr, service string }

// Client is a connection to one HBase cluster, safe for concurrent use.
type Client struct {
	o Options

	mu         sync.Mutex
	conns      map[connKey]*conn
	metaAddr   string
	masterAddr string
	closed     bool

	cache regionCache

	cmu      sync.Mutex
	counters Counters // but RPCs, counted in rpcs
	// rpcs maps a method name to its *atomic.Int64 count: every call
	// counts, and a lock-free add keeps concurrent callers apart.
	rpcs sync.Map

	famCols sync.Map // family name -> []Column, see familyColumns
}

// Dial asks the bootstrap nodes' ClientMetaService where hbase:meta and the
// active master are. It fails within DialTimeout with an error wrapping
// ErrUnavailable when no node is reachable or none speaks HBase.
func Dial(ctx context.Context, o Options) (*Client, error) {
	o.defaults()
	if len(o.Bootstrap) == 0 && len(o.ZooKeeper) == 0 {
		return nil, fmt.Errorf("%w: no bootstrap or ZooKeeper addresses", ErrUnavailable)
	}
	c := &Client{
		o:     o,
		conns: make(map[connKey]*conn),
		counters: Counters{
			Retries: make(map[string]int64),
		},
	}
	c.cache.tables = make(map[string][]*region)
	dctx, cancel := context.WithTimeout(ctx, o.DialTimeout)
	defer cancel()
	if err := c.refreshRegistry(dctx); err != nil {
		c.Close()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	return c, nil
}

// Close drops every connection. Calls in flight fail.
func (c *Client) Close() error {
	c.mu.Lock()
	c.closed = true
	conns := c.conns
	c.conns = make(map[connKey]*conn)
	c.mu.Unlock()
	for _, cn := range conns {
		cn.close()
	}
	return nil
}

// Counters returns a snapshot of the client's counters.
func (c *Client) Counters() Counters {
	c.cmu.Lock()
	defer c.cmu.Unlock()
	out := Counters{
		RPCs:        make(map[string]int64),
		Retries:     make(map[string]int64, len(c.counters.Retries)),
		MetaLookups: c.counters.MetaLookups,
		CacheMisses: c.counters.CacheMisses,
	}
	for k, v := range c.counters.Retries {
		out.Retries[k] = v
	}
	c.rpcs.Range(func(k, v any) bool {
		out.RPCs[k.(string)] = v.(*atomic.Int64).Load()
		return true
	})
	return out
}

func (c *Client) countRPC(method string) {
	n, ok := c.rpcs.Load(method)
	if !ok {
		n, _ = c.rpcs.LoadOrStore(method, new(atomic.Int64))
	}
	n.(*atomic.Int64).Add(1)
}

func (c *Client) count(f func(*Counters)) {
	c.cmu.Lock()
	f(&c.counters)
	c.cmu.Unlock()
}

// refreshRegistry finds the meta location and the active master: from
// ZooKeeper when configured (§5.2), else (or if that fails) from each
// bootstrap node's registry in turn; the first complete answer wins (§5.3).
func (c *Client) refreshRegistry(ctx context.Context) error {
	var errs []error
	if len(c.o.ZooKeeper) > 0 {
		meta, master, err := c.zkLocate(ctx)
		if err == nil {
			c.mu.Lock()
			c.metaAddr, c.masterAddr = meta, master
			c.mu.Unlock()
			return nil
		}
		errs = append(errs, err)
	}
	for _, addr := range c.o.Bootstrap {
		meta, master, err := c.askRegistry(ctx, addr)
		if err == nil {
			c.mu.Lock()
			c.metaAddr, c.masterAddr = meta, master
			c.mu.Unlock()
			return nil
		}
		errs = append(errs, fmt.Errorf("%s: %w", addr, describeDialErr(err)))
		// Another node would refuse the same credentials or certificate.
		if ctx.Err() != nil || SecurityError(err) {
			break
		}
	}
	return fmt.Errorf("%w: %w", ErrUnavailable, errors.Join(errs...))
}

func describeDialErr(err error) error {
	var te *transportError
	if errors.As(err, &te) {
		if errors.Is(te.err, wire.ErrFrame) || errors.Is(te.err, errConnClosed) || errors.Is(te.err, context.DeadlineExceeded) {
			return fmt.Errorf("not an HBase server or not answering: %w", te.err)
		}
		return te.err
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("no answer (not an HBase server?): %w", err)
	}
	return err
}

func (c *Client) askRegistry(ctx context.Context, addr string) (meta, master string, err error) {
	var ml pb.GetMetaRegionLocationsResponse
	if _, err := c.rpc(ctx, addr, wire.ServiceClientMeta, "GetMetaRegionLocations", &pb.GetMetaRegionLocationsRequest{}, nil, &ml); err != nil {
		c.dropConn(addr, wire.ServiceClientMeta)
		return "", "", err
	}
	for _, loc := range ml.GetMetaLocations() {
		if loc.GetRegionInfo().GetReplicaId() == 0 && loc.GetServerName() != nil {
			meta = serverAddr(loc.GetServerName())
			break
		}
	}
	if meta == "" {
		return "", "", errors.New("registry gave no meta location")
	}
	var am pb.GetActiveMasterResponse
	if _, err := c.rpc(ctx, addr, wire.ServiceClientMeta, "GetActiveMaster", &pb.GetActiveMasterRequest{}, nil, &am); err != nil {
		c.dropConn(addr, wire.ServiceClientMeta)
		return "", "", err
	}
	if am.GetServerName() == nil {
		return "", "", errors.New("registry gave no active master")
	}
	return meta, serverAddr(am.GetServerName()), nil
}

func serverAddr(sn *pb.ServerName) string {
	return net.JoinHostPort(sn.GetHostName(), strconv.Itoa(int(sn.GetPort())))
}

// getConn returns the live connection to (addr, service), dialling one if
// needed.
func (c *Client) getConn(ctx context.Context, addr, service string) (*conn, error) {
	k := connKey{addr, service}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, ErrClosed
	}
	cn := c.conns[k]
	c.mu.Unlock()
	if cn != nil && cn.alive() { // outside c.mu: alive may read a frame
		return cn, nil
	}
	var onDead func()
	if service == wire.ServiceClient {
		// A lost region-server connection invalidates its regions (§7.3).
		onDead = func() { c.cache.removeAddr(addr) }
	}
	cn, err := dialSecure(ctx, addr, service, c.o.User, c.o.DialTimeout, onDead, &c.o)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		cn.close()
		return nil, ErrClosed
	}
	if old := c.conns[k]; old != nil && old.alive() {
		cn.close()
		return old, nil
	}
	c.conns[k] = cn
	return cn, nil
}

// dropConn closes the connection to (addr, service) if any.
func (c *Client) dropConn(addr, service string) {
	k := connKey{addr, service}
	c.mu.Lock()
	cn := c.conns[k]
	delete(c.conns, k)
	c.mu.Unlock()
	if cn != nil {
		cn.close()
	}
}

// rpc makes one call and decodes its response into resp.
func (c *Client) rpc(ctx context.Context, addr, service, method string, req proto.Message, cells []byte, resp proto.Message) ([]byte, error) {
	fb := getFrameBuf()
	defer fb.release()
	if err := fb.encode(method, req); err != nil {
		return nil, err
	}
	msg, rc, err := c.roundTrip(ctx, addr, service, method, fb, cells)
	if err != nil {
		return nil, err
	}
	if err := proto.Unmarshal(msg, resp); err != nil {
		return nil, &retryableError{fmt.Sprintf("%s from %s: undecodable response: %v", method, addr, err)}
	}
	return rc, nil
}

// roundTrip sends the request message encoded in fb.body and returns the
// response message, undecoded, and its cellblock.
func (c *Client) roundTrip(ctx context.Context, addr, service, method string, fb *frameBuf, cells []byte) (msg, rc []byte, err error) {
	cn, err := c.getConn(ctx, addr, service)
	if err != nil {
		return nil, nil, err
	}
	c.countRPC(method)
	return cn.send(ctx, method, fb, cells, c.o.CallTimeout)
}

// retrier bounds and paces the retries of one operation.
type retrier struct {
	c       *Client
	attempt int
}

// backoff returns the pause before retry n (1-based): 16 ms doubling,
// capped at 5 s (§4.2).
func backoff(n int) time.Duration {
	d := 16 * time.Millisecond
	for i := 1; i < n && d < 5*time.Second; i++ {
		d *= 2
	}
	return min(d, 5*time.Second)
}

// handle decides about err: it returns nil after doing what the error's
// group asks (invalidating regions or connections, sleeping) when the
// operation should be tried again, or the error to surface. r is the region
// the failed call addressed (nil if none), addr/service its connection.
func (rt *retrier) handle(ctx context.Context, err error, r *region, addr, service string) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if errors.Is(err, ErrClosed) {
		return err
	}
	g, class := groupOf(err)
	if g == wire.Surface {
		return err
	}
	rt.attempt++
	if rt.attempt > rt.c.o.MaxRetries {
		return fmt.Errorf("hbase: giving up after %d retries: %w", rt.c.o.MaxRetries, err)
	}
	rt.c.count(func(k *Counters) { k.Retries[class]++ })
	switch g {
	case wire.Relocate:
		if r != nil {
			rt.c.cache.remove(r)
		}
		if rt.attempt == 1 {
			return nil // no pause before the first re-location
		}
	case wire.ServerBroken:
		rt.c.serverBroken(addr, service)
	}
	return sleep(ctx, backoff(rt.attempt))
}

// serverBroken drops the connection and forgets every region located on
// that server; a broken meta or master connection also makes the next use
// ask the registry again.
func (c *Client) serverBroken(addr, service string) {
	if addr == "" {
		return
	}
	c.dropConn(addr, service)
	c.cache.removeAddr(addr)
	c.mu.Lock()
	if addr == c.metaAddr && service == wire.ServiceClient {
		c.metaAddr = ""
	}
	if addr == c.masterAddr && service == wire.ServiceMaster {
		c.masterAddr = ""
	}
	c.mu.Unlock()
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// meta returns the address serving hbase:meta, asking the registry when it
// is unknown.
func (c *Client) meta(ctx context.Context) (string, error) { return c.located(ctx, &c.metaAddr) }

// master returns the active master's address, asking the registry when it
// is unknown.
func (c *Client) master(ctx context.Context) (string, error) { return c.located(ctx, &c.masterAddr) }

// located reads *addr (guarded by c.mu), refreshing it from the registry
// when it is unknown.
func (c *Client) located(ctx context.Context, addr *string) (string, error) {
	c.mu.Lock()
	a := *addr
	c.mu.Unlock()
	if a != "" {
		return a, nil
	}
	if err := c.refreshRegistry(ctx); err != nil {
		return "", &transportError{"registry", err}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return *addr, nil
}

func regionSpec(name []byte) *pb.RegionSpecifier {
	return &pb.RegionSpecifier{Type: pb.RegionSpecifier_REGION_NAME.Enum(), Value: nonNil(name)}
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}
