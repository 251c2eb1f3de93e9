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

// Model prices one row of each table under one key design. Every table
// has one family and one qualifier (SCHEMA.md), so a row is one cell.
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

// KeyBytes is a row key's width: every part of a design is fixed-width.
func (m *Model) KeyBytes(table string) int { return m.design.Table(table).Len }

// ValueBytes is a row's mean value. An index row holds the comment's row
// key and nothing else (SCHEMA.md: it is written once, never updated).
func (m *Model) ValueBytes(table string) float64 {
	if isIndex(table) {
		return float64(m.KeyBytes(keys.Comment))
	}
	return m.values.Mean[table]
}

// RowBytes is a row's one cell, as a KeyValue.
func (m *Model) RowBytes(table string) float64 {
	return float64(CellBytes(m.KeyBytes(table), len(keys.Family), len(keys.Qualifier), 0)) + m.ValueBytes(table)
}

// Bytes is what rows rows of table take.
func (m *Model) Bytes(table string, rows int64) float64 { return float64(rows) * m.RowBytes(table) }

func isIndex(table string) bool {
	return slices.Contains([]string{keys.UserComment, keys.ProductComment, keys.ProductRank}, table)
}
