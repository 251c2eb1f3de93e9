// Named scenarios, and the one-paragraph descriptions --help shows.

package workload

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"commentbench/faults"
	"commentbench/servermodel"
)

// presets build a fresh Scenario each call, so a caller that edits its
// Mix cannot change the preset for the next caller.
var presets = map[string]func() Scenario{
	"steady":          steadyPreset,
	"flash-sale":      flashSalePreset,
	"deep-pagination": deepPaginationPreset,
	"ci":              ciPreset,
	"trial":           trialPreset,
	"shapes":          shapesPreset,
	"consistency":     consistencyPreset,
}

// PresetNames lists the presets, sorted.
func PresetNames() []string { return slices.Sorted(maps.Keys(presets)) }

// Preset returns the named scenario.
func Preset(name string) (Scenario, error) {
	build, ok := presets[name]
	if !ok {
		return Scenario{}, fmt.Errorf("unknown scenario preset %q (want one of %s)", name, strings.Join(PresetNames(), ", "))
	}
	return build(), nil
}

// presetDefaults are the knobs no preset changes unless it has a reason to.
func presetDefaults() Scenario {
	return Scenario{
		Layout: "seed", Scan: "bounded", Ranks: "replace", Writes: "non-atomic", IDs: "random", Clock: "wall", Seed: 1,
		Arrival: "constant", Interval: Duration(time.Second), PageSize: 10,
		ServerModel: servermodel.Spec{Handlers: servermodel.DefaultHandlers, Cost: servermodel.DefaultSpecCost},
		Content:     ContentSpec{Korean: 0.5, MedianChars: 40, MaxChars: 1000},
		MultiOrder:  3,
		Popularity:  PopularitySpec{Exponent: 0.99},
	}
}

func steadyPreset() Scenario {
	s := presetDefaults()
	s.Name = "steady"
	s.Description = "Everyday traffic: mostly new comments and first-page listings, " +
		"some deeper paging and rank reads, the ranking job on a clock and a rare small burst."
	s.Users, s.Products, s.Sellers, s.Regions = 20_000, 2_000, 200, 8
	s.Duration, s.Warmup, s.Workers = presetSeconds(30), presetSeconds(3), 8
	s.MaxPages, s.RankEvery = 5, presetSeconds(5)
	// Everyday traffic meets a store that has comments: 50 a user fill
	// the timelines (5 pages of 10) a timeline walk reads.
	s.LoadPerUser = 50
	s.Burst = BurstSpec{Size: 4, EqualLength: 0.25}
	s.Mix = map[string]float64{"write": 35, "list": 35, "pager": 5, "timeline": 5,
		"ranked": 10, "editor": 3, "burst": 1}
	return s
}

func flashSalePreset() Scenario {
	s := presetDefaults()
	s.Name = "flash-sale"
	s.Description = "A flash sale: the product on sale takes 60% of the traffic, bursts of 16 comments " +
		"land in one millisecond every 200 ms (half of each with one byte length), " +
		"multi-product orders, and heavy first-page reads of the sale. Modeled region servers " +
		"(2 handlers, 50 us a row read or written) make its hot server felt: its listings queue."
	s.Users, s.Products, s.Sellers, s.Regions = 50_000, 1_000, 100, 8
	s.Duration, s.Warmup, s.Workers = presetSeconds(30), presetSeconds(2), 16
	s.Popularity = PopularitySpec{Exponent: 0.99, HotProducts: 1, HotShare: 0.6}
	s.ServerModel = servermodel.Spec{Capacity: 10_000, Handlers: 2, Cost: "row=50us,byte=0s"}
	s.Content = ContentSpec{Korean: 0.7, MedianChars: 20, MaxChars: 500}
	s.MaxPages, s.RankEvery = 3, presetSeconds(2)
	s.Burst = BurstSpec{Every: Duration(200 * time.Millisecond), Size: 16, EqualLength: 0.5}
	s.Mix = map[string]float64{"write": 20, "multi-order": 10, "list": 50, "ranked": 10,
		"pager": 3, "timeline": 2, "editor": 2}
	return s
}

