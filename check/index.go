package check

import (
	"bytes"
	"context"
	"fmt"
	"iter"
	"slices"

	"commentbench/extsort"
	"commentbench/keys"
	"commentbench/store"
)

// groupLen is how many bytes of an index key name its group: the parts
// before the content length, which no edit of a comment changes (see
// keys.TableKey.GroupLen).
func (c *checker) groupLen(table string) int {
	return c.o.Layout.Table(table).GroupLen()
}

func groupOf(key []byte, g int) []byte { return key[:min(g, len(key))] }

// expected is a comment's expected index row.
type expected struct {
	edited     bool
	referenced bool   // matched to a row of the group
	ck         []byte // the comment's row key
	key        []byte // the index key its fields produce
}

// encodeExpected is a comment's expected row as filed: a flag, the comment
// key with its length, and the index key. Filed under its group, the key
// is given without it (appendExpected puts it back).
func encodeExpected(edited bool, ck, key []byte) []byte {
	b := make([]byte, 0, 2+len(ck)+len(key))
	flag := byte(0)
	if edited {
		flag = 1
	}
	b = append(b, flag, byte(len(ck)))
	b = append(b, ck...)
	return append(b, key...)
}

// appendExpected appends a filed expected row with its group put back
// before its key's suffix, as decodeExpected reads it.
func appendExpected(dst, group, filed []byte) []byte {
	n := 2 + int(filed[1])
	dst = append(dst, filed[:n]...)
	dst = append(dst, group...)
	return append(dst, filed[n:]...)
}

// decodeExpected reads an expected row; the slices are v's.
func decodeExpected(v []byte) expected {
	n := int(v[1])
	return expected{edited: v[0] == 1, ck: v[2 : 2+n], key: v[2+n:]}
}

// index checks one index table against the comments' expected rows, in
// the buckets its sums did not prove (the rows of the others are counted
// as their comments' own). Both streams are sorted by group; within a
// group (one owner, one millisecond) rows and comments are matched in
// memory. The rows that are not their comment's own (strays) are then
// sorted by the comment they point at, to find extra references and tell
// a mismatched row from an undefined one.
//
// Only strays are sorted, not every row: a comment has at most one row of
// its own, and it has one unless it is among the unlisted (the comments
// with none, and the bad ones, which the pass files there). A comment of
// a proved bucket has its own row, and is not filed at all.
func (c *checker) index(ctx context.Context, u *unproved, exp, unlisted *extsort.Sorter) (IndexReport, error) {
	table := c.indexes[u.i]
	r := IndexReport{Table: table}
	defer exp.Close() // its buffer is not needed past the match
	defer unlisted.Close()
	strays := c.sorter()
	defer strays.Close()
	if err := c.matchGroups(ctx, u, exp, &r, sinks{strays, unlisted}); err != nil {
		return r, err
	}
	return r, c.resolve(ctx, table, strays, unlisted, &r)
}

// sinks are where matching files what resolve needs: strays (comment key
// -> the row's key) and unlisted comments (comment key, no value).
type sinks struct{ strays, unlisted *extsort.Sorter }

// matchGroups walks both streams a group at a time. A group's comments
// and rows are held only until the next group, in buffers reused from
// group to group.
func (c *checker) matchGroups(ctx context.Context, u *unproved, exp *extsort.Sorter, r *IndexReport, out sinks) error {
	table := c.indexes[u.i]
	g := c.groupLen(table)
	it, err := exp.Sort()
	if err != nil {
		return err
	}
	expOK := it.Next()
	rows := newCursor(joined(c.wholeTable(ctx, table), u, r))
	defer rows.close()
	var (
		gk, vals, state []byte
		ends            []int
		comments        []expected
		grp             []store.Row
	)
	for expOK || rows.ok {
		gk = nextGroup(gk[:0], it.Record().Key, expOK, rows, g)
		vals, ends = vals[:0], ends[:0]
		for expOK && bytes.Equal(it.Record().Key, gk) {
			vals = appendExpected(vals, gk, it.Record().Val)
			ends = append(ends, len(vals))
			expOK = it.Next()
		}
		comments = comments[:0]
		start := 0
		for _, end := range ends {
			comments = append(comments, decodeExpected(vals[start:end]))
			start = end
		}
		grp = grp[:0]
		for rows.ok && bytes.Equal(groupOf(rows.row.Key, g), gk) {
			grp = append(grp, rows.row)
			rows.advance()
		}
		r.Rows += int64(len(grp))
		state = append(state[:0], make([]byte, len(grp))...)
		if err := c.match(table, comments, grp, state, r, out); err != nil {
			return err
		}
	}
	if err := it.Err(); err != nil {
		return err
	}
	return rows.close()
}

