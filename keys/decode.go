package keys

import (
	"encoding/binary"
	"math"
	"strings"
)

// Decode never panics: every length is checked before any slice, and every
// field that would overflow when un-reversed is an error, so whatever Decode
// accepts, Encode turns back into the same bytes.
func (l layout) Decode(table string, key []byte) (Key, error) {
	switch table {
	case User, Seller, Product, Order:
		if err := checkLen(table, "", key, IDLen); err != nil {
			return Key{}, err
		}
		return Key{Table: table, ID: string(key)}, nil
	case Comment:
		o, p, err := SplitCommentKey(key)
		return Key{Table: table, OrderID: o, ProductID: p}, err
	case UserComment:
		return l.decodeUserComment(key)
	case ProductComment:
		return l.decodeProductComment(key)
	case ProductRank:
		return decodeRank(key)
	}
	return Key{}, errorf(ErrBadKey, "unknown table %s (want one of %s)", quoted(table), strings.Join(Tables, ", "))
}

func (l layout) decodeUserComment(key []byte) (Key, error) {
	if err := checkLen(UserComment, l.name, key, l.userCommentLen()); err != nil {
		return Key{}, err
	}
	ts, err := unrevTs(UserComment, key[IDLen:])
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

func (l layout) decodeProductComment(key []byte) (Key, error) {
	if err := checkLen(ProductComment, l.name, key, l.productCommentLen()); err != nil {
		return Key{}, err
	}
	if err := checkSep(ProductComment, key, CommentSep); err != nil {
		return Key{}, err
	}
	ts, err := unrevTs(ProductComment, key[IDLen+1:])
	if err != nil {
		return Key{}, err
	}
	n, err := unrevLen(key[IDLen+9:])
	if err != nil {
		return Key{}, err
	}
	k := Key{Table: ProductComment, ProductID: string(key[:IDLen]), Sep: CommentSep, Timestamp: ts, ContentLen: n}
	if l.unique {
		k.OrderID = string(key[seedProductCommentLen:])
	}
	return k, nil
}

func decodeRank(key []byte) (Key, error) {
	if err := checkLen(ProductRank, "", key, rankKeyLen); err != nil {
		return Key{}, err
	}
	if err := checkSep(ProductRank, key, RankSep); err != nil {
		return Key{}, err
	}
	r := int16(binary.BigEndian.Uint16(key[IDLen+1:]))
	if r < 1 {
		return Key{}, errorf(ErrBadKey, "%s key %s: rank %d, want 1..%d",
			ProductRank, quotedKey(key), r, MaxEncodableRank)
	}
	return Key{Table: ProductRank, ProductID: string(key[:IDLen]), Sep: RankSep, Rank: int(r)}, nil
}

// checkLen names the layout when the length depends on it, because the
// likeliest cause of a wrong length is reading one layout's table with the
// other's decoder.
func checkLen(table, layoutName string, key []byte, want int) error {
	if len(key) == want {
		return nil
	}
	in := ""
	if layoutName != "" {
		in = " in the " + layoutName + " layout"
	}
	return errorf(ErrBadKey, "%s key %s is %d bytes, want %d%s", table, quotedKey(key), len(key), want, in)
}

func checkSep(table string, key []byte, want byte) error {
	if got := key[IDLen]; got != want {
		return errorf(ErrBadKey, "%s key %s: byte %d is %q, want separator %q",
			table, quotedKey(key), IDLen, got, want)
	}
	return nil
}

func unrevTs(table string, b []byte) (int64, error) {
	rev := int64(binary.BigEndian.Uint64(b))
	if rev < 0 {
		return 0, errorf(ErrBadKey, "%s key: reversed timestamp %#016x is negative, so no ts >= 0 made it",
			table, uint64(rev))
	}
	return math.MaxInt64 - rev, nil
}

func unrevLen(b []byte) (int, error) {
	rev := int32(binary.BigEndian.Uint32(b))
	if rev < 0 {
		return 0, errorf(ErrBadKey, "%s key: reversed length %#08x is negative, so no length >= 0 made it",
			ProductComment, uint32(rev))
	}
	return int(math.MaxInt32 - rev), nil
}

// Encode rebuilds a decoded key with l, the inverse of l.Decode: a checker
// uses it to confirm a row it read is one the builders could have written,
// and the fuzz tests use it to prove Decode loses nothing. The comment key
// for the unique tie-breaker is taken from k.OrderID ‖ k.ProductID.
func Encode(l Layout, k Key) ([]byte, error) {
	switch k.Table {
	case User, Seller, Product, Order:
		return EntityKey(k.ID)
	case Comment:
		return CommentKey(k.OrderID, k.ProductID)
	case UserComment:
		return l.UserCommentKey(k.UserID, k.Timestamp, tieBreaker(k))
	case ProductComment:
		return l.ProductCommentKey(k.ProductID, k.Timestamp, k.ContentLen, tieBreaker(k))
	case ProductRank:
		return l.RankKey(k.ProductID, k.Rank)
	}
	return nil, errorf(ErrBadKey, "unknown table %s (want one of %s)", quoted(k.Table), strings.Join(Tables, ", "))
}

// tieBreaker is nil for a seed key, which has no order to rebuild it from.
func tieBreaker(k Key) []byte {
	if k.OrderID == "" {
		return nil
	}
	return []byte(k.OrderID + k.ProductID)
}
