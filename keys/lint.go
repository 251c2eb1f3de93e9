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
	// FindUnbounded: a table kept in columns of an owner's row adds a
	// column to it with every comment, for ever; no region split divides a
	// row.
	FindUnbounded = "unbounded-row"
	// FindOneRow: every comment writes into one row: the site's hotspot.
	FindOneRow = "one-row"
	// FindAtomic: a comment's entries that share a row change in one row
	// mutation, atomically; those that do not are written apart.
	FindAtomic = "atomic"
	// FindCounted: a collection's count is kept in its row, so every
	// write of the row increments it: writers of a hot row take its lock in
	// turn.
	FindCounted = "counted"
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
	Table string `json:"table"`
	Bytes int    `json:"bytes"` // an entry key's: the row key's, then the column's
	// Store is the store table whose rows hold the entries, when another's;
	// RowBytes is the row key's part of Bytes, when the table gives columns.
	Store    string       `json:"store,omitempty"`
	RowBytes int          `json:"row_bytes,omitempty"`
	Meta     string       `json:"meta,omitempty"`  // the collection's count column, quoted
	Value    string       `json:"value,omitempty"` // "comment" when entries copy the comment
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
	// KeyBytesPerComment is the keys one comment write puts (comment and
	// each listing's entry: row keys, and the qualifiers of entries kept
	// in columns); IndexValueBytes the index entries' values (each the
	// comment's key; a copy of the comment is priced with the comment).
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
	for _, name := range d.Tables() {
		tl, err := d.lintTable(d.Table(name), s, regions)
		if err != nil {
			return r, err
		}
		r.Tables = append(r.Tables, tl)
	}
	r.KeyBytesPerComment = d.Table(Comment).Len
	for _, name := range d.indexes() {
		t := d.Table(name)
		r.KeyBytesPerComment += t.Len
		if !t.Copy {
			r.IndexValueBytes += d.Table(Comment).Len
		}
		if f, ok := collision(t); ok {
			r.Findings = append(r.Findings, f)
			r.CollisionRisk = true
		}
	}
	for _, name := range d.Tables() {
		if t := d.Table(name); t.Store == name { // a table kept in another's rows is placed by that table's keys
			if f, ok := monotonic(t.rowKey); ok {
				r.Findings = append(r.Findings, f)
			}
		}
	}
	for _, name := range d.indexes() {
		r.Findings = append(r.Findings, listingFindings(d.Table(name))...)
	}
	r.Findings = append(r.Findings, d.wideFindings()...)
	return r, nil
}

// indexes are the listings a comment write puts an entry in, of those the
// design gives.
func (d *Design) indexes() []string {
	var out []string
	for _, name := range Indexes {
		if d.Table(name) != nil {
			out = append(out, name)
		}
	}
	return out
}

func (d *Design) lintTable(t *TableKey, s Scheme, regions int) (TableLint, error) {
	tl := TableLint{Table: t.Table, Bytes: t.Len}
	if t.Store != t.Table {
		tl.Store = t.Store
	}
	if t.Wide() {
		tl.RowBytes = t.RowLen
	}
	if t.Meta != nil {
		tl.Meta = QuoteBytes(t.Meta)
	}
	if t.Copy {
		tl.Value = "comment"
	}
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
	host := d.Table(t.Store)
	points, err := host.SplitPoints(s, regions)
	if err != nil {
		return tl, err
	}
	tl.Splits = host.Splits.String(regions)
	if host != t {
		tl.Splits = t.Store + "'s: " + tl.Splits
	}
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
	case LatestComment:
		return siteOwner
	}
	return ""
}

// siteOwner names the site's latest comments' owner where an owner is
// shown: they have none.
const siteOwner = "the site"

