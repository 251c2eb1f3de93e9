package model

import (
	"reflect"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	cases := []any{
		&User{ID: "AbCdEfGhIj", Name: "n", Nickname: "nick"},
		&Seller{ID: "AbCdEfGhIj", Name: "s"},
		&Product{ID: "AbCdEfGhIj", SellerID: "KlMnOpQrSt", Content: []byte("\x00img"), CreatedAt: 1, UpdatedAt: 2},
		&Order{ID: "AbCdEfGhIj", UserID: "KlMnOpQrSt"},
		&Comment{OrderID: "OgDjYiMuQt", ProductID: "PfHsNeVbRc", UserID: "UbXeWkQaTz", Content: "한국어", Timestamp: 9, IsEdited: true},
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
