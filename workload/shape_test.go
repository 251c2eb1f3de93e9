package workload

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// Comment lengths are log-normal around the median with a sigma of 1: half
// fall at or below the median, about 84% within e times it, about 16% under
// median/e.
func TestContentCharsLogNormal(t *testing.T) {
	c := ContentSpec{MedianChars: 100, MaxChars: 100_000}
	r := rand.New(rand.NewPCG(9, 9))
	const n = 40_000
	var atMedian, underE, underInvE int
	for range n {
		k := c.Chars(r)
		if k <= 100 {
			atMedian++
		}
		if float64(k) <= 100*math.E {
			underE++
		}
		if float64(k) <= 100/math.E {
			underInvE++
		}
	}
	for _, q := range []struct {
		name      string
		got, want float64
	}{{"median", float64(atMedian) / n, 0.5}, {"e·median", float64(underE) / n, 0.8413}, {"median/e", float64(underInvE) / n, 0.1587}} {
		if math.Abs(q.got-q.want) > 0.015 {
			t.Errorf("share at or under %s: %.3f, want %.3f", q.name, q.got, q.want)
		}
	}
}

// Content of a given byte length reads as words: no leading, trailing or
// doubled space; where no word fits, Hangul syllables while three bytes
// remain, then ASCII letters.
func TestContentOfBytesShape(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for range 20 {
		for n := 1; n <= 120; n++ {
			s := ContentOfBytes(r, n)
			if len(s) != n || strings.HasPrefix(s, " ") || strings.HasSuffix(s, " ") || strings.Contains(s, "  ") {
				t.Fatalf("ContentOfBytes(%d) = %q", n, s)
			}
		}
	}
	for n, want := range map[int][2]int{0: {0, 0}, 1: {0, 1}, 2: {0, 2}, 3: {1, 0}, 5: {1, 2}, 7: {2, 1}, 9: {3, 0}} {
		s := fillerBytes(r, n)
		hangul, ascii := 0, 0
		for _, ch := range s {
			switch {
			case ch >= '가' && ch <= '힣':
				hangul++
			case ch >= 'a' && ch <= 'z':
				ascii++
			default:
				t.Errorf("fillerBytes(%d) = %q holds %q", n, s, ch)
			}
		}
		if len(s) != n || hangul != want[0] || ascii != want[1] || !utf8.ValidString(s) {
			t.Errorf("fillerBytes(%d) = %q: %d Hangul, %d ASCII; want %v", n, s, hangul, ascii, want)
		}
		if n >= 3 && !strings.HasPrefix(s, string([]rune(s)[0])) {
			t.Errorf("fillerBytes(%d) = %q does not start with Hangul", n, s)
		}
	}
}

// Zipf shares follow 1/rank^s exactly; with a hot set the rest share what
// the hot set leaves, uniformly at exponent 0.
func TestPopularityShares(t *testing.T) {
	h4 := 1 + 1.0/2 + 1.0/3 + 1.0/4
	cases := []struct {
		n        int
		exponent float64
		hotK     int
		hotShare float64
		want     []float64
	}{
		{4, 1, 0, 0, []float64{1 / h4, 0.5 / h4, 1.0 / 3 / h4, 0.25 / h4}},
		{4, 2, 0, 0, []float64{1 / 1.4236111111, 0.25 / 1.4236111111, 1.0 / 9 / 1.4236111111, 1.0 / 16 / 1.4236111111}},
		{5, 0, 1, 0.6, []float64{0.6, 0.1, 0.1, 0.1, 0.1}},
		{6, 0, 2, 0.5, []float64{0.25, 0.25, 0.125, 0.125, 0.125, 0.125}},
		{4, 0, 0, 0, []float64{0.25, 0.25, 0.25, 0.25}},
	}
	for _, c := range cases {
		p, err := NewPopularity(c.n, c.exponent, c.hotK, c.hotShare)
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range c.want {
			if got := p.Share(i); math.Abs(got-want) > 1e-9 {
				t.Errorf("n %d exponent %v hot %d@%v: Share(%d) = %v, want %v", c.n, c.exponent, c.hotK, c.hotShare, i, got, want)
			}
		}
		if p.Share(-1) != 0 || p.Share(c.n) != 0 {
			t.Errorf("shares outside [0,n): %v, %v", p.Share(-1), p.Share(c.n))
		}
		// Picks fall in [0,n), each about as often as its share says.
		r := rand.New(rand.NewPCG(uint64(c.n), 3))
		counts := make([]int, c.n)
		const draws = 40_000
		for range draws {
			i := p.Pick(r)
			if i < 0 || i >= c.n {
				t.Fatalf("Pick = %d outside [0,%d)", i, c.n)
			}
			counts[i]++
		}
		for i, want := range c.want {
			if got := float64(counts[i]) / draws; math.Abs(got-want) > 0.015 {
				t.Errorf("n %d exponent %v hot %d@%v: item %d picked %.3f of the time, share %.3f", c.n, c.exponent, c.hotK, c.hotShare, i, got, want)
			}
		}
	}
}

