package embedded

import (
	"bytes"
	"errors"
	"testing"
)

// The escaped parts of a key: where each ends, what it holds, and what is
// not one.
func TestEscapedParts(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int    // escapedLen
		back string // unescape
	}{
		{"\x00\x01", 2, ""},
		{"ab\x00\x01rest", 4, "ab"},
		{"a\x00\xffb\x00\x01", 6, "a\x00b"},
		{"\x00\xff\x00\xff\x00\x01\x00\x01", 6, "\x00\x00"},
		{"ab", -1, "ab"},             // no terminator
		{"ab\x00", -1, "ab\x00"},     // cut after the escape byte
		{"a\x00\xff", -1, "a\x00"},   // an escaped zero, then nothing
		{"a\x00\x02b", -1, "a\x00b"}, // not an escape
		{"", -1, ""},
	} {
		if got := escapedLen([]byte(c.in)); got != c.n {
			t.Errorf("escapedLen(%q) = %d, want %d", c.in, got, c.n)
		}
		if got := unescape(nil, []byte(c.in)); string(got) != c.back {
			t.Errorf("unescape(%q) = %q, want %q", c.in, got, c.back)
		}
	}
	for _, raw := range []string{"", "a", "\x00", "a\x00b\x00", "\xff\x00\xff"} {
		esc := appendEscaped(nil, []byte(raw))
		if escapedLen(esc) != len(esc) || string(unescape(nil, esc)) != raw {
			t.Errorf("%q escaped as %q: length %d, back %q", raw, esc, escapedLen(esc), unescape(nil, esc))
		}
	}
}

// rowPrefixLen and splitRow take a data key's table-and-row part; anything
// else is corrupt to the one and its own prefix to the other.
func TestRowPrefixOfOddKeys(t *testing.T) {
	good := appendCellKey(nil, 7, []byte("row"), 0, []byte("q"), 1)
	prefix := len(appendRowPrefix(nil, 7, []byte("row")))
	if n, err := rowPrefixLen(good); n != prefix || err != nil {
		t.Fatalf("rowPrefixLen(good) = %d, %v; want %d", n, err, prefix)
	}
	if n := splitRow(good); n != prefix {
		t.Fatalf("splitRow(good) = %d, want %d", n, prefix)
	}
	for _, k := range [][]byte{
		nil,
		good[:tablePrefixLen-1],
		good[:tablePrefixLen],
		good[:tablePrefixLen+3], // the row without its terminator
		append([]byte{spaceRegion}, good[1:]...),
	} {
		if _, err := rowPrefixLen(k); !errors.Is(err, errCorruptKey) {
			t.Errorf("rowPrefixLen(%q): %v", k, err)
		}
		if n := splitRow(k); n != len(k) {
			t.Errorf("splitRow(%q) = %d, want the whole key", k, n)
		}
	}
}

// parseEntry refuses every entry that is not one of the layouts, at each
// length bound.
func TestParseEntryRefusesCorruption(t *testing.T) {
	rest := func(k []byte) []byte {
		pl, err := rowPrefixLen(k)
		if err != nil {
			t.Fatal(err)
		}
		return k[pl:]
	}
	marker := rest(appendMarkerKey(nil, 7, []byte("r"), 2, 9))
	famVer := rest(appendFamilyVersionKey(nil, 7, []byte("r"), 2, 9))
	colAll := rest(appendColumnMarkerKey(nil, 7, []byte("r"), 2, nil, colDeleteAll, 9))
	cell := rest(appendCellKey(nil, 7, []byte("r"), 2, []byte("q"), 9))
	ts := func(b []byte) []byte { return b[len(b)-tsLen:] }
	cat := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }
	for _, ok := range []struct {
		in   []byte
		kind byte
	}{{marker, kindDeleteFamily}, {famVer, entryFamilyVersion}, {colAll, entryDeleteColumn}, {cell, kindPut}} {
		en, err := parseEntry(ok.in)
		if err != nil || en.kind != ok.kind || en.ts != 9 || en.family != 2 {
			t.Fatalf("parseEntry(%q) = %+v, %v", ok.in, en, err)
		}
	}
	for name, bad := range map[string][]byte{
		"short":                        marker[:len(marker)-1],
		"short cell":                   cat(cell[:2], ts(cell)[1:]),
		"column marker of 11 bytes":    cat(colAll[:3], ts(colAll)),
		"column marker of 10 bytes":    cat(colAll[:2], []byte{subColumn}, ts(colAll)[1:]),
		"marker with a byte more":      cat(marker[:2], []byte{0x80}, marker[2:]),
		"family version one more":      cat(famVer[:3], []byte{0}, famVer[3:]),
		"family version one less":      cat(famVer[:2], famVer[4:]),
		"column marker too short":      cat(colAll[:3], []byte{0}, []byte{colDeleteAll}, ts(colAll)),
		"column marker bad qualifier":  cat(colAll[:3], []byte("q\x00"), []byte{colDeleteAll}, ts(colAll)),
		"column marker unknown type":   cat(colAll[:3], []byte{0, escTerm, 3}, ts(colAll)),
		"unknown marker kind":          cat(marker[:2], []byte{3}, ts(marker)),
		"cell without a terminator":    cat(cell[:2], []byte("q"), ts(cell)),
		"cell with bytes after it":     cat(cell[:len(cell)-tsLen], []byte("x"), ts(cell)),
		"unknown kind":                 cat(cell[:1], []byte{2}, cell[2:]),
		"column marker type is the ts": cat(colAll[:3], []byte{0, escTerm}, ts(colAll)),
	} {
		if en, err := parseEntry(bad); !errors.Is(err, errCorruptKey) {
			t.Errorf("%s: parseEntry(%q) = %+v, %v", name, bad, en, err)
		}
	}
}
