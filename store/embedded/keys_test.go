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
