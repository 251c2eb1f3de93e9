package keys

import (
	"encoding/hex"
	"fmt"
	"strings"
)

// Finding kinds: what lint can tell from a design without running it.
const (
	// FindCollision: two distinct comments can get one index key, and the
	// second put overwrites the first.
	FindCollision = "collision"
	// FindMonotonic: a monotonic leading part sends every new write to one
	// region.
	FindMonotonic = "monotonic"
	// FindScatter: a listing page issues one scan per salt bucket.
	FindScatter = "scatter-gather"
	// FindTableScan: a listing's owner is not in its prefix, so a page reads
	// the table and drops other owners' rows.
	FindTableScan = "table-scan"
	// FindRankReads: the listing key holds no length, so the ranking job
	// reads every comment of a product to score it.
	FindRankReads = "rank-reads"
)

// Finding is one thing lint found, with the table it is about.
type Finding struct {
	Kind    string `json:"kind"`
	Risk    bool   `json:"risk"`    // a collision risk: lint exits 1
	Hotspot bool   `json:"hotspot"` // every new write lands in one region, whatever the ids
	Table   string `json:"table"`
	Message string `json:"message"`
}

// PartLayout is a part and where it sits in the key.
type PartLayout struct {
	Part   string `json:"part"`
	Offset int    `json:"offset"`
	Width  int    `json:"width"`
}

// TableLint is one table's key as lint shows it.
type TableLint struct {
	Table    string       `json:"table"`
	Bytes    int          `json:"bytes"`
	Parts    []PartLayout `json:"parts"`
	Example  string       `json:"example_hex"`
	Readable string       `json:"example"`
	Splits   string       `json:"splits"`       // the rule: regions, a count, buckets or explicit
	Points   []string     `json:"split_points"` // quoted, as Go quotes bytes
	Listing  string       `json:"listing,omitempty"`
}

// LintReport is everything lint says of a design.
type LintReport struct {
	Design      string      `json:"design"`
	File        string      `json:"file"`
	Description string      `json:"description,omitempty"`
	Tables      []TableLint `json:"tables"`
	// KeyBytesPerComment is the row keys one comment write puts (comment,
	// user-comment, product-comment); IndexValueBytes the index rows'
	// values (each the comment's key).
	KeyBytesPerComment int       `json:"key_bytes_per_comment"`
	IndexValueBytes    int       `json:"index_value_bytes_per_comment"`
	Findings           []Finding `json:"findings"`
	CollisionRisk      bool      `json:"collision_risk"`
}

// Example ids lint builds its example keys from.
var exampleKey = Key{ID: "KqZrTmWxLa", UserID: "UbXeWkQaTz", ProductID: "PfHsNeVbRc", OrderID: "OgDjYiMuQt",
	Timestamp: 1795435200000, ContentLen: 42, Rank: 1} // 2026-11-23T12:00:00Z

// Lint analyses the design statically; regions and scheme give the split
// points a run with --regions and --ids would create.
func (d *Design) Lint(s Scheme, regions int) (LintReport, error) {
	r := LintReport{Design: d.name, File: d.file, Description: d.description}
	for _, name := range Tables {
		tl, err := d.lintTable(d.Table(name), s, regions)
		if err != nil {
			return r, err
		}
		r.Tables = append(r.Tables, tl)
	}
	for _, name := range []string{Comment, UserComment, ProductComment} {
		r.KeyBytesPerComment += d.Table(name).Len
	}
	r.IndexValueBytes = 2 * d.Table(Comment).Len
	for _, name := range []string{UserComment, ProductComment} {
		if f, ok := collision(d.Table(name)); ok {
			r.Findings = append(r.Findings, f)
			r.CollisionRisk = true
		}
	}
	for _, name := range Tables {
		if f, ok := monotonic(d.Table(name)); ok {
			r.Findings = append(r.Findings, f)
		}
	}
	for _, name := range []string{UserComment, ProductComment} {
		r.Findings = append(r.Findings, listingFindings(d.Table(name))...)
	}
	return r, nil
}

func (d *Design) lintTable(t *TableKey, s Scheme, regions int) (TableLint, error) {
	tl := TableLint{Table: t.Table, Bytes: t.Len}
	off := 0
	for _, p := range t.Parts {
		tl.Parts = append(tl.Parts, PartLayout{Part: p.Source, Offset: off, Width: p.Width})
		off += p.Width
	}
	k := exampleKey
	k.Table = t.Table
	key, err := t.Append(nil, k)
	if err != nil {
		return tl, err
	}
	tl.Example, tl.Readable = hex.EncodeToString(key), d.Describe(t.Table, key)
	points, err := t.SplitPoints(s, regions)
	if err != nil {
		return tl, err
	}
	tl.Splits = t.Splits.String(regions)
	for _, p := range points {
		tl.Points = append(tl.Points, QuoteBytes(p))
	}
	if owner := listingOwner(t.Table); owner != "" {
		tl.Listing = t.describeListing(owner)
	}
	return tl, nil
}

