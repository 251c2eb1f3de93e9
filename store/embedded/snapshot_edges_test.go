package embedded

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"commentbench/store"
)

// A snapshot's data takes a table id of its own: a table created after it
// gets another, and sees neither the snapshot's data nor the table's.
func TestSnapshotTakesAnIDOfItsOwn(t *testing.T) {
	clk := newClock(12345)
	e := openMem(t, Options{DisableSplits: true, Now: clk.now})
	mustCreate(t, e, "t")
	mustPut(t, e, "t", "r", cell("q", "v"))
	tb, _ := e.table("t")
	if err := e.Snapshot(ctx, "t", "s"); err != nil {
		t.Fatal(err)
	}
	rec, err := e.snapshotRecord("s")
	if err != nil || rec.dataID != tb.id+1 || e.nextTableID != tb.id+2 || rec.created != 12345 || rec.table != "t" {
		t.Fatalf("snapshot record %+v (%v), next table id %d, table id %d", rec, err, e.nextTableID, tb.id)
	}
	mustCreate(t, e, "u")
	u, _ := e.table("u")
	if u.id != tb.id+2 {
		t.Fatalf("table after the snapshot has id %d, want %d", u.id, tb.id+2)
	}
	if mustGet(t, e, "u", "r").Found() {
		t.Fatal("a new table sees the snapshot's or the table's data")
	}
	if err := e.Snapshot(ctx, "t", ""); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("a snapshot without a name: %v", err)
	}
	if err := e.Snapshot(ctx, "ghost", "g"); !errors.Is(err, store.ErrTableNotFound) {
		t.Fatalf("a snapshot of no table: %v", err)
	}
	infos, err := e.Snapshots()
	if err != nil || len(infos) != 1 || infos[0].Created != 12345 || infos[0].Schema.Default != "cf" {
		t.Fatalf("Snapshots: %+v %v", infos, err)
	}
}

// Snapshot records keep every split key, and refuse to decode cut short.
func TestSnapshotRecordRoundTrip(t *testing.T) {
	rec := snapshotRecord{dataID: 9, table: "t", created: 77,
		tab:       tableRecord{id: 3, families: []family{{name: "a"}, {name: "b"}}},
		splitKeys: [][]byte{[]byte("b"), []byte("m\x00"), []byte("z")}}
	enc := rec.encode()
	back, err := decodeSnapshotRecord(enc)
	if err != nil || back.dataID != 9 || back.table != "t" || back.created != 77 ||
		!slices.Equal(back.tab.families, rec.tab.families) || !slices.EqualFunc(back.splitKeys, rec.splitKeys, bytes.Equal) {
		t.Fatalf("decoded %+v, %v", back, err)
	}
	for n := range len(enc) {
		if _, err := decodeSnapshotRecord(enc[:n]); err == nil {
			t.Fatalf("cut to %d bytes: decoded", n)
		}
	}
	neg := snapshotRecord{table: "t", created: -5, tab: rec.tab}
	if back, err := decodeSnapshotRecord(neg.encode()); err != nil || back.created != 0 {
		t.Fatalf("negative creation time: %d, %v", back.created, err)
	}
}

// A restore measures the table's regions again: each region's size is the
// bytes of the snapshot's data in it.
func TestRestoreRemeasuresRegions(t *testing.T) {
	e := openMem(t, Options{DisableSplits: true})
	mustCreate(t, e, "t", "m")
	mustPut(t, e, "t", "a", cell("q", "v1"))
	mustPut(t, e, "t", "x", cell("q", "v22"))
	if err := e.Snapshot(ctx, "t", "s"); err != nil {
		t.Fatal(err)
	}
	mustPut(t, e, "t", "b", cell("q", "later"))
	mustPut(t, e, "t", "y", cell("q", "later"))
	if err := e.RestoreSnapshot(ctx, "s"); err != nil {
		t.Fatal(err)
	}
	_, sizes, _ := regionInfo(t, e, "t")
	if want := []int64{rowBytes("a", "q", "v1"), rowBytes("x", "q", "v22")}; !slices.Equal(sizes, want) {
		t.Fatalf("sizes after restore %v, want %v", sizes, want)
	}
	// A table whose families changed is not restored into.
	if err := e.DropTable(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	if err := e.CreateTable(ctx, store.TableSpec{Name: "t", Families: []string{"cf", "other"}}); err != nil {
		t.Fatal(err)
	}
	if err := e.RestoreSnapshot(ctx, "s"); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("restore into changed families: %v", err)
	}
	if err := e.DropTable(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	if err := e.CreateTableWith(ctx, store.TableSpec{Name: "t", Family: "cf"}, TableOptions{CellTTL: true}); err != nil {
		t.Fatal(err)
	}
	if err := e.RestoreSnapshot(ctx, "s"); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("restore into a CellTTL table: %v", err)
	}
}

// A snapshot copies in batches of 4 MiB and checks its context between
// them: a copy that fits in one batch completes, a longer one stops.
func TestSnapshotChecksContextBetweenBatches(t *testing.T) {
	e := openMem(t, Options{DisableSplits: true})
	mustCreate(t, e, "t")
	mustPut(t, e, "t", "r", cell("q", "v"))
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := e.Snapshot(cancelled, "t", "small"); err != nil {
		t.Fatalf("a snapshot under one batch: %v", err)
	}
	value := bytes.Repeat([]byte("x"), 64<<10)
	var muts []store.Mutation
	for i := range 65 { // just over 4 MiB
		muts = append(muts, store.Put([]byte(fmt.Sprintf("big%03d", i)), store.Cell{Qualifier: []byte("q"), Value: value}))
	}
	if err := e.Mutate(ctx, "t", muts...); err != nil {
		t.Fatal(err)
	}
	if err := e.Snapshot(cancelled, "t", "big"); !errors.Is(err, context.Canceled) {
		t.Fatalf("a snapshot over one batch, cancelled: %v", err)
	}
	if infos, err := e.Snapshots(); err != nil || len(infos) != 1 || infos[0].Name != "small" {
		t.Fatalf("snapshots after a cancelled one: %+v, %v", infos, err)
	}
}

// A batch that reaches exactly 4 MiB is committed, and the context
// checked, before the next key.
func TestSnapshotBatchBoundaryIsInclusive(t *testing.T) {
	e := openMem(t, Options{DisableSplits: true})
	mustCreate(t, e, "t")
	// A batch is a 12-byte header, then per Set a kind byte, the key's
	// length and the key, the value's length and the value: one cell of
	// row "big" (a 27-byte key) fills 4 MiB exactly with this value.
	keyLen := cellKeyLen("big", "q")
	valueLen := 4<<20 - 12 - 1 - 1 - keyLen - 4
	b := e.db.NewBatch()
	_ = b.Set(make([]byte, keyLen), make([]byte, valueLen), nil)
	if b.Len() != 4<<20 {
		t.Fatalf("test setup: the batch is %d bytes, want %d", b.Len(), 4<<20)
	}
	b.Close()
	mustPut(t, e, "t", "big", store.Cell{Qualifier: []byte("q"), Value: make([]byte, valueLen)})
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := e.Snapshot(cancelled, "t", "s"); !errors.Is(err, context.Canceled) {
		t.Fatalf("a snapshot of exactly one full batch, cancelled: %v", err)
	}
}
