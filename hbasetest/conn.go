package hbasetest

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"commentbench/hbase/pb"
	"commentbench/hbase/sasl"
	"commentbench/hbase/wire"
	"commentbench/store"

	"google.golang.org/protobuf/proto"
)

// hbaseError is an exception as the client sees it: a Java class name and
// a message that becomes the stack trace.
type hbaseError struct {
	class, msg string
}

func (e *hbaseError) Error() string { return e.class + ": " + e.msg }

// stackTrace is the text HBase puts in ExceptionResponse.stack_trace: the
// stringified exception and a frame. Clients only need it non-empty.
func (e *hbaseError) stackTrace() string {
	return e.class + ": " + e.msg + "\n\tat org.apache.hadoop.hbase.hbasetest.Cluster.call(Cluster.java:1)\n"
}

func excf(class, format string, args ...any) *hbaseError {
	return &hbaseError{class: class, msg: fmt.Sprintf(format, args...)}
}

// asHBase turns any error into an exception: engine errors become the
// exception HBase raises for the same condition.
func asHBase(err error) *hbaseError {
	var he *hbaseError
	switch {
	case errors.As(err, &he):
		return he
	case errors.Is(err, store.ErrInvalid):
		return excf(wire.ExcDoNotRetryIO, "%v", err)
	case errors.Is(err, store.ErrTableNotFound):
		return excf(wire.ExcTableNotFound, "%v", err)
	case errors.Is(err, store.ErrTableExists):
		return excf(wire.ExcTableExists, "%v", err)
	default:
		return excf(wire.ExcIO, "%v", err)
	}
}

// nameBytes is the NameBytesPair form of an exception used inside Multi.
func nameBytes(err error) *pb.NameBytesPair {
	he := asHBase(err)
	return &pb.NameBytesPair{Name: proto.String(he.class), Value: []byte(he.stackTrace())}
}

// conn is one accepted client connection, bound to one service.
type conn struct {
	c       *Cluster
	node    *node
	nc      net.Conn
	service string
	codec   bool // the client declared KeyValueCodec: results go to cellblocks
	wmu     sync.Mutex
	calls   chan call // to the connection's idle workers
}

// accept serves n's connections until its listener closes. Any other
// failure to accept (the process out of file descriptors, say) is waited
// out and retried: giving up would leave the port open, the kernel
// completing connections into its backlog that no one reads, and every
// call made on them unanswered.
func (c *Cluster) accept(n *node) {
	defer c.wg.Done()
	var pause time.Duration
	for {
		nc, err := n.ln.Accept()
		if err != nil {
			pause = acceptPause(pause)
			if errors.Is(err, net.ErrClosed) || !c.sleep(pause) {
				return
			}
			continue
		}
		pause = 0
		n.mu.Lock()
		if n.dead {
			n.mu.Unlock()
			nc.Close()
			return
		}
		n.conns[nc] = struct{}{}
		n.mu.Unlock()
		c.wg.Add(1)
		go c.serveConn(n, nc)
	}
}

// acceptPause is the wait after a failed accept that followed one of
// last: 5 ms, doubling to at most a second, as net/http waits.
func acceptPause(last time.Duration) time.Duration {
	if last == 0 {
		return 5 * time.Millisecond
	}
	return min(2*last, time.Second)
}

// sleep waits d, or less if the cluster closes; it reports whether the
// cluster is still open.
func (c *Cluster) sleep(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-c.ctx.Done():
		return false
	}
}

// serves reports whether a node offers service (§1.1): region servers
// ClientService, the master MasterService, both ClientMetaService.
func (n *node) serves(service string) bool {
	switch service {
	case wire.ServiceClientMeta:
		return true
	case wire.ServiceClient:
		return !n.master
	case wire.ServiceMaster:
		return n.master
	}
	return false
}

// serveConn reads the preamble, then requests: a point call with nothing
// queued behind it is answered here, anything else is handed to a worker
// of the connection. Answers go out in completion order.
func (c *Cluster) serveConn(n *node, nc net.Conn) {
	defer c.wg.Done()
	defer func() {
		nc.Close()
		n.mu.Lock()
		delete(n.conns, nc)
		n.mu.Unlock()
	}()
	_ = nc.SetDeadline(time.Now().Add(10 * time.Second))
	var (
		br   *bufio.Reader
		hdr  *pb.ConnectionHeader
		err  error
		wc   = nc // what answers are written on: nc, or its TLS or SASL layer
		peer *sasl.Peer
	)
	if c.sec != nil {
		wc, br, hdr, peer, err = c.sec.open(nc)
	} else {
		br = bufio.NewReader(nc)
		hdr, err = wire.ReadPreamble(br)
	}
	if err != nil {
		return
	}
	_ = nc.SetDeadline(time.Time{})
	if peer != nil && c.sec.o.DropExpired {
		t := time.AfterFunc(time.Until(peer.Expires), func() { nc.Close() })
		defer t.Stop()
	}
	codec := hdr.GetCellBlockCodecClass()
	switch {
	case !n.serves(hdr.GetServiceName()),
		codec != "" && codec != wire.KeyValueCodec,
		hdr.GetCellBlockCompressorClass() != "",
		c.user != "" && hdr.GetUserInfo().GetEffectiveUser() != c.user:
		return
	}
	cn := &conn{c: c, node: n, nc: wc, service: hdr.GetServiceName(), codec: codec != "", calls: make(chan call)}
	defer close(cn.calls)
	for {
		rh, param, cells, err := wire.ReadRequest(br)
		if err != nil {
			return
		}
		// Counting and the latency are fixed as the frame is read, so a
		// test that changes them between two calls knows which call got
		// which.
		c.count(rh.GetMethodName())
		cl := call{rh, param, cells, time.Duration(c.latency.Load())}
		// A point call with nothing queued behind it is answered here: a
		// hand-off to a worker is most of a loopback round trip's price.
		// Anything else goes to a worker, so that calls on one connection
		// run at once.
		if cl.delay == 0 && br.Buffered() == 0 && pointCall(rh.GetMethodName()) {
			cn.handle(cl.rh, cl.param, cl.cells, 0)
			continue
		}
		cn.dispatchCall(cl)
	}
}

