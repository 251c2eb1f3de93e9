package keys

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ErrBadDesign is wrapped by every error about a design file.
var ErrBadDesign = errors.New("keys: bad key design")

// MaxKeyLen is HBase's limit on a row key (a Java short's range): a design
// whose key is longer could never be written.
const MaxKeyLen = 32767

// MaxBuckets bounds a salt: two bytes hold it.
const MaxBuckets = 65536

// DesignError is a bad design file, located by file, line, table and part.
type DesignError struct {
	File  string
	Line  int
	Table string
	Part  string
	Msg   string
}

func (e *DesignError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Table != "" {
		fmt.Fprintf(&b, "table %s: ", e.Table)
	}
	if e.Part != "" {
		fmt.Fprintf(&b, "part %q: ", e.Part)
	}
	b.WriteString(e.Msg)
	return b.String()
}

func (e *DesignError) Unwrap() error { return ErrBadDesign }

// tableFields are the fields each table's key may use. Entity rows are read
// by id alone, a comment by its order and product, so their keys cannot
// need anything else; the listings may use any id of the comment.
var tableFields = map[string][]string{
	User: {FieldID}, Seller: {FieldID}, Product: {FieldID}, Order: {FieldID},
	Comment:        {FieldOrderID, FieldProductID},
	UserComment:    {FieldUserID, FieldProductID, FieldOrderID},
	ProductComment: {FieldUserID, FieldProductID, FieldOrderID},
	ProductRank:    {FieldProductID},
	LatestComment:  {FieldUserID, FieldProductID, FieldOrderID},
}

var allFields = []string{FieldID, FieldUserID, FieldProductID, FieldOrderID, FieldSellerID}

type parser struct {
	file string
	d    *Design
}

func (ps *parser) fail(line int, table, part, format string, args ...any) error {
	return &DesignError{File: ps.file, Line: line, Table: table, Part: part, Msg: fmt.Sprintf(format, args...)}
}

// Parse reads a design file. file names it in errors (a path, or
// builtin:NAME). Every table must be there, every part known and allowed in
// its table, and every listing readable from the fields a read has.
func Parse(file string, src []byte) (*Design, error) {
	ps := &parser{file: file, d: &Design{source: src, file: file}}
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, ps.fail(0, "", "", "not YAML: %v", err)
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, ps.fail(doc.Line, "", "", "want a mapping with name, description and tables")
	}
	if err := ps.top(doc.Content[0]); err != nil {
		return nil, err
	}
	for i, name := range Tables {
		if ps.d.tables[i] == nil {
			return nil, ps.fail(doc.Content[0].Line, name, "", "missing: a design gives every table (%s)", strings.Join(Tables, ", "))
		}
	}
	if err := ps.checkStores(); err != nil {
		return nil, err
	}
	if err := ps.checkListings(); err != nil {
		return nil, err
	}
	return ps.d, nil
}

func (ps *parser) top(m *yaml.Node) error {
	seen := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if seen[k.Value] {
			return ps.fail(k.Line, "", "", "%s given twice", k.Value)
		}
		seen[k.Value] = true
		switch k.Value {
		case "name":
			if v.Kind != yaml.ScalarNode || !regexp.MustCompile(`^[A-Za-z0-9_.-]+$`).MatchString(v.Value) {
				return ps.fail(v.Line, "", "", "name %q: want letters, digits, '-', '_' or '.'", v.Value)
			}
			ps.d.name = v.Value
		case "description":
			ps.d.description = strings.TrimSpace(v.Value)
		case "tables":
			if v.Kind != yaml.MappingNode {
				return ps.fail(v.Line, "", "", "tables: want a mapping of table name to its key")
			}
			if err := ps.tables(v); err != nil {
				return err
			}
		default:
			return ps.fail(k.Line, "", "", "unknown key %q (want name, description, tables)", k.Value)
		}
	}
	if ps.d.name == "" {
		return ps.fail(m.Line, "", "", "name is missing")
	}
	return nil
}

func (ps *parser) tables(m *yaml.Node) error {
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		idx := tableIndex(k.Value)
		if idx < 0 {
			return ps.fail(k.Line, k.Value, "", "unknown table (want one of %s)", strings.Join(AllTables, ", "))
		}
		if ps.d.tables[idx] != nil {
			return ps.fail(k.Line, k.Value, "", "given twice")
		}
		t, err := ps.table(k.Value, v)
		if err != nil {
			return err
		}
		t.line = k.Line
		ps.d.tables[idx] = t
	}
	return nil
}

