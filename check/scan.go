package check

import (
	"context"
	"encoding/hex"
	"fmt"
	"iter"
	"sync/atomic"

	"commentbench/extsort"
	"commentbench/keys"
	"commentbench/model"
	"commentbench/store"
)

// rows streams a table in key order, counting what it reads. The scan
// runs ahead in a goroutine of its own, a few batches of rows ahead of the
// check: reading the storage and checking what was read then take a core
// each, where in turn they took twice the time.
func (c *checker) rows(ctx context.Context, table string, sc store.Scan) iter.Seq2[store.Row, error] {
	scan := func(yield func(store.Row, error) bool) {
		stopped := false
		_, err := c.st.Scan(ctx, table, sc, func(r store.Row) bool {
			stopped = !yield(r, nil)
			return !stopped
		})
		if err != nil && !stopped {
			yield(store.Row{}, fmt.Errorf("scan %s: %w", table, err))
		}
	}
	return func(yield func(store.Row, error) bool) {
		var n counted
		defer n.flush(c.o.Rows)
		for r, err := range ahead(ctx, scan, func(r store.Row) store.Row { return r }) {
			if err == nil {
				n.add(c.o.Rows)
			}
			if !yield(r, err) {
				return
			}
		}
	}
}

// counted adds to a progress counter a batch at a time: the scans run
// at once, and an atomic add per row had their cores taking turns at
// the counter's cache line.
type counted int64

const countEvery = 256

func (n *counted) add(to *atomic.Int64) {
	if *n++; *n == countEvery {
		n.flush(to)
	}
}

func (n *counted) flush(to *atomic.Int64) {
	to.Add(int64(*n))
	*n = 0
}

// ahead runs seq in a goroutine of its own, a few batches ahead of the
// caller, and applies prep to each element there. The caller hands each
// batch back once it has yielded it, and the goroutine fills it again: a
// million comments' parsed rows were 266 MB of fresh batches, to zero and
// to collect. (A batch handed back keeps what its elements point at alive
// until it is filled again: a few batches' rows at most.)
func ahead[In, Out any](ctx context.Context, seq iter.Seq2[In, error], prep func(In) Out) iter.Seq2[Out, error] {
	return func(yield func(Out, error) bool) {
		sctx, cancel := context.WithCancel(ctx)
		defer cancel()
		batches := make(chan []Out, readAhead)
		free := make(chan []Out, readAhead+1) // at most every batch but the one being filled
		var seqErr error
		go func() {
			defer close(batches)
			fresh := func() []Out {
				select {
				case b := <-free:
					return b[:0]
				default:
					return make([]Out, 0, batchRows)
				}
			}
			batch := fresh()
			send := func() bool {
				select {
				case batches <- batch:
					batch = fresh()
					return true
				case <-sctx.Done():
					return false
				}
			}
			for in, err := range seq {
				if err != nil {
					seqErr = err
					return
				}
				if batch = append(batch, prep(in)); len(batch) == batchRows && !send() {
					return
				}
			}
			if len(batch) > 0 {
				send()
			}
		}()
		stopped := false
	batches:
		for b := range batches {
			for _, out := range b {
				if !yield(out, nil) {
					stopped = true
					break batches
				}
			}
			free <- b // never blocks: no more batches than it holds are ever made
		}
		cancel()
		for range batches { // until the goroutine has returned: seqErr is set
		}
		if seqErr != nil && !stopped {
			var zero Out
			yield(zero, seqErr)
		}
	}
}

// How far a scan runs ahead of the check: readAhead batches of batchRows.
const (
	readAhead = 8
	batchRows = 1024
)

// cursor pulls rows of a sorted stream one at a time, for merge joins.
type cursor struct {
	next func() (store.Row, error, bool)
	stop func()
	row  store.Row
	ok   bool
	err  error
}

func newCursor(seq iter.Seq2[store.Row, error]) *cursor {
	next, stop := iter.Pull2(seq)
	c := &cursor{next: next, stop: stop}
	c.advance()
	return c
}

func (c *cursor) advance() {
	var err error
	c.row, err, c.ok = c.next()
	if err != nil {
		c.err, c.ok = err, false
	}
}

// seek advances to the first row whose key is ≥ key and reports whether
// it equals key.
func (c *cursor) seek(key []byte) bool {
	for c.ok && string(c.row.Key) < string(key) {
		c.advance()
	}
	return c.ok && string(c.row.Key) == string(key)
}

func (c *cursor) close() error {
	c.stop()
	return c.err
}

// sorted walks a finished sort: each record once, in key order.
func sorted(s *extsort.Sorter) iter.Seq2[extsort.Record, error] {
	return func(yield func(extsort.Record, error) bool) {
		it, err := s.Sort()
		if err != nil {
			yield(extsort.Record{}, err)
			return
		}
		for it.Next() {
			if !yield(it.Record(), nil) {
				return
			}
		}
		if err := it.Err(); err != nil {
			yield(extsort.Record{}, err)
		}
	}
}

func (c *checker) sorter() *extsort.Sorter {
	return extsort.New(extsort.Options{Dir: c.o.TempDir, MemLimit: c.o.MemLimit})
}

// describe decodes a key of table for a sample, quoting what does not decode.
func (c *checker) describe(table string, key []byte) string {
	return c.o.Layout.Describe(table, key) + " 0x" + hex.EncodeToString(key)
}

// expectedKey is the row the comment in row calls for in an index table,
// described; "" when the comment does not decode.
func (c *checker) expectedKey(table string, row store.Row) string {
	cm, err := decodeComment(c.o.Codec, row)
	if err != nil {
		return ""
	}
	k, err := c.indexKey(cm, table, cm.ContentLen)
	if err != nil {
		return ""
	}
	return c.describe(table, k)
}

func decodeComment(codec model.Codec, r store.Row) (model.CommentHead, error) {
	v, ok := r.Value(keys.Qualifier)
	if !ok {
		return model.CommentHead{}, fmt.Errorf("no %s:%s cell", keys.Family, keys.Qualifier)
	}
	return model.DecodeHead(codec, v)
}
