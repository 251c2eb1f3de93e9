package model

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"unicode/utf8"
)

// The fast path and encoding/json agree on every input: same error or none,
// same value. The fast path may decline anything; when it accepts, it must
// be right.
func FuzzFlatAgreesWithJSON(f *testing.F) {
	for _, s := range []string{
		`{"orderId":"o1","productId":"p1","userId":"u1","content":"배송이 빨라요","timestamp":1700000000000,"edited":false}`,
		`{"id":"o1","userId":"u1"}`,
		` { "id" : "o1" , "userId" : "u1" , "extra": 12 } `,
		`{"id":"o1","ID":"o2"}`,
		// Keys that fold to a field's name though their lengths differ: the
		// long s (U+017F) folds to s, the Kelvin sign (U+212A) to k.
		"{\"id\":\"o1\",\"userId\":\"u1\",\"u\u017ferId\":\"u2\"}",
		"{\"id\":\"u\",\"name\":\"n\",\"nickname\":\"a\",\"nic\u212aname\":\"b\"}",
		`{"orderId":"o","productId":"p","userId":"u","content":"c","timestamp":1,"edited":false,"rowKey":"o|p"}`,
		// A key as expected, but not followed by its colon.
		`{"id"!"o1","userId":"u1"}`, `{"id" : "o1","userId" :"u1"}`, `{"id""o1"}`,
		// The seed's rowKey, skipped where it is: repeated, folded, or not a scalar.
		`{"id":"o1","userId":"u1","rowKey":"AAAA","rowKey":"BBBB"}`, `{"id":"o1","userId":"u1","ROWKEY":"x"}`,
		`{"id":"o1","userId":"u1","rowKey":{"a":1}}`, `{"id":"o1","userId":"u1","rowKey":null}`, `{"rowKey":12,"id":"o"}`,
		`{"id":"o1","id":"o2"}`,
		`{"timestamp":-0,"edited":true,"isEdited":false}`,
		`{"timestamp":1.5}`, `{"timestamp":01}`, `{"content":"a\"b"}`, `{"content":"\xff"}`,
		// Integers summed by hand up to 18 digits, by strconv past them.
		`{"timestamp":999999999999999999}`, `{"timestamp":-999999999999999999}`,
		`{"timestamp":9223372036854775807}`, `{"timestamp":-9223372036854775808}`,
		`{"timestamp":9223372036854775808}`, `{"timestamp":-9223372036854775809}`,
		`{"id":null}`, `{}`, `{"id":"x"} junk`, `{"id":"x",}`, `{"nested":{"a":1}}`, `[1]`, ``,
		// Cut short inside every kind of value, and of an unknown key's.
		`{"timestamp":1`, `{"timestamp":-`, `{"timestamp":`, `{"edited":tru`, `{"id":"ab`, `{"id":"a\`,
		`{"extra":12`, `{"extra":"ab`, `{"extra":fals`, `{"extra":`, `{"id"`, `{`,
		// As the harness writes them (headExact, orderUserExact), and a
		// byte off that: at their end, in a value, a key's spelling.
		`{"orderId":"o","productId":"p","userId":"u","content":"배송","timestamp":1700000000000,"edited":true,"rowKey":"AA=="}`,
		`{"orderId":"o","productId":"p","userId":"u","content":"c","timestamp":1,"edited":false,"rowKey":"o|p"}x`,
		`{"orderId":"o","productId":"p","userId":"u","content":"c","timestamp":1,"edited":false,"rowKey":"o|p"} `,
		`{"orderId":"o","productId":"p","userId":"u","content":"c","timestamp":1,"edited":false,"rowKey":"o|p"`,
		`{"orderId":"o","productId":"p","userId":"u","content":"c","timestamp":01,"edited":false,"rowKey":"r"}`,
		`{"orderId":"o","productId":"p","userId":"u","content":"c","timestamp":1e3,"edited":false,"rowKey":"r"}`,
		`{"orderId":"o","productId":"p","userId":"u","content":"\xff","timestamp":1,"edited":fals,"rowKey":"r"}`,
		`{"orderId":"o","productId":"p","userId":"u","content":"c\"","timestamp":1,"edited":false,"rowKey":"r"}`,
		`{"orderId":"o","productId":"p","userId":"u","content":"c","timestamp":1,"edited":false,"rowKey":7}`,
		`{"orderId":"o","productId":"p","userId":"u","content":"c","timestamp":1,"edited":false,"rowKey":"r","isEdited":true}`,
		`{"orderId":"o","productId":"p","userID":"u","content":"c","timestamp":1,"edited":false,"rowKey":"r"}`,
		`{"id":"o1","userId":"u1","rowKey":"AAAA"}`, `{"id":"o1","userId":"u1","rowKey":"AAAA"}}`,
		`{"id":"o1","userId":"u1","rowKey":"AAAA","userId":"u2"}`, `{"id":"o1","userId":"u\u0031","rowKey":"A"}`,
		`{"id":1,"userId":"u1","rowKey":"AAAA"}`, `{"id":"o1","userId":"u1","rowKey":"AAAA"`,
		// A key as expected but for its quotes.
		`{Xid":"o1","userId":"u1","rowKey":"A"}`, `{"idX:"o1","userId":"u1","rowKey":"A"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		agreeHead(t, data)
		agree[Comment](t, data)
		agree[Order](t, data)
		agree[User](t, data)
		agree[Seller](t, data)
		agreeOrderUser(t, data)
	})
}

// An order's user decodes as the whole order does.
func agreeOrderUser(t *testing.T, data []byte) {
	t.Helper()
	fast, ok := orderUserFast(data)
	if !ok {
		return
	}
	var slow Order
	if err := json.Unmarshal(data, &slow); err != nil {
		t.Fatalf("order user from %q: fast path accepted, encoding/json: %v", data, err)
	}
	if string(fast) != slow.UserID {
		t.Fatalf("order user from %q: fast path %q, encoding/json %q", data, fast, slow.UserID)
	}
}

func agree[T any](t *testing.T, data []byte) {
	t.Helper()
	var fast, slow T
	if !decodeFast(data, &fast) {
		return
	}
	if err := json.Unmarshal(data, &slow); err != nil {
		t.Fatalf("%T from %q: fast path accepted, encoding/json: %v", slow, data, err)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("%T from %q: fast path %+v, encoding/json %+v", slow, data, fast, slow)
	}
}

// A comment's head decodes as the whole comment does, less the text.
func agreeHead(t *testing.T, data []byte) {
	t.Helper()
	var fast CommentHead
	if !decodeHeadFast(data, &fast) {
		return
	}
	var slow Comment
	if err := json.Unmarshal(data, &slow); err != nil {
		t.Fatalf("head from %q: fast path accepted, encoding/json: %v", data, err)
	}
	if fast != slow.Head() {
		t.Fatalf("head from %q: fast path %+v, encoding/json %+v", data, fast, slow.Head())
	}
}

// The entities the harness writes take the fast path (else it would be
// dead code), and what they decode to is what was written.
func TestFlatTakesWhatTheHarnessWrites(t *testing.T) {
	c := Comment{OrderID: "o000000001", ProductID: "p000000002", UserID: "u000000003", Content: "배송이 빨라요 great", Timestamp: 1763697906123, IsEdited: true} // a 9 among its digits
	o := Order{ID: "o000000001", UserID: "u000000003"}
	u := User{ID: "u000000003", Name: "Kim", Nickname: "k"}
	s := Seller{ID: "s000000001", Name: "Shop"}
	for _, v := range []any{c, o, u, s} {
		b, err := JSON.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		out := reflect.New(reflect.TypeOf(v))
		if !decodeFast(b, out.Interface()) {
			t.Fatalf("%T: the fast path declined %s", v, b)
		}
		if got := out.Elem().Interface(); got != v {
			t.Fatalf("%T: decoded %+v, wrote %+v", v, got, v)
		}
	}
	b, _ := JSON.Marshal(c)
	var h CommentHead
	if !decodeHeadFast(b, &h) || h != c.Head() || h.ContentLen != len("배송이 빨라요 great") {
		t.Fatalf("the head of %s: %+v, fast path %v; want %+v", b, h, decodeHeadFast(b, &h), c.Head())
	}
}

// What the harness writes is read as one template (headExact,
// orderUserExact), else those would be dead code; a byte off it is not,
// and goes to decodeFlat.
func TestExactTakesWhatTheHarnessWrites(t *testing.T) {
	for _, c := range []Comment{
		{OrderID: "o000000001", ProductID: "p000000002", UserID: "u000000003", Content: "배송이 빨라요 great", Timestamp: 1763697906123, IsEdited: true},
		{OrderID: "o000000004", ProductID: "p000000005", UserID: "u000000006", Content: "", Timestamp: 0},
	} {
		b, err := AppendJSONComment(nil, &c)
		if err != nil {
			t.Fatal(err)
		}
		var h CommentHead
		var o, p, u, text []byte
		if !headExact(b, &h, &o, &p, &u, &text) || string(text) != c.Content {
			t.Fatalf("headExact declined %s", b)
		}
		h.OrderID, h.ProductID, h.UserID = string(o), string(p), string(u)
		if h != c.Head() {
			t.Fatalf("headExact(%s) = %+v, want %+v", b, h, c.Head())
		}
		if headExact(append(b, ' '), &h, &o, &p, &u, &text) || headExact(b[:len(b)-1], &h, &o, &p, &u, &text) {
			t.Fatalf("headExact took %s with a byte more or less", b)
		}
	}
	b, err := AppendJSONOrder(nil, &Order{ID: "o000000001", UserID: "u000000003"})
	if err != nil {
		t.Fatal(err)
	}
	if u, ok := orderUserExact(b); !ok || string(u) != "u000000003" {
		t.Fatalf("orderUserExact(%s) = %q, %v", b, u, ok)
	}
	if _, ok := orderUserExact(append(b, ' ')); ok {
		t.Fatalf("orderUserExact took %s with a space after", b)
	}
	if u, ok := orderUserFast(append(b, ' ')); !ok || string(u) != "u000000003" {
		t.Fatalf("orderUserFast(%s ) = %q, %v: decodeFlat reads what is not exact", b, u, ok)
	}
}

// Keys in another order than the harness writes them are found by name:
// the fast path takes them all the same.
func TestFlatTakesKeysInAnyOrder(t *testing.T) {
	var o Order
	if !decodeFast([]byte(`{"userId":"u1","id":"o1"}`), &o) || o != (Order{ID: "o1", UserID: "u1"}) {
		t.Fatalf("got %+v", o)
	}
}

// Absent fields keep what they held, as encoding/json leaves them.
func TestFlatKeepsAbsentFields(t *testing.T) {
	o := Order{ID: "old", UserID: "kept"}
	if err := JSON.Unmarshal([]byte(`{"id":"new"}`), &o); err != nil || o != (Order{ID: "new", UserID: "kept"}) {
		t.Fatalf("got %+v, %v", o, err)
	}
}

// scanString finds the first quote, and a control byte or a backslash
// before it, at every position of strings longer and shorter than its
// word, beside bytes that borrow or sit next to them (0x20, 0x00, 0xff,
// '[', ']', 0xdc, '!', '#'), and calls the bytes before the quote ASCII
// exactly when none of them is 0x80 or above, wherever that byte is; what
// follows the quote, escapes and high bytes alike, changes none of it.
func TestScanStringEveryPosition(t *testing.T) {
	fills := []byte{' ', 'a', 0xff, 0x80, 0x7f, '[', ']', 0xdc, 0x5c ^ 0x01, '"' ^ 0x01, '"' + 1}
	for n := 0; n <= 19; n++ {
		for _, fill := range fills {
			s := bytes.Repeat([]byte{fill}, n)
			if q, esc, _ := scanString(s); q != -1 || esc {
				t.Fatalf("%q: quote at %d, escaped %v; want none", s, q, esc)
			}
			for i := range n {
				for _, c := range []byte{0x00, 0x01, 0x1f, '\\'} {
					s[i] = c
					if _, esc, _ := scanString(s); !esc {
						t.Fatalf("%q: missed the %q at %d", s, c, i)
					}
				}
				s[i] = '"'
				q, esc, ascii := scanString(s)
				if q != i || esc || ascii != (i == 0 || fill < 0x80) {
					t.Fatalf("%q: quote at %d, escaped %v, ASCII %v", s, q, esc, ascii)
				}
				for j := range i { // an escape before the quote, in its word or an earlier one
					s[j] = '\\'
					if _, esc, _ := scanString(s); !esc {
						t.Fatalf("%q: missed the backslash at %d before the quote at %d", s, j, i)
					}
					s[j] = fill
				}
				after := append(bytes.Clone(s), '\\', 0x01, 0xc3)
				if q2, esc2, ascii2 := scanString(after); q2 != q || esc2 || ascii2 != ascii {
					t.Fatalf("%q: what follows the quote changed it: %d %v %v", after, q2, esc2, ascii2)
				}
				if i > 0 {
					s[i-1] = 0xc3
					if _, _, ascii := scanString(s); ascii {
						t.Fatalf("%q: called ASCII with 0xc3 at %d", s, i-1)
					}
					s[i-1] = fill
				}
				s[i] = fill
			}
		}
	}
}

// OrderUserID takes the fast path where it can, and encoding/json's
// answer, errors included, where it cannot.
func TestOrderUserID(t *testing.T) {
	for _, c := range []struct {
		data, want string
		err        bool
	}{
		{`{"id":"o1","userId":"u1"}`, "u1", false},
		{`{"id":"o1","userId":"u\u0031"}`, "u1", false}, // an escape: encoding/json's
		{`{"id":"o1"}`, "", false},
		{`{"id":"o1","userId":7}`, "", true},
		{`{"id":"o1","userId":"u1"`, "", true},
	} {
		got, err := OrderUserID(JSON, []byte(c.data))
		if string(got) != c.want || (err != nil) != c.err {
			t.Errorf("OrderUserID(%s) = %q, %v; want %q, error %v", c.data, got, err, c.want, c.err)
		}
	}
	data := []byte(`{"id":"o1","userId":"u1"}`)
	if got, _ := OrderUserID(JSON, data); &got[0] != &data[21] {
		t.Error("a plain user id was copied, not sliced from the order")
	}
}

// isASCII, which lets a key's length rule out a case fold, says no for
// any byte from 0x80 up and yes for a key of only lower bytes.
func TestIsASCII(t *testing.T) {
	for _, c := range []struct {
		b    []byte
		want bool
	}{{[]byte("rowKey"), true}, {nil, true}, {[]byte{0x7f}, true}, {[]byte{'a', 0x80}, false}, {[]byte("u\u017ferId"), false}} {
		if got := isASCII(c.b); got != c.want {
			t.Errorf("isASCII(%q) = %v, want %v", c.b, got, c.want)
		}
	}
}

// validUTF8 is utf8.Valid: every lead byte, every truncation, surrogates,
// overlongs and runes past U+10FFFF among the seeds.
func FuzzValidUTF8(f *testing.F) {
	for _, s := range []string{"", "a", "좋은 상품", "ж", "€", "𝄞", "\xed\x9f\xbf", "\xed\xa0\x80",
		"\xe0\x9f\xbf", "\xe0\xa0\x80", "\xef\xbf\xbf", "\xf4\x8f\xbf\xbf", "\xf4\x90\x80\x80",
		"\xc0\x80", "\xc2\x80", "\xea\xb0", "가\xea", "가\xea\xb0", "\xea\x30\x80", "\xea\xb0\x30", "\xff", "\x80"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := validUTF8(b), utf8.Valid(b); got != want {
			t.Fatalf("validUTF8(%q) = %v, utf8.Valid %v", b, got, want)
		}
	})
}

// A comment with the legacy isEdited key is left to encoding/json,
// wherever the key is; the seed's rowKey before it is not.
func TestFlatDeclinesTheLegacyKey(t *testing.T) {
	var h CommentHead
	var got Comment
	for _, legacy := range []string{`{"orderId":"o","isEdited":true,"rowKey":"AA=="}`, `{"orderId":"o","rowKey":"AA==","isEdited":true}`} {
		if decodeHeadFast([]byte(legacy), &h) || decodeFast([]byte(legacy), &got) {
			t.Errorf("fast path took %s, with the legacy key", legacy)
		}
	}
	if !decodeHeadFast([]byte(`{"orderId":"o","edited":true,"rowKey":"AA=="}`), &h) {
		t.Error("fast path declined a comment with rowKey")
	}
}
