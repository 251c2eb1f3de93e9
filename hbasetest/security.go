package hbasetest

import (
	"bufio"
	"crypto/tls"
	"fmt"
	"net"
	"time"

	"github.com/jcmturner/gokrb5/v8/keytab"
	"google.golang.org/protobuf/proto"

	"commentbench/hbase/pb"
	"commentbench/hbase/sasl"
	"commentbench/hbase/wire"
)

// Security makes the cluster a secured one. Kerberos is on when Keytab is
// set: every connection must then authenticate with SASL GSSAPI, and one
// that opens with SIMPLE auth is refused as HBase refuses it. TLS, when
// set, is what every listener speaks before the preamble.
type Security struct {
	Keytab     string          // the service keytab
	Principal  string          // the servers' principal, e.g. hbase/localhost@REALM
	Protection sasl.Protection // layers offered (hbase.rpc.protection); 0: authentication
	ClockSkew  time.Duration   // allowed between a client's authenticator and this clock; default 5m
	// DropExpired closes a connection when the ticket it authenticated
	// with runs out, so a client must come back with a fresh one (HBase
	// keeps such connections; this is for tests of long runs).
	DropExpired bool
	TLS         *tls.Config
}

// security is Security made ready to serve.
type security struct {
	o  Security
	kt *keytab.Keytab
}

func newSecurity(o *Security) (*security, error) {
	if o == nil || (o.Keytab == "" && o.TLS == nil) {
		return nil, nil
	}
	s := &security{o: *o}
	if o.Keytab != "" {
		if o.Principal == "" {
			return nil, fmt.Errorf("hbasetest: keytab %s without a principal: name the servers' principal (hbase/HOST@REALM)", o.Keytab)
		}
		kt, err := keytab.Load(o.Keytab)
		if err != nil {
			return nil, fmt.Errorf("hbasetest: service keytab %s: %w", o.Keytab, err)
		}
		s.kt = kt
	}
	return s, nil
}

// open runs TLS, the preamble and, under Kerberos, the SASL exchange on a
// new connection, and reads the connection header. It returns the
// connection to answer on, the reader to read calls from, the header, and
// who authenticated (nil without Kerberos).
func (s *security) open(nc net.Conn) (net.Conn, *bufio.Reader, *pb.ConnectionHeader, *sasl.Peer, error) {
	if s.o.TLS != nil {
		tc := tls.Server(nc, s.o.TLS)
		if err := tc.Handshake(); err != nil {
			return nil, nil, nil, nil, fmt.Errorf("TLS: %w", err)
		}
		nc = tc
	}
	br := bufio.NewReader(nc)
	auth, err := wire.ReadAuthPreamble(br)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	var peer *sasl.Peer
	switch {
	case s.kt == nil && auth == wire.AuthSimple:
	case s.kt != nil && auth == sasl.AuthKerberos:
		sc, p, err := sasl.Server(nc, br, sasl.ServerConfig{Keytab: s.kt, Principal: s.o.Principal, Offer: s.o.Protection, ClockSkew: s.o.ClockSkew})
		if err != nil {
			return nil, nil, nil, nil, err
		}
		nc, peer = sc, p
		br = bufio.NewReader(sc)
	case s.kt != nil && auth == wire.AuthSimple:
		// HBase answers with a connection-level exception (call id -1)
		// and closes.
		hdr := &pb.ResponseHeader{CallId: proto.Uint32(^uint32(0)), Exception: &pb.ExceptionResponse{
			ExceptionClassName: proto.String(wire.ExcAccessDenied),
			StackTrace:         proto.String(wire.ExcAccessDenied + ": Authentication is required\n"),
			DoNotRetry:         proto.Bool(true),
		}}
		_ = wire.WriteResponse(nc, hdr, nil, nil)
		return nil, nil, nil, nil, fmt.Errorf("SIMPLE auth on a secured cluster")
	default:
		return nil, nil, nil, nil, fmt.Errorf("%w: auth method %#x", wire.ErrBadPreamble, auth)
	}
	hdr, err := wire.ReadHeaderOnly(br)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	return nc, br, hdr, peer, nil
}
