package comments

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

	"commentbench/faults"
	"commentbench/keys"
	"commentbench/txn"
)

// maxListings is how many listings a design has at most: keys.Indexes.
const maxListings = maxEntries - 1

// Writes is how a comment write keeps the comment's listing entries in
// step with the comment: the four answers an HBase schema with secondary
// indexes chooses from.
type Writes int

const (
	// NonAtomic is the seed's path: the comment, then each listing's
	// entry, each its own request. A failure between them leaves drift.
	NonAtomic Writes = iota
	// OneRow writes the comment and the entries kept in its row in one
	// row mutation, atomic as HBase's are (seed 002's wide rows), and the
	// rest as NonAtomic does.
	OneRow
	// Verified is Apache Phoenix's strongly consistent global index: the
	// entries written first marked unverified, then the comment, then the
	// entries marked verified. A reader that meets an unverified entry
	// checks its comment, and repairs the entry or skips it.
	Verified
	// Transactional is Haeinsa's (seed 002's): the comment and its entries
	// in one multi-row transaction (see package txn).
	Transactional
)

var writesNames = [...]string{"non-atomic", "one-row", "verified", "transactional"}

func (w Writes) String() string {
	if w < 0 || int(w) >= len(writesNames) {
		return fmt.Sprintf("Writes(%d)", int(w))
	}
	return writesNames[w]
}

// WritesNames are the strategies' names, as --writes takes them.
func WritesNames() []string { return writesNames[:] }

// ParseWrites reads a --writes value; none is the seed's, non-atomic (a
// scenario written before strategies were).
func ParseWrites(s string) (Writes, error) {
	if s == "" {
		return NonAtomic, nil
	}
	if i := slices.Index(writesNames[:], s); i >= 0 {
		return Writes(i), nil
	}
	return 0, fmt.Errorf("writes %q: want one of %s", s, strings.Join(writesNames[:], ", "))
}

// ErrWritesDesign is a strategy the design cannot run.
var ErrWritesDesign = errors.New("the design cannot be written that way")

// writesError is a refusal of a strategy for a design, its message saying
// why; it is ErrWritesDesign.
type writesError string

func (e writesError) Error() string        { return string(e) }
func (e writesError) Is(target error) bool { return target == ErrWritesDesign }

// CheckWrites says whether design d can be written with w: one-row needs
// a listing kept in the comment's row, and the verified index keeps no
// count of a collection (a count that an unverified entry is not yet in,
// or is, would be off either way).
func CheckWrites(d *keys.Design, w Writes) error {
	switch w {
	case OneRow:
		if in, _ := OneRowSplit(d); len(in) == 0 {
			return writesError(fmt.Sprintf("--writes one-row on design %s: no listing is kept in the comment's row (%s keeps comments in %s's rows; %s): "+
				"use a design that keeps a listing beside its comments, such as between",
				d.Name(), d.Name(), d.Table(keys.Comment).Store, rowsOf(d)))
		}
	case Verified:
		for _, name := range keys.Indexes {
			if t := d.Table(name); t != nil && t.Meta != nil {
				return writesError(fmt.Sprintf("--writes verified on design %s: %s keeps a count of its collection, which an unverified entry would put "+
					"out of step: use one-row or transactional", d.Name(), name))
			}
		}
	}
	return nil
}

// OneRowSplit is which listings share the comment's row, written with it
// in one row mutation under one-row, and which do not.
func OneRowSplit(d *keys.Design) (in, apart []string) { return d.InCommentRow() }

// rowsOf says where each listing keeps its entries.
func rowsOf(d *keys.Design) string {
	var s []string
	for _, name := range keys.Indexes {
		if t := d.Table(name); t != nil {
			s = append(s, fmt.Sprintf("%s in %s's", name, t.Store))
		}
	}
	return strings.Join(s, ", ")
}

// Consistency counts what the comment writes left behind for readers or
// verify to set right, what readers set right meanwhile, and what the
// writes cost. Per-listing counts are indexed as keys.Indexes.
type Consistency struct {
	Writes   atomic.Int64 // comment writes and edits made
	Acked    atomic.Int64 // comment writes acknowledged
	Requests atomic.Int64 // their requests, reads included
	Bytes    atomic.Int64 // the bytes their writes sent
	// Unknown are failed writes whose residue the system cannot tell: a
	// failure it did not inject, whose request may or may not have landed.
	Unknown atomic.Int64
	// Left by failed or abandoned writes, per listing: entries missing
	// beside a written comment, entries written beside a missing one,
	// entries left unverified (with and without their comment), and
	// copies left as the comment was before an edit.
	Unreferenced, Undefined    [maxListings]atomic.Int64
	Unverified, Orphans        [maxListings]atomic.Int64
	StaleCopies                [maxListings]atomic.Int64
	LocksForward, LocksBack    atomic.Int64 // rows left locked, by transactions that committed and that did not
	Repaired, Deleted, Skipped atomic.Int64 // unverified entries readers repaired, deleted and skipped
}

// Residue is a snapshot of a system's Consistency, with its transactions'
// conflicts and the locks their readers and writers resolved.
type Residue struct {
	Writes, Acked, Requests, Bytes, Unknown int64
	// Per listing table.
	Unreferenced, Undefined, Unverified, Orphans, StaleCopies map[string]int64
	LocksForward, LocksBack                                   int64
	Repaired, Deleted, Skipped                                int64
	RolledForward, RolledBack                                 int64
	Conflicts, Retries                                        int64
	Injected                                                  faults.Counts
}

// Residue snapshots what the system's writes left and its readers did.
func (s *System) Residue() Residue {
	c := &s.cons
	r := Residue{Writes: c.Writes.Load(), Acked: c.Acked.Load(), Requests: c.Requests.Load(), Bytes: c.Bytes.Load(),
		Unknown: c.Unknown.Load(), LocksForward: c.LocksForward.Load(), LocksBack: c.LocksBack.Load(),
		Repaired: c.Repaired.Load(), Deleted: c.Deleted.Load(), Skipped: c.Skipped.Load(), Injected: s.inj.Counts()}
	perListing := func(a *[maxListings]atomic.Int64) map[string]int64 {
		m := map[string]int64{}
		for i, name := range keys.Indexes {
			if n := a[i].Load(); n != 0 {
				m[name] = n
			}
		}
		return m
	}
	r.Unreferenced, r.Undefined = perListing(&c.Unreferenced), perListing(&c.Undefined)
	r.Unverified, r.Orphans, r.StaleCopies = perListing(&c.Unverified), perListing(&c.Orphans), perListing(&c.StaleCopies)
	for _, m := range []*txn.Manager{s.tx, s.readTx} {
		if m != nil {
			r.RolledForward += m.Stats.RolledForward.Load()
			r.RolledBack += m.Stats.RolledBack.Load()
			r.Conflicts += m.Stats.Conflicts.Load()
			r.Retries += m.Stats.Retries.Load()
		}
	}
	return r
}

// Writes is the strategy the system writes with.
func (s *System) Writes() Writes { return s.writes }

// listingIndex is a listing's place in keys.Indexes.
func listingIndex(name string) int { return slices.Index(keys.Indexes, name) }
