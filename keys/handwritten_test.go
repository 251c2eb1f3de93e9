package keys

// The hand-written seed and unique layouts that the designs replaced, kept
// as the reference the seed and unique designs must match byte for byte:
// a design file is only trustworthy if it reproduces the code it replaced.

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Separators after the productId in the two product indexes.
const (
	handCommentSep byte = 'c'
	handRankSep    byte = 'r'
)

// Fixed key lengths of the hand-written layouts.
const (
	seedUserCommentLen      = IDLen + 8 // userId ‖ revTs
	uniqueUserCommentLen    = seedUserCommentLen + CommentKeyLen
	seedProductCommentLen   = IDLen + 1 + 8 + 4 // productId ‖ c ‖ revTs ‖ revLen
	uniqueProductCommentLen = seedProductCommentLen + IDLen
	rankKeyLen              = IDLen + 1 + 2 // productId ‖ r ‖ rank
)

// handLayout is both hand-written layouts: they share every byte up to the
// tie-breaker.
type handLayout struct {
	name   string
	unique bool
}

var (
	handSeed    = handLayout{name: "seed"}
	handUnique  = handLayout{name: "unique", unique: true}
	handLayouts = []handLayout{handSeed, handUnique}
)

// design is the built-in design this layout is the reference for.
func (l handLayout) design() *Design {
	if l.unique {
		return Unique
	}
	return Seed
}

func (l handLayout) UserCommentKey(userID string, ts int64, commentKey []byte) ([]byte, error) {
	if err := CheckID(userID); err != nil {
		return nil, err
	}
	if err := handCheckTimestamp(ts); err != nil {
		return nil, err
	}
	k := make([]byte, 0, l.userCommentLen())
	k = binary.BigEndian.AppendUint64(append(k, userID...), handRevTs(ts))
	if !l.unique {
		return k, nil
	}
	if err := handCheckCommentKey(commentKey); err != nil {
		return nil, err
	}
	return append(k, commentKey...), nil
}

func (l handLayout) ProductCommentKey(productID string, ts int64, contentLen int, commentKey []byte) ([]byte, error) {
	if err := CheckID(productID); err != nil {
		return nil, err
	}
	if err := handCheckTimestamp(ts); err != nil {
		return nil, err
	}
	if contentLen < 0 || contentLen > math.MaxInt32 {
		return nil, errorf(ErrOutOfRange, "content length %d, want 0..%d", contentLen, math.MaxInt32)
	}
	k := make([]byte, 0, l.productCommentLen())
	k = append(append(k, productID...), handCommentSep)
	k = binary.BigEndian.AppendUint64(k, handRevTs(ts))
	k = binary.BigEndian.AppendUint32(k, uint32(math.MaxInt32-contentLen))
	if !l.unique {
		return k, nil
	}
	if err := handCheckCommentOf(productID, commentKey); err != nil {
		return nil, err
	}
	return append(k, commentKey[:IDLen]...), nil
}

func (l handLayout) RankKey(productID string, rank int) ([]byte, error) {
	if err := CheckID(productID); err != nil {
		return nil, err
	}
	if rank < 1 || rank > MaxEncodableRank {
		return nil, errorf(ErrOutOfRange, "rank %d, want 1..%d", rank, MaxEncodableRank)
	}
	k := make([]byte, 0, rankKeyLen)
	k = append(append(k, productID...), handRankSep)
	return binary.BigEndian.AppendUint16(k, uint16(rank)), nil
}

func (l handLayout) UserCommentPrefix(userID string) ([]byte, error) {
	return EntityKey(userID)
}

func (l handLayout) ProductCommentPrefix(productID string) ([]byte, error) {
	return handSepPrefix(productID, handCommentSep)
}

func (l handLayout) RankPrefix(productID string) ([]byte, error) {
	return handSepPrefix(productID, handRankSep)
}

