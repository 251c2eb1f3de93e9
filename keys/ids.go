package keys

// CommentKeyLen is the comment row key's length: a comment has no id of its
// own, (orderId, productId) identifies it.
const CommentKeyLen = 2 * IDLen

// CheckID reports whether id can be part of a row key. Every key layout is
// fixed-width, so a short or long id would shift every later field and the
// decoder would read garbage; only the length matters, not the alphabet, so
// random-letter and sequential base-36 ids are both accepted.
func CheckID(id string) error {
	if len(id) != IDLen {
		return errorf(ErrBadID, "id %s is %d bytes, want %d", quoted(id), len(id), IDLen)
	}
	return nil
}

// EntityKey is the row key of the user, seller, product and order tables:
// the id itself. It validates rather than pads so a bad id fails at the
// write instead of becoming an unreachable row.
func EntityKey(id string) ([]byte, error) {
	if err := CheckID(id); err != nil {
		return nil, err
	}
	return []byte(id), nil
}

// CommentKey is the comment table's row key, orderId ‖ productId. Order
// first, so one order's comments are adjacent and the uniformly random
// orderId spreads comments over regions.
func CommentKey(orderID, productID string) ([]byte, error) {
	if err := checkIDs(orderID, productID); err != nil {
		return nil, err
	}
	k := make([]byte, 0, CommentKeyLen)
	k = append(k, orderID...)
	return append(k, productID...), nil
}

// SplitCommentKey recovers the two ids from a comment row key, which is what
// an index row stores as its value; the listing needs them to report which
// comments it returned.
func SplitCommentKey(key []byte) (orderID, productID string, err error) {
	if len(key) != CommentKeyLen {
		return "", "", errorf(ErrBadKey, "comment key %s is %d bytes, want %d",
			quotedKey(key), len(key), CommentKeyLen)
	}
	return string(key[:IDLen]), string(key[IDLen:]), nil
}

func checkIDs(ids ...string) error {
	for _, id := range ids {
		if err := CheckID(id); err != nil {
			return err
		}
	}
	return nil
}
