package comments

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"slices"

	"commentbench/entry"
	"commentbench/keys"
	"commentbench/model"
	"commentbench/store"
)

// UpsertRanks writes commentKeys as ranks 1..n of a product, then deletes
// the ranks beyond n that a longer earlier ranking left (unless the System
// keeps the seed's stale ranks). The writes are per row, not atomic: a
// reader can see a ranking half replaced, as on HBase.
//
// Rank 1 is written alone, before the rest. A batch spanning regions on
// several servers lands in no set order (a client sends each server its
// part at once), and a check tells a stale rank by its being older than
// rank 1: with rank 1 first, every rank of this ranking is at least as new.
func (s *System) UpsertRanks(ctx context.Context, productID string, commentKeys [][]byte) error {
	if len(commentKeys) > keys.MaxRank {
		return fmt.Errorf("rank upsert %s: %d comments: want at most %d", productID, len(commentKeys), keys.MaxRank)
	}
	t := s.layout.Table(keys.ProductRank)
	muts := make([]store.Mutation, 0, keys.MaxRank)
	for i, ck := range commentKeys {
		k, err := s.layout.RankKey(productID, i+1)
		if err != nil {
			return fmt.Errorf("rank upsert: %w", err)
		}
		muts = append(muts, entry.Put(t, k, ck))
	}
	var stale [][]byte
	if !s.stale {
		var err error
		if stale, err = s.ranksAbove(ctx, productID, len(commentKeys)); err != nil {
			return err
		}
	}
	if t.Wide() {
		return s.upsertRow(ctx, t, productID, muts, stale)
	}
	for _, k := range stale {
		muts = append(muts, store.Delete(k))
	}
	if len(commentKeys) > 0 {
		if err := s.st.Mutate(ctx, t.Store, muts[0]); err != nil {
			return fmt.Errorf("rank upsert %s: %w", productID, err)
		}
		muts = muts[1:]
	}
	if len(muts) == 0 {
		return nil
	}
	if err := s.st.Mutate(ctx, t.Store, muts...); err != nil {
		return fmt.Errorf("rank upsert %s: %w", productID, err)
	}
	return nil
}

// upsertRow writes a ranking kept in one row's columns: its ranks and the
// deletes of the stale ones in one row mutation, so a reader sees the old
// ranking or the new one, never a mix.
func (s *System) upsertRow(ctx context.Context, t *keys.TableKey, productID string, puts []store.Mutation, stale [][]byte) error {
	var m store.Mutation
	for _, p := range puts {
		m.Row = p.Row
		m.Cells = append(m.Cells, p.Cells...)
	}
	for _, k := range stale {
		m.Row = t.Row(k)
		m.DeleteColumns = append(m.DeleteColumns, t.Column(k))
	}
	if m.Row == nil {
		return nil
	}
	if err := s.st.Mutate(ctx, t.Store, m); err != nil {
		return fmt.Errorf("rank upsert %s: %w", productID, err)
	}
	return nil
}

