package check

import (
	"encoding/binary"
	"hash/maphash"
)

// fingerprint sums up a multiset of index rows (key and value): their
// count, and the sum of each row's hash under each of two seeds. A
// table's rows and the rows its comments call for have the same
// fingerprint when they are the same rows; when they are not, the sums
// agree by chance with a probability of about 2^-128. That holds for any
// rows, not just likely ones: the seeds are drawn anew in every process,
// so no data set can be made to collide.
//
// (Why a sum proves it: with equal counts, and a table's rows all
// distinct, two different multisets leave some row counted an odd number
// of times more on one side than the other, and an odd multiple of a
// random 64-bit value is zero modulo 2^64 only with chance 2^-64.)
type fingerprint struct {
	n    int64
	a, b uint64
}

var fingerprintSeeds = [3]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed(), maphash.MakeSeed()}

// same says whether f and g sum up the same rows.
func (f *fingerprint) same(g *fingerprint) bool {
	return f.n == g.n && f.a == g.a && f.b == g.b
}

// sums fingerprints an index's rows by bucket: a row falls in the bucket
// of its group (the key's parts before the content length, see
// keys.TableKey.GroupLen), so every row a comment's match can involve (its
// own, one its key collides with, one in its place holding a bad value)
// falls in the bucket its expected row does.
//
// This is how an index is checked without a join where it is
// consistent: the comment pass sums what each comment calls for, a scan
// sums the table, and only the buckets whose sums differ are joined row
// by row to find out how. On a consistent index that is none; on one
// with a few thousand faults, a few percent of its rows.
type sums struct {
	g       int // group length
	buckets []fingerprint
	open    []bool // buckets no sum can prove: a loose comment's
	buf     []byte
	queue   [sumsQueue]queued // rows hashed, not yet in their buckets
	nq      int
}

// queued is a row's part of its bucket's sums, waiting to be added.
type queued struct {
	i    int
	a, b uint64
}

// sumsQueue is how many rows are hashed before their buckets are touched.
// A row's bucket is rarely in a cache (four sums take more than a core's);
// added one at a time, each row waits for its miss, while a queue's
// buckets are fetched at once, their loads not waiting on each other.
// That took 40% off the time verify spends summing (5% off verify's).
const sumsQueue = 64

// sumBuckets is how many buckets an index is summed in: 384 KiB a sums,
// so the four a check keeps stay in a core's cache (65,536 buckets made
// verify 6% slower at 1M comments, and no faster on the seed layout's
// 1,733 collisions).
const sumBuckets = 1 << 14

func newSums(groupLen int) *sums { return newSumsOf(groupLen, sumBuckets) }

// newSumsOf sums in n buckets, a power of two.
func newSumsOf(groupLen, n int) *sums {
	return &sums{g: groupLen, buckets: make([]fingerprint, n), open: make([]bool, n)}
}

// bucket is the bucket of an index key's group.
func (s *sums) bucket(key []byte) int {
	return int(maphash.Bytes(fingerprintSeeds[2], groupOf(key, s.g)) & uint64(len(s.buckets)-1))
}

// add counts one row. The key's length goes first, so a key and value
// cannot pass for another split of the same bytes.
// Its hashes are queued for their bucket.
func (s *sums) add(key, val []byte) {
	a, b := s.hash(key, val)
	s.queue[s.nq] = queued{s.bucket(key), a, b}
	if s.nq++; s.nq == len(s.queue) {
		s.flush()
	}
}

// flush adds the queued rows to their buckets.
func (s *sums) flush() {
	for _, q := range s.queue[:s.nq] {
		f := &s.buckets[q.i]
		f.a += q.a
		f.b += q.b
		f.n++
	}
	s.nq = 0
}

func (s *sums) hash(key, val []byte) (a, b uint64) {
	s.buf = binary.AppendUvarint(s.buf[:0], uint64(len(key)))
	s.buf = append(append(s.buf, key...), val...)
	return maphash.Bytes(fingerprintSeeds[0], s.buf), maphash.Bytes(fingerprintSeeds[1], s.buf)
}

// leaveOpen marks key's bucket as one only a join can check.
func (s *sums) leaveOpen(key []byte) { s.open[s.bucket(key)] = true }

// openWhereDiffer leaves open every bucket whose sums a and b, summed in
// as many buckets as s, do not agree on.
func (s *sums) openWhereDiffer(a, b *sums) {
	a.flush()
	b.flush()
	for i := range a.buckets {
		if !a.buckets[i].same(&b.buckets[i]) {
			s.open[i] = true
		}
	}
}

// unproved returns the buckets whose sums s and t do not agree on (nil
// if none), and how many rows of t the others hold.
func (s *sums) unproved(t *sums) (join []bool, proved int64) {
	s.flush()
	t.flush()
	for i := range s.buckets {
		if s.open[i] || t.open[i] || !s.buckets[i].same(&t.buckets[i]) {
			if join == nil {
				join = make([]bool, len(s.buckets))
			}
			join[i] = true
			continue
		}
		proved += t.buckets[i].n
	}
	return join, proved
}
