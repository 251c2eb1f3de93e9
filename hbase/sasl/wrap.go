package sasl

import (
	"bytes"
	"crypto/hmac"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/jcmturner/gokrb5/v8/crypto"
	"github.com/jcmturner/gokrb5/v8/types"
)

// RFC 4121 §4.2.6.2 wrap token: TOK_ID 05 04, flags, filler FF, EC, RRC,
// SND_SEQ, then the data. Key usages are from §2 of the same RFC.
const (
	wrapHeaderLen = 16

	flagSentByAcceptor = 0x01
	flagSealed         = 0x02
	flagAcceptorSubkey = 0x04

	usageAcceptorSeal  = 22
	usageAcceptorSign  = 23
	usageInitiatorSeal = 24
	usageInitiatorSign = 25
)

// ErrWrap is a wrap token that does not verify: tampered, replayed, out of
// order, from the wrong side, or not a wrap token at all.
var ErrWrap = errors.New("sasl: bad GSS wrap token")

// wrapper protects one direction pair of a Kerberos GSS context: it wraps
// what this side sends and unwraps what the peer sends, each direction with
// its own sequence number, as RFC 4121 requires.
type wrapper struct {
	key         types.EncryptionKey
	acceptor    bool // this side accepted the context (the server)
	acceptorKey bool // key is the acceptor's subkey (flag 0x04 on both sides)
	sendSeq     uint64
	recvSeq     uint64
}

func (w *wrapper) sealUsage(fromAcceptor bool) uint32 {
	if fromAcceptor {
		return usageAcceptorSeal
	}
	return usageInitiatorSeal
}

func (w *wrapper) signUsage(fromAcceptor bool) uint32 {
	if fromAcceptor {
		return usageAcceptorSign
	}
	return usageInitiatorSign
}

func (w *wrapper) header(sealed bool, ec uint16) []byte {
	h := make([]byte, wrapHeaderLen)
	h[0], h[1] = 0x05, 0x04
	if w.acceptor {
		h[2] |= flagSentByAcceptor
	}
	if sealed {
		h[2] |= flagSealed
	}
	if w.acceptorKey {
		h[2] |= flagAcceptorSubkey
	}
	h[3] = 0xFF
	binary.BigEndian.PutUint16(h[4:], ec)
	// RRC stays 0: we never rotate what we send (§4.2.5 lets the sender
	// choose), and every receiver must undo whatever rotation it gets.
	binary.BigEndian.PutUint64(h[8:], w.sendSeq)
	return h
}

// wrap makes one token of msg: sealed (encrypted and integrity-protected)
// when conf, else integrity only (plain text followed by a checksum).
func (w *wrapper) wrap(msg []byte, conf bool) ([]byte, error) {
	et, err := crypto.GetEtype(w.key.KeyType)
	if err != nil {
		return nil, fmt.Errorf("sasl: wrap: %w", err)
	}
	var tok []byte
	if conf {
		// EC 0: the AES and later enctypes need no filler, and the
		// encrypted copy of the header carries the same EC.
		hdr := w.header(true, 0)
		plain := make([]byte, 0, len(msg)+wrapHeaderLen)
		plain = append(plain, msg...)
		plain = append(plain, hdr...)
		_, ct, err := et.EncryptMessage(w.key.KeyValue, plain, w.sealUsage(w.acceptor))
		if err != nil {
			return nil, fmt.Errorf("sasl: wrap: encrypt: %w", err)
		}
		tok = append(hdr, ct...)
	} else {
		// The checksum covers the message then the header with EC and RRC
		// zero; the sent header's EC then says how long the checksum is.
		zero := w.header(false, 0)
		sum, err := et.GetChecksumHash(w.key.KeyValue, append(append([]byte(nil), msg...), zero...), w.signUsage(w.acceptor))
		if err != nil {
			return nil, fmt.Errorf("sasl: wrap: checksum: %w", err)
		}
		hdr := w.header(false, uint16(len(sum)))
		tok = make([]byte, 0, wrapHeaderLen+len(msg)+len(sum))
		tok = append(tok, hdr...)
		tok = append(tok, msg...)
		tok = append(tok, sum...)
	}
	w.sendSeq++
	return tok, nil
}

