package plan

import (
	"math"
	"slices"

	"commentbench/keys"
)

// RanksPerProduct is how many good comments the ranking job keeps per
// product (SCHEMA.md requirement 7).
const RanksPerProduct = 10

// Replication is HDFS's default replication factor, by which the plan
// multiplies its logical bytes for the disk they take.
const Replication = 3

// Inputs are what a plan is asked about.
type Inputs struct {
	CommentsPerDay int64 `json:"comments_per_day"`
	Days           int   `json:"days"`
	Users          int64 `json:"users"`
	Products       int64 `json:"products"`
	Sellers        int64 `json:"sellers"`
	// OrdersPerComment is below 1 when orders hold several commented
	// products (one order, one comment per product).
	OrdersPerComment float64 `json:"orders_per_comment"`
	RegionSize       int64   `json:"region_size_bytes"`
	// The hottest product's and the hottest user's share of comments, and
	// the max row size: what the biggest wide row of a design grows to.
	HottestProductShare float64 `json:"hottest_product_share,omitempty"`
	HottestUserShare    float64 `json:"hottest_user_share,omitempty"`
	MaxRowSize          int64   `json:"max_row_size_bytes,omitempty"`
}

// TablePlan is one table after the plan's days.
type TablePlan struct {
	Table string `json:"table"`
	// RowsPer says what the table's rows follow: a comment, an order, a
	// product's ranking or the population.
	RowsPer    string  `json:"rows_per"`
	KeyBytes   int     `json:"row_key_bytes"`
	ValueBytes float64 `json:"value_bytes"`
	CellBytes  float64 `json:"cell_bytes"`
	// PerComment is what one more comment adds to the table; absent for the
	// tables that do not grow with comments.
	PerComment *float64 `json:"bytes_per_comment,omitempty"`
	Rows       int64    `json:"rows"`
	Bytes      float64  `json:"bytes"`
	Regions    int64    `json:"regions"`
	// NewRegionsPerDay is the last day's growth in regions' worth of bytes.
	NewRegionsPerDay float64 `json:"new_regions_per_day"`
}

// Totals are the tables summed.
type Totals struct {
	PerComment       float64 `json:"bytes_per_comment"`
	Rows             int64   `json:"rows"`
	Bytes            float64 `json:"bytes"`
	ReplicatedBytes  float64 `json:"hdfs_bytes_replicated"` // Bytes × Replication, before compression
	Regions          int64   `json:"regions"`
	NewRegionsPerDay float64 `json:"new_regions_per_day"`
}

// Report is a plan: every figure is modeled.
type Report struct {
	Modeled     bool        `json:"modeled"`
	Design      string      `json:"design"`
	Inputs      Inputs      `json:"inputs"`
	CellFormula string      `json:"cell_formula"`
	Family      string      `json:"family"`
	Qualifier   string      `json:"qualifier"`
	Values      Values      `json:"values"`
	Tables      []TablePlan `json:"tables"`
	Total       Totals      `json:"total"`
	Replication int         `json:"hdfs_replication"`
	// Wide: the design keeps some tables' entries as columns of wide rows,
	// so a table's "rows" are its entries; Rows are its biggest wide rows.
	Wide       bool      `json:"wide,omitempty"`
	Rows       []RowPlan `json:"wide_rows,omitempty"`
	NotModeled []string  `json:"not_modeled"`
}

// NotModeled is what the plan leaves out: each makes the disk figure
// differ from its logical bytes.
var NotModeled = []string{
	"compression and data block encoding (they shrink the JSON values most)",
	"HFile block indexes, bloom filters and trailers (a few percent)",
	"HFile v3's per-cell tags length and MVCC number, the WAL, the memstore",
	"compaction's transient copies, old versions and delete markers not yet compacted away",
	"pre-split regions: a table has at least as many regions as it was created with",
}

// countsNotModeled is what the plan leaves out of a design that keeps
// collections' counts.
const countsNotModeled = "a wide listing's count column: one cell in each owner's row"

// Plan models every table after in.Days days of in.CommentsPerDay comments.
func (m *Model) Plan(in Inputs) Report {
	r := Report{Modeled: true, Design: m.design.Name(), Inputs: in, CellFormula: CellFormula,
		Family: keys.Family, Qualifier: string(keys.Qualifier), Values: m.values,
		Replication: Replication, NotModeled: NotModeled, Wide: m.design.Wide()}
	if m.counts() {
		r.NotModeled = append(slices.Clone(NotModeled), countsNotModeled)
	}
	now, dayBefore := in.CommentsPerDay*int64(in.Days), in.CommentsPerDay*int64(in.Days-1)
	for _, t := range m.design.Tables() {
		tp := m.table(in, t, now, dayBefore)
		r.Tables = append(r.Tables, tp)
		r.Total.add(tp)
	}
	r.Total.ReplicatedBytes = r.Total.Bytes * Replication
	r.Rows = m.Rows(in)
	return r
}

func (m *Model) table(in Inputs, t string, now, dayBefore int64) TablePlan {
	tp := TablePlan{Table: t, RowsPer: rowsPer(t), KeyBytes: m.KeyBytes(t), ValueBytes: m.ValueBytes(t),
		CellBytes: m.RowBytes(t), Rows: in.Rows(t, now)}
	if per := perComment(in, t); per > 0 {
		b := per * tp.CellBytes
		tp.PerComment = &b
	}
	tp.Bytes = m.Bytes(t, tp.Rows)
	tp.Regions = max(1, int64(math.Ceil(tp.Bytes/float64(in.RegionSize))))
	tp.NewRegionsPerDay = (tp.Bytes - m.Bytes(t, in.Rows(t, dayBefore))) / float64(in.RegionSize)
	return tp
}

// counts reports whether the design keeps a collection's count anywhere.
func (m *Model) counts() bool {
	for _, t := range m.design.Tables() {
		if m.design.Table(t).Meta != nil {
			return true
		}
	}
	return false
}

func (t *Totals) add(tp TablePlan) {
	if tp.PerComment != nil {
		t.PerComment += *tp.PerComment
	}
	t.Rows += tp.Rows
	t.Bytes += tp.Bytes
	t.Regions += tp.Regions
	t.NewRegionsPerDay += tp.NewRegionsPerDay
}

// Rows is how many rows table holds once comments comments are written.
func (in Inputs) Rows(table string, comments int64) int64 {
	switch table {
	case keys.User:
		return in.Users
	case keys.Seller:
		return in.Sellers
	case keys.Product:
		return in.Products
	case keys.Order:
		return int64(math.Round(float64(comments) * in.OrdersPerComment))
	case keys.ProductRank:
		// Ranks fill up to RanksPerProduct per product, then are
		// rewritten in place: the table stops growing. Comments are taken
		// as spread over every product.
		return min(comments, RanksPerProduct*in.Products)
	}
	return comments // comment and each listing: one entry each
}

// perComment is the rows one more comment adds, for the tables that grow
// with comments without bound.
func perComment(in Inputs, table string) float64 {
	switch table {
	case keys.Comment, keys.UserComment, keys.ProductComment, keys.LatestComment:
		return 1
	case keys.Order:
		return in.OrdersPerComment
	}
	return 0
}

func rowsPer(table string) string {
	switch table {
	case keys.User, keys.Seller, keys.Product:
		return "population"
	case keys.Order:
		return "order"
	case keys.ProductRank:
		return "rank (10 per product)"
	}
	return "comment"
}
