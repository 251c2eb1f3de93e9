package keys

import (
	"bytes"
	"fmt"
)

// MaxFanout bounds how many scans one listing page may issue: a salt over
// fields a read does not have makes it read every bucket.
const MaxFanout = 4096

// listPlan is how a listing of one owner is read from a table's keys.
type listPlan struct {
	owner    string
	prefix   int   // parts in the prefix a read can build (salts enumerated)
	fanned   []int // parts of the prefix that are salts over other fields
	fanout   int   // branches: the product of their bucket counts
	filtered bool  // the owner is not in the prefix: rows are filtered by it
	reversed bool  // ts ascending comes first after the prefix: read backwards for newest first
}

// ownedBy reports whether the part is made from owner alone.
func (p *Part) ownedBy(owner string) bool {
	switch p.Kind {
	case PartLiteral:
		return true
	case PartField, PartReverse, PartHash:
		return p.Field == owner
	case PartSalt:
		for _, f := range p.Fields {
			if f != owner {
				return false
			}
		}
		return true
	}
	return false
}

func (t *TableKey) plan(owner string) listPlan {
	l := listPlan{owner: owner, fanout: 1}
	seen := false
	for i := range t.Parts {
		p := &t.Parts[i] // a Part is too big to copy per listing
		switch {
		case p.ownedBy(owner):
			// A salt or hash of the owner is shared with other owners:
			// only the owner's own bytes make a prefix hold just its rows.
			seen = seen || p.Kind == PartField || p.Kind == PartReverse
		case p.Kind == PartSalt && l.fanout*p.Buckets <= MaxFanout:
			l.fanned = append(l.fanned, i)
			l.fanout *= p.Buckets
		default:
			l.prefix = i
			l.filtered = owner != "" && !seen
			l.reversed = t.firstTime(i) == PartTs
			return l
		}
	}
	l.prefix = len(t.Parts)
	return l
}

// firstTime is the kind of the first timestamp part at or after part i.
func (t *TableKey) firstTime(i int) PartKind {
	for j := range t.Parts[i:] {
		p := &t.Parts[i+j]
		if p.Kind == PartTs || p.Kind == PartRevTs {
			return p.Kind
		}
	}
	return PartField
}

// Listing is how to read one owner's rows of an index table (a product's
// listing or ranking, a user's timeline) in listing order: newest first
// for the listings, rank order for rankings.
type Listing struct {
	Table string
	// Store is the store's table the entries live in (TableKey.Store).
	Store string
	// Branches are the prefixes to scan, one per salt bucket a read cannot
	// derive (one when there is no such salt). Each branch is one scan.
	Branches [][]byte
	// Ends bound the branches: Ends[b] is the least key above every key
	// that starts with Branches[b], nil for the table's end.
	Ends [][]byte
	// Reversed: read each branch backwards (the key holds ts ascending).
	Reversed bool
	// Filtered: the owner is not in the prefix, so a branch holds other
	// owners' rows too and Owns tells them apart.
	Filtered bool
	// KeyLen is the table's key length: an entry key's.
	KeyLen int
	// Wide: the entries are columns of a row, and each branch is a slice of
	// one row's columns (see Slice). Its prefix holds the whole row key,
	// RowLen bytes.
	Wide   bool
	RowLen int
	skip   int    // bytes of the prefix: order is decided by what follows
	owned  []span // bytes the owner fixes past the prefix
}

type span struct {
	off int
	b   []byte
}

// Listing returns how to read owner's rows of table: the user-comment
// timeline (owner is a userId), the product-comment listing or the
// product-comment-rank ranking (a productId), or the site's latest
// comments (no owner: "").
func (d *Design) Listing(table, owner string) (Listing, error) {
	t, err := d.table(table)
	if err != nil {
		return Listing{}, err
	}
	pl, field := t.lists[1], FieldProductID
	switch table {
	case UserComment:
		pl, field = t.lists[0], FieldUserID
	case ProductComment, ProductRank:
	case LatestComment:
		pl, field = t.lists[2], ""
	default:
		return Listing{}, fmt.Errorf("%s is not listed: want %s, %s, %s or %s", table, UserComment, ProductComment, ProductRank, LatestComment)
	}
	if field == "" && owner != "" {
		return Listing{}, errorf(ErrBadID, "%s has no owner: want no id, not %s", table, quoted(owner))
	}
	if field != "" {
		if err := CheckID(owner); err != nil {
			return Listing{}, err
		}
	}
	k := Key{Table: table}
	k.setField(field, owner)
	l := Listing{Table: table, Store: t.Store, Reversed: pl.reversed, Filtered: pl.filtered, KeyLen: t.Len, Wide: t.Wide(), RowLen: t.RowLen}
	l.Branches, l.Ends = t.branches(pl, &k)
	l.skip = len(l.Branches[0])
	off := l.skip
	for i := range t.Parts[pl.prefix:] {
		p := &t.Parts[pl.prefix+i]
		if field != "" && p.ownedBy(field) && p.Kind != PartLiteral {
			l.owned = append(l.owned, span{off, p.appendOwner(nil, &k)})
		}
		off += p.Width
	}
	return l, nil
}

