package keys

import (
	"testing"
	"time"
)

// benchInput is one comment as a writer has it.
type benchInput struct {
	user, prod, order string
	ts                int64
	n                 int
	ck                []byte // the comment's row key, which the hand-written builders take
}

func benchInputs(b *testing.B, n int) []benchInput {
	r := newRand(40)
	g := NewRandom(r)
	out := make([]benchInput, n)
	for i := range out {
		in := benchInput{user: g.Next(), prod: g.Next(), order: g.Next(), ts: 1_700_000_000_000 + int64(i), n: r.IntN(2000)}
		in.ck = mustOf(b)(CommentKey(in.order, in.prod))
		out[i] = in
	}
	return out
}

var benchSink []byte

// BenchmarkSeedEncode times, in one run, the seed design's encoding of a
// comment's product-comment and user-comment keys against the hand-written
// seed builders on the same inputs, and reports the ratio: the design path
// is meant to cost at most 1.2x. Both loops run in every iteration, taking
// turns going first, so a ratio is never of two runs under different load.
func BenchmarkSeedEncode(b *testing.B) {
	inputs := benchInputs(b, 256)
	designLoop := func() {
		for i := range inputs {
			in := &inputs[i]
			pk, err := Seed.Encode(Key{Table: ProductComment, ProductID: in.prod, OrderID: in.order, Timestamp: in.ts, ContentLen: in.n})
			if err != nil {
				b.Fatal(err)
			}
			uk, err := Seed.Encode(Key{Table: UserComment, UserID: in.user, OrderID: in.order, ProductID: in.prod, Timestamp: in.ts})
			if err != nil {
				b.Fatal(err)
			}
			benchSink, benchSink = pk, uk
		}
	}
	handLoop := func() {
		for i := range inputs {
			in := &inputs[i]
			pk, err := handSeed.ProductCommentKey(in.prod, in.ts, in.n, in.ck)
			if err != nil {
				b.Fatal(err)
			}
			uk, err := handSeed.UserCommentKey(in.user, in.ts, in.ck)
			if err != nil {
				b.Fatal(err)
			}
			benchSink, benchSink = pk, uk
		}
	}
	var design, hand time.Duration
	odd := false
	b.ReportAllocs()
	for b.Loop() {
		odd = !odd
		t0 := time.Now()
		if odd {
			designLoop()
		} else {
			handLoop()
		}
		t1 := time.Now()
		if odd {
			handLoop()
		} else {
			designLoop()
		}
		t2 := time.Now()
		if odd {
			design, hand = design+t1.Sub(t0), hand+t2.Sub(t1)
		} else {
			hand, design = hand+t1.Sub(t0), design+t2.Sub(t1)
		}
	}
	keys := float64(b.N) * float64(2*len(inputs))
	b.ReportMetric(float64(design.Nanoseconds())/keys, "design-ns/key")
	b.ReportMetric(float64(hand.Nanoseconds())/keys, "hand-ns/key")
	b.ReportMetric(float64(design)/float64(hand), "design/hand")
}

func BenchmarkProductCommentKey(b *testing.B) {
	ck := mustOf(b)(CommentKey("OoOoOoOoOo", "PpPpPpPpPp"))
	for _, l := range handLayouts {
		b.Run("hand-"+l.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := l.ProductCommentKey("PpPpPpPpPp", 1_700_000_000_000, 42, ck); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	k := Key{Table: ProductComment, ProductID: "PpPpPpPpPp", OrderID: "OoOoOoOoOo", Timestamp: 1_700_000_000_000, ContentLen: 42}
	for _, d := range builtins(b) {
		b.Run(d.Name(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := d.Encode(k); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkUserCommentKey(b *testing.B) {
	ck := mustOf(b)(CommentKey("OoOoOoOoOo", "PpPpPpPpPp"))
	for _, l := range handLayouts {
		b.Run("hand-"+l.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := l.UserCommentKey("UuUuUuUuUu", 1_700_000_000_000, ck); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	k := Key{Table: UserComment, UserID: "UuUuUuUuUu", ProductID: "PpPpPpPpPp", OrderID: "OoOoOoOoOo", Timestamp: 1_700_000_000_000}
	for _, d := range builtins(b) {
		b.Run(d.Name(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := d.Encode(k); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDecodeProductComment(b *testing.B) {
	k := Key{Table: ProductComment, ProductID: "PpPpPpPpPp", OrderID: "OoOoOoOoOo", Timestamp: 1_700_000_000_000, ContentLen: 42}
	for i, l := range handLayouts {
		key := enc(b, allDesigns[i], k)
		b.Run("hand-"+l.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := l.Decode(ProductComment, key); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	for _, d := range builtins(b) {
		key := enc(b, d, k)
		b.Run(d.Name(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := d.Decode(ProductComment, key); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
