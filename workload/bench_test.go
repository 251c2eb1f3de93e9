package workload

import (
	"context"
	"fmt"
	"runtime"
	"sync/atomic"
	"syscall"
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
	sc.Ops, sc.Duration, sc.Warmup, sc.LoadPerUser = int64(b.N), 0, 0, 0 // b.N arrivals, no more
	layout, err := keys.Load(sc.Layout)
	if err != nil {
		b.Fatal(err)
	}
	set := results.NewSet(ResultNames())
	cfg := Config{Scenario: sc, Results: set, WorkersTotal: 1, Sys: comments.New(st, comments.Options{Layout: layout})}
	env, err := Prepare(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	calls, counts := st.(interface{ Calls() int64 })
	var before int64
	if counts {
		before = calls.Calls()
	}
	b.ResetTimer()
	out, err := env.Run(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	secs := out.End.Sub(out.Start).Seconds()
	if counts {
		b.ReportMetric(float64(calls.Calls()-before)/secs, "store-calls/s")
	}
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

// firstCall notes when the run first reached the store.
type firstCall struct {
	store.Store
	at atomic.Pointer[time.Time]
}

func (f *firstCall) Mutate(ctx context.Context, t string, m ...store.Mutation) error {
	if f.at.Load() == nil {
		now := time.Now()
		f.at.CompareAndSwap(nil, &now)
	}
	return f.Store.Mutate(ctx, t, m...)
}

// Many workers: the memory the run holds and how long after Run its first
// operation starts, at 16, 256 and 1,024 workers on the no-op store.
// go test -run '^$' -bench ManyWorkers -benchtime 1x ./workload
func BenchmarkManyWorkers(b *testing.B) {
	for _, workers := range []int{16, 256, 1024} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			for b.Loop() {
				runtime.GC()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				sc, _ := Preset("steady")
				sc.Workers, sc.RankEvery, sc.Burst.Every = workers, 0, 0
				sc.Users, sc.Products, sc.Ops, sc.Duration, sc.Warmup, sc.LoadPerUser = 2000, 200, 20000, 0, 0, 0
				st := &firstCall{Store: nop.New()}
				set := results.NewSet(ResultNames())
				cfg := Config{Scenario: sc, Results: set, WorkersTotal: 1, Sys: comments.New(st, comments.Options{Layout: keys.Seed})}
				env, err := Prepare(context.Background(), cfg)
				if err != nil {
					b.Fatal(err)
				}
				st.at.Store(nil) // seeding is not the run
				start := time.Now()
				if _, err := env.Run(context.Background(), cfg); err != nil {
					b.Fatal(err)
				}
				runtime.ReadMemStats(&after)
				b.ReportMetric(float64(after.HeapInuse)/(1<<20), "heap-MiB")
				b.ReportMetric(float64(after.Sys-before.Sys)/(1<<20), "grown-MiB")
				b.ReportMetric(float64(st.at.Load().Sub(start).Microseconds())/1000, "start-ms")
				// The process's peak: sub-benchmarks run smallest first, so
				// each reads its own.
				var ru syscall.Rusage
				if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
					b.ReportMetric(float64(ru.Maxrss)/1024, "peak-rss-MiB")
				}
			}
		})
	}
}
