package sasl_test

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jcmturner/gokrb5/v8/keytab"

	"commentbench/hbase/sasl"
	"commentbench/hbase/sasl/krbtest"
)

// pair is a loopback TCP connection: the exchange is run over a real
// socket, both ends at once.
func pair(t *testing.T) (client, server net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	acc := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		acc <- c
	}()
	client, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server = <-acc
	t.Cleanup(func() { client.Close(); server.Close() })
	return client, server
}

type result struct {
	conn net.Conn
	peer *sasl.Peer
	err  error
}

func handshake(t *testing.T, k *krbtest.KDC, creds *sasl.Credentials, spn string, want, offer sasl.Protection) (net.Conn, sasl.Protection, error, result) {
	t.Helper()
	kt, err := keytab.Load(k.ServiceKeytab)
	if err != nil {
		t.Fatal(err)
	}
	cc, sc := pair(t)
	done := make(chan result, 1)
	go func() {
		c, p, err := sasl.Server(sc, bufio.NewReader(sc), sasl.ServerConfig{Keytab: kt, Principal: k.ServicePrincipal, Offer: offer})
		if err != nil {
			sc.Close()
		}
		done <- result{c, p, err}
	}()
	conn, got, err := sasl.Client(cc, creds, spn, want)
	if err != nil {
		cc.Close()
	}
	return conn, got, err, <-done
}

