// Package keys owns the row-key bytes of the comment schema (SCHEMA.md): key
// designs (each table's key as fixed-width parts, read from a file), the
// built-in designs, encoding and decoding of every table's keys, how a
// listing is read (prefixes, salt buckets, order), split points, static
// analysis of a design (lint), and id generation.
//
// It must not know about storage, serialization of values, or workloads: it
// turns ids, timestamps and lengths into bytes and back.
package keys

// Table names, as the seed creates them. Each has one family, Family, and
// one qualifier, Qualifier, unless a design gives it columns. These are the
// design's tables, the comment system's logical ones: a design may keep
// several in one store table's rows (see TableKey.Store).
const (
	User           = "user"
	Seller         = "seller"
	Product        = "product"
	Order          = "order"
	Comment        = "comment"
	UserComment    = "user-comment"
	ProductComment = "product-comment"
	ProductRank    = "product-comment-rank"
	// LatestComment is the site's latest comments, every comment in one
	// listing with no owner (seed 003's __notag__ row). A design may leave
	// it out.
	LatestComment = "latest-comment"
)

// numTables is len(AllTables), as a constant for the design's array.
const numTables = 9

// Tables lists the tables every design gives: the five entity tables, then
// the three indexes.
var Tables = []string{User, Seller, Product, Order, Comment, UserComment, ProductComment, ProductRank}

// AllTables are Tables and the tables a design may leave out.
var AllTables = append(append([]string(nil), Tables...), LatestComment)

// Indexes are the listings a comment write puts an entry in, in the order
// it puts them, of those a design may give.
var Indexes = []string{UserComment, ProductComment, LatestComment}

// Family and Qualifier are the seed's one column.
var (
	Family    = "cf"
	Qualifier = []byte("q")
)

// IDLen is the byte length of every id.
const IDLen = 10

// MaxRank is how many ranked comments a product keeps.
const MaxRank = 10

// MaxEncodableRank is the largest rank a key holds: the whole int16 the
// seed's 2-byte field takes, not MaxRank. A fault-injection test writes an
// 11th rank on purpose so the checker can show stale ranks; refusing to
// build that key would hide the very bug the harness exists to show.
const MaxEncodableRank = 32767