func handSepPrefix(productID string, sep byte) ([]byte, error) {
	if err := CheckID(productID); err != nil {
		return nil, err
	}
	return append([]byte(productID), sep), nil
}

func (l handLayout) userCommentLen() int {
	if l.unique {
		return uniqueUserCommentLen
	}
	return seedUserCommentLen
}

func (l handLayout) productCommentLen() int {
	if l.unique {
		return uniqueProductCommentLen
	}
	return seedProductCommentLen
}

func handRevTs(ts int64) uint64 { return uint64(math.MaxInt64 - ts) }

func handCheckTimestamp(ts int64) error {
	if ts < 0 {
		return errorf(ErrOutOfRange, "timestamp %d ms is negative, want >= 0", ts)
	}
	return nil
}

func handCheckCommentKey(ck []byte) error {
	if len(ck) != CommentKeyLen {
		return errorf(ErrBadKey, "comment key %s is %d bytes, want %d", quotedKey(ck), len(ck), CommentKeyLen)
	}
	return nil
}

// handCheckCommentOf refuses a comment key of another product: the unique
// product-comment key keeps only the orderId.
func handCheckCommentOf(productID string, ck []byte) error {
	if err := handCheckCommentKey(ck); err != nil {
		return err
	}
	if string(ck[IDLen:]) != productID {
		return errorf(ErrBadKey, "comment key %s is for product %s, not %s",
			quotedKey(ck), quotedKey(ck[IDLen:]), quoted(productID))
	}
	return nil
}

// Decode is the old hand-written decoder. It never panics: every length is
// checked before any slice.
func (l handLayout) Decode(table string, key []byte) (Key, error) {
	switch table {
	case User, Seller, Product, Order:
		if err := handCheckLen(table, "", key, IDLen); err != nil {
			return Key{}, err
		}
		return Key{Table: table, ID: string(key)}, nil
	case Comment:
		o, p, err := SplitCommentKey(key)
		if err != nil {
			return Key{}, err
		}
		return Key{Table: table, OrderID: o, ProductID: p}, nil
	case UserComment:
		return l.decodeUserComment(key)
	case ProductComment:
		return l.decodeProductComment(key)
	case ProductRank:
		return handDecodeRank(key)
	}
	return Key{}, errorf(ErrBadKey, "unknown table %s", quoted(table))
}

func (l handLayout) decodeUserComment(key []byte) (Key, error) {
	if err := handCheckLen(UserComment, l.name, key, l.userCommentLen()); err != nil {
		return Key{}, err
	}
	ts, err := handUnrevTs(UserComment, key[IDLen:])
	if err != nil {
		return Key{}, err
	}
	k := Key{Table: UserComment, UserID: string(key[:IDLen]), Timestamp: ts}
	if l.unique {
		k.OrderID = string(key[seedUserCommentLen : seedUserCommentLen+IDLen])
		k.ProductID = string(key[seedUserCommentLen+IDLen:])
	}
	return k, nil
}

func (l handLayout) decodeProductComment(key []byte) (Key, error) {
	if err := handCheckLen(ProductComment, l.name, key, l.productCommentLen()); err != nil {
		return Key{}, err
	}
	if err := handCheckSep(ProductComment, key, handCommentSep); err != nil {
		return Key{}, err
	}
	ts, err := handUnrevTs(ProductComment, key[IDLen+1:])
	if err != nil {
		return Key{}, err
	}
	n, err := handUnrevLen(key[IDLen+9:])
	if err != nil {
		return Key{}, err
	}
	k := Key{Table: ProductComment, ProductID: string(key[:IDLen]), Timestamp: ts, ContentLen: n}
	if l.unique {
		k.OrderID = string(key[seedProductCommentLen:])
	}
	return k, nil
}

