package report

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"commentbench/keys"
	"commentbench/results"
)

// designKnobs are what a comparison compares: the key design and the
// system's behaviour. Every other knob of the scenario must match, or the
// runs measure different loads and their ratios mean nothing.
var designKnobs = []string{"system", "layout", "scan", "ranks", "writes"}

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
	writes, layouts := map[string]bool{}, map[string]bool{}
	for _, r := range runs {
		writes[cmp.Or(r.Config.Scenario.Writes, "non-atomic")] = true
		layouts[r.Config.Scenario.Layout] = true
	}
	if len(writes) > 1 { // runs of the strategies: named by theirs
		for _, r := range runs {
			r.Label = cmp.Or(r.Config.Scenario.Writes, "non-atomic")
			if len(layouts) > 1 {
				r.Label += " on " + r.Config.Scenario.Layout
			}
		}
	}
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
			c.Cells += o.Listing.Cells
			c.MaxRows = max(c.MaxRows, o.Listing.MaxRows)
			found = true
		}
	}
	return c, found
}

// perComment are the tables that take an entry for each comment written
// (product-comment-rank keeps ten a product, whatever the comments).
var perComment = []string{keys.Order, keys.Comment, keys.UserComment, keys.ProductComment, keys.LatestComment}

// bytesPerComment is what a comment costs to keep: the measured bytes of
// the tables that grow with comments over the comments.
func bytesPerComment(ts []results.TableStorage) (float64, bool) {
	var bytes, comments int64
	for _, t := range ts {
		if slices.Contains(perComment, t.Table) {
			bytes += t.MeasuredBytes
		}
		if t.Table == keys.Comment {
			comments = t.Rows
		}
	}
	if comments == 0 {
		return 0, false
	}
	return float64(bytes) / float64(comments), true
}

// biggestRow is the biggest row of any table at the run's end, by bytes.
func biggestRow(ts []results.TableRows) *results.RowSize {
	var top *results.RowSize
	for _, t := range ts {
		for _, r := range t.Rows {
			if top == nil || r.Bytes > top.Bytes {
				top = &r
			}
		}
	}
	return top
}

// figures are what a verdict line compares: what decides tall or wide for
// the product listing, and the seed's flaws.
type figures struct {
	store       string  // the store table keeping the product listing
	hottest     float64 // its hottest region's share of its writes
	hasHottest  bool
	oneRow      float64 // that region's share one row took, when no split divides it; else 0
	scans, rows float64 // per product listing page
	cells       float64
	hasListing  bool
	perComment  float64 // bytes kept per comment
	hasBytes    bool
	biggest     *results.RowSize // nil, with sized, when no row holds more than one cell
	sized       bool             // the rows were measured at the run's end
	collided    int64            // comments hidden by colliding keys: verify's count where it ran
	hasCollided bool
	byVerify    bool
	staleRanks  int64
	hasStale    bool
	consistent  bool // verify's verdict, where it ran
	verified    bool
}

func figuresOf(r *Run) figures {
	s := r.Summary
	f := figures{store: s.StoreOf(results.ListingTable)}
	if t := tableSpread(s.Spread, f.store); t != nil && t.HottestWrites != nil {
		f.hottest, f.hasHottest = t.HottestWrites.Share, true
		if u := t.Unsplittable; u != nil {
			f.oneRow = u.Share
		}
	}
	if c, ok := listingCost(s); ok && c.Pages > 0 {
		f.scans, f.rows, f.cells, f.hasListing = c.ScansPerPage(), c.RowsPerPage(), c.CellsPerPage(), true
	}
	f.perComment, f.hasBytes = bytesPerComment(s.Storage)
	f.biggest, f.sized = biggestRow(s.BiggestRows), len(s.Storage) > 0 || len(s.BiggestRows) > 0
	if s.Flaws != nil {
		f.collided, f.hasCollided = s.Flaws.CollidedTotal, true
		f.staleRanks, f.hasStale = s.Flaws.StaleRanks, true
	}
	if v := r.Verify; v != nil {
		f.collided, f.hasCollided, f.byVerify = v.CollidedTotal(), true, true
		f.staleRanks, f.hasStale = v.Ranks.Stale.Count, true
		f.consistent, f.verified = v.Consistent, true
	}
	return f
}

// refFunc is the first run's figure in brackets, or nothing: on the first
// run's own line, or when the first run lacks the figure (has false).
type refFunc func(has bool, s string) string

// VerdictLine is one run's line for a design review, each figure with the
// first run's beside it: "salted: hottest product-comment region 12% of
// writes (seed 71%); 8 scans per listing page (seed 1); 0 lost to
// collisions (seed 412)". The first run's line has its own figures alone.
// Tall or wide for the listing is decided by the rest: where the listing
// is kept and the row no split divides, cells a page, bytes a comment, the
// biggest row, and whether verify found the listings' counts and copies
// consistent.
func VerdictLine(r, first *Run) string {
	f, b := figuresOf(r), figuresOf(first)
	ref := func(has bool, s string) string {
		if r == first || !has {
			return ""
		}
		return " (" + first.Label + " " + s + ")"
	}
	parts := slices.Concat(listingParts(f, b, ref), shapeParts(f, b, ref), flawParts(f, b, ref))
	if len(parts) == 0 {
		return r.Label + ": no listing, spread or flaw figures in this run"
	}
	return r.Label + ": " + strings.Join(parts, "; ")
}

