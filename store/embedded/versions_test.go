package embedded

import (
	"context"
	"testing"

	"commentbench/store"
)

func TestVersionsAndDeleteRowAt(t *testing.T) {
	ctx := context.Background()
	e, err := Open(Options{Servers: 1, DisableSplits: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if err := e.CreateTable(ctx, store.TableSpec{Name: "t", Family: "f"}); err != nil {
		t.Fatal(err)
	}
	if fam, err := e.Family("t"); err != nil || fam != "f" {
		t.Fatalf("family %q %v", fam, err)
	}
	if _, err := e.Family("nope"); err == nil {
		t.Fatal("family of a missing table")
	}
	for _, ts := range []int64{10, 20, 30} {
		for _, row := range []string{"a", "b"} {
			if err := e.Mutate(ctx, "t", store.Put([]byte(row), store.Cell{Qualifier: []byte("q"), Value: []byte{byte(ts)}, Timestamp: ts},
				store.Cell{Qualifier: []byte("r"), Value: []byte{byte(ts)}, Timestamp: ts})); err != nil {
				t.Fatal(err)
			}
		}
	}
	row, err := getVersions(e, "t", "a", Read{MaxVersions: 2})
	if err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, c := range row.Cells {
		got = append(got, c.Timestamp)
	}
	if len(got) != 4 || got[0] != 30 || got[1] != 20 || string(row.Cells[2].Qualifier) != "r" || got[2] != 30 {
		t.Fatalf("versions %v", got)
	}
	row, _ = getVersions(e, "t", "a", Read{MaxVersions: 5, MinTs: 15, MaxTs: 30})
	if len(row.Cells) != 2 || row.Cells[0].Timestamp != 20 {
		t.Fatalf("time range %v", row.Cells)
	}
	if _, err := getVersions(e, "t", "a", Read{MinTs: 2, MaxTs: 1}); err == nil {
		t.Fatal("an empty time range accepted")
	}

	if err := e.DeleteRowAt(ctx, "t", []byte("a"), 20); err != nil {
		t.Fatal(err)
	}
	// A later put at or below the marker stays hidden.
	if err := e.Mutate(ctx, "t", store.Put([]byte("a"), store.Cell{Qualifier: []byte("q"), Value: []byte("old"), Timestamp: 15})); err != nil {
		t.Fatal(err)
	}
	row, _ = getVersions(e, "t", "a", Read{MaxVersions: 5})
	if len(row.Cells) != 2 || row.Cells[0].Timestamp != 30 || row.Cells[1].Timestamp != 30 {
		t.Fatalf("after delete at 20: %v", row.Cells)
	}

	var rows []string
	var counts []int
	if _, err := e.ScanRows(ctx, "t", store.Scan{}, Read{MaxVersions: 3, MaxTs: 25}, func(r Row) bool {
		rows = append(rows, string(r.Key))
		counts = append(counts, len(r.Cells))
		return true
	}); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0] != "b" || counts[0] != 4 {
		t.Fatalf("scan versions: %v %v", rows, counts)
	}
	if err := e.DeleteRowAt(ctx, "t", []byte("b"), 0); err != nil {
		t.Fatal(err)
	}
	if r, _ := e.Get(ctx, "t", []byte("b")); r.Found() {
		t.Fatal("b survived a delete at now")
	}
	if e.Now() <= 0 {
		t.Fatal("clock")
	}
}
