package comments

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"commentbench/entry"
	"commentbench/keys"
	"commentbench/model"
	"commentbench/store"
)

// MaxPageSize bounds a page so one request cannot ask the backend for an
// unbounded scan.
const MaxPageSize = 10000

// Entry is one index row of a page and the comment it points at.
type Entry struct {
	IndexKey   []byte
	CommentKey []byte // the index row's value
	Comment    model.Comment
	// Found is false when the index row dangles: its comment is missing.
	Found bool
}

// Page is one page of a listing, a timeline or a ranking.
type Page struct {
	Entries []Entry
	// Next is the seed's nextIndexKey: the index row that starts the next
	// page, nil on the last page.
	Next []byte
	// Scan is what the index scans cost the backend: rows read per page is
	// the measure that tells bounded scans from the seed's.
	Scan store.ScanMetrics
	// Scans is how many scans the page issued: one per branch of a salted
	// listing, the price of spreading it. A read of a wide row's columns
	// counts as one.
	Scans int
	// Count is the collection's count, from its metadata column, when the
	// page read it (a wide listing's first page, whose read of the head
	// finds it first); Counted says it did.
	Count   int64
	Counted bool
}

// Comments returns the comments that were found, in index order: what the
// seed's API returns (it silently skips dangling index rows).
func (p Page) Comments() []model.Comment {
	out := make([]model.Comment, 0, len(p.Entries))
	for _, e := range p.Entries {
		if e.Found {
			out = append(out, e.Comment)
		}
	}
	return out
}

// ProductPage lists a product's comments newest first. A nil cursor asks for
// the first page; otherwise cursor is the previous page's Next.
func (s *System) ProductPage(ctx context.Context, productID string, cursor []byte, limit int) (Page, error) {
	l, err := s.layout.Listing(keys.ProductComment, productID)
	if err != nil {
		return Page{}, fmt.Errorf("product listing: %w", err)
	}
	return s.page(ctx, l, cursor, limit)
}

// UserPage lists a user's comments newest first, paged like ProductPage.
func (s *System) UserPage(ctx context.Context, userID string, cursor []byte, limit int) (Page, error) {
	l, err := s.layout.Listing(keys.UserComment, userID)
	if err != nil {
		return Page{}, fmt.Errorf("user timeline: %w", err)
	}
	return s.page(ctx, l, cursor, limit)
}

// Ranked returns a product's top n ranked comments. Rankings are not paged,
// and a design reads one with one prefix scan (keys.Parse insists).
func (s *System) Ranked(ctx context.Context, productID string, n int) (Page, error) {
	if n < 1 || n > MaxPageSize {
		return Page{}, fmt.Errorf("ranked: n %d: want 1..%d", n, MaxPageSize)
	}
	l, err := s.layout.Listing(keys.ProductRank, productID)
	if err != nil {
		return Page{}, fmt.Errorf("ranked: %w", err)
	}
	rows, m, err := s.scanBranch(ctx, l, 0, nil, n)
	if err != nil {
		return Page{}, err
	}
	p, err := s.resolve(ctx, l, rows, m)
	p.Scans = 1
	return p, err
}

// LatestPage lists the site's latest comments, newest first, paged like
// ProductPage: the design's latest-comment listing (seed 003's one row
// that every comment is written into). ErrNoLatest when the design has
// none.
func (s *System) LatestPage(ctx context.Context, cursor []byte, limit int) (Page, error) {
	if s.layout.Table(keys.LatestComment) == nil {
		return Page{}, fmt.Errorf("latest comments: design %s: %w", s.layout.Name(), ErrNoLatest)
	}
	l, err := s.layout.Listing(keys.LatestComment, "")
	if err != nil {
		return Page{}, fmt.Errorf("latest comments: %w", err)
	}
	return s.page(ctx, l, cursor, limit)
}

// branchRow is a row read from one branch of a listing.
type branchRow struct {
	branch int
	row    store.Row
}

// page reads one page: each branch of the listing from its position, limit
// + 1 rows at most, merged in listing order. The first limit rows are the
// page; if more came back, Next records where every branch goes on.
func (s *System) page(ctx context.Context, l keys.Listing, cursor []byte, limit int) (Page, error) {
	if limit < 1 || limit > MaxPageSize {
		return Page{}, fmt.Errorf("%s page: limit %d: want 1..%d", l.Table, limit, MaxPageSize)
	}
	if len(l.Branches) == 1 {
		return s.branchPage(ctx, l, cursor, limit)
	}
	pos, err := s.positions(l, cursor)
	if err != nil {
		return Page{}, err
	}
	got, m, scans, err := s.scanBranches(ctx, l, pos, limit+1)
	if err != nil {
		return Page{Scans: scans, Scan: m}, err
	}
	var all []branchRow
	for b, rows := range got {
		for _, r := range rows {
			all = append(all, branchRow{b, r})
		}
	}
	slices.SortStableFunc(all, func(a, b branchRow) int { return l.Compare(a.row.Key, b.row.Key) })
	next := nextCursor(l, all, limit)
	rows := make([]store.Row, 0, min(limit, len(all)))
	for _, br := range all[:min(limit, len(all))] {
		rows = append(rows, br.row)
	}
	p, err := s.resolve(ctx, l, rows, m)
	p.Next, p.Scans = next, scans
	return p, err
}

