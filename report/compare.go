package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"commentbench/results"
)

// designKnobs are what a comparison compares: the key design and the
// system's behaviour. Every other knob of the scenario must match, or the
// runs measure different loads and their ratios mean nothing.
var designKnobs = []string{"system", "layout", "scan", "ranks"}

// Comparable refuses runs of different scenarios, naming each knob that
// differs from the first run's; force lets them through.
func Comparable(runs []*Run, force bool) error {
	if force || len(runs) < 2 {
		return nil
	}
	first := runs[0]
	for _, r := range runs[1:] {
		if diff := scenarioDiff(first.Config.scenarioFields, r.Config.scenarioFields); len(diff) > 0 {
			return inputErr("%s and %s ran different scenarios (%s): give --force to compare them anyway",
				first.Dir, r.Dir, strings.Join(diff, "; "))
		}
	}
	return nil
}

// scenarioDiff lists the knobs (besides the design's) whose values differ,
// as "name a vs b".
func scenarioDiff(a, b map[string]json.RawMessage) []string {
	names := map[string]bool{}
	for k := range a {
		names[k] = true
	}
	for k := range b {
		names[k] = true
	}
	var out []string
	for _, k := range slices.Sorted(maps.Keys(names)) {
		if slices.Contains(designKnobs, k) || bytes.Equal(compact(a[k]), compact(b[k])) {
			continue
		}
		out = append(out, fmt.Sprintf("%s %s vs %s", k, show(a[k]), show(b[k])))
	}
	return out
}

func compact(b []byte) []byte {
	var c bytes.Buffer
	if len(b) == 0 || json.Compact(&c, b) != nil {
		return b
	}
	return c.Bytes()
}

// show is a knob's value for a message: short, "unset" when absent.
func show(b []byte) string {
	if len(b) == 0 {
		return "unset"
	}
	s := string(compact(b))
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return s
}

// labels makes the runs' labels unique: two runs of one design are told
// apart by their order.
func labels(runs []*Run) {
	count := map[string]int{}
	for _, r := range runs {
		count[r.Label]++
	}
	seen := map[string]int{}
	for _, r := range runs {
		if count[r.Label] < 2 {
			continue
		}
		seen[r.Label]++
		r.Label = fmt.Sprintf("%s #%d", r.Label, seen[r.Label])
	}
}

// listingCost is the product listing's pages (results.ListingOps) summed.
func listingCost(s results.Summary) (results.Cost, bool) {
	var c results.Cost
	found := false
	for _, o := range s.Ops {
		if o.Listing != nil && slices.Contains(results.ListingOps, o.Op) {
			c.Pages += o.Listing.Pages
			c.Scans += o.Listing.Scans
			c.Rows += o.Listing.Rows
			c.MaxRows = max(c.MaxRows, o.Listing.MaxRows)
			found = true
		}
	}
	return c, found
}

// figures are what a verdict line compares.
type figures struct {
	hottest     float64 // the product listing's hottest region's share of its writes
	hasHottest  bool
	scans, rows float64 // per product listing page
	hasListing  bool
	collided    int64 // comments lost to colliding keys: verify's count where it ran
	hasCollided bool
	byVerify    bool
	staleRanks  int64
	hasStale    bool
}

func figuresOf(r *Run) figures {
	var f figures
	s := r.Summary
	for _, t := range s.Spread {
		if t.Table == s.StoreOf(results.ListingTable) && t.HottestWrites != nil {
			f.hottest, f.hasHottest = t.HottestWrites.Share, true
		}
	}
	if c, ok := listingCost(s); ok && c.Pages > 0 {
		f.scans, f.rows, f.hasListing = c.ScansPerPage(), c.RowsPerPage(), true
	}
	if s.Flaws != nil {
		f.collided, f.hasCollided = s.Flaws.CollidedTotal, true
		f.staleRanks, f.hasStale = s.Flaws.StaleRanks, true
	}
	if v := r.Verify; v != nil {
		f.collided, f.hasCollided, f.byVerify = v.CollidedTotal(), true, true
		f.staleRanks, f.hasStale = v.Ranks.Stale.Count, true
	}
	return f
}

// VerdictLine is one run's line for a design review, each figure with the
// first run's beside it: "salted: hottest product-comment region 12% of
// writes (seed 71%); 8 scans per listing page (seed 1); 0 lost to
// collisions (seed 412)". The first run's line has its own figures alone.
func VerdictLine(r, first *Run) string {
	f, b := figuresOf(r), figuresOf(first)
	self := r == first
	ref := func(has bool, s string) string {
		if self || !has {
			return ""
		}
		return " (" + first.Label + " " + s + ")"
	}
	var parts []string
	if f.hasHottest {
		parts = append(parts, fmt.Sprintf("hottest %s region %s of writes%s", results.ListingTable,
			pct(f.hottest), ref(b.hasHottest, pct(b.hottest))))
	}
	if f.hasListing {
		parts = append(parts, fmt.Sprintf("%s %s per listing page%s", num(f.scans), plural(f.scans, "scan", "scans"),
			ref(b.hasListing, num(b.scans))))
		parts = append(parts, fmt.Sprintf("%s rows read per page%s", num(f.rows), ref(b.hasListing, num(b.rows))))
	}
	if f.hasCollided {
		parts = append(parts, fmt.Sprintf("%s lost to colliding keys%s", thousands(f.collided),
			ref(b.hasCollided, thousands(b.collided))))
	}
	if f.hasStale && (f.staleRanks > 0 || b.staleRanks > 0) {
		parts = append(parts, fmt.Sprintf("%s stale ranks%s", thousands(f.staleRanks), ref(b.hasStale, thousands(b.staleRanks))))
	}
	if len(parts) == 0 {
		return r.Label + ": no listing, spread or flaw figures in this run"
	}
	return r.Label + ": " + strings.Join(parts, "; ")
}

func pct(share float64) string { return fmt.Sprintf("%.0f%%", 100*share) }

// num shows a per-page mean: whole when it is, else to a tenth.
func num(v float64) string {
	if v == float64(int64(v)) {
		return thousands(int64(v))
	}
	if v >= 100 {
		return thousands(int64(v + 0.5))
	}
	return fmt.Sprintf("%.1f", v)
}

func plural(v float64, one, many string) string {
	if v == 1 {
		return one
	}
	return many
}