func handDecodeRank(key []byte) (Key, error) {
	if err := handCheckLen(ProductRank, "", key, rankKeyLen); err != nil {
		return Key{}, err
	}
	if err := handCheckSep(ProductRank, key, handRankSep); err != nil {
		return Key{}, err
	}
	r := int16(binary.BigEndian.Uint16(key[IDLen+1:]))
	if r < 1 {
		return Key{}, errorf(ErrBadKey, "%s key %s: rank %d, want 1..%d", ProductRank, quotedKey(key), r, MaxEncodableRank)
	}
	return Key{Table: ProductRank, ProductID: string(key[:IDLen]), Rank: int(r)}, nil
}

func handCheckLen(table, layoutName string, key []byte, want int) error {
	if len(key) == want {
		return nil
	}
	in := ""
	if layoutName != "" {
		in = " in the " + layoutName + " layout"
	}
	return errorf(ErrBadKey, "%s key %s is %d bytes, want %d%s", table, quotedKey(key), len(key), want, in)
}

func handCheckSep(table string, key []byte, want byte) error {
	if got := key[IDLen]; got != want {
		return errorf(ErrBadKey, "%s key %s: byte %d is %q, want separator %q", table, quotedKey(key), IDLen, got, want)
	}
	return nil
}

func handUnrevTs(table string, b []byte) (int64, error) {
	rev := int64(binary.BigEndian.Uint64(b))
	if rev < 0 {
		return 0, errorf(ErrBadKey, "%s key: reversed timestamp %#016x is negative", table, uint64(rev))
	}
	return math.MaxInt64 - rev, nil
}

func handUnrevLen(b []byte) (int, error) {
	rev := int32(binary.BigEndian.Uint32(b))
	if rev < 0 {
		return 0, errorf(ErrBadKey, "%s key: reversed length %#08x is negative", ProductComment, uint32(rev))
	}
	return int(math.MaxInt32 - rev), nil
}

// Encode rebuilds a decoded key, the inverse of Decode. The unique
// tie-breaker's comment key is k.OrderID ‖ k.ProductID.
func (l handLayout) Encode(k Key) ([]byte, error) {
	switch k.Table {
	case User, Seller, Product, Order:
		return EntityKey(k.ID)
	case Comment:
		return CommentKey(k.OrderID, k.ProductID)
	case UserComment:
		return l.UserCommentKey(k.UserID, k.Timestamp, handTieBreaker(k))
	case ProductComment:
		return l.ProductCommentKey(k.ProductID, k.Timestamp, k.ContentLen, handTieBreaker(k))
	case ProductRank:
		return l.RankKey(k.ProductID, k.Rank)
	}
	return nil, errorf(ErrBadKey, "unknown table %s", quoted(k.Table))
}

// handTieBreaker is nil for a seed key, which has no order to rebuild it
// from.
func handTieBreaker(k Key) []byte {
	if k.OrderID == "" {
		return nil
	}
	return []byte(k.OrderID + k.ProductID)
}

// oldSplitPoints is the id-only splitter the designs replaced: one set of
// splits for every table, cut over an id's first k symbols.
func oldSplitPoints(s Scheme, n int) ([][]byte, error) {
	if n < 1 || n > MaxRegions {
		return nil, fmt.Errorf("split into %d regions: want 1..%d", n, MaxRegions)
	}
	if err := s.check(); err != nil {
		return nil, err
	}
	base := uint64(len(s.Alphabet))
	k, space := 0, uint64(1)
	for k < IDLen && space < spread*uint64(n) {
		space *= base
		k++
	}
	if space < uint64(n) {
		return nil, fmt.Errorf("split %q ids into %d regions: only %d distinct %d-symbol prefixes", s.Name, n, space, k)
	}
	splits := make([][]byte, n-1)
	for i := range splits {
		v := uint64(i+1) * space / uint64(n)
		b := make([]byte, k)
		for j := k - 1; j >= 0; j-- {
			b[j] = s.Alphabet[v%base]
			v /= base
		}
		splits[i] = b
	}
	return splits, nil
}
