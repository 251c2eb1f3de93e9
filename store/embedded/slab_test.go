package embedded

import (
	"bytes"
	"fmt"
	"testing"

	"commentbench/store"
)

// A scan cuts its rows from shared blocks: each row must still be the
// caller's alone. Writing over a row, or appending to its key, value or
// cells, must leave every other row as read, whatever the rows' sizes
// (some larger than a block).
func TestScanRowsAreIndependent(t *testing.T) {
	e := openMem(t, Options{})
	mustCreate(t, e, "t")
	want := map[string]string{}
	for i := range 400 {
		row := fmt.Sprintf("r%04d", i)
		val := bytes.Repeat([]byte{byte('a' + i%26)}, 1+(i*37)%900)
		if i%97 == 0 {
			val = bytes.Repeat([]byte{'Z'}, slabMax+i) // past a block's size
		}
		mustPut(t, e, "t", row, cell("q", string(val)), cell("r", row))
		want[row] = string(val)
	}
	var rows []store.Row
	if _, err := e.Scan(ctx, "t", store.Scan{}, func(r store.Row) bool {
		rows = append(rows, r)
		return true
	}); err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(want) {
		t.Fatalf("scanned %d rows, want %d", len(rows), len(want))
	}
	for i, r := range rows { // spoil each row every way a caller may
		r.Key = append(r.Key, "!!!!"...)
		for j := range r.Cells {
			r.Cells[j].Value = append(r.Cells[j].Value, "????"...)
			r.Cells[j].Qualifier = append(r.Cells[j].Qualifier, '#')
		}
		r.Cells = append(r.Cells, cell("x", "y"))
		rows[i] = r
	}
	for _, r := range rows {
		key := string(r.Key[:len(r.Key)-4])
		if len(r.Cells) != 3 {
			t.Fatalf("%s: %d cells after one appended, want 3", key, len(r.Cells))
		}
		if got := string(r.Cells[0].Value); got != want[key]+"????" || string(r.Cells[0].Qualifier) != "q#" {
			t.Fatalf("%s: cell q is %q=%.20q..., another row's append reached it", key, r.Cells[0].Qualifier, got)
		}
		if got := string(r.Cells[1].Value); got != key+"????" || string(r.Cells[1].Qualifier) != "r#" {
			t.Fatalf("%s: cell r is %q=%q", key, r.Cells[1].Qualifier, got)
		}
	}
}

// The blocks grow from slabMin to slabMax, so a short scan (a page of a
// listing) allocates about what its rows hold.
func TestSlabGrows(t *testing.T) {
	var s slab
	rb := rowBuf{row: []byte("k"), cells: []cellRef{{q0: 0, q1: 1, v1: 99}}}
	var sizes []int
	for i := range 3000 { // 300 KB
		rb.arena = append(rb.arena[:0], make([]byte, 99)...) // as a read fills it
		before := len(s.bytes)
		s.row(&rb)
		if i == 0 || len(s.bytes) <= before { // a new block
			sizes = append(sizes, cap(s.bytes))
		}
	}
	want := []int{2 << 10, 4 << 10, 8 << 10, 16 << 10, 32 << 10, 64 << 10, 64 << 10, 64 << 10, 64 << 10}
	if fmt.Sprint(sizes) != fmt.Sprint(want) {
		t.Fatalf("blocks of %v bytes, want %v", sizes, want)
	}
}

// A row read into the slab's lent tail is handed out where it was read,
// not copied: its value is the bytes the read wrote. A row that did not
// fit there is copied in, and is still whole.
func TestSlabReadsInPlace(t *testing.T) {
	var s slab
	rb := rowBuf{row: []byte("key"), cells: []cellRef{{q0: 0, q1: 1, v1: 6}}}
	rb.arena = append(rb.arena[:0], "qvalue"...)
	s.row(&rb) // the first row: nothing lent yet
	for i, size := range []int{5, 500, 3 * slabMax} {
		rb.arena = append(rb.arena[:0], 'q')
		rb.arena = append(rb.arena, bytes.Repeat([]byte{byte('a' + i)}, size)...)
		rb.cells[0].v1 = len(rb.arena)
		read := &rb.arena[1]
		r := s.row(&rb)
		inPlace := &r.Cells[0].Value[0] == read
		if want := size < slabLend; inPlace != want {
			t.Errorf("a %d-byte value handed out in place: %v, want %v", size, inPlace, want)
		}
		if string(r.Key) != "key" || string(r.Cells[0].Qualifier) != "q" || !bytes.Equal(r.Cells[0].Value, bytes.Repeat([]byte{byte('a' + i)}, size)) {
			t.Errorf("a %d-byte value: row %q, cell %q=%.10q", size, r.Key, r.Cells[0].Qualifier, r.Cells[0].Value)
		}
	}
}
