package results

import (
	"strings"
	"testing"
)

// The console's consistency block: the strategy and what was injected,
// what the failed writes left by listing, what readers set right (only
// what the strategy did), and a comment's cost; within 80 columns.
func TestPrintConsistency(t *testing.T) {
	var b strings.Builder
	printConsistency(&b, &Consistency{Writes: "verified", Acked: 100, Requests: 640, Bytes: 57_700,
		Injected: Injected{FailedWrites: 4452, LostReplies: 4345, AbandonedWriters: 915},
		Left:     Left{Unverified: map[string]int64{"product-comment": 2154, "user-comment": 1091}, Orphans: map[string]int64{"user-comment": 2226}},
		Resolved: Resolved{Repaired: 1138, Deleted: 1696, Skipped: 14060}})
	want := `consistency: --writes verified; injected 4452 failed writes, 4345 lost replies,
  915 abandoned writers
  left by failed writes: 3245 unverified (product-comment 2154, user-comment
    1091); 2226 unverified orphans (user-comment 2226)
  set right during the run: 1138 unverified entries repaired, 1696 deleted
    (14060 reads skipped one)
  per comment written: 6.4 requests, 577 B
`
	if got := b.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	b.Reset()
	printConsistency(&b, &Consistency{Writes: "transactional", Left: Left{LocksForward: 3, LocksBack: 1}, Conflicts: 2, Retries: 1,
		Resolved: Resolved{RolledForward: 2}})
	if got := b.String(); !strings.Contains(got, "4 locked rows (3 of committed transactions, 1 not)") ||
		!strings.Contains(got, "set right during the run: 2 locked rows rolled forward, 0 back; 2 conflicts, 1\n    retries") ||
		strings.Contains(got, "unverified") || !strings.Contains(got, "0.0 requests") {
		t.Errorf("transactional block:\n%s", got)
	}
	b.Reset()
	printConsistency(&b, &Consistency{Writes: "non-atomic", Unknown: 2})
	if got := b.String(); !strings.Contains(got, "left by failed writes: nothing; 2 writes failed in ways not injected") {
		t.Errorf("nothing left:\n%s", got)
	}
	b.Reset()
	printConsistency(&b, nil)
	if b.Len() != 0 {
		t.Errorf("no block printed %q", b.String())
	}
}

// Blocks of processes of one run add up.
func TestConsistencyAdd(t *testing.T) {
	a := Consistency{Writes: "one-row", Acked: 10, Requests: 30, Left: Left{Unreferenced: map[string]int64{"user-comment": 2}}, Injected: Injected{FailedWrites: 1}}
	a.Add(Consistency{Acked: 5, Requests: 20, Left: Left{Unreferenced: map[string]int64{"user-comment": 3, "product-comment": 1}, LocksBack: 2},
		Injected: Injected{LostReplies: 4}, Resolved: Resolved{Deleted: 7}, Conflicts: 1})
	if a.Acked != 15 || a.Requests != 50 || a.Left.Unreferenced["user-comment"] != 5 || a.Left.Unreferenced["product-comment"] != 1 ||
		a.Left.LocksBack != 2 || a.Injected.Total() != 5 || a.Resolved.Deleted != 7 || a.Conflicts != 1 || a.Writes != "one-row" {
		t.Errorf("sum %+v", a)
	}
	if a.Left.Drift() != 6 {
		t.Errorf("drift %d, want 6", a.Left.Drift())
	}
	if got := mergeConsistency([]Summary{{}, {Consistency: &Consistency{Acked: 1}}, {Consistency: &Consistency{Acked: 2}}}); got == nil || got.Acked != 3 {
		t.Errorf("merged %+v", got)
	}
	if mergeConsistency([]Summary{{}}) != nil {
		t.Error("a merge of runs without blocks has one")
	}
}