func (ps *parser) table(name string, m *yaml.Node) (*TableKey, error) {
	if m.Kind != yaml.MappingNode {
		return nil, ps.fail(m.Line, name, "", "want a mapping with key (and column, in, meta, value, splits)")
	}
	t := &TableKey{Table: name, Store: name, Splits: SplitSpec{Regions: true}}
	var keyNode, colNode, metaNode *yaml.Node
	splitsLine, splitsGiven := m.Line, false
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		var err error
		switch k.Value {
		case "key":
			keyNode = v
		case "column":
			colNode = v
		case "meta":
			metaNode = v
		case "in":
			t.Store, err = ps.in(name, v)
		case "value":
			t.Copy, err = ps.value(name, v)
		case "splits":
			splitsLine, splitsGiven = k.Line, true
			t.Splits, err = ps.splits(name, v)
		default:
			return nil, ps.fail(k.Line, name, "", "unknown key %q (want key, column, in, meta, value, splits)", k.Value)
		}
		if err != nil {
			return nil, err
		}
	}
	if splitsGiven && t.Store != name {
		return nil, ps.fail(splitsLine, name, "", "splits: a table kept in %s's rows is split as %s is", t.Store, t.Store)
	}
	if err := ps.keyAndColumn(t, m, keyNode, colNode); err != nil {
		return nil, err
	}
	if t.Splits.Buckets && t.rowKey.leadingSalt() == nil {
		return nil, ps.fail(splitsLine, name, "", "splits: buckets needs a key that starts with a salt (after any literal)")
	}
	if err := ps.meta(t, metaNode); err != nil {
		return nil, err
	}
	t.lists = [3]listPlan{t.plan(FieldUserID), t.plan(FieldProductID), t.plan("")}
	return t, ps.checkTable(t, keyNode.Line)
}

// keyAndColumn reads the row key's parts, then the column's.
func (ps *parser) keyAndColumn(t *TableKey, m, keyNode, colNode *yaml.Node) error {
	parts := keyParts(keyNode)
	if len(parts) == 0 {
		return ps.fail(m.Line, t.Table, "", "key: want its parts, e.g. productId lit(c) revTs revLen")
	}
	cols := keyParts(colNode)
	if colNode != nil && len(cols) == 0 {
		return ps.fail(colNode.Line, t.Table, "", "column: want its parts, e.g. lit(c) revTs orderId")
	}
	for i, n := range append(parts, cols...) {
		p, err := ps.part(t.Table, n)
		if err != nil {
			return err
		}
		t.Parts = append(t.Parts, p)
		t.Len += p.Width
		if i < len(parts) {
			t.RowLen += p.Width
		}
	}
	t.RowParts = len(parts)
	if t.RowLen > MaxKeyLen {
		return ps.fail(keyNode.Line, t.Table, "", "key is %d bytes; HBase takes at most %d", t.RowLen, MaxKeyLen)
	}
	t.rowKey = &TableKey{Table: t.Table, Store: t.Store, Parts: t.Parts[:t.RowParts:t.RowParts], RowParts: t.RowParts,
		Len: t.RowLen, RowLen: t.RowLen, Splits: t.Splits}
	t.rowKey.rowKey = t.rowKey
	return nil
}

// in reads the table whose rows keep this one's entries.
func (ps *parser) in(name string, v *yaml.Node) (string, error) {
	if v.Kind != yaml.ScalarNode || tableIndex(v.Value) < 0 {
		return "", ps.fail(v.Line, name, "", "in: %q: want the table whose rows keep this one's entries (one of %s)", v.Value, strings.Join(AllTables, ", "))
	}
	if v.Value == name {
		return "", ps.fail(v.Line, name, "", "in: a table is kept in its own rows without saying so")
	}
	return v.Value, nil
}

// value reads what an index entry holds: the comment's key, or a copy of
// the comment.
func (ps *parser) value(name string, v *yaml.Node) (bool, error) {
	if name != UserComment && name != ProductComment && name != LatestComment {
		return false, ps.fail(v.Line, name, "", "value: only a listing's entries may hold a copy of the comment")
	}
	switch v.Value {
	case "key":
		return false, nil
	case "comment":
		return true, nil
	}
	return false, ps.fail(v.Line, name, "", "value: %q: want key (the entry holds the comment's key) or comment (a copy of it: a clustered index)", v.Value)
}