// Describe says what a scenario runs, in words.
func TestDescribe(t *testing.T) {
	base := Scenario{Name: "x", Description: "A test.", Duration: Duration(30 * time.Second), Workers: 4,
		Layout: "unique", Scan: "bounded", Users: 10, Products: 5, Sellers: 2, Regions: 3,
		Mix: map[string]float64{"write": 2, "list": 1, "pager": 0}}
	cases := []struct {
		edit func(*Scenario)
		want string
	}{
		{func(*Scenario) {}, "x: A test. Runs 30s, closed loop, on 4 workers, layout unique, bounded scans, writes non-atomic. " +
			"Seeds 10 users, 5 products and 2 sellers in 3 regions per table; products are picked by Zipf 0. " +
			"Mix: write 2, list 1."},
		{func(s *Scenario) { s.Ops, s.Warmup = 500, Duration(2*time.Second) },
			"x: A test. Runs 500 operations (at most 30s) after a 2s warm-up, closed loop,"},
		{func(s *Scenario) { s.Ops, s.Duration = 500, 0 }, "x: A test. Runs 500 operations, closed loop,"},
		{func(s *Scenario) { s.LoadPerUser, s.Warmup = 50, Duration(3*time.Second) },
			"x: A test. Runs 30s on a store loaded first with 500 comments (50 a user) after a 3s warm-up, closed loop,"},
		{func(s *Scenario) { s.Rate, s.Arrival = 200, "poisson" }, "Runs 30s, open loop at 200 ops/s (poisson arrivals),"},
		{func(s *Scenario) { s.Rate, s.Ramp, s.Arrival = 200, "1:2:1/1s", "constant" }, "Runs 30s, open loop ramping 1:2:1/1s (constant arrivals),"},
		{func(s *Scenario) { s.Popularity = PopularitySpec{Exponent: 0.99, HotProducts: 2, HotShare: 0.3} },
			"products are picked by Zipf 0.99 (2 hot products take 30%). Mix:"},
		{func(s *Scenario) {
			s.RankEvery, s.Burst = Duration(5*time.Second), BurstSpec{Every: Duration(200 * time.Millisecond), Size: 16}
		}, "Mix: write 2, list 1. Ranker every 5s. Bursts of 16 every 200ms."},
	}
	for _, c := range cases {
		s := base
		c.edit(&s)
		if got := s.Describe(); !strings.Contains(got, c.want) {
			t.Errorf("Describe() = %q\nwant it to contain %q", got, c.want)
		}
	}
	if got := base.Describe(); strings.Contains(got, "warm-up") || strings.Contains(got, "hot") ||
		strings.Contains(got, "Ranker") || strings.Contains(got, "Bursts") || strings.Contains(got, "pager") {
		t.Errorf("Describe() of a plain scenario says too much: %q", got)
	}
}