// joined passes on the rows in the buckets to join; the others, proved,
// are counted each as its comment's own.
func joined(rows iter.Seq2[store.Row, error], u *unproved, r *IndexReport) iter.Seq2[store.Row, error] {
	return func(yield func(store.Row, error) bool) {
		for row, err := range rows {
			if err == nil && !u.join[u.sums.bucket(row.Key)] {
				r.Rows++
				r.Referenced++
				continue
			}
			if !yield(row, err) {
				return
			}
		}
	}
}

// nextGroup appends to dst the smaller of the two streams' next group
// keys.
func nextGroup(dst, expKey []byte, expOK bool, rows *cursor, g int) []byte {
	switch {
	case !rows.ok:
		return append(dst, expKey...)
	case !expOK:
		return append(dst, groupOf(rows.row.Key, g)...)
	}
	rk := groupOf(rows.row.Key, g)
	if bytes.Compare(expKey, rk) <= 0 {
		return append(dst, expKey...)
	}
	return append(dst, rk...)
}

// Row states in a group's match.
const (
	rowStray       byte = iota // not its comment's own row: mismatched or undefined, told apart by resolve
	rowOwn                     // its comment's expected row
	rowBad                     // its value is not a comment key
	rowUndecodable             // its key is not one the design reads
)

// match pairs one group's rows with its comments. A row is its comment's
// when its key is the comment's expected key, or, for an edited comment,
// any key of the group (the row holds the length before the edit). Rows
// come in key order, so a comment's expected row is found by a binary
// search; groups are small, so the comment a row points at by a look down
// the group's few comments. A row that is not its comment's own is one of
// the faults: its key checked first, as the design reads it (a row its
// comment's fields made reads by construction).
//
// state holds a row state per row, all rowStray to start with.
func (c *checker) match(table string, comments []expected, rows []store.Row, state []byte, r *IndexReport, out sinks) error {
	ckLen := c.o.Layout.Table(keys.Comment).Len
	for i, row := range rows {
		v, _ := row.Value(keys.Qualifier)
		if len(v) == ckLen {
			if e := find(comments, v); e != nil && !e.referenced && c.rowOf(table, row.Key, e) {
				e.referenced, state[i] = true, rowOwn
				r.Referenced++
				continue
			}
		}
		if _, derr := c.o.Layout.Decode(table, row.Key); derr != nil {
			// Its bytes say nothing of which comment it was meant for: a
			// repair deletes it.
			state[i] = rowUndecodable
			r.Undecodable.add(1, func() string { return fmt.Sprintf("%s: %v", c.describe(table, row.Key), derr) })
			c.repair.del(table, row.Key)
			continue
		}
		if len(v) != ckLen {
			state[i] = rowBad
			r.BadValue.add(1, func() string {
				return fmt.Sprintf("%s holds %q, not a %d-byte comment key", c.describe(table, row.Key), v, ckLen)
			})
			c.repair.del(table, row.Key) // a comment wanting this key gets its row back
			continue
		}
		if err := out.strays.Add(v, row.Key); err != nil {
			return err
		}
	}
	for _, e := range comments {
		if e.referenced {
			continue
		}
		if err := out.unlisted.Add(e.ck, nil); err != nil {
			return err
		}
		j, taken := slices.BinarySearchFunc(rows, e.key, func(row store.Row, k []byte) int { return bytes.Compare(row.Key, k) })
		if !taken && e.edited {
			j, taken = ownedRow(state)
		}
		switch {
		case taken && state[j] == rowBad:
			// Its row is there, its value spoilt: one finding, counted as
			// the bad value; the repair writes the row back whole.
			c.repair.put(table, e.key, e.ck)
		case taken && state[j] == rowOwn:
			// An edited comment's row, wherever another comment's stands
			// in its group, is taken to be that one: its key then differed
			// in the length alone, which its comment no longer records, and
			// a write that found it taken is a collision.
			other, _ := rows[j].Value(keys.Qualifier)
			c.hidden(e.ck)
			r.Collided.add(1, func() string {
				return fmt.Sprintf("%s wanted by %s, holds %s", c.describe(table, e.key),
					c.describe(keys.Comment, e.ck), c.describe(keys.Comment, other))
			})
		default:
			r.Unreferenced.add(1, func() string {
				s := fmt.Sprintf("%s: no %s", c.describe(keys.Comment, e.ck), c.describe(table, e.key))
				if e.edited {
					// Its row was written with the length before the edit, which
					// the comment no longer records: a collision looks the same.
					s += " (edited since; key length as now)"
				}
				return s
			})
			c.repair.put(table, e.key, e.ck) // a stray row in its place is deleted first
		}
	}
	return nil
}

