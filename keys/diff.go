package keys

import (
	"fmt"
	"slices"
)

// Diff names the first table and part where two designs differ, "" when
// they build the same keys and splits. Names and descriptions do not count:
// a copy of a design under another name writes the same bytes.
func (d *Design) Diff(o *Design) string {
	for i, name := range AllTables {
		a, b := d.tables[i], o.tables[i]
		switch {
		case a == nil && b == nil:
			continue
		case a == nil || b == nil:
			return fmt.Sprintf("table %s: %s in %s, %s in %s", name, given(a), d.name, given(b), o.name)
		}
		if diff := a.diff(b, d.name, o.name); diff != "" {
			return fmt.Sprintf("table %s%s", name, diff)
		}
	}
	return ""
}

func given(t *TableKey) string {
	if t == nil {
		return "none"
	}
	return "given"
}

// diff is where two designs' keys of one table differ: ", part N: ..." or
// ": ...".
func (a *TableKey) diff(b *TableKey, an, bn string) string {
	n := max(len(a.Parts), len(b.Parts))
	for j := range n {
		switch {
		case j >= len(a.Parts):
			return fmt.Sprintf(", part %d: none in %s, %s in %s", j+1, an, b.Parts[j].Source, bn)
		case j >= len(b.Parts):
			return fmt.Sprintf(", part %d: %s in %s, none in %s", j+1, a.Parts[j].Source, an, bn)
		case !a.Parts[j].same(&b.Parts[j]):
			return fmt.Sprintf(", part %d: %s in %s, %s in %s", j+1, a.Parts[j].Source, an, b.Parts[j].Source, bn)
		}
	}
	switch {
	case a.RowParts != b.RowParts:
		return fmt.Sprintf(": the row key is %d parts in %s, %d in %s (the rest make the column)", a.RowParts, an, b.RowParts, bn)
	case a.Store != b.Store:
		return fmt.Sprintf(": kept in %s in %s, in %s in %s", a.Store, an, b.Store, bn)
	case string(a.Meta) != string(b.Meta):
		return fmt.Sprintf(": meta %s in %s, %s in %s", QuoteBytes(a.Meta), an, QuoteBytes(b.Meta), bn)
	case a.Copy != b.Copy:
		return fmt.Sprintf(": entries hold %s in %s, %s in %s", valueWords(a.Copy), an, valueWords(b.Copy), bn)
	case !a.Splits.same(b.Splits):
		return fmt.Sprintf(": splits differ between %s and %s", an, bn)
	}
	return ""
}

func valueWords(copied bool) string {
	if copied {
		return "a copy of the comment"
	}
	return "the comment's key"
}

func (p *Part) same(o *Part) bool {
	return p.Kind == o.Kind && p.Field == o.Field && slices.Equal(p.Fields, o.Fields) &&
		p.Buckets == o.Buckets && string(p.Literal) == string(o.Literal) && p.Width == o.Width
}

func (s SplitSpec) same(o SplitSpec) bool {
	return s.Regions == o.Regions && s.Count == o.Count && s.Buckets == o.Buckets &&
		slices.EqualFunc(s.Explicit, o.Explicit, func(a, b []byte) bool { return string(a) == string(b) })
}
