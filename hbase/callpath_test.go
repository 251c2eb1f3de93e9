//go:build unix

package hbase

import (
	"context"
	"net"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"commentbench/hbase/wire"
)

// countingConn counts the writes made on a connection.
type countingConn struct {
	net.Conn
	writes atomic.Int32
}

func (c *countingConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}

// A call is one write, cellblock and all, on a socket that sends it at
// once (TCP_NODELAY): a frame in pieces would cost a system call each,
// and Nagle's algorithm would hold the last piece for an acknowledgement.
func TestCallIsOneWriteWithNoDelay(t *testing.T) {
	s := newResponder(t, echoRow)
	cn, err := dialConn(context.Background(), s.addr(), wire.ServiceClient, "root", time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cn.close()
	tcp := cn.nc.(*net.TCPConn)
	if nodelay(t, tcp) == 0 {
		t.Fatal("TCP_NODELAY is off")
	}
	cc := &countingConn{Conn: tcp}
	cn.nc = cc
	cells := wire.AppendCell(nil, wire.Cell{Row: []byte("r"), Family: []byte("f"), Qualifier: []byte("q"), Value: make([]byte, 100<<10), Type: wire.TypePut})
	for i, cl := range [][]byte{nil, cells} {
		before := cc.writes.Load()
		if _, _, err := cn.call(context.Background(), "Get", getReq("a"), cl, time.Second); err != nil {
			t.Fatal(err)
		}
		if n := cc.writes.Load() - before; n != 1 {
			t.Errorf("call %d took %d writes", i, n)
		}
	}
}

func nodelay(t *testing.T, tc *net.TCPConn) int {
	t.Helper()
	rc, err := tc.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var v int
	var serr error
	if err := rc.Control(func(fd uintptr) {
		v, serr = syscall.GetsockoptInt(int(fd), syscall.IPPROTO_TCP, syscall.TCP_NODELAY)
	}); err != nil || serr != nil {
		t.Fatal(err, serr)
	}
	return v
}