// listingParts are where the product listing's writes land and what a
// page of it reads.
func listingParts(f, b figures, ref refFunc) []string {
	var parts []string
	if f.hasHottest {
		parts = append(parts, fmt.Sprintf("hottest %s region%s %s of writes%s%s", results.ListingTable, keptIn(f),
			pct(f.hottest), oneRow(f), ref(b.hasHottest, pct(b.hottest)+oneRow(b))))
	}
	if f.hasListing {
		parts = append(parts, fmt.Sprintf("%s %s per listing page%s", num(f.scans), plural(f.scans, "scan", "scans"),
			ref(b.hasListing, num(b.scans))))
		parts = append(parts, fmt.Sprintf("%s rows read per page%s", num(f.rows), ref(b.hasListing, num(b.rows))))
		parts = append(parts, fmt.Sprintf("%s cells read per page%s", num(f.cells), ref(b.hasListing, num(b.cells))))
	}
	return parts
}

// keptIn names the store table when the listing is kept in another's rows.
func keptIn(f figures) string {
	if f.store == results.ListingTable {
		return ""
	}
	return " (in " + f.store + ")"
}

// oneRow is the part of the hottest region's writes one row took, when no
// split divides that region.
func oneRow(f figures) string {
	if f.oneRow == 0 {
		return ""
	}
	return ", one row " + pct(f.oneRow)
}

// shapeParts are what keeping a comment costs, and how big a row grew:
// said where this run or the first has a wide row, as "no wide row" beside
// a tall one's line tells something and beside another tall one nothing.
func shapeParts(f, b figures, ref refFunc) []string {
	var parts []string
	if f.hasBytes {
		parts = append(parts, fmt.Sprintf("%s B per comment%s", num(f.perComment), ref(b.hasBytes, num(b.perComment))))
	}
	if f.sized && (f.biggest != nil || b.biggest != nil) {
		own := rowSize(f.biggest)
		if f.biggest != nil {
			own = "biggest row " + own
		}
		parts = append(parts, own+ref(b.sized, rowSize(b.biggest)))
	}
	return parts
}

func rowSize(r *results.RowSize) string {
	if r == nil {
		return "no wide row"
	}
	return fmt.Sprintf("%s cells, %s", thousands(r.Cells), byteSize(r.Bytes))
}

// flawParts are the seed's flaws as the run (or verify) counted them, and
// verify's verdict.
func flawParts(f, b figures, ref refFunc) []string {
	var parts []string
	if f.hasCollided {
		parts = append(parts, fmt.Sprintf("%s hidden by colliding keys%s", thousands(f.collided),
			ref(b.hasCollided, thousands(b.collided))))
	}
	if f.hasStale && (f.staleRanks > 0 || b.staleRanks > 0) {
		parts = append(parts, fmt.Sprintf("%s stale ranks%s", thousands(f.staleRanks), ref(b.hasStale, thousands(b.staleRanks))))
	}
	if f.verified {
		parts = append(parts, "verify "+consistency(f.consistent)+ref(b.verified, consistency(b.consistent)))
	}
	return parts
}

func consistency(ok bool) string {
	if ok {
		return "consistent"
	}
	return "inconsistent"
}

// shapeView is a run's figures of the verdict line that decide tall or
// wide, to the page's precision, for the comparison's Shapes table.
type shapeView struct {
	Run, Store, Hottest, OneRow, RowsPerPage, CellsPerPage, PerComment string
	Biggest, BiggestCells, BiggestBytes, Verify, VerifyClass           string
	BiggestClass                                                       string // "key" when Biggest names a row
}

func shapeOf(r *Run) shapeView {
	f := figuresOf(r)
	v := shapeView{Run: r.Label, Store: f.store, Hottest: shown(f.hasHottest, share(f.hottest)),
		OneRow: shown(f.oneRow > 0, share(f.oneRow)), RowsPerPage: shown(f.hasListing, fixed2(f.rows)),
		CellsPerPage: shown(f.hasListing, fixed2(f.cells)), PerComment: shown(f.hasBytes, num(f.perComment)),
		Biggest: shown(f.sized, rowSize(nil)), BiggestCells: "–", BiggestBytes: "–", Verify: "–"}
	if b := f.biggest; b != nil {
		v.Biggest, v.BiggestCells, v.BiggestBytes, v.BiggestClass = b.Row, thousands(b.Cells), thousands(b.Bytes), "key"
	}
	if f.verified {
		v.Verify, v.VerifyClass = consistency(f.consistent), map[bool]string{true: "met", false: "critical"}[f.consistent]
	}
	return v
}

// shown is s where the run has the figure, else a dash.
func shown(has bool, s string) string {
	if has {
		return s
	}
	return "–"
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
