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

// callResult is what the reader hands to a waiting call.
type callResult struct {
	exc   *pb.ExceptionResponse
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
	probe   func() (idle bool)

	// What the read token's holder owns.
	rd    chan struct{} // the read token
	rdl   lazyDeadline  // the read deadline
	watch ctxWatch      // ends the holder's wait when its ctx is done
	// lastFrame is when a frame was last read: a connection that
	// answered this recently is not probed (see alive).
	lastFrame time.Time

	wmu sync.Mutex   // serialises frame writes
	wdl lazyDeadline // the write deadline, under wmu

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
	c.rdl.set, c.wdl.set = nc.SetReadDeadline, nc.SetWriteDeadline
	c.rd <- struct{}{}
	if c.probe = socketProbe(nc); c.probe == nil {
		go c.readLoop()
	}
	return c, nil
}

// alive reports whether calls can still be made. An idle plain connection
// is probed first: a close or an unasked-for frame (a connection-level
// exception) waiting on it is read now, and kills it. One that answered
// within probeAfter is not idle: a close sent since is one a probe could
// as well have missed by a moment, and the look is a system call.
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
	if c.r.Buffered() > 0 || (time.Since(c.lastFrame) >= probeAfter && !c.probe()) {
		c.rdl.want(time.Now().Add(time.Second), 0)
		c.readFrame()
	}
	c.rd <- struct{}{}
	return c.ok()
}

const probeAfter = time.Millisecond

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
	c.watch.release()
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
	frame, err := wire.ReadFrame(c.r)
	var h wire.ResponseHead
	var msg, cells []byte
	if err == nil {
		h, msg, cells, err = wire.SplitResponse(frame)
	}
	if err != nil {
		c.kill(&transportError{c.addr, err})
		return false
	}
	if !h.HasCallID {
		c.kill(&transportError{c.addr, errors.New("response without call id")})
		return false
	}
	if h.CallID == connCallID && h.Exception != nil {
		c.kill(connectionRefused(c.addr, h.Exception))
		return false
	}
	c.lastFrame = time.Now()
	ch, ok, unknown, dead := c.claim(h.CallID)
	switch {
	case dead:
		return false
	case unknown:
		c.kill(&transportError{c.addr, fmt.Errorf("response for unknown call id %d", h.CallID)})
		return false
	case ok:
		ch <- callResult{exc: h.Exception, msg: msg, cells: cells}
	}
	return true
}

// claim takes the channel of call id. A late answer to a cancelled call
// has none: its id was forgotten. Ids are never reused on a connection,
// so an id at or above nextID is a protocol error while a forgotten one
// is simply dropped.
func (c *conn) claim(id uint32) (ch chan callResult, ok, unknown, dead bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch, ok = c.pending[id]
	if ok {
		delete(c.pending, id)
	}
	return ch, ok, !ok && (id == 0 || id >= c.nextID), c.err != nil
}

// errInterrupted is a wait for a frame that ctx ended before any byte of
// one came: the stream is whole, and the connection lives on.
var errInterrupted = errors.New("hbase: wait for a response interrupted")

// outgoing is one call in flight: its answer's channel and id, and what
// bounds the wait for the answer.
type outgoing struct {
	ch          chan callResult
	id          uint32
	method      string
	timeout     time.Duration // the bound without a ctx deadline
	deadline    time.Time
	hasDeadline bool          // deadline is ctx's
	slack       time.Duration // how far past deadline the socket's may lie
}

// silent is the death of a connection that did not answer o in time.
func (o *outgoing) silent(addr string) error {
	return &transportError{addr, fmt.Errorf("%s: no answer within %v: %w", o.method, o.timeout, context.DeadlineExceeded)}
}

// readUntil reads, holding the read token, until o has an answer (its
// own, or the connection's death) or ctx ends a wait between two frames
// (false). A silence until o's deadline kills the connection.
func (c *conn) readUntil(ctx context.Context, o *outgoing) (callResult, bool) {
	for {
		select {
		case res := <-o.ch:
			return res, true
		default:
		}
		if ctx.Err() != nil {
			return callResult{}, false
		}
		switch err := c.awaitFrame(ctx, o); {
		case errors.Is(err, errInterrupted):
			return callResult{}, false
		case errors.Is(err, os.ErrDeadlineExceeded):
			c.kill(o.silent(c.addr))
		case err != nil:
			c.kill(&transportError{c.addr, err})
		default:
			c.readFrame()
		}
	}
}

