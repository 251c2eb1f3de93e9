package check

import (
	"bytes"
	"context"
	"fmt"

	"commentbench/comments"
	"commentbench/entry"
	"commentbench/keys"
	"commentbench/store"
)

// A listing kept in its owner's row may keep a count of its entries there
// too (a collection's metadata column, seed 002's), which every write
// adds one to. counts checks each count against the entries beside it.

// countReport is what counts found in one listing.
type countReport struct {
	collections int64
	off         Counter
}

// counts reads the store table of a listing kept with a count, a batch of
// each row's cells at a time, and compares each row's count with the
// listing's entries in that row. A row with neither is no collection.
func (c *checker) counts(ctx context.Context, t *keys.TableKey) (countReport, error) {
	var r countReport
	var row, meta []byte
	var n int64
	flush := func() {
		if row == nil || (meta == nil && n == 0) {
			return
		}
		r.collections++
		got, err := comments.DecodeCount(meta)
		if err == nil && got == n {
			return
		}
		key, held := bytes.Clone(row), n
		r.off.add(1, func() string {
			if err != nil {
				return fmt.Sprintf("%s: count %q: %v; %d entries", c.o.Layout.Describe(t.Store, key), meta, err, held)
			}
			return fmt.Sprintf("%s: counts %d, holds %d entries", c.o.Layout.Describe(t.Store, key), got, held)
		})
		c.repair.recount(t.Table, key)
	}
	for r, err := range c.rows(ctx, t.Store, store.Scan{Batch: entry.Batch}) {
		if err != nil {
			return countReport{}, err
		}
		if len(r.Key) != t.RowLen {
			continue
		}
		if !bytes.Equal(r.Key, row) {
			flush()
			row, meta, n = append(row[:0], r.Key...), nil, 0
		}
		for _, cell := range r.Cells {
			switch {
			case entry.Of(t, r.Key, cell.Qualifier):
				n++
			case bytes.Equal(cell.Qualifier, t.Meta):
				meta = append([]byte{}, cell.Value...)
			}
		}
	}
	flush()
	return r, nil
}

// recount sets the count of each collection a repair touched, or that
// counted wrong, to the entries its row holds once the repair's puts and
// deletes are done.
func recount(ctx context.Context, st store.Store, layout *keys.Design, rows map[string]map[string]bool) error {
	for table, set := range rows {
		t := layout.Table(table)
		for row := range set {
			n := int64(0)
			start := []byte(row)
			_, err := st.Scan(ctx, t.Store, store.Scan{Start: start, Stop: append([]byte(row), 0), Batch: entry.Batch}, func(r store.Row) bool {
				for _, cell := range r.Cells {
					if entry.Of(t, r.Key, cell.Qualifier) {
						n++
					}
				}
				return true
			})
			if err == nil {
				err = st.Mutate(ctx, t.Store, store.Put(start, store.Cell{Qualifier: t.Meta, Value: comments.EncodeCount(n)}))
			}
			if err != nil {
				return fmt.Errorf("repair the count of %s row %q: %w", table, row, err)
			}
		}
	}
	return nil
}
