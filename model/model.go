// Package model holds the seed's five entities and the codec that turns them
// into the bytes stored in a row's value.
//
// It owns the field names on the wire (the seed's JSON, as its Jackson
// mapper writes them) and must not know row keys, tables or storage.
package model

import (
	"encoding/json"
	"fmt"
)

// User is a shopper.
type User struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Nickname string `json:"nickname"`
}

// Seller sells products.
type Seller struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// Product is what comments are left on. Content is rich content (images),
// hence bytes: JSON carries it as base64, as Jackson does for byte[].
type Product struct {
	ID        string `json:"id"`
	SellerID  string `json:"sellerId"`
	Content   []byte `json:"content"`
	CreatedAt int64  `json:"createdAt"`
	UpdatedAt int64  `json:"updatedAt"`
}

// Order is what entitles a user to comment: no order, no comment.
type Order struct {
	ID     string `json:"id"`
	UserID string `json:"userId"`
}

// Comment has no id of its own: (OrderID, ProductID) identifies it.
//
// The seed's Java field is `isEdited`; Lombok's getter is isEdited(), which
// Jackson names "edited" (see jackson.go). Values written before the harness
// wrote "edited" carry "isEdited": both are read.
type Comment struct {
	OrderID   string `json:"orderId"`
	ProductID string `json:"productId"`
	UserID    string `json:"userId"`
	Content   string `json:"content"`
	Timestamp int64  `json:"timestamp"`
	IsEdited  bool   `json:"edited"`
}

// UnmarshalJSON reads "edited", or the older "isEdited".
func (c *Comment) UnmarshalJSON(b []byte) error {
	type plain Comment
	var v struct {
		plain
		Legacy *bool `json:"isEdited"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*c = Comment(v.plain)
	if v.Legacy != nil && !c.IsEdited {
		c.IsEdited = *v.Legacy
	}
	return nil
}

// ContentLen is the content's length in UTF-8 bytes, the length the
// product-comment key orders by (not the character count).
func (c Comment) ContentLen() int { return len(c.Content) }

// Codec serializes entities into row values.
type Codec interface {
	Name() string
	Marshal(v any) ([]byte, error)
	Unmarshal(data []byte, v any) error
}

// JSON is the seed's codec.
var JSON Codec = jsonCodec{}

type jsonCodec struct{}

func (jsonCodec) Name() string { return "json" }

// Marshal writes an entity as the seed's Jackson mapper does (jackson.go).
func (jsonCodec) Marshal(v any) ([]byte, error) { return marshalJackson(v) }

func (jsonCodec) Unmarshal(data []byte, v any) error {
	if decodeFast(data, v) {
		return nil
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("decode %T: %w", v, err)
	}
	return nil
}

// CommentHead is a comment without its text, whose length it keeps: what
// a consistency check reads, since keys hold the length and never the text.
type CommentHead struct {
	OrderID, ProductID, UserID string
	Timestamp                  int64
	IsEdited                   bool
	ContentLen                 int
}

// Head is the comment's head.
func (c Comment) Head() CommentHead {
	return CommentHead{OrderID: c.OrderID, ProductID: c.ProductID, UserID: c.UserID,
		Timestamp: c.Timestamp, IsEdited: c.IsEdited, ContentLen: c.ContentLen()}
}

// DecodeHead is Decode[Comment]'s head, without copying the text where
// the codec allows.
func DecodeHead(c Codec, data []byte) (CommentHead, error) {
	var h CommentHead
	if _, ok := c.(jsonCodec); ok && decodeHeadFast(data, &h) {
		return h, nil
	}
	cm, err := Decode[Comment](c, data)
	return cm.Head(), err
}

// OrderUserID is Decode[Order]'s UserID, not copied where the codec
// allows (it may be a slice of data): a check compares it with the
// comment's, an order per comment.
func OrderUserID(c Codec, data []byte) ([]byte, error) {
	if _, ok := c.(jsonCodec); ok {
		if user, ok := orderUserFast(data); ok {
			return user, nil
		}
	}
	o, err := Decode[Order](c, data)
	return []byte(o.UserID), err
}

// Decode unmarshals data into a new T.
func Decode[T any](c Codec, data []byte) (T, error) {
	var v T
	err := c.Unmarshal(data, &v)
	return v, err
}