func deepPaginationPreset() Scenario {
	s := presetDefaults()
	s.Name = "deep-pagination"
	s.Description = "Few products with many comments: a long write-heavy warm-up fills them, " +
		"then pagers walk product listings and user timelines to the end."
	s.Users, s.Products, s.Sellers, s.Regions = 2_000, 20, 5, 8
	s.Duration, s.Warmup, s.Workers = presetSeconds(30), presetSeconds(15), 8
	s.MaxPages, s.RankEvery = 0, presetSeconds(10)
	s.Burst = BurstSpec{Size: 4, EqualLength: 0.25}
	s.Mix = map[string]float64{"write": 35, "pager": 40, "timeline": 15, "list": 5, "ranked": 5}
	return s
}

func ciPreset() Scenario {
	s := presetDefaults()
	s.Name = "ci"
	s.Description = "Small, fast and deterministic: every actor on one worker for 3000 operations, " +
		"comments stamped by a logical clock (so only bursts and multi-product orders share a " +
		"millisecond, and a seed gives the same counts every time), bursts whose comments all share " +
		"one byte length (so the seed layout collides every burst), nothing on a clock."
	s.Users, s.Products, s.Sellers, s.Regions = 500, 50, 10, 4
	s.Duration, s.Ops, s.Workers, s.Clock = presetSeconds(60), 3000, 1, "logical"
	s.MaxPages = 5
	s.Burst = BurstSpec{Size: 4, EqualLength: 1}
	// latest reads only where the design keeps the site's latest comments:
	// elsewhere it is left out, and the other actors' picks are as they were.
	s.Mix = map[string]float64{"write": 30, "burst": 5, "multi-order": 5, "list": 15,
		"pager": 10, "timeline": 10, "ranker": 5, "ranked": 10, "editor": 10, "latest": 5}
	return s
}

// trialPreset puts the seed's design on trial: everything that shows its
// four flaws, in a run short enough to make twice (--system seed, then
// fixed) in make run.
func trialPreset() Scenario {
	s := presetDefaults()
	s.Name = "trial"
	s.Description = "The seed's design on trial, run with --system seed and --system fixed: bursts of " +
		"8 comments in one millisecond (half with one byte length) every 250 ms and multi-product orders " +
		"(colliding keys), listings paged (the seed's scans), a hot product with 30% of the picks " +
		"(its listing region), the ranking job every 2 s with a third of its rankings shorter " +
		"than the last (stale ranks)."
	s.Users, s.Products, s.Sellers, s.Regions = 20_000, 2_000, 200, 8
	s.Duration, s.Warmup, s.Workers = presetSeconds(20), presetSeconds(2), 8
	s.Popularity = PopularitySpec{Exponent: 0.99, HotProducts: 1, HotShare: 0.3}
	s.MaxPages, s.RankEvery, s.RankShrink = 3, presetSeconds(2), 0.33
	s.Burst = BurstSpec{Every: Duration(250 * time.Millisecond), Size: 8, EqualLength: 0.5}
	s.Mix = map[string]float64{"write": 30, "multi-order": 5, "list": 30, "pager": 10, "timeline": 5,
		"ranked": 10, "editor": 5, "burst": 5}
	return s
}

// shapesPreset is one workload for the three shapes of a listing the
// seeds describe: tall index rows (--layout unique), a wide row whose
// columns hold the index beside the comments (between) and time-ordered
// columns with one row for the whole site (feed). Run it once per design
// and compare the runs.
func shapesPreset() Scenario {
	s := presetDefaults()
	s.Name = "shapes"
	s.Description = "One workload for the three shapes of a listing, run once per design (--layout unique, " +
		"between, feed) and compared: one hot product with 80% of the picks, first pages and walks of " +
		"its listing, timelines, rankings, and the site's latest comments (on a design that keeps them)."
	s.Layout = "unique"
	s.Users, s.Products, s.Sellers, s.Regions = 5_000, 500, 50, 8
	s.Duration, s.Warmup, s.Workers = presetSeconds(20), presetSeconds(2), 8
	s.Popularity = PopularitySpec{Exponent: 0.99, HotProducts: 1, HotShare: 0.8}
	s.MaxPages, s.RankEvery = 3, presetSeconds(5)
	s.Mix = map[string]float64{"write": 40, "list": 25, "pager": 10, "timeline": 5, "ranked": 5, "latest": 15}
	return s
}

