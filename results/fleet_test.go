package results

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// member is fleet member i of total's summary, of run "r1".
func member(i, total int, start time.Time, lost ...LostMember) Summary {
	return Summary{RunID: "r1", Fleet: &Fleet{Total: total, Index: i, StartAt: start, Began: start.Add(time.Duration(i) * time.Millisecond),
		Members: []FleetMember{{Index: i, Host: "h" + string(rune('0'+i)), OffsetMS: float64(i)}}, Lost: lost}}
}

func TestFleetParts(t *testing.T) {
	start := time.Unix(1_800_000_000, 0)
	at := start.Add(5 * time.Second)
	names := []string{"a", "b", "c", "d"}
	cases := []struct {
		name    string
		sums    []Summary
		missing []int
		lost    []int
		err     string
	}{
		{"whole", []Summary{member(0, 3, start), member(1, 3, start), member(2, 3, start)}, nil, nil, ""},
		{"one missing", []Summary{member(0, 3, start), member(2, 3, start)}, []int{1}, nil, ""},
		{"one lost, seen by both", []Summary{member(0, 3, start, LostMember{2, at}), member(1, 3, start, LostMember{2, at})}, []int{2}, []int{2}, ""},
		{"not a fleet", []Summary{{RunID: "x"}, {RunID: "y"}}, nil, nil, ""},
		{"a member twice", []Summary{member(0, 2, start), member(0, 2, start)}, nil, nil, "a and b are both member 0 of run r1"},
		{"another run", []Summary{member(0, 2, start), func() Summary { s := member(1, 2, start); s.RunID = "r2"; return s }()}, nil, nil, "b is of run r2, a of run r1"},
		{"another start", []Summary{member(0, 2, start), member(1, 2, start.Add(time.Second))}, nil, nil, "not one fleet"},
		{"another size", []Summary{member(0, 2, start), member(1, 3, start)}, nil, nil, "not one fleet"},
		{"a fleet and not", []Summary{member(0, 2, start), {RunID: "r1"}}, nil, nil, "b is not a fleet member's run (no fleet record) and a is"},
		{"not and a fleet", []Summary{{RunID: "r1"}, member(1, 2, start)}, nil, nil, "b is a fleet member's run and a is not"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			missing, lost, err := FleetParts(c.sums, names[:len(c.sums)])
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var lostIdx []int
			for _, l := range lost {
				lostIdx = append(lostIdx, l.Index)
			}
			if !slices.Equal(missing, c.missing) || !slices.Equal(lostIdx, c.lost) {
				t.Errorf("missing %v lost %v, want %v and %v", missing, lostIdx, c.missing, c.lost)
			}
		})
	}
}

// Merged, a fleet's record lists every part's member with when it began,
// the lost once, and the indexes merged without.
func TestMergeFleet(t *testing.T) {
	start := time.Unix(1_800_000_000, 0)
	at := start.Add(5 * time.Second)
	sums := []Summary{member(2, 4, start, LostMember{1, at}), member(0, 4, start, LostMember{1, at}), member(3, 4, start)}
	f := mergeFleet(sums)
	if f == nil || f.Index != -1 || f.Total != 4 || !f.StartAt.Equal(start) {
		t.Fatalf("merged fleet %+v", f)
	}
	var idx []int
	for _, m := range f.Members {
		idx = append(idx, m.Index)
		if want := start.Add(time.Duration(m.Index) * time.Millisecond); !m.Began.Equal(want) || m.OffsetMS != float64(m.Index) {
			t.Errorf("member %d: began %v offset %v, want %v and %d", m.Index, m.Began, m.OffsetMS, want, m.Index)
		}
	}
	if !slices.Equal(idx, []int{0, 2, 3}) || !slices.Equal(f.Missing, []int{1}) || len(f.Lost) != 1 || f.Lost[0].Index != 1 {
		t.Errorf("members %v missing %v lost %+v", idx, f.Missing, f.Lost)
	}
	if mergeFleet([]Summary{{RunID: "x"}}) != nil {
		t.Error("runs that were no fleet merged into a fleet record")
	}
}