// meta reads a collection's metadata column: literals, sorting before
// every entry of the collection.
func (ps *parser) meta(t *TableKey, n *yaml.Node) error {
	if n == nil {
		return nil
	}
	if t.Table != UserComment && t.Table != ProductComment && t.Table != LatestComment {
		return ps.fail(n.Line, t.Table, "", "meta: only a listing kept in columns has a collection's metadata")
	}
	if !t.Wide() {
		return ps.fail(n.Line, t.Table, "", "meta: the collection's metadata is a column of its owner's row: give the listing's column too")
	}
	for _, pn := range keyParts(n) {
		p, err := ps.part(t.Table, pn)
		if err != nil {
			return err
		}
		if p.Kind != PartLiteral {
			return ps.fail(pn.Line, t.Table, p.Source, "meta: a collection's metadata column is one fixed column: want literals, e.g. lit(l) lit(0x00)")
		}
		t.Meta = append(t.Meta, p.Literal...)
	}
	prefix := t.ColumnPrefix()
	switch {
	case len(t.Meta) == 0:
		return ps.fail(n.Line, t.Table, "", "meta: want its parts, e.g. lit(l) lit(0x00)")
	case len(prefix) == 0:
		return ps.fail(n.Line, t.Table, "", "meta: the collection's columns begin with %s, not a literal, so no column sorts before them for certain: begin them with a literal (their type, as seed 002 does)", t.Parts[t.RowParts].Source)
	case string(t.Meta) >= string(prefix):
		return ps.fail(n.Line, t.Table, "", "meta: %s must sort before the collection's columns (%s...), so that a read of the collection's head finds it first (seed 002 marks metadata 0 and entries 1)", QuoteBytes(t.Meta), QuoteBytes(prefix))
	}
	return nil
}

// leadingSalt is the first part past the literals when it is a salt.
func (t *TableKey) leadingSalt() *Part {
	for i := range t.Parts {
		switch t.Parts[i].Kind {
		case PartLiteral:
			continue
		case PartSalt:
			return &t.Parts[i]
		}
		return nil
	}
	return nil
}

// keyParts reads a key written as parts separated by spaces, or as a YAML
// list of parts.
func keyParts(n *yaml.Node) []*yaml.Node {
	if n == nil {
		return nil
	}
	if n.Kind == yaml.SequenceNode {
		return n.Content
	}
	var out []*yaml.Node
	for _, f := range strings.Fields(n.Value) {
		out = append(out, &yaml.Node{Kind: yaml.ScalarNode, Value: f, Line: n.Line})
	}
	return out
}

var partRe = regexp.MustCompile(`^([A-Za-z]+)(?:\((.*)\))?$`)

var plainWidths = map[string]struct {
	kind  PartKind
	width int
}{
	"ts": {PartTs, 8}, "revTs": {PartRevTs, 8}, "len": {PartLen, 4}, "revLen": {PartRevLen, 4}, "rank": {PartRank, 2},
}

const partHelp = "want id, userId, productId, orderId, ts, revTs, len, revLen, rank, lit(TEXT), salt(FIELD,...,N), hash(FIELD,K) or reverse(FIELD)"

func (ps *parser) part(table string, n *yaml.Node) (Part, error) {
	src := strings.TrimSpace(n.Value)
	fail := func(format string, args ...any) (Part, error) {
		return Part{}, ps.fail(n.Line, table, src, format, args...)
	}
	m := partRe.FindStringSubmatch(src)
	if n.Kind != yaml.ScalarNode || m == nil {
		return fail("unknown part: %s", partHelp)
	}
	p := Part{Source: src, line: n.Line}
	name, args := m[1], splitArgs(m[2])
	hasArgs := strings.Contains(src, "(")
	if pw, ok := plainWidths[name]; ok && !hasArgs {
		p.Kind, p.Width = pw.kind, pw.width
		return p, nil
	}
	if slices.Contains(allFields, name) && !hasArgs {
		p.Kind, p.Field, p.slot, p.Width = PartField, name, slotOf(name), IDLen
		return p, ps.allowed(table, n, src, name)
	}
	switch name {
	case "lit":
		b, err := literal(m[2])
		if err != nil {
			return fail("%v", err)
		}
		p.Kind, p.Literal, p.Width = PartLiteral, b, len(b)
		return p, nil
	case "reverse":
		if len(args) != 1 {
			return fail("reverse takes one field, e.g. reverse(orderId)")
		}
		p.Kind, p.Field, p.slot, p.Width = PartReverse, args[0], slotOf(args[0]), IDLen
		return p, ps.allowed(table, n, src, args[0])
	case "hash":
		k, err := strconv.Atoi(lastArg(args))
		if len(args) != 2 || err != nil || k < 1 || k > 8 {
			return fail("hash takes a field and a width of 1..8 bytes, e.g. hash(productId,2)")
		}
		p.Kind, p.Field, p.slot, p.Width = PartHash, args[0], slotOf(args[0]), k
		return p, ps.allowed(table, n, src, args[0])
	case "salt":
		return ps.salt(table, n, p, args)
	}
	return fail("unknown part: %s", partHelp)
}

