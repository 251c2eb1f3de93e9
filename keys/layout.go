// Package keys owns the row-key bytes of the comment schema (SCHEMA.md): the
// table names, builders and decoders for every table's keys, the two index
// layouts (the seed's and a collision-free one), id generation, and split
// points that cut the id alphabet evenly.
//
// It must not know about storage, serialization of values, or workloads: it
// turns ids, timestamps and lengths into bytes and back.
package keys

import "fmt"

// Table names, as the seed creates them. Each has one family, Family, and
// one qualifier, Qualifier.
const (
	User           = "user"
	Seller         = "seller"
	Product        = "product"
	Order          = "order"
	Comment        = "comment"
	UserComment    = "user-comment"
	ProductComment = "product-comment"
	ProductRank    = "product-comment-rank"
)

// Tables lists every table: the five entity tables, then the three indexes.
var Tables = []string{User, Seller, Product, Order, Comment, UserComment, ProductComment, ProductRank}

// Family and Qualifier are the seed's one column.
var (
	Family    = "cf"
	Qualifier = []byte("q")
)

// IDLen is the byte length of every id.
const IDLen = 10

// MaxRank is how many ranked comments a product keeps.
const MaxRank = 10

// Layout builds and decodes the index-table keys. Entity and comment keys are
// the same in every layout (see CommentKey and EntityKey).
type Layout interface {
	// Name is the layout's flag value: "seed" or "unique".
	Name() string

	// UserCommentKey is the user-comment row for a comment by userID at ts
	// (ms). commentKey is the comment's row key (orderId ‖ productId).
	UserCommentKey(userID string, ts int64, commentKey []byte) ([]byte, error)
	// ProductCommentKey is the product-comment row; contentLen is the
	// content's length in UTF-8 bytes.
	ProductCommentKey(productID string, ts int64, contentLen int, commentKey []byte) ([]byte, error)
	// RankKey is the product-comment-rank row for rank 1..MaxRank. It
	// accepts up to MaxEncodableRank so fault injection can write the
	// out-of-range rank a checker must catch.
	RankKey(productID string, rank int) ([]byte, error)

	// Prefixes every row of one user's timeline, one product's listing, one
	// product's ranking starts with.
	UserCommentPrefix(userID string) ([]byte, error)
	ProductCommentPrefix(productID string) ([]byte, error)
	RankPrefix(productID string) ([]byte, error)

	// Decode parses a row key of any table (see Tables) into its fields.
	Decode(table string, key []byte) (Key, error)
}

// Key is a decoded row key. Fields a table does not have are zero.
type Key struct {
	Table      string
	ID         string // entity tables
	UserID     string
	ProductID  string
	OrderID    string // comment table, and the unique layout's tie-breaker
	Timestamp  int64  // ms, index tables
	ContentLen int    // product-comment
	Rank       int    // product-comment-rank
	Sep        byte   // 'c' or 'r' for the product indexes
}

// String prints a key as, e.g.,
// product-comment[prod=AbCdEfGhIj c ts=2026-11-21T04:05:06.123Z len=42].
func (k Key) String() string { return k.format() }

var _ fmt.Stringer = Key{}
