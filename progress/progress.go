// Package progress shows work under way to the person watching it: a
// progress bar on a terminal, a plain status line every ten seconds when
// the output is a log (CI), nothing when asked to be quiet. loadgen shows
// a load run with it (Reporter), verify the rows its check has read
// (Meter).
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

// Mode is how progress is shown.
type Mode int

const (
	Quiet Mode = iota // nothing
	Bar               // a bar redrawn in place: a terminal
	Lines             // a status line every LineEvery: a log
)

// ModeOf picks the mode for out: Quiet when asked, a bar on a terminal,
// lines otherwise.
func ModeOf(out *os.File, quiet bool) Mode {
	switch {
	case quiet:
		return Quiet
	case term.IsTerminal(int(out.Fd())):
		return Bar
	}
	return Lines
}

// LineEvery is how often a log gets a status line.
const LineEvery = 10 * time.Second

// frame is one update as each mode shows it.
type frame struct {
	elapsed time.Duration // paces the lines
	line    string        // a log's status line
	short   string        // beside the bar, which fits an 80-column terminal
	// done is the bar's filled share, 0 to 1; negative: the work has no
	// known end, and a spinner turns instead.
	done float64
}

// display shows frames in one mode.
type display interface {
	show(frame)
	finish()
}

func newDisplay(w io.Writer, m Mode, name string) display {
	switch m {
	case Bar:
		return &bar{w: w}
	case Lines:
		return &lines{w: w, prefix: name + ": ", every: LineEvery}
	}
	return nop{}
}

type nop struct{}

func (nop) show(frame) {}
func (nop) finish()    {}

// lines writes a frame's line when LineEvery has passed since the last.
type lines struct {
	w      io.Writer
	prefix string
	every  time.Duration
	last   time.Duration
	seen   bool
}

func (l *lines) show(f frame) {
	if l.seen && f.elapsed-l.last < l.every {
		return
	}
	l.seen, l.last = true, f.elapsed
	fmt.Fprintln(l.w, l.prefix+f.line)
}

func (l *lines) finish() {}

// barSteps is the bar's resolution: a share of the work in thousandths.
const barSteps = 1000

// bar draws frames with progressbar. The times shown are the caller's:
// the library's own clock starts at the first frame and predicts the time
// left from the rate the bar fills, both wrong for a run whose warm-up
// fills the bar at another pace than the steady phase.
type bar struct {
	w io.Writer
	b *progressbar.ProgressBar
}

func (b *bar) show(f frame) {
	if b.b == nil {
		end := int64(barSteps)
		if f.done < 0 {
			end = -1
		}
		b.b = progressbar.NewOptions64(end,
			progressbar.OptionSetWriter(b.w),
			progressbar.OptionSetDescription(f.short),
			progressbar.OptionSetWidth(12),
			progressbar.OptionSetElapsedTime(false),
			progressbar.OptionSetPredictTime(false),
			progressbar.OptionClearOnFinish())
	}
	if f.done < 0 {
		_ = b.b.Add(1)
	} else {
		// Short of full: a full bar is finished, and draws nothing after.
		_ = b.b.Set64(min(int64(f.done*barSteps), barSteps-1))
	}
	// Last, so the line drawn carries this frame's description and fill.
	b.b.Describe(f.short)
}

func (b *bar) finish() {
	if b.b != nil {
		_ = b.b.Finish()
	}
}

// Status is a load run at the end of an interval.
type Status struct {
	Phase    string        // "load", "warmup" or "steady"
	Elapsed  time.Duration // since the run began, warm-up included; in the load phase, since it began
	Warmup   time.Duration // the warm-up's length; 0: none, or not known
	Total    time.Duration // warm-up and steady phase; 0 when not bounded by time
	Ops      int64         // operations started in the phase
	OpsTotal int64         // 0 when not bounded by count
	Rate     float64       // last interval, ops/s
	Target   float64       // the open loop's arrival rate now; 0 in a closed loop
	WorstP99 time.Duration // last interval, the slowest op kind's p99
	Errors   int64         // since the start
	Servers  string        // last interval, the busiest modeled server, when a model runs
}

func (s Status) warmingUp() bool { return s.Phase == "warmup" }

func (s Status) loading() bool { return s.Phase == "load" }

// load says how far the load phase is: comments written of those it
// writes, unrecorded like the warm-up.
func (s Status) load() string {
	return fmt.Sprintf("load %s  comments %d/%d (not recorded)  errors %d",
		s.Elapsed.Round(time.Second), s.Ops, s.OpsTotal, s.Errors)
}

// clock is "5s/23s": the run's time so far, out of its whole length when
// it has one. Both count the warm-up, so the figure runs on without a jump
// when the steady phase begins, and say so then.
func (s Status) clock() string {
	el := s.Elapsed.Round(time.Second).String()
	switch {
	case s.warmingUp() && s.Warmup > 0:
		return el + "/" + s.Warmup.String()
	case !s.warmingUp() && s.Total > 0 && s.Warmup > 0:
		return el + "/" + s.Total.String() + " incl. " + s.Warmup.String() + " warm-up"
	case !s.warmingUp() && s.Total > 0:
		return el + "/" + s.Total.String()
	}
	return el
}

