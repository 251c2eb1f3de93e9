package sasl

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/jcmturner/gofork/encoding/asn1"
	"github.com/jcmturner/gokrb5/v8/asn1tools"
	"github.com/jcmturner/gokrb5/v8/crypto"
	"github.com/jcmturner/gokrb5/v8/iana"
	"github.com/jcmturner/gokrb5/v8/iana/asnAppTag"
	"github.com/jcmturner/gokrb5/v8/iana/flags"
	"github.com/jcmturner/gokrb5/v8/iana/keyusage"
	"github.com/jcmturner/gokrb5/v8/iana/msgtype"
	"github.com/jcmturner/gokrb5/v8/messages"
	"github.com/jcmturner/gokrb5/v8/types"
)

// The Kerberos V5 GSS mechanism's token framing (RFC 2743 §3.1 and RFC
// 4121 §4.1): [APPLICATION 0] { mech OID, 2-byte TOK_ID, inner token }.
var krb5OID = []byte{0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x12, 0x01, 0x02, 0x02}

var (
	tokAPReq    = [2]byte{0x01, 0x00}
	tokAPRep    = [2]byte{0x02, 0x00}
	tokKRBError = [2]byte{0x03, 0x00}
)

// GSS context flags carried in the authenticator checksum (RFC 4121
// §4.1.1.1). Java's acceptor offers a security layer only for the flags the
// initiator set, so the client asks for all of them.
const (
	gssMutual   = 2
	gssReplay   = 4
	gssSequence = 8
	gssConf     = 16
	gssInteg    = 32

	checksumGSSAPI = 0x8003
)

func frameGSS(tokID [2]byte, inner []byte) []byte {
	body := make([]byte, 0, len(krb5OID)+2+len(inner))
	body = append(body, krb5OID...)
	body = append(body, tokID[:]...)
	body = append(body, inner...)
	out := []byte{0x60}
	out = append(out, asn1tools.MarshalLengthBytes(len(body))...)
	return append(out, body...)
}

// unframeGSS returns the token id and the inner token of a framed token.
func unframeGSS(b []byte) ([2]byte, []byte, error) {
	var id [2]byte
	if len(b) < 2 || b[0] != 0x60 {
		return id, nil, errors.New("not a GSS-API initial context token")
	}
	n, off := 0, 2
	switch l := b[1]; {
	case l < 0x80:
		n = int(l)
	case l == 0x80 || l > 0x84:
		return id, nil, errors.New("bad GSS token length")
	default:
		k := int(l & 0x7f)
		if len(b) < 2+k {
			return id, nil, errors.New("truncated GSS token")
		}
		for _, c := range b[2 : 2+k] {
			n = n<<8 | int(c)
		}
		off += k
	}
	if n != len(b)-off {
		return id, nil, fmt.Errorf("GSS token length %d, have %d bytes", n, len(b)-off)
	}
	body := b[off:]
	if !bytes.HasPrefix(body, krb5OID) || len(body) < len(krb5OID)+2 {
		return id, nil, errors.New("GSS token is not for the Kerberos V5 mechanism")
	}
	copy(id[:], body[len(krb5OID):])
	return id, body[len(krb5OID)+2:], nil
}

// initiatorToken builds the AP-REQ that opens the context: an authenticator
// with a fresh subkey (the key both sides then wrap with, RFC 4121 §2) and
// the GSS checksum carrying the context flags, mutual authentication
// required so the server proves it holds the service key.
func initiatorToken(tkt messages.Ticket, sessionKey types.EncryptionKey, cname types.PrincipalName, crealm string) (tok []byte, auth types.Authenticator, err error) {
	auth, err = types.NewAuthenticator(crealm, cname)
	if err != nil {
		return nil, auth, err
	}
	et, err := crypto.GetEtype(sessionKey.KeyType)
	if err != nil {
		return nil, auth, err
	}
	if err := auth.GenerateSeqNumberAndSubKey(sessionKey.KeyType, et.GetKeyByteSize()); err != nil {
		return nil, auth, err
	}
	sum := make([]byte, 24)
	binary.LittleEndian.PutUint32(sum[0:], 16) // length of the (empty) channel bindings hash
	binary.LittleEndian.PutUint32(sum[20:], gssMutual|gssReplay|gssSequence|gssConf|gssInteg)
	auth.Cksum = types.Checksum{CksumType: checksumGSSAPI, Checksum: sum}
	req, err := messages.NewAPReq(tkt, sessionKey, auth)
	if err != nil {
		return nil, auth, err
	}
	types.SetFlag(&req.APOptions, flags.APOptionMutualRequired)
	b, err := req.Marshal()
	if err != nil {
		return nil, auth, err
	}
	return frameGSS(tokAPReq, b), auth, nil
}

