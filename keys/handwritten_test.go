package keys

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
)

// Separators after the productId in the two product indexes. They are what
// keeps one product's listing ('c' < 'r') ahead of its ranking, and both
// inside the product's own key range.
const (
	CommentSep byte = 'c'
	RankSep    byte = 'r'
)

// MaxEncodableRank is the largest rank RankKey accepts: the whole int16 the
// seed's 2-byte field holds, not MaxRank. A fault-injection test writes an
// 11th rank on purpose so the checker can show stale ranks; refusing to build
// that key would hide the very bug the harness exists to show. Callers that
// mean "a valid ranking" check against MaxRank themselves.
const MaxEncodableRank = math.MaxInt16

// Fixed key lengths; Decode rejects anything else, so a key from the other
// layout is reported rather than misread.
const (
	seedUserCommentLen      = IDLen + 8 // userId ‖ revTs
	uniqueUserCommentLen    = seedUserCommentLen + CommentKeyLen
	seedProductCommentLen   = IDLen + 1 + 8 + 4 // productId ‖ c ‖ revTs ‖ revLen
	uniqueProductCommentLen = seedProductCommentLen + IDLen
	rankKeyLen              = IDLen + 1 + 2 // productId ‖ r ‖ rank
)

// layout is both layouts: they share every byte up to the tie-breaker.
type layout struct {
	name   string
	unique bool
}

// Seed is the seed's layout byte for byte (SCHEMA.md). It ignores the
// comment key, so two comments on one product in the same millisecond with
// equal byte length, or by one user in the same millisecond, get the same
// index key and the second put overwrites the first: the harness needs this
// layout to reproduce that loss.
var Seed Layout = layout{name: "seed"}

// Unique is the seed's layout with a tie-breaker appended to the two listing
// indexes, so distinct comments never share an index key. A product-comment
// row appends the orderId (+10 bytes per row, 33 in all; the productId is
// already the prefix); a user-comment row appends orderId ‖ productId (+20
// bytes per row, 38 in all), because one user can comment on two products of
// one order, or on two orders, in one millisecond. Rank keys are unchanged.
// Its ProductCommentKey refuses a comment key of another product, since only
// the orderId is kept.
// The tie-breaker comes last, so the order is still newest first, then
// longer first, then by the tie-breaker; prefixes, scans and paging by
// "start at the next key" work unchanged.
var Unique Layout = layout{name: "unique", unique: true}

var layouts = []Layout{Seed, Unique}

// LayoutNames lists the values LayoutByName accepts, for flag help text.
func LayoutNames() []string {
	names := make([]string, len(layouts))
	for i, l := range layouts {
		names[i] = l.Name()
	}
	return names
}

// LayoutByName maps a --layout flag value to its Layout, so a typo fails at
// start-up with the allowed names rather than running the wrong experiment.
func LayoutByName(name string) (Layout, error) {
	for _, l := range layouts {
		if l.Name() == name {
			return l, nil
		}
	}
	return nil, fmt.Errorf("unknown layout %q (want one of %s)", name, strings.Join(LayoutNames(), ", "))
}

func (l layout) Name() string { return l.name }

func (l layout) UserCommentKey(userID string, ts int64, commentKey []byte) ([]byte, error) {
	if err := CheckID(userID); err != nil {
		return nil, err
	}
	if err := checkTimestamp(ts); err != nil {
		return nil, err
	}
	k := make([]byte, 0, l.userCommentLen())
	k = binary.BigEndian.AppendUint64(append(k, userID...), revTs(ts))
	if !l.unique {
		return k, nil
	}
	if err := checkCommentKey(commentKey); err != nil {
		return nil, err
	}
	return append(k, commentKey...), nil
}

func (l layout) ProductCommentKey(productID string, ts int64, contentLen int, commentKey []byte) ([]byte, error) {
	if err := CheckID(productID); err != nil {
		return nil, err
	}
	if err := checkTimestamp(ts); err != nil {
		return nil, err
	}
	if contentLen < 0 || contentLen > math.MaxInt32 {
		return nil, errorf(ErrOutOfRange, "content length %d, want 0..%d", contentLen, math.MaxInt32)
	}
	k := make([]byte, 0, l.productCommentLen())
	k = append(append(k, productID...), CommentSep)
	k = binary.BigEndian.AppendUint64(k, revTs(ts))
	k = binary.BigEndian.AppendUint32(k, uint32(math.MaxInt32-contentLen))
	if !l.unique {
		return k, nil
	}
	if err := checkCommentOf(productID, commentKey); err != nil {
		return nil, err
	}
	return append(k, commentKey[:IDLen]...), nil
}

func (l layout) RankKey(productID string, rank int) ([]byte, error) {
	if err := CheckID(productID); err != nil {
		return nil, err
	}
	if rank < 1 || rank > MaxEncodableRank {
		return nil, errorf(ErrOutOfRange, "rank %d, want 1..%d", rank, MaxEncodableRank)
	}
	k := make([]byte, 0, rankKeyLen)
	k = append(append(k, productID...), RankSep)
	return binary.BigEndian.AppendUint16(k, uint16(rank)), nil
}

func (l layout) UserCommentPrefix(userID string) ([]byte, error) {
	return EntityKey(userID)
}

func (l layout) ProductCommentPrefix(productID string) ([]byte, error) {
	return sepPrefix(productID, CommentSep)
}

func (l layout) RankPrefix(productID string) ([]byte, error) {
	return sepPrefix(productID, RankSep)
}

func sepPrefix(productID string, sep byte) ([]byte, error) {
	if err := CheckID(productID); err != nil {
		return nil, err
	}
	return append([]byte(productID), sep), nil
}

func (l layout) userCommentLen() int {
	if l.unique {
		return uniqueUserCommentLen
	}
	return seedUserCommentLen
}

func (l layout) productCommentLen() int {
	if l.unique {
		return uniqueProductCommentLen
	}
	return seedProductCommentLen
}

// revTs makes newer timestamps smaller, so an ascending scan is newest first.
func revTs(ts int64) uint64 { return uint64(math.MaxInt64 - ts) }

func checkTimestamp(ts int64) error {
	if ts < 0 {
		return errorf(ErrOutOfRange, "timestamp %d ms is negative, want >= 0", ts)
	}
	return nil
}

func checkCommentKey(ck []byte) error {
	if len(ck) != CommentKeyLen {
		return errorf(ErrBadKey, "comment key %s is %d bytes, want %d",
			quotedKey(ck), len(ck), CommentKeyLen)
	}
	return nil
}

// checkCommentOf refuses a comment key of another product: the unique
// product-comment key keeps only the orderId, trusting the prefix for the
// productId, so a mismatch would point the index at the wrong comment.
func checkCommentOf(productID string, ck []byte) error {
	if err := checkCommentKey(ck); err != nil {
		return err
	}
	if string(ck[IDLen:]) != productID {
		return errorf(ErrBadKey, "comment key %s is for product %s, not %s",
			quotedKey(ck), quotedKey(ck[IDLen:]), quoted(productID))
	}
	return nil
}
