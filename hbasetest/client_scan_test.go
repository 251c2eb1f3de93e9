package hbasetest_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"commentbench/hbase"
	"commentbench/hbasetest"
	"commentbench/store/embedded"
)

// TestClientScanWithTinyTimeLimit runs package hbase's Scan against a
// cluster whose scan calls answer after every row (heartbeats when a filter
// drops rows): it must still deliver exactly the matching rows.
func TestClientScanWithTinyTimeLimit(t *testing.T) {
	ctx := context.Background()
	eng, err := embedded.Open(embedded.Options{DisableSplits: true})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	cl, err := hbasetest.Start(hbasetest.Options{Engine: eng})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	c, err := hbase.Dial(ctx, hbase.Options{Bootstrap: cl.Bootstrap(), DialTimeout: 2 * time.Second, CallTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	key := func(i int) []byte { return fmt.Appendf(nil, "R-%03d", i) }
	const n = 120
	if err := c.CreateTable(ctx, "t", []string{"f"}, [][]byte{key(40), key(80)}); err != nil {
		t.Fatal(err)
	}
	var muts []hbase.Mutation
	for i := range n {
		muts = append(muts, hbase.Mutation{Row: key(i), Family: "f", Cells: []hbase.Cell{{Qualifier: []byte("q"), Value: []byte("v")}}})
	}
	if err := c.Mutate(ctx, "t", muts); err != nil {
		t.Fatal(err)
	}
	cl.SetScanTimeLimit(time.Nanosecond)

	scan := func(sc hbase.Scan) ([]string, hbase.ScanStats) {
		t.Helper()
		var rows []string
		st, err := c.Scan(ctx, "t", sc, func(r hbase.Result) bool {
			rows = append(rows, string(r.Row))
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		return rows, st
	}
	want := func(from, to int, rev bool) []string {
		var out []string
		for i := from; i < to; i++ {
			out = append(out, string(key(i)))
		}
		if rev {
			slices.Reverse(out)
		}
		return out
	}
	// The seed's RowFilter(row >= cursor): only the last rows match.
	rows, st := scan(hbase.Scan{Filter: hbase.RowFilter{Op: hbase.GreaterOrEqual, Value: key(115)}})
	if !slices.Equal(rows, want(115, n, false)) {
		t.Fatalf("filtered scan: %v", rows)
	}
	if st.RPCs < 50 {
		t.Fatalf("only %d RPCs: the time limit did not cut the calls", st.RPCs)
	}
	rows, _ = scan(hbase.Scan{Reversed: true, Filter: hbase.RowFilter{Op: hbase.Less, Value: key(3)}})
	if !slices.Equal(rows, want(0, 3, true)) {
		t.Fatalf("reversed filtered scan: %v", rows)
	}
	rows, _ = scan(hbase.Scan{Start: key(30), Stop: key(90)})
	if !slices.Equal(rows, want(30, 90, false)) {
		t.Fatalf("range scan: %v", rows)
	}
	rows, _ = scan(hbase.Scan{Filter: hbase.PrefixFilter{Prefix: []byte("R-05")}, Limit: 4})
	if !slices.Equal(rows, want(50, 54, false)) {
		t.Fatalf("prefix scan with limit: %v", rows)
	}
}

// TestClientScanOutlivesShortLease runs package hbase's Scan against a
// cluster whose scanners live 200 ms, with a caller that takes longer
// than that over a row: renewing the lease or reopening the scanner, the
// client must deliver every row once, in order.
func TestClientScanOutlivesShortLease(t *testing.T) {
	ctx := context.Background()
	eng, err := embedded.Open(embedded.Options{DisableSplits: true})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	cl, err := hbasetest.Start(hbasetest.Options{Engine: eng, ScannerTimeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	c, err := hbase.Dial(ctx, hbase.Options{Bootstrap: cl.Bootstrap(), DialTimeout: 2 * time.Second, CallTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.CreateTable(ctx, "t", []string{"f"}, nil); err != nil {
		t.Fatal(err)
	}
	var muts []hbase.Mutation
	var want []string
	for i := range 30 {
		row := fmt.Appendf(nil, "R-%02d", i)
		want = append(want, string(row))
		muts = append(muts, hbase.Mutation{Row: row, Family: "f", Cells: []hbase.Cell{{Qualifier: []byte("q"), Value: []byte("v")}}})
	}
	if err := c.Mutate(ctx, "t", muts); err != nil {
		t.Fatal(err)
	}
	var rows []string
	_, err = c.Scan(ctx, "t", hbase.Scan{Caching: 5}, func(r hbase.Result) bool {
		if len(rows)%10 == 0 {
			time.Sleep(300 * time.Millisecond)
		}
		rows = append(rows, string(r.Row))
		return true
	})
	if err != nil || !slices.Equal(rows, want) {
		t.Fatalf("scan with a slow caller: %v, rows %v", err, rows)
	}
	if n := cl.OpenScanners(); n != 0 {
		t.Fatalf("%d scanners left open", n)
	}
}
