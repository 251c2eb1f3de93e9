//go:build !unix

package hbase

import "net"

// socketProbe has no portable peek here: a reader goroutine watches the
// connection instead.
func socketProbe(net.Conn) func() (idle bool) { return nil }
