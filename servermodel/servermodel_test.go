package servermodel

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"commentbench/store"
	"commentbench/store/embedded"
)

// twoServers is an engine whose table t has a region on rs1 ([start, "m"))
// and one on rs2 (["m", end)).
func twoServers(t *testing.T) store.Store {
	t.Helper()
	e, err := embedded.Open(embedded.Options{Servers: 2, DisableSplits: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	if err := e.CreateTable(context.Background(), store.TableSpec{Name: "t", Family: "cf", SplitKeys: [][]byte{[]byte("m")}}); err != nil {
		t.Fatal(err)
	}
	return e
}

func put(ctx context.Context, s store.Store, row string) error {
	return s.Mutate(ctx, "t", store.Put([]byte(row), store.Cell{Qualifier: []byte("q"), Value: []byte("v")}))
}

// With one handler and 20 ms a request, five requests to one server queue
// behind each other (the last waits for the four before it), while five to
// another server run beside them: a hot server is felt as latency.
func TestQueueing(t *testing.T) {
	base := twoServers(t)
	regions, _ := base.Regions(context.Background(), "t")
	hot, cold := regions[0].Server, regions[1].Server
	if hot == cold {
		t.Skipf("both regions on %s", hot)
	}
	m := Wrap(base, Options{Handlers: 1, Cost: Cost{Base: 20 * time.Millisecond}})
	ctx := context.Background()
	var wg sync.WaitGroup
	slowest := map[string]time.Duration{}
	var mu sync.Mutex
	start := time.Now()
	for i := range 5 {
		for _, row := range []string{"a" + string(rune('0'+i)), "x" + string(rune('0'+i))} {
			wg.Go(func() {
				if err := put(ctx, m, row); err != nil {
					t.Error(err)
				}
				mu.Lock()
				slowest[row[:1]] = max(slowest[row[:1]], time.Since(start))
				mu.Unlock()
			})
		}
	}
	wg.Wait()
	for _, side := range []string{"a", "x"} {
		if d := slowest[side]; d < 100*time.Millisecond {
			t.Errorf("server of %q rows: the last of 5 requests ended after %v, want at least 5 x 20 ms queued", side, d)
		}
	}
	if total := time.Since(start); total > 180*time.Millisecond {
		t.Logf("the two servers took %v in all (they should run side by side, about 100 ms)", total)
	}
	stats := m.Stats()
	if len(stats) != 2 || stats[0].Requests != 5 || stats[1].Requests != 5 {
		t.Fatalf("stats %+v, want 5 requests on each of two servers", stats)
	}
	for _, st := range stats {
		if st.Busy < 100*time.Millisecond || st.Waiting != 0 {
			t.Errorf("%s: busy %v, waiting %d; want at least 100 ms and none waiting", st.Server, st.Busy, st.Waiting)
		}
	}
}

// A request's service time grows with the rows and bytes it touches.
func TestCostPerRow(t *testing.T) {
	m := Wrap(twoServers(t), Options{Handlers: 4, Cost: Cost{PerRow: 10 * time.Millisecond}})
	ctx := context.Background()
	muts := make([]store.Mutation, 5)
	for i := range muts {
		muts[i] = store.Put([]byte{'a', byte('0' + i)}, store.Cell{Qualifier: []byte("q"), Value: []byte("v")})
	}
	start := time.Now()
	if err := m.Mutate(ctx, "t", muts...); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 50*time.Millisecond {
		t.Errorf("5 rows at 10 ms a row took %v", d)
	}
}

func TestParseCost(t *testing.T) {
	c, err := ParseCost("base=2ms,row=3us", DefaultCost)
	if err != nil || c.Base != 2*time.Millisecond || c.PerRow != 3*time.Microsecond || c.PerByte != DefaultCost.PerByte {
		t.Errorf("ParseCost: %+v %v", c, err)
	}
	for _, bad := range []string{"base=-1ms", "cpu=1ms", "row", "row=fast"} {
		if _, err := ParseCost(bad, DefaultCost); err == nil {
			t.Errorf("ParseCost(%q) accepted", bad)
		}
	}
	if b, err := Capacity(3000, 30); err != nil || b != 10*time.Millisecond {
		t.Errorf("Capacity(3000, 30) = %v, %v; want 10ms", b, err)
	}
	if _, err := Capacity(0, 30); err == nil {
		t.Error("a capacity of 0 was accepted")
	}
	if u := Utilization(50*time.Millisecond, 100*time.Millisecond, 2); u != 0.25 {
		t.Errorf("Utilization = %v, want 0.25", u)
	}
}

// Off, the model passes requests straight through: none is counted or
// queued (a run seeds with it off); on again, they are.
func TestModelOff(t *testing.T) {
	m := Wrap(twoServers(t), Options{Handlers: 1, Cost: Cost{Base: time.Hour}})
	ctx := context.Background()
	m.SetOn(false)
	for _, row := range []string{"a", "b", "x"} {
		if err := put(ctx, m, row); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := m.BatchGet(ctx, "t", [][]byte{[]byte("a"), []byte("x")}); err != nil {
		t.Fatal(err)
	}
	if st := m.Stats(); len(st) != 0 {
		t.Fatalf("the model off counted %+v", st)
	}
	m.o.Cost.Base = time.Millisecond
	m.SetOn(true)
	if err := put(ctx, m, "a"); err != nil {
		t.Fatal(err)
	}
	if st := m.Stats(); len(st) != 1 || st[0].Requests != 1 {
		t.Errorf("the model on again: %+v, want one request counted", st)
	}
}

// A server's account is exact: the handler time it reports is the service
// time it booked, whatever the callers' sleeps overshoot (a busy machine
// wakes sleepers late; the old model held a handler through the overshoot
// and read 1.0 utilization into a server that had spare time). Booked time
// past now is not yet spent, and a request booked to start later is
// waiting until it starts.
func TestAccountIsExact(t *testing.T) {
	m := Wrap(twoServers(t), Options{Handlers: 1, Cost: Cost{Base: 100 * time.Microsecond}})
	ctx := context.Background()
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Go(func() {
			if err := put(ctx, m, "a"+string(rune('0'+i%10))); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	st := m.Stats()
	if len(st) != 1 || st[0].Requests != 200 || st[0].Busy != 20*time.Millisecond || st[0].Waiting != 0 {
		t.Fatalf("stats %+v, want 200 requests, exactly 20ms busy, none waiting", st)
	}
	sv := m.server(st[0].Server)
	now := time.Now()
	sv.reserve(now, time.Second)   // in service from now
	sv.reserve(now, 2*time.Second) // waits for it
	busy, waiting := sv.stat(now.Add(time.Second / 2))
	if busy != 20*time.Millisecond+time.Second/2 || waiting != 1 {
		t.Errorf("half a second in: busy %v, waiting %d; want 520ms and 1", busy, waiting)
	}
}

// A Read is charged as the BatchGet of its rows: one request per server
// its rows live on, each for its rows and the bytes they returned; a read
// of fewer columns returns, and costs, less. A Scan with Batch hands the
// chunks through.
func TestReadChargedLikeBatchGet(t *testing.T) {
	base := twoServers(t)
	ctx := context.Background()
	for _, row := range []string{"a1", "a2", "x1"} {
		if err := base.Mutate(ctx, "t", store.Put([]byte(row), store.Cell{Qualifier: []byte("q"), Value: []byte("v")},
			store.Cell{Qualifier: []byte("r"), Value: []byte("wide")})); err != nil {
			t.Fatal(err)
		}
	}
	cost := Cost{Base: 50 * time.Microsecond, PerRow: 7 * time.Microsecond, PerByte: time.Microsecond}
	rows := [][]byte{[]byte("a1"), []byte("x1"), []byte("a2"), []byte("zz")}
	reads := make([]store.Read, len(rows))
	for i, r := range rows {
		reads[i] = store.Read{Row: r}
	}
	byGet, byRead := Wrap(base, Options{Cost: cost}), Wrap(base, Options{Cost: cost})
	if _, err := byGet.BatchGet(ctx, "t", rows); err != nil {
		t.Fatal(err)
	}
	if _, _, err := byRead.Read(ctx, "t", reads); err != nil {
		t.Fatal(err)
	}
	// Rows a1, a2 on one server: 2 rows, 2 x (key 2 + q 1 + v 1 + r 1 +
	// wide 4) bytes; x1 and the missing zz on the other: 2 rows, 9 + 2.
	want := map[string]time.Duration{"": 50 + 2*7 + 18, "m": 50 + 2*7 + 11}
	regions, err := base.Regions(ctx, "t")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []*Store{byGet, byRead} {
		busy := map[string]time.Duration{}
		for _, st := range m.Stats() {
			if st.Requests != 1 {
				t.Fatalf("%s: %d requests, want one", st.Server, st.Requests)
			}
			busy[st.Server] = st.Busy
		}
		for _, r := range regions {
			if got := busy[r.Server]; got != want[string(r.Start)]*time.Microsecond {
				t.Fatalf("server of region %q: busy %v, want %v", r.Start, got, want[string(r.Start)]*time.Microsecond)
			}
		}
	}

	narrow := Wrap(base, Options{Cost: cost})
	if _, _, err := narrow.Read(ctx, "t", []store.Read{{Row: []byte("a1"), Columns: [][]byte{[]byte("q")}}}); err != nil {
		t.Fatal(err)
	}
	if st := narrow.Stats(); len(st) != 1 || st[0].Busy != (50+7+4)*time.Microsecond {
		t.Fatalf("a read of one column: %+v, want 61µs", st)
	}

	var chunks []string
	if _, err := byRead.Scan(ctx, "t", store.Scan{Start: []byte("a1"), Stop: []byte("a2"), Batch: 1}, func(r store.Row) bool {
		chunks = append(chunks, string(r.Key)+":"+string(r.Cells[0].Qualifier))
		return true
	}); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(chunks) != "[a1:q a1:r]" {
		t.Fatalf("a scan in batches of one cell handed over %v", chunks)
	}
}
