package model

import (
	"encoding/base64"
	"fmt"
	"math/bits"
	"strconv"
	"unicode/utf8"
)

// The seed stores each entity as its Jackson ObjectMapper writes it: a
// default mapper over Lombok @Data classes that also implement HBaseData.
// What that means, byte for byte:
//   - properties come from public getters: the fields in declaration order,
//     then getter-only properties;
//   - Lombok's getter for `boolean isEdited` is isEdited(), which Jackson
//     names "edited";
//   - HBaseData's public getRowKey() is a property too: "rowKey", the row
//     key's bytes (the seed's id10 and cat), written last. The seed's own
//     reader, a default mapper, fails on it (FAIL_ON_UNKNOWN_PROPERTIES,
//     and rowKey has no setter): the seed cannot read back what it writes.
//     Reading here ignores it;
//   - byte[] is base64 with padding and no line breaks;
//   - strings escape only '"', '\\' and control characters (\b \t \n \f \r,
//     others \u00XX with upper-case hex); '<', '>', '&', '/', U+2028 and
//     non-ASCII characters are written as they are, in UTF-8.
// Which of "edited" and "rowKey" comes first depends on the order the JVM
// lists a class's methods in, which is unspecified; rowKey last is one of
// the two the seed can write.

type jsonWriter struct {
	b   []byte
	err error
}

func (w *jsonWriter) open()  { w.b = append(w.b, '{') }
func (w *jsonWriter) close() { w.b = append(w.b, '}') }

func (w *jsonWriter) name(n string) {
	if w.b[len(w.b)-1] != '{' {
		w.b = append(w.b, ',')
	}
	w.b = append(w.b, '"')
	w.b = append(w.b, n...)
	w.b = append(w.b, '"', ':')
}

func (w *jsonWriter) str(n, v string) {
	w.name(n)
	w.b = appendJacksonString(w.b, v)
}

func (w *jsonWriter) long(n string, v int64) {
	w.name(n)
	w.b = strconv.AppendInt(w.b, v, 10)
}

func (w *jsonWriter) bytes(n string, v []byte) {
	w.name(n)
	if v == nil {
		w.b = append(w.b, "null"...)
		return
	}
	w.b = append(w.b, '"')
	w.b = base64.StdEncoding.AppendEncode(w.b, v)
	w.b = append(w.b, '"')
}

// rowKey writes the seed's getRowKey().
func (w *jsonWriter) rowKey(ids ...string) {
	w.name("rowKey")
	w.b, w.err = appendRowKey(w.b, ids...)
}

// appendRowKey appends the seed's getRowKey() as Jackson writes a byte[]:
// the ids, each of which its id10 refuses unless it is exactly 10
// characters (as Jackson would propagate), in base64.
func appendRowKey(b []byte, ids ...string) ([]byte, error) {
	var buf [64]byte // the seed's keys are two ids of 10 characters
	key := buf[:0]
	for _, id := range ids {
		if utf8.RuneCountInString(id) != 10 {
			return b, fmt.Errorf("rowKey: id %q must be exactly 10 chars (the seed's id10)", id)
		}
		key = append(key, id...)
	}
	b = append(b, '"')
	b = base64.StdEncoding.AppendEncode(b, key)
	return append(b, '"'), nil
}

const upperHex = "0123456789ABCDEF"

// appendJacksonString quotes s as Jackson's default generator does. Runs
// of bytes written as they are are copied whole.
func appendJacksonString(b []byte, s string) []byte {
	b = append(b, '"')
	for {
		n := plainPrefix(s)
		b = append(b, s[:n]...)
		if n == len(s) {
			return append(b, '"')
		}
		b = appendEscape(b, s[n])
		s = s[n+1:]
	}
}

// plainPrefix is the length of s's prefix that needs no escape: up to its
// first '"', '\\' or control byte. It looks at 8 bytes at a time: a
// comment's text is checked on every write. Of the bytes a word flags, the
// lowest is always one that needs an escape (a false flag only follows a
// true one), so the first set bit finds it.
func plainPrefix(s string) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		q := x ^ ('"' * ones)   // a quote is a zero byte here
		bs := x ^ ('\\' * ones) // a backslash here
		if m := ((x-0x20*ones)&^x | (q-ones)&^q | (bs-ones)&^bs) & highs; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' {
			return i
		}
	}
	return i
}

