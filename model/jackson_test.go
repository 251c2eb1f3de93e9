package model

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// Each entity's value, byte for byte as the seed's Jackson mapper writes
// it; the reason for each choice is beside the case.
func TestJacksonGolden(t *testing.T) {
	cases := []struct {
		name string
		v    any
		want string
	}{
		// Fields in declaration order, then HBaseData's getRowKey() as
		// "rowKey": id10(id), base64.
		{"user", User{ID: "UbXeWkQaTz", Name: "Kim <VIP> & co", Nickname: "별"},
			`{"id":"UbXeWkQaTz","name":"Kim <VIP> & co","nickname":"별","rowKey":"VWJYZVdrUWFUeg=="}`},
		{"seller", Seller{ID: "UbXeWkQaTz", Name: "a/b"},
			`{"id":"UbXeWkQaTz","name":"a/b","rowKey":"VWJYZVdrUWFUeg=="}`},
		// byte[] content is base64 with padding; longs are plain digits.
		{"product", Product{ID: "PfHsNeVbRc", SellerID: "UbXeWkQaTz", Content: []byte("\x89PNG\r\n"), CreatedAt: 1795435200000, UpdatedAt: -1},
			`{"id":"PfHsNeVbRc","sellerId":"UbXeWkQaTz","content":"iVBORw0K","createdAt":1795435200000,"updatedAt":-1,"rowKey":"UGZIc05lVmJSYw=="}`},
		// A null byte[] is null, as Jackson writes a null reference.
		{"product without content", Product{ID: "PfHsNeVbRc", SellerID: "UbXeWkQaTz"},
			`{"id":"PfHsNeVbRc","sellerId":"UbXeWkQaTz","content":null,"createdAt":0,"updatedAt":0,"rowKey":"UGZIc05lVmJSYw=="}`},
		{"order", Order{ID: "OgDjYiMuQt", UserID: "UbXeWkQaTz"},
			`{"id":"OgDjYiMuQt","userId":"UbXeWkQaTz","rowKey":"T2dEallpTXVRdA=="}`},
		// isEdited's Lombok getter isEdited() is Jackson's "edited"; the
		// row key is cat(id10(orderId), id10(productId)). '<', '>', '&',
		// '/', U+2028 and Korean are written as they are; '"', '\\' and
		// control characters are escaped, short where JSON has a short
		// form, \u00XX in upper-case hex otherwise.
		{"comment", Comment{OrderID: "OgDjYiMuQt", ProductID: "PfHsNeVbRc", UserID: "UbXeWkQaTz",
			Content: "좋아요 <b>\"5/5\"</b> & \\o/\u2028\b\t\n\f\r\x01\x1f\x7f", Timestamp: 1795435200123, IsEdited: true},
			`{"orderId":"OgDjYiMuQt","productId":"PfHsNeVbRc","userId":"UbXeWkQaTz",` +
				`"content":"좋아요 <b>\"5/5\"</b> & \\o/` + "\u2028" + `\b\t\n\f\r\u0001\u001F` + "\x7f" + `",` +
				`"timestamp":1795435200123,"edited":true,"rowKey":"T2dEallpTXVRdFBmSHNOZVZiUmM="}`},
	}
	for _, c := range cases {
		got, err := JSON.Marshal(c.v)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if string(got) != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
		if p, err := JSON.Marshal(&c.v); err == nil {
			t.Errorf("%s: a pointer to an interface encoded as %s", c.name, p)
		}
	}
}

// The seed's id10 throws for an id that is not 10 characters, and Jackson
// propagates it from getRowKey(): no value is written.
func TestJacksonRowKeyRefusesBadIDs(t *testing.T) {
	_, err := JSON.Marshal(Order{ID: "short", UserID: "UbXeWkQaTz"})
	if err == nil || !strings.Contains(err.Error(), "exactly 10 chars") {
		t.Errorf("short id: %v", err)
	}
	if _, err := JSON.Marshal(struct{}{}); err == nil {
		t.Error("a non-entity was encoded")
	}
}

// Values written before "edited" (with "isEdited") still read, and the
// seed's rowKey is ignored on read.
func TestReadsBothEditedNames(t *testing.T) {
	for _, in := range []string{`{"orderId":"o","isEdited":true}`, `{"orderId":"o","edited":true,"rowKey":"AA=="}`} {
		c, err := Decode[Comment](JSON, []byte(in))
		if err != nil || !c.IsEdited || c.OrderID != "o" {
			t.Errorf("%s: %+v %v", in, c, err)
		}
	}
	c, err := Decode[Comment](JSON, []byte(`{"orderId":"o","edited":false}`))
	if err != nil || c.IsEdited {
		t.Errorf("edited false: %+v %v", c, err)
	}
}

