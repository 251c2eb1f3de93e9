package plan

import (
	"fmt"
	"math"
	"slices"

	"commentbench/keys"
)

// Values are the mean value sizes, in bytes, of the tables that hold an
// entity's JSON (user, seller, product, order, comment), and how they were
// found. The index tables' values are not here: they are the comment's row
// key, which the design fixes.
type Values struct {
	Mean   map[string]float64 `json:"mean_bytes"`
	Source string             `json:"source"`
}

// EntityTables are the tables whose values Values must give.
var EntityTables = []string{keys.User, keys.Seller, keys.Product, keys.Order, keys.Comment}

// Model prices one entry of each table under one key design: in the
// seed's design a row of one family and one qualifier (SCHEMA.md), in a
// wide design a column of a row; either way one cell.
type Model struct {
	design *keys.Design
	values Values
}

// NewModel checks that v prices every entity table.
func NewModel(d *keys.Design, v Values) (*Model, error) {
	for _, t := range EntityTables {
		b, ok := v.Mean[t]
		if !ok || !(b > 0) || math.IsInf(b, 0) {
			return nil, fmt.Errorf("plan: no usable value size for table %s (got %v)", t, b)
		}
	}
	return &Model{design: d, values: v}, nil
}

// Design is the key design the model prices.
func (m *Model) Design() *keys.Design { return m.design }

// KeyBytes is an entry's row key width: every part of a design is
// fixed-width.
func (m *Model) KeyBytes(table string) int { return m.design.Table(table).RowLen }

// QualifierBytes is an entry's column qualifier width: the seed's one
// column q, or a wide table's column parts.
func (m *Model) QualifierBytes(table string) int { return m.design.Table(table).ColumnLen() }

// ValueBytes is an entry's mean value. An index entry holds the comment's
// key and nothing else (SCHEMA.md: it is written once, never updated),
// unless the design has it hold a copy of the comment.
func (m *Model) ValueBytes(table string) float64 {
	if isIndex(table) && !m.design.Table(table).Copy {
		return float64(m.design.Table(keys.Comment).Len)
	}
	if isIndex(table) && table != keys.ProductRank {
		return m.values.Mean[keys.Comment]
	}
	return m.values.Mean[table]
}

// RowBytes is an entry's one cell, as a KeyValue.
func (m *Model) RowBytes(table string) float64 {
	return float64(CellBytes(m.KeyBytes(table), len(keys.Family), m.QualifierBytes(table), 0)) + m.ValueBytes(table)
}

// Bytes is what rows rows of table take.
func (m *Model) Bytes(table string, rows int64) float64 { return float64(rows) * m.RowBytes(table) }

func isIndex(table string) bool {
	return slices.Contains([]string{keys.UserComment, keys.ProductComment, keys.ProductRank, keys.LatestComment}, table)
}
