package workload

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"commentbench/results"
)

// pagerEnv prepares a small population on layout, for walks of one page
// of two rows.
func pagerEnv(t *testing.T, layout string) (*Worker, context.Context) {
	t.Helper()
	ctx := context.Background()
	sc := testScenario(t, layout)
	sc.PageSize, sc.MaxPages = 2, 1
	sys, err := System(openEngine(t), sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	env, err := Prepare(ctx, Config{Scenario: sc, Sys: sys, WorkersTotal: 1})
	if err != nil {
		t.Fatal(err)
	}
	orders, err := orderIDs(sc, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	w := &Worker{env: env, r: rand.New(rand.NewPCG(1, 2)), orders: orders(0),
		rec: results.NewSet(ResultNames()).NewRecorder(), counting: true}
	return w, ctx
}

// post writes a comment on product p by user u stamped ts, and returns the
// stamp booked as acknowledged.
func post(t *testing.T, ctx context.Context, w *Worker, p, u int, text string, ts int64) int64 {
	t.Helper()
	before := w.env.Acked.products[p].Load()
	order, end, ok := w.order(ctx, u)
	if !ok {
		t.Fatal("order not created")
	}
	w.comment(ctx, OpWrite, order, u, p, text, ts, end)
	if w.env.Acked.products[p].Load() != before+1 {
		t.Fatalf("comment stamped %d not acknowledged", ts)
	}
	return ts
}

// walkCutShort writes four comments on one product: the oldest, one a
// millisecond later, then two in one millisecond with one byte length
// (which collide on the seed's product-comment key), and walks the
// listing's first page of two rows, which MaxPages 1 leaves the walk at.
func walkCutShort(t *testing.T, layout string) (map[string]*results.Violation, *walk, int64) {
	t.Helper()
	w, ctx := pagerEnv(t, layout)
	const p = 0
	now := w.env.Clock.Now()
	stamps := []int64{
		post(t, ctx, w, p, 1, "oldest", now-3),
		post(t, ctx, w, p, 2, "second", now-2),
		post(t, ctx, w, p, 3, "same length", now-1),
		post(t, ctx, w, p, 4, "SAME LENGTH", now-1),
	}
	wk := productWalk(w, p)
	wk.stamps = stamps
	wk.run(ctx)
	return w.env.Checks.Snapshot(), wk, now
}

// The seed's key loses one of the two comments stamped together. The walk
// reads one page (the survivor, then the comment before) and stops, cut
// short: the lost comment is newer than the last row read, so it belongs
// on that page and is reported missing. The oldest comment, past the page,
// is not counted either way.
func TestPagerCutShortReportsMissing(t *testing.T) {
	v, wk, now := walkCutShort(t, "seed")
	if wk.lastTs != now-2 {
		t.Fatalf("the page ends at %d, want the comment before the pair (%d)", wk.lastTs, now-2)
	}
	m := v[VMissing]
	if m == nil || m.Count != 1 {
		t.Fatalf("violations %v, want 1 missing", describe(v))
	}
	t.Logf("sample: %s", m.Samples[0])
}

// The same walk over keys that do not collide finds nothing missing: what
// lies past the page is not held against it.
func TestPagerCutShortUniqueClean(t *testing.T) {
	v, wk, now := walkCutShort(t, "unique")
	if wk.lastTs != now-1 || len(wk.listed) != 2 {
		t.Fatalf("the page lists %v ending at %d, want the pair stamped %d", wk.listed, wk.lastTs, now-1)
	}
	if len(v) != 0 {
		t.Fatalf("violations %v, want none", describe(v))
	}
}

func describe(v map[string]*results.Violation) map[string]int64 {
	out := map[string]int64{}
	for k, e := range v {
		out[k] = e.Count
	}
	return out
}

// A ring keeps the latest stamps booked, so a walk counts no more than
// what was acknowledged, and memory per owner is bounded.
func TestAckStampsKeepsLatest(t *testing.T) {
	a := newAckStamps(2, 3, 3)
	for ts := int64(1); ts <= 8; ts++ { // round the ring twice, and some
		a.add(1, 2, ts)
	}
	a.add(0, 0, 9)
	got := a.products[1].snapshot()
	if len(got) != 3 || countAfter(got, 5) != 3 || countAfter(got, 0) != 3 {
		t.Errorf("product 1 keeps %v, want the latest three stamps (6, 7, 8)", got)
	}
	if u := a.users[2].snapshot(); len(u) != 3 || countAfter(u, 7) != 1 {
		t.Errorf("user 2 keeps %v", u)
	}
	if p0 := a.products[0].snapshot(); len(p0) != 1 || p0[0] != 9 {
		t.Errorf("product 0 keeps %v, want [9]", p0)
	}
	if n := stampsToKeep(Scenario{MaxPages: 5, PageSize: 10}); n != 100 {
		t.Errorf("stampsToKeep %d, want 100", n)
	}
	if n := stampsToKeep(Scenario{PageSize: 10}); n != 0 {
		t.Errorf("stampsToKeep for walks to the end: %d, want 0", n)
	}
}

// In a run whose walks all stop at the first page, the seed's collisions
// (pairs of equal length in one millisecond) still show as missing: a
// walk cut short checks the comments acknowledged before it began that
// sort within what it read. Five products, written to for a warm-up
// first, have more rows than a page from the steady phase's start, so no
// walk there ends on its own and only that check can see a loss. The
// unique layout loses none.
func TestCutShortWalksCheckedInARun(t *testing.T) {
	for layout, wantMissing := range map[string]bool{"seed": true, "unique": false} {
		sc := testScenario(t, layout)
		sc.Products, sc.Popularity = 5, PopularitySpec{}
		sc.MaxPages, sc.PageSize, sc.Ops, sc.Warmup = 1, 5, 3000, Duration(time.Second)
		sc.Burst.Size, sc.Burst.EqualLength = 2, 1
		sc.Mix = map[string]float64{"write": 20, "burst": 20, "pager": 40} // product walks alone
		out, _ := runScenario(t, context.Background(), openEngine(t), sc)
		var missing int64
		if v := out.Violations[VMissing]; v != nil {
			missing = v.Count
		}
		if (missing > 0) != wantMissing {
			t.Errorf("%s: %d missing from walks cut at one page, want some: %v", layout, missing, wantMissing)
		}
	}
}
