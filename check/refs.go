package check

import (
	"bytes"
	"context"
	"fmt"

	"commentbench/extsort"
	"commentbench/keys"
	"commentbench/model"
	"commentbench/store"
)

// indexTables are the two listing indexes, in Report.Indexes order.
var indexTables = []string{keys.UserComment, keys.ProductComment}

// pass is what the one scan of the comment table produced: each index's
// expected rows, and the users and products the comments reference, each
// in a sorter for a merge join with its table.
type pass struct {
	expected [2]*extsort.Sorter
	users    *extsort.Sorter // userId -> comment key
	products *extsort.Sorter // productId -> comment key
	refs     RefReport
}

func (p *pass) close() {
	for _, s := range []*extsort.Sorter{p.expected[0], p.expected[1], p.users, p.products} {
		s.Close()
	}
}

// commentPass scans the comments once. Comment keys start with the order
// id, so the comments and the order table are joined as they stream.
func (c *checker) commentPass(ctx context.Context) (*pass, error) {
	p := &pass{expected: [2]*extsort.Sorter{c.sorter(), c.sorter()}, users: c.sorter(), products: c.sorter()}
	orders := newCursor(c.rows(ctx, keys.Order, store.Scan{}))
	for row, err := range c.rows(ctx, keys.Comment, store.Scan{}) {
		if err != nil {
			orders.close()
			p.close()
			return nil, err
		}
		p.refs.Comments++
		c.o.Comments.Add(1)
		if err := c.comment(p, orders, row); err != nil {
			orders.close()
			p.close()
			return nil, err
		}
	}
	if err := orders.close(); err != nil {
		p.close()
		return nil, err
	}
	return p, nil
}

func (c *checker) comment(p *pass, orders *cursor, row store.Row) error {
	cm, err := decodeComment(c.o.Codec, row)
	if err == nil {
		err = c.expect(p, cm, row.Key)
	}
	if err != nil {
		p.refs.BadComments.add(1, func() string { return fmt.Sprintf("%s: %v", c.describe(keys.Comment, row.Key), err) })
		return nil
	}
	c.checkOrder(&p.refs, orders, cm, row.Key)
	if err := p.users.Add([]byte(cm.UserID), row.Key); err != nil {
		return err
	}
	return p.products.Add([]byte(cm.ProductID), row.Key)
}

// expect adds the comment's expected row in each index. The sort key is the
// row's group: the owner's prefix and the timestamp, which an edit never
// changes (an edit changes the content length, which the product-comment
// key also holds, but index rows are written once and never updated).
func (c *checker) expect(p *pass, cm model.Comment, ck []byte) error {
	if o, pr, err := keys.SplitCommentKey(ck); err != nil || o != cm.OrderID || pr != cm.ProductID {
		return fmt.Errorf("row key does not match the comment's order and product")
	}
	uk, err := c.o.Layout.UserCommentKey(cm.UserID, cm.Timestamp, ck)
	if err != nil {
		return err
	}
	pk, err := c.o.Layout.ProductCommentKey(cm.ProductID, cm.Timestamp, cm.ContentLen(), ck)
	if err != nil {
		return err
	}
	for i, k := range [][]byte{uk, pk} {
		g := groupLen(indexTables[i])
		if err := p.expected[i].Add(k[:g], encodeExpected(cm.IsEdited, ck, k)); err != nil {
			return err
		}
	}
	return nil
}

func (c *checker) checkOrder(r *RefReport, orders *cursor, cm model.Comment, ck []byte) {
	okey := ck[:keys.IDLen]
	if !orders.seek(okey) {
		r.MissingOrder.add(1, func() string {
			return fmt.Sprintf("%s -> order %s missing", c.describe(keys.Comment, ck), cm.OrderID)
		})
		return
	}
	v, _ := orders.row.Value(keys.Qualifier)
	o, err := model.Decode[model.Order](c.o.Codec, v)
	if err != nil || o.UserID != cm.UserID {
		r.OrderUser.add(1, func() string {
			return fmt.Sprintf("%s: comment by %s, order %s is %s's", c.describe(keys.Comment, ck), cm.UserID, cm.OrderID, o.UserID)
		})
	}
}

// entities joins the comments' users and products with their tables, and
// the products' sellers with theirs.
func (c *checker) entities(ctx context.Context, p *pass, r *RefReport) error {
	defer p.users.Close()
	defer p.products.Close()
	if err := c.exists(ctx, p.users, keys.User, &r.MissingUser, nil); err != nil {
		return err
	}
	sellers := c.sorter()
	defer sellers.Close()
	onProduct := func(row store.Row) error {
		v, _ := row.Value(keys.Qualifier)
		pr, err := model.Decode[model.Product](c.o.Codec, v)
		if err != nil {
			return nil // a product that does not decode still exists
		}
		return sellers.Add([]byte(pr.SellerID), row.Key)
	}
	if err := c.exists(ctx, p.products, keys.Product, &r.MissingProduct, onProduct); err != nil {
		return err
	}
	return c.exists(ctx, sellers, keys.Seller, &r.MissingSeller, nil)
}

// exists merges sorted (id, referrer) records with table's rows and counts
// the referrers whose id has no row. onRow sees every row of the table.
func (c *checker) exists(ctx context.Context, refs *extsort.Sorter, table string, missing *Counter, onRow func(store.Row) error) error {
	rows := newCursor(c.rows(ctx, table, store.Scan{}))
	defer rows.close()
	for rec, err := range sorted(refs) {
		if err != nil {
			return err
		}
		for rows.ok && bytes.Compare(rows.row.Key, rec.Key) < 0 {
			if err := c.visit(rows, onRow); err != nil {
				return err
			}
		}
		if !rows.ok || !bytes.Equal(rows.row.Key, rec.Key) {
			id, by := string(rec.Key), bytes.Clone(rec.Val)
			missing.add(1, func() string { return fmt.Sprintf("%s %q missing, referenced by %q", table, id, by) })
		}
	}
	for rows.ok {
		if err := c.visit(rows, onRow); err != nil {
			return err
		}
	}
	return rows.close()
}

func (c *checker) visit(rows *cursor, onRow func(store.Row) error) error {
	if onRow != nil {
		if err := onRow(rows.row); err != nil {
			return err
		}
	}
	rows.advance()
	return nil
}
