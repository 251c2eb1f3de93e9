package sasl

import (
	"bytes"
	"testing"

	"github.com/jcmturner/gokrb5/v8/iana/etypeID"
	"github.com/jcmturner/gokrb5/v8/types"
)

// pair is a context's two ends over one AES-256 key, as after an exchange.
func pair(seq uint64) (initiator, acceptor *wrapper) {
	key := types.EncryptionKey{KeyType: etypeID.AES256_CTS_HMAC_SHA1_96, KeyValue: bytes.Repeat([]byte{7}, 32)}
	return &wrapper{key: key, sendSeq: seq, recvSeq: seq}, &wrapper{key: key, acceptor: true, sendSeq: seq, recvSeq: seq}
}

// A wrap token round-trips in both directions at both levels; with any
// byte changed it is refused, or (a rotation count, which RFC 4121 leaves
// unprotected, changed by a multiple of the data's length) opens to the
// same message; any bytes in its place are refused without a panic: the
// unwrapping side reads what the network hands it.
func FuzzWrapTokens(f *testing.F) {
	f.Add([]byte("a request frame"), true, uint16(0), byte(0))
	f.Add([]byte{}, false, uint16(3), byte(1))
	f.Add(bytes.Repeat([]byte{0xff}, 300), true, uint16(40), byte(0x80))
	f.Fuzz(func(t *testing.T, msg []byte, conf bool, at uint16, flip byte) {
		ini, acc := pair(5)
		for _, dir := range []struct{ from, to *wrapper }{{ini, acc}, {acc, ini}} {
			tok, err := dir.from.wrap(msg, conf)
			if err != nil {
				t.Fatal(err)
			}
			if flip != 0 {
				bad := bytes.Clone(tok)
				bad[int(at)%len(bad)] ^= flip
				if got, _, err := dir.to.unwrap(bad); err == nil && !bytes.Equal(got, msg) {
					t.Fatalf("a token with byte %d changed opened to %q, not %q", int(at)%len(bad), got, msg)
				}
				continue
			}
			got, sealed, err := dir.to.unwrap(tok)
			if err != nil || !bytes.Equal(got, msg) || sealed != conf {
				t.Fatalf("round trip (conf %v): %q sealed %v, %v; want %q", conf, got, sealed, err, msg)
			}
		}
		// Arbitrary bytes as a token: an error, never a panic, and the
		// sequence expected next does not move.
		_, acc2 := pair(9)
		if _, _, err := acc2.unwrap(msg); err == nil {
			t.Fatalf("%x accepted as a wrap token", msg)
		}
		if acc2.recvSeq != 9 {
			t.Fatalf("a refused token moved the sequence to %d", acc2.recvSeq)
		}
	})
}
