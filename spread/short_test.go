package spread

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// A Range splits at the ", " between its keys, not at one inside a quoted
// key or a decoded key's brackets.
func TestSplitRange(t *testing.T) {
	for _, c := range []struct{ r, start, end string }{
		{`[start, end)`, "start", "end"},
		{`["a, b", "c\", d")`, `"a, b"`, `"c\", d"`},
		{`[t[v="x, y" n=1], end)`, `t[v="x, y" n=1]`, "end"},
		{keyRange("t", []byte("a"), nil, nil), `"a"`, "end"},
	} {
		s, e, ok := SplitRange(c.r)
		if !ok || s != c.start || e != c.end {
			t.Errorf("SplitRange(%q) = %q, %q, %v; want %q, %q", c.r, s, e, ok, c.start, c.end)
		}
	}
	for _, r := range []string{"", "start, end", "[start end)", `["a, b)`} {
		if _, _, ok := SplitRange(r); ok {
			t.Errorf("SplitRange(%q) ok", r)
		}
	}
}

// A range is shown whole, its keys without their table, when it fits;
// else each key keeps the leading parts that tell start from end, and past
// that is cut; every key shown is the beginning of the key it stands for
// and the whole fits the width.
func TestShortRange(t *testing.T) {
	pc := `[product-comment[prod=TmUKsWFOeR c ts=2026-11-24T21:34:09.578Z len=57], product-comment[prod=XyZabcdEfG c ts=2026-11-24T21:35:00.000Z len=3])`
	same := `[product-comment[prod=TmUKsWFOeR c ts=2026-11-24T21:34:09.578Z len=57], product-comment[prod=TmUKsWFOeR c ts=2026-11-24T21:35:00.000Z len=3])`
	for _, c := range []struct {
		table, r string
		width    int
		want     string
	}{
		{"seller", `[start, "NAA")`, 80, `[start, "NAA")`},
		{"comment", `[comment[order=ZEulUMXMkO prod=zvQwmwOgwG], end)`, 80, `[order=ZEulUMXMkO prod=zvQwmwOgwG, end)`},
		{"comment", `[comment[order=ZEulUMXMkO prod=zvQwmwOgwG], end)`, 30, `[order=ZEulUMXMkO…, end)`},
		{"comment", `[comment[order=ZEulUMXMkO prod=zvQwmwOgwG], end)`, 20, `[order=ZEulUM…, end)`},
		{"product-comment", pc, 80, `[prod=TmUKsWFOeR…, prod=XyZabcdEfG…)`},
		{"product-comment", same, 80, `[prod=TmUKsWFOeR c ts=2026-11-24T21:34…, prod=TmUKsWFOeR c ts=2026-11-24T21:35…)`},
		{"product-comment", pc, 20, `[prod=Tm…, prod=Xy…)`},
		{"order", pc, 200, pc[:len(pc)-1] + ")"}, // another table's keys keep their name
		{"t", "not a range at all", 10, "not a ran…"},
	} {
		got := ShortRange(c.table, c.r, c.width)
		if got != c.want {
			t.Errorf("ShortRange(%q, %q, %d)\n = %q\nwant %q", c.table, c.r, c.width, got, c.want)
		}
		if n := utf8.RuneCountInString(got); n > c.width {
			t.Errorf("%q is %d runes, over %d", got, n, c.width)
		}
		assertPrefixes(t, c.table, c.r, got)
	}
}

func assertPrefixes(t *testing.T, table, full, shown string) {
	t.Helper()
	fs, fe, ok := SplitRange(full)
	ss, se, ok2 := SplitRange(shown)
	if !ok || !ok2 {
		return
	}
	for _, k := range [][2]string{{fs, ss}, {fe, se}} {
		if !strings.HasPrefix(unwrap(table, k[0]), strings.TrimSuffix(k[1], Ellipsis)) {
			t.Errorf("%q shows %q, not its beginning", k[0], k[1])
		}
	}
}

// With room to spare a range keeps each key's leading parts, the least that
// places it: what the console fits on a line of figures.
func TestLeadingRange(t *testing.T) {
	r := `[comment[order=ZEulUMXMkO prod=zvQwmwOgwG], end)`
	for width, want := range map[int]string{80: `[order=ZEulUMXMkO prod=zvQwmwOgwG, end)`, 20: `[order=ZEulUMXMkO…, end)`} {
		if got := LeadingRange("comment", r, width); got != want {
			t.Errorf("LeadingRange(%d) = %q, want %q", width, got, want)
		}
	}
}

func TestRegionTable(t *testing.T) {
	for name, want := range map[string]string{"comment,ZEul,1795.abc.": "comment", "product-comment,,1.x.": "product-comment", "odd": ""} {
		if got := RegionTable(name); got != want {
			t.Errorf("RegionTable(%q) = %q, want %q", name, got, want)
		}
	}
}
