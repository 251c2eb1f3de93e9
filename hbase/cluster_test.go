package hbase

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"commentbench/hbase/wire"
	"commentbench/hbasetest"
	"commentbench/store/embedded"
)

type testCluster struct {
	cl  *hbasetest.Cluster
	eng *embedded.Engine
	c   *Client
}

func startCluster(t testing.TB) *testCluster {
	t.Helper()
	eng, err := embedded.Open(embedded.Options{DisableSplits: true})
	if err != nil {
		t.Fatal(err)
	}
	cl, err := hbasetest.Start(hbasetest.Options{Engine: eng})
	if err != nil {
		eng.Close()
		t.Fatal(err)
	}
	c, err := Dial(context.Background(), Options{Bootstrap: cl.Bootstrap(), DialTimeout: 2 * time.Second, CallTimeout: 5 * time.Second})
	if err != nil {
		cl.Close()
		eng.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Close()
		cl.Close()
		eng.Close()
	})
	return &testCluster{cl: cl, eng: eng, c: c}
}

func key(i int) []byte { return fmt.Appendf(nil, "R-%03d", i) }

func putMut(row []byte, val string) Mutation {
	return Mutation{Row: row, Family: "f", Cells: []Cell{{Qualifier: []byte("q"), Value: []byte(val)}}}
}

func value(r Result) string {
	for _, c := range r.Cells {
		if string(c.Qualifier) == "q" {
			return string(c.Value)
		}
	}
	return ""
}

// createLoaded creates table t (family f) split at and
// writes rows R-000..R-(n-1) with value "v<i>".
func (tc *testCluster) createLoaded(t *testing.T, table string, n int) {
	t.Helper()
	ctx := context.Background()
	if err := tc.c.CreateTable(ctx, table, []string{"f"}, [][]byte{key(100), key(200)}); err != nil {
		t.Fatal(err)
	}
	var muts []Mutation
	for i := range n {
		muts = append(muts, putMut(key(i), fmt.Sprint("v", i)))
	}
	if err := tc.c.Mutate(ctx, table, muts); err != nil {
		t.Fatal(err)
	}
}

