package comments

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"commentbench/faults"
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

// WriteError is a comment write (or edit) that failed at one of its
// requests, or whose writer stopped partway (an injected abandon). What
// Written lists stays behind unless the strategy undoes it, and the
// request that failed may have landed too (a timeout does not say): the
// outcome is unknown.
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
// one of another user; then write the comment and its entry in each
// listing (user-comment, product-comment, and latest-comment where the
// design has it) as the system's Writes says: one request each in that
// order (non-atomic, the seed's); the comment and the entries kept in its
// row in one row mutation, atomic as HBase's are (one-row); the entries
// unverified, the comment, the entries verified (verified); or one
// transaction (transactional). Every key is built before the first
// request, so bad input never leaves a half-written comment; a failed
// request may, and is returned as a *WriteError.
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
	defer s.putsPool.Put(p) // every request made with it has returned by then
	s.cons.Writes.Add(1)
	s.cons.Requests.Add(1) // the order's read
	if err := s.checkOrder(ctx, c); err != nil {
		return c, fmt.Errorf("write comment: %w", err)
	}
	if s.onIndexPut != nil {
		for _, e := range p.entries[:p.entryCount] {
			if e.t != s.comment {
				s.onIndexPut(e.t.Table, e.key, p.commentKey) // the comment's key
			}
		}
	}
	switch s.writes {
	case Verified:
		err = s.writeVerified(ctx, p)
	case Transactional:
		err = s.writeTx(ctx, p)
	default:
		err = s.writeInTurn(ctx, p)
	}
	if err != nil {
		return c, &WriteError{Comment: c, Written: p.tables(p.applied), Err: err}
	}
	s.cons.Acked.Add(1)
	return c, nil
}

// maxEntries is the most entries one comment write puts: the comment and
// an entry in each listing of keys.Indexes.
const maxEntries = 4

// puts are a comment's entries and the writes that put them, one per row
// mutation, in order: one allocation, and each write is handed to Mutate
// as a slice of it.
type puts struct {
	entries    [maxEntries]newEntry // in the order of the writes, the comment first
	entryCount int
	commentKey []byte
	writes     [maxEntries]write
	n          int // writes
	muts       [maxEntries]store.Mutation
	cells      [maxEntries]store.Cell // the writes' cells, one after another
	// applied marks the writes known to have landed (bit i: writes[i]):
	// what a failed write left is counted from it.
	applied uint8
}

// newEntry is one of a comment's entries: its table, its key and its value.
type newEntry struct {
	t        *keys.TableKey
	key, val []byte
}

// write is one row mutation: entries[from:to] and cells[from:to], in
// table t.Store's row.
type write struct {
	t        *keys.TableKey // the first entry's table
	from, to int
}

// tables are the tables of the entries of the writes in mask, in order.
func (p *puts) tables(mask uint8) []string {
	var out []string
	for i, w := range p.writes[:p.n] {
		if mask&(1<<i) == 0 {
			continue
		}
		for _, e := range p.entries[w.from:w.to] {
			out = append(out, e.t.Table)
		}
	}
	return out
}

// commentPuts builds the entries of a comment and its writes, validating
// every id. The keys and the value share one buffer.
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
	p, _ := s.putsPool.Get().(*puts)
	if p == nil {
		p = new(puts)
	}
	*p = puts{entryCount: len(s.entryTables), commentKey: ks[0]}
	for i, t := range s.entryTables {
		v := ks[0] // an index entry's value is the comment's key, or a copy of the comment
		if i == 0 || t.Copy {
			v = val
		}
		p.entries[i] = newEntry{t: t, key: ks[i], val: v}
	}
	p.group(s.writes == OneRow)
	return p, nil
}

