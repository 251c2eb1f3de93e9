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
// expected rows, and the orders, users and products the comments
// reference, each in a sorter for a merge join with its table.
type pass struct {
	expected [2]*extsort.Sorter
	orders   *extsort.Sorter // order key -> userId ‖ comment key
	users    *extsort.Sorter // user key -> comment key
	products *extsort.Sorter // product key -> comment key
	refs     RefReport
	run      *RunReport // the run's ledger reconciled, with --run
}

func (p *pass) close() {
	for _, s := range []*extsort.Sorter{p.expected[0], p.expected[1], p.orders, p.users, p.products} {
		s.Close()
	}
}

// commentPass scans the comments once, reconciling the run's ledger as it
// goes. A design need not keep a comment's key in its order's key order,
// so the orders too are joined through a sort.
func (c *checker) commentPass(ctx context.Context) (*pass, error) {
	p := &pass{expected: [2]*extsort.Sorter{c.sorter(), c.sorter()}, orders: c.sorter(), users: c.sorter(), products: c.sorter()}
	run, err := c.openLedger()
	if err != nil {
		p.close()
		return nil, err
	}
	defer run.close()
	for row, err := range c.wholeTable(ctx, keys.Comment) {
		if err == nil {
			p.refs.Comments++
			c.o.Comments.Add(1)
			err = c.comment(p, row, run.at(c, row.Key))
		}
		if err != nil {
			p.close()
			return nil, err
		}
	}
	if p.run, err = run.finish(c); err != nil {
		p.close()
		return nil, err
	}
	return p, nil
}

// comment files one comment's expectations. written is the content length
// its index keys were made from, as the run's ledger recorded it; -1 when
// unknown, and then an edited comment's index rows are matched loosely.
func (c *checker) comment(p *pass, row store.Row, written int) error {
	cm, err := c.parseComment(row)
	var ok, uk, pk []byte
	if err == nil {
		ok, uk, pk, err = c.entityKeys(cm)
	}
	if err == nil {
		err = c.expect(p, cm, row.Key, written)
	}
	if err != nil {
		p.refs.BadComments.add(1, func() string { return fmt.Sprintf("%s: %v", c.describe(keys.Comment, row.Key), err) })
		return nil
	}
	val := make([]byte, 0, len(cm.UserID)+len(row.Key))
	if err := p.orders.Add(ok, append(append(val, cm.UserID...), row.Key...)); err != nil {
		return err
	}
	if err := p.users.Add(uk, row.Key); err != nil {
		return err
	}
	return p.products.Add(pk, row.Key)
}

// entityKeys are the row keys of the comment's order, user and product.
// parseComment reads a comment row: a value that decodes, whose order and
// product are its key's and whose ids are ids. Anything else is a bad
// comment, whose index rows nothing can be said of.
func (c *checker) parseComment(row store.Row) (model.Comment, error) {
	cm, err := decodeComment(c.o.Codec, row)
	if err != nil {
		return cm, err
	}
	if k, err := c.o.Layout.Decode(keys.Comment, row.Key); err != nil || k.OrderID != cm.OrderID || k.ProductID != cm.ProductID {
		return cm, fmt.Errorf("row key does not match the comment's order and product")
	}
	_, _, _, err = c.entityKeys(cm)
	return cm, err
}

func (c *checker) entityKeys(cm model.Comment) (o, u, p []byte, err error) {
	d := c.o.Layout
	if o, err = d.EntityKey(keys.Order, cm.OrderID); err != nil {
		return nil, nil, nil, err
	}
	if u, err = d.EntityKey(keys.User, cm.UserID); err != nil {
		return nil, nil, nil, err
	}
	p, err = d.EntityKey(keys.Product, cm.ProductID)
	return o, u, p, err
}

// expect adds the comment's expected row in each index. The sort key is the
// row's group: the parts before the content length, which an edit never
// changes (an edit changes the content length, which an index key may also
// hold, but index rows are written once and never updated).
func (c *checker) expect(p *pass, cm model.Comment, ck []byte, written int) error {
	d := c.o.Layout
	ix := keys.Key{UserID: cm.UserID, ProductID: cm.ProductID, OrderID: cm.OrderID, Timestamp: cm.Timestamp, ContentLen: cm.ContentLen()}
	loose := cm.IsEdited
	if written >= 0 { // the ledger knows what the keys were made from
		ix.ContentLen, loose = written, false
	}
	for i, table := range indexTables {
		ix.Table = table
		k, err := d.Encode(ix)
		if err != nil {
			return err
		}
		if err := p.expected[i].Add(k[:c.groupLen(table)], encodeExpected(loose, ck, k)); err != nil {
			return err
		}
	}
	return nil
}

// orders joins the comments' orders with the order table: each must exist
// and belong to the comment's user.
func (c *checker) orders(ctx context.Context, p *pass, r *RefReport) error {
	defer p.orders.Close()
	rows := newCursor(c.wholeTable(ctx, keys.Order))
	defer rows.close()
	for rec, err := range sorted(p.orders) {
		if err != nil {
			return err
		}
		userID, ck := string(rec.Val[:keys.IDLen]), bytes.Clone(rec.Val[keys.IDLen:])
		if !rows.seek(rec.Key) {
			okey := bytes.Clone(rec.Key)
			r.MissingOrder.add(1, func() string {
				return fmt.Sprintf("%s -> %s missing", c.describe(keys.Comment, ck), c.describe(keys.Order, okey))
			})
			continue
		}
		v, _ := rows.row.Value(keys.Qualifier)
		o, err := model.Decode[model.Order](c.o.Codec, v)
		if err != nil || o.UserID != userID {
			r.OrderUser.add(1, func() string {
				return fmt.Sprintf("%s: comment by %s, order %s is %s's", c.describe(keys.Comment, ck), userID, o.ID, o.UserID)
			})
		}
	}
	for c.tallies != nil && rows.ok { // the rest of the orders, for the spread
		rows.advance()
	}
	return rows.close()
}

// entities joins the comments' users and products with their tables, and
// the products' sellers with theirs.
func (c *checker) entities(ctx context.Context, p *pass, r *RefReport) error {
	defer p.users.Close()
	defer p.products.Close()
	if err := c.orders(ctx, p, r); err != nil {
		return err
	}
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
		sk, err := c.o.Layout.EntityKey(keys.Seller, pr.SellerID)
		if err != nil {
			sk = []byte(pr.SellerID) // no row has such a key: counted missing
		}
		return sellers.Add(sk, row.Key)
	}
	if err := c.exists(ctx, p.products, keys.Product, &r.MissingProduct, onProduct); err != nil {
		return err
	}
	return c.exists(ctx, sellers, keys.Seller, &r.MissingSeller, nil)
}

// exists merges sorted (id, referrer) records with table's rows and counts
// the referrers whose id has no row. onRow sees every row of the table.
func (c *checker) exists(ctx context.Context, refs *extsort.Sorter, table string, missing *Counter, onRow func(store.Row) error) error {
	rows := newCursor(c.wholeTable(ctx, table))
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
			key, by := bytes.Clone(rec.Key), bytes.Clone(rec.Val)
			missing.add(1, func() string { return fmt.Sprintf("%s missing, referenced by %q", c.describe(table, key), by) })
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
