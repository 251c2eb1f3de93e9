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
//
// This is how a consistent index is proved without a join: the comment
// pass sums what each comment calls for, a scan sums the table, and only
// an index whose sums differ is joined row by row to find out how.
type fingerprint struct {
	n    int64
	a, b uint64
	buf  []byte
}

var fingerprintSeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

// add counts one row. The key's length goes first, so a key and value
// cannot pass for another split of the same bytes.
func (f *fingerprint) add(key, val []byte) {
	f.buf = binary.AppendUvarint(f.buf[:0], uint64(len(key)))
	f.buf = append(append(f.buf, key...), val...)
	f.a += maphash.Bytes(fingerprintSeeds[0], f.buf)
	f.b += maphash.Bytes(fingerprintSeeds[1], f.buf)
	f.n++
}

// same says whether f and g sum up the same rows.
func (f *fingerprint) same(g *fingerprint) bool {
	return f.n == g.n && f.a == g.a && f.b == g.b
}