// ownedRow is the first row of a group that is another comment's own.
func ownedRow(state []byte) (int, bool) {
	i := slices.Index(state, rowOwn)
	return i, i >= 0
}

// rowOf says whether key is the row e calls for: its expected key, or, for
// a comment edited since with no record of the length its keys were made
// from, a key that differs from the expected one in the length alone.
func (c *checker) rowOf(table string, key []byte, e *expected) bool {
	if bytes.Equal(key, e.key) {
		return true
	}
	if !e.edited {
		return false
	}
	a, err1 := c.o.Layout.Decode(table, key)
	b, err2 := c.o.Layout.Decode(table, e.key)
	a.ContentLen, b.ContentLen = 0, 0
	return err1 == nil && err2 == nil && a == b
}

func find(es []expected, ck []byte) *expected {
	for i := range es {
		if bytes.Equal(es[i].ck, ck) {
			return &es[i]
		}
	}
	return nil
}

// unreadable says whether a comment row is a bad comment (counted among
// the references'): nothing can be said of its index rows.
func (c *checker) unreadable(row store.Row) bool {
	return c.parse(row).err != nil
}

// resolve walks the strays by the comment they point at. A comment has
// its own row unless it is unlisted; each row past its first is an extra
// reference. A stray is mismatched when its comment exists, undefined when
// it does not.
func (c *checker) resolve(ctx context.Context, table string, strays, unlisted *extsort.Sorter, r *IndexReport) error {
	if strays.Len() == 0 {
		return nil // every row is its comment's own: nothing to read the comments for
	}
	comments := newCursor(c.wholeTable(ctx, keys.Comment))
	defer comments.close()
	nextUnlisted, stopUnlisted := iter.Pull2(sorted(unlisted))
	defer stopUnlisted()
	u, uerr, uok := nextUnlisted()
	var ck []byte
	var n int
	var found, bad bool
	for rec, err := range sorted(strays) {
		if err != nil {
			return err
		}
		if n == 0 || !bytes.Equal(rec.Key, ck) { // the first stray of a comment
			ck = bytes.Clone(rec.Key)
			found = comments.seek(ck)
			bad = found && c.unreadable(comments.row)
			for uok && bytes.Compare(u.Key, ck) < 0 {
				u, uerr, uok = nextUnlisted()
			}
			if uerr != nil {
				return uerr
			}
			n = 0
			if found && !(uok && bytes.Equal(u.Key, ck)) {
				n = 1 // its own row
			}
		}
		n++
		if n > 1 {
			r.Extra.add(1, func() string { return fmt.Sprintf("%s has %d rows in %s", c.describe(keys.Comment, ck), n, table) })
		}
		if bad {
			continue // its comment is counted bad; its rows are not the fault, and stay
		}
		key := rec.Val
		if c.unverifiedEntry(table, key) {
			// An unfinished write's entry whose comment is not there (or
			// not this): a reader drops it, as the repair does.
			r.UnverifiedBack++
			if r.back == nil {
				r.back = map[string]bool{}
			}
			r.back[string(key)] = true
			c.repair.del(table, key)
			continue
		}
		if found {
			want := c.expectedKey(table, comments.row)
			r.Mismatched.add(1, func() string {
				return fmt.Sprintf("%s -> %s, whose fields make %s", c.describe(table, key), c.describe(keys.Comment, ck), want)
			})
		} else {
			r.Undefined.add(1, func() string {
				return fmt.Sprintf("%s -> %s, which does not exist", c.describe(table, key), c.describe(keys.Comment, ck))
			})
		}
		c.repair.del(table, key)
	}
	return comments.close()
}
