package report

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"html/template"
	"sort"
	"sync"

	"codeberg.org/go-fonts/liberation/liberationsansregular"
)

// The page carries its font, so it reads the same on a machine without
// Liberation Sans (whose metrics the charts are laid out with) and opens
// offline: the font as a WOFF (TrueType tables, each zlib-compressed: what
// a browser takes in a data URL, a little over half the TrueType's size).
// Only the regular face: headings' bold is the browser's.

var fontCSS = sync.OnceValues(func() (template.CSS, error) {
	w, err := woff(liberationsansregular.TTF)
	if err != nil {
		return "", fmt.Errorf("embed Liberation Sans: %w", err)
	}
	return template.CSS(`@font-face { font-family: "Liberation Sans"; font-style: normal; font-weight: 400; src: url(data:font/woff;base64,` +
		base64.StdEncoding.EncodeToString(w) + `) format("woff"); }` + "\n"), nil
})

// sfntTable is one table of a TrueType file.
type sfntTable struct {
	tag, checksum uint32
	data          []byte
}

// woff wraps a TrueType font as WOFF 1.0: a 44-byte header, a directory of
// (tag, offset, compressed length, length, checksum), then each table,
// compressed where that makes it smaller, on 4-byte boundaries.
func woff(ttf []byte) ([]byte, error) {
	tables, err := sfntTables(ttf)
	if err != nil {
		return nil, err
	}
	sort.Slice(tables, func(i, j int) bool { return tables[i].tag < tables[j].tag })
	const headerLen, entryLen = 44, 20
	sfntSize := 12 + 16*len(tables)
	var body bytes.Buffer
	dir := make([]byte, 0, entryLen*len(tables))
	offset := headerLen + entryLen*len(tables)
	for _, t := range tables {
		data, err := compressTable(t.data)
		if err != nil {
			return nil, err
		}
		dir = binary.BigEndian.AppendUint32(dir, t.tag)
		dir = binary.BigEndian.AppendUint32(dir, uint32(offset+body.Len()))
		dir = binary.BigEndian.AppendUint32(dir, uint32(len(data)))
		dir = binary.BigEndian.AppendUint32(dir, uint32(len(t.data)))
		dir = binary.BigEndian.AppendUint32(dir, t.checksum)
		body.Write(data)
		pad(&body)
		sfntSize += (len(t.data) + 3) &^ 3
	}
	out := make([]byte, 0, headerLen+len(dir)+body.Len())
	for _, v := range []uint32{0x774F4646, binary.BigEndian.Uint32(ttf), uint32(headerLen + len(dir) + body.Len())} {
		out = binary.BigEndian.AppendUint32(out, v) // signature "wOFF", flavor, length
	}
	out = binary.BigEndian.AppendUint16(out, uint16(len(tables)))
	out = binary.BigEndian.AppendUint16(out, 0) // reserved
	out = binary.BigEndian.AppendUint32(out, uint32(sfntSize))
	out = append(out, 0, 1, 0, 0)          // version 1.0
	out = append(out, make([]byte, 20)...) // no metadata, no private data
	out = append(out, dir...)
	return append(out, body.Bytes()...), nil
}

// sfntTables reads a TrueType file's table directory.
func sfntTables(ttf []byte) ([]sfntTable, error) {
	if len(ttf) < 12 {
		return nil, fmt.Errorf("font: %d bytes, too short for a TrueType file", len(ttf))
	}
	n := int(binary.BigEndian.Uint16(ttf[4:]))
	if len(ttf) < 12+16*n {
		return nil, fmt.Errorf("font: %d tables do not fit in %d bytes", n, len(ttf))
	}
	tables := make([]sfntTable, n)
	for i := range tables {
		rec := ttf[12+16*i:]
		off, length := binary.BigEndian.Uint32(rec[8:]), binary.BigEndian.Uint32(rec[12:])
		if uint64(off)+uint64(length) > uint64(len(ttf)) {
			return nil, fmt.Errorf("font: table %d runs past the file", i)
		}
		tables[i] = sfntTable{tag: binary.BigEndian.Uint32(rec), checksum: binary.BigEndian.Uint32(rec[4:]), data: ttf[off : off+length]}
	}
	return tables, nil
}

// compressTable is data zlib-compressed, or data itself when that is no
// smaller (WOFF tells the two apart by their lengths).
func compressTable(data []byte) ([]byte, error) {
	var b bytes.Buffer
	z, _ := zlib.NewWriterLevel(&b, zlib.BestCompression)
	if _, err := z.Write(data); err != nil {
		return nil, err
	}
	if err := z.Close(); err != nil {
		return nil, err
	}
	if b.Len() >= len(data) {
		return data, nil
	}
	return b.Bytes(), nil
}

func pad(b *bytes.Buffer) {
	for b.Len()%4 != 0 {
		b.WriteByte(0)
	}
}
