package keys

import (
	"bytes"
	"fmt"
	"sort"
)

// MaxRegions bounds SplitPoints and HexSplitPoints: far more regions than a
// test cluster has, and small enough that the arithmetic cannot overflow.
const MaxRegions = 65536

// spread is how many prefixes each region gets at least, so region sizes
// differ by under 0.1%.
const spread = 1000

// SplitPoints returns the n-1 split keys that cut the ids of scheme s, drawn
// uniformly, into n ranges of equal probability, for pre-splitting a table so
// a run does not start with every write on one region. They suit every table
// in the schema because every row key starts with a uniformly random id (the
// orderId for comments, the userId or productId for the indexes). An id's
// first k symbols are read as a base-len(alphabet) number, with k the least
// that gives every region at least 1000 prefixes (at most IDLen), and the
// split keys are those k-symbol prefixes: an id equal to a prefix sorts after
// it, so each id falls in exactly one range. n=1 gives no split keys.
func SplitPoints(s Scheme, n int) ([][]byte, error) {
	if n < 1 || n > MaxRegions {
		return nil, fmt.Errorf("split into %d regions: want 1..%d", n, MaxRegions)
	}
	if err := s.check(); err != nil {
		return nil, err
	}
	k, space := prefixSpace(uint64(len(s.Alphabet)), uint64(n))
	if space < uint64(n) {
		return nil, fmt.Errorf("split %q ids into %d regions: only %d distinct %d-symbol prefixes",
			s.Name, n, space, k)
	}
	splits := make([][]byte, n-1)
	for i := range splits {
		v := uint64(i+1) * space / uint64(n)
		splits[i] = digits(v, k, s.Alphabet)
	}
	return splits, nil
}

// prefixSpace returns the least k (capped at IDLen) with base^k >= spread·n,
// and base^k. base <= 256 and n <= MaxRegions keep base^k below 2^35.
func prefixSpace(base, n uint64) (k int, space uint64) {
	space = 1
	for k < IDLen && space < spread*n {
		space *= base
		k++
	}
	return k, space
}

// digits writes v as k symbols of alphabet, most significant first.
func digits(v uint64, k int, alphabet string) []byte {
	b := make([]byte, k)
	base := uint64(len(alphabet))
	for i := k - 1; i >= 0; i-- {
		b[i] = alphabet[v%base]
		v /= base
	}
	return b
}

// HexSplitPoints is the naive splitter, like HBase's HexStringSplit: it cuts
// "00000000".."ffffffff" (lowercase, as HBase writes them) into n even
// ranges, assuming hex keys. It is kept to show what it does to letter ids:
// every id sorts after "9...", so the digit-led regions stay empty and two
// regions take nine tenths of the rows. n < 2 gives no split keys; it panics
// for n > MaxRegions, a programming error since n is a constant in practice.
func HexSplitPoints(n int) [][]byte {
	if n > MaxRegions {
		panic(fmt.Sprintf("keys.HexSplitPoints(%d): want at most %d regions", n, MaxRegions))
	}
	if n < 2 {
		return nil
	}
	splits := make([][]byte, n-1)
	for i := range splits {
		v := uint64(i+1) << 32 / uint64(n)
		splits[i] = fmt.Appendf(nil, "%08x", v)
	}
	return splits
}

// RegionOf returns which of the len(splits)+1 regions key falls in, as HBase
// would route it (region i holds splits[i-1] <= key < splits[i]). The
// harness uses it to count rows per region without a cluster.
func RegionOf(splits [][]byte, key []byte) int {
	return sort.Search(len(splits), func(i int) bool { return bytes.Compare(splits[i], key) > 0 })
}