// Slice is branch b of a wide listing as a read of one row: the row, and
// its columns' range [start, stop); stop is nil for the row's end.
func (l Listing) Slice(b int) (row, start, stop []byte) {
	pre := l.Branches[b]
	row, start = pre[:l.RowLen:l.RowLen], pre[l.RowLen:len(pre):len(pre)]
	if len(start) > 0 {
		stop = appendPrefixEnd(nil, start)
	}
	return row, start, stop
}

// appendOwner appends the part's bytes, which the owner's key k decides.
func (p *Part) appendOwner(dst []byte, k *Key) []byte {
	switch p.Kind {
	case PartLiteral:
		return append(dst, p.Literal...)
	case PartField:
		return append(dst, k.field(p.Field)...)
	case PartReverse:
		dst = append(dst, k.field(p.Field)...)
		reverseBytes(dst[len(dst)-len(k.field(p.Field)):])
		return dst
	}
	return p.derive(dst, *k)
}

// branches builds the prefix of every branch, the owner's parts with each
// salt the read cannot derive enumerated bucket by bucket, and its end. A
// listing is built for every page read, so its bytes share one buffer, and
// a listing of one branch is one allocation.
func (t *TableKey) branches(pl listPlan, k *Key) (prefixes, ends [][]byte) {
	width := 0
	for i := range pl.prefix {
		width += t.Parts[i].Width
	}
	var all [][]byte
	var buf []byte
	if pl.fanout == 1 && width <= len(oneBranch{}.buf)/2 {
		one := new(oneBranch)
		all, buf = one.keys[:], one.buf[:0]
	} else {
		all, buf = make([][]byte, 2*pl.fanout), make([]byte, 0, 2*pl.fanout*width)
	}
	prefixes, ends = all[:pl.fanout:pl.fanout], all[pl.fanout:]
	for b := range prefixes {
		rest, from := b, len(buf)
		for i := range pl.prefix {
			p := &t.Parts[i]
			if fi := indexOf(pl.fanned, i); fi >= 0 {
				buf = appendBucket(buf, rest%p.Buckets, p.Width)
				rest /= p.Buckets
				continue
			}
			buf = p.appendOwner(buf, k)
		}
		prefixes[b] = buf[from:len(buf):len(buf)]
		from = len(buf)
		if buf = appendPrefixEnd(buf, prefixes[b]); len(buf) > from {
			ends[b] = buf[from:len(buf):len(buf)]
		}
	}
	return prefixes, ends
}

// oneBranch is a listing of one branch: its prefix, its end and their bytes.
type oneBranch struct {
	keys [2][]byte
	buf  [64]byte
}

// appendPrefixEnd appends the least key above every key that starts with
// prefix, which is nothing when prefix is all 0xff bytes (or none).
func appendPrefixEnd(dst, prefix []byte) []byte {
	for i := len(prefix) - 1; i >= 0; i-- {
		if prefix[i] < 0xff {
			return append(append(dst, prefix[:i]...), prefix[i]+1)
		}
	}
	return dst
}

func indexOf(xs []int, x int) int {
	for i, v := range xs {
		if v == x {
			return i
		}
	}
	return -1
}

// Owns reports whether key is a row of this listing.
func (l Listing) Owns(key []byte) bool {
	return len(key) == l.KeyLen && l.Branch(key) >= 0 && l.matches(key)
}

// Branch is the branch whose prefix key has, or -1.
func (l Listing) Branch(key []byte) int {
	for i, b := range l.Branches {
		if bytes.HasPrefix(key, b) {
			return i
		}
	}
	return -1
}

// matches checks the bytes the owner fixes past the prefix.
func (l Listing) matches(key []byte) bool {
	for _, s := range l.owned {
		if len(key) < s.off+len(s.b) || !bytes.Equal(key[s.off:s.off+len(s.b)], s.b) {
			return false
		}
	}
	return true
}

// Matches is Owns without the prefix: a filtered listing's scan reads
// other owners' rows and keeps those that match.
func (l Listing) Matches(key []byte) bool { return len(key) == l.KeyLen && l.matches(key) }

// Compare orders two rows of the listing: negative when a comes first. Rows
// of different branches compare by what follows the prefix, so the merge
// of a salted listing is newest first too.
func (l Listing) Compare(a, b []byte) int {
	c := bytes.Compare(tail(a, l.skip), tail(b, l.skip))
	if l.Reversed {
		return -c
	}
	return c
}

func tail(k []byte, n int) []byte {
	if len(k) < n {
		return nil
	}
	return k[n:]
}
