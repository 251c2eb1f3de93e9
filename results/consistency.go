package results

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Consistency is a run's consistency block: how its comments kept their
// listing entries in step (--writes), the failures injected, what failed
// and stopped writes left behind for readers or verify to set right, what
// the run's readers set right meanwhile, and what the writes cost. Counts
// cover the whole run (load phase and warm-up included), as the data
// verify reads does.
type Consistency struct {
	Writes   string   `json:"writes"`
	Injected Injected `json:"injected"`
	// Writes made (comment writes and edits), and comment writes
	// acknowledged.
	CommentWrites int64 `json:"comment_writes"`
	Acked         int64 `json:"acked"`
	// Unknown are failed writes whose residue the run cannot tell (a
	// failure it did not inject): verify cannot reconcile them exactly.
	Unknown  int64    `json:"unknown,omitempty"`
	Left     Left     `json:"left"`
	Resolved Resolved `json:"resolved_during_run"`
	// Conflicts are transactions that met another's lock or lost a race
	// for a row; Retries, attempts run again after one.
	Conflicts int64 `json:"conflicts"`
	Retries   int64 `json:"retries"`
	// Requests and Bytes are the writes' requests (reads included) and
	// the bytes they wrote.
	Requests int64 `json:"requests"`
	Bytes    int64 `json:"bytes"`
}

// Injected counts the failures injected, by kind.
type Injected struct {
	FailedWrites     int64 `json:"failed_writes"`
	LostReplies      int64 `json:"lost_replies"`
	AbandonedWriters int64 `json:"abandoned_writers"`
}

// Total is every failure injected.
func (i Injected) Total() int64 { return i.FailedWrites + i.LostReplies + i.AbandonedWriters }

// Left is what writes that failed or stopped left, per listing table.
type Left struct {
	// Unreferenced: a comment written, its entry not; Undefined: an entry
	// written, its comment not. Drift, as verify counts it.
	Unreferenced map[string]int64 `json:"unreferenced,omitempty"`
	Undefined    map[string]int64 `json:"undefined,omitempty"`
	// Unverified entries (the verified index): with their comment (a
	// reader repairs them) and without (a reader drops them).
	Unverified map[string]int64 `json:"unverified,omitempty"`
	Orphans    map[string]int64 `json:"unverified_orphans,omitempty"`
	// StaleCopies: copies of an edited comment left as it was.
	StaleCopies map[string]int64 `json:"stale_copies,omitempty"`
	// Rows left locked by transactions that committed (rolled forward by
	// whoever meets them) and that did not (rolled back).
	LocksForward int64 `json:"locks_forward,omitempty"`
	LocksBack    int64 `json:"locks_back,omitempty"`
}

// Drift is the left entries verify counts as inconsistent.
func (l Left) Drift() int64 {
	return sum(l.Unreferenced) + sum(l.Undefined) + sum(l.StaleCopies)
}

// Resolved is what the run's readers (and writers, meeting others'
// locks) set right while it ran.
type Resolved struct {
	Repaired      int64 `json:"unverified_repaired"`
	Deleted       int64 `json:"unverified_deleted"`
	Skipped       int64 `json:"unverified_skipped"`
	RolledForward int64 `json:"locks_rolled_forward"`
	RolledBack    int64 `json:"locks_rolled_back"`
}

