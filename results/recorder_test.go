package results

import (
	"math"
	"sync"
	"testing"
	"time"
)

var t0 = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

// rec records one success with the given latency and service time.
func rec(r *Recorder, op int, latency, service time.Duration) {
	end := t0.Add(latency)
	r.Record(op, t0, end.Add(-service), end, "")
}

// recordUniform records 1..n ms on op, latency = service.
func recordUniform(r *Recorder, op, n int) {
	for i := 1; i <= n; i++ {
		d := time.Duration(i) * time.Millisecond
		rec(r, op, d, d)
	}
}

func near(got, want, rel float64) bool { return math.Abs(got-want) <= rel*want }

func TestRecordCollectTotals(t *testing.T) {
	s := NewSet([]string{"read", "write"})
	r := s.NewRecorder()
	recordUniform(r, 0, 500)
	r.Record(1, t0, t0, t0.Add(time.Millisecond), "timeout")
	iv1 := s.Collect(t0, t0.Add(time.Second))
	for i := 501; i <= 1000; i++ {
		d := time.Duration(i) * time.Millisecond
		rec(r, 0, d, d)
	}
	rec(r, 1, 3*time.Millisecond, time.Millisecond)
	r.Record(1, t0, t0, t0, "order-not-found")
	r.Record(1, t0, t0, t0, "timeout")
	iv2 := s.Collect(t0.Add(time.Second), t0.Add(2*time.Second))

	if got := iv1.Ops[0].Count + iv2.Ops[0].Count; got != 1000 {
		t.Errorf("read intervals sum to %d, want 1000", got)
	}
	if iv1.Ops[1].Errors != 1 || iv2.Ops[1].Errors != 2 || iv2.Ops[1].Count != 1 {
		t.Errorf("write intervals %+v %+v", iv1.Ops[1], iv2.Ops[1])
	}
	if !near(iv1.Ops[0].P50.Seconds(), 0.250, 0.002) || !near(iv2.Ops[0].P50.Seconds(), 0.750, 0.002) {
		t.Errorf("interval p50s %v %v, want ≈250ms ≈750ms", iv1.Ops[0].P50, iv2.Ops[0].P50)
	}
	ts := s.Totals()
	if ts[0].Count != 1000 || ts[0].Errors != 0 || ts[1].Count != 1 || ts[1].Errors != 3 {
		t.Fatalf("totals %+v %+v", ts[0], ts[1])
	}
	if ts[1].ErrorsByKind["timeout"] != 2 || ts[1].ErrorsByKind["order-not-found"] != 1 {
		t.Errorf("errors by kind %v", ts[1].ErrorsByKind)
	}
	p := percentiles(ts[0].Latency)
	if !(p.P50 <= p.P90 && p.P90 <= p.P99 && p.P99 <= p.P999 && p.P999 <= p.Max) {
		t.Errorf("percentiles out of order: %+v", p)
	}
	for _, c := range []struct{ got, want float64 }{{p.P50, 500}, {p.P90, 900}, {p.P99, 990}, {p.P999, 999}, {p.Max, 1000}, {p.Mean, 500.5}} {
		if !near(c.got, c.want, 0.002) {
			t.Errorf("uniform 1..1000ms: got %vms, want ≈%vms (%+v)", c.got, c.want, p)
		}
	}
}

func TestIntervalPercentilesOrdered(t *testing.T) {
	s := NewSet([]string{"op"})
	r := s.NewRecorder()
	for i := range 10000 {
		d := time.Duration(i*i%99991) * time.Microsecond
		rec(r, 0, d, d)
	}
	o := s.Collect(t0, t0).Ops[0]
	if !(o.P50 <= o.P90 && o.P90 <= o.P99 && o.P99 <= o.P999 && o.P999 <= o.Max) || o.P50 == 0 {
		t.Errorf("interval percentiles out of order: %+v", o)
	}
	if o2 := s.Collect(t0, t0).Ops[0]; o2.Count != 0 || o2.Max != 0 {
		t.Errorf("second collect not empty: %+v", o2)
	}
}

func TestCoordinatedOmission(t *testing.T) {
	s := NewSet([]string{"op"})
	r := s.NewRecorder()
	// The op was due at t0 but started 100ms late and took 5ms.
	start := t0.Add(100 * time.Millisecond)
	r.Record(0, t0, start, start.Add(5*time.Millisecond), "")
	tot := s.Totals()[0]
	lat, svc := percentiles(tot.Latency), percentiles(tot.Service)
	if !near(lat.Max, 105, 0.002) || !near(svc.Max, 5, 0.002) || lat.P50 <= svc.P50 {
		t.Errorf("latency %+v service %+v, want ≈105ms and ≈5ms", lat, svc)
	}
}