// ranksAbove returns the keys of a product's existing ranks above n. It
// reads first so that a job run leaves no delete markers for ranks that
// never existed.
func (s *System) ranksAbove(ctx context.Context, productID string, n int) ([][]byte, error) {
	l, err := s.layout.Listing(keys.ProductRank, productID)
	if err != nil {
		return nil, fmt.Errorf("rank upsert: %w", err)
	}
	var out [][]byte
	_, err = s.scanAll(ctx, l, func(r store.Row) {
		if k, derr := s.layout.Decode(keys.ProductRank, r.Key); derr != nil || k.Rank > n {
			out = append(out, r.Key)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("rank upsert: %w", err)
	}
	return out, nil
}

// scanAll reads every row of a listing, branch by branch (in no overall
// order), keeping those the listing owns: a scan of each branch, or of a
// wide row's columns, a slice at a time.
func (s *System) scanAll(ctx context.Context, l keys.Listing, f func(store.Row)) (store.ScanMetrics, error) {
	var total store.ScanMetrics
	for b, prefix := range l.Branches {
		if l.Wide {
			m, err := s.eachSlice(ctx, l, b, f)
			total.Add(m)
			if err != nil {
				return total, err
			}
			continue
		}
		sc := store.Scan{Start: nilIfEmpty(prefix), Stop: store.PrefixEnd(prefix)}
		m, err := s.st.Scan(ctx, l.Store, sc, func(r store.Row) bool {
			if l.Owns(r.Key) {
				f(r)
			}
			return true
		})
		total.Add(m)
		if err != nil {
			return total, fmt.Errorf("scan %s: %w", l.Table, err)
		}
	}
	return total, nil
}

// Candidate is a comment as the ranking job scores it.
type Candidate struct {
	CommentKey []byte
	ContentLen int
	Timestamp  int64
}

// Better is the ranking job's score: longer content first (UTF-8 bytes as
// the index key recorded it at write time, so an edit does not re-rank),
// then the newer comment, then the smaller comment key so ties are
// deterministic. Both fields come from the product-comment key itself, so
// the job reads one index scan per product and no comment rows.
func Better(a, b Candidate) bool {
	if a.ContentLen != b.ContentLen {
		return a.ContentLen > b.ContentLen
	}
	if a.Timestamp != b.Timestamp {
		return a.Timestamp > b.Timestamp
	}
	return bytes.Compare(a.CommentKey, b.CommentKey) < 0
}

// JobStats is what one ranking job run did.
type JobStats struct {
	Products    int
	RowsScanned int64
	// CellsScanned are the cells the scans read: a wide listing's entries
	// are its row's cells.
	CellsScanned int64
	Ranked       int // rank rows written
}

// RankJob is the batch job: for each product, pick its MaxRank best
// comments by Better and upsert them as its ranking. It streams each
// listing and keeps only the current best, so a hot product's million
// comments cost one scan, not memory.
func (s *System) RankJob(ctx context.Context, productIDs []string) (JobStats, error) {
	return s.RankJobWith(ctx, productIDs, JobOptions{})
}

// JobOptions shape a run of the ranking job.
type JobOptions struct {
	// Keep, if set, says which of a product's best comments (n of them,
	// best first) its new ranking keeps: their indexes, ascending, at
	// least the first kept when it names none. Comments that lost their
	// standing drop out and those below move up, as in a real batch's
	// ranking; the seed's upsert then leaves the old ranking's tail
	// behind, where a comment that moved up is ranked twice: stale ranks.
	Keep func(productID string, n int) []int
	// Ranked, if set, hears of every ranking written: its comment keys,
	// in rank order.
	Ranked func(productID string, ranking [][]byte)
}

// RankJobWith is RankJob shaped by o.
func (s *System) RankJobWith(ctx context.Context, productIDs []string, o JobOptions) (JobStats, error) {
	var st JobStats
	for _, pid := range productIDs {
		best, m, err := s.bestComments(ctx, pid)
		st.RowsScanned += m.RowsScanned
		st.CellsScanned += m.CellsScanned
		if err != nil {
			return st, err
		}
		if o.Keep != nil && len(best) > 0 {
			best = kept(best, o.Keep(pid, len(best)))
		}
		ck := make([][]byte, len(best))
		for i, c := range best {
			ck[i] = c.CommentKey
		}
		if err := s.UpsertRanks(ctx, pid, ck); err != nil {
			return st, err
		}
		if o.Ranked != nil {
			o.Ranked(pid, ck)
		}
		st.Products++
		st.Ranked += len(ck)
	}
	return st, nil
}

// kept are the candidates at the indexes, in their order; the first alone
// when no index is one of them.
func kept(best []Candidate, at []int) []Candidate {
	var out []Candidate
	for _, i := range at {
		if i >= 0 && i < len(best) {
			out = append(out, best[i])
		}
	}
	if len(out) == 0 {
		return best[:1]
	}
	return out
}

func (s *System) bestComments(ctx context.Context, productID string) ([]Candidate, store.ScanMetrics, error) {
	l, err := s.layout.Listing(keys.ProductComment, productID)
	if err != nil {
		return nil, store.ScanMetrics{}, fmt.Errorf("rank job: %w", err)
	}
	t := s.layout.Table(keys.ProductComment)
	keyHasLen := t.Has(keys.PartLen, "") || t.Has(keys.PartRevLen, "")
	var top topN
	var pending []Candidate // awaiting their comments' lengths
	var ferr error
	flush := func() {
		if ferr == nil && len(pending) > 0 {
			ferr = s.fillLengths(ctx, pending)
			for _, c := range pending {
				if c.ContentLen >= 0 { // a dangling index row ranks nothing
					top.add(c)
				}
			}
		}
		pending = pending[:0]
	}
	m, err := s.scanAll(ctx, l, func(r store.Row) {
		k, err := s.layout.Decode(keys.ProductComment, r.Key)
		if err != nil {
			ferr = cmp.Or(ferr, err)
			return
		}
		v, err := s.referenced(t, r)
		if err != nil {
			ferr = cmp.Or(ferr, err)
			return
		}
		if v == nil {
			return // an unverified entry ranks nothing
		}
		c := Candidate{CommentKey: v, ContentLen: k.ContentLen, Timestamp: k.Timestamp}
		if keyHasLen {
			top.add(c)
			return
		}
		if pending = append(pending, c); len(pending) == lengthBatch {
			flush()
		}
	})
	flush()
	if err == nil {
		err = ferr
	}
	if err != nil {
		return nil, m, fmt.Errorf("rank job %s: %w", productID, err)
	}
	return top, m, nil
}

// referenced is the key of the comment an index entry of t refers to: its
// value, or, for a copy of the comment, the key its ids make.
func (s *System) referenced(t *keys.TableKey, r store.Row) ([]byte, error) {
	v, _ := r.Value(keys.Qualifier)
	v, ok := s.payload(t.Table, v)
	if !ok {
		return nil, nil // unverified: its comment may not be there
	}
	if !t.Copy {
		return v, nil
	}
	h, err := model.DecodeHead(s.codec, v)
	if err != nil {
		return nil, fmt.Errorf("%s entry %q: %w", t.Table, r.Key, err)
	}
	return s.layout.CommentKey(h.OrderID, h.ProductID)
}

// lengthBatch is how many comments a ranking job reads at once when the
// design's listing key holds no length.
const lengthBatch = 500

// fillLengths reads the comments of a design whose listing key holds no
// length: the price of leaving it out. Their length is what they hold now,
// edits included; a missing comment gets -1.
func (s *System) fillLengths(ctx context.Context, cs []Candidate) error {
	cks := make([][]byte, len(cs))
	for i, c := range cs {
		cks[i] = c.CommentKey
	}
	rows, err := entry.Get(ctx, s.st, s.comment, cks)
	if err != nil {
		return fmt.Errorf("get %s: %w", keys.Comment, err)
	}
	for i, row := range rows {
		c, found, err := decodeRow[model.Comment](s.codec, keys.Comment, row)
		if err != nil {
			return err
		}
		cs[i].ContentLen = -1
		if found {
			cs[i].ContentLen = c.ContentLen()
		}
	}
	return nil
}

// topN keeps the MaxRank best candidates by Better.
type topN []Candidate

func (t *topN) add(c Candidate) {
	i, _ := slices.BinarySearchFunc(*t, c, func(a, b Candidate) int {
		if Better(a, b) {
			return -1
		}
		return 1
	})
	if i < keys.MaxRank {
		c.CommentKey = bytes.Clone(c.CommentKey) // not the scan's memory, which it would keep alive
		*t = slices.Insert(*t, i, c)
		*t = (*t)[:min(len(*t), keys.MaxRank)]
	}
}