func sum(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

// Add sums another process's block into c (the same run's share).
func (c *Consistency) Add(o Consistency) {
	if c.Writes == "" {
		c.Writes = o.Writes
	}
	c.Injected.FailedWrites += o.Injected.FailedWrites
	c.Injected.LostReplies += o.Injected.LostReplies
	c.Injected.AbandonedWriters += o.Injected.AbandonedWriters
	c.CommentWrites += o.CommentWrites
	c.Acked += o.Acked
	c.Unknown += o.Unknown
	for _, p := range []struct{ to, from *map[string]int64 }{
		{&c.Left.Unreferenced, &o.Left.Unreferenced}, {&c.Left.Undefined, &o.Left.Undefined},
		{&c.Left.Unverified, &o.Left.Unverified}, {&c.Left.Orphans, &o.Left.Orphans}, {&c.Left.StaleCopies, &o.Left.StaleCopies},
	} {
		for k, v := range *p.from {
			if *p.to == nil {
				*p.to = map[string]int64{}
			}
			(*p.to)[k] += v
		}
	}
	c.Left.LocksForward += o.Left.LocksForward
	c.Left.LocksBack += o.Left.LocksBack
	r, s := &c.Resolved, o.Resolved
	r.Repaired, r.Deleted, r.Skipped = r.Repaired+s.Repaired, r.Deleted+s.Deleted, r.Skipped+s.Skipped
	r.RolledForward, r.RolledBack = r.RolledForward+s.RolledForward, r.RolledBack+s.RolledBack
	c.Conflicts += o.Conflicts
	c.Retries += o.Retries
	c.Requests += o.Requests
	c.Bytes += o.Bytes
}

// PerComment is a cost per comment written (acknowledged), 0 for none.
func (c Consistency) PerComment(n int64) float64 {
	if c.Acked == 0 {
		return 0
	}
	return float64(n) / float64(c.Acked)
}

// printConsistency is the console's consistency block, a line each: the
// strategy and what was injected, what the writes left, what readers set
// right, what a comment cost.
func printConsistency(b *strings.Builder, c *Consistency) {
	if c == nil {
		return
	}
	in := c.Injected
	wrapped(b, "", fmt.Sprintf("consistency: --writes %s; injected %d failed writes, %d lost replies, %d abandoned writers",
		c.Writes, in.FailedWrites, in.LostReplies, in.AbandonedWriters))
	l := c.Left
	var left []string
	for _, k := range []struct {
		what string
		m    map[string]int64
	}{{"missing entries", l.Unreferenced}, {"entries without a comment", l.Undefined}, {"unverified", l.Unverified},
		{"unverified orphans", l.Orphans}, {"stale copies", l.StaleCopies}} {
		if n := sum(k.m); n > 0 {
			left = append(left, fmt.Sprintf("%d %s (%s)", n, k.what, perTable(k.m)))
		}
	}
	if l.LocksForward+l.LocksBack > 0 {
		left = append(left, fmt.Sprintf("%d locked rows (%d of committed transactions, %d not)", l.LocksForward+l.LocksBack, l.LocksForward, l.LocksBack))
	}
	if len(left) == 0 {
		left = []string{"nothing"}
	}
	if c.Unknown > 0 {
		left = append(left, fmt.Sprintf("%d writes failed in ways not injected, their residue unknown", c.Unknown))
	}
	wrapped(b, "  ", "left by failed writes: "+strings.Join(left, "; "))
	r := c.Resolved
	var set []string
	if r.Repaired+r.Deleted+r.Skipped > 0 {
		set = append(set, fmt.Sprintf("%d unverified entries repaired, %d deleted (%d reads skipped one)", r.Repaired, r.Deleted, r.Skipped))
	}
	if r.RolledForward+r.RolledBack > 0 {
		set = append(set, fmt.Sprintf("%d locked rows rolled forward, %d back", r.RolledForward, r.RolledBack))
	}
	if c.Conflicts > 0 {
		set = append(set, fmt.Sprintf("%d conflicts, %d retries", c.Conflicts, c.Retries))
	}
	if len(set) > 0 {
		wrapped(b, "  ", "set right during the run: "+strings.Join(set, "; "))
	}
	line(b, "  per comment written: %.1f requests, %s", c.PerComment(c.Requests), byteSize(int64(c.PerComment(c.Bytes)+0.5)))
}

// wrapped writes text at indent, folded into lines within the width, the
// lines after the first indented two more.
func wrapped(b *strings.Builder, indent, text string) {
	for i, l := range wrapWords(text, lineWidth-len(indent), lineWidth-len(indent)-2) {
		if i > 0 {
			l = "  " + l
		}
		line(b, "%s%s", indent, l)
	}
}

// perTable is "table n, table n" in table order.
func perTable(m map[string]int64) string {
	var s []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		s = append(s, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(s, ", ")
}

// mergeConsistency sums the runs' blocks: nil when none has one.
func mergeConsistency(sums []Summary) *Consistency {
	var out *Consistency
	for _, s := range sums {
		if s.Consistency == nil {
			continue
		}
		if out == nil {
			out = &Consistency{}
		}
		out.Add(*s.Consistency)
	}
	return out
}
