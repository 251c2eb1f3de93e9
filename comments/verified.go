package comments

import (
	"context"
	"errors"
	"fmt"
	"time"

	"commentbench/entry"
	"commentbench/faults"
	"commentbench/keys"
	"commentbench/model"
	"commentbench/store"
)

// The verified index (Apache Phoenix's strongly consistent global
// indexes, 4.15 on): a listing entry's value starts with its status, as
// Phoenix keeps a status in each index row; what follows is what the
// entry holds (the comment's key, or its copy).
const (
	StatusVerified   byte = 1
	StatusUnverified byte = 2
)

// Framed is an entry's value with its status first.
func Framed(status byte, payload []byte) []byte {
	return append([]byte{status}, payload...)
}

// Unframe splits a verified index entry's value into its status and what
// it holds; an empty value has status 0.
func Unframe(v []byte) (status byte, payload []byte) {
	if len(v) == 0 {
		return 0, nil
	}
	return v[0], v[1:]
}

// VerifyGrace is how old an unverified entry must be before a reader
// repairs it or deletes it, by default: a younger one may be a write
// still under way, which its writer will mark verified (a repair of it
// would count one that nothing left).
const VerifyGrace = 2 * time.Second

// payload is what an entry of table holds, and whether a reader may take
// it as it stands: anything but the verified strategy's unverified entry
// of a listing (a ranking's entries carry no status: the ranking job
// writes them whole).
func (s *System) payload(table string, v []byte) ([]byte, bool) {
	if s.writes != Verified || listingIndex(table) < 0 {
		return v, true
	}
	st, p := Unframe(v)
	return p, st == StatusVerified
}

// writeVerified is Phoenix's three phases: every listing entry written
// unverified, a request each; the comment; every entry marked verified.
// A writer that stops between them leaves unverified entries, which the
// next reader (or verify) repairs if the comment was written and drops if
// it was not.
func (s *System) writeVerified(ctx context.Context, p *puts) error {
	listings := p.n - 1 // writes[0] is the comment alone: verified never groups
	steps := 2*listings + 1
	at := s.inj.AbandonAt(steps)
	var unverified, verified uint8 // by write
	stop := func(err error) error {
		if !isUnknown(err) {
			s.leaveUnverified(p, unverified, verified)
		}
		return err
	}
	step := 0
	next := func(i int, status byte) (uint8, error) {
		defer func() { step++ }()
		if step == at {
			return 0, faults.ErrAbandoned
		}
		m := p.muts[i : i+1]
		if status != 0 {
			m = []store.Mutation{framedPut(p, i, status)}
		}
		applied, known, err := s.send(ctx, p.writes[i].t.Store, m)
		var bit uint8
		if applied {
			bit = 1 << i
		}
		if err != nil && !known {
			s.cons.Unknown.Add(1)
			return bit, errUnknown{err}
		}
		return bit, err
	}
	for i := 1; i <= listings; i++ {
		bit, err := next(i, StatusUnverified)
		unverified |= bit
		if err != nil {
			return stop(err)
		}
	}
	bit, err := next(0, 0)
	p.applied |= bit
	if err != nil {
		return stop(err)
	}
	for i := 1; i <= listings; i++ {
		bit, err := next(i, StatusVerified)
		verified |= bit
		if err != nil {
			return stop(err)
		}
	}
	p.applied |= verified
	return nil
}

// errUnknown is a failure the system did not inject: what it left is not
// counted.
type errUnknown struct{ err error }

func (e errUnknown) Error() string { return e.err.Error() }
func (e errUnknown) Unwrap() error { return e.err }

// framedPut is write i's put with its entries' values framed by status.
func framedPut(p *puts, i int, status byte) store.Mutation {
	w := p.writes[i]
	m := store.Mutation{Row: p.muts[i].Row, Cells: make([]store.Cell, 0, w.to-w.from)}
	for _, e := range p.entries[w.from:w.to] {
		m.Cells = append(m.Cells, store.Cell{Qualifier: e.t.Column(e.key), Value: Framed(status, e.val)})
	}
	return m
}

// leaveUnverified counts what a verified write that stopped left: each
// entry written unverified and never verified, with its comment written
// or without it.
func (s *System) leaveUnverified(p *puts, unverified, verified uint8) {
	comment := p.applied&1 != 0
	for i := 1; i < p.n; i++ {
		if unverified&(1<<i) == 0 || verified&(1<<i) != 0 {
			continue
		}
		for _, e := range p.entries[p.writes[i].from:p.writes[i].to] {
			if li := listingIndex(e.t.Table); comment {
				s.cons.Unverified[li].Add(1)
			} else {
				s.cons.Orphans[li].Add(1)
			}
		}
	}
}