// branchPage is page for a listing of one branch, as most are: its cursor
// is the seed's nextIndexKey, and there is nothing to merge.
func (s *System) branchPage(ctx context.Context, l keys.Listing, cursor []byte, limit int) (Page, error) {
	// The seed trusts any cursor, which is part of what the harness shows.
	// A filtered listing's prefix does not hold the owner: Owns checks the
	// owner's bytes past it too.
	if cursor != nil && s.mode == Bounded && !l.Owns(cursor) {
		return Page{}, badCursor(l, cursor)
	}
	var rows []store.Row
	var m store.ScanMetrics
	var err error
	count := int64(-1)
	if meta := s.layout.Table(l.Table).Meta; l.Wide && meta != nil {
		rows, count, m, err = s.readSlice(ctx, l, 0, cursor, limit+1, meta)
	} else {
		rows, m, err = s.scanBranch(ctx, l, 0, cursor, limit+1)
	}
	if err != nil {
		return Page{Scans: 1, Scan: m}, err
	}
	var next []byte
	if len(rows) > limit {
		next, rows = rows[limit].Key, rows[:limit]
	}
	p, err := s.resolve(ctx, l, rows, m)
	p.Next, p.Scans = next, 1
	p.Count, p.Counted = max(count, 0), count >= 0
	return p, err
}

// badCursor is out of line: a page's cursor is checked on every page, and
// is seldom refused.
func badCursor(l keys.Listing, cursor []byte) error {
	return fmt.Errorf("%s page: cursor %x: %w", l.Table, cursor, ErrBadCursor)
}

// scanBranches reads up to n rows of each branch not done, from its
// position. The branches of a fanned-out listing are scanned at once, as a
// scatter-gather client does: a page costs the slowest bucket's scan, not
// the sum of all of them. rows is indexed by branch.
func (s *System) scanBranches(ctx context.Context, l keys.Listing, pos []position, n int) (rows [][]store.Row, m store.ScanMetrics, scans int, err error) {
	rows = make([][]store.Row, len(pos))
	ms := make([]store.ScanMetrics, len(pos))
	errs := make([]error, len(pos))
	var wg sync.WaitGroup
	for b, at := range pos {
		if at.done {
			continue
		}
		scans++
		wg.Go(func() { rows[b], ms[b], errs[b] = s.scanBranch(ctx, l, b, at.key, n) })
	}
	wg.Wait()
	for b := range pos {
		m.Add(ms[b])
	}
	return rows, m, scans, errors.Join(errs...)
}

// position is where a branch of a listing goes on: from its start (key
// nil), from key, or nowhere (done).
type position struct {
	key  []byte
	done bool
}

// positions decodes the cursor of a listing of several branches: per
// branch, a byte 0 (done) or 1 followed by the key to go on from.
func (s *System) positions(l keys.Listing, cursor []byte) ([]position, error) {
	pos := make([]position, len(l.Branches))
	if cursor == nil {
		return pos, nil
	}
	bad := func() error { return badCursor(l, cursor) }
	rest := cursor
	for b := range pos {
		if len(rest) == 0 {
			return nil, bad()
		}
		flag := rest[0]
		rest = rest[1:]
		if flag == 0 {
			pos[b].done = true
			continue
		}
		if flag != 1 || len(rest) < l.KeyLen {
			return nil, bad()
		}
		pos[b].key, rest = rest[:l.KeyLen], rest[l.KeyLen:]
		if s.mode == Bounded && (!bytes.HasPrefix(pos[b].key, l.Branches[b]) || !l.Matches(pos[b].key)) {
			return nil, bad()
		}
	}
	if len(rest) != 0 {
		return nil, bad()
	}
	return pos, nil
}

// nextCursor is nil when the page holds every row read; otherwise it is,
// per branch, the first row read and not shown, or done when the branch
// returned no row past the page.
func nextCursor(l keys.Listing, all []branchRow, limit int) []byte {
	if len(all) <= limit {
		return nil
	}
	first := make([][]byte, len(l.Branches))
	for _, br := range all[limit:] {
		if first[br.branch] == nil {
			first[br.branch] = br.row.Key
		}
	}
	var c []byte
	for _, k := range first {
		if k == nil {
			c = append(c, 0)
			continue
		}
		c = append(append(c, 1), k...)
	}
	return c
}

