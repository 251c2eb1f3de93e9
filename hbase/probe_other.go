//go:build !unix

package hbase

import "net"

type probeResult int

const (
	probeIdle probeResult = iota
	probeReadable
)

// socketProbe has no portable peek here: a reader goroutine watches the
// connection instead.
func socketProbe(net.Conn) func() probeResult { return nil }
