package check

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"commentbench/comments"
	"commentbench/results"
)

// FaultReport reconciles a run's injected failures with what the check
// found: each kind of residue the run's writes say they left, less what
// the run's readers set right meanwhile, against the check's count of it.
type FaultReport struct {
	Writes   string           `json:"writes"`
	Injected results.Injected `json:"injected"`
	Lines    []Reconciled     `json:"lines,omitempty"`
	// Unknown are the run's writes whose residue it could not tell (a
	// failure it did not inject): a count it leaves open.
	Unknown int64 `json:"unknown,omitempty"`
	// Unexplained are the lines whose counts differ: what the injected
	// failures do not explain.
	Unexplained []string `json:"unexplained,omitempty"`
	// Note says why there is nothing to reconcile.
	Note string `json:"note,omitempty"`
}

// Reconciled is one kind of residue: expected from the run, found by the
// check.
type Reconciled struct {
	What     string `json:"what"`
	Expected int64  `json:"expected"`
	Found    int64  `json:"found"`
}

// reconcile compares the run's consistency block with the report: nil
// without a run, for a run that recorded none, or one that injected no
// failure.
func (c *checker) reconcile(ctx context.Context, rep Report) (*FaultReport, error) {
	if c.o.RunDir == "" {
		return nil, nil
	}
	sum, err := results.ReadSummary(c.o.RunDir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reconcile the run's failures: %w", err)
	}
	cons := sum.Consistency
	if cons == nil || cons.Injected.Total() == 0 {
		return nil, nil // nothing injected: nothing to reconcile
	}
	f := &FaultReport{Writes: cons.Writes, Injected: cons.Injected, Unknown: cons.Unknown}
	if repaired, err := c.repairedSince(ctx); err != nil || repaired {
		if repaired {
			f.Note = "the data was repaired since the run: what its failures left is gone"
		}
		return f, err
	}
	l, r := cons.Left, cons.Resolved
	add := func(what string, expected, found int64) {
		f.Lines = append(f.Lines, Reconciled{What: what, Expected: expected, Found: found})
		if expected != found && cons.Unknown == 0 {
			f.Unexplained = append(f.Unexplained, fmt.Sprintf("%s: %d found, the injected failures explain %d", what, found, expected))
		}
	}
	var fwd, back int64
	for _, ix := range rep.Indexes {
		add("missing entries in "+ix.Table, l.Unreferenced[ix.Table], ix.Unreferenced.Count)
		add("entries without a comment in "+ix.Table, l.Undefined[ix.Table], ix.Undefined.Count)
		if ix.Copies {
			add("stale copies in "+ix.Table, l.StaleCopies[ix.Table], ix.StaleCopies.Count)
		}
		fwd, back = fwd+ix.Unverified.Count-ix.UnverifiedBack, back+ix.UnverifiedBack
	}
	switch cons.Writes {
	case comments.Verified.String():
		add("unverified entries rolled forward", sumLeft(l.Unverified)-r.Repaired, fwd)
		add("unverified entries rolled back", sumLeft(l.Orphans)-r.Deleted, back)
	case comments.Transactional.String():
		var lf, lb int64
		if rep.Locks != nil {
			lf, lb = rep.Locks.RolledForward, rep.Locks.RolledBack
		}
		add("locked rows rolled forward", l.LocksForward-r.RolledForward, lf)
		add("locked rows rolled back", l.LocksBack-r.RolledBack, lb)
	}
	return f, nil
}

func sumLeft(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

// repairedSince says whether a repair was applied to the data after the
// run wrote it: its residue is then gone, and nothing reconciles.
func (c *checker) repairedSince(ctx context.Context) (bool, error) {
	at, found, err := comments.LastRepair(ctx, c.st)
	if err != nil || !found {
		return false, err
	}
	fi, err := os.Stat(filepath.Join(c.o.RunDir, results.SummaryFile))
	if err != nil {
		return false, err
	}
	return at.After(fi.ModTime()), nil
}