// warmup says what the warm-up is doing: its operations are not recorded,
// so it has no rate or latency to show.
func (s Status) warmup() string {
	w := "warm-up " + s.clock() + " (not recorded)"
	if s.Ops > 0 {
		w += fmt.Sprintf("  ops %d", s.Ops)
	}
	return w
}

func (s Status) line() string {
	if s.loading() {
		return s.load()
	}
	if s.warmingUp() {
		return s.warmup()
	}
	ops := fmt.Sprint(s.Ops)
	if s.OpsTotal > 0 {
		ops += "/" + fmt.Sprint(s.OpsTotal)
	}
	l := fmt.Sprintf("%-7s %s  ops %s  %.0f/s%s  worst p99 %v  errors %d",
		s.Phase, s.clock(), ops, s.Rate, s.target(), s.WorstP99.Round(10*time.Microsecond), s.Errors)
	if s.Servers != "" {
		l += "  " + s.Servers
	}
	return l
}

// target shows the open loop's aim beside what it achieved.
func (s Status) target() string {
	if s.Target <= 0 {
		return ""
	}
	return fmt.Sprintf(" (target %.0f/s)", s.Target)
}

func (s Status) short() string {
	if s.loading() {
		return s.load()
	}
	if s.warmingUp() {
		return s.warmup()
	}
	return fmt.Sprintf("%s %s %d ops %.0f/s%s p99 %v %d err",
		s.Phase, s.clock(), s.Ops, s.Rate, s.target(), s.WorstP99.Round(10*time.Microsecond), s.Errors)
}

// done is the bar's fill: time when the run is bounded by time (the
// warm-up fills it too, so it never stalls), operations when it is
// bounded by count only.
func (s Status) done() float64 {
	switch {
	case s.loading() && s.OpsTotal > 0:
		return float64(s.Ops) / float64(s.OpsTotal)
	case s.Total > 0:
		return float64(s.Elapsed) / float64(s.Total)
	case s.OpsTotal > 0 && s.warmingUp():
		return 0
	case s.OpsTotal > 0:
		return float64(s.Ops) / float64(s.OpsTotal)
	}
	return -1
}

func (s Status) frame() frame {
	return frame{elapsed: s.Elapsed, line: s.line(), short: s.short(), done: s.done()}
}

// Reporter shows a load run: Update once per interval, then Finish.
type Reporter struct{ d display }

// New shows a load run on out as ModeOf picks.
func New(out *os.File, quiet bool) *Reporter {
	return NewTo(out, ModeOf(out, quiet))
}

// NewTo shows a load run on w in mode m.
func NewTo(w io.Writer, m Mode) *Reporter {
	return &Reporter{d: newDisplay(w, m, "loadgen")}
}

// Update shows the run at the end of an interval.
func (r *Reporter) Update(s Status) { r.d.show(s.frame()) }

// Finish takes the bar away; the lines stay.
func (r *Reporter) Finish() { r.d.finish() }

// Count is work counted in rows: how many are done so far, toward an
// estimate of the whole that may still grow while the work is sized.
type Count struct {
	Done, Estimate int64
	Elapsed        time.Duration
}

// line is "1.2M rows read, 450k rows/s, ETA ~12s"; no ETA while the
// estimate is not above what is done.
func (c Count) line() string {
	rate := float64(c.Done) / max(c.Elapsed.Seconds(), 1e-3)
	s := fmt.Sprintf("%s rows read, %s rows/s", human(float64(c.Done)), human(rate))
	if c.Estimate > c.Done && rate > 0 {
		s += fmt.Sprintf(", ETA ~%v", time.Duration(float64(c.Estimate-c.Done)/rate*float64(time.Second)).Round(time.Second))
	}
	return s
}

func (c Count) frame() frame {
	f := frame{elapsed: c.Elapsed, line: c.line(), short: c.line()}
	if c.Estimate > 0 {
		f.done = float64(c.Done) / float64(c.Estimate)
	}
	return f
}

// human writes a count as 950, 12k or 1.2M.
func human(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.1fM", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.0fk", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}

// Meter shows counted work: Update as often as it is worth drawing, then
// Finish.
type Meter struct{ d display }

// NewMeter shows counted work on w in mode m, its lines led by name.
func NewMeter(w io.Writer, m Mode, name string) *Meter {
	return &Meter{d: newDisplay(w, m, name)}
}

// Update shows the work so far.
func (m *Meter) Update(c Count) { m.d.show(c.frame()) }

// Finish takes the bar away; the lines stay.
func (m *Meter) Finish() { m.d.finish() }
