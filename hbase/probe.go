//go:build unix

package hbase

import (
	"net"
	"syscall"
)

// socketProbe returns a look at nc's receive queue that takes nothing from
// it (a non-blocking MSG_PEEK) and reports whether it is empty; nil when nc
// is not a bare socket (TLS and SASL layers keep bytes of their own). The
// look is made by the read token's holder alone, so one buffer and one
// bound method serve every look without allocating.
func socketProbe(nc net.Conn) func() (idle bool) {
	tc, ok := nc.(*net.TCPConn)
	if !ok {
		return nil
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return nil
	}
	p := &peeker{}
	p.read = p.peek
	return func() bool {
		err := rc.Read(p.read)
		// Not idle: a byte (a frame), none with no error (the peer
		// closed), an error (a reset); the read that follows takes it or
		// says why.
		return err == nil && (p.err == syscall.EAGAIN || p.err == syscall.EINTR)
	}
}

type peeker struct {
	b    [1]byte
	err  error
	read func(fd uintptr) bool
}

func (p *peeker) peek(fd uintptr) bool {
	_, _, p.err = syscall.Recvfrom(int(fd), p.b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
	return true // never wait
}
