package comments

import (
	"context"
	"fmt"

	"commentbench/keys"
	"commentbench/model"
	"commentbench/store"
)

// CreateUser stores u under its id.
func (s *System) CreateUser(ctx context.Context, u model.User) error {
	return s.putEntity(ctx, keys.User, u.ID, u)
}

// CreateSeller stores a seller under its id.
func (s *System) CreateSeller(ctx context.Context, v model.Seller) error {
	return s.putEntity(ctx, keys.Seller, v.ID, v)
}

// CreateProduct stores a product under its id.
func (s *System) CreateProduct(ctx context.Context, p model.Product) error {
	return s.putEntity(ctx, keys.Product, p.ID, p)
}

// CreateOrder stores an order under its id. Every comment write makes one,
// so with the seed's codec its key and value share one buffer.
func (s *System) CreateOrder(ctx context.Context, o model.Order) error {
	if !s.seedJSON {
		return s.putEntity(ctx, keys.Order, o.ID, o)
	}
	p := new(onePut)
	k, err := s.order.AppendKey(p.buf[:0], &keys.Key{ID: o.ID})
	if err != nil {
		return fmt.Errorf("%s: %w", keys.Order, err)
	}
	val, err := model.AppendJSONOrder(k[len(k):], &o)
	if err != nil {
		return err
	}
	return s.put(ctx, p, s.order, o.ID, k[:len(k):len(k)], val)
}

// Order reads an order; found is false when there is none.
func (s *System) Order(ctx context.Context, id string) (o model.Order, found bool, err error) {
	return getEntity[model.Order](ctx, s, keys.Order, id)
}

// Comment reads the comment of (orderID, productID).
func (s *System) Comment(ctx context.Context, orderID, productID string) (model.Comment, bool, error) {
	k, err := s.layout.CommentKey(orderID, productID)
	if err != nil {
		return model.Comment{}, false, err
	}
	row, err := s.getEntry(ctx, s.comment, k)
	if err != nil {
		return model.Comment{}, false, fmt.Errorf("get %s: %w", keys.Comment, err)
	}
	return decodeRow[model.Comment](s.codec, keys.Comment, row)
}

func (s *System) putEntity(ctx context.Context, table, id string, v any) error {
	k, err := s.layout.EntityKey(table, id)
	if err != nil {
		return fmt.Errorf("%s: %w", table, err)
	}
	val, err := s.codec.Marshal(v)
	if err != nil {
		return err
	}
	return s.put(ctx, new(onePut), s.layout.Table(table), id, k, val)
}

// onePut is a put, its cell, and room for the key and value of an order:
// one allocation for each order a comment write makes.
type onePut struct {
	m   [1]store.Mutation
	c   [1]store.Cell
	buf [96]byte
}

// put writes val as entry k of t with p.
func (s *System) put(ctx context.Context, p *onePut, t *keys.TableKey, id string, k, val []byte) error {
	p.c[0] = store.Cell{Qualifier: t.Column(k), Value: val}
	p.m[0] = store.Put(t.Row(k), p.c[:]...)
	if err := s.st.Mutate(ctx, t.Store, p.m[:]...); err != nil {
		return fmt.Errorf("put %s %s: %w", t.Table, id, err)
	}
	return nil
}

func getEntity[T any](ctx context.Context, s *System, table, id string) (T, bool, error) {
	var zero T
	k, err := s.layout.EntityKey(table, id)
	if err != nil {
		return zero, false, fmt.Errorf("%s: %w", table, err)
	}
	row, err := s.getEntry(ctx, s.layout.Table(table), k)
	if err != nil {
		return zero, false, fmt.Errorf("get %s %s: %w", table, id, err)
	}
	return decodeRow[T](s.codec, table, row)
}

// decodeRow decodes a row's value; a missing row is not an error.
func decodeRow[T any](c model.Codec, table string, row store.Row) (T, bool, error) {
	var zero T
	val, ok := row.Value(keys.Qualifier)
	if !ok {
		return zero, false, nil
	}
	v, err := model.Decode[T](c, val)
	if err != nil {
		return zero, true, fmt.Errorf("%s row %q: %w", table, row.Key, err)
	}
	return v, true, nil
}

func cell(val []byte) store.Cell { return store.Cell{Qualifier: keys.Qualifier, Value: val} }
