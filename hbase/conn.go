package hbase

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
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
// whole under wmu and matched to responses by call id in readLoop.
type conn struct {
	addr    string
	service string
	nc      net.Conn

	wmu sync.Mutex // serialises frame writes

	mu      sync.Mutex
	nextID  uint32
	pending map[uint32]chan callResult
	err     error // non-nil once the connection is dead
	done    chan struct{}
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
		done:    make(chan struct{}),
		onDead:  onDead,
	}
	go c.readLoop()
	return c, nil
}

// alive reports whether calls can still be made.
func (c *conn) alive() bool {
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
	close(c.done)
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

// readLoop demultiplexes responses by call id. A frame that does not decode,
// or whose call id is missing or unknown, kills the connection (§1.2).
func (c *conn) readLoop() {
	r := bufio.NewReaderSize(c.nc, 64<<10)
	for {
		hdr, msg, cells, err := wire.ReadResponse(r)
		if err != nil {
			c.kill(&transportError{c.addr, err})
			return
		}
		if hdr.CallId == nil {
			c.kill(&transportError{c.addr, errors.New("response without call id")})
			return
		}
		if hdr.GetCallId() == connCallID && hdr.Exception != nil {
			c.kill(connectionRefused(c.addr, hdr.GetException()))
			return
		}
		id := hdr.GetCallId()
		c.mu.Lock()
		ch, ok := c.pending[id]
		if ok {
			delete(c.pending, id)
		}
		dead := c.err != nil
		c.mu.Unlock()
		if dead {
			return
		}
		if !ok {
			// A late answer to a cancelled call also lands here: its id was
			// forgotten. Ids are never reused on a connection, so an id at
			// or above nextID is a protocol error while a forgotten one is
			// simply dropped.
			c.mu.Lock()
			unknown := id == 0 || id >= c.nextID
			c.mu.Unlock()
			if unknown {
				c.kill(&transportError{c.addr, fmt.Errorf("response for unknown call id %d", id)})
				return
			}
			continue
		}
		ch <- callResult{hdr: hdr, msg: msg, cells: cells}
	}
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
	select {
	case res := <-ch:
		if res.err != nil {
			return nil, nil, res.err
		}
		if ex := res.hdr.GetException(); res.hdr.Exception != nil {
			cls, trace := ex.GetExceptionClassName(), ex.GetStackTrace()
			return nil, nil, &Error{Class: cls, Message: trace, Group: wire.Classify(cls, trace)}
		}
		return res.msg, res.cells, nil
	case <-ctx.Done():
		c.forget(id)
		return nil, nil, ctx.Err()
	case <-timer:
		te := &transportError{c.addr, fmt.Errorf("%s: no answer within %v: %w", method, timeout, context.DeadlineExceeded)}
		c.kill(te)
		return nil, nil, te
	}
}

func (c *conn) forget(id uint32) {
	c.mu.Lock()
	if c.pending != nil {
		delete(c.pending, id)
	}
	c.mu.Unlock()
}
