package keys

import "testing"

func BenchmarkProductCommentKey(b *testing.B) {
	ck := mustOf(b)(CommentKey("OoOoOoOoOo", "PpPpPpPpPp"))
	for _, l := range allLayouts {
		b.Run(l.Name(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := l.ProductCommentKey("PpPpPpPpPp", 1_700_000_000_000, 42, ck); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkUserCommentKey(b *testing.B) {
	ck := mustOf(b)(CommentKey("OoOoOoOoOo", "PpPpPpPpPp"))
	for _, l := range allLayouts {
		b.Run(l.Name(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := l.UserCommentKey("UuUuUuUuUu", 1_700_000_000_000, ck); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDecodeProductComment(b *testing.B) {
	ck := mustOf(b)(CommentKey("OoOoOoOoOo", "PpPpPpPpPp"))
	for _, l := range allLayouts {
		key := mustOf(b)(l.ProductCommentKey("PpPpPpPpPp", 1_700_000_000_000, 42, ck))
		b.Run(l.Name(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := l.Decode(ProductComment, key); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
