package hbase

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	"commentbench/hbase/pb"
	"commentbench/hbase/wire"
)

// errConnClosed fails calls on a connection that was closed by the client.
var errConnClosed = errors.New("hbase: connection closed")

// transportError is a failure of the connection itself (dial, EOF, reset,
// timeout, protocol violation). It belongs to the ServerBroken group (§4.2).
type transportError struct {
	addr string
	err  error
}

func (e *transportError) Error() string { return fmt.Sprintf("hbase: %s: %v", e.addr, e.err) }
func (e *transportError) Unwrap() error { return e.err }

// callResult is what the reader goroutine hands to a waiting call.
type callResult struct {
	hdr   *pb.ResponseHeader
	msg   []byte
	cells []byte
	err   error
}

// conn is one TCP connection bound to one service (§1.2). Calls are written
// whole under wmu and matched to responses by call id.
//
// Responses are read by whoever holds the read token, rd. On a plain
// connection that is a waiting caller: it reads until its own answer comes,
// handing on the others' as they pass, then gives the token back for the
// next waiter. A round trip so costs no hand-off between goroutines, which
// on a loaded machine is most of its price. An idle plain connection is
// probed when taken for a call (alive), so a server that closed it is
// noticed before a request is written to it, as a reader would have. A
// TLS or SASL connection cannot be probed under its layer: a reader
// goroutine holds its token for good.
type conn struct {
	addr    string
	service string
	nc      net.Conn
	r       *bufio.Reader
	rd      chan struct{} // the read token
	probe   func() (idle bool)

	wmu sync.Mutex // serialises frame writes

	mu      sync.Mutex
	nextID  uint32
	pending map[uint32]chan callResult
	err     error  // non-nil once the connection is dead
	onDead  func() // called once when the connection dies, unless closed by us
}

// dialConn connects and sends the preamble announcing KeyValueCodec; nothing
// comes back, so the connection is usable right away (§2).
func dialConn(ctx context.Context, addr, service, user string, timeout time.Duration, onDead func()) (*conn, error) {
	return dialSecure(ctx, addr, service, user, timeout, onDead, nil)
}

// dialSecure is dialConn with TLS and Kerberos as sec says (nil: neither).
// A refusal to authenticate or trust is returned as itself, not as a
// transport failure, so it is not retried.
func dialSecure(ctx context.Context, addr, service, user string, timeout time.Duration, onDead func(), sec *Options) (*conn, error) {
	d := net.Dialer{Timeout: timeout}
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, &transportError{addr, fmt.Errorf("unreachable: %w", err)}
	}
	dl := time.Now().Add(timeout)
	if t, ok := ctx.Deadline(); ok && t.Before(dl) {
		dl = t
	}
	if sec != nil && (sec.TLS != nil || sec.Kerberos != nil) {
		raw := nc
		if nc, err = sec.secure(ctx, raw, addr, service, user, dl); err != nil {
			raw.Close()
			if SecurityError(err) {
				return nil, err
			}
			return nil, &transportError{addr, err}
		}
	} else {
		_ = nc.SetWriteDeadline(dl)
		if err := wire.WritePreamble(nc, service, user, true); err != nil {
			nc.Close()
			return nil, &transportError{addr, fmt.Errorf("preamble: %w", err)}
		}
		_ = nc.SetWriteDeadline(time.Time{})
	}
	c := &conn{
		addr:    addr,
		service: service,
		nc:      nc,
		nextID:  1,
		pending: make(map[uint32]chan callResult),
		onDead:  onDead,
		r:       bufio.NewReaderSize(nc, 64<<10),
		rd:      make(chan struct{}, 1),
	}
	c.rd <- struct{}{}
	if c.probe = socketProbe(nc); c.probe == nil {
		go c.readLoop()
	}
	return c, nil
}

// alive reports whether calls can still be made. An idle plain connection
// is probed first: a close or an unasked-for frame (a connection-level
// exception) waiting on it is read now, and kills it.
func (c *conn) alive() bool {
	if !c.ok() {
		return false
	}
	if c.probe == nil {
		return true
	}
	select {
	case <-c.rd:
	default:
		return true // a caller is reading: it notices a close itself
	}
	if c.r.Buffered() > 0 || !c.probe() {
		_ = c.nc.SetReadDeadline(time.Now().Add(time.Second))
		c.readFrame()
		_ = c.nc.SetReadDeadline(time.Time{})
	}
	c.rd <- struct{}{}
	return c.ok()
}

func (c *conn) ok() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err == nil
}

// kill closes the connection and fails every pending call with err.
func (c *conn) kill(err error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = err
	pend := c.pending
	c.pending = nil
	c.mu.Unlock()
	c.nc.Close()
	for _, ch := range pend {
		ch <- callResult{err: err}
	}
	if c.onDead != nil && !errors.Is(err, errConnClosed) {
		c.onDead()
	}
}

func (c *conn) close() { c.kill(&transportError{c.addr, errConnClosed}) }

// readLoop holds the read token of a connection that cannot be probed and
// reads every response.
func (c *conn) readLoop() {
	<-c.rd
	for c.readFrame() {
	}
}

