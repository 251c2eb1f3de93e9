package check

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"commentbench/extsort"
	"commentbench/keys"
	"commentbench/results"
)

// runLedger walks a run's ledger in comment-key order alongside the comment
// pass, which reads every comment row in that order: each record is
// reconciled as its key is passed (every comment the backend acknowledged
// must exist; outcomes never known are counted apart, present or not), and
// a comment's record tells the content length its index keys were made
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

// openLedger sorts the run's ledger if read; with no --run, or without
// read, there is nothing to walk, and every comment's length is unknown.
func (c *checker) openLedger(read bool) (*runLedger, error) {
	l := &runLedger{}
	if c.o.RunDir == "" || !read {
		return l, nil
	}
	l.r = &RunReport{Dir: c.o.RunDir}
	l.s = c.sorter()
	var val [5]byte // status ‖ length; Add copies it
	torn, err := results.ReadLedger(c.o.RunDir, func(r results.LedgerRecord) error {
		n := noLen
		if r.Len >= 0 {
			n = uint32(r.Len)
		}
		val[0] = r.Status
		binary.BigEndian.PutUint32(val[1:], n)
		return l.s.Add(r.Key, val[:])
	})
	l.r.TornTails = int64(torn)
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

// at reconciles the records up to comment key ck, which exists, and
// returns the first length recorded for it, -1 for none. Keys come in
// ascending order.
func (l *runLedger) at(c *checker, ck []byte) int {
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
func (l *runLedger) finish(c *checker) (*RunReport, error) {
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
