package model

import "testing"

func BenchmarkDecodeHead(b *testing.B) {
	c := Comment{OrderID: "OfKnzGZGyD", ProductID: "nfizFKUaLq", UserID: "YSIatfdMRc",
		Content: "배송이 빠르고 포장도 꼼꼼해요 great value 다음에도 구매할게요 fast shipping 추천합니다 정말 만족", Timestamp: 1764201600123}
	data, err := AppendJSONComment(nil, &c)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := DecodeHead(JSON, data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkOrderUserID(b *testing.B) {
	data, err := AppendJSONOrder(nil, &Order{ID: "OfKnzGZGyD", UserID: "YSIatfdMRc"})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := OrderUserID(JSON, data); err != nil {
			b.Fatal(err)
		}
	}
}

// A listing page's decode: the whole comment, its text copied.
func BenchmarkDecodeComment(b *testing.B) {
	c := Comment{OrderID: "OfKnzGZGyD", ProductID: "nfizFKUaLq", UserID: "YSIatfdMRc",
		Content: "배송이 빠르고 포장도 꼼꼼해요 great value 다음에도 구매할게요 fast shipping 추천합니다 정말 만족", Timestamp: 1764201600123}
	data, err := AppendJSONComment(nil, &c)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var got Comment
		if err := JSON.Unmarshal(data, &got); err != nil {
			b.Fatal(err)
		}
	}
}
