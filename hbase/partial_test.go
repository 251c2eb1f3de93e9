package hbase

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// batchTable writes row r1 of 25 cells and r2 of 3 (40 bytes each, as
// bigRowTable's) in table name.
func batchTable(t *testing.T, tc *testCluster, name string) {
	t.Helper()
	if err := tc.c.CreateTable(context.Background(), name, []string{"f"}, nil); err != nil {
		t.Fatal(err)
	}
	for _, r := range []struct {
		row string
		n   int
	}{{"r1", 25}, {"r2", 3}} {
		m := Mutation{Row: []byte(r.row), Family: "f"}
		for i := range r.n {
			m.Cells = append(m.Cells, Cell{Qualifier: fmt.Appendf(nil, "q%02d", i), Value: fmt.Appendf(nil, "valu-%03d", i)})
		}
		if err := tc.c.Mutate(context.Background(), name, []Mutation{m}); err != nil {
			t.Fatal(err)
		}
	}
}

// scanShape scans and lists each Result as row:cells, "+" when Partial,
// with the stats; it checks that a row's cells come in order, none twice.
func scanShape(t *testing.T, c *Client, table string, sc Scan) (string, ScanStats) {
	t.Helper()
	var parts, cells []string
	st, err := c.Scan(context.Background(), table, sc, func(r Result) bool {
		part := fmt.Sprintf("%s:%d", r.Row, len(r.Cells))
		if r.Partial {
			part += "+"
		}
		parts = append(parts, part)
		for _, cl := range r.Cells {
			cells = append(cells, string(r.Row)+"/"+string(cl.Qualifier))
		}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	inOrder(t, cells)
	return strings.Join(parts, " "), st
}

// inOrder checks row/qualifier names: each row's qualifiers ascend.
func inOrder(t *testing.T, cells []string) {
	t.Helper()
	for i := 1; i < len(cells); i++ {
		prev, _, _ := strings.Cut(cells[i-1], "/")
		row, _, _ := strings.Cut(cells[i], "/")
		if row == prev && cells[i] <= cells[i-1] {
			t.Fatalf("cell %s after %s", cells[i], cells[i-1])
		}
	}
}

// With Batch the caller gets a row as Results of Batch cells but the last,
// Partial on all but the last; the limit counts whole rows.
func TestScanBatch(t *testing.T) {
	tc := startCluster(t)
	batchTable(t, tc, "bt")
	if got, st := scanShape(t, tc.c, "bt", Scan{Batch: 10}); got != "r1:10+ r1:10+ r1:5 r2:3" || st.Rows != 2 || st.RowsScanned != 2 {
		t.Errorf("batch 10: %s, %+v", got, st)
	}
	if got, st := scanShape(t, tc.c, "bt", Scan{Batch: 10, Limit: 1}); got != "r1:10+ r1:10+ r1:5" || st.Rows != 1 {
		t.Errorf("batch 10, limit 1: %s, %+v", got, st)
	}
	// Cells weigh 38 bytes: servers cut the row at 4 cells (152 bytes)
	// a call, seven calls in all; the client regroups the parts into
	// batches, as BatchScanResultCache does.
	if got, st := scanShape(t, tc.c, "bt", Scan{Batch: 10, MaxResultSize: 150}); got != "r1:10+ r1:10+ r1:5 r2:3" || st.RPCs < 7 {
		t.Errorf("batch 10 over size-cut parts: %s, %+v", got, st)
	}
	if got, _ := scanShape(t, tc.c, "bt", Scan{Batch: 10, Reversed: true}); got != "r2:3 r1:10+ r1:10+ r1:5" {
		t.Errorf("reversed: %s", got)
	}
}

// A row a server cuts by size comes whole to a plain scan, and in the
// server's parts to one that allows partials; either way the servers'
// metrics count it once.
func TestScanPartialResults(t *testing.T) {
	tc := startCluster(t)
	batchTable(t, tc, "pt")
	got, st := scanShape(t, tc.c, "pt", Scan{MaxResultSize: 150})
	if got != "r1:25 r2:3" || st.Rows != 2 || st.RowsScanned != 2 || st.RPCs < 7 {
		t.Errorf("stitched: %s, %+v", got, st)
	}
	// The last call returns r1's last cell, then r2, whose third cell
	// reaches the size with none of the row left: not partial.
	got, st = scanShape(t, tc.c, "pt", Scan{MaxResultSize: 150, AllowPartial: true})
	if want := strings.Repeat("r1:4+ ", 6) + "r1:1 r2:3"; got != want {
		t.Errorf("partials:\n got %s\nwant %s", got, want)
	}
	if st.Rows != 2 || st.RowsScanned != 2 {
		t.Errorf("partials: %+v", st)
	}
}

// A scanner lost after part of a row was delivered is re-opened at that
// row, and the caller gets only the cells it has not had, as the Java
// client's result caches filter them (the cells a batch held back come
// again).
func TestScanResumesMidRow(t *testing.T) {
	for _, sc := range []Scan{{Batch: 10, MaxResultSize: 150}, {AllowPartial: true, MaxResultSize: 150}} {
		t.Run(fmt.Sprintf("batch=%d,partial=%v", sc.Batch, sc.AllowPartial), func(t *testing.T) {
			tc := startCluster(t)
			batchTable(t, tc, "rm")
			var cells []string
			results := 0
			st, err := tc.c.Scan(context.Background(), "rm", sc, func(r Result) bool {
				if results++; results == 2 {
					// The next call finds the scanner gone.
					tc.cl.FailNext(1, "org.apache.hadoop.hbase.UnknownScannerException")
				}
				for _, cl := range r.Cells {
					cells = append(cells, string(r.Row)+"/"+string(cl.Qualifier))
				}
				return true
			})
			if err != nil || st.Reopens != 1 {
				t.Fatalf("%+v, %v", st, err)
			}
			if len(cells) != 28 || cells[0] != "r1/q00" || cells[24] != "r1/q24" || cells[27] != "r2/q02" {
				t.Fatalf("%d cells: %v", len(cells), cells)
			}
			inOrder(t, cells)
		})
	}
}
