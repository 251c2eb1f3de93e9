package embedded

import (
	"testing"

	"commentbench/store"
)

// Cells at timestamp 1 are as visible as any: beside a column's Delete
// marker at another timestamp, and in a family read after another.
func TestReadCellsAtTimestampOne(t *testing.T) {
	e := openMem(t, Options{DisableSplits: true})
	if err := e.CreateTable(ctx, store.TableSpec{Name: "t", Families: []string{"a", "b"}}); err != nil {
		t.Fatal(err)
	}
	mustUpdate(t, e, "t", "r", puts(1, "a:q=1", "b:q=1", "b:r=1"), puts(2, "a:q=2", "b:q=2"))
	if err := e.DeleteCells(ctx, "t", []byte("r"),
		DeleteMarker{Kind: DeleteVersion, Family: "a", Qualifier: []byte("q"), Timestamp: 2},
		DeleteMarker{Kind: DeleteVersion, Family: "b", Qualifier: []byte("q"), Timestamp: 2}); err != nil {
		t.Fatal(err)
	}
	if got := mustGetRow(t, e, "t", "r", Read{MaxVersions: 3}); got != "a:q=1@1 b:q=1@1 b:r=1@1" {
		t.Fatalf("row: %s", got)
	}
	mustUpdate(t, e, "t", "s", puts(1, "a:q=1", "b:q=1"))
	if got := mustGetRow(t, e, "t", "s", Read{}); got != "a:q=1@1 b:q=1@1" {
		t.Fatalf("row s: %s", got)
	}
}

// A row whose cells are all in a family other than the first is read
// whole, by Get, GetRow and scans alike.
func TestReadRowOfSecondFamilyOnly(t *testing.T) {
	e := openMem(t, Options{DisableSplits: true})
	if err := e.CreateTable(ctx, store.TableSpec{Name: "t", Families: []string{"a", "b"}, Family: "b"}); err != nil {
		t.Fatal(err)
	}
	mustUpdate(t, e, "t", "r", puts(5, "b:q=v", "b:r=w"))
	if got := mustGetRow(t, e, "t", "r", Read{}); got != "b:q=v@5 b:r=w@5" {
		t.Fatalf("GetRow: %s", got)
	}
	if got := cellsOf(mustGet(t, e, "t", "r")); got != "q=v,r=w" {
		t.Fatalf("Get: %s", got)
	}
	var rows []string
	if _, err := e.ScanRows(ctx, "t", store.Scan{}, Read{}, func(r Row) bool { rows = append(rows, rowString(r)); return true }); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0] != "b:q=v@5 b:r=w@5" {
		t.Fatalf("ScanRows: %q", rows)
	}
}

// A scan whose region splits under it re-enters the daughter holding its
// next row, as an HBase client reopens its scanner: the visit counts, and
// the rows after it are charged to the daughters.
func TestScanReentersSplitRegion(t *testing.T) {
	e := openMem(t, Options{DisableSplits: true})
	mustCreate(t, e, "t")
	for _, r := range []string{"a", "b", "c", "d", "e", "f"} {
		mustPut(t, e, "t", r, cell("q", "v"))
	}
	var keys []string
	m, err := e.Scan(ctx, "t", store.Scan{}, func(r store.Row) bool {
		keys = append(keys, string(r.Key))
		if string(r.Key) == "b" {
			if err := e.SplitRegion(ctx, "t", []byte("d")); err != nil {
				t.Error(err)
			}
		}
		return true
	})
	if err != nil || len(keys) != 6 {
		t.Fatalf("scan: %v, %v", keys, err)
	}
	// The parent, then [,d) again at c, then [d,) at d.
	if m.Regions != 3 || m.RowsScanned != 6 {
		t.Fatalf("metrics %+v, want 3 regions, 6 rows", m)
	}
	low, _ := countersAt(t, e, "t", "a")
	high, _ := countersAt(t, e, "t", "d")
	if low != (store.Counters{ReadRequests: 1, RowsScanned: 1, BytesOut: 3}) || high != (store.Counters{ReadRequests: 1, RowsScanned: 3, BytesOut: 9}) {
		t.Fatalf("daughters: [,d) %+v, [d,) %+v", low, high)
	}
}
