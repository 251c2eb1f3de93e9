package comments

import (
	"context"
	"fmt"
	"slices"

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
// one of another user; then put the comment, its user-comment row and its
// product-comment row, in that order, each its own request. Every key is
// built before the first put, so bad input never leaves a half-written
// comment; a failed put may, and is returned as a *WriteError.
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
	for i, t := range commentTables {
		if s.onIndexPut != nil && t != keys.Comment {
			s.onIndexPut(t, p.muts[i].Row, p.muts[0].Row) // the comment's key
		}
		if err := s.st.Mutate(ctx, t, p.muts[i:i+1]...); err != nil {
			return c, &WriteError{Comment: c, Written: slices.Clone(commentTables[:i]), Err: fmt.Errorf("put %s: %w", t, err)}
		}
	}
	return c, nil
}

// commentTables are the tables of a comment's three puts, in the order the
// seed writes them.
var commentTables = [...]string{keys.Comment, keys.UserComment, keys.ProductComment}

// puts are a comment's three puts, one per table of commentTables, with
// their cells: one allocation, and each put is handed to Mutate as a slice
// of it.
type puts struct {
	muts  [len(commentTables)]store.Mutation
	cells [len(commentTables)]store.Cell
}

// commentPuts builds the three puts of a comment, validating every id. The
// keys and the value share one buffer.
func (s *System) commentPuts(c *model.Comment) (*puts, error) {
	for _, id := range []struct{ name, v string }{{"order", c.OrderID}, {"product", c.ProductID}, {"user", c.UserID}} {
		if err := keys.CheckID(id.v); err != nil {
			return nil, fmt.Errorf("%s id: %w", id.name, err)
		}
	}
	ix := keys.Key{UserID: c.UserID, ProductID: c.ProductID, OrderID: c.OrderID,
		Timestamp: c.Timestamp, ContentLen: c.ContentLen()}
	buf := make([]byte, 0, s.comment.Len+s.userComment.Len+s.productComment.Len+model.CommentJSONLen(c))
	var ks [len(commentTables)][]byte
	for i, t := range [...]*keys.TableKey{s.comment, s.userComment, s.productComment} {
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
	for i, v := range [...][]byte{val, ks[0], ks[0]} { // an index row's value is the comment's key
		p.cells[i] = cell(v)
		p.muts[i] = store.Put(ks[i], p.cells[i:i+1:i+1]...)
	}
	return p, nil
}

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
	row, err := s.st.Get(ctx, keys.Order, k)
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
// rows are not touched: their keys hold the original timestamp and length,
// which is why an index row never needs rewriting.
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
	if err := s.st.Mutate(ctx, keys.Comment, store.Put(ck, cell(val))); err != nil {
		return c, fmt.Errorf("edit comment: put %s: %w", keys.Comment, err)
	}
	return c, nil
}