// group makes a write of each entry, in order; with oneRow, the entries
// kept in the comment's row join the comment's write.
func (p *puts) group(oneRow bool) {
	var ordered [maxEntries]newEntry
	at := 0
	for i := range p.entryCount {
		e := p.entries[i]
		if e.t == nil { // taken into the comment's write
			continue
		}
		w := write{t: e.t, from: at}
		row := e.t.Row(e.key)
		for j := i; j < p.entryCount; j++ {
			f := p.entries[j]
			if j == i || (oneRow && i == 0 && f.t != nil && f.t.Store == e.t.Store && bytes.Equal(f.t.Row(f.key), row)) {
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

// writeInTurn makes the writes one after another: non-atomic's and
// one-row's path. A write whose reply was lost is made again, where that
// is safe, before the next.
func (s *System) writeInTurn(ctx context.Context, p *puts) error {
	at := s.inj.AbandonAt(p.n)
	for i := range p.n {
		if i == at {
			s.leave(p)
			return faults.ErrAbandoned
		}
		s.withCounts(p, i)
		applied, known, err := s.send(ctx, p.writes[i].t.Store, p.muts[i:i+1])
		if applied {
			p.applied |= 1 << i
		}
		if err != nil {
			if known {
				s.leave(p)
			} else {
				s.cons.Unknown.Add(1)
			}
			return fmt.Errorf("put %s: %w", p.writes[i].t.Store, err)
		}
	}
	return nil
}

// withCounts adds to write i's mutation, where its row holds a
// collection's count, an increment of the count in the same atomic change
// (HBase 2.4's RowMutations with an Increment): the count never drifts
// from the entries, and writers of one hot row wait for its lock in turn.
func (s *System) withCounts(p *puts, i int) {
	w := &p.writes[i]
	m := &p.muts[i]
	for _, e := range p.entries[w.from:w.to] {
		if e.t.Meta != nil {
			m.Increments = append(m.Increments, store.Increment{Qualifier: e.t.Meta, Delta: 1})
		}
	}
}

// send makes one request of the write path: m, one mutation. A request whose reply was
// lost (an injected loss: it was applied) is made again when that is
// safe, a put; not one that increments a count, which would count twice.
// applied says the request landed; known, that the system can tell
// whether it did (a failure it did not inject leaves that unknown).
func (s *System) send(ctx context.Context, table string, m []store.Mutation) (applied, known bool, err error) {
	for attempt := 0; ; attempt++ {
		s.cons.Requests.Add(1)
		s.cons.Bytes.Add(mutationBytes(m[0]))
		err = s.wst.Mutate(ctx, table, m...)
		switch {
		case err == nil:
			return true, true, nil
		case errors.Is(err, faults.ErrLost):
			applied = true
			if len(m[0].Increments) > 0 || attempt == sendAttempts-1 {
				return true, true, err
			}
		case errors.Is(err, faults.ErrFailed):
			return applied, true, err
		default:
			return applied, false, err
		}
	}
}

// sendAttempts bounds the requests one write makes after lost replies.
const sendAttempts = 3

func mutationBytes(m store.Mutation) int64 {
	n := int64(len(m.Row))
	for _, c := range m.Cells {
		n += int64(len(c.Qualifier) + len(c.Value))
	}
	for _, q := range m.DeleteColumns {
		n += int64(len(q))
	}
	for _, inc := range m.Increments {
		n += int64(len(inc.Qualifier) + 8)
	}
	return n
}

// leave counts what a comment write that stopped left: per listing, an
// entry missing beside a written comment, or written beside a missing
// one.
func (s *System) leave(p *puts) {
	comment := p.applied&1 != 0 // the comment is the first write's first entry
	for i, w := range p.writes[:p.n] {
		landed := p.applied&(1<<i) != 0
		for _, e := range p.entries[w.from:w.to] {
			li := listingIndex(e.t.Table)
			switch {
			case li < 0: // the comment
			case comment && !landed:
				s.cons.Unreferenced[li].Add(1)
			case !comment && landed:
				s.cons.Undefined[li].Add(1)
			}
		}
	}
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
// length, which is why an index entry never needs rewriting; a copy of
// the comment in a clustered listing does, and the system's Writes says
// how the comment and its copies are written (see editWrites).
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
	copies, err := s.findCopies(ctx, c)
	if err != nil {
		return c, fmt.Errorf("edit comment: %w", err)
	}
	if s.writes == Transactional {
		c, err = s.editTx(ctx, orderID, productID, content, ck, copies)
	} else {
		err = s.editWrites(ctx, ck, val, copies)
	}
	if err != nil {
		return c, &WriteError{Comment: c, Err: fmt.Errorf("edit comment: %w", err)}
	}
	return c, nil
}
