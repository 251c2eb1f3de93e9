package sasl

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/jcmturner/gokrb5/v8/messages"
	"github.com/jcmturner/gokrb5/v8/service"
	"github.com/jcmturner/gokrb5/v8/types"
)

// AuthKerberos is the preamble's auth byte for SASL GSSAPI (HBase's
// AuthMethod.KERBEROS); SIMPLE is 0x50.
const AuthKerberos = 0x51

// Protection is a set of RFC 4752 security layers, as the bits of the
// negotiation's first octet: what a server offers, or the one a client
// chose. HBase calls them hbase.rpc.protection authentication, integrity
// and privacy (SASL QOP auth, auth-int, auth-conf).
type Protection uint8

const (
	Authentication Protection = 1
	Integrity      Protection = 2
	Privacy        Protection = 4
)

// ParseProtection reads one level or a comma-separated list (a server may
// offer several, like hbase.rpc.protection); HBase's names and the SASL QOP
// names are both accepted.
func ParseProtection(s string) (Protection, error) {
	var p Protection
	for _, f := range strings.Split(s, ",") {
		switch strings.ToLower(strings.TrimSpace(f)) {
		case "authentication", "auth":
			p |= Authentication
		case "integrity", "auth-int":
			p |= Integrity
		case "privacy", "auth-conf":
			p |= Privacy
		default:
			return 0, fmt.Errorf("protection %q: want authentication, integrity or privacy", f)
		}
	}
	return p, nil
}

