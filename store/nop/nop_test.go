package nop

import (
	"context"
	"testing"

	"commentbench/store"
)

func TestWriteThenRead(t *testing.T) {
	s, ctx := New(), context.Background()
	if err := s.Mutate(ctx, "order", store.Put([]byte("o1"), store.Cell{Qualifier: []byte("q"), Value: []byte("v")})); err != nil {
		t.Fatal(err)
	}
	r, _ := s.Get(ctx, "order", []byte("o1"))
	if v, ok := r.Value([]byte("q")); !ok || string(v) != "v" {
		t.Fatalf("read back %+v", r)
	}
	if r, _ := s.Get(ctx, "user", []byte("o1")); r.Found() {
		t.Fatal("a row of another table was returned")
	}
	s.Mutate(ctx, "order", store.Delete([]byte("o1")))
	if r, _ := s.Get(ctx, "order", []byte("o1")); r.Found() {
		t.Fatal("deleted row still found")
	}
}
