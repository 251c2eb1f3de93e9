package hbase

import (
	"bufio"
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"commentbench/hbase/pb"
	"commentbench/hbase/wire"
)

// request is one decoded request seen by a responder.
type request struct {
	hdr   *pb.RequestHeader
	param []byte
	cells []byte
}

// responder is a minimal HBase-speaking peer for connection tests: it reads
// the preamble, then hands each request to handle, which may answer (via
// reply) at once, later or never.
type responder struct {
	ln     net.Listener
	handle func(rc *respConn, req request)
	wg     sync.WaitGroup
	mu     sync.Mutex
	conns  []net.Conn
}

type respConn struct {
	nc  net.Conn
	wmu sync.Mutex
	hdr *pb.ConnectionHeader
}

func (rc *respConn) reply(id uint32, msg proto.Message, cells []byte) error {
	rc.wmu.Lock()
	defer rc.wmu.Unlock()
	return wire.WriteResponse(rc.nc, &pb.ResponseHeader{CallId: proto.Uint32(id)}, msg, cells)
}

func (rc *respConn) fail(id uint32, class string) error {
	rc.wmu.Lock()
	defer rc.wmu.Unlock()
	return wire.WriteResponse(rc.nc, &pb.ResponseHeader{CallId: proto.Uint32(id), Exception: &pb.ExceptionResponse{
		ExceptionClassName: proto.String(class), StackTrace: proto.String(class + ": injected"),
	}}, nil, nil)
}

func newResponder(t *testing.T, handle func(rc *respConn, req request)) *responder {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &responder{ln: ln, handle: handle}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.conns = append(s.conns, nc)
			s.mu.Unlock()
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				defer nc.Close()
				br := bufio.NewReader(nc)
				ch, err := wire.ReadPreamble(br)
				if err != nil {
					return
				}
				rc := &respConn{nc: nc, hdr: ch}
				for {
					hdr, param, cells, err := wire.ReadRequest(br)
					if err != nil {
						return
					}
					s.handle(rc, request{hdr, param, cells})
				}
			}()
		}
	}()
	t.Cleanup(s.close)
	return s
}

func (s *responder) addr() string { return s.ln.Addr().String() }

