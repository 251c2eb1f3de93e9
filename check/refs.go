package check

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"

	"commentbench/extsort"
	"commentbench/keys"
	"commentbench/model"
	"commentbench/store"
)

// maxIndexes is how many listing indexes a design may give (keys.Indexes).
const maxIndexes = 3

// pass is what a scan of the comment table produced. The first pass
// files the orders, users and products the comments reference, each in a
// sorter for a merge join with its table, and sums up each index's
// expected rows (see sums). A join pass, run only for an index those sums
// do not prove, files its expected rows in the buckets they do not.
type pass struct {
	join bool

	want     [maxIndexes]*sums
	live     *liveOrders     // the first pass's join of the orders as it reads
	orders   *extsort.Sorter // order key -> userId ‖ comment key, for the orders not joined live
	users    *referrers      // user key -> comment keys
	products *referrers      // product key -> comment keys
	refs     RefReport
	run      *RunReport // the run's ledger reconciled, with --run

	joins    [maxIndexes]*unproved       // nil for an index not joined
	expected [maxIndexes]*extsort.Sorter // the rows its joined buckets' comments call for
	unlisted [maxIndexes]*extsort.Sorter // comment key -> nothing: the bad comments, to start with
}

func (c *checker) firstPass() *pass {
	return &pass{live: &liveOrders{}, orders: c.sorter(), users: c.referrers(), products: c.referrers(), want: c.newSums()}
}

func (c *checker) newSums() (out [maxIndexes]*sums) {
	for i, table := range c.indexes {
		out[i] = newSums(c.groupLen(table))
	}
	return out
}

// joinPass files the expected rows of the unproved indexes' joined
// buckets.
func (c *checker) joinPass(first *pass, us []*unproved) *pass {
	p := &pass{join: true}
	for _, u := range us {
		p.joins[u.i], p.expected[u.i], p.unlisted[u.i] = u, c.sorter(), c.sorter()
	}
	return p
}

func (p *pass) close() {
	for _, s := range []*extsort.Sorter{p.expected[0], p.expected[1], p.unlisted[0], p.unlisted[1], p.orders} {
		if s != nil {
			s.Close()
		}
	}
	for _, r := range []*referrers{p.users, p.products} {
		if r != nil {
			r.out.Close()
		}
	}
	if p.live != nil && p.live.rows != nil {
		p.live.rows.close()
	}
}

// commentPass scans the comments once, reconciling the run's ledger as it
// goes, and joining the comments' orders as it reads them for as long as
// they come in the orders' key order (see liveOrders). Reading the rows,
// parsing them and filing them each take a goroutine: filing alone takes
// a core. It closes p on failure.
func (c *checker) commentPass(ctx context.Context, p *pass) (*pass, error) {
	run := ledgerWalk(&runLedger{}) // a join pass has the first pass's
	if !p.join {
		var err error
		if run, err = c.openLedger(); err != nil {
			p.close()
			return nil, err
		}
	}
	defer run.close()
	if p.live != nil {
		p.live.rows = newCursor(c.wholeTable(ctx, keys.Order))
	}
	var seen counted
	if !p.join {
		defer seen.flush(c.o.Comments)
	}
	for pc, err := range ahead(ctx, c.wholeTable(ctx, keys.Comment), c.parse) {
		if err == nil {
			p.refs.Comments++
			if !p.join {
				seen.add(c.o.Comments)
			}
			run.at(c, pc.row.Key)
			err = c.comment(p, pc)
		}
		if err != nil {
			p.close()
			return nil, err
		}
	}
	var err error
	if p.run, err = run.finish(ctx, c); err == nil {
		err = c.endLive(p.live)
	}
	if err != nil {
		p.close()
		return nil, err
	}
	return p, nil
}

// liveOrders joins the comments with their orders as the first pass reads
// them, a merge of the two tables' scans with no sort, for as long as each
// comment's order key is at or past the one before: throughout, when a
// design's comment key leads with its order's key, as the built-in
// designs' do. The first comment out of that order ends the live join;
// it and the comments after it are sorted and joined after the pass
// (orders), as all of them are for a design that keys comments otherwise.
type liveOrders struct {
	rows   *cursor // the order table; nil once ended
	last   []byte
	broken bool // ended by a comment out of order
}

// joinLive checks the comment's order live and reports true, or reports false
// once the live join has ended.
func (c *checker) joinLive(l *liveOrders, okey []byte, user string, ck []byte, r *RefReport) (bool, error) {
	if l == nil || l.broken {
		return false, nil
	}
	if bytes.Compare(okey, l.last) < 0 {
		l.broken = true
		err := l.rows.close()
		l.rows = nil
		if t := c.tallies[keys.Order]; t != nil {
			t.reset() // the order table is read again, whole, after the pass
		}
		return false, err
	}
	l.last = append(l.last[:0], okey...)
	checkOrder(c, l.rows, okey, user, ck, r)
	return true, nil
}