// The presets' bursts come at the rate they say.
func TestPresetBursts(t *testing.T) {
	for name, every := range map[string]time.Duration{"flash-sale": 200 * time.Millisecond, "trial": 250 * time.Millisecond,
		"ci": 0, "deep-pagination": 0} {
		s, err := Preset(name)
		if err != nil || time.Duration(s.Burst.Every) != every {
			t.Errorf("%s: bursts every %v, %v; want %v", name, time.Duration(s.Burst.Every), err, every)
		}
	}
}

// Seconds as a plain number convert to a duration as long as nanoseconds
// hold them; beyond that they are refused, never wrapped around.
func TestParseDurationSeconds(t *testing.T) {
	for in, want := range map[string]time.Duration{"90": 90 * time.Second, "0.5": 500 * time.Millisecond, "1m30s": 90 * time.Second,
		"-2": -2 * time.Second, "9223372036": 9223372036 * time.Second} {
		if d, err := ParseDuration(in); err != nil || time.Duration(d) != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", in, time.Duration(d), err, want)
		}
	}
	// 9223372036.854775807 s is the largest int64 of nanoseconds: its
	// conversion overflows (to -292 years), so it is refused too.
	for _, in := range []string{"1e12", "9223372037", "-9223372037", "9223372036.854775807", "NaN", "soon"} {
		if d, err := ParseDuration(in); err == nil {
			t.Errorf("ParseDuration(%q) = %v, want an error", in, time.Duration(d))
		}
	}
}

