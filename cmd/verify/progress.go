package main

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/term"
)

// progress shows rows read, the rate and an estimated time left on a
// terminal, refreshed twice a second; elsewhere it shows nothing.
type progress struct {
	quit chan struct{}
	wg   sync.WaitGroup
}

func startProgress(out *os.File, quiet bool, rows, comments *atomic.Int64, perComment int64) *progress {
	p := &progress{quit: make(chan struct{})}
	if quiet || !term.IsTerminal(int(out.Fd())) {
		return p
	}
	start := time.Now()
	p.wg.Go(func() {
		t := time.NewTicker(500 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				fmt.Fprintf(out, "\r\033[Kverify: %s", status(rows.Load(), comments.Load()*perComment, time.Since(start)))
			case <-p.quit:
				fmt.Fprint(out, "\r\033[K")
				return
			}
		}
	})
	return p
}

// status is "1.2M rows read, 450k rows/s, ETA ~12s"; the ETA comes from an
// estimate of the rows the check will read, which grows while the comments
// are first counted.
func status(read, estimate int64, el time.Duration) string {
	rate := float64(read) / max(el.Seconds(), 1e-3)
	s := fmt.Sprintf("%s rows read, %s rows/s", human(float64(read)), human(rate))
	if estimate > read && rate > 0 {
		s += fmt.Sprintf(", ETA ~%v", time.Duration(float64(estimate-read)/rate*float64(time.Second)).Round(time.Second))
	}
	return s
}

func human(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.1fM", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.0fk", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}

func (p *progress) stop() {
	close(p.quit)
	p.wg.Wait()
}
