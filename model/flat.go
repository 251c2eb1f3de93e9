package model

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A fast path for decoding the entities the harness reads most (a comment
// per listed row and per checked row, an order per comment written):
// encoding/json's reflection was a fifth of a listing's time. It takes
// only a flat object of known fields holding plain strings, integers and
// booleans, each key once and spelled exactly; on anything else (escapes,
// null, nesting, floats, other casings, malformed input) it declines and
// encoding/json decides, so the two never disagree on what a value holds
// or on whether it is valid (FuzzFlatAgreesWithJSON).

// flatField is one field a flat object may hold; exactly one target is
// set, or none for a key skipped as an unknown one is (the seed's rowKey,
// which its objects carry and nothing reads: named, it is found where it
// is, not compared with every field's name and casing).
type flatField struct {
	name    string
	str     *string
	length  *int    // a string kept only as its length in bytes
	raw     *[]byte // a string's bytes in the input, not copied
	num     *int64
	boolean *bool
}

// rowKey is the seed's rowKey, skipped.
var rowKey = flatField{name: "rowKey"}

// decodeFlat fills fields from b and reports which it found (bit i for
// fields[i]) and whether it could. Keys not among fields are skipped when
// their value is a plain scalar. On false the targets may be partly
// written: the caller decodes again from scratch.
func decodeFlat(b []byte, fields []flatField) (found uint64, ok bool) {
	var seen uint64 // fields already set: a repeated key declines
	p := flatParser{b: b}
	if !p.consume('{') {
		return 0, false
	}
	if p.consume('}') {
		return 0, p.end()
	}
	next := 0 // keys come in the fields' order, as the harness writes them
	for {
		i := p.expectKey(fields, next)
		if i < 0 {
			key, ok := p.plainString()
			if !ok || !p.consume(':') {
				return 0, false
			}
			i = fieldIndex(fields, key, next)
			if i < 0 {
				if foldsToField(fields, key) || !p.skipScalar() {
					return 0, false
				}
			}
		}
		next = i + 1
		switch {
		case i < 0:
		case seen&(1<<i) != 0:
			return 0, false
		default:
			seen |= 1 << i
			if !p.value(&fields[i]) {
				return 0, false
			}
		}
		if p.consume(',') {
			continue
		}
		return seen, p.consume('}') && p.end()
	}
}

// expectKey reads the key of fields[next] and its colon, if they are
// what comes next, spelled exactly, and returns next; -1, having read
// nothing but whitespace, if not. A key written as the harness writes it
// is then read with one comparison, where plainString scanned it and
// fieldIndex looked it up.
func (p *flatParser) expectKey(fields []flatField, next int) int {
	if next >= len(fields) {
		return -1
	}
	p.space()
	name := fields[next].name
	rest := p.b[p.i:]
	if len(rest) < len(name)+3 || rest[0] != '"' || string(rest[1:1+len(name)]) != name ||
		rest[1+len(name)] != '"' || rest[2+len(name)] != ':' {
		return -1
	}
	p.i += len(name) + 3
	return next
}

// fieldIndex is the index of the field named key, -1 for none, trying
// fields[from] first.
func fieldIndex(fields []flatField, key []byte, from int) int {
	if from < len(fields) && string(key) == fields[from].name {
		return from
	}
	for i, f := range fields {
		if string(key) == f.name {
			return i
		}
	}
	return -1
}

// foldsToField reports a key encoding/json would match to a field despite
// its casing: the fast path leaves those to it. Field names are ASCII, and
// an ASCII key folds only to a name of its own length (the folds that
// change a length, such as the Kelvin sign's to k, are of non-ASCII
// bytes), so most keys are ruled out by their length alone.
func foldsToField(fields []flatField, key []byte) bool {
	ascii := isASCII(key)
	for _, f := range fields {
		if ascii && len(key) != len(f.name) {
			continue
		}
		if bytes.EqualFold(key, []byte(f.name)) {
			return true
		}
	}
	return false
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

type flatParser struct {
	b []byte
	i int
}

func (p *flatParser) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// consume skips whitespace and then c, reporting whether c was there.
func (p *flatParser) consume(c byte) bool {
	p.space()
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

// end reports whether only whitespace is left.
func (p *flatParser) end() bool {
	p.space()
	return p.i == len(p.b)
}

// plainString reads a string without escapes, control bytes or invalid
// UTF-8 (which encoding/json would rewrite), returning its bytes. The
// closing quote, escapes and control bytes are found in one pass, a word
// at a time (see scanString), and the runes checked after, only if some
// byte is not ASCII: a comment's text is most of what a check reads, and
// its ids and keys most of the strings.
func (p *flatParser) plainString() ([]byte, bool) {
	if !p.consume('"') {
		return nil, false
	}
	return p.stringBody()
}

// stringBody is plainString past the opening quote.
func (p *flatParser) stringBody() ([]byte, bool) {
	n, esc, ascii := scanString(p.b[p.i:])
	if n < 0 || esc { // a backslash before a quote escapes it: declined either way
		return nil, false
	}
	s := p.b[p.i : p.i+n]
	p.i += n + 1
	return s, ascii || validUTF8(s)
}

// scanString finds the first quote in b (n, -1 if none), and reports a
// backslash (an escape, which the fast path leaves to encoding/json) or a
// byte below 0x20 (which JSON strings must escape) before it, and whether
// the bytes before it are all ASCII. It stops at the first escape.
//
// A word at a time: zero(v) marks the bytes of v that are zero, exactly
// up to the first (a borrow can mark the byte past a zero byte, never
// one before), so the lowest mark is the first quote, and a mark below
// it is a true escape or a borrow from one.
func scanString(b []byte) (n int, escaped, ascii bool) {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	zero := func(v uint64) uint64 { return (v - ones) &^ v & highs }
	var all uint64
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		esc := ((x-0x20*ones)&^x | zero(x^('\\'*ones))) & highs
		if q := zero(x ^ ('"' * ones)); q != 0 {
			before := q&-q - 1 // the bits of the bytes before the first quote
			return i + bits.TrailingZeros64(q)/8, esc&before != 0, (all|x&before)&highs == 0
		}
		if esc != 0 {
			return -1, true, false
		}
		all |= x
	}
	for ; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i, false, all&highs == 0
		case c < 0x20 || c == '\\':
			return -1, true, false
		default:
			all |= uint64(c)
		}
	}
	return -1, false, false
}