// encAPRepPart is EncAPRepPart without the subkey: this acceptor, like
// Java's by default, keeps the initiator's subkey.
type encAPRepPart struct {
	CTime          time.Time `asn1:"generalized,explicit,tag:0"`
	Cusec          int       `asn1:"explicit,tag:1"`
	SequenceNumber int64     `asn1:"explicit,tag:3"`
}

type apRep struct {
	PVNO    int                 `asn1:"explicit,tag:0"`
	MsgType int                 `asn1:"explicit,tag:1"`
	EncPart types.EncryptedData `asn1:"explicit,tag:2"`
}

// acceptorToken is the AP-REP answering req: the authenticator's time
// echoed under the session key (proof of the service key) and the sequence
// number this side starts its wrap tokens from.
func acceptorToken(req *messages.APReq) ([]byte, uint64, error) {
	n, err := rand.Int(rand.Reader, big.NewInt(1<<30))
	if err != nil {
		return nil, 0, err
	}
	seq := n.Int64()
	part, err := asn1.Marshal(encAPRepPart{CTime: req.Authenticator.CTime, Cusec: req.Authenticator.Cusec, SequenceNumber: seq})
	if err != nil {
		return nil, 0, err
	}
	part = asn1tools.AddASNAppTag(part, asnAppTag.EncAPRepPart)
	ed, err := crypto.GetEncryptedData(part, req.Ticket.DecryptedEncPart.Key, keyusage.AP_REP_ENCPART, 0)
	if err != nil {
		return nil, 0, err
	}
	b, err := asn1.Marshal(apRep{PVNO: iana.PVNO, MsgType: msgtype.KRB_AP_REP, EncPart: ed})
	if err != nil {
		return nil, 0, err
	}
	return frameGSS(tokAPRep, asn1tools.AddASNAppTag(b, asnAppTag.APREP)), uint64(seq), nil
}

// readAcceptorToken checks the server's AP-REP against the authenticator
// sent: it must decrypt under the session key and echo the authenticator's
// time. It returns the acceptor's starting sequence number and its subkey,
// if it chose one.
func readAcceptorToken(tok []byte, sessionKey types.EncryptionKey, auth types.Authenticator) (uint64, *types.EncryptionKey, error) {
	id, inner, err := unframeGSS(tok)
	if err != nil {
		return 0, nil, err
	}
	if id == tokKRBError {
		var ke messages.KRBError
		if err := ke.Unmarshal(inner); err != nil {
			return 0, nil, fmt.Errorf("server sent a Kerberos error that does not decode: %w", err)
		}
		return 0, nil, fmt.Errorf("server refused the ticket: %s", ke.Error())
	}
	if id != tokAPRep {
		return 0, nil, fmt.Errorf("expected an AP-REP token, got token id %x", id)
	}
	var rep messages.APRep
	if err := rep.Unmarshal(inner); err != nil {
		return 0, nil, err
	}
	plain, err := crypto.DecryptEncPart(rep.EncPart, sessionKey, keyusage.AP_REP_ENCPART)
	if err != nil {
		return 0, nil, fmt.Errorf("AP-REP does not decrypt under the session key (not the real service?): %w", err)
	}
	var part messages.EncAPRepPart
	if err := part.Unmarshal(plain); err != nil {
		return 0, nil, err
	}
	// KerberosTime has whole seconds; the microseconds travel in cusec.
	if !part.CTime.Equal(auth.CTime.Truncate(time.Second)) || part.Cusec != auth.Cusec {
		return 0, nil, errors.New("AP-REP does not echo the authenticator's time (replayed?)")
	}
	var sub *types.EncryptionKey
	if len(part.Subkey.KeyValue) > 0 {
		sub = &part.Subkey
	}
	return uint64(part.SequenceNumber) & 0xffffffff, sub, nil
}

// contextFlags reads the GSS flags from a verified authenticator.
func contextFlags(auth types.Authenticator) (uint32, error) {
	if auth.Cksum.CksumType != checksumGSSAPI || len(auth.Cksum.Checksum) < 24 {
		return 0, errors.New("authenticator has no GSS-API checksum (not a GSS initiator)")
	}
	return binary.LittleEndian.Uint32(auth.Cksum.Checksum[20:24]), nil
}
