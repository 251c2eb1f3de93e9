package model

import (
	"encoding/base64"
	"fmt"
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

func (w *jsonWriter) boolean(n string, v bool) {
	w.name(n)
	w.b = strconv.AppendBool(w.b, v)
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

// rowKey writes the seed's getRowKey(): the ids, each of which its id10
// refuses unless it is exactly 10 characters, as Jackson would propagate.
func (w *jsonWriter) rowKey(ids ...string) {
	var buf [64]byte // the seed's keys are two ids of 10 characters
	key := buf[:0]
	for _, id := range ids {
		if utf8.RuneCountInString(id) != 10 {
			w.err = fmt.Errorf("rowKey: id %q must be exactly 10 chars (the seed's id10)", id)
			return
		}
		key = append(key, id...)
	}
	w.bytes("rowKey", key)
}

const upperHex = "0123456789ABCDEF"

// appendJacksonString quotes s as Jackson's default generator does. Runs
// of bytes written as they are are copied whole.
func appendJacksonString(b []byte, s string) []byte {
	b = append(b, '"')
	from := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[from:i]...)
		from = i + 1
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\b':
			b = append(b, '\\', 'b')
		case c == '\t':
			b = append(b, '\\', 't')
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\f':
			b = append(b, '\\', 'f')
		case c == '\r':
			b = append(b, '\\', 'r')
		default:
			b = append(b, '\\', 'u', '0', '0', upperHex[c>>4], upperHex[c&0xf])
		}
	}
	b = append(b, s[from:]...)
	return append(b, '"')
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
		w.order(&e)
	case Comment:
		w.comment(&e)
	default:
		return nil, fmt.Errorf("encode %T: not an entity of the seed", v)
	}
	return w.end(v)
}

func (w *jsonWriter) end(v any) ([]byte, error) {
	w.close()
	if w.err != nil {
		return nil, fmt.Errorf("encode %T: %w", v, w.err)
	}
	return w.b, nil
}

func (w *jsonWriter) order(e *Order) {
	w.str("id", e.ID)
	w.str("userId", e.UserID)
	w.rowKey(e.ID)
}

func (w *jsonWriter) comment(e *Comment) {
	w.str("orderId", e.OrderID)
	w.str("productId", e.ProductID)
	w.str("userId", e.UserID)
	w.str("content", e.Content)
	w.long("timestamp", e.Timestamp)
	w.boolean("edited", e.IsEdited)
	w.rowKey(e.OrderID, e.ProductID)
}

// AppendJSONComment appends c to dst as JSON's Marshal writes it. The write
// path calls it, not Marshal, for the seed's codec: through Codec, a
// comment is boxed, an allocation on every write. dst with room for
// CommentJSONLen(c) more bytes is not grown.
func AppendJSONComment(dst []byte, c *Comment) ([]byte, error) {
	w := jsonWriter{b: dst}
	w.open()
	w.comment(c)
	if w.close(); w.err != nil {
		return nil, fmt.Errorf("encode model.Comment: %w", w.err)
	}
	return w.b, nil
}

// AppendJSONOrder is AppendJSONComment for an order.
func AppendJSONOrder(dst []byte, o *Order) ([]byte, error) {
	w := jsonWriter{b: dst}
	w.open()
	w.order(o)
	if w.close(); w.err != nil {
		return nil, fmt.Errorf("encode model.Order: %w", w.err)
	}
	return w.b, nil
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