// endLive ends a live join that lasted the whole pass: the rest of the
// order table is read for the data spread.
func (c *checker) endLive(l *liveOrders) error {
	if l == nil || l.rows == nil {
		return nil
	}
	for c.tallies != nil && l.rows.ok {
		l.rows.advance()
	}
	err := l.rows.close()
	l.rows = nil
	return err
}

// parsed is a comment row read, with the keys its fields make: of its
// order, user and product, and its rows in the two indexes as its content
// length makes them.
type parsed struct {
	row        store.Row
	cm         model.CommentHead
	ok, uk, pk []byte
	ix         [maxIndexes][]byte
	err        error // a bad comment
}

// parse reads a comment row: a value that decodes, whose order and
// product are its key's, whose ids are ids and make index keys. Anything
// else is a bad comment, whose index rows nothing can be said of.
func (c *checker) parse(row store.Row) parsed {
	pc := parsed{row: row}
	pc.cm, pc.err = c.parseComment(row)
	if pc.err == nil {
		pc.err = c.keysOf(&pc)
	}
	return pc
}

// keysOf makes the comment's entity and index keys, in one buffer: five
// allocations a comment were a tenth of a check's.
func (c *checker) keysOf(pc *parsed) error {
	d, cm := c.o.Layout, &pc.cm
	buf := make([]byte, 0, c.keysLen)
	var err error
	next := func(k *keys.Key) []byte {
		if err != nil {
			return nil
		}
		at := len(buf)
		if buf, err = d.EncodeTo(buf, k); err != nil {
			return nil
		}
		return buf[at:len(buf):len(buf)]
	}
	k := keys.Key{Table: keys.Order, ID: cm.OrderID}
	pc.ok = next(&k)
	k.Table, k.ID = keys.User, cm.UserID
	pc.uk = next(&k)
	k.Table, k.ID = keys.Product, cm.ProductID
	pc.pk = next(&k)
	k = keys.Key{UserID: cm.UserID, ProductID: cm.ProductID, OrderID: cm.OrderID, Timestamp: cm.Timestamp, ContentLen: cm.ContentLen}
	for i, table := range c.indexes {
		k.Table = table
		pc.ix[i] = next(&k)
	}
	return err
}

// comment files one comment's expectations. An edited comment's index
// rows are matched loosely, with any content length: the seed's edit
// leaves them keyed by the length before it, which the comment no longer
// holds.
func (c *checker) comment(p *pass, pc parsed) error {
	ck, ix, err := pc.row.Key, pc.ix, pc.err
	loose := pc.cm.IsEdited
	if err != nil {
		p.refs.BadComments.add(1, func() string { return fmt.Sprintf("%s: %v", c.describe(keys.Comment, ck), err) })
		// It has no row of its own in either index: rows pointing at it
		// are all extra.
		for _, u := range p.unlisted {
			if u == nil {
				continue
			}
			if err := u.Add(ck, nil); err != nil {
				return err
			}
		}
		return nil
	}
	if p.join {
		return c.expect(p, ck, ix, loose)
	}
	p.wantRows(ck, ix, loose)
	if live, err := c.joinLive(p.live, pc.ok, pc.cm.UserID, ck, &p.refs); err != nil {
		return err
	} else if !live {
		val := make([]byte, 0, len(pc.cm.UserID)+len(ck))
		if err := p.orders.Add(pc.ok, append(append(val, pc.cm.UserID...), ck...)); err != nil {
			return err
		}
	}
	if err := p.users.add(pc.uk, ck); err != nil {
		return err
	}
	return p.products.add(pc.pk, ck)
}

// wantRows sums up the comment's expected index rows.
func (p *pass) wantRows(ck []byte, ix [maxIndexes][]byte, loose bool) {
	for i, w := range p.want {
		if w == nil {
			continue
		}
		if loose && len(ix[i]) > w.g { // a key with a length in it: any length may be the row's
			w.leaveOpen(ix[i])
		} else {
			w.add(ix[i], ck)
		}
	}
}

// parseComment reads a comment row's value and checks it against the
// row's key: its order and product must be the key's.
func (c *checker) parseComment(row store.Row) (model.CommentHead, error) {
	cm, err := decodeComment(c.o.Codec, row)
	if err != nil {
		return cm, err
	}
	return cm, c.keyOf(row.Key, &cm)
}

var errKeyMismatch = errors.New("row key does not match the comment's order and product")

