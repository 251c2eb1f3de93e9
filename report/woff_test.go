package report

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"io"
	"testing"

	"codeberg.org/go-fonts/liberation/liberationsansregular"
)

// The WOFF holds every table of the TrueType file byte for byte (inflated
// where it was compressed), with its checksum, in tag order, each on a
// 4-byte boundary, and its header's sizes add up.
func TestWOFFHoldsTheFont(t *testing.T) {
	ttf := liberationsansregular.TTF
	w, err := woff(ttf)
	if err != nil {
		t.Fatal(err)
	}
	orig, err := sfntTables(ttf)
	if err != nil {
		t.Fatal(err)
	}
	byTag := map[uint32]sfntTable{}
	for _, tb := range orig {
		byTag[tb.tag] = tb
	}
	if sig := binary.BigEndian.Uint32(w); sig != 0x774F4646 || binary.BigEndian.Uint32(w[8:]) != uint32(len(w)) {
		t.Fatalf("header: signature %x, length %d of %d", sig, binary.BigEndian.Uint32(w[8:]), len(w))
	}
	n := int(binary.BigEndian.Uint16(w[12:]))
	if n != len(orig) {
		t.Fatalf("%d tables, want %d", n, len(orig))
	}
	sfnt, prev := 12+16*n, uint32(0)
	for i := range n {
		e := w[44+20*i:]
		tag, off, clen, olen, sum := binary.BigEndian.Uint32(e), binary.BigEndian.Uint32(e[4:]), binary.BigEndian.Uint32(e[8:]),
			binary.BigEndian.Uint32(e[12:]), binary.BigEndian.Uint32(e[16:])
		if tag <= prev || off%4 != 0 {
			t.Errorf("table %d: tag %x after %x, offset %d", i, tag, prev, off)
		}
		prev = tag
		data := w[off : off+clen]
		if clen < olen {
			z, err := zlib.NewReader(bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			if data, err = io.ReadAll(z); err != nil {
				t.Fatal(err)
			}
		}
		if o := byTag[tag]; !bytes.Equal(data, o.data) || sum != o.checksum || olen != uint32(len(o.data)) {
			t.Errorf("table %x does not come back as it was", tag)
		}
		sfnt += (int(olen) + 3) &^ 3
	}
	if got := binary.BigEndian.Uint32(w[16:]); got != uint32(sfnt) {
		t.Errorf("totalSfntSize %d, want %d", got, sfnt)
	}
	if len(w) > len(ttf)*3/4 {
		t.Errorf("WOFF %d bytes of a %d-byte font: the tables did not compress", len(w), len(ttf))
	}
	if _, err := woff([]byte("short")); err == nil {
		t.Error("a 5-byte font made a WOFF")
	}
}
