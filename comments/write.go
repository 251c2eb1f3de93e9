package comments

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"

	"commentbench/entry"
	"commentbench/keys"
	"commentbench/model"
	"commentbench/store"
)

// NewComment is a comment to write.
type NewComment struct {
	OrderID, ProductID, UserID string
	Content                    string
	// Timestamp stamps the comment (ms); zero takes the system's clock. The
	// harness sets it to put several comments in one millisecond on purpose.
	Timestamp int64
}

// WriteError is a comment write that failed at one of its puts. The seed's
// path has no transaction, so what Written lists stays behind, and the put
// that failed may have landed too (a timeout does not say): the outcome is
// unknown.
type WriteError struct {
	Comment model.Comment
	Written []string // tables already written, in order
	Err     error
}

func (e *WriteError) Error() string {
	return fmt.Sprintf("comment %s/%s: failed after writing %v: %v", e.Comment.OrderID, e.Comment.ProductID, e.Written, e.Err)
}

// Partial reports whether some of the comment's rows were written.
func (e *WriteError) Partial() bool {
	return len(e.Written) > 0
}

func (e *WriteError) Unwrap() error { return e.Err }

// WriteComment follows the seed: read the order and reject a missing one or
// one of another user; then put the comment and its entry in each listing
// (user-comment, product-comment, and latest-comment where the design has
// it), in that order, each its own request. Entries a design keeps in one
// row (a wide row's comment and its listing entry) are one request: one
// row mutation, atomic as HBase's are. Every key is built before the first
// put, so bad input never leaves a half-written comment; a failed put may,
// and is returned as a *WriteError.
func (s *System) WriteComment(ctx context.Context, n NewComment) (model.Comment, error) {
	c := model.Comment{OrderID: n.OrderID, ProductID: n.ProductID, UserID: n.UserID,
		Content: n.Content, Timestamp: n.Timestamp}
	if c.Timestamp == 0 {
		c.Timestamp = s.clock()
	}
	p, err := s.commentPuts(&c)
	if err != nil {
		return c, fmt.Errorf("write comment: %w", err)
	}
	if err := s.checkOrder(ctx, c); err != nil {
		return c, fmt.Errorf("write comment: %w", err)
	}
	for i := range p.n {
		w := &p.writes[i]
		if s.onIndexPut != nil {
			for _, e := range p.entries[w.from:w.to] {
				if e.t != s.comment {
					s.onIndexPut(e.t.Table, e.key, p.entries[0].key) // the comment's key
				}
			}
		}
		if err := s.apply(ctx, p, i); err != nil {
			return c, &WriteError{Comment: c, Written: p.tables(i), Err: err}
		}
	}
	return c, nil
}

// maxEntries is the most entries one comment write puts: the comment and
// an entry in each listing of keys.Indexes.
const maxEntries = 4

// puts are a comment's entries and the writes that put them, one per row
// (a store table and row key), in the order the first entry of each comes:
// one allocation, and each write is handed to Mutate as a slice of it.
type puts struct {
	entries [maxEntries]newEntry
	writes  [maxEntries]write
	n       int // writes
	muts    [maxEntries]store.Mutation
	cells   [maxEntries]store.Cell // the writes' cells, one after another
}

// newEntry is one of a comment's entries: its table, its key and its value.
type newEntry struct {
	t        *keys.TableKey
	key, val []byte
}

// write is one row's mutation: entries[from:to] and cells[from:to], in
// table t.Store's row.
type write struct {
	t        *keys.TableKey // the first entry's table
	from, to int
}

// tables are the tables the writes before write i put entries in, in order.
func (p *puts) tables(i int) []string {
	var out []string
	for _, w := range p.writes[:i] {
		for _, e := range p.entries[w.from:w.to] {
			out = append(out, e.t.Table)
		}
	}
	return out
}

// commentPuts builds the entries of a comment and groups them by row,
// validating every id. The keys and the value share one buffer.
func (s *System) commentPuts(c *model.Comment) (*puts, error) {
	for _, id := range []struct{ name, v string }{{"order", c.OrderID}, {"product", c.ProductID}, {"user", c.UserID}} {
		if err := keys.CheckID(id.v); err != nil {
			return nil, fmt.Errorf("%s id: %w", id.name, err)
		}
	}
	ix := keys.Key{UserID: c.UserID, ProductID: c.ProductID, OrderID: c.OrderID,
		Timestamp: c.Timestamp, ContentLen: c.ContentLen()}
	size := model.CommentJSONLen(c)
	for _, t := range s.entryTables {
		size += t.Len
	}
	buf := make([]byte, 0, size)
	var ks [maxEntries][]byte
	for i, t := range s.entryTables {
		from := len(buf)
		var err error
		if buf, err = t.AppendKey(buf, &ix); err != nil {
			return nil, err
		}
		ks[i] = buf[from:len(buf):len(buf)]
	}
	val, err := s.encode(buf[len(buf):], c)
	if err != nil {
		return nil, err
	}
	p := &puts{}
	for i, t := range s.entryTables {
		v := ks[0] // an index entry's value is the comment's key, or a copy of the comment
		if i == 0 || t.Copy {
			v = val
		}
		p.entries[i] = newEntry{t: t, key: ks[i], val: v}
	}
	p.group(len(s.entryTables))
	return p, nil
}