// readFrame reads one response and hands it to its call. A frame that does
// not decode, or whose call id is missing or unknown, kills the connection
// (§1.2); readFrame reports whether the connection lives on.
func (c *conn) readFrame() bool {
	hdr, msg, cells, err := wire.ReadResponse(c.r)
	if err != nil {
		c.kill(&transportError{c.addr, err})
		return false
	}
	if hdr.CallId == nil {
		c.kill(&transportError{c.addr, errors.New("response without call id")})
		return false
	}
	if hdr.GetCallId() == connCallID && hdr.Exception != nil {
		c.kill(connectionRefused(c.addr, hdr.GetException()))
		return false
	}
	id := hdr.GetCallId()
	c.mu.Lock()
	ch, ok := c.pending[id]
	if ok {
		delete(c.pending, id)
	}
	dead := c.err != nil
	// A late answer to a cancelled call has no channel: its id was
	// forgotten. Ids are never reused on a connection, so an id at or
	// above nextID is a protocol error while a forgotten one is simply
	// dropped.
	unknown := !ok && (id == 0 || id >= c.nextID)
	c.mu.Unlock()
	switch {
	case dead:
		return false
	case unknown:
		c.kill(&transportError{c.addr, fmt.Errorf("response for unknown call id %d", id)})
		return false
	case ok:
		ch <- callResult{hdr: hdr, msg: msg, cells: cells}
	}
	return true
}

// errInterrupted is a wait for a frame that ctx ended before any byte of
// one came: the stream is whole, and the connection lives on.
var errInterrupted = errors.New("hbase: wait for a response interrupted")

// readUntil reads, holding the read token, until ch has an answer (its
// own, or the connection's death) or ctx ends a wait between two frames
// (false). A silence until deadline kills the connection with silent().
func (c *conn) readUntil(ctx context.Context, ch chan callResult, deadline time.Time, silent func() error) (callResult, bool) {
	for {
		select {
		case res := <-ch:
			return res, true
		default:
		}
		if ctx.Err() != nil {
			return callResult{}, false
		}
		switch err := c.awaitFrame(ctx, deadline); {
		case errors.Is(err, errInterrupted):
			return callResult{}, false
		case errors.Is(err, os.ErrDeadlineExceeded):
			c.kill(silent())
		case err != nil:
			c.kill(&transportError{c.addr, err})
		default:
			c.readFrame()
		}
	}
}

// awaitFrame waits until a frame starts to arrive, consuming nothing, so
// that ctx can end the wait and leave the stream whole. The rest of the
// frame is read bounded by deadline alone.
func (c *conn) awaitFrame(ctx context.Context, deadline time.Time) error {
	_ = c.nc.SetReadDeadline(deadline)
	if c.r.Buffered() > 0 {
		return nil
	}
	if ctx.Done() == nil {
		_, err := c.r.Peek(1)
		return err
	}
	fired := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		_ = c.nc.SetReadDeadline(time.Unix(1, 0)) // in the past: the Peek returns
		close(fired)
	})
	_, err := c.r.Peek(1)
	if !stop() {
		<-fired
		_ = c.nc.SetReadDeadline(deadline)
	}
	if err != nil && c.r.Buffered() == 0 && (ctx.Err() != nil || expired(ctx)) {
		return errInterrupted
	}
	return err
}

// expired reports whether ctx's deadline has passed, which the read
// deadline set to it can see a moment before ctx itself does.
func expired(ctx context.Context) bool {
	d, ok := ctx.Deadline()
	return ok && !time.Now().Before(d)
}

// call sends one request and waits for its answer. ctx bounds the wait;
// when ctx has no deadline, timeout does, and a server silent that long has
// its connection dropped (like gohbase's read deadline). A cancelled call
// returns ctx.Err() at once and its late answer is discarded.
func (c *conn) call(ctx context.Context, method string, req proto.Message, cells []byte, timeout time.Duration) (msg, respCells []byte, err error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	ch := make(chan callResult, 1)
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return nil, nil, err
	}
	id := c.nextID
	c.nextID++
	if c.nextID == 0 {
		c.nextID = 1
	}
	c.pending[id] = ch
	c.mu.Unlock()

	deadline, hasDeadline := ctx.Deadline()
	if !hasDeadline {
		deadline = time.Now().Add(timeout)
	}
	hdr := &pb.RequestHeader{CallId: proto.Uint32(id), MethodName: proto.String(method)}
	if ms := time.Until(deadline).Milliseconds(); ms > 0 && ms < 1<<31 {
		hdr.Timeout = proto.Uint32(uint32(ms))
	}
	c.wmu.Lock()
	_ = c.nc.SetWriteDeadline(deadline)
	werr := wire.WriteRequest(c.nc, hdr, req, cells)
	c.wmu.Unlock()
	if werr != nil {
		te := &transportError{c.addr, fmt.Errorf("write: %w", werr)}
		c.kill(te)
		return nil, nil, te
	}

	var timer <-chan time.Time
	if !hasDeadline {
		t := time.NewTimer(timeout)
		defer t.Stop()
		timer = t.C
	}
	silent := func() error {
		return &transportError{c.addr, fmt.Errorf("%s: no answer within %v: %w", method, timeout, context.DeadlineExceeded)}
	}
	var res callResult
	select {
	case res = <-ch:
	case <-c.rd:
		var ok bool
		res, ok = c.readUntil(ctx, ch, deadline, silent)
		c.rd <- struct{}{} // to the next waiter
		if !ok {
			c.forget(id)
			if err := ctx.Err(); err != nil {
				return nil, nil, err
			}
			return nil, nil, context.DeadlineExceeded // ctx's own timer is a moment behind
		}
	case <-ctx.Done():
		c.forget(id)
		return nil, nil, ctx.Err()
	case <-timer:
		te := silent()
		c.kill(te)
		return nil, nil, te
	}
	if res.err != nil {
		return nil, nil, res.err
	}
	if ex := res.hdr.GetException(); res.hdr.Exception != nil {
		cls, trace := ex.GetExceptionClassName(), ex.GetStackTrace()
		return nil, nil, &Error{Class: cls, Message: trace, Group: wire.Classify(cls, trace)}
	}
	return res.msg, res.cells, nil
}

func (c *conn) forget(id uint32) {
	c.mu.Lock()
	if c.pending != nil {
		delete(c.pending, id)
	}
	c.mu.Unlock()
}
