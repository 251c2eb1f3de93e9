package embedded

import (
	"bytes"
	"math/rand"
	"slices"
	"testing"
)

// TestKeyOrder checks the property the whole layout rests on: encoded cell
// keys sort exactly as (row, qualifier, timestamp descending), including
// rows and qualifiers holding 0x00 and 0xFF and prefixes of one another.
func TestKeyOrder(t *testing.T) {
	alphabet := []byte{0x00, 0x01, 0x02, 'a', 0xfe, 0xff}
	randBytes := func(r *rand.Rand, min int) []byte {
		b := make([]byte, min+r.Intn(4))
		for i := range b {
			b[i] = alphabet[r.Intn(len(alphabet))]
		}
		return b
	}
	type cell struct {
		row, qual []byte
		ts        int64
	}
	r := rand.New(rand.NewSource(1))
	var cells []cell
	for range 2000 {
		cells = append(cells, cell{randBytes(r, 1), randBytes(r, 0), int64(r.Intn(3))})
	}
	logical := func(a, b cell) int {
		if c := bytes.Compare(a.row, b.row); c != 0 {
			return c
		}
		if c := bytes.Compare(a.qual, b.qual); c != 0 {
			return c
		}
		return -cmpInt(a.ts, b.ts)
	}
	encoded := func(a, b cell) int {
		return bytes.Compare(appendCellKey(nil, 7, a.row, 0, a.qual, a.ts), appendCellKey(nil, 7, b.row, 0, b.qual, b.ts))
	}
	byLogical := slices.Clone(cells)
	slices.SortStableFunc(byLogical, logical)
	byEncoded := slices.Clone(cells)
	slices.SortStableFunc(byEncoded, encoded)
	for i := range cells {
		if logical(byLogical[i], byEncoded[i]) != 0 {
			t.Fatalf("order differs at %d: logical %q/%q, encoded %q/%q", i,
				byLogical[i].row, byLogical[i].qual, byEncoded[i].row, byEncoded[i].qual)
		}
	}

	// Round trip: the row and qualifier come back out of the key.
	for _, c := range cells[:200] {
		k := appendCellKey(nil, 7, c.row, 0, c.qual, c.ts)
		pl, err := rowPrefixLen(k)
		if err != nil {
			t.Fatal(err)
		}
		if got := unescape(nil, k[tablePrefixLen:pl]); !bytes.Equal(got, c.row) {
			t.Fatalf("row %q decoded as %q", c.row, got)
		}
		en, err := parseEntry(k[pl:])
		if err != nil {
			t.Fatal(err)
		}
		if got := unescape(nil, en.qualifier); !bytes.Equal(got, c.qual) || en.ts != c.ts || en.kind != kindPut {
			t.Fatalf("entry %q/%d decoded as %q/%d", c.qual, c.ts, got, en.ts)
		}
		// Row bounds bracket every key of the row.
		if bytes.Compare(appendRowPrefix(nil, 7, c.row), k) > 0 || bytes.Compare(k, rowPrefixEnd(7, c.row)) >= 0 {
			t.Fatalf("row bounds do not bracket key of %q", c.row)
		}
	}

	// A row's delete marker sorts before its cells, and tables do not mix.
	m := appendMarkerKey(nil, 7, []byte("r"), 0, 5)
	if bytes.Compare(m, appendCellKey(nil, 7, []byte("r"), 0, nil, 9)) >= 0 {
		t.Fatal("marker does not sort before the row's cells")
	}
	if bytes.Compare(appendCellKey(nil, 7, []byte{0xff, 0xff}, 0, nil, 0), tableEnd(7)) >= 0 {
		t.Fatal("a key escaped its table's range")
	}
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Pebble's contract for a Split (pebble's Comparer docs): a key's prefix
// sorts before the key, prefixes order keys before suffixes do, and two
// keys of one prefix order by their suffixes. Checked over data keys whose
// rows hold the escape bytes, engine records, and bounds that are no data
// key at all.
func TestSplitRowIsPebbleSplit(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	var ks [][]byte
	for range 400 {
		ks = append(ks, randomSplitKey(r))
	}
	for _, a := range ks {
		checkSplit(t, a, nil)
		for _, b := range ks {
			checkSplit(t, a, b)
		}
	}
}

func FuzzSplitRow(f *testing.F) {
	f.Add([]byte("row"), []byte("q"), []byte("row2"), int64(5))
	f.Add([]byte{0, 1, 0xff}, []byte{0}, []byte{0}, int64(0))
	f.Fuzz(func(t *testing.T, rowA, qual, rowB []byte, ts int64) {
		if len(rowA) == 0 || len(rowB) == 0 || ts < 0 {
			return
		}
		a := appendCellKey(nil, 3, rowA, 0, qual, ts)
		if got, want := splitRow(a), len(appendRowPrefix(nil, 3, rowA)); got != want {
			t.Fatalf("splitRow(%x) = %d, want the row prefix's %d", a, got, want)
		}
		for _, b := range [][]byte{
			appendCellKey(nil, 3, rowB, 1, qual, ts),
			appendMarkerKey(nil, 3, rowB, 0, ts),
			rowPrefixEnd(3, rowB),
			tableEnd(3),
		} {
			checkSplit(t, a, b)
			checkSplit(t, b, a)
		}
	})
}

// checkSplit checks Pebble's Split properties on a, and on the pair a, b
// when b is not nil.
func checkSplit(t *testing.T, a, b []byte) {
	t.Helper()
	n := splitRow(a)
	if n < 0 || n > len(a) {
		t.Fatalf("splitRow(%x) = %d, outside the key", a, n)
	}
	if n < len(a) && bytes.Compare(a[:n], a) >= 0 {
		t.Fatalf("prefix of %x does not sort before it", a)
	}
	if b == nil {
		return
	}
	pa, pb := a[:n], b[:splitRow(b)]
	cmp, pcmp := bytes.Compare(a, b), bytes.Compare(pa, pb)
	switch {
	case cmp <= 0 && pcmp > 0:
		t.Fatalf("%x <= %x but its prefix %x sorts after %x", a, b, pa, pb)
	case pcmp < 0 && cmp >= 0:
		t.Fatalf("prefix %x < %x but %x >= %x", pa, pb, a, b)
	case pcmp == 0 && cmp != bytes.Compare(a[len(pa):], b[len(pb):]):
		t.Fatalf("%x and %x share a prefix but do not order by their suffixes", a, b)
	}
}

// randomSplitKey is a data key (cell or marker) of a small random row over
// the escape bytes, a bound, or an engine record.
func randomSplitKey(r *rand.Rand) []byte {
	alphabet := []byte{0x00, 0x01, 0x02, 0xfe, 0xff, 'a'}
	row := make([]byte, 1+r.Intn(3))
	for i := range row {
		row[i] = alphabet[r.Intn(len(alphabet))]
	}
	table := uint64(1 + r.Intn(2))
	switch r.Intn(6) {
	case 0:
		return appendMarkerKey(nil, table, row, byte(r.Intn(2)), r.Int63n(4))
	case 1:
		return rowPrefixEnd(table, row)
	case 2:
		return appendRowPrefix(nil, table, row)
	case 3:
		return append([]byte{spaceTable}, row...)
	default:
		return appendCellKey(nil, table, row, byte(r.Intn(2)), row[:r.Intn(len(row)+1)], r.Int63n(4))
	}
}
