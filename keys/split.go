package keys

import (
	"fmt"
)

// MaxRegions bounds SplitPoints and HexSplitPoints: far more regions than a
// test cluster has, and small enough that the arithmetic cannot overflow.
const MaxRegions = 65536

// spread is how many prefixes each region gets at least, so region sizes
// differ by under 0.1%.
const spread = 1000

// SplitPoints returns the n-1 split keys that cut the ids of scheme s, drawn
// uniformly, into n ranges of equal probability. It is the cut a design's
// table gets when its key leads with an id (see TableKey.SplitPoints).
func SplitPoints(s Scheme, n int) ([][]byte, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	return cut(idPositions(s, nil), n, fmt.Sprintf("%q ids", s.Name))
}

// SplitSpec is how a table is pre-split: into the run's region count or a
// given count, each cut evenly over the space of the key's leading parts;
// one region per bucket of the leading salt; or at explicit keys.
type SplitSpec struct {
	Regions  bool // the run's --regions
	Count    int
	Buckets  bool
	Explicit [][]byte
}

// SplitPoints returns the table's split keys, row keys cut over the row
// key's parts. regions is the run's region count, used when the design
// says "regions"; scheme is the run's id scheme, whose alphabet an id
// part's bytes are drawn from. A table kept in another's rows is split as
// that table is: ask it.
func (t *TableKey) SplitPoints(s Scheme, regions int) ([][]byte, error) {
	sp := t.Splits
	t = t.rowKey
	switch {
	case sp.Explicit != nil:
		return sp.Explicit, nil
	case sp.Buckets:
		return t.bucketSplits(), nil
	}
	n := sp.Count
	if sp.Regions {
		n = regions
	}
	if err := s.check(); err != nil {
		return nil, err
	}
	return cut(t.positions(s), n, t.Table+" keys")
}

// bucketSplits starts a region at every bucket of the leading salt.
func (t *TableKey) bucketSplits() [][]byte {
	var pre []byte
	for _, p := range t.Parts {
		if p.Kind == PartLiteral {
			pre = append(pre, p.Literal...)
			continue
		}
		out := make([][]byte, 0, p.Buckets-1)
		for b := 1; b < p.Buckets; b++ {
			out = append(out, appendBucket(append([]byte(nil), pre...), b, p.Width))
		}
		return out
	}
	return nil
}

// position is one place in a key and the values it takes, ascending.
type position struct {
	n     int                // how many values
	value func(i int) []byte // the i-th value's bytes
}

func idPositions(s Scheme, out []position) []position {
	a := s.Alphabet
	for range IDLen {
		out = append(out, position{n: len(a), value: func(i int) []byte { return []byte{a[i]} }})
	}
	return out
}

// positions lists the key's places and their values: an id's bytes are
// the scheme's alphabet, a salt is one place of N buckets, a literal one
// place of one value, anything else any byte.
func (t *TableKey) positions(s Scheme) []position {
	var out []position
	for _, p := range t.Parts {
		switch p.Kind {
		case PartField, PartReverse:
			out = idPositions(s, out)
		case PartLiteral:
			for _, c := range p.Literal {
				out = append(out, position{n: 1, value: func(int) []byte { return []byte{c} }})
			}
		case PartSalt:
			w := p.Width
			out = append(out, position{n: p.Buckets, value: func(i int) []byte { return appendBucket(nil, i, w) }})
		default:
			for range p.Width {
				out = append(out, position{n: 256, value: func(i int) []byte { return []byte{byte(i)} }})
			}
		}
	}
	return out
}

// cut returns the n-1 keys that cut the space of the leading positions
// into n even ranges. It takes the least leading positions whose values
// number at least 1000·n, so regions differ by under 0.1%, and writes each
// cut as those positions' values: a key equal to a cut sorts after it, so
// every key falls in exactly one range.
func cut(ps []position, n int, what string) ([][]byte, error) {
	if n < 1 || n > MaxRegions {
		return nil, fmt.Errorf("split into %d regions: want 1..%d", n, MaxRegions)
	}
	k, space := 0, uint64(1)
	for k < len(ps) && space < spread*uint64(n) {
		space *= uint64(ps[k].n)
		k++
	}
	if space < uint64(n) {
		return nil, fmt.Errorf("split %s into %d regions: only %d distinct prefixes", what, n, space)
	}
	splits := make([][]byte, n-1)
	for i := range splits {
		splits[i] = mixedRadix(uint64(i+1)*space/uint64(n), ps[:k])
	}
	return splits, nil
}

// mixedRadix writes v as one value per position, most significant first.
func mixedRadix(v uint64, ps []position) []byte {
	digits := make([]int, len(ps))
	for i := len(ps) - 1; i >= 0; i-- {
		digits[i] = int(v % uint64(ps[i].n))
		v /= uint64(ps[i].n)
	}
	var out []byte
	for i, p := range ps {
		out = append(out, p.value(digits[i])...)
	}
	return out
}
