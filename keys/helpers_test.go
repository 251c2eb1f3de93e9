package keys

import (
	"bytes"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
)

// allDesigns are the designs with a hand-written reference (handLayouts, in
// the same order).
var allDesigns = []*Design{Seed, Unique}

// builtins parses every built-in design; a built-in that fails to parse
// fails every test that uses it.
func builtins(t testing.TB) []*Design {
	t.Helper()
	var out []*Design
	for _, name := range BuiltinNames() {
		d, err := Builtin(name)
		if err != nil {
			t.Fatalf("built-in %s: %v", name, err)
		}
		out = append(out, d)
	}
	return out
}

func builtin(t testing.TB, name string) *Design {
	t.Helper()
	d, err := Builtin(name)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

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

// genKey makes a random valid Key of table for design d with exactly the
// fields its key holds, as Decode returns them: salts and hashes over fields
// the key lacks get random Opaque bytes (a salt's a bucket in range).
func genKey(r *rand.Rand, d *Design, table string) Key {
	g := NewRandom(r)
	t := d.Table(table)
	k := Key{Table: table}
	for _, p := range t.Parts {
		switch p.Kind {
		case PartField, PartReverse:
			k.setField(p.Field, g.Next())
		case PartTs, PartRevTs:
			k.Timestamp = genTs(r)
		case PartLen, PartRevLen:
			k.ContentLen = genLen(r)
		case PartRank:
			k.Rank = genRank(r)
		}
	}
	var opaque []byte
	for _, p := range t.Parts {
		if (p.Kind != PartSalt && p.Kind != PartHash) || k.has(p.inputs()) {
			continue
		}
		if p.Kind == PartSalt {
			opaque = appendBucket(opaque, r.IntN(p.Buckets), p.Width)
			continue
		}
		for range p.Width {
			opaque = append(opaque, byte(r.IntN(256)))
		}
	}
	k.Opaque = string(opaque)
	return k
}

// fullKey is a Key of table with every id and value set, as a writer has
// them: the design keeps what its key holds.
func fullKey(r *rand.Rand, table string) Key {
	g := NewRandom(r)
	return Key{Table: table, ID: g.Next(), UserID: g.Next(), ProductID: g.Next(), OrderID: g.Next(),
		Timestamp: genTs(r), ContentLen: genLen(r), Rank: genRank(r)}
}

// wantLen is the hand-written layout's key length for table.
func (l handLayout) wantLen(table string) int {
	switch table {
	case Comment:
		return CommentKeyLen
	case UserComment:
		return l.userCommentLen()
	case ProductComment:
		return l.productCommentLen()
	case ProductRank:
		return rankKeyLen
	}
	return IDLen
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

// enc encodes a key that must be valid.
func enc(t testing.TB, d *Design, k Key) []byte {
	t.Helper()
	b, err := d.Encode(k)
	if err != nil {
		t.Fatalf("%s: encode %v: %v", d.Name(), k, err)
	}
	return b
}

func listingOf(t testing.TB, d *Design, table, owner string) Listing {
	t.Helper()
	l, err := d.Listing(table, owner)
	if err != nil {
		t.Fatalf("%s: listing %s of %s: %v", d.Name(), table, owner, err)
	}
	return l
}

// RegionOf returns which of the len(splits)+1 regions key falls in, as HBase
// would route it (region i holds splits[i-1] <= key < splits[i]). The
// harness uses it to count rows per region without a cluster.
func RegionOf(splits [][]byte, key []byte) int {
	return sort.Search(len(splits), func(i int) bool { return bytes.Compare(splits[i], key) > 0 })
}

// NewRandomIn is NewRandom over another scheme's alphabet, e.g. uniformly
// random base-36 ids, to check that SplitPoints fits any alphabet.
func NewRandomIn(r *rand.Rand, s Scheme) (IDGen, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	return &random{r: r, s: s}, nil
}