// unwrap checks and opens one token from the peer. It reports whether the
// token was sealed, so a caller can refuse integrity-only tokens when
// privacy was negotiated.
func (w *wrapper) unwrap(tok []byte) (msg []byte, sealed bool, err error) {
	if len(tok) < wrapHeaderLen || tok[0] != 0x05 || tok[1] != 0x04 || tok[3] != 0xFF {
		return nil, false, fmt.Errorf("%w: not an RFC 4121 wrap token", ErrWrap)
	}
	flags := tok[2]
	fromAcceptor := flags&flagSentByAcceptor != 0
	if fromAcceptor == w.acceptor {
		return nil, false, fmt.Errorf("%w: token claims to come from this side (reflected?)", ErrWrap)
	}
	if (flags&flagAcceptorSubkey != 0) != w.acceptorKey {
		return nil, false, fmt.Errorf("%w: acceptor-subkey flag does not match the context", ErrWrap)
	}
	sealed = flags&flagSealed != 0
	ec := int(binary.BigEndian.Uint16(tok[4:]))
	rrc := int(binary.BigEndian.Uint16(tok[6:]))
	seq := binary.BigEndian.Uint64(tok[8:])
	body := unrotate(tok[wrapHeaderLen:], rrc)
	et, err := crypto.GetEtype(w.key.KeyType)
	if err != nil {
		return nil, false, fmt.Errorf("sasl: unwrap: %w", err)
	}
	if sealed {
		plain, err := et.DecryptMessage(w.key.KeyValue, body, w.sealUsage(fromAcceptor))
		if err != nil {
			return nil, false, fmt.Errorf("%w: decrypt: %v", ErrWrap, err)
		}
		if len(plain) < ec+wrapHeaderLen {
			return nil, false, fmt.Errorf("%w: sealed token too short", ErrWrap)
		}
		inner := plain[len(plain)-wrapHeaderLen:]
		// The encrypted header copy must match the clear one, except RRC,
		// which the sender encrypts as zero (§4.2.4).
		outer := append([]byte(nil), tok[:wrapHeaderLen]...)
		outer[6], outer[7] = 0, 0
		if !bytes.Equal(inner, outer) {
			return nil, false, fmt.Errorf("%w: header does not match its encrypted copy", ErrWrap)
		}
		msg = plain[:len(plain)-wrapHeaderLen-ec]
	} else {
		if len(body) < ec {
			return nil, false, fmt.Errorf("%w: integrity token shorter than its checksum", ErrWrap)
		}
		msg = body[:len(body)-ec]
		sum := body[len(body)-ec:]
		zero := append([]byte(nil), tok[:wrapHeaderLen]...)
		zero[4], zero[5], zero[6], zero[7] = 0, 0, 0, 0
		want, err := et.GetChecksumHash(w.key.KeyValue, append(append([]byte(nil), msg...), zero...), w.signUsage(fromAcceptor))
		if err != nil {
			return nil, false, fmt.Errorf("sasl: unwrap: checksum: %w", err)
		}
		if !hmac.Equal(want, sum) {
			return nil, false, fmt.Errorf("%w: checksum mismatch", ErrWrap)
		}
		msg = append([]byte(nil), msg...)
	}
	// Checked after the token verified, so a forged token cannot move the
	// expected number on.
	if seq != w.recvSeq {
		return nil, false, fmt.Errorf("%w: sequence number %d, want %d (replayed, lost or reordered)", ErrWrap, seq, w.recvSeq)
	}
	w.recvSeq++
	return msg, sealed, nil
}

// unrotate undoes a right rotation by rrc octets of the data after the
// header (RFC 4121 §4.2.5).
func unrotate(b []byte, rrc int) []byte {
	if len(b) == 0 {
		return b
	}
	rrc %= len(b)
	if rrc == 0 {
		return b
	}
	out := make([]byte, 0, len(b))
	out = append(out, b[rrc:]...)
	return append(out, b[:rrc]...)
}
