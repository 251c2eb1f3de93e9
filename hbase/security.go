package hbase

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"time"

	"commentbench/hbase/sasl"
	"commentbench/hbase/wire"
)

// DefaultServicePrincipal is HBase's usual server principal; _HOST becomes
// each server's host name, and the realm the krb5.conf default realm.
const DefaultServicePrincipal = "hbase/_HOST"

// ErrTLS marks a TLS handshake the client refused or that failed: an
// untrusted or misnamed certificate, a server without TLS, a server that
// wants a client certificate. Commands exit 2 on it.
var ErrTLS = errors.New("hbase: TLS")

// hostNames caches reverse look-ups of server IPs for _HOST.
var hostNames sync.Map

// canonicalHost is the name _HOST stands for: the host itself, or for an
// IP address the name it resolves back to, as HBase's client does with
// the server's canonical host name.
func canonicalHost(ctx context.Context, host string) string {
	if net.ParseIP(host) == nil {
		return strings.ToLower(host)
	}
	if v, ok := hostNames.Load(host); ok {
		return v.(string)
	}
	name := host
	if names, err := net.DefaultResolver.LookupAddr(ctx, host); err == nil && len(names) > 0 {
		name = strings.ToLower(strings.TrimSuffix(names[0], "."))
	}
	hostNames.Store(host, name)
	return name
}

// secure runs, on a fresh TCP connection, the TLS handshake and the
// connection preamble with, under Kerberos, the SASL exchange, and writes
// the connection header. It returns the connection to make calls on.
func (o *Options) secure(ctx context.Context, nc net.Conn, addr, service, user string, deadline time.Time) (net.Conn, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	_ = nc.SetDeadline(deadline)
	defer func() { _ = nc.SetDeadline(time.Time{}) }()
	var tc *tls.Conn
	var askedCert bool // the server asked for a client certificate we do not have
	if o.TLS != nil {
		cfg := o.TLS.Clone()
		if cfg.ServerName == "" {
			cfg.ServerName = host
		}
		if len(cfg.Certificates) == 0 && cfg.GetClientCertificate == nil {
			// Under TLS 1.3 a server that needs a client certificate only
			// says so after the client's handshake is over; noting the
			// request lets the failure that follows be named.
			cfg.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
				askedCert = true
				return &tls.Certificate{}, nil
			}
		}
		tc = tls.Client(nc, cfg)
		if err := tc.HandshakeContext(ctx); err != nil {
			return nil, explainTLS(addr, cfg.ServerName, err)
		}
		nc = tc
	}
	noCert := func(err error) error {
		return fmt.Errorf("%w: %s: the server wants a client certificate and none was given (%v): pass --hbase-tls-cert and --hbase-tls-key signed by a CA the cluster trusts", ErrTLS, addr, err)
	}
	if o.Kerberos == nil {
		if err := wire.WritePreamble(nc, service, user, true); err != nil {
			return nil, fmt.Errorf("preamble: %w", err)
		}
		if askedCert {
			// The refusal, if any, is already on its way: wait for it
			// briefly rather than let the first call fail obscurely.
			_ = tc.SetReadDeadline(time.Now().Add(200 * time.Millisecond))
			if _, err := tc.Read(make([]byte, 1)); err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
				return nil, noCert(err)
			}
		}
		return nc, nil
	}
	if err := wire.WriteAuthPreamble(nc, sasl.AuthKerberos); err != nil {
		return nil, fmt.Errorf("preamble: %w", err)
	}
	pattern := o.ServicePrincipal
	if pattern == "" {
		pattern = DefaultServicePrincipal
	}
	spn := sasl.ServicePrincipal(pattern, canonicalHost(ctx, host), o.Kerberos.Realm())
	sc, _, err := sasl.Client(nc, o.Kerberos, spn, o.Protection)
	if err != nil {
		if askedCert && !errors.Is(err, sasl.ErrCredentials) {
			return nil, noCert(err)
		}
		return nil, explainSASL(addr, spn, o.Protection, err)
	}
	if err := wire.WriteHeaderOnly(sc, service, user, true); err != nil {
		return nil, fmt.Errorf("connection header: %w", err)
	}
	return sc, nil
}