// awaitFrame waits until a frame starts to arrive, consuming nothing, so
// that ctx can end the wait and leave the stream whole. The rest of the
// frame is read bounded by the deadline alone.
func (c *conn) awaitFrame(ctx context.Context, o *outgoing) error {
	c.rdl.want(o.deadline, o.slack)
	if c.r.Buffered() > 0 {
		return nil
	}
	if ctx.Done() == nil {
		_, err := c.r.Peek(1)
		return err
	}
	waiting := c.watch.begin(c, ctx)
	err := errInterrupted
	if waiting {
		_, err = c.r.Peek(1)
	}
	if c.watch.end() {
		// ctx's end moved the read deadline: it is the call's again.
		c.rdl.forget()
		c.rdl.want(o.deadline, o.slack)
	}
	if !waiting {
		return errInterrupted
	}
	if err != nil && c.r.Buffered() == 0 && (ctx.Err() != nil || expired(ctx)) {
		return errInterrupted
	}
	return err
}

// ctxWatch lets the end of a context interrupt the read token holder's
// wait for a frame. It watches one context at a time, the last holder's,
// and keeps watching it after the call: the calls of a load test share
// one context, which so is registered once per connection, not once per
// call (context.AfterFunc allocates, and takes the context's lock, shared
// by every caller, both to register and to unregister).
type ctxWatch struct {
	mu      sync.Mutex
	ctx     context.Context // watched
	stop    func() bool     // unwatches ctx
	waiting bool            // the holder waits for a frame under ctx
	hit     bool            // ctx's end interrupted that wait
}

// begin marks the holder waiting under ctx, watching it first; false if
// ctx is done already.
func (w *ctxWatch) begin(c *conn, ctx context.Context) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ctx != ctx {
		if w.stop != nil {
			w.stop()
		}
		w.ctx, w.stop = ctx, context.AfterFunc(ctx, func() { w.interrupt(c, ctx) })
	}
	w.waiting = true
	return ctx.Err() == nil // a done ctx's interrupt may have found no one waiting
}

// end marks the wait over and reports whether it was interrupted.
func (w *ctxWatch) end() (hit bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	hit, w.waiting, w.hit = w.hit, false, false
	return hit
}

// interrupt ends a wait under ctx, now done, by moving the read deadline
// into the past; a wait under another context, and the read of a frame
// begun, are left alone.
func (w *ctxWatch) interrupt(c *conn, ctx context.Context) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.waiting && w.ctx == ctx {
		_ = c.nc.SetReadDeadline(time.Unix(1, 0))
		w.hit = true
	}
}

// release unwatches the context, for a connection that is dead.
func (w *ctxWatch) release() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stop != nil {
		w.stop()
	}
	w.ctx, w.stop = nil, nil
}

// expired reports whether ctx's deadline has passed, which the read
// deadline set to it can see a moment before ctx itself does.
func expired(ctx context.Context) bool {
	d, ok := ctx.Deadline()
	return ok && !time.Now().Before(d)
}

// lazyDeadline sets a socket's read or write deadline no more often than
// it must: setting one takes a lock and moves a timer in the runtime, and
// a call wanted two. A deadline wanted at d is set at d+slack and kept
// while the deadlines wanted later fall at most slack before it; so a
// silent server is given up on at most slack late. Its user serialises
// its calls (the read token's holder, or the writer under wmu).
type lazyDeadline struct {
	set func(time.Time) error
	at  time.Time // what is set; zero: unknown
}

func (l *lazyDeadline) want(d time.Time, slack time.Duration) {
	if !l.at.IsZero() && !d.After(l.at) && l.at.Sub(d) <= slack {
		return
	}
	l.at = d.Add(slack)
	_ = l.set(l.at)
}

// forget makes the next want set its deadline: another hand set one.
func (l *lazyDeadline) forget() { l.at = time.Time{} }

// call sends one request and waits for its answer. ctx bounds the wait;
// when ctx has no deadline, timeout does, and a server silent that long has
// its connection dropped (like gohbase's read deadline). A cancelled call
// returns ctx.Err() at once and its late answer is discarded.
func (c *conn) call(ctx context.Context, method string, req proto.Message, cells []byte, timeout time.Duration) (msg, respCells []byte, err error) {
	fb := getFrameBuf()
	defer fb.release()
	if err := fb.encode(method, req); err != nil {
		return nil, nil, err
	}
	return c.send(ctx, method, fb, cells, timeout)
}