func (ps *parser) salt(table string, n *yaml.Node, p Part, args []string) (Part, error) {
	b, err := strconv.Atoi(lastArg(args))
	if len(args) < 2 || err != nil {
		return Part{}, ps.fail(n.Line, table, p.Source, "salt takes fields and a bucket count, e.g. salt(orderId,productId,8)")
	}
	if b < 1 || b > MaxBuckets {
		return Part{}, ps.fail(n.Line, table, p.Source, "salt of %d buckets: want 1..%d", b, MaxBuckets)
	}
	p.Kind, p.Fields, p.Buckets, p.Width = PartSalt, args[:len(args)-1], b, 1
	if b > 256 {
		p.Width = 2
	}
	for _, f := range p.Fields {
		if err := ps.allowed(table, n, p.Source, f); err != nil {
			return Part{}, err
		}
	}
	return p, nil
}

func splitArgs(s string) []string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	out := strings.Split(s, ",")
	for i := range out {
		out[i] = strings.TrimSpace(out[i])
	}
	return out
}

func lastArg(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return args[len(args)-1]
}

// literal reads lit(TEXT): printable ASCII as it is, or 0x and hex digits.
func literal(s string) ([]byte, error) {
	if strings.HasPrefix(s, "0x") {
		b, err := hex.DecodeString(s[2:])
		if err != nil || len(b) == 0 {
			return nil, fmt.Errorf("lit(%s): want an even number of hex digits after 0x", s)
		}
		return b, nil
	}
	if s == "" || !plain(s) || strings.ContainsAny(s, "(),") {
		return nil, fmt.Errorf("lit(%s): want printable ASCII without spaces, parentheses or commas, or 0x and hex digits", s)
	}
	return []byte(s), nil
}

func (ps *parser) allowed(table string, n *yaml.Node, src, field string) error {
	if !slices.Contains(allFields, field) {
		return ps.fail(n.Line, table, src, "unknown field %q (want one of %s)", field, strings.Join(tableFields[table], ", "))
	}
	if !slices.Contains(tableFields[table], field) {
		return ps.fail(n.Line, table, src, "this table's key may use %s, not %s: %s",
			strings.Join(tableFields[table], ", "), field, whyFields[table])
	}
	return nil
}

var whyFields = map[string]string{
	User: "an entity row is read by its id alone", Seller: "an entity row is read by its id alone",
	Product: "an entity row is read by its id alone", Order: "an entity row is read by its id alone",
	Comment:        "a comment is read by its order and product alone",
	UserComment:    "an index row is made from the comment's ids",
	ProductComment: "an index row is made from the comment's ids",
	ProductRank:    "a rank row is made from its product and rank",
	LatestComment:  "an index entry is made from the comment's ids",
}

// checkTable enforces what the comment system needs of each table's key.
func (ps *parser) checkTable(t *TableKey, line int) error {
	fail := func(format string, args ...any) error { return ps.fail(line, t.Table, "", format, args...) }
	seen := map[string]bool{}
	values := map[string]string{}
	for _, p := range t.Parts {
		if p.Kind == PartField || p.Kind == PartReverse {
			if seen[p.Field] {
				return ps.fail(p.line, t.Table, p.Source, "%s appears twice", p.Field)
			}
			seen[p.Field] = true
		}
		// Decode reads a value from each part that holds it: two parts
		// could disagree, and the key would not encode back to its bytes.
		if v := valueName[p.Kind]; v != "" {
			if prev, dup := values[v]; dup {
				return ps.fail(p.line, t.Table, p.Source, "the key already holds the %s as %s: a key holds it once", v, prev)
			}
			values[v] = p.Source
		}
		if pw, ok := plainWidths[p.Source]; ok && !valueAllowed(t.Table, pw.kind) {
			return ps.fail(p.line, t.Table, p.Source, "this table has no %s: %s", p.Source, whyFields[t.Table])
		}
	}
	switch t.Table {
	case User, Seller, Product, Order:
		if !seen[FieldID] {
			return fail("key must hold id (or reverse(id)): rows are read and checked by id")
		}
	case Comment:
		if !seen[FieldOrderID] || !seen[FieldProductID] {
			return fail("key must hold orderId and productId: they identify a comment")
		}
	case UserComment:
		if !seen[FieldUserID] {
			return fail("a user's timeline is read by userId: the key must hold it")
		}
		if !t.Has(PartTs, "") && !t.Has(PartRevTs, "") {
			return fail("a timeline is listed newest first: the key must hold ts or revTs")
		}
	case ProductComment:
		if !seen[FieldProductID] {
			return fail("a product listing is read by productId: the key must hold it")
		}
		if !t.Has(PartTs, "") && !t.Has(PartRevTs, "") {
			return fail("a product listing is newest first: the key must hold ts or revTs")
		}
	case LatestComment:
		if !t.Has(PartTs, "") && !t.Has(PartRevTs, "") {
			return fail("the site's latest comments are newest first: the key must hold ts or revTs")
		}
	case ProductRank:
		if !seen[FieldProductID] || !t.Has(PartRank, "") {
			return fail("key must hold productId and rank")
		}
	}
	return nil
}

