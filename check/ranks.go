package check

import (
	"bytes"
	"context"
	"fmt"

	"commentbench/entry"
	"commentbench/keys"
	"commentbench/model"
	"commentbench/store"
)

// ranks checks each product's ranking: rank rows are sorted by product,
// then rank, so one product's ranking arrives together.
func (c *checker) ranks(ctx context.Context) (RankReport, error) {
	var r RankReport
	var product string
	var group []rankRow
	flush := func() error {
		if len(group) == 0 {
			return nil
		}
		r.Products++
		err := c.rankGroup(ctx, &r, product, group)
		group = group[:0]
		return err
	}
	for row, err := range c.wholeTable(ctx, keys.ProductRank) {
		if err != nil {
			return r, err
		}
		r.Rows++
		k, err := c.o.Layout.Decode(keys.ProductRank, row.Key)
		if err != nil {
			r.Unparsable.add(1, func() string { return fmt.Sprintf("%q: %v", row.Key, err) })
			c.repair.del(keys.ProductRank, bytes.Clone(row.Key)) // no ranking can read it
			continue
		}
		if k.ProductID != product {
			if err := flush(); err != nil {
				return r, err
			}
			product = k.ProductID
		}
		v, _ := row.Value(keys.Qualifier)
		group = append(group, rankRow{rank: k.Rank, key: row.Key, ck: v})
	}
	return r, flush()
}

type rankRow struct {
	rank    int
	key, ck []byte
}

func (c *checker) rankGroup(ctx context.Context, r *RankReport, product string, rows []rankRow) error {
	before := r.problems()
	got, err := c.rankedComments(ctx, r, rows)
	if err != nil {
		return err
	}
	seen := map[string]int{}
	for i, rr := range rows {
		desc := func() string { return c.describe(keys.ProductRank, rr.key) }
		if rr.rank > keys.MaxRank {
			r.OverLimit.add(1, desc)
		}
		if got[i] == nil {
			continue // no comment's key: counted
		}
		// Stale is a comment repeated lower in the ranking, what a shorter
		// ranking written over a longer one leaves. When each row was
		// written says nothing more: one row rewritten since would make
		// every other row look left over.
		first, dup := seen[string(rr.ck)]
		if dup {
			r.Stale.add(1, func() string { return fmt.Sprintf("%s repeats rank %d's comment %q", desc(), first, rr.ck) })
		} else {
			seen[string(rr.ck)] = rr.rank
		}
		c.rankTarget(r, product, *got[i], rr, desc)
	}
	if missing := missingRanks(rows); missing > 0 {
		r.Gaps.add(int64(missing), func() string {
			return fmt.Sprintf("product %s: %d ranks missing below %d", product, missing, rows[len(rows)-1].rank)
		})
	}
	if r.problems() != before {
		c.repair.rerank(product)
	}
	return nil
}

// rankedComments reads the comments the rank rows name, nil for a row that
// names none (counted here as a bad value).
func (c *checker) rankedComments(ctx context.Context, r *RankReport, rows []rankRow) ([]*store.Row, error) {
	var cks [][]byte
	for _, rr := range rows {
		if _, err := c.o.Layout.Decode(keys.Comment, rr.ck); err != nil {
			r.BadValue.add(1, func() string {
				return fmt.Sprintf("%s holds %q, no comment's key", c.describe(keys.ProductRank, rr.key), rr.ck)
			})
			continue
		}
		cks = append(cks, rr.ck)
	}
	read, err := entry.Get(ctx, c.st, c.o.Layout.Table(keys.Comment), cks)
	if err != nil {
		return nil, fmt.Errorf("get %s: %w", keys.Comment, err)
	}
	got := make([]*store.Row, len(rows))
	for i, rr := range rows {
		if len(read) > 0 && len(cks) > 0 && string(cks[0]) == string(rr.ck) {
			got[i], read, cks = &read[0], read[1:], cks[1:]
		}
	}
	return got, nil
}

func (c *checker) rankTarget(r *RankReport, product string, row store.Row, rr rankRow, desc func() string) {
	if !row.Found() {
		r.Dangling.add(1, func() string { return fmt.Sprintf("%s -> %q, which does not exist", desc(), rr.ck) })
		return
	}
	v, _ := row.Value(keys.Qualifier)
	cm, err := model.Decode[model.Comment](c.o.Codec, v)
	switch {
	case err != nil:
		r.BadComment.add(1, func() string { return fmt.Sprintf("%s -> comment 0x%x, whose value does not decode", desc(), rr.ck) })
	case cm.ProductID != product:
		r.WrongProduct.add(1, func() string { return fmt.Sprintf("%s -> comment of product %s", desc(), cm.ProductID) })
	}
}

// missingRanks counts the ranks absent from 1..the highest rank within
// MaxRank.
func missingRanks(rows []rankRow) int {
	have, top := map[int]bool{}, 0
	for _, rr := range rows {
		if rr.rank <= keys.MaxRank {
			have[rr.rank], top = true, max(top, rr.rank)
		}
	}
	return top - len(have)
}

func (r *RankReport) problems() int64 {
	// Not BadComment: a ranking would rank the comment again, and the
	// comment is beyond repair.
	return r.OverLimit.Count + r.Gaps.Count + r.Stale.Count + r.Dangling.Count + r.WrongProduct.Count + r.BadValue.Count
}
