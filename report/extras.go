package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
)

// Extras are what summary.json may hold beyond what results.Summary reads:
// the hot keys the server-model work (issue 13) is to add. Their fields are
// not fixed yet, so the page shows what is there as it is there (a table
// of whatever columns the file has) and nothing when the summary has none.
type Extras struct {
	HotKeys []NamedGrid
}

// Grid is a table read from JSON: columns in the order first seen.
type Grid struct {
	Columns []string
	Rows    [][]string
}

// NamedGrid is a grid with a caption (hot products, hot users, ...).
type NamedGrid struct {
	Name string
	Grid *Grid
}

// hotKeyNames are the names the hot keys may go by in summary.json.
var hotKeyNames = []string{"hot_keys", "hotkeys"}

func readExtras(path string) (Extras, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Extras{}, err
	}
	top, ok := object(b)
	if !ok {
		return Extras{}, fmt.Errorf("%s: not a JSON object", path)
	}
	var e Extras
	for _, f := range top {
		if slices.Contains(hotKeyNames, f.name) {
			e.HotKeys = append(e.HotKeys, namedGrids(f.value)...)
		}
	}
	return e, nil
}

// gridOf reads an array of objects (a row each) or one object (one row);
// nested objects become dotted columns. Anything else, or nothing, is nil.
func gridOf(raw json.RawMessage) *Grid {
	var rows []json.RawMessage
	if json.Unmarshal(raw, &rows) != nil {
		rows = []json.RawMessage{raw}
	}
	g := &Grid{}
	var flat []map[string]string
	for _, r := range rows {
		obj, ok := object(r)
		if !ok {
			return nil
		}
		f := map[string]string{}
		flatten("", obj, f, &g.Columns)
		flat = append(flat, f)
	}
	if len(flat) == 0 || len(g.Columns) == 0 {
		return nil
	}
	for _, f := range flat {
		row := make([]string, len(g.Columns))
		for j, c := range g.Columns {
			row[j] = f[c]
		}
		g.Rows = append(g.Rows, row)
	}
	return g
}

// member is one member of a JSON object, in the file's order (a Go map
// would forget it, and the columns' order is the writer's choice).
type member struct {
	name  string
	value json.RawMessage
}

// object reads a JSON object's members in order; ok is false for anything
// that is not an object.
func object(raw json.RawMessage) (fields []member, ok bool) {
	d := json.NewDecoder(bytes.NewReader(raw))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	for d.More() {
		t, err := d.Token()
		name, isName := t.(string)
		if err != nil || !isName {
			return nil, false
		}
		var v json.RawMessage
		if d.Decode(&v) != nil {
			return nil, false
		}
		fields = append(fields, member{name, v})
	}
	return fields, true
}

// flatten writes obj's scalars into out under dotted names (one level of
// nesting; deeper values are shown as JSON), keeping the order in cols.
func flatten(prefix string, obj []member, out map[string]string, cols *[]string) {
	for _, f := range obj {
		name := prefix + f.name
		if nested, ok := object(f.value); ok && prefix == "" {
			flatten(name+".", nested, out, cols)
			continue
		}
		if !slices.Contains(*cols, name) {
			*cols = append(*cols, name)
		}
		out[name] = scalar(f.value)
	}
}

// scalar shows a JSON value in a cell: numbers as written, strings bare,
// arrays and objects compact.
func scalar(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if d.Decode(&n) == nil {
		if f, err := strconv.ParseFloat(string(n), 64); err == nil {
			return strconv.FormatFloat(f, 'g', 6, 64)
		}
	}
	var c bytes.Buffer
	if json.Compact(&c, raw) == nil {
		return strings.TrimSpace(c.String())
	}
	return string(raw)
}

// namedGrids reads hot keys given as one list, or as lists by kind
// ({"products": [...], "users": [...]}).
func namedGrids(raw json.RawMessage) []NamedGrid {
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) == nil {
		if g := gridOf(raw); g != nil {
			return []NamedGrid{{Name: "hot keys", Grid: g}}
		}
		return nil
	}
	byKind, ok := object(raw)
	if !ok {
		return nil
	}
	var out []NamedGrid
	for _, f := range byKind {
		if g := gridOf(f.value); g != nil {
			out = append(out, NamedGrid{Name: f.name, Grid: g})
		}
	}
	return out
}