// validUTF8 is utf8.Valid, a rune at a time as it is, but a three-byte
// rune whose lead takes any continuation (E1-EC, EE-EF: Hangul, most of
// CJK) is checked by its two continuation bytes alone: on review text of
// half Korean words, three quarters of utf8.Valid's time. (segmentio/asm's
// vector check took a sixth of it, but left the vector registers' upper
// halves dirty: every SSE instruction after it paid, math.Exp fifteenfold
// in the harness, and verify as a whole was no faster.)
func validUTF8(p []byte) bool {
	for i, n := 0, len(p); i < n; {
		c := p[i]
		switch {
		case c < utf8.RuneSelf:
			i++
		case i+2 < n && c-0xE1 < 0x0F && c != 0xED:
			if p[i+1]&0xC0 != 0x80 || p[i+2]&0xC0 != 0x80 {
				return false
			}
			i += 3
		default:
			r, size := utf8.DecodeRune(p[i:])
			if r == utf8.RuneError && size == 1 {
				return false
			}
			i += size
		}
	}
	return true
}

func (p *flatParser) value(f *flatField) bool {
	switch {
	case f.str != nil:
		s, ok := p.plainString()
		*f.str = string(s)
		return ok
	case f.length != nil:
		s, ok := p.plainString()
		*f.length = len(s)
		return ok
	case f.raw != nil:
		s, ok := p.plainString()
		*f.raw = s
		return ok
	case f.num != nil:
		n, ok := p.integer()
		*f.num = n
		return ok
	case f.boolean != nil:
		v, ok := p.literal()
		*f.boolean = v
		return ok
	default:
		return p.skipScalar()
	}
}

