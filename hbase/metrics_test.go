package hbase

import (
	"context"
	"testing"

	"commentbench/hbase/pb"

	"google.golang.org/protobuf/proto"
)

// A scan sums the servers' per-call scan metrics across its calls and
// regions: the rows they read for it, not only those it returned.
func TestClusterScanMetrics(t *testing.T) {
	tc := startCluster(t)
	tc.createLoaded(t, "m", 300) // regions split at R-100 and R-200
	cases := []struct {
		name              string
		sc                Scan
		rows              int
		scanned, filtered int64
	}{
		// The seed's "row >= cursor" with no start row: every row of the
		// three regions is read to return the last ten.
		{"row filter from table start", Scan{Filter: RowFilter{Op: GreaterOrEqual, Value: key(290)}, Caching: 7}, 10, 300, 290},
		{"row filter from a start row", Scan{Start: key(50), Filter: RowFilter{Op: GreaterOrEqual, Value: key(290)}}, 10, 250, 240},
		{"reversed row filter", Scan{Reversed: true, Filter: RowFilter{Op: Less, Value: key(10)}}, 10, 300, 290},
		// The prefix filter ends the scan at the first row past the
		// prefix: HBase counts that row as filtered but not as scanned.
		{"prefix filter stops early", Scan{Start: key(50), Filter: PrefixFilter{Prefix: []byte("R-05")}}, 10, 10, 1},
		{"no filter", Scan{Start: key(95), Limit: 10, Caching: 3}, 10, 10, 0},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			n := 0
			st, err := tc.c.Scan(context.Background(), "m", tt.sc, func(Result) bool { n++; return true })
			if err != nil {
				t.Fatal(err)
			}
			if n != tt.rows || st.Rows != n || st.NoServerMetrics {
				t.Fatalf("%d rows, stats %+v; want %d rows with server metrics", n, st, tt.rows)
			}
			if st.RowsScanned != tt.scanned || st.RowsFiltered != tt.filtered {
				t.Fatalf("scanned %d, filtered %d; want %d, %d (stats %+v)", st.RowsScanned, st.RowsFiltered, tt.scanned, tt.filtered, st)
			}
		})
	}
}

// Calls without scan metrics (a server that does not track them) mark the
// stats, and Scan reports no counts rather than partial ones.
func TestScanStatsWithoutServerMetrics(t *testing.T) {
	var st ScanStats
	st.addMetrics(&pb.ScanMetrics{Metrics: []*pb.NameInt64Pair{
		{Name: proto.String("ROWS_SCANNED"), Value: proto.Int64(7)},
		{Name: proto.String("ROWS_FILTERED"), Value: proto.Int64(4)},
		{Name: proto.String("BYTES_IN_RESULTS"), Value: proto.Int64(99)},
	}})
	st.addMetrics(&pb.ScanMetrics{Metrics: []*pb.NameInt64Pair{{Name: proto.String("ROWS_SCANNED"), Value: proto.Int64(3)}}})
	if st.RowsScanned != 10 || st.RowsFiltered != 4 || st.NoServerMetrics {
		t.Fatalf("summed %+v; want 10 scanned, 4 filtered", st)
	}
	st.addMetrics(nil)
	if !st.NoServerMetrics {
		t.Fatal("a call without scan metrics did not set NoServerMetrics")
	}
}

// Metrics of re-opened scanners add up with those of the scanners lost to
// a split.
func TestClusterScanMetricsAcrossReopen(t *testing.T) {
	tc := startCluster(t)
	ctx := context.Background()
	tc.createLoaded(t, "r", 300)
	n := 0
	st, err := tc.c.Scan(ctx, "r", Scan{Filter: RowFilter{Op: GreaterOrEqual, Value: key(150)}, Caching: 10}, func(Result) bool {
		if n++; n == 20 {
			if err := tc.eng.SplitRegion(ctx, "r", key(250)); err != nil {
				t.Error(err)
			}
		}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != 150 || st.Reopens == 0 || st.NoServerMetrics {
		t.Fatalf("%d rows, stats %+v; want 150 rows and a re-open", n, st)
	}
	// Every row is read at least once; rows 0..149 are dropped once each.
	if st.RowsScanned < 300 || st.RowsFiltered != 150 {
		t.Fatalf("RowsScanned %d, RowsFiltered %d; want >= 300 and 150 (stats %+v)", st.RowsScanned, st.RowsFiltered, st)
	}
}
