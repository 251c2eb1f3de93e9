package report

import (
	"fmt"
	"strings"

	"commentbench/check"
	"commentbench/results"
)

// consistencyView is a run's consistency block on the page: how it wrote,
// what was injected, the drift it left, what was left unfinished and set
// right, and what a comment cost.
type consistencyView struct {
	Run, Writes, Injected, Drift, DriftClass, Unfinished, Conflicts string
	Requests, Bytes, P50, P99                                       string
}

// runConsistency is what a run's block says, with verify's findings where
// verify.json is beside it.
type runConsistency struct {
	c        *results.Consistency
	drift    int64 // verify's count, or what the run says it left
	verified bool  // drift is verify's
	// Unfinished writes the run or verify set right: unverified entries
	// and locked rows.
	unfinished     int64
	requests, size float64 // per comment written
	p50, p99       float64 // post-comment, ms
	hasLatency     bool
}

func consistencyOf(r *Run) (runConsistency, bool) {
	c := r.Summary.Consistency
	if c == nil {
		return runConsistency{}, false
	}
	rc := runConsistency{c: c, drift: c.Left.Drift(), requests: c.PerComment(c.Requests), size: c.PerComment(c.Bytes)}
	rc.unfinished = sumMap(c.Left.Unverified) + sumMap(c.Left.Orphans) + c.Left.LocksForward + c.Left.LocksBack
	if v := r.Verify; v != nil {
		rc.drift, rc.verified = verifyDrift(v), true
	}
	for _, a := range r.Summary.Actions {
		if a.Op == "post-comment" && a.Count > 0 {
			rc.p50, rc.p99, rc.hasLatency = a.Latency.P50, a.Latency.P99, true
		}
	}
	return rc, true
}

// verifyDrift is the entries verify found out of step with their
// comments: missing, without a comment, mismatched, stale copies.
func verifyDrift(v *check.Report) int64 {
	var n int64
	for _, ix := range v.Indexes {
		n += ix.Unreferenced.Count + ix.Undefined.Count + ix.Mismatched.Count + ix.StaleCopies.Count
	}
	return n
}

func sumMap(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

// consistencyRows are the runs' blocks side by side; nil when no run has
// one.
func consistencyRows(runs []*Run) []consistencyView {
	var out []consistencyView
	var base *runConsistency
	for _, r := range runs {
		rc, ok := consistencyOf(r)
		if !ok {
			continue
		}
		if base == nil {
			base = &rc
		}
		in := rc.c.Injected
		v := consistencyView{Run: r.Label, Writes: rc.c.Writes,
			Injected:   fmt.Sprintf("%d failed, %d lost, %d abandoned", in.FailedWrites, in.LostReplies, in.AbandonedWriters),
			Drift:      thousands(rc.drift),
			Unfinished: thousands(rc.unfinished),
			Conflicts:  fmt.Sprintf("%s / %s", thousands(rc.c.Conflicts), thousands(rc.c.Retries)),
			Requests:   ratioTo(rc.requests, base.requests, "%.1f"),
			Bytes:      ratioTo(rc.size, base.size, "%.0f"),
			P50:        "–", P99: "–"}
		if !rc.verified {
			v.Drift += " (run)"
		}
		v.DriftClass = "met"
		if rc.drift > 0 {
			v.DriftClass = "critical"
		}
		if rc.hasLatency {
			v.P50, v.P99 = ratioTo(rc.p50, base.p50, "%.2f"), ratioTo(rc.p99, base.p99, "%.2f")
		}
		out = append(out, v)
	}
	return out
}

// ratioTo is v in format, with its ratio to the first run's beside it
// when it is not the first's own.
func ratioTo(v, first float64, format string) string {
	s := fmt.Sprintf(format, v)
	if first > 0 && v != first {
		s += fmt.Sprintf(" (%.1f×)", v/first)
	}
	return s
}

// ConsistencyWords says in words, for runs that differ in how they kept
// their listings in step, which left drift and what the others paid for
// leaving none: "" unless two runs of different --writes have a
// consistency block.
func ConsistencyWords(runs []*Run) string {
	type named struct {
		label string
		rc    runConsistency
	}
	var all []named
	for _, r := range runs {
		if rc, ok := consistencyOf(r); ok {
			all = append(all, named{r.Label, rc})
		}
	}
	ways := map[string]bool{}
	for _, n := range all {
		ways[n.rc.c.Writes] = true
	}
	if len(ways) < 2 { // runs of one strategy: nothing to choose between
		return ""
	}
	var drifted, clean []named
	for _, n := range all {
		if n.rc.drift > 0 {
			drifted = append(drifted, n)
		} else {
			clean = append(clean, n)
		}
	}
	var parts []string
	for _, n := range drifted {
		how := "verify found"
		if !n.rc.verified {
			how = "the run counted"
		}
		parts = append(parts, fmt.Sprintf("%s left drift (%s %s entries out of step with their comments)", n.label, how, thousands(n.rc.drift)))
	}
	ref := all[0]
	if len(drifted) > 0 {
		ref = drifted[0]
	}
	for _, n := range clean {
		s := fmt.Sprintf("%s left none", n.label)
		if n.rc.unfinished > 0 {
			s += fmt.Sprintf(" (%s unfinished writes, set right by readers or verify)", thousands(n.rc.unfinished))
		}
		if n.label != ref.label {
			s += fmt.Sprintf(", paying %s the requests", times(n.rc.requests, ref.rc.requests))
			if n.rc.hasLatency && ref.rc.hasLatency {
				s += fmt.Sprintf(" and %s the post-comment p50", times(n.rc.p50, ref.rc.p50))
			}
			s += " of " + ref.label
		}
		if n.rc.c.Conflicts > 0 {
			s += fmt.Sprintf(", with %s conflicts", thousands(n.rc.c.Conflicts))
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, "; ") + "."
}

func times(v, of float64) string {
	if of <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f×", v/of)
}