// scanBranch reads up to n rows of one branch of a listing, from key (nil:
// from the branch's start): a scan, or a read of a wide row's columns.
func (s *System) scanBranch(ctx context.Context, l keys.Listing, branch int, from []byte, n int) ([]store.Row, store.ScanMetrics, error) {
	if l.Wide {
		rows, _, m, err := s.readSlice(ctx, l, branch, from, n, nil)
		return rows, m, err
	}
	c := collectors.Get().(*collector)
	c.l, c.n = l, n
	m, err := s.st.Scan(ctx, l.Store, s.listScan(l, branch, from, n), c.each)
	rows := c.rows
	*c = collector{each: c.each}
	collectors.Put(c)
	if err != nil {
		return nil, m, fmt.Errorf("scan %s: %w", l.Table, err)
	}
	return rows, m, nil
}

// collector gathers a listing's rows from a scan. Collectors are pooled
// with their each bound: a function handed to a Store escapes, and a new
// one for every page would be an allocation.
type collector struct {
	l    keys.Listing
	n    int
	rows []store.Row
	each func(store.Row) bool // add
}

var collectors = sync.Pool{New: func() any {
	c := &collector{}
	c.each = c.add
	return c
}}

func (c *collector) add(r store.Row) bool {
	if c.l.Filtered && !c.l.Matches(r.Key) {
		return true
	}
	if c.rows == nil {
		c.rows = make([]store.Row, 0, min(c.n, 64)) // a page's rows in one allocation
	}
	c.rows = append(c.rows, r)
	return len(c.rows) < c.n
}

// listScan is where the two scan modes differ. A filtered listing drops
// other owners' rows here, in the client, so the scan cannot stop at n
// rows on its own.
func (s *System) listScan(l keys.Listing, branch int, from []byte, n int) store.Scan {
	prefix := l.Branches[branch]
	limit := n
	if l.Filtered {
		limit = 0
	}
	if s.mode == SeedScan {
		sc := store.Scan{Limit: limit, Reversed: l.Reversed}
		switch {
		case from != nil && l.Reversed:
			sc.Filter = store.RowFilter{Op: store.LessOrEqual, Value: from}
		case from != nil:
			sc.Filter = store.RowFilter{Op: store.GreaterOrEqual, Value: from}
		case len(prefix) > 0:
			sc.Filter = store.PrefixFilter{Prefix: prefix}
		}
		return sc
	}
	end := l.Ends[branch]
	if l.Reversed {
		start := end
		if from != nil {
			start = from
		}
		return store.Scan{Start: start, Stop: nilIfEmpty(prefix), Reversed: true, Limit: limit}
	}
	start := prefix
	if from != nil {
		start = from
	}
	return store.Scan{Start: nilIfEmpty(start), Stop: end, Limit: limit}
}

func nilIfEmpty(b []byte) []byte {
	if len(b) == 0 {
		return nil
	}
	return b
}

// resolve multi-gets the comments the index rows point at, or, where the
// listing's entries are copies of the comments, decodes them. Under the
// verified index an unverified entry is checked against its comment
// first (see checkUnverified).
func (s *System) resolve(ctx context.Context, l keys.Listing, rows []store.Row, m store.ScanMetrics) (Page, error) {
	p := Page{Entries: make([]Entry, len(rows)), Scan: m}
	t := s.layout.Table(l.Table)
	var ck [][]byte
	var at []int // entry of each key in ck: an index row with no value gets nothing
	var un []unverifiedEntry
	for i, r := range rows {
		raw, _ := r.Value(keys.Qualifier)
		v, ok := s.payload(l.Table, raw)
		p.Entries[i] = Entry{IndexKey: r.Key, CommentKey: v}
		if !ok {
			un = append(un, unverifiedEntry{at: i, raw: raw, stamp: r.Cells[0].Timestamp})
		}
		if t.Copy {
			if err := s.copyOf(&p.Entries[i], l.Table, store.Row{Key: r.Key, Cells: []store.Cell{{Qualifier: keys.Qualifier, Value: v}}}); err != nil {
				return p, err
			}
			continue
		}
		if len(v) > 0 && ok {
			ck, at = append(ck, v), append(at, i)
		}
	}
	if len(ck) > 0 {
		got, err := entry.Get(ctx, s.st, s.comment, ck)
		if err != nil {
			return p, fmt.Errorf("get %s: %w", keys.Comment, err)
		}
		for j, row := range got {
			c, found, err := decodeRow[model.Comment](s.codec, keys.Comment, row)
			if err != nil {
				return p, err
			}
			p.Entries[at[j]].Comment, p.Entries[at[j]].Found = c, found
		}
	}
	if len(un) > 0 {
		return p, s.checkUnverified(ctx, t, &p, un)
	}
	return p, nil
}

// copyOf fills e from a clustered listing's entry: the comment is its
// value, and its key the one its ids make.
func (s *System) copyOf(e *Entry, table string, r store.Row) error {
	c, found, err := decodeRow[model.Comment](s.codec, table, r)
	if err != nil || !found {
		return err
	}
	e.Comment, e.Found = c, true
	e.CommentKey, err = s.layout.CommentKey(c.OrderID, c.ProductID)
	if err != nil {
		return fmt.Errorf("%s entry %q: %w", table, r.Key, err)
	}
	return nil
}
