package plan

import (
	"fmt"
	"math"
	"strings"

	"commentbench/keys"
)

// RowPlan is one kind of wide row after the plan's days: the biggest of
// its kind, the row of the owner that takes the largest share of the
// comments (every comment, for a row with no owner). Such a row grows for
// as long as the data lives, and no region split divides it.
type RowPlan struct {
	Store  string   `json:"store"`
	Owner  string   `json:"owner,omitempty"` // the id its key holds; "" for one row of every comment
	Tables []string `json:"tables"`
	// Share is the part of all comments that go into the row.
	Share           float64 `json:"share"`
	BytesPerComment float64 `json:"bytes_per_comment"` // a cell in each of Tables
	Cells           int64   `json:"cells"`
	Bytes           float64 `json:"bytes"`
	// DayPastMaxRow is the first day on which the row is bigger than the
	// max row size (a whole-row read of it fails), DayPastRegion than a
	// region's size (its region cannot split it away); 0 when it is not
	// within the plan's days.
	DayPastMaxRow int `json:"day_past_max_row_size,omitempty"`
	DayPastRegion int `json:"day_past_region_size,omitempty"`
}

// Rows models the biggest row of each kind of wide row the design writes
// comments into, after in.Days: its owner's share of comments from in
// (the hottest product's, the hottest user's), a cell per comment in each
// of its tables.
func (m *Model) Rows(in Inputs) []RowPlan {
	var out []RowPlan
	for _, w := range m.design.WideRows() {
		rp := RowPlan{Store: w.Store, Owner: w.Owner, Tables: w.Tables, Share: in.share(w.Owner)}
		for _, t := range w.Tables {
			rp.BytesPerComment += m.RowBytes(t)
		}
		perDay := float64(in.CommentsPerDay) * rp.Share
		rp.Cells = int64(math.Round(perDay * float64(in.Days) * float64(len(w.Tables))))
		rp.Bytes = perDay * float64(in.Days) * rp.BytesPerComment
		rp.DayPastMaxRow = dayPast(float64(in.MaxRowSize), perDay*rp.BytesPerComment, in.Days)
		rp.DayPastRegion = dayPast(float64(in.RegionSize), perDay*rp.BytesPerComment, in.Days)
		out = append(out, rp)
	}
	return out
}

// share is the part of all comments the hottest owner of the field takes.
func (in Inputs) share(owner string) float64 {
	switch owner {
	case keys.FieldProductID:
		return in.HottestProductShare
	case keys.FieldUserID:
		return in.HottestUserShare
	}
	return 1
}

// dayPast is the first day on which bytes growing by perDay a day pass
// limit; 0 when not within days (or no limit).
func dayPast(limit, perDay float64, days int) int {
	if limit <= 0 || perDay <= 0 {
		return 0
	}
	d := int(math.Floor(limit/perDay)) + 1
	if d > days {
		return 0
	}
	return d
}

// PrintRows writes the wide rows' section: what lint shows of a wide
// design's growth, and the plan beside its tables.
func (r Report) PrintRows(b *strings.Builder) {
	if len(r.Rows) == 0 {
		return
	}
	fmt.Fprintf(b, "\n%s\n", wrap(fmt.Sprintf("wide rows (modeled): the biggest row of each kind after %d days of %s comments a day:",
		r.Inputs.Days, Count(r.Inputs.CommentsPerDay)), "", "  ", 80))
	for _, rp := range r.Rows {
		who := fmt.Sprintf("the hottest %s's row (%.3g%% of comments)", ownerNoun(rp.Owner), 100*rp.Share)
		if rp.Owner == "" {
			who = "the one row every comment goes in"
		}
		line := fmt.Sprintf("%s: %s, %s cells (%s), %.0f bytes a comment; %s", rp.Store, who, Count(rp.Cells),
			FormatSize(rp.Bytes), rp.BytesPerComment, pastLine(rp, r.Inputs))
		fmt.Fprintf(b, "%s\n", wrap(line, "  ", "    ", 80))
	}
}

func ownerNoun(owner string) string {
	return strings.TrimSuffix(owner, "Id")
}

func pastLine(rp RowPlan, in Inputs) string {
	var parts []string
	if rp.DayPastMaxRow > 0 {
		parts = append(parts, fmt.Sprintf("past the max row size (%s) on day %d: a whole-row read of it fails from then on", FormatSize(float64(in.MaxRowSize)), rp.DayPastMaxRow))
	}
	if rp.DayPastRegion > 0 {
		parts = append(parts, fmt.Sprintf("past a region's size (%s) on day %d: a region of one row that no split divides", FormatSize(float64(in.RegionSize)), rp.DayPastRegion))
	}
	if len(parts) == 0 {
		return fmt.Sprintf("within the max row size (%s) and a region's size (%s) for all %d days; it grows for as long as the data lives",
			FormatSize(float64(in.MaxRowSize)), FormatSize(float64(in.RegionSize)), in.Days)
	}
	return strings.Join(parts, "; ")
}
