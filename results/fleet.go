package results

import (
	"fmt"
	"slices"
	"time"
)

// Fleet is a run's place in a fleet: processes of one run id started
// together (loadgen --workers-total with --coordinate). In one process's
// summary Index is its own and Members what it saw at the start; in a
// merged summary Index is -1 and Members every part's own record.
type Fleet struct {
	Total      int    `json:"total"` // --workers-total
	Index      int    `json:"index"`
	Coordinate string `json:"coordinate"` // the ZooKeeper ensemble and path
	// StartAt is the instant the fleet agreed on for its warm-up to begin;
	// Began is when this process began it, on its own clock.
	StartAt time.Time     `json:"start_at"`
	Began   time.Time     `json:"began"`
	Members []FleetMember `json:"members"`
	// Lost are members that left mid-run without finishing (their
	// ZooKeeper session ended); Missing, in a merged summary, the indexes
	// merged without (--partial).
	Lost    []LostMember `json:"lost,omitempty"`
	Missing []int        `json:"missing,omitempty"`
	// StoppedBy is the member that asked the fleet to stop, and why.
	StoppedBy string `json:"stopped_by,omitempty"`
}

// FleetMember is one member as it joined: its host and its clock's
// offset from the ensemble's (positive when ahead), and, merged, when it
// began.
type FleetMember struct {
	Index    int       `json:"index"`
	Host     string    `json:"host"`
	OffsetMS float64   `json:"offset_ms"`
	Began    time.Time `json:"began,omitzero"`
}

// LostMember is a member another saw leave, and when.
type LostMember struct {
	Index int       `json:"index"`
	At    time.Time `json:"at"`
}

// FleetParts checks that fleet summaries are one run's members, each
// once, and says which of the run's indexes are missing and which the
// parts saw lost. A part without a fleet record is an error when another
// has one.
func FleetParts(sums []Summary, names []string) (missing []int, lost []LostMember, err error) {
	if len(sums) == 0 {
		return nil, nil, nil
	}
	first := sums[0]
	seen := map[int]string{}
	for i, s := range sums {
		f := s.Fleet
		switch {
		case first.Fleet == nil && f != nil:
			return nil, nil, fmt.Errorf("%s is a fleet member's run and %s is not", nameOf(names, i), nameOf(names, 0))
		case first.Fleet == nil:
			continue
		case f == nil:
			return nil, nil, fmt.Errorf("%s is not a fleet member's run (no fleet record) and %s is", nameOf(names, i), nameOf(names, 0))
		case s.RunID != first.RunID:
			return nil, nil, fmt.Errorf("%s is of run %s, %s of run %s", nameOf(names, i), s.RunID, nameOf(names, 0), first.RunID)
		case !f.StartAt.Equal(first.Fleet.StartAt) || f.Total != first.Fleet.Total:
			return nil, nil, fmt.Errorf("%s started at %s as one of %d, %s at %s as one of %d: not one fleet",
				nameOf(names, i), f.StartAt.Format(time.RFC3339Nano), f.Total, nameOf(names, 0), first.Fleet.StartAt.Format(time.RFC3339Nano), first.Fleet.Total)
		}
		if prev, dup := seen[f.Index]; dup {
			return nil, nil, fmt.Errorf("%s and %s are both member %d of run %s", prev, nameOf(names, i), f.Index, s.RunID)
		}
		seen[f.Index] = nameOf(names, i)
		for _, l := range f.Lost {
			if !slices.ContainsFunc(lost, func(x LostMember) bool { return x.Index == l.Index }) {
				lost = append(lost, l)
			}
		}
	}
	if first.Fleet == nil {
		return nil, nil, nil
	}
	for i := range first.Fleet.Total {
		if _, ok := seen[i]; !ok {
			missing = append(missing, i)
		}
	}
	slices.SortFunc(lost, func(a, b LostMember) int { return a.Index - b.Index })
	return missing, lost, nil
}

// mergeFleet is the merged summary's fleet record: every part's member
// with when it began, the lost and the missing.
func mergeFleet(sums []Summary) *Fleet {
	var out *Fleet
	for _, s := range sums {
		f := s.Fleet
		if f == nil {
			continue
		}
		if out == nil {
			out = &Fleet{Total: f.Total, Index: -1, Coordinate: f.Coordinate, StartAt: f.StartAt}
		}
		me := FleetMember{Index: f.Index, Began: f.Began}
		for _, m := range f.Members {
			if m.Index == f.Index {
				me.Host, me.OffsetMS = m.Host, m.OffsetMS
			}
		}
		out.Members = append(out.Members, me)
		for _, l := range f.Lost {
			if !slices.ContainsFunc(out.Lost, func(x LostMember) bool { return x.Index == l.Index }) {
				out.Lost = append(out.Lost, l)
			}
		}
		if out.StoppedBy == "" {
			out.StoppedBy = f.StoppedBy
		}
	}
	if out == nil {
		return nil
	}
	slices.SortFunc(out.Members, func(a, b FleetMember) int { return a.Index - b.Index })
	slices.SortFunc(out.Lost, func(a, b LostMember) int { return a.Index - b.Index })
	for i := range out.Total {
		if !slices.ContainsFunc(out.Members, func(m FleetMember) bool { return m.Index == i }) {
			out.Missing = append(out.Missing, i)
		}
	}
	return out
}