func keytabCreds(t *testing.T, k *krbtest.KDC) *sasl.Credentials {
	t.Helper()
	c, err := sasl.NewCredentials(sasl.CredOptions{Keytab: k.UserKeytab, Principal: k.User, Krb5Conf: k.Krb5Conf})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Every layer against the real KDC: the client takes the strongest offered
// or the one it requires, the server learns who it is, and bytes cross
// both ways intact; under integrity and privacy as wrap tokens, under
// privacy with no plain text on the wire.
func TestExchangeEveryLayer(t *testing.T) {
	k := krbtest.Start(t)
	creds := keytabCreds(t, k)
	for _, tc := range []struct {
		want, offer, got sasl.Protection
	}{
		{0, sasl.Authentication, sasl.Authentication},
		{0, sasl.Integrity, sasl.Integrity},
		{0, sasl.Privacy, sasl.Privacy},
		{0, sasl.Authentication | sasl.Integrity | sasl.Privacy, sasl.Privacy},
		{sasl.Integrity, sasl.Authentication | sasl.Integrity | sasl.Privacy, sasl.Integrity},
	} {
		t.Run(tc.offer.String()+"/"+tc.want.String(), func(t *testing.T) {
			conn, got, err, srv := handshake(t, k, creds, k.ServicePrincipal, tc.want, tc.offer)
			if err != nil || srv.err != nil {
				t.Fatalf("client: %v; server: %v", err, srv.err)
			}
			if got != tc.got || srv.peer.Protection != tc.got || srv.peer.Principal != k.User {
				t.Fatalf("negotiated %s, server saw %s for %s; want %s for %s", got, srv.peer.Protection, srv.peer.Principal, tc.got, k.User)
			}
			if srv.peer.Expires.Before(time.Now()) {
				t.Errorf("ticket end %v is in the past", srv.peer.Expires)
			}
			secret := bytes.Repeat([]byte("plaintext-marker "), 200)
			go func() {
				_, _ = conn.Write(secret[:100])
				_, _ = conn.Write(secret[100:])
			}()
			buf := make([]byte, len(secret))
			if _, err := io.ReadFull(srv.conn, buf); err != nil || !bytes.Equal(buf, secret) {
				t.Fatalf("server read %v: %q", err, buf[:40])
			}
			go func() { _, _ = srv.conn.Write([]byte("answer")) }()
			ans := make([]byte, 6)
			if _, err := io.ReadFull(conn, ans); err != nil || string(ans) != "answer" {
				t.Fatalf("client read %v: %q", err, ans)
			}
		})
	}
}

// What crosses the wire under privacy is not the plain text, and under
// integrity it is but a changed byte is caught.
func TestWireIsProtected(t *testing.T) {
	k := krbtest.Start(t)
	creds := keytabCreds(t, k)
	for _, p := range []sasl.Protection{sasl.Integrity, sasl.Privacy} {
		t.Run(p.String(), func(t *testing.T) {
			conn, _, err, srv := handshake(t, k, creds, k.ServicePrincipal, p, p)
			if err != nil || srv.err != nil {
				t.Fatalf("client: %v; server: %v", err, srv.err)
			}
			// Capture what the client's layer writes by giving it a
			// recording socket: the Conn writes through its embedded one.
			sc := conn.(*sasl.Conn)
			rec := &recorder{Conn: sc.Conn}
			sc.Conn = rec
			msg := []byte("the-comment-body-in-clear")
			if _, err := conn.Write(msg); err != nil {
				t.Fatal(err)
			}
			wire := rec.buf.Bytes()
			if p == sasl.Privacy && bytes.Contains(wire, msg) {
				t.Fatal("privacy: the plain text is on the wire")
			}
			if p == sasl.Integrity && !bytes.Contains(wire, msg) {
				t.Fatal("integrity: expected the plain text next to its checksum")
			}
			buf := make([]byte, len(msg))
			if _, err := io.ReadFull(srv.conn, buf); err != nil {
				t.Fatal(err)
			}
			// The same token again is a replay: the sequence number gives it
			// away (the connection is dead after one bad token, so the
			// forgery is tried on a fresh one below).
			go func() { _, _ = rec.Conn.Write(wire) }()
			if _, err := srv.conn.Read(buf); !errors.Is(err, sasl.ErrWrap) {
				t.Fatalf("replayed token: server read err %v, want ErrWrap", err)
			}
			conn2, _, err, srv2 := handshake(t, k, creds, k.ServicePrincipal, p, p)
			if err != nil || srv2.err != nil {
				t.Fatalf("client: %v; server: %v", err, srv2.err)
			}
			sc2 := conn2.(*sasl.Conn)
			rec2 := &recorder{Conn: sc2.Conn, flip: true}
			sc2.Conn = rec2
			go func() { _, _ = conn2.Write(msg) }()
			if _, err := srv2.conn.Read(buf); !errors.Is(err, sasl.ErrWrap) {
				t.Fatalf("tampered token: server read err %v, want ErrWrap", err)
			}
		})
	}
}

// recorder keeps what is written; with flip it changes the last byte
// on the way, as an attacker on the path would.
type recorder struct {
	net.Conn
	buf  bytes.Buffer
	flip bool
}

func (r *recorder) Write(p []byte) (int, error) {
	r.buf.Write(p)
	if r.flip {
		p = append([]byte(nil), p...)
		p[len(p)-1] ^= 1
	}
	return r.Conn.Write(p)
}

// A frame sent without wrapping where integrity or privacy was negotiated
// is refused, as is an integrity-only token on a privacy connection.
func TestUnwrappedFrameRefused(t *testing.T) {
	k := krbtest.Start(t)
	creds := keytabCreds(t, k)
	conn, _, err, srv := handshake(t, k, creds, k.ServicePrincipal, sasl.Privacy, sasl.Privacy)
	if err != nil || srv.err != nil {
		t.Fatalf("client: %v; server: %v", err, srv.err)
	}
	raw := conn.(*sasl.Conn).Conn
	// A plain RPC frame: length, then bytes that are no wrap token.
	frame := binary.BigEndian.AppendUint32(nil, 12)
	frame = append(frame, "not-a-token!"...)
	go func() { _, _ = raw.Write(frame) }()
	if _, err := srv.conn.Read(make([]byte, 16)); !errors.Is(err, sasl.ErrWrap) {
		t.Fatalf("unwrapped frame: %v, want ErrWrap", err)
	}
}

// The refusals a person must be able to act on.
func TestRefusals(t *testing.T) {
	k := krbtest.Start(t)
	creds := keytabCreds(t, k)
	t.Run("protection the server does not offer", func(t *testing.T) {
		_, _, err, srv := handshake(t, k, creds, k.ServicePrincipal, sasl.Authentication, sasl.Privacy)
		var pe *sasl.ProtectionError
		if !errors.As(err, &pe) || pe.Offered != sasl.Privacy || !strings.Contains(err.Error(), "privacy") {
			t.Fatalf("client: %v", err)
		}
		if srv.err == nil {
			t.Fatal("server accepted a client that walked away")
		}
	})
	t.Run("service principal the KDC does not know", func(t *testing.T) {
		_, _, err, _ := handshake(t, k, creds, "hbase/nosuchhost@"+k.Realm, 0, sasl.Authentication)
		if !errors.Is(err, sasl.ErrCredentials) || !strings.Contains(err.Error(), "hbase/nosuchhost@"+k.Realm) || !strings.Contains(err.Error(), "--hbase-service-principal") {
			t.Fatalf("client: %v", err)
		}
	})
	t.Run("ticket for another service", func(t *testing.T) {
		// cbuser exists in the KDC but is not this server: the server
		// refuses with HBase's SASL error reply, and the client says so.
		_, _, err, srv := handshake(t, k, creds, k.User, 0, sasl.Authentication)
		var re *sasl.RemoteError
		if !errors.As(err, &re) || !strings.Contains(re.Message, "this server is "+k.ServicePrincipal) {
			t.Fatalf("client: %v", err)
		}
		if srv.err == nil {
			t.Fatal("server accepted a ticket for another principal")
		}
	})
	t.Run("keytab without principal", func(t *testing.T) {
		_, err := sasl.NewCredentials(sasl.CredOptions{Keytab: k.UserKeytab, Krb5Conf: k.Krb5Conf})
		if !errors.Is(err, sasl.ErrCredentials) || !strings.Contains(err.Error(), "--hbase-principal") {
			t.Fatalf("%v", err)
		}
	})
	t.Run("no ticket cache and no keytab", func(t *testing.T) {
		_, err := sasl.NewCredentials(sasl.CredOptions{Krb5Conf: k.Krb5Conf, CCache: k.Dir + "/no-such-cache"})
		if !errors.Is(err, sasl.ErrCredentials) || !strings.Contains(err.Error(), "kinit") || !strings.Contains(err.Error(), "no-such-cache") {
			t.Fatalf("%v", err)
		}
	})
	t.Run("clock skew", func(t *testing.T) {
		conf := k.Skewed(t, "+2h")
		_, err := sasl.NewCredentials(sasl.CredOptions{Keytab: k.UserKeytab, Principal: k.User, Krb5Conf: conf})
		if !errors.Is(err, sasl.ErrCredentials) || !strings.Contains(err.Error(), "clock") {
			t.Fatalf("%v", err)
		}
	})
}

// A ticket cache filled by kinit works like a keytab.
func TestTicketCache(t *testing.T) {
	k := krbtest.Start(t)
	cc := k.Dir + "/ccache"
	k.Kinit(t, cc, k.UserKeytab, k.User)
	creds, err := sasl.NewCredentials(sasl.CredOptions{Krb5Conf: k.Krb5Conf, CCache: cc})
	if err != nil {
		t.Fatal(err)
	}
	_, got, err, srv := handshake(t, k, creds, k.ServicePrincipal, 0, sasl.Integrity)
	if err != nil || srv.err != nil || got != sasl.Integrity || srv.peer.Principal != k.User {
		t.Fatalf("client %v, server %v, got %s", err, srv.err, got)
	}
}

func TestServicePrincipal(t *testing.T) {
	for _, tc := range []struct{ pattern, host, realm, want string }{
		{"hbase/_HOST@R", "RS1.Example", "D", "hbase/rs1.example@R"},
		{"hbase/_HOST", "localhost", "D", "hbase/localhost@D"},
		{"hbase/fixed@R", "x", "D", "hbase/fixed@R"},
	} {
		if got := sasl.ServicePrincipal(tc.pattern, tc.host, tc.realm); got != tc.want {
			t.Errorf("ServicePrincipal(%q, %q, %q) = %q, want %q", tc.pattern, tc.host, tc.realm, got, tc.want)
		}
	}
}
