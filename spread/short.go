package spread

import (
	"strings"
	"unicode/utf8"
)

// Ellipsis marks where ShortRange cut a key.
const Ellipsis = "…"

// SplitRange returns the start and end keys of a Range as keyRange wrote
// it ("start" and "end" name the table's edges); ok is false for any other
// string. Keys are decoded (table[part ...]) or quoted, so the separator is
// the first ", " outside brackets and quotes.
func SplitRange(r string) (start, end string, ok bool) {
	inner, ok1 := strings.CutPrefix(r, "[")
	inner, ok2 := strings.CutSuffix(inner, ")")
	if !ok1 || !ok2 {
		return "", "", false
	}
	depth, quoted := 0, false
	for i := 0; i < len(inner); i++ {
		switch c := inner[i]; {
		case quoted && c == '\\':
			i++ // the escaped byte cannot end the quote
		case c == '"':
			quoted = !quoted
		case quoted:
		case c == '[':
			depth++
		case c == ']':
			depth--
		case depth == 0 && strings.HasPrefix(inner[i:], ", "):
			return inner[:i], inner[i+2:], true
		}
	}
	return "", "", false
}

// RegionTable is the table a region's name (HBase's "table,start,id.")
// belongs to, or "" for a name of another form.
func RegionTable(name string) string {
	t, _, ok := strings.Cut(name, ",")
	if !ok {
		return ""
	}
	return t
}

// ShortRange renders a Range in at most width runes for a console line
// whose table is named beside it. Keys lose their table's wrapper
// ("comment[order=X]" is "order=X"); when the range is still too wide each
// key keeps its leading parts up to the first that tells start from end,
// then is cut short. A shortened key ends in Ellipsis, so what shows of a
// key is always its beginning: the part that places it in the table.
func ShortRange(table, r string, width int) string {
	start, end, ok := SplitRange(r)
	if !ok {
		return cutRunes(r, width)
	}
	start, end = unwrap(table, start), unwrap(table, end)
	if fits(start, end, width) {
		return join(start, end)
	}
	start, end = leading(start, end)
	if !fits(start, end, width) {
		start, end = shareWidth(start, end, width-len("[, )"))
	}
	return cutRunes(join(start, end), width)
}

// LeadingRange is a Range as ShortRange shows it with room to spare: its
// keys without their table's wrapper, each cut after its leading parts up
// to the first that tells start from end when the whole is wider than
// width.
func LeadingRange(table, r string, width int) string {
	start, end, ok := SplitRange(r)
	if !ok {
		return r
	}
	start, end = unwrap(table, start), unwrap(table, end)
	if fits(start, end, width) {
		return join(start, end)
	}
	return join(leading(start, end))
}

func join(start, end string) string { return "[" + start + ", " + end + ")" }

func fits(start, end string, width int) bool {
	return utf8.RuneCountInString(join(start, end)) <= width
}

func unwrap(table, key string) string {
	if table == "" {
		return key
	}
	if in, ok := strings.CutPrefix(key, table+"["); ok && strings.HasSuffix(in, "]") {
		return strings.TrimSuffix(in, "]")
	}
	return key
}

// leading keeps of each key its parts up to the first where they differ:
// past it, a part says nothing about where the region lies.
func leading(start, end string) (string, string) {
	s, e := keyParts(start), keyParts(end)
	i := 0
	for i < len(s)-1 && i < len(e)-1 && s[i] == e[i] {
		i++
	}
	return keepParts(s, i+1), keepParts(e, i+1)
}

func keepParts(parts []string, n int) string {
	if n >= len(parts) {
		return strings.Join(parts, " ")
	}
	return strings.Join(parts[:n], " ") + Ellipsis
}

// keyParts splits a decoded key at the spaces between its parts; a quoted
// value keeps its spaces.
func keyParts(key string) []string {
	var out []string
	from, quoted := 0, false
	for i := 0; i < len(key); i++ {
		switch c := key[i]; {
		case quoted && c == '\\':
			i++
		case c == '"':
			quoted = !quoted
		case c == ' ' && !quoted:
			out, from = append(out, key[from:i]), i+1
		}
	}
	return append(out, key[from:])
}

// shareWidth cuts the keys to room runes together: a short key (an edge)
// stays whole and leaves the rest to the other.
func shareWidth(start, end string, room int) (string, string) {
	ns, ne := utf8.RuneCountInString(start), utf8.RuneCountInString(end)
	if ns+ne <= room {
		return start, end
	}
	half := room / 2
	switch {
	case ns <= half:
		ne = room - ns
	case ne <= half:
		ns = room - ne
	default:
		ns, ne = room-half, half
	}
	return cutRunes(start, ns), cutRunes(end, ne)
}

// cutRunes shortens s to n runes, the last an Ellipsis.
func cutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	if n < 1 {
		return ""
	}
	r := []rune(strings.TrimSuffix(s, Ellipsis))
	return string(r[:min(n-1, len(r))]) + Ellipsis
}
