package hbase

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"commentbench/hbase/pb"
)

// A scan is bounded by size, as HBase's client bounds it: each call asks
// for max_result_size 2 MiB (or the Scan's MaxResultSize) and leaves the
// row count to it (Integer.MAX_VALUE, hbase.client.scanner.caching's
// default), unless Caching or a Limit caps the rows.
func TestScanRequestBoundBySize(t *testing.T) {
	var mu sync.Mutex
	var reqs []*pb.ScanRequest
	s := fakeOneRegion(t, func(rc *respConn, id uint32, req *pb.ScanRequest) {
		mu.Lock()
		reqs = append(reqs, req)
		mu.Unlock()
		open := req.Scan != nil
		row := "b"
		if open {
			row = "a"
		}
		_ = rc.reply(id, &pb.ScanResponse{ScannerId: proto.Uint64(5), MoreResultsInRegion: proto.Bool(open),
			Results: []*pb.Result{{Cell: []*pb.Cell{pbCell(row, "q")}}}}, nil)
	})
	c, err := Dial(context.Background(), Options{Bootstrap: []string{s.addr()}, DialTimeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const uncapped = 1<<31 - 1
	for _, tc := range []struct {
		name       string
		sc         Scan
		size       uint64
		open, next uint32
	}{
		{"default", Scan{}, 2 << 20, uncapped, uncapped},
		{"caching", Scan{Caching: 7}, 2 << 20, 7, 7},
		{"max result size", Scan{MaxResultSize: 4096}, 4096, uncapped, uncapped},
		{"limit", Scan{Limit: 5}, 2 << 20, 5, 3}, // after a, b pending: 5-1-1
	} {
		mu.Lock()
		reqs = nil
		mu.Unlock()
		rows := scanRows(t, c, "t", tc.sc)
		mu.Lock()
		got := reqs
		mu.Unlock()
		if len(rows) != 2 || len(got) != 2 {
			t.Fatalf("%s: rows %v, %d calls", tc.name, rows, len(got))
		}
		open, next := got[0], got[1]
		if open.GetScan().MaxResultSize == nil || open.GetScan().GetMaxResultSize() != tc.size {
			t.Errorf("%s: max_result_size %v, want %d", tc.name, open.GetScan().MaxResultSize, tc.size)
		}
		if open.GetNumberOfRows() != tc.open || next.GetNumberOfRows() != tc.next {
			t.Errorf("%s: number_of_rows %d then %d, want %d then %d", tc.name, open.GetNumberOfRows(), next.GetNumberOfRows(), tc.open, tc.next)
		}
		if !open.GetClientHandlesPartials() || !next.GetClientHandlesPartials() {
			t.Errorf("%s: calls that do not handle partials: the server could not cut a row at the size", tc.name)
		}
	}
}

// Rows bigger than the 2 MiB a call answers come whole and once each, in
// order, forward and reversed: the server cuts them into partial results
// at the size and the client stitches them back; rows a call has room for
// share it. No scanner is left open.
func TestScanRowsBiggerThanMaxResultSize(t *testing.T) {
	tc := startCluster(t)
	ctx := context.Background()
	if err := tc.c.CreateTable(ctx, "big", []string{"f"}, nil); err != nil {
		t.Fatal(err)
	}
	const mib = 1 << 20
	want := map[string][]int{} // row -> its cells' value lengths
	put := func(row string, sizes ...int) {
		m := Mutation{Row: []byte(row), Family: "f"}
		for i, n := range sizes {
			m.Cells = append(m.Cells, Cell{Qualifier: fmt.Appendf(nil, "q%d", i), Value: bytes.Repeat([]byte{byte('a' + i)}, n)})
		}
		if err := tc.c.Mutate(ctx, "big", []Mutation{m}); err != nil {
			t.Fatal(err)
		}
		want[row] = sizes
	}
	put("r0", mib, mib, mib) // 3 MiB
	put("r1", 5*mib/2)       // one cell over the size
	put("r2", 10, 10)
	put("r3", mib, mib, mib)
	put("r4", 10)
	for _, reversed := range []bool{false, true} {
		var rows []string
		st, err := tc.c.Scan(ctx, "big", Scan{Reversed: reversed}, func(r Result) bool {
			rows = append(rows, string(r.Row))
			sizes := want[string(r.Row)]
			if len(r.Cells) != len(sizes) {
				t.Fatalf("row %s: %d cells, want %d", r.Row, len(r.Cells), len(sizes))
			}
			for i, cl := range r.Cells {
				if len(cl.Value) != sizes[i] || cl.Value[0] != byte('a'+i) || cl.Value[len(cl.Value)-1] != byte('a'+i) {
					t.Fatalf("row %s cell %d: %d bytes of %q, want %d", r.Row, i, len(cl.Value), cl.Value[:1], sizes[i])
				}
			}
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		order := "r0 r1 r2 r3 r4"
		if reversed {
			order = "r4 r3 r2 r1 r0"
		}
		if got := fmt.Sprint(rows); got != "["+order+"]" || st.Rows != 5 {
			t.Fatalf("reversed=%v: rows %s, stats %+v", reversed, got, st)
		}
		// 9.5 MiB: every call but the last is filled to 2 MiB or
		// past it by its last cell (2.5 MiB at most), so 3 to 5 calls;
		// r2 and r4 ride along with a neighbour's cells.
		if st.RPCs < 3 || st.RPCs > 5 {
			t.Errorf("reversed=%v: %d calls for 9.5 MiB", reversed, st.RPCs)
		}
		if n := tc.cl.OpenScanners(); n != 0 {
			t.Errorf("reversed=%v: %d scanners left open", reversed, n)
		}
	}
}

// Small rows share a call up to the size: 3,000 rows of 100 bytes come
// in one call, which a fixed 1,000 rows a call made three.
func TestScanSmallRowsOneCall(t *testing.T) {
	tc := startCluster(t)
	ctx := context.Background()
	if err := tc.c.CreateTable(ctx, "small", []string{"f"}, nil); err != nil {
		t.Fatal(err)
	}
	var muts []Mutation
	for i := range 3000 {
		muts = append(muts, putMut(fmt.Appendf(nil, "r%05d", i), fmt.Sprintf("%0100d", i)))
	}
	if err := tc.c.Mutate(ctx, "small", muts); err != nil {
		t.Fatal(err)
	}
	n := 0
	st, err := tc.c.Scan(ctx, "small", Scan{}, func(r Result) bool {
		if want := fmt.Sprintf("r%05d", n); string(r.Row) != want {
			t.Fatalf("row %d is %s, want %s", n, r.Row, want)
		}
		n++
		return true
	})
	if err != nil || n != 3000 || st.RPCs != 1 {
		t.Fatalf("%d rows in %d calls (%v), want 3000 in 1", n, st.RPCs, err)
	}
}