// integer reads a JSON number that is an int64: no fraction, no exponent.
func (p *flatParser) integer() (int64, bool) {
	p.space()
	start := p.i
	if p.i < len(p.b) && p.b[p.i] == '-' {
		p.i++
	}
	digits := p.i
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		p.i++
	}
	n := p.i - digits
	if n == 0 || (n > 1 && p.b[digits] == '0') {
		return 0, false
	}
	if p.i < len(p.b) && (p.b[p.i] == '.' || p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		return 0, false
	}
	if n <= 18 { // no int64 overflows: summed here, as ParseInt would
		var v int64
		for _, d := range p.b[digits:p.i] {
			v = v*10 + int64(d-'0')
		}
		if digits > start {
			v = -v
		}
		return v, true
	}
	v, err := strconv.ParseInt(string(p.b[start:p.i]), 10, 64)
	return v, err == nil
}

// literal reads true or false.
func (p *flatParser) literal() (bool, bool) {
	p.space()
	rest := p.b[p.i:]
	switch {
	case bytes.HasPrefix(rest, []byte("true")):
		p.i += 4
		return true, true
	case bytes.HasPrefix(rest, []byte("false")):
		p.i += 5
		return false, true
	}
	return false, false
}

// skipScalar skips an unknown key's plain string, integer or boolean.
func (p *flatParser) skipScalar() bool {
	p.space()
	if p.i >= len(p.b) {
		return false
	}
	switch c := p.b[p.i]; {
	case c == '"':
		_, ok := p.plainString()
		return ok
	case c == '-' || (c >= '0' && c <= '9'):
		_, ok := p.integer()
		return ok
	default:
		_, ok := p.literal()
		return ok
	}
}

// lit reads s if it comes next, exactly.
func (p *flatParser) lit(s string) bool {
	if len(p.b)-p.i < len(s) || string(p.b[p.i:p.i+len(s)]) != s {
		return false
	}
	p.i += len(s)
	return true
}

// str reads a string's body and its closing quote into *dst (lit read
// the opening quote).
func (p *flatParser) str(dst *[]byte) bool {
	s, ok := p.stringBody()
	*dst = s
	return ok
}

// headExact reads a comment spelled exactly as the harness writes it
// (AppendJSONComment): its keys in their order, no whitespace. It reads
// each value as decodeFlat does, so on what it takes the two agree; on
// anything else it declines, and decodeFlat reads it. Matching the keys
// as one template, not field by field, took a third off a comment's
// decode, which is a check's largest cost after the scans.
func headExact(data []byte, c *CommentHead, o, pr, u, content *[]byte) bool {
	p := flatParser{b: data}
	var ok bool
	if !(p.lit(`{"orderId":"`) && p.str(o) && p.lit(`,"productId":"`) && p.str(pr) &&
		p.lit(`,"userId":"`) && p.str(u) && p.lit(`,"content":"`)) {
		return false
	}
	if !p.str(content) || !p.lit(`,"timestamp":`) {
		return false
	}
	c.ContentLen = len(*content)
	if c.Timestamp, ok = p.integer(); !ok || !p.lit(`,"edited":`) {
		return false
	}
	if c.IsEdited, ok = p.literal(); !ok {
		return false
	}
	return p.rowKeyEnd()
}

// rowKeyEnd reads the seed's rowKey, a string, and the object's end,
// which must be the input's.
func (p *flatParser) rowKeyEnd() bool {
	var rk []byte
	return p.lit(`,"rowKey":"`) && p.str(&rk) && p.lit("}") && p.i == len(p.b)
}

// decodeHeadFast decodes a comment's head by headExact or decodeFlat, as
// decodeFast a comment, the content measured and not copied, and the
// three ids in one string.
func decodeHeadFast(data []byte, h *CommentHead) bool {
	var c CommentHead
	var o, p, u, content []byte
	if !headExact(data, &c, &o, &p, &u, &content) {
		c, o, p, u = CommentHead{}, nil, nil, nil
		found, ok := decodeFlat(data, []flatField{
			{name: "orderId", raw: &o}, {name: "productId", raw: &p},
			{name: "userId", raw: &u}, {name: "content", length: &c.ContentLen},
			{name: "timestamp", num: &c.Timestamp}, {name: "edited", boolean: &c.IsEdited},
			rowKey, {name: "isEdited", boolean: new(bool)},
		})
		if !ok || found&(1<<7) != 0 { // the legacy key: see decodeCommentFlat
			return false
		}
	}
	c.OrderID, c.ProductID, c.UserID, _ = oneString(o, p, u, nil)
	*h = c
	return true
}

