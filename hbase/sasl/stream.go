package sasl

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"sync"
)

// MaxToken bounds one wrapped token either side accepts, so a peer cannot
// make the other allocate without limit; HBase frames are far smaller.
const MaxToken = 256 << 20

// Conn is a connection after an integrity or privacy layer was negotiated:
// each Write becomes one wrap token sent as a 4-byte big-endian length and
// the token (HBase's SaslWrapHandler framing), and Read returns the
// unwrapped bytes of the peer's tokens as one stream, since a token may hold
// several RPC frames or part of one. A token that does not verify, or an
// integrity-only token where privacy was negotiated, fails the Read, and the
// connection is then unusable.
type Conn struct {
	net.Conn
	r *bufio.Reader

	wmu  sync.Mutex
	rmu  sync.Mutex
	w    *wrapper
	conf bool
	rbuf []byte
	rerr error
}

func newConn(nc net.Conn, r *bufio.Reader, w *wrapper, conf bool) *Conn {
	return &Conn{Conn: nc, r: r, w: w, conf: conf}
}

// Write wraps p as one token.
func (c *Conn) Write(p []byte) (int, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	tok, err := c.w.wrap(p, c.conf)
	if err != nil {
		return 0, err
	}
	buf := make([]byte, 4, 4+len(tok))
	binary.BigEndian.PutUint32(buf, uint32(len(tok)))
	if _, err := c.Conn.Write(append(buf, tok...)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Read returns unwrapped bytes.
func (c *Conn) Read(p []byte) (int, error) {
	c.rmu.Lock()
	defer c.rmu.Unlock()
	for len(c.rbuf) == 0 {
		if c.rerr != nil {
			return 0, c.rerr
		}
		c.rbuf, c.rerr = c.next()
	}
	n := copy(p, c.rbuf)
	c.rbuf = c.rbuf[n:]
	return n, nil
}

func (c *Conn) next() ([]byte, error) {
	var lb [4]byte
	if _, err := io.ReadFull(c.r, lb[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(lb[:])
	if n > MaxToken {
		return nil, fmt.Errorf("%w: token of %d bytes exceeds %d (an unwrapped frame?)", ErrWrap, n, MaxToken)
	}
	tok := make([]byte, n)
	if _, err := io.ReadFull(c.r, tok); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	msg, sealed, err := c.w.unwrap(tok)
	if err != nil {
		return nil, err
	}
	if c.conf && !sealed {
		return nil, fmt.Errorf("%w: integrity-only token on a connection that negotiated privacy", ErrWrap)
	}
	return msg, nil
}