var valueName = map[PartKind]string{PartTs: "timestamp", PartRevTs: "timestamp", PartLen: "length", PartRevLen: "length", PartRank: "rank"}

func valueAllowed(table string, kind PartKind) bool {
	switch kind {
	case PartRank:
		return table == ProductRank
	case PartTs, PartRevTs, PartLen, PartRevLen:
		return table == UserComment || table == ProductComment || table == LatestComment
	}
	return true
}

// checkListings makes sure every listing can be read: a ranking must be
// one prefix scan, since it is read as one, and a listing kept in columns
// one row's slice per branch, newest first.
func (ps *parser) checkListings() error {
	t := ps.d.tables[tableIndex(ProductRank)]
	if l := t.plan(FieldProductID); l.fanout > 1 || l.filtered {
		return ps.fail(t.line, ProductRank, "", "a product's ranking is read with one prefix scan: put productId (or parts made from it alone) before rank and every other part")
	}
	if err := ps.checkColumnListing(t, FieldProductID); err != nil {
		return err
	}
	for _, l := range []struct{ table, owner string }{{UserComment, FieldUserID}, {ProductComment, FieldProductID}, {LatestComment, ""}} {
		t := ps.d.tables[tableIndex(l.table)]
		if t == nil {
			continue
		}
		if err := ps.checkNewestFirst(t, l.owner); err != nil {
			return err
		}
		if err := ps.checkColumnListing(t, l.owner); err != nil {
			return err
		}
	}
	return nil
}

// checkColumnListing makes sure a listing kept in columns reads as slices
// of its owner's row: the row key must be built from the owner (and hold
// its id, or it is not the owner's row), and the columns must come newest
// first in HBase's one column order, ascending.
func (ps *parser) checkColumnListing(t *TableKey, owner string) error {
	if !t.Wide() {
		return nil
	}
	pl := t.plan(owner)
	if pl.prefix < t.RowParts {
		p := t.Parts[pl.prefix]
		return ps.fail(p.line, t.Table, p.Source, "a listing kept in columns is read from one row: its key must be built from %s, not %s", ownerWords(owner), p.Source)
	}
	if owner != "" && !t.rowKey.Has(PartField, owner) && !t.rowKey.Has(PartReverse, owner) {
		return ps.fail(t.line, t.Table, "", "a listing kept in columns is read from its owner's row: the key must hold %s (a hash or salt of it is shared with other owners)", owner)
	}
	if pl.reversed {
		p := t.Parts[pl.prefix]
		for _, q := range t.Parts[pl.prefix:] {
			if q.Kind == PartTs {
				p = q
				break
			}
		}
		return ps.fail(p.line, t.Table, p.Source, "a listing kept in columns is read newest first only with revTs: HBase reads columns in ascending order alone, so ts would list the oldest first")
	}
	return nil
}

func ownerWords(owner string) string {
	if owner == "" {
		return "literals alone (the one row every comment is written into)"
	}
	return owner + " alone (and literals)"
}