func scanRows(t *testing.T, c *Client, table string, sc Scan) []string {
	t.Helper()
	var rows []string
	_, err := c.Scan(context.Background(), table, sc, func(r Result) bool {
		rows = append(rows, string(r.Row))
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func keys(from, to, step int) []string {
	var out []string
	for i := from; i != to; i += step {
		out = append(out, string(key(i)))
	}
	return out
}

func TestClusterDataAndAdmin(t *testing.T) {
	tc := startCluster(t)
	c, ctx := tc.c, context.Background()
	tc.createLoaded(t, "t", 300)

	tables, err := c.ListTables(ctx, "")
	if err != nil || !slices.Equal(tables, []string{"t"}) {
		t.Fatalf("ListTables = %v, %v", tables, err)
	}
	if err := c.CreateTable(ctx, "t", []string{"f"}, nil); !errors.Is(err, ErrTableExists) {
		t.Fatalf("second CreateTable: %v", err)
	}
	regs, err := c.Regions(ctx, "t")
	if err != nil || len(regs) != 3 || len(regs[0].Start) != 0 || !bytes.Equal(regs[1].Start, key(100)) || len(regs[2].End) != 0 {
		t.Fatalf("Regions = %+v, %v", regs, err)
	}
	for _, r := range regs {
		if r.Server == "" || r.ID == 0 || len(r.Name) == 0 {
			t.Fatalf("incomplete region %+v", r)
		}
	}

	r, err := c.Get(ctx, "t", key(150), "f")
	if err != nil || !r.Found() || value(r) != "v150" {
		t.Fatalf("Get = %+v, %v", r, err)
	}
	r, err = c.Get(ctx, "t", []byte("nope"), "")
	if err != nil || r.Found() {
		t.Fatalf("Get missing = %+v, %v", r, err)
	}
	if err := c.Mutate(ctx, "t", []Mutation{putMut(key(5), "new")}); err != nil {
		t.Fatal(err)
	}
	rows := [][]byte{key(250), []byte("nope"), key(5), key(99), key(100)}
	res, err := c.BatchGet(ctx, "t", rows, "f")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"v250", "", "new", "v99", "v100"}
	for i := range rows {
		if value(res[i]) != want[i] || !bytes.Equal(res[i].Row, rows[i]) {
			t.Fatalf("BatchGet[%d] = %+v", i, res[i])
		}
	}
	if err := c.Mutate(ctx, "t", []Mutation{{Row: key(5), DeleteRow: true}, {Row: key(205), DeleteRow: true}}); err != nil {
		t.Fatal(err)
	}
	for _, k := range [][]byte{key(5), key(205)} {
		if r, err := c.Get(ctx, "t", k, ""); err != nil || r.Found() {
			t.Fatalf("deleted row %s: %+v, %v", k, r, err)
		}
	}

	// Delete-typed cells make a Delete mutation.
	if err := c.Mutate(ctx, "t", []Mutation{{Row: key(7), Family: "f", Cells: []Cell{{Type: wire.TypeDeleteFamily}}}}); err != nil {
		t.Fatal(err)
	}
	if r, err := c.Get(ctx, "t", key(7), ""); err != nil || r.Found() {
		t.Fatalf("deleted family: %+v, %v", r, err)
	}

	ok, err := c.CheckAndPut(ctx, "t", []byte("cp"), "f", []byte("q"), nil, putMut(nil, "one"))
	if err != nil || !ok {
		t.Fatalf("CheckAndPut absent = %v, %v", ok, err)
	}
	ok, err = c.CheckAndPut(ctx, "t", []byte("cp"), "f", []byte("q"), nil, putMut(nil, "two"))
	if err != nil || ok {
		t.Fatalf("CheckAndPut absent again = %v, %v", ok, err)
	}
	ok, err = c.CheckAndPut(ctx, "t", []byte("cp"), "f", []byte("q"), []byte("one"), putMut(nil, "three"))
	if err != nil || !ok {
		t.Fatalf("CheckAndPut matching = %v, %v", ok, err)
	}
	if r, _ := c.Get(ctx, "t", []byte("cp"), "f"); value(r) != "three" {
		t.Fatalf("after CheckAndPut: %+v", r)
	}

	if _, err := c.Get(ctx, "missing", []byte("a"), ""); !errors.Is(err, ErrTableNotFound) {
		t.Fatalf("Get on missing table: %v", err)
	}
	if err := c.DeleteTable(ctx, "t"); !errors.Is(err, ErrTableNotDisabled) {
		t.Fatalf("DeleteTable enabled: %v", err)
	}
	if err := c.DisableTable(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	if err := c.EnableTable(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	if r, err := c.Get(ctx, "t", key(42), "f"); err != nil || value(r) != "v42" {
		t.Fatalf("Get after enable: %+v, %v", r, err)
	}
	if err := c.DisableTable(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteTable(ctx, "t"); err != nil {
		t.Fatal(err)
	}
	if tables, err := c.ListTables(ctx, ".*"); err != nil || len(tables) != 0 {
		t.Fatalf("ListTables after delete = %v, %v", tables, err)
	}
	if _, err := c.Get(ctx, "t", key(1), ""); !errors.Is(err, ErrTableNotFound) {
		t.Fatalf("Get on deleted table: %v", err)
	}
	cnt := c.Counters()
	if cnt.RPCs["Multi"] == 0 || cnt.RPCs["Get"] == 0 || cnt.RPCs["Mutate"] == 0 || cnt.RPCs["getProcedureResult"] == 0 || cnt.MetaLookups == 0 || cnt.CacheMisses == 0 {
		t.Fatalf("counters %+v", cnt)
	}
}

func TestClusterScanAcrossRegions(t *testing.T) {
	tc := startCluster(t)
	tc.createLoaded(t, "s", 300)
	// Spread the three regions over different servers.
	servers := tc.eng.Servers()
	regs, err := tc.eng.Regions(context.Background(), "s")
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range regs {
		if err := tc.eng.MoveRegion(r.Name, servers[i%len(servers)]); err != nil {
			t.Fatal(err)
		}
	}
	c := tc.c
	cases := []struct {
		name string
		sc   Scan
		want []string
	}{
		{"forward all", Scan{Caching: 7}, keys(0, 300, 1)},
		{"forward range", Scan{Start: key(50), Stop: key(250)}, keys(50, 250, 1)},
		{"forward stop at boundary", Scan{Start: key(10), Stop: key(200), Caching: 13}, keys(10, 200, 1)},
		{"forward limit", Scan{Start: key(95), Limit: 10, Caching: 3}, keys(95, 105, 1)},
		{"reversed all", Scan{Reversed: true, Caching: 7}, keys(299, -1, -1)},
		{"reversed range", Scan{Reversed: true, Start: key(250), Stop: key(150)}, keys(250, 150, -1)},
		{"reversed from boundary", Scan{Reversed: true, Start: key(200), Stop: key(90), Caching: 11}, keys(200, 90, -1)},
		{"reversed limit", Scan{Reversed: true, Start: key(205), Limit: 10, Caching: 4}, keys(205, 195, -1)},
		{"reversed limit from end", Scan{Reversed: true, Limit: 5}, keys(299, 294, -1)},
		{"prefix filter", Scan{Family: "f", Filter: PrefixFilter{Prefix: []byte("R-1")}}, keys(100, 200, 1)},
		{"row filter", Scan{Filter: RowFilter{Op: Less, Value: key(3)}}, keys(0, 3, 1)},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			got := scanRows(t, c, "s", tt.sc)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("got %d rows %v...; want %d rows", len(got), got[:min(5, len(got))], len(tt.want))
			}
		})
	}
	// Early stop by the callback.
	n := 0
	st, err := c.Scan(context.Background(), "s", Scan{}, func(Result) bool { n++; return n < 3 })
	if err != nil || n != 3 || st.Rows != 3 {
		t.Fatalf("early stop: n=%d st=%+v err=%v", n, st, err)
	}
}

func TestClusterSplitDuringWrites(t *testing.T) {
	tc := startCluster(t)
	ctx := context.Background()
	if err := tc.c.CreateTable(ctx, "w", []string{"f"}, nil); err != nil {
		t.Fatal(err)
	}
	const writers, per = 4, 150
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < per; i += 5 {
				var muts []Mutation
				for j := i; j < i+5; j++ {
					k := w*per + j
					muts = append(muts, putMut(key(k), fmt.Sprint("v", k)))
				}
				if err := tc.c.Mutate(ctx, "w", muts); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for _, k := range []int{300, 150, 450, 75} {
		time.Sleep(5 * time.Millisecond)
		if err := tc.eng.SplitRegion(ctx, "w", key(k)); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	got := scanRows(t, tc.c, "w", Scan{Caching: 50})
	if !slices.Equal(got, keys(0, writers*per, 1)) {
		t.Fatalf("scan after splits: %d rows", len(got))
	}
	if regs, _ := tc.c.Regions(ctx, "w"); len(regs) != 5 {
		t.Fatalf("regions %d", len(regs))
	}
}

func TestClusterSplitDuringScan(t *testing.T) {
	for _, reversed := range []bool{false, true} {
		t.Run(fmt.Sprint("reversed=", reversed), func(t *testing.T) {
			tc := startCluster(t)
			ctx := context.Background()
			tc.createLoaded(t, "ss", 300)
			var got []string
			splits := map[int][]byte{40: key(60), 120: key(180), 220: key(250)}
			if reversed {
				splits = map[int][]byte{40: key(240), 120: key(120), 220: key(50)}
			}
			st, err := tc.c.Scan(ctx, "ss", Scan{Reversed: reversed, Caching: 10}, func(r Result) bool {
				got = append(got, string(r.Row))
				if k, ok := splits[len(got)]; ok {
					if err := tc.eng.SplitRegion(ctx, "ss", k); err != nil {
						t.Error(err)
					}
				}
				return true
			})
			if err != nil {
				t.Fatal(err)
			}
			want := keys(0, 300, 1)
			if reversed {
				want = keys(299, -1, -1)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("got %d rows, want %d (stats %+v)", len(got), len(want), st)
			}
			if st.Reopens == 0 {
				t.Fatalf("no scanner re-opened: %+v", st)
			}
		})
	}
}

func TestClusterKillServerDuringLoad(t *testing.T) {
	tc := startCluster(t)
	ctx := context.Background()
	if err := tc.c.CreateTable(ctx, "k", []string{"f"}, [][]byte{key(100), key(200)}); err != nil {
		t.Fatal(err)
	}
	regs, _ := tc.eng.Regions(ctx, "k")
	servers := tc.eng.Servers()
	for i, r := range regs {
		_ = tc.eng.MoveRegion(r.Name, servers[i%len(servers)])
	}
	var mu sync.Mutex
	acked := map[int]bool{}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for w := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				k := (i*3 + w) % 300
				if err := tc.c.Mutate(ctx, "k", []Mutation{putMut(key(k), "x")}); err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				acked[k] = true
				mu.Unlock()
			}
		}()
	}
	time.Sleep(30 * time.Millisecond)
	if err := tc.cl.KillServer(servers[1]); err != nil {
		t.Fatal(err)
	}
	time.Sleep(60 * time.Millisecond)
	// Then the server hosting hbase:meta, if another one is left.
	if ms := tc.cl.MetaServer(); ms != servers[1] {
		if err := tc.cl.KillServer(ms); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(60 * time.Millisecond)
	close(stop)
	wg.Wait()
	var rows [][]byte
	for k := range acked {
		rows = append(rows, key(k))
	}
	res, err := tc.c.BatchGet(ctx, "k", rows, "f")
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		if !r.Found() {
			t.Fatalf("acknowledged row %s lost", rows[i])
		}
	}
	if len(acked) < 50 || tc.c.Counters().Retries["transport"] == 0 {
		t.Fatalf("acked %d rows; counters %+v", len(acked), tc.c.Counters())
	}
}

func TestClusterFailNext(t *testing.T) {
	tc := startCluster(t)
	c, ctx := tc.c, context.Background()
	tc.createLoaded(t, "f", 10)
	if _, err := c.Get(ctx, "f", key(1), ""); err != nil { // warm the cache
		t.Fatal(err)
	}

	tc.cl.FailNext(2, wire.ExcRegionTooBusy)
	if r, err := c.Get(ctx, "f", key(1), ""); err != nil || value(r) != "v1" {
		t.Fatalf("retryable: %+v, %v", r, err)
	}
	if n := c.Counters().Retries[wire.ExcRegionTooBusy]; n != 2 {
		t.Fatalf("retries for RegionTooBusy = %d", n)
	}

	before := c.Counters().MetaLookups
	tc.cl.FailNext(1, wire.ExcNotServingRegion)
	if r, err := c.Get(ctx, "f", key(2), ""); err != nil || value(r) != "v2" {
		t.Fatalf("relocate: %+v, %v", r, err)
	}
	if c.Counters().MetaLookups == before {
		t.Fatal("NotServingRegion did not cause a meta lookup")
	}

	tc.cl.FailNext(1, wire.ExcNotServingRegion)
	if err := c.Mutate(ctx, "f", []Mutation{putMut(key(3), "a"), putMut(key(150), "b")}); err != nil {
		t.Fatalf("multi relocate: %v", err)
	}

	// A server-broken class: the client drops that connection, connects
	// again and resends.
	tc.cl.FailNext(1, wire.ExcRegionServerStopped)
	if r, err := c.Get(ctx, "f", key(4), ""); err != nil || value(r) != "v4" {
		t.Fatalf("server broken: %+v, %v", r, err)
	}
	if n := c.Counters().Retries[wire.ExcRegionServerStopped]; n != 1 {
		t.Fatalf("retries for RegionServerStopped = %d, want 1", n)
	}

	tc.cl.FailNext(1, wire.ExcDoNotRetryIO)
	_, err := c.Get(ctx, "f", key(1), "")
	var he *Error
	if !errors.As(err, &he) || he.Class != wire.ExcDoNotRetryIO || he.Group != wire.Surface {
		t.Fatalf("surface: %v", err)
	}

	// A slow server meets the caller's deadline promptly.
	tc.cl.SetLatency(time.Second)
	dctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	start := time.Now()
	_, err = c.Get(dctx, "f", key(1), "")
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 500*time.Millisecond {
		t.Fatalf("slow server: %v after %v", err, time.Since(start))
	}
	tc.cl.SetLatency(0)

	// Retries are bounded.
	c.o.MaxRetries = 2
	tc.cl.FailNext(10, wire.ExcCallQueueTooBig)
	if _, err := c.Get(ctx, "f", key(1), ""); err == nil {
		t.Fatal("unbounded retries")
	}
	tc.cl.FailNext(0, "")
}

func TestClusterMoveRegionAndBadFamily(t *testing.T) {
	tc := startCluster(t)
	c, ctx := tc.c, context.Background()
	tc.createLoaded(t, "m", 300)
	if _, err := c.Get(ctx, "m", key(150), ""); err != nil {
		t.Fatal(err)
	}
	regs, _ := tc.eng.Regions(ctx, "m")
	r := regs[1]
	var to string
	for _, s := range tc.eng.Servers() {
		if s != r.Server {
			to = s
		}
	}
	if err := tc.eng.MoveRegion(r.Name, to); err != nil {
		t.Fatal(err)
	}
	before := c.Counters()
	if got, err := c.Get(ctx, "m", key(150), "f"); err != nil || value(got) != "v150" {
		t.Fatalf("Get after move: %+v, %v", got, err)
	}
	after := c.Counters()
	if after.MetaLookups == before.MetaLookups || after.RPCs["Get"]-before.RPCs["Get"] < 2 {
		t.Fatalf("move not noticed: before %+v after %+v", before, after)
	}
	addr, _ := tc.cl.ServerAddr(to)
	if got, _ := c.Regions(ctx, "m"); got[1].Server != addr {
		t.Fatalf("Regions server %s, want %s", got[1].Server, addr)
	}

	_, err := c.BatchGet(ctx, "m", [][]byte{key(1), key(250)}, "nofamily")
	if !errors.Is(err, ErrNoSuchFamily) {
		t.Fatalf("BatchGet unknown family: %v", err)
	}
	if _, err := c.Get(ctx, "m", key(1), "nofamily"); !errors.Is(err, ErrNoSuchFamily) {
		t.Fatalf("Get unknown family: %v", err)
	}
}

// The test server answers a point call with nothing queued on the reading
// goroutine, but never one behind a slow call: a Get sent while a delayed
// Get is in flight on the same connection is answered first.
func TestServerPointCallNotHeldBehindSlowOne(t *testing.T) {
	tc := startCluster(t)
	c, ctx := tc.c, context.Background()
	tc.createLoaded(t, "o", 10)
	if _, err := c.Get(ctx, "o", key(1), ""); err != nil { // locates the region
		t.Fatal(err)
	}
	gets := tc.cl.Calls()["Get"]
	tc.cl.SetLatency(300 * time.Millisecond)
	order := make(chan string, 2)
	go func() {
		_, err := c.Get(ctx, "o", key(1), "")
		order <- fmt.Sprint("slow ", err)
	}()
	// The slow call's frame is read (and its latency fixed) before this
	// returns: the counters count it as read.
	for deadline := time.Now().Add(5 * time.Second); tc.cl.Calls()["Get"] == gets; {
		if time.Now().After(deadline) {
			t.Fatal("the slow call never reached the server")
		}
		time.Sleep(time.Millisecond)
	}
	tc.cl.SetLatency(0)
	_, err := c.Get(ctx, "o", key(2), "")
	order <- fmt.Sprint("fast ", err)
	if first, second := <-order, <-order; first != "fast <nil>" || second != "slow <nil>" {
		t.Fatalf("answered %q then %q, want the fast call first", first, second)
	}
}
