package report

import (
	"bytes"
	"io"
	"path/filepath"
	"testing"
	"time"
)

// tenMinutes is a 10-minute run's intervals at loadgen's default 1 s.
const tenMinutes = 600

// The report of a 10-minute run stays under 2 MB: its lines are thinned to
// maxPoints and its heatmaps are pixels, so the page grows little with the
// run's length.
func TestTenMinuteReportSize(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 10-minute run's results")
	}
	dirs := tenMinuteRuns(t, t.TempDir())
	for _, set := range [][]string{dirs[:1], dirs} {
		runs, err := LoadAll(set, false)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		start := time.Now()
		if err := Write(&b, runs, now); err != nil {
			t.Fatal(err)
		}
		t.Logf("%d run(s) of 10 minutes: %d bytes, written in %v", len(set), b.Len(), time.Since(start).Round(time.Millisecond))
		if b.Len() >= 2<<20 {
			t.Errorf("%d run(s): the page is %d bytes, over 2 MB", len(set), b.Len())
		}
	}
}

// BenchmarkReport10Min reads a synthesized 10-minute run and writes its
// page: the Go side of what loadgen does at the end of a run.
func BenchmarkReport10Min(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "seed")
	synthRun(b, dir, tenMinutes, "seed", 1)
	benchWrite(b, []string{dir})
}

// BenchmarkCompare10Min is three such runs compared.
func BenchmarkCompare10Min(b *testing.B) {
	base := b.TempDir()
	var dirs []string
	for i, l := range []string{"seed", "unique", "salted"} {
		dirs = append(dirs, filepath.Join(base, l))
		synthRun(b, dirs[i], tenMinutes, l, uint64(i+1))
	}
	benchWrite(b, dirs)
}

func benchWrite(b *testing.B, dirs []string) {
	var size int
	for b.Loop() {
		runs, err := LoadAll(dirs, false)
		if err != nil {
			b.Fatal(err)
		}
		var w countWriter
		if err := Write(&w, runs, now); err != nil {
			b.Fatal(err)
		}
		size = int(w)
	}
	b.ReportMetric(float64(size), "page-bytes")
}

type countWriter int64

func (c *countWriter) Write(p []byte) (int, error) { *c += countWriter(len(p)); return len(p), nil }

var _ io.Writer = (*countWriter)(nil)