// Any valid UTF-8 string quotes to a JSON string that decodes back to it,
// with no raw control character left in it.
func FuzzJacksonStringRoundTrips(f *testing.F) {
	for _, s := range []string{"", "plain", `a"b\c`, "\x00\x1f\b\t\n\f\r", "좋아요 <b>\u2028</b>", "\x7f end"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		q := appendJacksonString(nil, s)
		for _, c := range q {
			if c < 0x20 {
				t.Fatalf("%q: raw control byte %#x in %q", s, c, q)
			}
		}
		var back string
		if err := json.Unmarshal(q, &back); err != nil || back != s {
			t.Fatalf("%q quoted %q decodes to %q, %v", s, q, back, err)
		}
	})
}

// An encoding the harness makes per operation is sized once, and exactly:
// its buffer was never grown (a grown one has about twice the room it
// needs) and has at most the byte "edited":true saves.
func TestEncodingSizedOnce(t *testing.T) {
	for _, n := range []int{0, 1, 40, 333, 4000} {
		for _, edited := range []bool{false, true} {
			c := Comment{OrderID: "o000000001", ProductID: "p000000002", UserID: "u000000003",
				Content: strings.Repeat("좋아요 ok ", n), Timestamp: 1700000000123, IsEdited: edited}
			for _, v := range []any{c, &c, Order{ID: "o000000001", UserID: "u000000003"}} {
				b, err := JSON.Marshal(v)
				if err != nil {
					t.Fatal(err)
				}
				if room := cap(b) - len(b); room > 1 {
					t.Errorf("%T of %d bytes: %d bytes of room, want at most 1", v, len(b), room)
				}
			}
		}
	}
}

// The write path's encoders write what Marshal does, after what dst
// holds, and within the room the lengths promise.
func TestAppendJSONAgreesWithMarshal(t *testing.T) {
	for _, content := range []string{"", "좋아요 ok", "a \"quoted\"\n\\ line", strings.Repeat("x", 3000)} {
		for _, edited := range []bool{false, true} {
			c := Comment{OrderID: "o000000001", ProductID: "p000000002", UserID: "u000000003",
				Content: content, Timestamp: 1700000000123, IsEdited: edited}
			want, err := JSON.Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			dst := append(make([]byte, 0, 4+CommentJSONLen(&c)+8), "pre:"...)
			got, err := AppendJSONComment(dst, &c)
			if err != nil || string(got) != "pre:"+string(want) {
				t.Fatalf("AppendJSONComment(%q) = %q, %v; want pre:%s", content, got, err, want)
			}
			if plain := !strings.ContainsAny(content, "\"\\\n"); plain && &got[0] != &dst[:1][0] {
				t.Errorf("content %.20q: the buffer grew past CommentJSONLen", content)
			}
		}
	}
	o := Order{ID: "o000000001", UserID: "u000000003"}
	want, _ := JSON.Marshal(o)
	got, err := AppendJSONOrder(make([]byte, 0, OrderJSONLen), &o)
	if err != nil || string(got) != string(want) || cap(got) != OrderJSONLen {
		t.Fatalf("AppendJSONOrder = %q (cap %d), %v; want %s in %d bytes", got, cap(got), err, want, OrderJSONLen)
	}
	if _, err := AppendJSONComment(nil, &Comment{OrderID: "short", ProductID: "p000000002"}); err == nil {
		t.Error("a comment with a short order id was encoded")
	}
	if _, err := AppendJSONOrder(nil, &Order{ID: "short"}); err == nil {
		t.Error("an order with a short id was encoded")
	}
}

// plainPrefix stops at the first byte that needs an escape wherever it
// is, beside bytes that borrow in its word-at-a-time test (0x00, 0x20,
// 0x80, 0xff) and after escapes it must look past.
func TestPlainPrefixEveryPosition(t *testing.T) {
	ref := func(s string) int {
		for i := 0; i < len(s); i++ {
			if c := s[i]; c < 0x20 || c == '"' || c == '\\' {
				return i
			}
		}
		return len(s)
	}
	fills := []byte{'a', 0x20, 0x21, 0x7f, 0x80, 0xa0, 0xff, '#', '[', ']'}
	stops := []byte{0, 0x1f, '\n', '"', '\\'}
	for n := 0; n <= 24; n++ {
		for _, fill := range fills {
			base := strings.Repeat(string([]byte{fill}), n)
			if got := plainPrefix(base); got != n {
				t.Fatalf("%q: plainPrefix %d, want %d", base, got, n)
			}
			for at := range n {
				for _, stop := range stops {
					b := []byte(base)
					b[at] = stop
					if at+1 < n {
						b[at+1] = stops[(at+int(stop))%len(stops)] // another after it
					}
					if got, want := plainPrefix(string(b)), ref(string(b)); got != want {
						t.Fatalf("%q: plainPrefix %d, want %d", b, got, want)
					}
				}
			}
		}
	}
}
