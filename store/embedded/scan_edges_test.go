package embedded

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"commentbench/store"
)

// An empty range, forward or reversed, reads nothing and visits no region.
func TestScanEmptyRangeVisitsNothing(t *testing.T) {
	e := newScanTable(t)
	for _, sc := range []store.Scan{
		{Start: []byte("r05"), Stop: []byte("r05")},
		{Start: []byte("r06"), Stop: []byte("r05")},
		{Start: []byte("r05"), Stop: []byte("r05"), Reversed: true},
		{Start: []byte("r05"), Stop: []byte("r06"), Reversed: true},
	} {
		before := readRequests(t, e)
		keys, m := scanKeys(t, e, "s", sc)
		if len(keys) != 0 || m != (store.ScanMetrics{}) || readRequests(t, e) != before {
			t.Errorf("%+v: rows %v metrics %+v, read requests +%d", sc, keys, m, readRequests(t, e)-before)
		}
	}
	// One row apart: that row.
	for _, sc := range []store.Scan{
		{Start: []byte("r05"), Stop: []byte("r05\x00")},
		{Start: []byte("r05"), Stop: []byte("r04\xff"), Reversed: true},
	} {
		if keys, m := scanKeys(t, e, "s", sc); len(keys) != 1 || keys[0] != "r05" || m.Regions != 1 {
			t.Errorf("%+v: rows %v metrics %+v", sc, keys, m)
		}
	}
}

// A scan checks its context every 64 rows: cancelled while it runs, it
// stops at the next check with the context's error.
func TestScanChecksContextEvery64Rows(t *testing.T) {
	e := openMem(t, Options{DisableSplits: true})
	mustCreate(t, e, "c")
	var muts []store.Mutation
	for i := range 200 {
		muts = append(muts, store.Put([]byte(fmt.Sprintf("r%03d", i)), cell("q", "v")))
	}
	if err := e.Mutate(ctx, "c", muts...); err != nil {
		t.Fatal(err)
	}
	for _, rev := range []bool{false, true} {
		cctx, cancel := context.WithCancel(ctx)
		n := 0
		_, err := e.Scan(cctx, "c", store.Scan{Reversed: rev}, func(store.Row) bool {
			n++
			cancel()
			return true
		})
		cancel()
		if !errors.Is(err, context.Canceled) || n != 64 {
			t.Errorf("reversed %v: %d rows, %v; want 64 rows then the context's error", rev, n, err)
		}
	}
}