// String says how the table is split.
func (s SplitSpec) String(regions int) string {
	switch {
	case s.Explicit != nil:
		return fmt.Sprintf("%d explicit split points", len(s.Explicit))
	case s.Buckets:
		return "one region per salt bucket"
	case s.Regions:
		return fmt.Sprintf("regions: %d, cut evenly over the leading parts", regions)
	}
	return fmt.Sprintf("%d regions, cut evenly over the leading parts", s.Count)
}

func listingOwner(table string) string {
	switch table {
	case UserComment:
		return FieldUserID
	case ProductComment, ProductRank:
		return FieldProductID
	}
	return ""
}

func (t *TableKey) describeListing(owner string) string {
	pl := t.plan(owner)
	var b strings.Builder
	fmt.Fprintf(&b, "by %s: ", owner)
	if pl.fanout > 1 {
		fmt.Fprintf(&b, "%d scans per page (one per salt bucket), merged", pl.fanout)
	} else {
		b.WriteString("1 scan per page")
	}
	if pl.filtered {
		b.WriteString(", each over the whole table, other owners' rows dropped")
	}
	if pl.reversed {
		b.WriteString(", read backwards")
	}
	return b.String()
}

var sameWords = map[PartKind]string{PartTs: "in one millisecond", PartRevTs: "in one millisecond",
	PartLen: "with equal byte length", PartRevLen: "with equal byte length"}

var fieldWords = map[string]string{FieldUserID: "by one user", FieldProductID: "on one product", FieldOrderID: "of one order"}

// collision tells whether two distinct comments can share the table's
// key: they can unless the key holds both ids of a comment (orderId and
// productId, as they are or reversed); salts and hashes may collide too.
func collision(t *TableKey) (Finding, bool) {
	holds := map[string]bool{}
	var when []string
	for _, p := range t.Parts {
		switch p.Kind {
		case PartField, PartReverse:
			holds[p.Field] = true
			when = append(when, fieldWords[p.Field])
		case PartTs, PartRevTs, PartLen, PartRevLen:
			when = append(when, sameWords[p.Kind])
		}
	}
	if holds[FieldOrderID] && holds[FieldProductID] {
		return Finding{}, false
	}
	msg := fmt.Sprintf("two comments %s get one key: the second put overwrites the first and the listing loses a comment", dedupe(when))
	if t.Table == UserComment && holds[FieldUserID] && !holds[FieldOrderID] {
		msg += " (one user commenting on several products of one order at once)"
	}
	return Finding{Kind: FindCollision, Risk: true, Table: t.Table, Message: msg}, true
}

func dedupe(ws []string) string {
	var out []string
	for _, w := range ws {
		if !containsString(out, w) {
			out = append(out, w)
		}
	}
	return strings.Join(out, " ")
}

func containsString(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

// monotonic reports a leading part that grows or shrinks with every new
// write, so every new write lands in one region however the table is split.
func monotonic(t *TableKey) (Finding, bool) {
	for _, p := range t.Parts {
		switch p.Kind {
		case PartLiteral:
			continue
		case PartTs:
			return Finding{Kind: FindMonotonic, Table: t.Table, Hotspot: true,
				Message: "leads with ts: every new row sorts after every old one, so the last region takes every write"}, true
		case PartRevTs:
			return Finding{Kind: FindMonotonic, Table: t.Table, Hotspot: true,
				Message: "leads with revTs: every new row sorts before every old one, so the first region takes every write"}, true
		case PartField:
			return Finding{Kind: FindMonotonic, Table: t.Table,
				Message: fmt.Sprintf("leads with %s as it is: under --ids sequential ids count up, so one region takes every new %s", p.Field, newWhat(t.Table))}, true
		}
		return Finding{}, false
	}
	return Finding{}, false
}

func newWhat(table string) string {
	switch table {
	case User, Seller, Product, Order:
		return table
	}
	return "row"
}

func listingFindings(t *TableKey) []Finding {
	owner := listingOwner(t.Table)
	pl := t.plan(owner)
	var out []Finding
	if pl.fanout > 1 {
		out = append(out, Finding{Kind: FindScatter, Table: t.Table,
			Message: fmt.Sprintf("a read cannot derive the salt: every listing page issues %d scans, one per bucket, and merges them", pl.fanout)})
	}
	if pl.filtered {
		out = append(out, Finding{Kind: FindTableScan, Table: t.Table,
			Message: fmt.Sprintf("%s is not in the key's prefix: a listing page reads the table from its end and drops other owners' rows", owner)})
	}
	if t.Table == ProductComment && !t.Has(PartLen, "") && !t.Has(PartRevLen, "") {
		out = append(out, Finding{Kind: FindRankReads, Table: t.Table,
			Message: "the key holds no length: the ranking job reads every comment of a product to score it"})
	}
	return out
}
