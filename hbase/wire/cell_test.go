package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
)

// The worked example of §3.4, exactly as the spec prints it.
func TestCellWorkedExample(t *testing.T) {
	want := []byte{
		0x00, 0x00, 0x00, 0x19, 0x00, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x72, 0x02, 0x63, 0x66, 0x71,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x04, 0x76,
	}
	c := Cell{Row: []byte("r"), Family: []byte("cf"), Qualifier: []byte("q"), Timestamp: 1, Type: TypePut, Value: []byte("v")}
	got := AppendCell(nil, c)
	if !bytes.Equal(got, want) || len(got) != 29 || c.EncodedLen() != 29 {
		t.Fatalf("encoded (%d bytes)\n got % x\nwant % x", len(got), got, want)
	}
	cs, rest, err := ReadCells(want, 1)
	if err != nil || len(rest) != 0 || len(cs) != 1 {
		t.Fatalf("decode: %v rest %x", err, rest)
	}
	d := cs[0]
	if string(d.Row) != "r" || string(d.Family) != "cf" || string(d.Qualifier) != "q" ||
		d.Timestamp != 1 || d.Type != TypePut || string(d.Value) != "v" {
		t.Fatalf("decoded %+v", d)
	}
}

func TestCellTypeCodes(t *testing.T) {
	for got, want := range map[byte]byte{TypePut: 4, TypeDelete: 8, TypeDeleteFamilyVersion: 10,
		TypeDeleteColumn: 12, TypeDeleteFamily: 14, TypeMinimum: 0, TypeMaximum: 255} {
		if got != want {
			t.Errorf("type %d, want %d", got, want)
		}
	}
	if LatestTimestamp != 0x7FFFFFFFFFFFFFFF {
		t.Errorf("LatestTimestamp = %#x", LatestTimestamp)
	}
}

func TestCellsRoundTrip(t *testing.T) {
	in := []Cell{
		{Row: []byte("row"), Family: []byte("f"), Qualifier: []byte("q1"), Timestamp: 5, Type: TypePut, Value: []byte("value")},
		{Row: []byte("row"), Family: []byte("f"), Timestamp: LatestTimestamp, Type: TypeDeleteFamilyVersion},
		{Row: bytes.Repeat([]byte{'x'}, MaxRowLen), Family: bytes.Repeat([]byte{'f'}, MaxFamilyLen), Qualifier: []byte{}, Type: TypeDeleteColumn},
		{Row: []byte{}, Family: []byte{}, Value: make([]byte, 70000), Type: TypePut},
	}
	var block []byte
	for _, c := range in {
		block = AppendCell(block, c)
	}
	trailer := []byte("next")
	block = append(block, trailer...)
	out, rest, err := ReadCells(block, len(in))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(rest, trailer) {
		t.Fatalf("rest %q", rest)
	}
	for i := range in {
		a, b := in[i], out[i]
		if !bytes.Equal(a.Row, b.Row) || !bytes.Equal(a.Family, b.Family) || !bytes.Equal(a.Qualifier, b.Qualifier) ||
			!bytes.Equal(a.Value, b.Value) || a.Timestamp != b.Timestamp || a.Type != b.Type {
			t.Fatalf("cell %d differs", i)
		}
	}
	// Appending to a decoded slice must not overwrite the next field.
	_ = append(out[0].Row, 'Z')
	if string(out[0].Family) != "f" {
		t.Fatal("decoded slices share capacity")
	}
	if _, _, err := ReadCells(block, len(in)+1); err == nil {
		t.Fatal("read past the cells")
	}
	if cs, rest, err := ReadCells(nil, 0); err != nil || len(cs) != 0 || len(rest) != 0 {
		t.Fatalf("zero cells: %v %v %v", cs, rest, err)
	}
}

func TestReadCellsRejects(t *testing.T) {
	good := AppendCell(nil, Cell{Row: []byte("r"), Family: []byte("cf"), Qualifier: []byte("q"), Timestamp: 1, Type: TypePut, Value: []byte("v")})
	patch := func(off int, v uint32) []byte {
		b := bytes.Clone(good)
		binary.BigEndian.PutUint32(b[off:], v)
		return b
	}
	patch16 := func(off int, v uint16) []byte {
		b := bytes.Clone(good)
		binary.BigEndian.PutUint16(b[off:], v)
		return b
	}
	famTooLong := bytes.Clone(good)
	famTooLong[15] = 4 // family would run into the timestamp
	cases := map[string][]byte{
		"short":            good[:28],
		"lengths only":     good[:11],
		"kvLen mismatch":   patch(0, 0x1a),
		"keyLen mismatch":  patch(4, 0x11),
		"valLen mismatch":  patch(8, 2),
		"keyLen too small": append(append(binary.BigEndian.AppendUint32(nil, 8+11+1), 0, 0, 0, 11, 0, 0, 0, 1), make([]byte, 12)...),
		"row overruns key": patch16(12, 5),
		"row too long":     append(append(binary.BigEndian.AppendUint32(nil, 8+12+32768), binary.BigEndian.AppendUint32(nil, 12+32768)...), append([]byte{0, 0, 0, 0, 0x80, 0}, make([]byte, 32768+10)...)...),
		"family overruns":  famTooLong,
	}
	for name, in := range cases {
		_, _, err := ReadCells(in, 1)
		t.Logf("%s: %v", name, err)
		if !errors.Is(err, ErrCell) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, _, err := ReadCells(good, -1); err == nil {
		t.Error("negative count accepted")
	}
	if _, _, err := ReadCells(good, 1<<40); err == nil {
		t.Error("huge count accepted")
	}
}

func TestAppendCellPanicsOnOversize(t *testing.T) {
	for name, c := range map[string]Cell{
		"row":    {Row: make([]byte, MaxRowLen+1)},
		"family": {Family: make([]byte, MaxFamilyLen+1)},
	} {
		if c.Check() == nil {
			t.Errorf("%s: Check accepted", name)
		}
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: AppendCell did not panic", name)
				}
			}()
			AppendCell(nil, c)
		}()
	}
}