// keyOf checks that key is the comment table's key of cm's order and
// product. A design's comment key is made of those two alone (literals,
// salts and hashes of them; keys.Parse allows nothing else), so encoding
// them answers, with no allocation; ids that make no key make the comment
// a bad one for that.
func (c *checker) keyOf(key []byte, cm *model.CommentHead) error {
	var buf [64]byte
	k := keys.Key{Table: keys.Comment, OrderID: cm.OrderID, ProductID: cm.ProductID}
	enc, err := c.o.Layout.EncodeTo(buf[:0], &k)
	switch {
	case err != nil:
		return err
	case string(enc) != string(key):
		return errKeyMismatch
	}
	return nil
}

// indexKey is the comment's row in table, made with the given content
// length.
func (c *checker) indexKey(cm model.CommentHead, table string, contentLen int) ([]byte, error) {
	return c.o.Layout.Encode(keys.Key{Table: table, UserID: cm.UserID, ProductID: cm.ProductID, OrderID: cm.OrderID,
		Timestamp: cm.Timestamp, ContentLen: contentLen})
}

// expect files the comment's expected row in each index joined. The sort
// key is the row's group: the parts before the content length, which an
// edit never changes (an edit changes the content length, which an index
// key may also hold, but index rows are written once and never updated).
func (c *checker) expect(p *pass, ck []byte, ix [maxIndexes][]byte, loose bool) error {
	for i, table := range c.indexes {
		if u := p.joins[i]; u == nil || !u.join[u.sums.bucket(ix[i])] {
			continue
		}
		g := min(c.groupLen(table), len(ix[i]))
		if err := p.expected[i].Add(ix[i][:g], encodeExpected(loose, ck, ix[i][g:])); err != nil {
			return err
		}
	}
	return nil
}

// orders joins the comments' orders that the live join left (all of them,
// for a design whose comment keys are not in their orders' key order)
// with the order table.
func (c *checker) orders(ctx context.Context, p *pass, r *RefReport) error {
	defer p.orders.Close()
	if p.live != nil && !p.live.broken {
		return nil // every comment's order was joined live
	}
	rows := newCursor(c.wholeTable(ctx, keys.Order))
	defer rows.close()
	for rec, err := range sorted(p.orders) {
		if err != nil {
			return err
		}
		// The record's bytes are good until the next; only a sample keeps them.
		checkOrder(c, rows, rec.Key, rec.Val[:keys.IDLen], rec.Val[keys.IDLen:], r)
	}
	for c.tallies != nil && rows.ok { // the rest of the orders, for the spread
		rows.advance()
	}
	return rows.close()
}

// checkOrder checks a comment's order: rows, the order table's cursor, is
// advanced to it; it must exist and be the comment's user's. okey and ck
// are good only until the call returns.
func checkOrder[U string | []byte](c *checker, rows *cursor, okey []byte, user U, ck []byte, r *RefReport) {
	if !rows.seek(okey) {
		ck, okey := bytes.Clone(ck), bytes.Clone(okey)
		r.MissingOrder.add(1, func() string {
			return fmt.Sprintf("%s -> %s missing", c.describe(keys.Comment, ck), c.describe(keys.Order, okey))
		})
		return
	}
	v, _ := rows.row.Value(keys.Qualifier)
	if got, err := model.OrderUserID(c.o.Codec, v); err == nil && string(got) == string(user) {
		return
	}
	ck, v, userID := bytes.Clone(ck), bytes.Clone(v), string(user)
	r.OrderUser.add(1, func() string {
		o, _ := model.Decode[model.Order](c.o.Codec, v)
		return fmt.Sprintf("%s: comment by %s, order %s is %s's", c.describe(keys.Comment, ck), userID, o.ID, o.UserID)
	})
}

// users joins the comments' users with their table.
func (c *checker) users(ctx context.Context, p *pass, r *RefReport) error {
	defer p.users.out.Close()
	return c.exists(ctx, p.users, keys.User, &r.MissingUser, nil)
}

// products joins the comments' products with their table, and the
// products' sellers with theirs.
func (c *checker) products(ctx context.Context, p *pass, r *RefReport) error {
	defer p.products.out.Close()
	sellers := c.referrers()
	defer sellers.out.Close()
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
		return sellers.add(sk, row.Key)
	}
	if err := c.exists(ctx, p.products, keys.Product, &r.MissingProduct, onProduct); err != nil {
		return err
	}
	return c.exists(ctx, sellers, keys.Seller, &r.MissingSeller, nil)
}

