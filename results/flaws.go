package results

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"commentbench/spread"
)

// Flaws puts one figure on each of the four things SCHEMA.md says the
// seed's design gets wrong, as the run saw them. verify, run afterwards,
// confirms the two it can count in the data (collided comments and stale
// ranks) and writes its own figures beside the run (verify.json).
type Flaws struct {
	// Collided counts index rows put over another comment's row, by index
	// table: each hides the earlier comment from that listing.
	Collided map[string]int64 `json:"collided"`
	// CollidedTotal is the comments so hidden from at least one listing,
	// each once (one hidden from both listings has a row in each).
	CollidedTotal int64 `json:"collided_total"`
	// ShortListings is the pagers' "missing": comments acknowledged but not
	// listed, summed over walks. A lower bound of the loss, named for what
	// it measures.
	ShortListings int64 `json:"short_listings"`
	// RowsPerPage is what a product listing page (first or next) read, mean
	// and max: the seed's scans read from the table's start.
	RowsPerPage    float64 `json:"rows_per_page"`
	MaxRowsPerPage int64   `json:"max_rows_per_page"`
	// HottestListingRegion is the product-comment region that took the most
	// of its writes, and the share.
	HottestListingRegion *spread.RegionShare `json:"hottest_listing_region,omitempty"`
	// StaleRanks are rank rows outliving their ranking.
	StaleRanks int64 `json:"stale_ranks"`
}

// ListingOps are the ops whose pages make RowsPerPage: product listings.
var ListingOps = []string{"product-latest", "product-page"}

// ListingTable is the product listing's index table.
const ListingTable = "product-comment"

// FillFlaws computes the figures a summary holds (rows per page, the
// hottest listing region); the collided rows by table, the comments they
// hid and the stale ranks are the caller's counts.
func (s *Summary) FillFlaws(collided map[string]int64, collidedComments, staleRanks int64) {
	f := &Flaws{Collided: collided, CollidedTotal: collidedComments, StaleRanks: staleRanks}
	if f.Collided == nil {
		f.Collided = map[string]int64{}
	}
	if v := s.Violations["missing"]; v != nil {
		f.ShortListings = v.Count
	}
	var c Cost
	for _, o := range s.Ops {
		if o.Listing != nil && slices.Contains(ListingOps, o.Op) {
			c.add(o.Listing.Cost)
		}
	}
	f.RowsPerPage, f.MaxRowsPerPage = c.RowsPerPage(), c.MaxRows
	for _, t := range s.Spread {
		if t.Table == s.StoreOf(ListingTable) {
			f.HottestListingRegion = t.HottestWrites
		}
	}
	s.Flaws = f
}

// mergeFlaws adds the runs' counts and recomputes the rest from the merged
// summary.
func mergeFlaws(out *Summary, sums []Summary) {
	collided := map[string]int64{}
	var comments, stale int64
	any := false
	for _, s := range sums {
		if s.Flaws == nil {
			continue
		}
		any = true
		for t, n := range s.Flaws.Collided {
			collided[t] += n
		}
		// Processes write comments of their own: none is hidden twice.
		comments, stale = comments+s.Flaws.CollidedTotal, stale+s.Flaws.StaleRanks
	}
	if any {
		out.FillFlaws(collided, comments, stale)
	}
}

// printFlaws prints the seed's four flaws as the run saw them, under a
// title that names the system that ran: its design, scans and ranks.
func printFlaws(b *strings.Builder, f *Flaws, system string) {
	if f == nil {
		return
	}
	line(b, "the seed's flaws in this run (%s):", system)
	var per []string
	for _, t := range slices.Sorted(maps.Keys(f.Collided)) {
		per = append(per, fmt.Sprintf("%s %d", t, f.Collided[t]))
	}
	line(b, "  comments hidden by colliding keys %d", f.CollidedTotal)
	if len(per) > 0 {
		line(b, "    index rows put over, by listing: %s", strings.Join(per, ", "))
	}
	line(b, "  listings that came back short     %d comments, summed over walks", f.ShortListings)
	line(b, "  rows read per listing page        %.1f mean, %d max", f.RowsPerPage, f.MaxRowsPerPage)
	if h := f.HottestListingRegion; h != nil {
		head := fmt.Sprintf("  hottest product-listing region    %.0f%% of its writes, ", 100*h.Share)
		line(b, "%s%s", head, spread.ShortRange(ListingTable, h.Range, 80-len(head)))
	}
	line(b, "  stale rank rows                   %d", f.StaleRanks)
}
