//go:build unix

package hbase

import (
	"errors"
	"net"
	"syscall"
)

// socketProbe returns a look at nc's receive queue that takes nothing from
// it (a non-blocking MSG_PEEK) and reports whether it is empty; nil when nc
// is not a bare socket (TLS and SASL layers keep bytes of their own).
func socketProbe(nc net.Conn) func() (idle bool) {
	tc, ok := nc.(*net.TCPConn)
	if !ok {
		return nil
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return nil
	}
	return func() bool {
		var b [1]byte
		var perr error
		err := rc.Read(func(fd uintptr) bool {
			_, _, perr = syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
			return true // never wait
		})
		// Not idle: a byte (a frame), none with no error (the peer
		// closed), an error (a reset); the read that follows takes it or
		// says why.
		return err == nil && (errors.Is(perr, syscall.EAGAIN) || errors.Is(perr, syscall.EINTR))
	}
}
