package comments

import (
	"bytes"
	"context"
	"fmt"

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
	// Scan is what the index scan cost the backend: rows read per page is
	// the measure that tells bounded scans from the seed's.
	Scan store.ScanMetrics
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
	prefix, err := s.layout.ProductCommentPrefix(productID)
	if err != nil {
		return Page{}, fmt.Errorf("product listing: %w", err)
	}
	return s.page(ctx, keys.ProductComment, prefix, cursor, limit)
}

// UserPage lists a user's comments newest first, paged like ProductPage.
func (s *System) UserPage(ctx context.Context, userID string, cursor []byte, limit int) (Page, error) {
	prefix, err := s.layout.UserCommentPrefix(userID)
	if err != nil {
		return Page{}, fmt.Errorf("user timeline: %w", err)
	}
	return s.page(ctx, keys.UserComment, prefix, cursor, limit)
}

// Ranked returns a product's top n ranked comments. Rankings are not paged.
func (s *System) Ranked(ctx context.Context, productID string, n int) (Page, error) {
	if n < 1 || n > MaxPageSize {
		return Page{}, fmt.Errorf("ranked: n %d: want 1..%d", n, MaxPageSize)
	}
	prefix, err := s.layout.RankPrefix(productID)
	if err != nil {
		return Page{}, fmt.Errorf("ranked: %w", err)
	}
	rows, m, err := s.scanIndex(ctx, keys.ProductRank, s.listScan(prefix, nil, n))
	if err != nil {
		return Page{}, err
	}
	return s.resolve(ctx, rows, m)
}

func (s *System) page(ctx context.Context, table string, prefix, cursor []byte, limit int) (Page, error) {
	if limit < 1 || limit > MaxPageSize {
		return Page{}, fmt.Errorf("%s page: limit %d: want 1..%d", table, limit, MaxPageSize)
	}
	// The seed trusts any cursor, which is part of what the harness shows.
	if s.mode == Bounded && cursor != nil && !bytes.HasPrefix(cursor, prefix) {
		return Page{}, fmt.Errorf("%s page: cursor %x: %w", table, cursor, ErrBadCursor)
	}
	rows, m, err := s.scanIndex(ctx, table, s.listScan(prefix, cursor, limit+1))
	if err != nil {
		return Page{}, err
	}
	var next []byte
	if len(rows) > limit {
		next, rows = rows[limit].Key, rows[:limit]
	}
	p, err := s.resolve(ctx, rows, m)
	p.Next = next
	return p, err
}

// listScan is where the two scan modes differ.
func (s *System) listScan(prefix, cursor []byte, n int) store.Scan {
	if s.mode == SeedScan {
		if cursor == nil {
			return store.Scan{Limit: n, Filter: store.PrefixFilter{Prefix: prefix}}
		}
		return store.Scan{Limit: n, Filter: store.RowFilter{Op: store.GreaterOrEqual, Value: cursor}}
	}
	start := prefix
	if cursor != nil {
		start = cursor
	}
	return store.Scan{Start: start, Stop: store.PrefixEnd(prefix), Limit: n}
}

func (s *System) scanIndex(ctx context.Context, table string, sc store.Scan) ([]store.Row, store.ScanMetrics, error) {
	var rows []store.Row
	m, err := s.st.Scan(ctx, table, sc, func(r store.Row) bool {
		rows = append(rows, r)
		return true
	})
	if err != nil {
		return nil, m, fmt.Errorf("scan %s: %w", table, err)
	}
	return rows, m, nil
}

// resolve multi-gets the comments the index rows point at.
func (s *System) resolve(ctx context.Context, rows []store.Row, m store.ScanMetrics) (Page, error) {
	p := Page{Entries: make([]Entry, len(rows)), Scan: m}
	var ck [][]byte
	var at []int // entry of each key in ck: an index row with no value gets nothing
	for i, r := range rows {
		v, _ := r.Value(keys.Qualifier)
		p.Entries[i] = Entry{IndexKey: r.Key, CommentKey: v}
		if len(v) > 0 {
			ck, at = append(ck, v), append(at, i)
		}
	}
	if len(ck) == 0 {
		return p, nil
	}
	got, err := s.st.BatchGet(ctx, keys.Comment, ck)
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
	return p, nil
}
