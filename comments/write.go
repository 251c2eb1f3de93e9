package comments

import (
	"context"
	"fmt"

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
	muts, err := s.commentMutations(c)
	if err != nil {
		return c, fmt.Errorf("write comment: %w", err)
	}
	if err := s.checkOrder(ctx, c); err != nil {
		return c, fmt.Errorf("write comment: %w", err)
	}
	for i, m := range muts {
		if s.onIndexPut != nil && m.table != keys.Comment {
			s.onIndexPut(m.table, m.mut.Row, muts[0].mut.Row) // the comment's key
		}
		if err := s.st.Mutate(ctx, m.table, m.mut); err != nil {
			return c, &WriteError{Comment: c, Written: tablesOf(muts[:i]), Err: fmt.Errorf("put %s: %w", m.table, err)}
		}
	}
	return c, nil
}

type tableMutation struct {
	table string
	mut   store.Mutation
}

// commentMutations builds the three puts of a comment, validating every id.
func (s *System) commentMutations(c model.Comment) ([]tableMutation, error) {
	for _, id := range []struct{ name, v string }{{"order", c.OrderID}, {"product", c.ProductID}, {"user", c.UserID}} {
		if err := keys.CheckID(id.v); err != nil {
			return nil, fmt.Errorf("%s id: %w", id.name, err)
		}
	}
	ck, err := s.layout.CommentKey(c.OrderID, c.ProductID)
	if err != nil {
		return nil, err
	}
	ix := keys.Key{UserID: c.UserID, ProductID: c.ProductID, OrderID: c.OrderID,
		Timestamp: c.Timestamp, ContentLen: c.ContentLen()}
	uk, err := s.userComment.AppendKey(nil, &ix)
	if err != nil {
		return nil, err
	}
	pk, err := s.productComment.AppendKey(nil, &ix)
	if err != nil {
		return nil, err
	}
	val, err := s.codec.Marshal(c)
	if err != nil {
		return nil, err
	}
	// One allocation holds the three puts and their cells.
	w := &struct {
		muts  [3]tableMutation
		cells [3]store.Cell
	}{cells: [3]store.Cell{cell(val), cell(ck), cell(ck)}}
	w.muts = [3]tableMutation{
		{keys.Comment, store.Put(ck, w.cells[0:1:1]...)},
		{keys.UserComment, store.Put(uk, w.cells[1:2:2]...)},
		{keys.ProductComment, store.Put(pk, w.cells[2:3:3]...)},
	}
	return w.muts[:], nil
}

func (s *System) checkOrder(ctx context.Context, c model.Comment) error {
	o, found, err := s.Order(ctx, c.OrderID)
	if err != nil {
		return err
	}
	if !found {
		return fmt.Errorf("order %s: %w", c.OrderID, ErrOrderNotFound)
	}
	if o.UserID != c.UserID {
		return fmt.Errorf("order %s is user %s's, not %s: %w", c.OrderID, o.UserID, c.UserID, ErrOrderUser)
	}
	return nil
}

func tablesOf(ms []tableMutation) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.table
	}
	return out
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