// checkStores makes sure each table kept in another's rows names a table
// kept in its own, and that entries of different tables sharing a row
// cannot be taken for one another: their columns begin with different
// literals (the type first, as seed 002 does).
func (ps *parser) checkStores() error {
	for _, t := range ps.d.tables {
		if t == nil || t.Store == t.Table {
			continue
		}
		host := ps.d.tables[tableIndex(t.Store)]
		switch {
		case host == nil:
			return ps.fail(t.line, t.Table, "", "in: %s is not a table of this design", t.Store)
		case host.Store != host.Table:
			return ps.fail(t.line, t.Table, "", "in: %s is itself kept in %s's rows: name %s", t.Store, host.Store, host.Store)
		}
		t.rowKey.Store = t.Store
	}
	for i, a := range ps.d.tables {
		for _, b := range ps.d.tables[i+1:] {
			if a == nil || b == nil || a.Store != b.Store || a.RowLen != b.RowLen {
				continue
			}
			if err := ps.apart(a, b); err != nil {
				return err
			}
		}
	}
	return nil
}

// apart checks that the columns of two tables that may share a row differ.
func (ps *parser) apart(a, b *TableKey) error {
	for _, x := range columnSpaces(a) {
		for _, y := range columnSpaces(b) {
			if len(x) == 0 || len(y) == 0 || bytes.HasPrefix(x, y) || bytes.HasPrefix(y, x) {
				return ps.fail(b.line, b.Table, "", "shares rows of %s with %s: their columns must begin with different literals (the type first, as seed 002 does), not %s and %s",
					a.Store, a.Table, spaceWords(b, y), spaceWords(a, x))
			}
		}
	}
	return nil
}

// columnSpaces are the literal beginnings of the columns a table writes in
// a row: its entries' (the seed's one column q, for a table without
// columns) and its metadata column's.
func columnSpaces(t *TableKey) [][]byte {
	if !t.Wide() {
		return [][]byte{Qualifier}
	}
	out := [][]byte{t.ColumnPrefix()}
	if t.Meta != nil {
		out = append(out, t.Meta)
	}
	return out
}

func spaceWords(t *TableKey, x []byte) string {
	if len(x) == 0 {
		return "columns that begin with " + t.Parts[t.RowParts].Source
	}
	return QuoteBytes(x)
}

// checkNewestFirst makes sure a listing's pages come out newest first:
// past the prefix a read builds, the first part that varies among one
// owner's rows must be the time. Any other part there (an orderId, a salt
// too wide to enumerate) would order the pages by itself, and nothing
// downstream could tell: the listing's own key order is all a page has.
func (ps *parser) checkNewestFirst(t *TableKey, owner string) error {
	for _, p := range t.Parts[t.plan(owner).prefix:] {
		switch {
		case p.Kind == PartTs || p.Kind == PartRevTs:
			return nil
		case !p.ownedBy(owner):
			return ps.fail(p.line, t.Table, p.Source, "a listing by %s is read newest first: after the parts a read can build, the first part that varies must be ts or revTs, not %s (its pages would come out in %s order)", owner, p.Source, p.Source)
		}
	}
	return nil // checkTable has made sure a time part is there
}

// splits reads a table's splits: regions (the run's --regions), a count,
// buckets (one region per bucket of the leading salt), or a list of keys
// (ASCII as written, or 0x and hex digits).
func (ps *parser) splits(table string, v *yaml.Node) (SplitSpec, error) {
	fail := func(format string, args ...any) (SplitSpec, error) {
		return SplitSpec{}, ps.fail(v.Line, table, "", format, args...)
	}
	if v.Kind == yaml.SequenceNode {
		// Not nil when empty: SplitPoints reads a nil list as no list, and
		// "splits: []" means no split points, one region.
		out := [][]byte{}
		for _, n := range v.Content {
			b := []byte(n.Value)
			if strings.HasPrefix(n.Value, "0x") {
				var err error
				if b, err = hex.DecodeString(n.Value[2:]); err != nil {
					return SplitSpec{}, ps.fail(n.Line, table, "", "splits: %q: want hex digits after 0x", n.Value)
				}
			}
			if len(b) == 0 || (len(out) > 0 && string(b) <= string(out[len(out)-1])) {
				return SplitSpec{}, ps.fail(n.Line, table, "", "splits: %q: want non-empty keys in ascending order", n.Value)
			}
			out = append(out, b)
		}
		return SplitSpec{Explicit: out}, nil
	}
	switch v.Value {
	case "regions":
		return SplitSpec{Regions: true}, nil
	case "buckets":
		return SplitSpec{Buckets: true}, nil
	}
	n, err := strconv.Atoi(v.Value)
	if err != nil || n < 1 || n > MaxRegions {
		return fail("splits: %q: want regions, buckets, a count 1..%d or a list of keys", v.Value, MaxRegions)
	}
	return SplitSpec{Count: n}, nil
}
