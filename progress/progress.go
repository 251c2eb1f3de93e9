// Package progress shows a running load test to the person watching it: a
// progress bar on a terminal, a plain status line every ten seconds when
// the output is a log (CI), nothing when asked to be quiet.
//
// It owns presentation only; it must not know what the operations are or
// how their numbers were measured.
package progress

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// Status is the run at the end of an interval.
type Status struct {
	Phase    string
	Elapsed  time.Duration // since the run began, warm-up included
	Total    time.Duration // warm-up and steady phase; 0 when not bounded by time
	Ops      int64         // operations started in the steady phase
	OpsTotal int64         // 0 when not bounded by count
	Rate     float64       // last interval, ops/s
	Target   float64       // the open loop's arrival rate now; 0 in a closed loop
	WorstP99 time.Duration // last interval, the slowest op kind's p99
	Errors   int64         // since the start
}

func (s Status) line() string {
	el := s.Elapsed.Round(time.Second).String()
	if s.Total > 0 {
		el += "/" + s.Total.String()
	}
	ops := fmt.Sprint(s.Ops)
	if s.OpsTotal > 0 {
		ops += "/" + fmt.Sprint(s.OpsTotal)
	}
	return fmt.Sprintf("%-7s %s  ops %s  %.0f/s%s  worst p99 %v  errors %d",
		s.Phase, el, ops, s.Rate, s.target(), s.WorstP99.Round(10*time.Microsecond), s.Errors)
}

// target shows the open loop's aim beside what it achieved.
func (s Status) target() string {
	if s.Target <= 0 {
		return ""
	}
	return fmt.Sprintf(" (target %.0f/s)", s.Target)
}

// short fits beside a bar on an 80-column terminal; the bar itself shows
// elapsed and remaining time.
func (s Status) short() string {
	return fmt.Sprintf("%-6s %d ops %.0f/s%s p99 %v %d err",
		s.Phase, s.Ops, s.Rate, s.target(), s.WorstP99.Round(10*time.Microsecond), s.Errors)
}

// Reporter receives a Status per interval and is finished once.
type Reporter interface {
	Update(Status)
	Finish()
}

// New picks the reporter for out: a bar on a terminal, lines every
// LineEvery otherwise, none when quiet.
func New(out *os.File, quiet bool) Reporter {
	switch {
	case quiet:
		return nop{}
	case term.IsTerminal(int(out.Fd())):
		return &bar{out: out}
	}
	return &Lines{W: out, Every: LineEvery}
}

// LineEvery is how often a non-terminal gets a status line.
const LineEvery = 10 * time.Second

type nop struct{}

func (nop) Update(Status) {}
func (nop) Finish()       {}

// Lines writes a status line at most every Every.
type Lines struct {
	W     io.Writer
	Every time.Duration
	last  time.Duration
	seen  bool
}

// Update implements Reporter.
func (l *Lines) Update(s Status) {
	if l.seen && s.Elapsed-l.last < l.Every {
		return
	}
	l.seen, l.last = true, s.Elapsed
	fmt.Fprintln(l.W, "loadgen:", s.line())
}

// Finish implements Reporter.
func (l *Lines) Finish() {}

// bar is a progress bar over time, or over ops when the run is bounded by
// count only; a spinner when it is bounded by neither.
type bar struct {
	out *os.File
	b   *progressbar.ProgressBar
}

func (b *bar) Update(s Status) {
	if b.b == nil {
		b.b = progressbar.NewOptions64(barMax(s),
			progressbar.OptionSetWriter(b.out),
			progressbar.OptionSetWidth(12),
			progressbar.OptionShowElapsedTimeOnFinish(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionClearOnFinish())
	}
	b.b.Describe(s.short())
	switch {
	case s.Total > 0:
		_ = b.b.Set64(min(s.Elapsed.Milliseconds(), s.Total.Milliseconds()))
	case s.OpsTotal > 0:
		_ = b.b.Set64(min(s.Ops, s.OpsTotal))
	default:
		_ = b.b.Add(1)
	}
}

func barMax(s Status) int64 {
	switch {
	case s.Total > 0:
		return s.Total.Milliseconds()
	case s.OpsTotal > 0:
		return s.OpsTotal
	}
	return -1
}

func (b *bar) Finish() {
	if b.b != nil {
		_ = b.b.Finish()
		fmt.Fprintln(b.out)
	}
}
