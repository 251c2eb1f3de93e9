package results

import (
	"strings"
	"testing"
	"time"
)

// Names under ActionPrefix become the summary's actions, apart from its
// ops, and survive merge, SLOs and the console as actions.
func TestActions(t *testing.T) {
	ops := []string{"order-create", "comment-write", ActionPrefix + "post-comment"}
	fill := func(s *Set) {
		r := s.NewRecorder()
		for i := range 100 {
			rec(r, 0, time.Duration(100+i)*time.Microsecond, 100*time.Microsecond)
			rec(r, 2, time.Duration(1000+i)*time.Millisecond, 300*time.Microsecond)
		}
	}
	a := summaryOf(t, ops, t0, t0.Add(10*time.Second), fill)
	if len(a.Ops) != 2 || len(a.Actions) != 1 || a.Actions[0].Op != "post-comment" || a.Actions[0].Count != 100 {
		t.Fatalf("ops %d, actions %+v: want 2 ops and post-comment with 100", len(a.Ops), a.Actions)
	}
	if a.Actions[0].Rate != 10 {
		t.Errorf("action rate %v, want 10/s", a.Actions[0].Rate)
	}
	m, err := Merge([]Summary{a, a}, []string{"a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Actions) != 1 || m.Actions[0].Count != 200 || len(m.Ops) != 2 {
		t.Errorf("merged: ops %d, actions %+v; want post-comment with 200", len(m.Ops), m.Actions)
	}
	slo, err := ParseSLO("action:post-comment:p99<=300ms")
	if err != nil || slo.Op != ActionPrefix+"post-comment" || slo.Metric != "p99" {
		t.Fatalf("parse: %+v %v", slo, err)
	}
	r := Evaluate([]SLO{slo}, a)[0]
	if r.Met || r.Actual < 1000 || r.Note != "" {
		t.Errorf("action SLO: %+v, want breached at about 1.1 s", r)
	}
	if _, err := ParseSLO("action:post-comment"); err == nil {
		t.Error("action:NAME without a metric was accepted")
	}
	all := Evaluate([]SLO{mustSLO(t, "*:p99<=500ms")}, a)[0]
	if !all.Met {
		t.Errorf("* covers the ops, not the actions: %+v", all)
	}
	var b strings.Builder
	if err := PrintSummary(&b, a); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "\naction ") || !strings.Contains(b.String(), "\npost-comment ") {
		t.Errorf("console has no actions table:\n%s", b.String())
	}
}

// A run fell behind when arrivals never started, or when a tenth started
// late and one by at least BehindMs; timer jitter alone is not behind. The
// console says so in one line; merge judges the sums.
func TestFellBehind(t *testing.T) {
	cases := []struct {
		p    Pacing
		want bool
	}{
		{Pacing{Mode: "open", Arrivals: 100, Late: 50, MaxLateMs: 3}, false},
		{Pacing{Mode: "open", Arrivals: 100, Late: 10, MaxLateMs: BehindMs}, true},
		{Pacing{Mode: "open", Arrivals: 100, Late: 9, MaxLateMs: 5000}, false},
		{Pacing{Mode: "open", Arrivals: 100, Unstarted: 1, MaxLateMs: BehindMs}, true},
		{Pacing{Mode: "open", Arrivals: 100, Unstarted: 1, MaxLateMs: 2}, false}, // due as the run ended
		{Pacing{Mode: "closed", Arrivals: 100, Unstarted: 1}, false},
	}
	for _, c := range cases {
		if got := c.p.Judged(); got.FellBehind != c.want {
			t.Errorf("%+v: fell behind %v, want %v", c.p, got.FellBehind, c.want)
		}
	}
	p := Pacing{Mode: "open", Rate: 100, Arrivals: 200, Late: 150, MaxLateMs: 4050, Unstarted: 7}.Judged()
	if want := 157.0 / 207; p.LateShare != want { // the late and the unstarted, of all due
		t.Errorf("late share %v, want %v", p.LateShare, want)
	}
	var b strings.Builder
	printPacing(&b, p)
	if !strings.Contains(b.String(), "FELL BEHIND: 76% of arrivals due late or never started (up to 4.05s)") {
		t.Errorf("console:\n%s", b.String())
	}
	merged := addPacing(addPacing(Pacing{}, Pacing{Mode: "open", Arrivals: 100}, true), Pacing{Mode: "open", Arrivals: 100, Late: 30, MaxLateMs: 200}, false)
	if !merged.FellBehind || merged.LateShare != 0.15 || merged.MaxLateMs != 200 {
		t.Errorf("merged pacing %+v, want behind at 0.15 late, max 200 ms", merged)
	}
}

// Leave takes ops and actions out by name, an action by its prefixed name.
func TestLeave(t *testing.T) {
	s := Summary{Ops: []OpSummary{{Op: "a"}, {Op: "b"}, {Op: "c"}}, Actions: []OpSummary{{Op: "b"}, {Op: "d"}}}
	s.Leave("b", ActionPrefix+"d")
	if len(s.Ops) != 2 || s.Ops[0].Op != "a" || s.Ops[1].Op != "c" || len(s.Actions) != 1 || s.Actions[0].Op != "b" {
		t.Errorf("ops %v, actions %v; want a c and the action b", s.Ops, s.Actions)
	}
}