// consistencyPreset is one workload, with one hot product and 1% of
// each kind of failure, for the four ways a comment write keeps its
// listing entries in step: run once per --writes (non-atomic, verified
// and transactional on the tall design, one-row on between, whose product
// listing shares the comment's row) and compare what each left and paid.
func consistencyPreset() Scenario {
	s := presetDefaults()
	s.Name = "consistency"
	s.Description = "One workload for the four --writes strategies, run once each (one-row with --layout between) and " +
		"compared: one hot product with half the picks, comments, edits, listings and timelines walked, and 1% of the " +
		"comment writes' requests failing, 1% losing their replies and 1% of their writers stopping partway."
	s.Layout = "unique"
	s.Users, s.Products, s.Sellers, s.Regions = 5_000, 500, 50, 8
	s.Duration, s.Warmup, s.Workers = presetSeconds(20), presetSeconds(2), 8
	s.Popularity = PopularitySpec{Exponent: 0.99, HotProducts: 1, HotShare: 0.5}
	s.MaxPages, s.RankEvery = 3, presetSeconds(5)
	s.Faults = faults.Spec{FailWrites: 0.01, LoseReplies: 0.01, Abandon: 0.01}
	s.Mix = map[string]float64{"write": 50, "list": 20, "pager": 10, "timeline": 10, "editor": 5, "ranked": 5}
	return s
}

func presetSeconds(n int) Duration { return Duration(time.Duration(n) * time.Second) }

// Describe is one paragraph for --help and the README: the description,
// then the knobs that shape the run.
func (s Scenario) Describe() string {
	parts := []string{s.Name + ": " + s.Description, s.runPart(), s.dataPart(), s.mixPart()}
	return strings.Join(slices.DeleteFunc(parts, func(p string) bool { return p == "" }), " ")
}

func (s Scenario) runPart() string {
	var b strings.Builder
	switch {
	case s.Duration > 0 && s.Ops > 0:
		fmt.Fprintf(&b, "Runs %d operations (at most %v)", s.Ops, s.Duration)
	case s.Ops > 0:
		fmt.Fprintf(&b, "Runs %d operations", s.Ops)
	default:
		fmt.Fprintf(&b, "Runs %v", s.Duration)
	}
	if s.LoadPerUser > 0 {
		fmt.Fprintf(&b, " on a store loaded first with %d comments (%d a user)", int64(s.Users)*int64(s.LoadPerUser), s.LoadPerUser)
	}
	if s.Warmup > 0 {
		fmt.Fprintf(&b, " after a %v warm-up", s.Warmup)
	}
	switch {
	case s.Ramp != "":
		fmt.Fprintf(&b, ", open loop ramping %s (%s arrivals)", s.Ramp, s.Arrival)
	case s.Rate > 0:
		fmt.Fprintf(&b, ", open loop at %v ops/s (%s arrivals)", s.Rate, s.Arrival)
	default:
		b.WriteString(", closed loop")
	}
	fmt.Fprintf(&b, ", on %d workers, layout %s, %s scans, writes %s.", s.Workers, s.Layout, s.Scan, cmpOr(s.Writes, "non-atomic"))
	if f := s.Faults; f.Any() {
		fmt.Fprintf(&b, " Injected: %g of requests fail, %g lose their replies, %g of writers stop partway.", f.FailWrites, f.LoseReplies, f.Abandon)
	}
	return b.String()
}

func (s Scenario) dataPart() string {
	p := s.Popularity
	hot := ""
	if p.HotProducts > 0 {
		hot = fmt.Sprintf(" (%d hot products take %.0f%%)", p.HotProducts, 100*p.HotShare)
		if p.HotProducts == 1 {
			hot = fmt.Sprintf(" (one hot product takes %.0f%%)", 100*p.HotShare)
		}
	}
	return fmt.Sprintf("Seeds %d users, %d products and %d sellers in %d regions per table; "+
		"products are picked by Zipf %v%s.", s.Users, s.Products, s.Sellers, s.Regions, p.Exponent, hot)
}

func (s Scenario) mixPart() string {
	var ws []string
	for _, name := range ActorNames {
		if w := s.Mix[name]; w > 0 {
			ws = append(ws, fmt.Sprintf("%s %v", name, w))
		}
	}
	out := "Mix: " + strings.Join(ws, ", ") + "."
	if s.RankEvery > 0 {
		out += fmt.Sprintf(" Ranker every %v.", s.RankEvery)
	}
	if s.Burst.Every > 0 {
		out += fmt.Sprintf(" Bursts of %d every %v.", s.Burst.Size, s.Burst.Every)
	}
	if m := s.ServerModel; m.On() {
		out += fmt.Sprintf(" Modeled servers (embedded): %v requests/s at the base cost, %d handlers, %s.", m.Capacity, m.Handlers, m.Cost)
	}
	return out
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
