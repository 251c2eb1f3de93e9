package check

import (
	"bytes"
	"context"
	"fmt"

	"commentbench/extsort"
	"commentbench/keys"
	"commentbench/results"
)

// ledgerWalk reconciles a run's ledger with the comment pass, which reads
// every comment row in key order: every comment the backend acknowledged
// must exist; outcomes never known are counted apart, present or not.
//
// The ledger says which comments must exist and nothing of what their
// rows must hold: the check's verdict on the data is the same with and
// without it. (The length a comment was written with, which the ledger
// records, once made an edited comment's index keys exact with --run and
// loose without: the gate passed less with less evidence, and a repair
// made without the ledger failed a check made with it.)
type ledgerWalk interface {
	// at is told of each comment row as the pass reads it, in key order.
	at(c *checker, ck []byte)
	// finish reconciles what is left after the pass and returns the run's
	// report (nil without --run).
	finish(ctx context.Context, c *checker) (*RunReport, error)
	close() error
}

var (
	_ ledgerWalk = (*runLedger)(nil)
	_ ledgerWalk = (*ledgerProof)(nil)
)

// runLedger walks a run's ledger sorted by comment key alongside the
// comment pass: each record is reconciled as its key is passed. One sort
// of the ledger and no scan of its own.
type runLedger struct {
	it  *extsort.Iterator // nil: nothing to walk
	rec extsort.Record
	ok  bool
	s   *extsort.Sorter
	r   *RunReport // nil without --run
}

// openLedger readies the run's ledger for the first pass: with no --run
// there is nothing to walk. It is proved by its sums (ledgerProof), or
// walked sorted when the check is told to.
func (c *checker) openLedger() (ledgerWalk, error) {
	if c.o.RunDir == "" {
		return &runLedger{}, nil
	}
	r := &RunReport{Dir: c.o.RunDir}
	if !c.o.sortLedger {
		return c.proveLedger(r)
	}
	return c.sortLedger(r, nil)
}

// sortLedger sorts the ledger's records, those whose keys pass keep (nil:
// all), for a walk that reconciles them into r.
func (c *checker) sortLedger(r *RunReport, keep func([]byte) bool) (*runLedger, error) {
	l := &runLedger{r: r, s: c.sorter()}
	torn, err := results.ReadLedger(c.o.RunDir, func(rec results.LedgerRecord) error {
		if keep != nil && !keep(rec.Key) {
			return nil
		}
		return l.s.Add(rec.Key, []byte{rec.Status})
	})
	r.TornTails = int64(torn)
	if err != nil {
		l.s.Close()
		return nil, fmt.Errorf("--run: %w", err)
	}
	if l.it, err = l.s.Sort(); err != nil {
		l.s.Close()
		return nil, fmt.Errorf("--run: %w", err)
	}
	l.advance()
	return l, nil
}

func (l *runLedger) advance() {
	if l.ok = l.it.Next(); l.ok {
		l.rec = l.it.Record()
	}
}

// at reconciles the records up to comment key ck, which exists. Keys
// come in ascending order.
func (l *runLedger) at(c *checker, ck []byte) {
	for l.it != nil && l.ok {
		switch cmp := bytes.Compare(l.rec.Key, ck); {
		case cmp > 0:
			l.notInLedger(c, ck)
			return
		case cmp < 0:
			l.reconcile(c, l.group(), false)
			continue
		}
		l.reconcile(c, l.group(), true)
		return
	}
	l.notInLedger(c, ck)
}

func (l *runLedger) notInLedger(c *checker, ck []byte) {
	if l.it == nil {
		return // no --run
	}
	l.r.NotInLedger.add(1, func() string { return c.describe(keys.Comment, ck) + " is in no record of the run" })
}

// writes are one comment's records.
type writes struct {
	key                               []byte
	acked, unknown, pending, outcomes int64
}

// group takes the current key's records.
func (l *runLedger) group() writes {
	w := writes{key: bytes.Clone(l.rec.Key)}
	for l.ok && bytes.Equal(l.rec.Key, w.key) {
		switch l.rec.Val[0] {
		case results.Acked:
			w.acked++
		case results.Unknown:
			w.unknown++
		case results.Pending:
			w.pending++
		}
		if l.rec.Val[0] != results.Pending {
			w.outcomes++
		}
		l.advance()
	}
	return w
}

// reconcile counts a comment's records, present or not: a write started
// with no outcome after it was in flight when the run stopped (a ledger
// from before pending records has none).
func (l *runLedger) reconcile(c *checker, w writes, present bool) {
	r := l.r
	r.Acked += w.acked
	flight := max(w.pending-w.outcomes, 0)
	if present {
		r.UnknownPresent += w.unknown
		r.InFlightPresent += flight
		return
	}
	r.UnknownAbsent += w.unknown
	r.InFlightAbsent += flight
	if w.acked > 0 {
		r.Lost.add(w.acked, func() string { return c.describe(keys.Comment, w.key) + " was acknowledged and is missing" })
	}
}

// finish reconciles the records past the last comment, and returns the
// run's report (nil without --run).
func (l *runLedger) finish(_ context.Context, c *checker) (*RunReport, error) {
	for l.it != nil && l.ok {
		l.reconcile(c, l.group(), false)
	}
	if err := l.close(); err != nil {
		return nil, err
	}
	return l.r, nil
}

func (l *runLedger) close() error {
	var err error
	if l.it != nil {
		err = l.it.Err()
		l.it = nil
	}
	if l.s != nil {
		l.s.Close()
		l.s = nil
	}
	return err
}