func (p Protection) String() string {
	var names []string
	for _, l := range []struct {
		p    Protection
		name string
	}{{Authentication, "authentication"}, {Integrity, "integrity"}, {Privacy, "privacy"}} {
		if p&l.p != 0 {
			names = append(names, l.name)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ",")
}

// strongest is the strongest single layer in p.
func (p Protection) strongest() Protection {
	for _, l := range []Protection{Privacy, Integrity, Authentication} {
		if p&l != 0 {
			return l
		}
	}
	return 0
}

// HBase's SaslStatus and SaslUtil.SWITCH_TO_SIMPLE_AUTH.
const (
	statusSuccess   = 0
	statusError     = 1
	switchToSimple  = -88
	maxHandshakeTok = 1 << 20
	// serverMaxBuf is the receive size the server announces, as Java's
	// SASL server does by default; neither side splits at it (HBase wraps
	// whole frames), it is only reported.
	serverMaxBuf = 65536
)

// RemoteError is the server's refusal during the exchange: HBase sends the
// Java exception class and message (SaslStatus.ERROR).
type RemoteError struct {
	Class, Message string
}

func (e *RemoteError) Error() string { return e.Class + ": " + e.Message }

// ErrSimpleOnly is a server without security asking the client to fall
// back to SIMPLE auth; a client configured for Kerberos refuses, as HBase's
// does unless fallback is allowed.
var ErrSimpleOnly = errors.New("the server does not use Kerberos (it answered SWITCH_TO_SIMPLE_AUTH)")

// ProtectionError is a client whose required layer the server does not
// offer.
type ProtectionError struct {
	Offered, Wanted Protection
}

func (e *ProtectionError) Error() string {
	return fmt.Sprintf("the server offers protection %s (its hbase.rpc.protection) and not %s", e.Offered, e.Wanted)
}

func writeToken(w io.Writer, tok []byte) error {
	buf := make([]byte, 4, 4+len(tok))
	binary.BigEndian.PutUint32(buf, uint32(len(tok)))
	_, err := w.Write(append(buf, tok...))
	return err
}

func readToken(r io.Reader) ([]byte, error) {
	var lb [4]byte
	if _, err := io.ReadFull(r, lb[:]); err != nil {
		return nil, err
	}
	n := binary.BigEndian.Uint32(lb[:])
	if n > maxHandshakeTok {
		return nil, fmt.Errorf("SASL token of %d bytes (not a SASL peer?)", n)
	}
	tok := make([]byte, n)
	_, err := io.ReadFull(r, tok)
	return tok, err
}

// readServerToken reads one server reply: status word, then either the
// token or the error's class and message as Hadoop writable strings.
func readServerToken(r io.Reader) ([]byte, error) {
	var sb [4]byte
	if _, err := io.ReadFull(r, sb[:]); err != nil {
		return nil, err
	}
	switch st := int32(binary.BigEndian.Uint32(sb[:])); st {
	case statusSuccess:
	case statusError:
		class, err1 := readWritableString(r)
		msg, err2 := readWritableString(r)
		if err := errors.Join(err1, err2); err != nil {
			return nil, fmt.Errorf("server refused the SASL exchange (its reason unreadable: %w)", err)
		}
		return nil, &RemoteError{Class: class, Message: msg}
	default:
		return nil, fmt.Errorf("SASL status %d from the server (not an HBase server, or one expecting SIMPLE auth?)", st)
	}
	var lb [4]byte
	if _, err := io.ReadFull(r, lb[:]); err != nil {
		return nil, err
	}
	n := int32(binary.BigEndian.Uint32(lb[:]))
	if n == switchToSimple {
		return nil, ErrSimpleOnly
	}
	if n < 0 || n > maxHandshakeTok {
		return nil, fmt.Errorf("SASL token of %d bytes from the server", n)
	}
	tok := make([]byte, n)
	_, err := io.ReadFull(r, tok)
	return tok, err
}

func readWritableString(r io.Reader) (string, error) {
	var lb [4]byte
	if _, err := io.ReadFull(r, lb[:]); err != nil {
		return "", err
	}
	n := int32(binary.BigEndian.Uint32(lb[:]))
	if n < 0 {
		return "", nil
	}
	if n > 1<<16 {
		return "", fmt.Errorf("string of %d bytes", n)
	}
	b := make([]byte, n)
	_, err := io.ReadFull(r, b)
	return string(b), err
}

func writeServerReply(w io.Writer, tok []byte) error {
	buf := make([]byte, 8, 8+len(tok))
	binary.BigEndian.PutUint32(buf[0:], statusSuccess)
	binary.BigEndian.PutUint32(buf[4:], uint32(len(tok)))
	_, err := w.Write(append(buf, tok...))
	return err
}

// WriteServerError sends HBase's SaslStatus.ERROR reply: the exception
// class and message as Hadoop writable strings.
func WriteServerError(w io.Writer, class, msg string) error {
	buf := binary.BigEndian.AppendUint32(nil, statusError)
	for _, s := range []string{class, msg} {
		buf = binary.BigEndian.AppendUint32(buf, uint32(len(s)))
		buf = append(buf, s...)
	}
	_, err := w.Write(buf)
	return err
}

// layerToken is RFC 4752's 4-octet negotiation message: the layer bit mask,
// then a 3-octet maximum buffer size, then (from the client) an optional
// authorization id, which this client never sends.
func layerToken(layers Protection, maxBuf int) []byte {
	return []byte{byte(layers), byte(maxBuf >> 16), byte(maxBuf >> 8), byte(maxBuf)}
}

// Ticketer gives the client a service ticket and its session key for a
// service principal; Credentials is the real one.
type Ticketer interface {
	ServiceTicket(spn string) (messages.Ticket, types.EncryptionKey, error)
	Principal() (types.PrincipalName, string)
}

// Client runs the client side of the exchange on nc, right after the
// 6-byte preamble with AuthKerberos was sent and before the connection
// header. want is the layer required, or 0 for the strongest the server
// offers. It returns the connection to send the header and calls on: nc
// itself for authentication, a wrapping Conn otherwise.
func Client(nc net.Conn, creds Ticketer, spn string, want Protection) (net.Conn, Protection, error) {
	tkt, key, err := creds.ServiceTicket(spn)
	if err != nil {
		return nil, 0, err
	}
	cname, crealm := creds.Principal()
	tok, auth, err := initiatorToken(tkt, key, cname, crealm)
	if err != nil {
		return nil, 0, fmt.Errorf("build the Kerberos AP-REQ for %s: %w", spn, err)
	}
	r := bufio.NewReaderSize(nc, 64<<10)
	if err := writeToken(nc, tok); err != nil {
		return nil, 0, fmt.Errorf("send the Kerberos AP-REQ: %w", err)
	}
	reply, err := readServerToken(r)
	if err != nil {
		return nil, 0, fmt.Errorf("SASL GSSAPI with %s: %w", spn, err)
	}
	seq, subkey, err := readAcceptorToken(reply, key, auth)
	if err != nil {
		return nil, 0, fmt.Errorf("SASL GSSAPI with %s: mutual authentication: %w", spn, err)
	}
	w := &wrapper{key: auth.SubKey, sendSeq: uint64(auth.SeqNumber), recvSeq: seq}
	if subkey != nil {
		w.key, w.acceptorKey = *subkey, true
	}
	// The context is established; like Java's client we answer the AP-REP
	// with an empty token, and the server then offers its layers.
	if err := writeToken(nc, nil); err != nil {
		return nil, 0, err
	}
	offer, err := readServerToken(r)
	if err != nil {
		return nil, 0, fmt.Errorf("SASL GSSAPI with %s: security layer offer: %w", spn, err)
	}
	plain, _, err := w.unwrap(offer)
	if err != nil {
		return nil, 0, fmt.Errorf("SASL GSSAPI with %s: security layer offer: %w", spn, err)
	}
	if len(plain) != 4 {
		return nil, 0, fmt.Errorf("SASL GSSAPI with %s: security layer offer of %d bytes, want 4", spn, len(plain))
	}
	offered := Protection(plain[0]) & (Authentication | Integrity | Privacy)
	chosen := offered.strongest()
	if want != 0 {
		if offered&want == 0 {
			return nil, 0, &ProtectionError{Offered: offered, Wanted: want}
		}
		chosen = want
	}
	if chosen == 0 {
		return nil, 0, fmt.Errorf("SASL GSSAPI with %s: the server offers no security layer at all (%#x)", spn, plain[0])
	}
	maxBuf := serverMaxBuf
	if chosen == Authentication {
		maxBuf = 0 // RFC 4752: no layer, no buffer
	}
	answer, err := w.wrap(layerToken(chosen, maxBuf), false)
	if err != nil {
		return nil, 0, err
	}
	if err := writeToken(nc, answer); err != nil {
		return nil, 0, err
	}
	if chosen == Authentication {
		if r.Buffered() > 0 {
			return nil, 0, fmt.Errorf("SASL GSSAPI with %s: unexpected bytes after the exchange", spn)
		}
		return nc, chosen, nil
	}
	return newConn(nc, r, w, chosen == Privacy), chosen, nil
}

// ServerConfig is the service side: its keytab, the principal clients must
// have a ticket for, and the layers it offers.
type ServerConfig struct {
	Keytab    *keytab.Keytab
	Principal string     // "service/host@REALM"
	Offer     Protection // layers offered; 0 means Authentication
	ClockSkew time.Duration
}

// Peer is who authenticated and how.
type Peer struct {
	Principal  string // user@REALM
	Protection Protection
	Expires    time.Time // end of the ticket the client presented
}

// Server runs the service side of the exchange on nc, reading through r
// (which holds whatever followed the preamble). On failure the client has
// been sent HBase's SASL error reply; the caller closes the connection.
func Server(nc net.Conn, r *bufio.Reader, cfg ServerConfig) (net.Conn, *Peer, error) {
	c, peer, err := server(nc, r, cfg)
	if err != nil {
		// The exception class HBase reports for a failed GSSAPI exchange.
		_ = WriteServerError(nc, "javax.security.sasl.SaslException", err.Error())
		return nil, nil, err
	}
	return c, peer, nil
}

func server(nc net.Conn, r *bufio.Reader, cfg ServerConfig) (net.Conn, *Peer, error) {
	offer := cfg.Offer
	if offer == 0 {
		offer = Authentication
	}
	skew := cfg.ClockSkew
	if skew <= 0 {
		skew = 5 * time.Minute
	}
	tok, err := readToken(r)
	if err != nil {
		return nil, nil, fmt.Errorf("read the AP-REQ: %w", err)
	}
	id, inner, err := unframeGSS(tok)
	if err != nil {
		return nil, nil, fmt.Errorf("GSS initiate failed: %w", err)
	}
	if id != tokAPReq {
		return nil, nil, fmt.Errorf("GSS initiate failed: token id %x, want an AP-REQ", id)
	}
	var req messages.APReq
	if err := req.Unmarshal(inner); err != nil {
		return nil, nil, fmt.Errorf("GSS initiate failed: AP-REQ: %w", err)
	}
	sname := req.Ticket.SName.PrincipalNameString() + "@" + req.Ticket.Realm
	if cfg.Principal != "" && sname != cfg.Principal {
		return nil, nil, fmt.Errorf("GSS initiate failed: ticket is for %s, this server is %s", sname, cfg.Principal)
	}
	settings := service.NewSettings(cfg.Keytab, service.MaxClockSkew(skew), service.DecodePAC(false))
	ok, _, err := service.VerifyAPREQ(&req, settings)
	if err != nil || !ok {
		return nil, nil, fmt.Errorf("GSS initiate failed: ticket for %s not accepted: %v", sname, err)
	}
	fl, err := contextFlags(req.Authenticator)
	if err != nil {
		return nil, nil, fmt.Errorf("GSS initiate failed: %w", err)
	}
	w := &wrapper{key: req.Ticket.DecryptedEncPart.Key, acceptor: true, recvSeq: uint64(req.Authenticator.SeqNumber)}
	if len(req.Authenticator.SubKey.KeyValue) > 0 {
		w.key = req.Authenticator.SubKey
	}
	if fl&gssMutual != 0 {
		rep, seq, err := acceptorToken(&req)
		if err != nil {
			return nil, nil, fmt.Errorf("GSS initiate failed: AP-REP: %w", err)
		}
		w.sendSeq = seq
		if err := writeServerReply(nc, rep); err != nil {
			return nil, nil, err
		}
		// The client's answer to the AP-REP carries nothing.
		if _, err := readToken(r); err != nil {
			return nil, nil, fmt.Errorf("read the client's answer to the AP-REP: %w", err)
		}
	}
	// Layers the context cannot carry are not offered (the client did not
	// ask for confidentiality or integrity in its GSS flags).
	if fl&gssConf == 0 {
		offer &^= Privacy
	}
	if fl&gssInteg == 0 {
		offer &^= Integrity | Privacy
	}
	if offer == 0 {
		return nil, nil, fmt.Errorf("the client's GSS context cannot carry protection %s", cfg.Offer)
	}
	wrapped, err := w.wrap(layerToken(offer, serverMaxBuf), false)
	if err != nil {
		return nil, nil, err
	}
	if err := writeServerReply(nc, wrapped); err != nil {
		return nil, nil, err
	}
	ans, err := readToken(r)
	if err != nil {
		return nil, nil, fmt.Errorf("read the client's security layer: %w", err)
	}
	plain, _, err := w.unwrap(ans)
	if err != nil {
		return nil, nil, fmt.Errorf("the client's security layer: %w", err)
	}
	if len(plain) < 4 {
		return nil, nil, fmt.Errorf("the client's security layer message has %d bytes, want at least 4", len(plain))
	}
	chosen := Protection(plain[0])
	if chosen != chosen.strongest() || offer&chosen == 0 {
		return nil, nil, fmt.Errorf("the client chose protection %s; this server offers %s", chosen, offer)
	}
	peer := &Peer{
		Principal:  req.Authenticator.CName.PrincipalNameString() + "@" + req.Authenticator.CRealm,
		Protection: chosen,
		Expires:    req.Ticket.DecryptedEncPart.EndTime,
	}
	if chosen == Authentication {
		return &bufferedConn{Conn: nc, r: r}, peer, nil
	}
	return newConn(nc, r, w, chosen == Privacy), peer, nil
}

// bufferedConn reads through the reader that already holds bytes the
// client sent right after the exchange.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufferedConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// StrongestName names the strongest layer in p, for messages.
func (p Protection) StrongestName() string { return p.strongest().String() }