// explainSASL says what was tried and what to change; the Kerberos
// credential errors already do.
func explainSASL(addr, spn string, want sasl.Protection, err error) error {
	var pe *sasl.ProtectionError
	var re *sasl.RemoteError
	switch {
	case errors.Is(err, sasl.ErrCredentials):
		return err
	case errors.As(err, &pe):
		return fmt.Errorf("%w: %s: --hbase-protection %s refused: %v; drop --hbase-protection to take the strongest it offers, or set it to %s",
			sasl.ErrCredentials, addr, want, err, pe.Offered.StrongestName())
	case errors.Is(err, sasl.ErrSimpleOnly):
		return fmt.Errorf("%w: %s: %v; drop the Kerberos flags for this cluster", sasl.ErrCredentials, addr, err)
	case errors.As(err, &re):
		return fmt.Errorf("%w: %s refused our Kerberos ticket for %s: %v; check --hbase-service-principal names the principal the server runs as (hbase.regionserver.kerberos.principal)",
			sasl.ErrCredentials, addr, spn, err)
	}
	return fmt.Errorf("%w: %s: Kerberos (SASL GSSAPI as %s): %v", sasl.ErrCredentials, addr, spn, err)
}

func explainTLS(addr, name string, err error) error {
	var ua x509.UnknownAuthorityError
	var he x509.HostnameError
	var ci x509.CertificateInvalidError
	var rh tls.RecordHeaderError
	var ae tls.AlertError
	switch {
	case errors.As(err, &ua):
		return fmt.Errorf("%w: %s: the server's certificate is not signed by a CA this client trusts (%v): pass the CA that signed the cluster's certificates with --hbase-tls-ca", ErrTLS, addr, err)
	case errors.As(err, &he):
		return fmt.Errorf("%w: %s: the server's certificate is not for %q (%v): the certificate must name the host clients reach it by", ErrTLS, addr, name, err)
	case errors.As(err, &ci):
		return fmt.Errorf("%w: %s: the server's certificate is not valid (%v): renew it", ErrTLS, addr, err)
	case errors.As(err, &rh):
		return fmt.Errorf("%w: %s does not answer TLS (hbase.server.netty.tls.enabled off?): drop --hbase-tls for this cluster", ErrTLS, addr)
	case errors.As(err, &ae) || strings.Contains(err.Error(), "certificate required") || strings.Contains(err.Error(), "bad certificate"):
		return fmt.Errorf("%w: %s: the server refused this client's certificate or wants one (%v): pass --hbase-tls-cert and --hbase-tls-key signed by a CA the cluster trusts", ErrTLS, addr, err)
	}
	return fmt.Errorf("%w: %s: handshake: %v", ErrTLS, addr, err)
}

// SecurityError reports whether err is a refusal to authenticate or to
// trust, which retrying cannot mend.
func SecurityError(err error) bool {
	return errors.Is(err, sasl.ErrCredentials) || errors.Is(err, ErrTLS)
}

// connCallID is the call id (Java's -1) of an exception about the
// connection itself, which HBase sends before closing it, such as a
// SIMPLE-auth client on a secured cluster.
const connCallID = ^uint32(0)

// connectionRefused turns such an exception into the error every pending
// call gets; it is not a transport failure, so nothing retries it.
func connectionRefused(addr string, ex interface {
	GetExceptionClassName() string
	GetStackTrace() string
}) error {
	cls, trace := ex.GetExceptionClassName(), ex.GetStackTrace()
	if cls == wire.ExcAccessDenied && strings.Contains(trace, "Authentication is required") {
		return fmt.Errorf("%w: %s requires Kerberos authentication and this client used none: pass --hbase-keytab and --hbase-principal, or kinit and pass --hbase-kerberos (%s)",
			sasl.ErrCredentials, addr, firstLine(trace))
	}
	return fmt.Errorf("%w: %s closed the connection: %s: %s", ErrRefusedConn, addr, cls, firstLine(trace))
}

// ErrRefusedConn is a server that refused the connection with an
// exception of its own.
var ErrRefusedConn = errors.New("hbase: connection refused by the server")

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