// group orders the first n entries by the row they go in (rows in the
// order their first entry comes) and makes a write of each row's.
func (p *puts) group(n int) {
	var ordered [maxEntries]newEntry
	at := 0
	for i := range n {
		e := p.entries[i]
		if e.t == nil { // taken into an earlier row's write
			continue
		}
		w := write{t: e.t, from: at}
		row := e.t.Row(e.key)
		for j := i; j < n; j++ {
			f := p.entries[j]
			if f.t != nil && f.t.Store == e.t.Store && bytes.Equal(f.t.Row(f.key), row) {
				ordered[at] = f
				p.cells[at] = store.Cell{Qualifier: f.t.Column(f.key), Value: f.val}
				at++
				p.entries[j].t = nil
			}
		}
		w.to = at
		p.muts[p.n] = store.Put(row, p.cells[w.from:w.to:w.to]...)
		p.writes[p.n] = w
		p.n++
	}
	p.entries = ordered
}

// apply puts one write: a row mutation of its entries and, where the row
// holds a collection's count, an increment of the count in the same
// atomic change (HBase 2.4's RowMutations with an Increment): the count
// never drifts from the entries, and writers of one hot row wait for its
// lock in turn.
func (s *System) apply(ctx context.Context, p *puts, i int) error {
	w := &p.writes[i]
	m := &p.muts[i]
	for _, e := range p.entries[w.from:w.to] {
		if e.t.Meta != nil {
			m.Increments = append(m.Increments, store.Increment{Qualifier: e.t.Meta, Delta: 1})
		}
	}
	if err := s.st.Mutate(ctx, w.t.Store, p.muts[i:i+1]...); err != nil {
		return fmt.Errorf("put %s: %w", w.t.Store, err)
	}
	return nil
}

// EncodeCount is a collection's count as its metadata column holds it: 8
// bytes big-endian, as HBase's Bytes.toBytes(long) writes it.
func EncodeCount(n int64) []byte { return binary.BigEndian.AppendUint64(nil, uint64(n)) }

// decodeCount reads a metadata column; a missing one counts 0.
func decodeCount(v []byte) (int64, error) {
	switch len(v) {
	case 0:
		return 0, nil
	case 8:
		return int64(binary.BigEndian.Uint64(v)), nil
	}
	return 0, fmt.Errorf("a count is 8 bytes, not %d", len(v))
}

// DecodeCount reads a collection's count from its metadata column's value:
// 8 bytes big-endian, as HBase's Increment keeps a counter.
func DecodeCount(v []byte) (int64, error) { return decodeCount(v) }

// encode appends c's value to dst.
func (s *System) encode(dst []byte, c *model.Comment) ([]byte, error) {
	if s.seedJSON {
		return model.AppendJSONComment(dst, c)
	}
	val, err := s.codec.Marshal(*c)
	return append(dst, val...), err
}

func (s *System) checkOrder(ctx context.Context, c model.Comment) error {
	k, err := s.order.AppendKey(nil, &keys.Key{ID: c.OrderID})
	if err != nil {
		return fmt.Errorf("%s: %w", keys.Order, err)
	}
	row, err := s.getEntry(ctx, s.order, k)
	if err != nil {
		return fmt.Errorf("get %s %s: %w", keys.Order, c.OrderID, err)
	}
	val, ok := row.Value(keys.Qualifier)
	if !ok {
		return fmt.Errorf("order %s: %w", c.OrderID, ErrOrderNotFound)
	}
	// The order's user, read in place: the write compares it and moves on.
	user, err := model.OrderUserID(s.codec, val)
	if err != nil {
		return fmt.Errorf("%s row %q: %w", keys.Order, row.Key, err)
	}
	if string(user) != c.UserID {
		return fmt.Errorf("order %s is user %s's, not %s: %w", c.OrderID, user, c.UserID, ErrOrderUser)
	}
	return nil
}

// EditComment replaces a comment's content and marks it edited. Its index
// entries are not touched: their keys hold the original timestamp and
// length, which is why an index entry never needs rewriting (a copy of the
// comment in a clustered listing does: see editCopies).
func (s *System) EditComment(ctx context.Context, orderID, productID, content string) (model.Comment, error) {
	c, found, err := s.Comment(ctx, orderID, productID)
	if err != nil {
		return c, fmt.Errorf("edit comment: %w", err)
	}
	if !found {
		return c, fmt.Errorf("edit comment %s/%s: %w", orderID, productID, ErrCommentNotFound)
	}
	c.Content, c.IsEdited = content, true
	ck, _ := s.layout.CommentKey(orderID, productID) // valid: the get above used it
	val, err := s.codec.Marshal(c)
	if err != nil {
		return c, err
	}
	if err := s.st.Mutate(ctx, s.comment.Store, entry.Put(s.comment, ck, val)); err != nil {
		return c, fmt.Errorf("edit comment: put %s: %w", keys.Comment, err)
	}
	return c, s.editCopies(ctx, c, val)
}