func (t *TableKey) describeListing(owner string) string {
	field := owner
	if owner == siteOwner {
		field = ""
	}
	pl := t.plan(field)
	var b strings.Builder
	fmt.Fprintf(&b, "by %s: ", owner)
	read := "scan"
	if t.Wide() {
		read = "read of a row's columns"
	}
	if pl.fanout > 1 {
		fmt.Fprintf(&b, "%d %ss per page (one per salt bucket), merged", pl.fanout, read)
	} else {
		fmt.Fprintf(&b, "1 %s per page", read)
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
	if owner == siteOwner {
		owner = ""
	}
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

// wideFindings are what keeping entries in columns costs and buys: rows
// that grow without bound, a row every comment goes in, the entries that
// change together in one row, and the counts kept in rows.
func (d *Design) wideFindings() []Finding {
	var out []Finding
	for _, w := range d.WideRows() {
		if w.Owner == "" {
			out = append(out, Finding{Kind: FindOneRow, Table: strings.Join(w.Tables, ", "), Hotspot: true,
				Message: fmt.Sprintf("every comment writes into one row of %s: an unsplittable hotspot, the whole site's writes on one region's server, and a row that grows with every comment for ever", w.Store)})
			continue
		}
		noun := fieldNoun[w.Owner]
		out = append(out, Finding{Kind: FindUnbounded, Table: strings.Join(w.Tables, ", "),
			Message: fmt.Sprintf("each %s's row of %s takes a column in %s for each of its comments, for ever: a row no region split divides, which a hot %s makes the hottest and biggest there is", noun, w.Store, strings.Join(w.Tables, " and "), noun)})
	}
	if f, ok := d.atomicFinding(); ok {
		out = append(out, f)
	}
	for _, name := range d.indexes() {
		if t := d.Table(name); t.Meta != nil {
			out = append(out, Finding{Kind: FindCounted, Table: name,
				Message: fmt.Sprintf("the collection's count %s is kept in its row and every comment increments it in the same row mutation: writers of one hot row wait for its lock in turn", QuoteBytes(t.Meta))})
		}
	}
	return out
}

// WideRow is a kind of row that a comment adds columns to: one per owner
// (a product's, a user's) or, with no owner, one row for every comment.
// Such a row grows with its owner's comments for as long as the data
// lives, and no region split divides it.
type WideRow struct {
	Store  string
	Owner  string   // the id field the row key holds; "" for one row of literals
	Tables []string // the tables whose entries it holds, a column each per comment
}

// WideRows are the kinds of row the design's comment writes add columns
// to, in the order the tables are written.
func (d *Design) WideRows() []WideRow {
	var out []WideRow
	at := map[[2]string]int{}
	for _, name := range append([]string{Comment}, d.indexes()...) {
		t := d.Table(name)
		if !t.Wide() {
			continue
		}
		k := [2]string{t.Store, rowOwner(t)}
		if i, ok := at[k]; ok {
			out[i].Tables = append(out[i].Tables, name)
			continue
		}
		at[k] = len(out)
		out = append(out, WideRow{Store: t.Store, Owner: k[1], Tables: []string{name}})
	}
	return out
}

var fieldNoun = map[string]string{FieldUserID: "user", FieldProductID: "product", FieldOrderID: "order"}

// rowOwner is the id field a wide table's row key holds, "" for a row of
// literals alone (one row for every entry).
func rowOwner(t *TableKey) string {
	for _, p := range t.rowKey.Parts {
		if p.Kind == PartField || p.Kind == PartReverse {
			return p.Field
		}
	}
	return ""
}

// InCommentRow splits the design's listings by whether their entry is
// kept in the comment's own row (one row mutation can change both) or
// in another row.
func (d *Design) InCommentRow() (with, apart []string) {
	c := d.Table(Comment)
	for _, name := range d.indexes() {
		t := d.Table(name)
		if t.Store == c.Store && sameRow(t, c) {
			with = append(with, name)
		} else {
			apart = append(apart, name)
		}
	}
	return with, apart
}

// atomicFinding says which of a comment's entries can change together:
// those in the comment's own row are one row mutation with it under
// --writes one-row; the rest are other rows, written apart, which only a
// transaction keeps in step.
func (d *Design) atomicFinding() (Finding, bool) {
	with, apart := d.InCommentRow()
	if len(with) == 0 {
		return Finding{}, false
	}
	msg := fmt.Sprintf("with --writes one-row, the comment and its %s entry change in one row mutation: no drift between them", strings.Join(with, " and "))
	if len(apart) > 0 {
		msg += fmt.Sprintf("; %s is another row, written apart: a failure between the writes leaves the comment out of it "+
			"(--writes transactional keeps it in step)", strings.Join(apart, " and "))
	}
	return Finding{Kind: FindAtomic, Table: Comment, Message: msg}, true
}

// sameRow reports whether a comment's entries in a and b always share a
// row: their row keys are made of the same parts.
func sameRow(a, b *TableKey) bool {
	if a.RowParts != b.RowParts {
		return false
	}
	for i := range a.RowParts {
		if !a.Parts[i].same(&b.Parts[i]) {
			return false
		}
	}
	return true
}