func (s *responder) close() {
	s.ln.Close()
	s.mu.Lock()
	for _, c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

func getReq(row string) *pb.GetRequest {
	return &pb.GetRequest{Region: regionSpec([]byte("r")), Get: getProto([]byte(row), "")}
}

// echoRow answers a Get with one inline cell whose row is the requested row.
func echoRow(rc *respConn, req request) {
	var g pb.GetRequest
	_ = proto.Unmarshal(req.param, &g)
	_ = rc.reply(req.hdr.GetCallId(), &pb.GetResponse{Result: &pb.Result{Cell: []*pb.Cell{{
		Row: g.GetGet().GetRow(), Family: []byte("f"), Qualifier: []byte("q"), Value: []byte("v"),
	}}}}, nil)
}

func rowOf(t *testing.T, msg []byte) string {
	t.Helper()
	var resp pb.GetResponse
	if err := proto.Unmarshal(msg, &resp); err != nil {
		t.Fatal(err)
	}
	res, _, err := readResult(resp.GetResult(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return string(res.Row)
}

func TestConnPreambleAnnouncesCodec(t *testing.T) {
	got := make(chan *pb.ConnectionHeader, 1)
	s := newResponder(t, func(rc *respConn, req request) {
		got <- rc.hdr
		echoRow(rc, req)
	})
	cn, err := dialConn(context.Background(), s.addr(), wire.ServiceClient, "alice", time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cn.close()
	if _, _, err := cn.call(context.Background(), "Get", getReq("a"), nil, time.Second); err != nil {
		t.Fatal(err)
	}
	h := <-got
	if h.GetCellBlockCodecClass() != wire.KeyValueCodec || h.GetServiceName() != wire.ServiceClient || h.GetUserInfo().GetEffectiveUser() != "alice" {
		t.Fatalf("header %v", h)
	}
}

func TestConnMultiplexOutOfOrder(t *testing.T) {
	const n = 5
	var mu sync.Mutex
	var held []request
	var conn *respConn
	s := newResponder(t, func(rc *respConn, req request) {
		mu.Lock()
		defer mu.Unlock()
		conn = rc
		held = append(held, req)
		if len(held) == n { // answer all, last first
			for i := n - 1; i >= 0; i-- {
				echoRow(conn, held[i])
			}
		}
	})
	cn, err := dialConn(context.Background(), s.addr(), wire.ServiceClient, "root", time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cn.close()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			row := string(rune('a' + i))
			msg, _, err := cn.call(context.Background(), "Get", getReq(row), nil, 5*time.Second)
			if err != nil {
				errs <- err
				return
			}
			if got := rowOf(t, msg); got != row {
				errs <- errors.New("call for " + row + " got " + got)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	ids := map[uint32]bool{}
	for _, r := range held {
		if ids[r.hdr.GetCallId()] || !r.hdr.GetRequestParam() {
			t.Fatalf("duplicate id or no request_param: %v", r.hdr)
		}
		ids[r.hdr.GetCallId()] = true
	}
}

func TestConnCancelReturnsPromptlyAndDropsLateAnswer(t *testing.T) {
	release := make(chan request, 1)
	s := newResponder(t, func(rc *respConn, req request) {
		var g pb.GetRequest
		_ = proto.Unmarshal(req.param, &g)
		if string(g.GetGet().GetRow()) == "slow" {
			release <- req
			go func() {
				time.Sleep(100 * time.Millisecond)
				echoRow(rc, req) // late answer to a cancelled call
			}()
			return
		}
		echoRow(rc, req)
	})
	cn, err := dialConn(context.Background(), s.addr(), wire.ServiceClient, "root", time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cn.close()
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-release; cancel() }()
	start := time.Now()
	_, _, err = cn.call(ctx, "Get", getReq("slow"), nil, 10*time.Second)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > 80*time.Millisecond {
		t.Fatalf("cancel took %v", d)
	}
	time.Sleep(150 * time.Millisecond) // the late answer arrives and is dropped
	msg, _, err := cn.call(context.Background(), "Get", getReq("next"), nil, time.Second)
	if err != nil {
		t.Fatalf("connection unusable after late answer: %v", err)
	}
	if rowOf(t, msg) != "next" {
		t.Fatal("wrong answer")
	}
}

func TestConnSilentServerTimesOut(t *testing.T) {
	s := newResponder(t, func(rc *respConn, req request) {})
	cn, err := dialConn(context.Background(), s.addr(), wire.ServiceClient, "root", time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cn.close()
	start := time.Now()
	_, _, err = cn.call(context.Background(), "Get", getReq("a"), nil, 100*time.Millisecond)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 2*time.Second {
		t.Fatalf("err = %v after %v", err, time.Since(start))
	}
	if g, _ := groupOf(err); g != wire.ServerBroken {
		t.Fatalf("group %v", g)
	}
	if cn.alive() {
		t.Fatal("silent connection kept")
	}
	// With a ctx deadline, the ctx error comes back.
	cn2, err := dialConn(context.Background(), s.addr(), wire.ServiceClient, "root", time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cn2.close()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, _, err := cn2.call(ctx, "Get", getReq("a"), nil, time.Minute); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
}

func TestConnUnknownCallIDKillsConnection(t *testing.T) {
	var mu sync.Mutex
	seen := 0
	s := newResponder(t, func(rc *respConn, req request) {
		mu.Lock()
		seen++
		n := seen
		mu.Unlock()
		if n == 2 {
			_ = rc.reply(999, &pb.GetResponse{}, nil)
		}
	})
	cn, err := dialConn(context.Background(), s.addr(), wire.ServiceClient, "root", time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cn.close()
	errs := make(chan error, 2)
	for _, row := range []string{"a", "b"} {
		go func() {
			_, _, err := cn.call(context.Background(), "Get", getReq(row), nil, 5*time.Second)
			errs <- err
		}()
	}
	for range 2 {
		select {
		case err := <-errs:
			if err == nil || !strings.Contains(err.Error(), "unknown call id") {
				t.Fatalf("err = %v", err)
			}
		case <-time.After(3 * time.Second):
			t.Fatal("pending call not failed")
		}
	}
	if cn.alive() {
		t.Fatal("connection still alive")
	}
	if _, _, err := cn.call(context.Background(), "Get", getReq("c"), nil, time.Second); err == nil {
		t.Fatal("call on dead connection succeeded")
	}
}

func TestConnExceptionIsClassified(t *testing.T) {
	s := newResponder(t, func(rc *respConn, req request) {
		_ = rc.fail(req.hdr.GetCallId(), wire.ExcNotServingRegion)
	})
	cn, err := dialConn(context.Background(), s.addr(), wire.ServiceClient, "root", time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cn.close()
	_, _, err = cn.call(context.Background(), "Get", getReq("a"), nil, time.Second)
	var he *Error
	if !errors.As(err, &he) || he.Class != wire.ExcNotServingRegion || he.Group != wire.Relocate {
		t.Fatalf("err = %v", err)
	}
	if !cn.alive() {
		t.Fatal("an exception must not kill the connection")
	}
}

// TestDialNotHBase checks that peers that are not HBase fail Dial quickly
// with ErrUnavailable rather than hanging.
func TestDialNotHBase(t *testing.T) {
	listen := func(serve func(net.Conn)) string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ln.Close() })
		go func() {
			for {
				nc, err := ln.Accept()
				if err != nil {
					return
				}
				go serve(nc)
			}
		}()
		return ln.Addr().String()
	}
	garbage := listen(func(nc net.Conn) {
		defer nc.Close()
		_, _ = nc.Write([]byte("HTTP/1.1 400 Bad Request\r\n\r\n" + strings.Repeat("x", 64)))
		time.Sleep(time.Second)
	})
	closer := listen(func(nc net.Conn) { nc.Close() })
	var silentConns []net.Conn
	var smu sync.Mutex
	silent := listen(func(nc net.Conn) { smu.Lock(); silentConns = append(silentConns, nc); smu.Unlock() })
	t.Cleanup(func() {
		smu.Lock()
		for _, c := range silentConns {
			c.Close()
		}
		smu.Unlock()
	})
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	refused := ln.Addr().String()
	ln.Close()

	for name, addr := range map[string]string{"garbage": garbage, "closer": closer, "silent": silent, "refused": refused} {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			c, err := Dial(context.Background(), Options{Bootstrap: []string{addr}, DialTimeout: 300 * time.Millisecond})
			if err == nil {
				c.Close()
				t.Fatal("Dial succeeded")
			}
			if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), addr) {
				t.Fatalf("err = %v", err)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Fatalf("Dial took %v", d)
			}
		})
	}
}

// A caller reading for the others that is cancelled hands the reading on:
// the call still waiting gets its answer, and the cancelled one's late
// answer is dropped.
func TestConnCancelledReaderHandsOn(t *testing.T) {
	arrived := make(chan request, 2)
	var mu sync.Mutex
	var rcs *respConn
	s := newResponder(t, func(rc *respConn, req request) {
		mu.Lock()
		rcs = rc
		mu.Unlock()
		arrived <- req
	})
	cn, err := dialConn(context.Background(), s.addr(), wire.ServiceClient, "root", time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cn.close()
	ctx, cancel := context.WithCancel(context.Background())
	first := make(chan error, 1)
	go func() {
		_, _, err := cn.call(ctx, "Get", getReq("a"), nil, 10*time.Second)
		first <- err
	}()
	reqA := <-arrived
	time.Sleep(20 * time.Millisecond) // a has the read token, waiting for its answer
	second := make(chan error, 1)
	go func() {
		msg, _, err := cn.call(context.Background(), "Get", getReq("b"), nil, 10*time.Second)
		if err == nil && rowOf(t, msg) != "b" {
			err = errors.New("b got another row")
		}
		second <- err
	}()
	reqB := <-arrived
	cancel()
	if err := <-first; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled call: %v", err)
	}
	mu.Lock()
	echoRow(rcs, reqA) // late: dropped
	echoRow(rcs, reqB)
	mu.Unlock()
	select {
	case err := <-second:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the waiting call was not answered after the reader left")
	}
	if !cn.alive() {
		t.Fatal("connection died")
	}
}

// An idle connection the server closed, or sent a connection-level
// exception on, is found dead when taken for the next call, before a
// request is written to it, and its onDead runs once.
func TestConnIdleDeathNoticedBeforeUse(t *testing.T) {
	for _, tc := range []struct {
		name string
		kill func(rc *respConn)
		want string
	}{
		{"closed", func(rc *respConn) { rc.nc.Close() }, "EOF"},
		{"exception", func(rc *respConn) {
			rc.wmu.Lock()
			defer rc.wmu.Unlock()
			_ = wire.WriteResponse(rc.nc, &pb.ResponseHeader{CallId: proto.Uint32(connCallID), Exception: &pb.ExceptionResponse{
				ExceptionClassName: proto.String(wire.ExcDoNotRetryIO), StackTrace: proto.String("going away"),
			}}, nil, nil)
		}, "going away"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			answered := make(chan *respConn, 1)
			s := newResponder(t, func(rc *respConn, req request) {
				echoRow(rc, req)
				answered <- rc
			})
			var deaths atomic.Int32
			cn, err := dialConn(context.Background(), s.addr(), wire.ServiceClient, "root", time.Second, func() { deaths.Add(1) })
			if err != nil {
				t.Fatal(err)
			}
			defer cn.close()
			if _, _, err := cn.call(context.Background(), "Get", getReq("a"), nil, time.Second); err != nil {
				t.Fatal(err)
			}
			tc.kill(<-answered)
			time.Sleep(50 * time.Millisecond) // the close or the frame reaches the client
			if cn.alive() {
				t.Fatal("alive after the server's " + tc.name)
			}
			if n := deaths.Load(); n != 1 {
				t.Fatalf("onDead ran %d times, want 1", n)
			}
			cn.mu.Lock()
			err = cn.err
			cn.mu.Unlock()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("death %v, want it to say %q", err, tc.want)
			}
		})
	}
}