// exists merges the referenced keys, sorted, with table's rows and counts
// the referrers whose key has no row. onRow sees every row of the table.
func (c *checker) exists(ctx context.Context, refs *referrers, table string, missing *Counter, onRow func(store.Row) error) error {
	rows := newCursor(c.wholeTable(ctx, table))
	defer rows.close()
	if err := refs.flush(); err != nil {
		return err
	}
	for rec, err := range sorted(refs.out) {
		if err != nil {
			return err
		}
		for rows.ok && bytes.Compare(rows.row.Key, rec.Key) < 0 {
			if err := c.visit(rows, onRow); err != nil {
				return err
			}
		}
		if !rows.ok || !bytes.Equal(rows.row.Key, rec.Key) {
			n, by := decodeReferrers(rec.Val)
			missing.add(n, func() string {
				s := fmt.Sprintf("%s missing, referenced by %q", c.describe(table, rec.Key), by)
				if n > 1 {
					s += fmt.Sprintf(" and %d more", n-1)
				}
				return s
			})
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

// referrers counts the referrers of each referenced key in memory, up to
// maxReferenced keys at a time, and files each key in out once per
// flush, with its count and first referrer. A product that 90,000
// comments reference is then sorted once, not 90,000 times.
type referrers struct {
	out   *extsort.Sorter     // key -> uvarint(count) ‖ first referrer
	short map[shortKey]uint64 // count<<idxBits | the key's place in refs
	long  map[string]uint64   // the same, for keys too long for a shortKey
	refs  []referred          // in the order first seen
	val   []byte
}

// idxBits holds a key's place in refs (up to maxReferenced) in the low
// bits of its map value, its count above: a key seen again is counted by
// one map operation, `+=` in its slot, where a read and a write of the
// slot took two.
const idxBits = 20

// A place must fit in idxBits: the constant overflows, and the build
// fails, if maxReferenced grows past them.
const _ = uint(1<<idxBits - maxReferenced)

type referred struct{ key, first []byte }

// shortKey holds a key of up to 23 bytes inline, its length last: a map
// keyed by it compares keys without following a pointer to their bytes.
// With the count in the slot too, a million comments' users and products
// took 0.45 s of CPU where a map of strings to counts took 0.58 s: what
// is left is the cache misses of a hundred thousand users.
type shortKey [24]byte

// maxReferenced bounds the keys a referrers counts before it flushes: a
// few tens of MiB.
const maxReferenced = 1 << 17

func (c *checker) referrers() *referrers {
	return &referrers{out: c.sorter(), short: map[shortKey]uint64{}, long: map[string]uint64{}}
}

func (r *referrers) add(key, by []byte) error {
	if len(key) >= len(shortKey{}) {
		return r.addLong(key, by)
	}
	var sk shortKey
	copy(sk[:], key)
	sk[len(sk)-1] = byte(len(key))
	n := len(r.short)
	r.short[sk] += 1 << idxBits
	if len(r.short) == n { // a key seen since the last flush
		return nil
	}
	if r.full() {
		delete(r.short, sk) // counted after the flush, not in it
	}
	place, err := r.first(key, by)
	r.short[sk] = 1<<idxBits | place
	return err
}

func (r *referrers) addLong(key, by []byte) error {
	if v, ok := r.long[string(key)]; ok {
		r.long[string(key)] = v + 1<<idxBits
		return nil
	}
	place, err := r.first(key, by)
	r.long[string(key)] = 1<<idxBits | place
	return err
}

func (r *referrers) full() bool { return len(r.refs) >= maxReferenced }

// first files a key's first referrer, flushing the counts first when there
// is no room, and returns the key's place in refs.
func (r *referrers) first(key, by []byte) (uint64, error) {
	if r.full() {
		if err := r.flush(); err != nil {
			return 0, err
		}
	}
	r.refs = append(r.refs, referred{key: bytes.Clone(key), first: bytes.Clone(by)})
	return uint64(len(r.refs) - 1), nil
}

// flush files the counted keys in out, in the order they were first seen.
func (r *referrers) flush() error {
	counts := make([]int64, len(r.refs))
	for _, v := range r.short {
		counts[v&(1<<idxBits-1)] = int64(v >> idxBits)
	}
	for _, v := range r.long {
		counts[v&(1<<idxBits-1)] = int64(v >> idxBits)
	}
	for i, e := range r.refs {
		r.val = append(binary.AppendUvarint(r.val[:0], uint64(counts[i])), e.first...)
		if err := r.out.Add(e.key, r.val); err != nil {
			return err
		}
	}
	clear(r.short)
	clear(r.long)
	clear(r.refs) // let the keys go
	r.refs = r.refs[:0]
	return nil
}

func decodeReferrers(v []byte) (n int64, first []byte) {
	u, w := binary.Uvarint(v)
	return int64(u), v[w:]
}
