package check

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"

	"commentbench/extsort"
	"commentbench/keys"
	"commentbench/results"
)

// ledgerWalk reconciles a run's ledger with the comment pass, which reads
// every comment row in key order: every comment the backend acknowledged
// must exist; outcomes never known are counted apart, present or not.
type ledgerWalk interface {
	// at is told of each comment row as the pass reads it, in key order,
	// and returns the first content length the ledger recorded for it:
	// what its index keys were made from. -1 for none; lengthLater when
	// the walk tells it only at its finish.
	at(c *checker, pc *parsed) (int, error)
	// finish reconciles what is left after the pass, files in p what the
	// lengths told late call for, and returns the run's report (nil
	// without --run).
	finish(ctx context.Context, c *checker, p *pass) (*RunReport, error)
	close() error
}

// lengthLater is the length of a comment whose index rows are filed at
// the walk's finish, when it knows what they were made from.
const lengthLater = -2

var (
	_ ledgerWalk = (*runLedger)(nil)
	_ ledgerWalk = (*ledgerProof)(nil)
)

// runLedger walks a run's ledger sorted by comment key alongside the
// comment pass: each record is reconciled as its key is passed, and a
// comment's record tells the content length its index keys were made
// from. One sort of the ledger and no scan of its own.
type runLedger struct {
	it  *extsort.Iterator // nil: nothing to walk
	rec extsort.Record
	ok  bool
	s   *extsort.Sorter
	r   *RunReport // nil without --run
}

// noLen is a record's length when the run did not record one.
const noLen = ^uint32(0)

// openLedger readies the run's ledger for a pass that reads it (read):
// with no --run, or without read, there is nothing to walk, and every
// comment's length is unknown. The first pass proves the ledger by its
// sums where it can (ledgerProof); a join pass, which needs every
// comment's length as it goes, walks it sorted.
func (c *checker) openLedger(read, prove bool) (ledgerWalk, error) {
	if c.o.RunDir == "" || !read {
		return &runLedger{}, nil
	}
	r := &RunReport{Dir: c.o.RunDir}
	if prove && !c.o.sortLedger {
		if l, err := c.proveLedger(r); l != nil || err != nil {
			return l, err
		}
	}
	return c.sortLedger(r, nil)
}

// sortLedger sorts the ledger's records, those whose keys pass keep (nil:
// all), for a walk that reconciles them into r.
func (c *checker) sortLedger(r *RunReport, keep func([]byte) bool) (*runLedger, error) {
	l := &runLedger{r: r, s: c.sorter()}
	var val [5]byte // status ‖ length; Add copies it
	torn, err := results.ReadLedger(c.o.RunDir, func(rec results.LedgerRecord) error {
		if keep != nil && !keep(rec.Key) {
			return nil
		}
		n := noLen
		if rec.Len >= 0 {
			n = uint32(rec.Len)
		}
		val[0] = rec.Status
		binary.BigEndian.PutUint32(val[1:], n)
		return l.s.Add(rec.Key, val[:])
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

func (l *runLedger) at(c *checker, pc *parsed) (int, error) {
	return l.lengthAt(c, pc.row.Key), nil
}

// lengthAt reconciles the records up to comment key ck, which exists, and
// returns the first length recorded for it, -1 for none. Keys come in
// ascending order.
func (l *runLedger) lengthAt(c *checker, ck []byte) int {
	if l.it == nil {
		return -1
	}
	n := -1
	for l.ok {
		switch cmp := bytes.Compare(l.rec.Key, ck); {
		case cmp > 0:
			return n
		case cmp < 0:
			l.absent(c)
			continue
		}
		if l.rec.Val[0] == results.Acked {
			l.r.Acked++
		} else {
			l.r.UnknownPresent++
		}
		if v := binary.BigEndian.Uint32(l.rec.Val[1:]); n < 0 && v != noLen {
			n = int(v)
		}
		l.advance()
	}
	return n
}

// absent reconciles the current record, whose comment does not exist.
func (l *runLedger) absent(c *checker) {
	if l.rec.Val[0] != results.Acked {
		l.r.UnknownAbsent++
		l.advance()
		return
	}
	l.r.Acked++
	ck := string(l.rec.Key)
	l.r.Lost.add(1, func() string { return c.describe(keys.Comment, []byte(ck)) + " was acknowledged and is missing" })
	l.advance()
}

// finish reconciles the records past the last comment, and returns the
// run's report (nil without --run).
func (l *runLedger) finish(_ context.Context, c *checker, _ *pass) (*RunReport, error) {
	for l.it != nil && l.ok {
		l.absent(c)
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