// Each check's bounds are inclusive: the edge is valid, one past it names
// the field.
func TestValidateBounds(t *testing.T) {
	valid := func() Scenario {
		s, err := Preset("steady")
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	cases := []struct {
		edit func(*Scenario)
		want string // "" for valid
	}{
		{func(s *Scenario) { s.Users = 1 }, ""},
		{func(s *Scenario) { s.Users = 0 }, "users: 0 is out of range (want 1 to"},
		{func(s *Scenario) { s.Users, s.LoadPerUser = MaxPopulation, 0 }, ""},
		{func(s *Scenario) { s.Users, s.LoadPerUser = MaxPopulation, 10 }, ""}, // MaxLoad exactly
		{func(s *Scenario) { s.Users, s.LoadPerUser = MaxPopulation, 11 }, "load_per_user: 11 comments for each of 10000000 users is 110000000, over 100000000"},
		{func(s *Scenario) { s.Users = MaxPopulation + 1 }, "users:"},
		{func(s *Scenario) { s.System = "" }, ""},
		{func(s *Scenario) { s.System = "fixed" }, ""},
		{func(s *Scenario) { s.System = "nope" }, `system: "nope" (want seed or fixed)`},
		{func(s *Scenario) { s.Clock = "logical" }, ""},
		{func(s *Scenario) { s.Clock = "sundial" }, `clock: "sundial"`},
		{func(s *Scenario) { s.Ranks = "replace" }, ""},
		{func(s *Scenario) { s.Ranks = "" }, `ranks: ""`},
		{func(s *Scenario) { s.Arrival = "poisson" }, ""},
		{func(s *Scenario) { s.Arrival = "bursty" }, `arrival: "bursty"`},
		{func(s *Scenario) { s.Ramp = "1:2:1/1s" }, ""},
		{func(s *Scenario) { s.Ramp = "up" }, "ramp: --ramp"},
		{func(s *Scenario) { s.Mix["multi-order"], s.MultiOrder, s.Products = 1, 3, 3 }, ""},
		{func(s *Scenario) { s.Mix["multi-order"], s.MultiOrder, s.Products = 1, 4, 3 }, "multi_order: 4 is more than products 3"},
		{func(s *Scenario) { s.Mix["multi-order"], s.MultiOrder, s.Products = 0, 4, 3 }, ""},
		{func(s *Scenario) { s.Ops = 0 }, ""},
		{func(s *Scenario) { s.Ops = -1 }, "ops: -1 is out of range"},
		{func(s *Scenario) { s.Duration, s.Ops = 0, 1 }, ""},
		{func(s *Scenario) { s.Rate = 0 }, ""},
		{func(s *Scenario) { s.Rate = -1 }, "rate: -1 is out of range"},
		{func(s *Scenario) { s.Rate = math.Inf(1) }, "rate: +Inf is out of range"},
		{func(s *Scenario) { s.Warmup = 0 }, ""},
		{func(s *Scenario) { s.Warmup = -1 }, "warmup:"},
		{func(s *Scenario) { s.Interval = Duration(MinInterval) }, ""},
		{func(s *Scenario) { s.Interval = Duration(MinInterval) - 1 }, "interval:"},
		{func(s *Scenario) { s.RankShrink = 1 }, ""},
		{func(s *Scenario) { s.RankShrink = 1.01 }, "rank_shrink: 1.01 is out of range (want 0 to 1)"},
		{func(s *Scenario) { s.Popularity.HotProducts, s.Popularity.HotShare = s.Products, 1 }, ""},
		{func(s *Scenario) { s.Popularity.HotProducts, s.Popularity.HotShare = s.Products, 0.9 }, "with every product hot (want 1)"},
		{func(s *Scenario) { s.Popularity.HotProducts, s.Popularity.HotShare = 3, 0 }, "popularity.hot_share: 0 with hot_products 3"},
		{func(s *Scenario) { s.Popularity.HotProducts, s.Popularity.HotShare = 0, 0.5 }, "popularity.hot_share: 0.5 with hot_products 0"},
		{func(s *Scenario) { s.Popularity.HotUsers, s.Popularity.HotUserShare = 3, 0 }, "popularity.hot_user_share: 0 with hot_users 3"},
		{func(s *Scenario) { s.Popularity.HotUsers, s.Popularity.HotUserShare = 3, 0.2 }, ""},
		{func(s *Scenario) { s.Burst = BurstSpec{Size: 1}; s.Mix["burst"] = 0 }, ""},
		{func(s *Scenario) { s.Burst = BurstSpec{Size: 1, Every: Duration(time.Second)}; s.Mix["burst"] = 0 }, "burst.size: 1 is out of range (want 2 to"},
		{func(s *Scenario) { s.Burst = BurstSpec{Size: 2, Every: Duration(time.Second)} }, ""},
		{func(s *Scenario) { s.Burst = BurstSpec{Size: 1}; s.Mix["burst"] = 1 }, "burst.size: 1"},
		{func(s *Scenario) { s.Mix["write"] = -1 }, "mix.write: -1 is out of range"},
		{func(s *Scenario) { s.Mix = map[string]float64{"write": 0, "list": 0} }, "mix: no actor has a weight above 0"},
		{func(s *Scenario) { s.Mix = map[string]float64{"list": 0.001} }, ""},
		{func(s *Scenario) { s.Mix["dance"] = 1 }, `mix: unknown actor "dance"`},
	}
	for i, c := range cases {
		s := valid()
		c.edit(&s)
		err := s.Validate()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("case %d: %v", i, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("case %d: %v, want %q", i, err, c.want)
		}
	}
}

// A file's system applies first: the layout, scan or ranks it also names
// win over the system's.
func TestLoadScenarioSystemThenFields(t *testing.T) {
	for src, want := range map[string][3]string{
		"system: seed\n":                   {"seed", "seed", "upsert"},
		"system: seed\nlayout: unique\n":   {"unique", "seed", "upsert"},
		"layout: salted\nsystem: fixed\n":  {"salted", "bounded", "replace"},
		"system: fixed\nranks: upsert\n":   {"unique", "bounded", "upsert"},
		"layout: hashed\nscan: seed\n":     {"hashed", "seed", "replace"},
		"system: [seed]\nlayout: unique\n": {},
	} {
		s, err := LoadScenario(writeScenarioFile(t, "s.yaml", src))
		if want == ([3]string{}) {
			if err == nil {
				t.Errorf("%q: no error", src)
			}
			continue
		}
		if err != nil || [3]string{s.Layout, s.Scan, s.Ranks} != want {
			t.Errorf("%q: layout %s, scan %s, ranks %s, %v; want %v", src, s.Layout, s.Scan, s.Ranks, err, want)
		}
	}
}
