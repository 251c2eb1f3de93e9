package main

import (
	"io"
	"sync"
	"sync/atomic"
	"time"

	"commentbench/progress"
)

// pollEvery is how often the check's counters are read and drawn: often
// enough for a bar to move smoothly; a log gets a line every
// progress.LineEvery whatever this is.
const pollEvery = 500 * time.Millisecond

// poller shows rows read, the rate and an estimated time left while the
// check runs, as loadgen shows its run: a bar on a terminal, a line every
// ten seconds in a log, nothing with --quiet.
type poller struct {
	quit chan struct{}
	wg   sync.WaitGroup
}

// startProgress polls rows (read so far) and comments (counted so far:
// each means perComment rows to read, the estimate of the whole).
func startProgress(w io.Writer, m progress.Mode, rows, comments *atomic.Int64, perComment int64) *poller {
	p := &poller{quit: make(chan struct{})}
	if m == progress.Quiet {
		return p
	}
	meter := progress.NewMeter(w, m, "verify")
	start := time.Now()
	p.wg.Go(func() {
		t := time.NewTicker(pollEvery)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				meter.Update(progress.Count{Done: rows.Load(), Estimate: comments.Load() * perComment, Elapsed: time.Since(start)})
			case <-p.quit:
				meter.Finish()
				return
			}
		}
	})
	return p
}

func (p *poller) stop() {
	close(p.quit)
	p.wg.Wait()
}
