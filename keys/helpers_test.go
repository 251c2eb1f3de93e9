package keys

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

var allLayouts = []Layout{Seed, Unique}

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x5eed)) }

// korean is content whose byte length (3 per syllable) differs from its rune
// count, the case the revLen field must get right.
var korean = strings.Repeat("배송이 빠르고 품질이 좋아요. ", 400)

// genTs favours the edges: 0, the largest ts, and realistic milliseconds.
func genTs(r *rand.Rand) int64 {
	switch r.IntN(5) {
	case 0:
		return 0
	case 1:
		return math.MaxInt64
	case 2:
		return 1_700_000_000_000 + r.Int64N(1<<40)
	}
	return r.Int64()
}

func genLen(r *rand.Rand) int {
	switch r.IntN(5) {
	case 0:
		return 0
	case 1:
		return math.MaxInt32
	case 2:
		return len(korean[:r.IntN(len(korean))])
	}
	return r.IntN(math.MaxInt32 + 1)
}

func genRank(r *rand.Rand) int {
	switch r.IntN(3) {
	case 0:
		return 1 + r.IntN(MaxRank)
	case 1:
		return MaxEncodableRank
	}
	return 1 + r.IntN(MaxEncodableRank)
}

// genKey makes a random valid Key of table for layout l, with the fields the
// layout's decoder fills and no others.
func genKey(r *rand.Rand, l Layout, table string) Key {
	g := NewRandom(r)
	unique := l.Name() == Unique.Name()
	k := Key{Table: table}
	switch table {
	case User, Seller, Product, Order:
		k.ID = g.Next()
	case Comment:
		k.OrderID, k.ProductID = g.Next(), g.Next()
	case UserComment:
		k.UserID, k.Timestamp = g.Next(), genTs(r)
		if unique {
			k.OrderID, k.ProductID = g.Next(), g.Next()
		}
	case ProductComment:
		k.ProductID, k.Sep, k.Timestamp, k.ContentLen = g.Next(), CommentSep, genTs(r), genLen(r)
		if unique {
			k.OrderID = g.Next()
		}
	case ProductRank:
		k.ProductID, k.Sep, k.Rank = g.Next(), RankSep, genRank(r)
	}
	return k
}

func wantLen(l Layout, table string) int {
	unique := l.Name() == Unique.Name()
	switch table {
	case Comment:
		return 20
	case UserComment:
		if unique {
			return 38
		}
		return 18
	case ProductComment:
		if unique {
			return 33
		}
		return 23
	case ProductRank:
		return 13
	}
	return 10
}

// mustOf returns a checker for builder results; Go cannot pass a builder's
// two results after t, hence the closure.
func mustOf(t testing.TB) func([]byte, error) []byte {
	return func(b []byte, err error) []byte {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
}
