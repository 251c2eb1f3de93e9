package model

import "testing"

// The decodes a check and a listing make, on values the harness writes.

// harnessComment is a comment as the harness writes it: Korean and
// English words.
func harnessComment(b *testing.B) []byte {
	c := Comment{OrderID: "OfKnzGZGyD", ProductID: "nfizFKUaLq", UserID: "YSIatfdMRc",
		Content: "배송이 빠르고 포장도 꼼꼼해요 great value 다음에도 구매할게요 fast shipping 추천합니다 정말 만족", Timestamp: 1764201600123}
	data, err := AppendJSONComment(nil, &c)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// benchDecode times decode on data.
func benchDecode(b *testing.B, data []byte, decode func([]byte) error) {
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if err := decode(data); err != nil {
			b.Fatal(err)
		}
	}
}

// A check's decode of a comment: its head, the text measured.
func BenchmarkDecodeHead(b *testing.B) {
	benchDecode(b, harnessComment(b), func(d []byte) error { _, err := DecodeHead(JSON, d); return err })
}

// A check's decode of an order: its user.
func BenchmarkOrderUserID(b *testing.B) {
	data, err := AppendJSONOrder(nil, &Order{ID: "OfKnzGZGyD", UserID: "YSIatfdMRc"})
	if err != nil {
		b.Fatal(err)
	}
	benchDecode(b, data, func(d []byte) error { _, err := OrderUserID(JSON, d); return err })
}

// A listing page's decode: the whole comment, its text copied.
func BenchmarkDecodeComment(b *testing.B) {
	benchDecode(b, harnessComment(b), func(d []byte) error { var c Comment; return JSON.Unmarshal(d, &c) })
}
