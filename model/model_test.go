package model

import (
	"encoding/json"
	"reflect"
	"testing"
)

// The wire names are the seed's field names; a rename would make data
// written by the seed's service unreadable.
func TestJSONFieldNames(t *testing.T) {
	c := Comment{OrderID: "OOOOOOOOOO", ProductID: "PPPPPPPPPP", UserID: "UUUUUUUUUU",
		Content: "좋아요 good", Timestamp: 1763697906123, IsEdited: true}
	b, err := JSON.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	want := []string{"orderId", "productId", "userId", "content", "timestamp", "isEdited"}
	if len(m) != len(want) {
		t.Fatalf("fields %v, want %v", m, want)
	}
	for _, k := range want {
		if _, ok := m[k]; !ok {
			t.Errorf("missing field %q in %s", k, b)
		}
	}
	p, _ := JSON.Marshal(Product{ID: "x", SellerID: "s", Content: []byte{0, 1, 2}})
	if got := string(p); got != `{"id":"x","sellerId":"s","content":"AAEC","createdAt":0,"updatedAt":0}` {
		t.Errorf("product JSON = %s", got)
	}
}

func TestRoundTrip(t *testing.T) {
	cases := []any{
		&User{ID: "AbCdEfGhIj", Name: "n", Nickname: "nick"},
		&Seller{ID: "AbCdEfGhIj", Name: "s"},
		&Product{ID: "AbCdEfGhIj", SellerID: "KlMnOpQrSt", Content: []byte("\x00img"), CreatedAt: 1, UpdatedAt: 2},
		&Order{ID: "AbCdEfGhIj", UserID: "KlMnOpQrSt"},
		&Comment{OrderID: "a", ProductID: "b", UserID: "c", Content: "한국어", Timestamp: 9, IsEdited: true},
	}
	for _, v := range cases {
		b, err := JSON.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		out := reflect.New(reflect.TypeOf(v).Elem()).Interface()
		if err := JSON.Unmarshal(b, out); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(v, out) {
			t.Errorf("round trip %T: got %+v want %+v", v, out, v)
		}
	}
}

func TestDecodeError(t *testing.T) {
	if _, err := Decode[Comment](JSON, []byte("{not json")); err == nil {
		t.Fatal("want error for malformed JSON")
	}
	c, err := Decode[Comment](JSON, []byte(`{"orderId":"o","content":"가나"}`))
	if err != nil || c.OrderID != "o" || c.ContentLen() != 6 {
		t.Fatalf("got %+v, %v; want orderId o and 6 content bytes", c, err)
	}
}
