package keys

import (
	"slices"
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
// is meant to cost at most 1.2x. Every round runs both loops, taking turns
// going first, and the ratio is of the median rounds, so a round slowed by
// another process or a GC cycle does not decide it.
func BenchmarkSeedEncode(b *testing.B) {
	inputs := benchInputs(b, 64)
	// As the write path does: the tables resolved once, one Key for every
	// comment's keys, its fields set as the builders' arguments are.
	var k Key
	pc, uc := Seed.Table(ProductComment), Seed.Table(UserComment)
	designLoop := func() {
		for i := range inputs {
			in := &inputs[i]
			k.UserID, k.ProductID, k.OrderID, k.Timestamp, k.ContentLen = in.user, in.prod, in.order, in.ts, in.n
			pk, err := pc.AppendKey(nil, &k)
			if err != nil {
				b.Fatal(err)
			}
			uk, err := uc.AppendKey(nil, &k)
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
	const maxRounds = 1 << 15
	design, hand := make([]time.Duration, 0, maxRounds), make([]time.Duration, 0, maxRounds)
	handFirst := false
	b.ReportAllocs()
	for b.Loop() {
		first, second := designLoop, handLoop
		if handFirst {
			first, second = handLoop, designLoop
		}
		t0 := time.Now()
		first()
		t1 := time.Now()
		second()
		t2 := time.Now()
		d, h := t1.Sub(t0), t2.Sub(t1)
		if handFirst {
			d, h = h, d
		}
		if len(design) < maxRounds {
			design, hand = append(design, d), append(hand, h)
		}
		handFirst = !handFirst
	}
	slices.Sort(design)
	slices.Sort(hand)
	md, mh := design[len(design)/2], hand[len(hand)/2]
	perRound := float64(2 * len(inputs))
	b.ReportMetric(float64(md.Nanoseconds())/perRound, "design-ns/key")
	b.ReportMetric(float64(mh.Nanoseconds())/perRound, "hand-ns/key")
	b.ReportMetric(float64(md)/float64(mh), "design/hand")
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