// appendEscape writes the escape of a byte plainPrefix stopped at.
func appendEscape(b []byte, c byte) []byte {
	switch c {
	case '"', '\\':
		return append(b, '\\', c)
	case '\b':
		return append(b, '\\', 'b')
	case '\t':
		return append(b, '\\', 't')
	case '\n':
		return append(b, '\\', 'n')
	case '\f':
		return append(b, '\\', 'f')
	case '\r':
		return append(b, '\\', 'r')
	}
	return append(b, '\\', 'u', '0', '0', upperHex[c>>4], upperHex[c&0xf])
}

// marshalJackson writes the five entities as the seed does.
func marshalJackson(v any) ([]byte, error) {
	ent := deref(v)
	w := &jsonWriter{b: make([]byte, 0, sizeHint(ent))}
	w.open()
	switch e := ent.(type) {
	case User:
		w.str("id", e.ID)
		w.str("name", e.Name)
		w.str("nickname", e.Nickname)
		w.rowKey(e.ID)
	case Seller:
		w.str("id", e.ID)
		w.str("name", e.Name)
		w.rowKey(e.ID)
	case Product:
		w.str("id", e.ID)
		w.str("sellerId", e.SellerID)
		w.bytes("content", e.Content)
		w.long("createdAt", e.CreatedAt)
		w.long("updatedAt", e.UpdatedAt)
		w.rowKey(e.ID)
	case Order:
		return AppendJSONOrder(w.b[:0], &e)
	case Comment:
		return AppendJSONComment(w.b[:0], &e)
	default:
		return nil, fmt.Errorf("encode %T: not an entity of the seed", v)
	}
	w.close()
	if w.err != nil {
		return nil, fmt.Errorf("encode %T: %w", v, w.err)
	}
	return w.b, nil
}

// AppendJSONComment appends c to dst as JSON's Marshal writes it. The write
// path calls it, not Marshal, for the seed's codec: through Codec, a
// comment is boxed, an allocation on every write. It writes each field in
// turn, with no jsonWriter between, for the same reason. dst with room
// for CommentJSONLen(c) more bytes is not grown.
func AppendJSONComment(dst []byte, c *Comment) ([]byte, error) {
	b := append(dst, `{"orderId":`...)
	b = appendJacksonString(b, c.OrderID)
	b = append(b, `,"productId":`...)
	b = appendJacksonString(b, c.ProductID)
	b = append(b, `,"userId":`...)
	b = appendJacksonString(b, c.UserID)
	b = append(b, `,"content":`...)
	b = appendJacksonString(b, c.Content)
	b = append(b, `,"timestamp":`...)
	b = strconv.AppendInt(b, c.Timestamp, 10)
	b = append(b, `,"edited":`...)
	b = strconv.AppendBool(b, c.IsEdited)
	b, err := appendRowKey(append(b, `,"rowKey":`...), c.OrderID, c.ProductID)
	if err != nil {
		return nil, fmt.Errorf("encode model.Comment: %w", err)
	}
	return append(b, '}'), nil
}

// AppendJSONOrder is AppendJSONComment for an order.
func AppendJSONOrder(dst []byte, o *Order) ([]byte, error) {
	b := append(dst, `{"id":`...)
	b = appendJacksonString(b, o.ID)
	b = append(b, `,"userId":`...)
	b = appendJacksonString(b, o.UserID)
	b, err := appendRowKey(append(b, `,"rowKey":`...), o.ID)
	if err != nil {
		return nil, fmt.Errorf("encode model.Order: %w", err)
	}
	return append(b, '}'), nil
}

// CommentJSONLen is the length of c's JSON with the seed's 10-character
// ASCII ids, a 13-digit ms time and content that needs no escape; a few
// bytes off otherwise.
func CommentJSONLen(c *Comment) int { return 165 + len(c.Content) } // "edited":false; true is a byte shorter

// OrderJSONLen is CommentJSONLen for an order.
const OrderJSONLen = 69

// sizeHint is the length of entity ent's encoding when it is one the
// harness writes per operation (a comment or an order) with the seed's
// 10-character ASCII ids, a 13-digit ms time and content that needs no
// escape: an encoding is then sized once, and exactly (the buffer is
// zeroed, so room to spare costs). Anything else is a few bytes off, and
// grows once at worst.
func sizeHint(ent any) int {
	switch e := ent.(type) {
	case Comment:
		return CommentJSONLen(&e)
	case Order:
		return OrderJSONLen
	}
	return 256
}

func deref(v any) any {
	switch p := v.(type) {
	case *User:
		return *p
	case *Seller:
		return *p
	case *Product:
		return *p
	case *Order:
		return *p
	case *Comment:
		return *p
	}
	return v
}
