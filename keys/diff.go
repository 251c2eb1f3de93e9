package keys

import (
	"fmt"
	"slices"
)

// Diff names the first table and part where two designs differ, "" when
// they build the same keys and splits. Names and descriptions do not count:
// a copy of a design under another name writes the same bytes.
func (d *Design) Diff(o *Design) string {
	for i, name := range Tables {
		a, b := d.tables[i], o.tables[i]
		n := max(len(a.Parts), len(b.Parts))
		for j := range n {
			switch {
			case j >= len(a.Parts):
				return fmt.Sprintf("table %s, part %d: none in %s, %s in %s", name, j+1, d.name, b.Parts[j].Source, o.name)
			case j >= len(b.Parts):
				return fmt.Sprintf("table %s, part %d: %s in %s, none in %s", name, j+1, a.Parts[j].Source, d.name, o.name)
			case !a.Parts[j].same(&b.Parts[j]):
				return fmt.Sprintf("table %s, part %d: %s in %s, %s in %s", name, j+1, a.Parts[j].Source, d.name, b.Parts[j].Source, o.name)
			}
		}
		if !a.Splits.same(b.Splits) {
			return fmt.Sprintf("table %s: splits differ between %s and %s", name, d.name, o.name)
		}
	}
	return ""
}

func (p *Part) same(o *Part) bool {
	return p.Kind == o.Kind && p.Field == o.Field && slices.Equal(p.Fields, o.Fields) &&
		p.Buckets == o.Buckets && string(p.Literal) == string(o.Literal) && p.Width == o.Width
}

func (s SplitSpec) same(o SplitSpec) bool {
	return s.Regions == o.Regions && s.Count == o.Count && s.Buckets == o.Buckets &&
		slices.EqualFunc(s.Explicit, o.Explicit, func(a, b []byte) bool { return string(a) == string(b) })
}
