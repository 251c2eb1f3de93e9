package workload

import (
	"context"
	"runtime"
	"testing"
	"time"

	"commentbench/comments"
	"commentbench/keys"
	"commentbench/results"
	"commentbench/store"
	"commentbench/store/embedded"
	"commentbench/store/nop"
)

// benchRun prepares sc on st, then times a run of b.N arrivals and reports
// arrivals/s, per core, and what op counts per second.
func benchRun(b *testing.B, st store.Store, sc Scenario, op string) {
	sc.Ops, sc.Duration, sc.Warmup = int64(b.N), 0, 0
	layout, err := keys.Load(sc.Layout)
	if err != nil {
		b.Fatal(err)
	}
	set := results.NewSet(ResultNames(), time.Duration(sc.Interval))
	cfg := Config{Scenario: sc, Results: set, WorkersTotal: 1, Sys: comments.New(st, comments.Options{Layout: layout})}
	env, err := Prepare(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	out, err := env.Run(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	secs := out.End.Sub(out.Start).Seconds()
	b.ReportMetric(float64(out.Pacing.Arrivals)/secs, "arrivals/s")
	b.ReportMetric(float64(out.Pacing.Arrivals)/secs/float64(runtime.GOMAXPROCS(0)), "arrivals/s/core")
	if op != "" {
		for _, t := range set.Totals() {
			if t.Op == op {
				b.ReportMetric(float64(t.Count)/secs, op+"/s")
			}
		}
	}
}

// The harness must not be the bottleneck: the full actor and recording path
// against a store that does nothing. Run with -cpu 1 for one core.
func BenchmarkHarnessNop(b *testing.B) {
	sc, _ := Preset("steady")
	sc.Workers, sc.RankEvery, sc.Burst.Every = runtime.GOMAXPROCS(0), 0, 0
	sc.Users, sc.Products = 2000, 200
	benchRun(b, nop.New(), sc, "")
}

// Comment writes on the embedded engine with 1 and 2 workers.
func BenchmarkCommentWriteEmbedded(b *testing.B) {
	for _, workers := range []int{1, 2} {
		b.Run(map[int]string{1: "workers=1", 2: "workers=2"}[workers], func(b *testing.B) {
			e, err := embedded.Open(embedded.Options{Dir: b.TempDir(), CreateIfMissing: true})
			if err != nil {
				b.Fatal(err)
			}
			defer e.Close()
			sc, _ := Preset("steady")
			sc.Workers, sc.RankEvery, sc.Burst.Every = workers, 0, 0
			sc.Mix = map[string]float64{"write": 1}
			sc.Users, sc.Products = 2000, 200
			benchRun(b, e, sc, "comment-write")
		})
	}
}