func TestClampOutOfRange(t *testing.T) {
	s := NewSet([]string{"op"})
	r := s.NewRecorder()
	rec(r, 0, 2*time.Hour, -time.Second) // both out of range
	rec(r, 0, time.Millisecond, time.Millisecond)
	tot := s.Totals()[0]
	if tot.Count != 2 || tot.Clamped != 2 {
		t.Fatalf("count %d clamped %d, want 2 and 2", tot.Count, tot.Clamped)
	}
	if got := percentiles(tot.Latency).Max; !near(got, 3600e3, 0.002) {
		t.Errorf("clamped max %vms, want 1h", got)
	}
	if got := tot.Service.Min(); got != 1 {
		t.Errorf("clamped min %dµs, want 1", got)
	}
}

// TestConcurrentRecordCollect runs workers, some created mid-run, against a
// collector: nothing may be lost between intervals and totals.
func TestConcurrentRecordCollect(t *testing.T) {
	s := NewSet([]string{"a", "b", "c"})
	const workers, each = 8, 5000
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			r := s.NewRecorder()
			for i := range each {
				kind := ""
				if i%10 == 0 {
					kind = "timeout"
				}
				end := t0.Add(time.Duration(i+w) * time.Microsecond)
				r.Record(i%3, t0, t0, end, kind)
			}
		})
	}
	done := make(chan struct{})
	var sums [3][2]int64
	var collector sync.WaitGroup
	collector.Go(func() {
		for {
			select {
			case <-done:
				return
			default:
			}
			addInterval(&sums, s.Collect(t0, t0))
		}
	})
	wg.Wait()
	close(done)
	collector.Wait()
	addInterval(&sums, s.Collect(t0, t0)) // the final partial interval
	var total int64
	for i, tot := range s.Totals() {
		if sums[i][0] != tot.Count || sums[i][1] != tot.Errors {
			t.Errorf("op %s: intervals %d/%d, totals %d/%d", tot.Op, sums[i][0], sums[i][1], tot.Count, tot.Errors)
		}
		total += tot.Count + tot.Errors
	}
	if total != workers*each {
		t.Errorf("recorded %d, want %d", total, workers*each)
	}
}

func addInterval(sums *[3][2]int64, iv Interval) {
	for i, o := range iv.Ops {
		sums[i][0] += o.Count
		sums[i][1] += o.Errors
	}
}

func BenchmarkRecord(b *testing.B) {
	b.ReportAllocs()
	s := NewSet([]string{"a", "b"})
	r := s.NewRecorder()
	end := t0.Add(3 * time.Millisecond)
	for i := 0; b.Loop(); i++ {
		r.Record(i&1, t0, t0.Add(time.Millisecond), end, "")
	}
}

func BenchmarkRecordParallel(b *testing.B) {
	b.ReportAllocs()
	s := NewSet([]string{"a", "b"})
	end := t0.Add(3 * time.Millisecond)
	stop := make(chan struct{})
	// A collector runs meanwhile, as in a real run, to show the contention.
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
				s.Collect(t0, t0)
			}
		}
	}()
	defer close(stop)
	b.RunParallel(func(pb *testing.PB) {
		r := s.NewRecorder()
		for i := 0; pb.Next(); i++ {
			r.Record(i&1, t0, t0.Add(time.Millisecond), end, "")
		}
	})
}

// Past Shards, workers share Recorders round robin: memory stays flat
// however many workers there are, and every record still counts once.
func TestRecordersShared(t *testing.T) {
	s := NewSet([]string{"a", "b"})
	seen := map[*Recorder]int{}
	for i := range 3 * Shards {
		r := s.NewRecorder()
		seen[r]++
		rec(r, i%2, time.Millisecond, time.Millisecond)
	}
	if len(seen) != Shards {
		t.Fatalf("%d distinct recorders for %d workers, want %d", len(seen), 3*Shards, Shards)
	}
	for r, n := range seen {
		if n != 3 {
			t.Errorf("recorder %p shared by %d workers, want 3", r, n)
		}
	}
	tot := s.Totals()
	if tot[0].Count != int64(3*Shards/2) || tot[1].Count != int64(3*Shards/2) {
		t.Errorf("counts %d and %d, want %d each", tot[0].Count, tot[1].Count, 3*Shards/2)
	}
}
