package check

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"iter"

	"commentbench/comments"
	"commentbench/entry"
	"commentbench/keys"
	"commentbench/model"
	"commentbench/store"
)

// A clustered listing's entries hold a copy of the comment, not its key
// (seed 002 leaves the choice to the design). The index checks see each
// entry as the key of the comment its copy is of (referenceCopies), so a
// copy is referenced, undefined or mismatched as a key would be; copies
// then checks that each copy still says what its comment says: an edit
// that reached the comment and not its copy leaves the listing showing
// the old text.

// referenceCopies hands on the entries of a clustered listing with each
// copy's value replaced by the key of the comment it is of. A copy that
// does not decode keeps its bytes, which no comment's key is: a bad value.
func (c *checker) referenceCopies(t *keys.TableKey, rows iter.Seq2[store.Row, error]) iter.Seq2[store.Row, error] {
	return func(yield func(store.Row, error) bool) {
		for row, err := range rows {
			if err == nil {
				if ck, ok := c.copyOf(row); ok {
					row = store.Row{Key: row.Key, Cells: []store.Cell{{Qualifier: keys.Qualifier, Value: ck, Timestamp: cellTime(row)}}}
				}
			}
			if !yield(row, err) || err != nil {
				return
			}
		}
	}
}

// copyOf is the key of the comment an entry's copy is of.
func (c *checker) copyOf(row store.Row) ([]byte, bool) {
	v, _ := row.Value(keys.Qualifier)
	h, err := model.DecodeHead(c.o.Codec, v)
	if err != nil {
		return nil, false
	}
	ck, err := c.o.Layout.CommentKey(h.OrderID, h.ProductID)
	return ck, err == nil
}

// copies reads a clustered listing's entries, files each copy under its
// comment's key with a hash of its bytes, and merges them with the
// comments: a copy whose bytes are not its comment's is stale. A copy of
// no comment is the index checks' (undefined).
func (c *checker) copies(ctx context.Context, t *keys.TableKey) (Counter, error) {
	var stale Counter
	filed := c.sorter()
	defer filed.Close()
	for row, err := range c.rows(ctx, t.Store, entry.ScanOf(t, store.Scan{})) {
		if err != nil {
			return stale, err
		}
		var ferr error
		entry.Each(t, row, func(e store.Row) bool {
			if c.o.Writes == comments.Verified {
				status, payload := comments.Unframe(e.Cells[0].Value)
				if status != comments.StatusVerified {
					return true // unfinished: a reader rebuilds it from its comment
				}
				e = store.Row{Key: e.Key, Cells: []store.Cell{{Qualifier: keys.Qualifier, Value: payload}}}
			}
			if ck, ok := c.copyOf(e); ok {
				v, _ := e.Value(keys.Qualifier)
				ferr = filed.Add(ck, binary.BigEndian.AppendUint64(bytes.Clone(e.Key), copyHash(v)))
			}
			return ferr == nil
		})
		if ferr != nil {
			return stale, ferr
		}
	}
	comments := newCursor(c.wholeTable(ctx, keys.Comment))
	defer comments.close()
	for rec, err := range sorted(filed) {
		if err != nil {
			return stale, err
		}
		if !comments.seek(rec.Key) {
			continue
		}
		v, _ := comments.row.Value(keys.Qualifier)
		key, h := rec.Val[:len(rec.Val)-8], binary.BigEndian.Uint64(rec.Val[len(rec.Val)-8:])
		if copyHash(v) == h {
			continue
		}
		key, ck := bytes.Clone(key), bytes.Clone(rec.Key)
		stale.add(1, func() string {
			return fmt.Sprintf("%s holds a copy of %s that is not what it says now", c.describe(t.Table, key), c.describe(keys.Comment, ck))
		})
		c.repair.put(t.Table, key, v)
	}
	return stale, comments.close()
}

var copySeed = maphash.MakeSeed()

func copyHash(v []byte) uint64 { return maphash.Bytes(copySeed, v) }

// cellTime is the timestamp of the row's cell at keys.Qualifier, ms.
func cellTime(r store.Row) int64 {
	for _, c := range r.Cells {
		if string(c.Qualifier) == string(keys.Qualifier) {
			return c.Timestamp
		}
	}
	return 0
}
