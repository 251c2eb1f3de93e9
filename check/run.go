package check

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"iter"

	"commentbench/extsort"
	"commentbench/keys"
	"commentbench/results"
	"commentbench/store"
)

// reconcile checks the run's ledger against the comments: every comment the
// backend acknowledged must exist; outcomes that were never known are
// counted apart, present or not.
func (c *checker) reconcile(ctx context.Context) (*RunReport, error) {
	r := &RunReport{Dir: c.o.RunDir}
	ledger := c.sorter()
	defer ledger.Close()
	torn, err := results.ReadLedger(c.o.RunDir, func(r results.LedgerRecord) error { return ledger.Add(r.Key, []byte{r.Status}) })
	r.TornTails = int64(torn)
	if err != nil {
		return nil, fmt.Errorf("--run: %w", err)
	}
	comments := newCursor(c.rows(ctx, keys.Comment, store.Scan{}))
	defer comments.close()
	for rec, err := range sorted(ledger) {
		if err != nil {
			return nil, err
		}
		found := comments.seek(rec.Key)
		switch {
		case rec.Val[0] == results.Acked:
			r.Acked++
			if !found {
				ck := string(rec.Key)
				r.Lost.add(1, func() string { return c.describe(keys.Comment, []byte(ck)) + " was acknowledged and is missing" })
			}
		case found:
			r.UnknownPresent++
		default:
			r.UnknownAbsent++
		}
	}
	return r, comments.close()
}

// lengths walks the run ledger's content lengths in comment-key order,
// alongside the comment table's scan.
type lengths struct {
	next func() (extsort.Record, error, bool)
	stop func()
	rec  extsort.Record
	ok   bool
	err  error
	s    *extsort.Sorter
}

// writtenLengths sorts the ledger's recorded lengths by comment key; with
// no --run, every comment's is unknown.
func (c *checker) writtenLengths() (*lengths, error) {
	l := &lengths{}
	if c.o.RunDir == "" {
		return l, nil
	}
	l.s = c.sorter()
	_, err := results.ReadLedger(c.o.RunDir, func(r results.LedgerRecord) error {
		if r.Len < 0 {
			return nil
		}
		var n [4]byte
		binary.BigEndian.PutUint32(n[:], uint32(r.Len))
		return l.s.Add(r.Key, n[:])
	})
	if err != nil {
		l.s.Close()
		return nil, fmt.Errorf("--run: %w", err)
	}
	l.next, l.stop = iter.Pull2(sorted(l.s))
	l.advance()
	return l, nil
}

func (l *lengths) advance() {
	var err error
	l.rec, err, l.ok = l.next()
	if err != nil {
		l.err, l.ok = err, false
	}
}

// at is the length recorded for comment key ck, -1 for none. Keys come in
// ascending order.
func (l *lengths) at(ck []byte) int {
	if l.next == nil {
		return -1
	}
	for l.ok && bytes.Compare(l.rec.Key, ck) < 0 {
		l.advance()
	}
	if l.ok && bytes.Equal(l.rec.Key, ck) {
		return int(binary.BigEndian.Uint32(l.rec.Val))
	}
	return -1
}

func (l *lengths) close() error {
	if l.stop != nil {
		l.stop()
		l.stop = nil
	}
	if l.s != nil {
		l.s.Close()
		l.s = nil
	}
	return l.err
}
