package comments_test

import (
	"context"
	"testing"

	"commentbench/comments"
	"commentbench/model"
	"commentbench/store/nop"
)

// Every arrival of a load writes an order and a comment, so their
// allocations are counted here, on a store that keeps what it is handed:
// an order is its put with its key and value; a comment is
// its keys and value in one buffer and the key of the order it checks
// (its puts are pooled).
func TestWriteAllocations(t *testing.T) {
	ctx := context.Background()
	sys := comments.New(nop.New(), comments.Options{})
	o := model.Order{ID: "o000000001", UserID: "u000000003"}
	if n := testing.AllocsPerRun(100, func() {
		if err := sys.CreateOrder(ctx, o); err != nil {
			t.Fatal(err)
		}
	}); n != 1 {
		t.Errorf("CreateOrder allocates %v times, want 1", n)
	}
	c := comments.NewComment{OrderID: o.ID, ProductID: "p000000002", UserID: o.UserID, Content: "좋아요 ok", Timestamp: ts0}
	if n := testing.AllocsPerRun(100, func() {
		if _, err := sys.WriteComment(ctx, c); err != nil {
			t.Fatal(err)
		}
	}); n != 2 {
		t.Errorf("WriteComment allocates %v times, want 2", n)
	}
}