// unverifiedEntry is an entry of a page a reader met unverified: where
// it is in the page, its raw value and when it was written.
type unverifiedEntry struct {
	at    int
	raw   []byte
	stamp int64
}

// checkUnverified settles the unverified entries of a page, as Phoenix's
// reader does: an entry whose comment exists and makes its key is served,
// and repaired (marked verified, its value rebuilt from the comment) once
// it is older than VerifyGrace; one whose comment does not is skipped,
// and deleted once it is that old. The page keeps the entries served.
func (s *System) checkUnverified(ctx context.Context, t *keys.TableKey, p *Page, un []unverifiedEntry) error {
	cks := make([][]byte, len(un))
	for i, u := range un {
		cks[i] = p.Entries[u.at].CommentKey
	}
	got, err := entry.Get(ctx, s.st, s.comment, cks)
	if err != nil {
		return fmt.Errorf("get %s: %w", keys.Comment, err)
	}
	now := time.Now().UnixMilli()
	drop := map[int]bool{}
	for i, u := range un {
		c, found, err := decodeRow[model.Comment](s.codec, keys.Comment, got[i])
		if err != nil {
			return err
		}
		e := &p.Entries[u.at]
		old := u.stamp > 0 && now-u.stamp >= s.grace.Milliseconds()
		if found && s.makes(t, c, e.IndexKey) {
			e.Comment, e.Found = c, true
			if old {
				if err := s.repairEntry(ctx, t, e.IndexKey, u.raw, c); err != nil {
					return err
				}
			}
			continue
		}
		drop[u.at] = true
		s.cons.Skipped.Add(1)
		if old {
			if err := s.dropEntry(ctx, t, e.IndexKey, u.raw, u.stamp); err != nil {
				return err
			}
		}
	}
	if len(drop) > 0 {
		kept := p.Entries[:0]
		for i, e := range p.Entries {
			if !drop[i] {
				kept = append(kept, e)
			}
		}
		p.Entries = kept
	}
	return nil
}

// makes reports whether comment c makes entry key of t: its fields build
// that key; an edited comment's, but for the length, which the key holds
// as it was first written.
func (s *System) makes(t *keys.TableKey, c model.Comment, key []byte) bool {
	k := keys.Key{UserID: c.UserID, ProductID: c.ProductID, OrderID: c.OrderID, Timestamp: c.Timestamp, ContentLen: c.ContentLen()}
	want, err := t.AppendKey(nil, &k)
	if err != nil {
		return false
	}
	if string(want) == string(key) {
		return true
	}
	if !c.IsEdited {
		return false
	}
	got, err := s.layout.Decode(t.Table, key)
	k.ContentLen, got.ContentLen = 0, 0
	k.Table, got.Table = "", ""
	return err == nil && got == k
}

// repairEntry marks an unverified entry verified, its value rebuilt from
// its comment, if it still holds what the reader read.
func (s *System) repairEntry(ctx context.Context, t *keys.TableKey, key, raw []byte, c model.Comment) error {
	payload, err := s.layout.CommentKey(c.OrderID, c.ProductID)
	if err == nil && t.Copy {
		payload, err = s.codec.Marshal(c)
	}
	if err != nil {
		return err
	}
	ok, err := s.raw.CheckAndMutate(ctx, t.Store, t.Column(key), raw, entry.Put(t, key, Framed(StatusVerified, payload)))
	if err != nil {
		return fmt.Errorf("repair %s entry %x: %w", t.Table, key, err)
	}
	if ok {
		s.cons.Repaired.Add(1)
	}
	return nil
}

// dropEntry deletes an unverified entry whose comment was never written,
// at the entry's own timestamp: a later write of it stays.
func (s *System) dropEntry(ctx context.Context, t *keys.TableKey, key, raw []byte, stamp int64) error {
	m := store.Mutation{Row: t.Row(key), DeleteColumns: [][]byte{t.Column(key)}, DeleteAt: stamp}
	ok, err := s.raw.CheckAndMutate(ctx, t.Store, t.Column(key), raw, m)
	if err != nil {
		return fmt.Errorf("drop %s entry %x: %w", t.Table, key, err)
	}
	if ok {
		s.cons.Deleted.Add(1)
	}
	return nil
}

// isUnknown says whether a write's failure left what the system cannot
// tell.
func isUnknown(err error) bool {
	var u errUnknown
	return errors.As(err, &u)
}