// pointCall reports whether method touches one row and returns at once.
func pointCall(method string) bool { return method == "Get" || method == "Mutate" }

// call is one request read off the connection.
type call struct {
	rh           *pb.RequestHeader
	param, cells []byte
	delay        time.Duration
}

// dispatchCall hands a call to an idle worker of the connection, or to a
// new one when all are busy: answers still go out in completion order, a
// connection keeps as many workers as it had calls in flight at once, and
// a client making one call at a time costs no goroutine per call.
func (cn *conn) dispatchCall(cl call) {
	select {
	case cn.calls <- cl:
	default:
		cn.c.wg.Add(1)
		go cn.work(cl)
	}
}

// work answers cl, then whatever the connection hands it until it closes.
func (cn *conn) work(cl call) {
	defer cn.c.wg.Done()
	for ok := true; ok; cl, ok = <-cn.calls {
		cn.handle(cl.rh, cl.param, cl.cells, cl.delay)
	}
}

// handle answers one call. The frame is written with one Write under the
// connection's lock.
func (cn *conn) handle(rh *pb.RequestHeader, param, cells []byte, delay time.Duration) {
	c := cn.c
	msg, out, err := cn.safeDispatch(rh.GetMethodName(), param, cells)
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-c.ctx.Done():
		}
	}
	hdr := &pb.ResponseHeader{CallId: proto.Uint32(rh.GetCallId())}
	if err != nil {
		he := asHBase(err)
		hdr.Exception = &pb.ExceptionResponse{
			ExceptionClassName: proto.String(he.class),
			StackTrace:         proto.String(he.stackTrace()),
		}
		if doNotRetry[he.class] {
			hdr.Exception.DoNotRetry = proto.Bool(true)
		}
		msg, out = nil, nil
	}
	cn.wmu.Lock()
	defer cn.wmu.Unlock()
	if werr := wire.WriteResponse(cn.nc, hdr, msg, out); werr != nil {
		cn.nc.Close()
	}
}

// doNotRetry holds the exceptions sent with do_not_retry: HBase sets it
// for every DoNotRetryIOException; these are the ones a client here may
// branch on.
var doNotRetry = map[string]bool{
	wire.ExcDoNotRetryIO: true, wire.ExcAccessDenied: true,
	wire.ExcUnknownScanner: true, excPeerNotFound: true,
}

// unknownMethod is HBase's answer to a method its service lacks.
func unknownMethod(service, method string) error {
	return excf(wire.ExcDoNotRetryIO, "java.lang.UnsupportedOperationException: unknown method %s in service %s", method, service)
}

func decode(param []byte, m proto.Message) error {
	if err := proto.Unmarshal(param, m); err != nil {
		return excf(wire.ExcDoNotRetryIO, "cannot decode %T: %v", m, err)
	}
	return nil
}

// safeDispatch is dispatch that turns a panic into an exception for the
// call, so one bad request cannot take the cluster (and the test) down.
func (cn *conn) safeDispatch(method string, param, cells []byte) (msg proto.Message, out []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			msg, out, err = nil, nil, excf(wire.ExcIO, "panic serving %s: %v", method, p)
		}
	}()
	return cn.dispatch(method, param, cells)
}

func (cn *conn) dispatch(method string, param, cells []byte) (proto.Message, []byte, error) {
	if err := cn.c.injected(cn.service, method, param); err != nil {
		return nil, nil, err
	}
	switch cn.service {
	case wire.ServiceClient:
		cn.c.gate.RLock()
		defer cn.c.gate.RUnlock()
		if class, ok := cn.c.takeFailure(); ok {
			return nil, nil, excf(class, "injected failure of %s", method)
		}
		switch method {
		case "Get":
			return cn.get(param)
		case "Mutate":
			return cn.mutate(param, cells)
		case "Multi":
			return cn.multi(param, cells)
		case "Scan":
			return cn.scan(param)
		}
	case wire.ServiceMaster:
		return cn.c.masterCall(method, param)
	case wire.ServiceClientMeta:
		return cn.c.registryCall(method, param)
	}
	return nil, nil, unknownMethod(cn.service, method)
}