// send is call with the request message already encoded in fb.body.
func (c *conn) send(ctx context.Context, method string, fb *frameBuf, cells []byte, timeout time.Duration) (msg, respCells []byte, err error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	o := outgoing{ch: replyChans.Get().(chan callResult), method: method, timeout: timeout}
	if o.id, err = c.register(o.ch); err != nil {
		return nil, nil, err
	}
	h := o.bound(ctx)
	if fb.frame, err = wire.AppendRequestFrame(fb.frame[:0], h, fb.body, cells); err != nil {
		c.forget(o.id)
		return nil, nil, err
	}
	if err := c.write(fb.frame, &o); err != nil {
		return nil, nil, err
	}
	res, err := c.await(ctx, &o)
	if err != nil {
		return nil, nil, err
	}
	replyChans.Put(o.ch) // drained: nothing else is sent on it
	if res.err != nil {
		return nil, nil, res.err
	}
	if ex := res.exc; ex != nil {
		cls, trace := ex.GetExceptionClassName(), ex.GetStackTrace()
		return nil, nil, &Error{Class: cls, Message: trace, Group: wire.Classify(cls, trace)}
	}
	return res.msg, res.cells, nil
}

// bound sets o's deadline, ctx's or o.timeout from now, and returns the
// request header announcing it to the server.
func (o *outgoing) bound(ctx context.Context) wire.RequestHead {
	now := time.Now()
	o.deadline, o.hasDeadline = ctx.Deadline()
	if !o.hasDeadline {
		o.deadline = now.Add(o.timeout)
	}
	left := o.deadline.Sub(now)
	o.slack = max(left/16, 0)
	h := wire.RequestHead{CallID: o.id, Method: o.method}
	if ms := left.Milliseconds(); ms > 0 && ms < 1<<31 {
		h.Timeout = uint32(ms)
	}
	return h
}

// register gives ch a call id.
func (c *conn) register(ch chan callResult) (uint32, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return 0, c.err
	}
	id := c.nextID
	c.nextID++
	if c.nextID == 0 {
		c.nextID = 1
	}
	c.pending[id] = ch
	return id, nil
}

// write sends a whole frame with one write; a failed write kills the
// connection, since part of the frame may have gone.
func (c *conn) write(frame []byte, o *outgoing) error {
	c.wmu.Lock()
	c.wdl.want(o.deadline, o.slack)
	_, err := c.nc.Write(frame)
	c.wmu.Unlock()
	if err != nil {
		te := &transportError{c.addr, fmt.Errorf("write: %w", err)}
		c.kill(te)
		return te
	}
	return nil
}

// await waits for o's answer, reading it itself when the read token is
// free. A timer bounds the wait only while another caller holds the
// token: a reader's own wait is bounded by its read deadline.
func (c *conn) await(ctx context.Context, o *outgoing) (callResult, error) {
	select {
	case res := <-o.ch:
		return res, nil
	case <-c.rd:
		return c.readOwn(ctx, o)
	default:
	}
	var timer <-chan time.Time
	if !o.hasDeadline {
		t := time.NewTimer(o.timeout)
		defer t.Stop()
		timer = t.C
	}
	select {
	case res := <-o.ch:
		return res, nil
	case <-c.rd:
		return c.readOwn(ctx, o)
	case <-ctx.Done():
		c.forget(o.id)
		return callResult{}, ctx.Err()
	case <-timer:
		te := o.silent(c.addr)
		c.kill(te)
		return callResult{}, te
	}
}

// readOwn reads, holding the read token, until o's answer comes, then
// hands the token on to the next waiter.
func (c *conn) readOwn(ctx context.Context, o *outgoing) (callResult, error) {
	res, ok := c.readUntil(ctx, o)
	c.rd <- struct{}{}
	if ok {
		return res, nil
	}
	c.forget(o.id)
	if err := ctx.Err(); err != nil {
		return callResult{}, err
	}
	return callResult{}, context.DeadlineExceeded // ctx's own timer is a moment behind
}

// frameBuf holds a request's encoded message and frame between calls, so
// that a call allocates neither.
type frameBuf struct{ body, frame []byte }

var frameBufs = sync.Pool{New: func() any { return new(frameBuf) }}

func getFrameBuf() *frameBuf { return frameBufs.Get().(*frameBuf) }

// encode marshals req into fb.body.
func (fb *frameBuf) encode(method string, req proto.Message) (err error) {
	if fb.body, err = (proto.MarshalOptions{}).MarshalAppend(fb.body[:0], req); err != nil {
		return fmt.Errorf("hbase: encode %s request: %w", method, err)
	}
	return nil
}

// release returns fb to the pool, unless a large batch grew it: that
// memory is not worth keeping for the small calls that follow.
func (fb *frameBuf) release() {
	if cap(fb.body)+cap(fb.frame) <= 64<<10 {
		frameBufs.Put(fb)
	}
}

// replyChans holds answer channels known to be empty: a call's channel is
// put back only once its one answer was taken from it.
var replyChans = sync.Pool{New: func() any { return make(chan callResult, 1) }}

func (c *conn) forget(id uint32) {
	c.mu.Lock()
	if c.pending != nil {
		delete(c.pending, id)
	}
	c.mu.Unlock()
}