// oneString copies a comment's ids and text into one string, cut in
// four: one allocation where there were four (a check decodes a head per
// comment, a listing page ten comments).
func oneString(o, p, u, text []byte) (string, string, string, string) {
	var b strings.Builder
	b.Grow(len(o) + len(p) + len(u) + len(text))
	for _, s := range [...][]byte{o, p, u, text} {
		b.Write(s)
	}
	all := b.String()
	n, m, k := len(o), len(o)+len(p), len(o)+len(p)+len(u)
	return all[:n], all[n:m], all[m:k], all[k:]
}

// orderUserFast is an order's userId by decodeFlat, a slice of data. The
// id is read too though unused: encoding/json fails an order whose id is
// not a string, and so must this.
func orderUserFast(data []byte) ([]byte, bool) {
	if user, ok := orderUserExact(data); ok {
		return user, true
	}
	var id, user []byte
	_, ok := decodeFlat(data, []flatField{{name: "id", raw: &id}, {name: "userId", raw: &user}, rowKey})
	return user, ok
}

// orderUserExact is an order's userId when the order is spelled exactly
// as AppendJSONOrder writes it (see headExact): a check reads one per
// comment, in a third of decodeFlat's time.
func orderUserExact(data []byte) ([]byte, bool) {
	var id, user []byte
	p := flatParser{b: data}
	ok := p.lit(`{"id":"`) && p.str(&id) && p.lit(`,"userId":"`) && p.str(&user) && p.rowKeyEnd()
	return user, ok
}

// decodeCommentFlat decodes a comment's fields into h, its content into
// text: by headExact when it is spelled as the harness writes it (the ids
// and the text then in one string), else by decodeFlat. The legacy "isEdited" key (the
// last field: rowKey goes before it, where the harness writes it)
// declines: Comment.UnmarshalJSON weighs it against "edited", so a
// comment that has it is left to encoding/json.
func decodeCommentFlat(data []byte, h *CommentHead, text *string) bool {
	var o, p, u, content []byte
	if headExact(data, h, &o, &p, &u, &content) {
		h.OrderID, h.ProductID, h.UserID, *text = oneString(o, p, u, content)
		return true
	}
	*h = CommentHead{}
	found, ok := decodeFlat(data, []flatField{
		{name: "orderId", str: &h.OrderID}, {name: "productId", str: &h.ProductID},
		{name: "userId", str: &h.UserID}, {name: "content", str: text},
		{name: "timestamp", num: &h.Timestamp}, {name: "edited", boolean: &h.IsEdited},
		rowKey, {name: "isEdited", boolean: new(bool)},
	})
	return ok && found&(1<<7) == 0
}

// decodeFast decodes the entities it knows by decodeFlat; false for any
// other type or input.
func decodeFast(data []byte, v any) bool {
	switch e := v.(type) {
	case *Comment:
		var h CommentHead // Comment.UnmarshalJSON starts from zero
		var text string
		if !decodeCommentFlat(data, &h, &text) {
			return false
		}
		*e = Comment{OrderID: h.OrderID, ProductID: h.ProductID, UserID: h.UserID, Content: text,
			Timestamp: h.Timestamp, IsEdited: h.IsEdited}
	case *Order:
		o := *e // encoding/json leaves absent fields as they were
		if _, ok := decodeFlat(data, []flatField{{name: "id", str: &o.ID}, {name: "userId", str: &o.UserID}, rowKey}); !ok {
			return false
		}
		*e = o
	case *User:
		u := *e
		if _, ok := decodeFlat(data, []flatField{{name: "id", str: &u.ID}, {name: "name", str: &u.Name}, {name: "nickname", str: &u.Nickname}}); !ok {
			return false
		}
		*e = u
	case *Seller:
		s := *e
		if _, ok := decodeFlat(data, []flatField{{name: "id", str: &s.ID}, {name: "name", str: &s.Name}}); !ok {
			return false
		}
		*e = s
	default:
		return false
	}
	return true
}
