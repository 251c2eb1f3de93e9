package results

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"commentbench/spread"
)

func printed(t *testing.T, s Summary) string {
	t.Helper()
	var b strings.Builder
	if err := PrintSummary(&b, s); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// The header says what ran, for how long and from when, and how many runs a
// merged summary holds; a run with no actions prints no action table.
func TestConsoleHeader(t *testing.T) {
	s := Summary{Tool: "commentbench loadgen", DurationSec: 20.0534, Start: time.Date(2026, 11, 23, 20, 8, 0, 0, time.UTC)}
	out := printed(t, s)
	if first := strings.SplitN(out, "\n", 2)[0]; first != "commentbench loadgen: 20.053s from 2026-11-23 20:08:00" {
		t.Errorf("header %q", first)
	}
	if strings.Contains(out, "action ") {
		t.Errorf("an action table with no actions:\n%s", out)
	}
	s.Merged = []string{"a", "b"}
	if first := strings.SplitN(printed(t, s), "\n", 2)[0]; !strings.HasSuffix(first, ", 2 runs merged") {
		t.Errorf("merged header %q", first)
	}
}

// Rates print with one decimal below 100 000 a second, compact from there.
func TestConsoleRate(t *testing.T) {
	for r, want := range map[float64]string{0: "0.0", 99999.94: "99999.9", 1e5: "100000", 123456789: "123.5M"} {
		if got := rate(r); got != want {
			t.Errorf("rate(%v) = %q, want %q", r, got, want)
		}
	}
}

// Tables with traffic show where their writes went, the all-tables line
// does not (its writes are every table's); tables with none are named
// once, and only when there are some.
func TestConsoleSpreadLines(t *testing.T) {
	w := &spread.RegionShare{Range: `["G", "N")`, Share: 0.4}
	s := Summary{Spread: []spread.TableSpread{
		{Table: "product-comment", Regions: 8, Requests: 100, Writes: 50, HottestWrites: w},
		{Table: spread.AllTables, Regions: 16, Requests: 150, Writes: 50, HottestWrites: w},
	}}
	out := printed(t, s)
	if n := strings.Count(out, "  writes: 40% of 50 in one region, [\"G\", \"N\")"); n != 1 {
		t.Errorf("%d writes lines, want product-comment's only:\n%s", n, out)
	}
	if strings.Contains(out, "idle") {
		t.Errorf("an idle line with no idle table:\n%s", out)
	}
	s.Spread = append(s.Spread, spread.TableSpread{Table: "seller", Regions: 8}, spread.TableSpread{Table: "user", Regions: 8})
	if out := printed(t, s); !strings.Contains(out, "\nidle (no requests): seller, user\n") {
		t.Errorf("idle tables not named:\n%s", out)
	}
}

// The flaws block names the system that ran, and the listings that lost
// comments only when some did.
func TestConsoleFlawsByListing(t *testing.T) {
	var b strings.Builder
	s := Summary{Config: json.RawMessage(`{"scenario":{"layout":"seed","scan":"bounded","ranks":"replace"}}`)}
	printFlaws(&b, &Flaws{}, s.system())
	if strings.Contains(b.String(), "by listing") ||
		!strings.HasPrefix(b.String(), "the seed's flaws in this run (design seed, bounded scans, ranks replace):\n") {
		t.Errorf("flaws with no collisions:\n%s", b.String())
	}
	b.Reset()
	printFlaws(&b, &Flaws{CollidedTotal: 3, Collided: map[string]int64{"user-comment": 1, "product-comment": 2}}, "")
	if !strings.Contains(b.String(), "\n    index rows put over, by listing: product-comment 2, user-comment 1\n") {
		t.Errorf("by-listing line:\n%s", b.String())
	}
}

// A page that reads more than one row past its size per scan has left its
// range: the page and the row that tells there is a next one are its due.
func TestJudgeScanBound(t *testing.T) {
	for rows, want := range map[float64]bool{10: false, 11: false, 11.5: true, 420: true} {
		s := Summary{Ops: []OpSummary{{Op: "product-page", Listing: &ListingCost{ScansPerPage: 1, RowsPerPage: rows}}}}
		s.Judge(10)
		got := false
		for _, f := range s.Verdict {
			got = got || f.Kind == "scan"
		}
		if got != want {
			t.Errorf("%v rows per page of 10: scan finding %v, want %v (%+v)", rows, got, want, s.Verdict)
		}
	}
}

// A table is a hotspot when one of its several regions took half its
// writes or more, and twice its fair share (over each interval's regions
// when the summary has it, else over all of them); the cure is salting for
// a listing, hashing otherwise.
func TestJudgeHotspots(t *testing.T) {
	hot := func(table string, regions int, share float64) spread.TableSpread {
		return spread.TableSpread{Table: table, Regions: regions, Requests: 10, Writes: 10,
			HottestWrites: &spread.RegionShare{Range: "[start, end)", Share: share}}
	}
	fair := func(t spread.TableSpread, f float64) spread.TableSpread {
		t.HottestWrites.Fair = f
		return t
	}
	for _, c := range []struct {
		t    spread.TableSpread
		cure string
	}{
		{hot("product-comment", 8, 0.5), "--layout salted"},
		{hot("user-comment", 8, 0.7), "--layout salted"},
		{hot("order", 8, 0.5), "--layout hashed"},
		{hot("order", 8, 0.49), "--layout hashed"},
		{hot("order", 8, 0.25), "--layout hashed"},
		{hot("order", 8, 0.24), ""},
		{hot("order", 1, 1), ""},
		{hot("order", 2, 0.6), ""}, // 1.2 times its fair share: even enough
		{hot("order", 4, 0.5), "--layout hashed"},
		{hot(spread.AllTables, 8, 0.9), ""},
		// Four regions at the end, but two for most of the run: 0.55 is
		// 1.2 times what an even spread over each interval's regions gave.
		{fair(hot("order", 4, 0.55), 0.45), ""},
		{fair(hot("order", 4, 0.55), 0.275), "--layout hashed"},
		{fair(hot("order", 2, 0.9), 0.5), ""},
		{fair(hot("order", 2, 0.9), 0.45), "--layout hashed"},
	} {
		s := Summary{Spread: []spread.TableSpread{c.t}}
		s.Judge(10)
		var got string
		for _, f := range s.Verdict {
			if f.Kind == "cure" {
				got = f.Message
			}
		}
		if got != c.cure {
			t.Errorf("%s, %d regions, %v of writes in one: cure %q, want %q", c.t.Table, c.t.Regions, c.t.HottestWrites.Share, got, c.cure)
		}
	}
}

// More hot tables than the verdict gives a line each share one line, every
// one named, hottest first, with the cures of all.
func TestJudgeManyHotspots(t *testing.T) {
	var ts []spread.TableSpread
	for i, name := range []string{"comment", "order", "user-comment", "product-comment", "user"} {
		ts = append(ts, spread.TableSpread{Table: name, Regions: 4, HottestWrites: &spread.RegionShare{Range: "[start, end)", Share: 1 - float64(i)/10}})
	}
	s := Summary{Spread: ts}
	s.Judge(10)
	if len(s.Verdict) != 2 || s.Verdict[0].Message != "5 tables send their writes to one region: comment 100%, order 90%, user-comment 80%, product-comment 70%, user 60%" ||
		s.Verdict[1].Message != "--layout hashed · --layout salted" {
		t.Errorf("verdict %+v", s.Verdict)
	}
}

// Stale rank rows are a warning whose cure is replacing rankings.
func TestJudgeStale(t *testing.T) {
	s := Summary{Flaws: &Flaws{StaleRanks: 75}}
	s.Judge(10)
	if len(s.Verdict) != 2 || s.Verdict[0].Severity != Warning || s.Verdict[0].Figure != 75 ||
		!strings.HasPrefix(s.Verdict[0].Message, "75 stale rank rows") || s.Verdict[1].Message != "--ranks replace" {
		t.Errorf("verdict %+v", s.Verdict)
	}
}

// A run that fell behind says by how much.
func TestJudgeBehind(t *testing.T) {
	s := Summary{Pacing: Pacing{FellBehind: true, LateShare: 0.25, Unstarted: 7}}
	s.Judge(10)
	if len(s.Verdict) != 2 || s.Verdict[0].Message != "the run fell behind: 25% of arrivals late, 7 never started" ||
		s.Verdict[0].Figure != 0.25 || s.Verdict[1].Message != "a lower --rate" {
		t.Errorf("verdict %+v", s.Verdict)
	}
}

// Words wrap at the width, never past it, a word longer than a line on a
// line of its own.
func TestWrapWords(t *testing.T) {
	for _, c := range []struct {
		text        string
		first, rest int
		want        []string
	}{
		{"aaa bbb ccc", 7, 7, []string{"aaa bbb", "ccc"}},
		{"aaa bbb ccc", 6, 7, []string{"aaa", "bbb ccc"}},
		{"aaa bbb ccc", 11, 3, []string{"aaa bbb ccc"}},
		{"aaa bbb ccc", 10, 3, []string{"aaa bbb", "ccc"}},
		{"한국어 글 ccc", 5, 3, []string{"한국어 글", "ccc"}},
		{"averylongword x", 4, 4, []string{"averylongword", "x"}},
		{"", 5, 5, []string{""}},
	} {
		if got := wrapWords(c.text, c.first, c.rest); strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("wrapWords(%q, %d, %d) = %q, want %q", c.text, c.first, c.rest, got, c.want)
		}
	}
}

// A verdict line fills the console's width: the word, then as many words
// of the message as fit in 80 columns; the rest indented under the message,
// within 79.
func TestVerdictFillsTheWidth(t *testing.T) {
	words := func(n int) string { return strings.TrimSpace(strings.Repeat("word ", n)) }
	var b strings.Builder
	printVerdict(&b, []Finding{{Severity: Critical, Message: words(40)}, {Severity: Hint, Message: words(40)}}, Painter{})
	want := []string{"verdict:",
		"  CRITICAL " + words(14), // 80 columns
		"           " + words(13), // 75: a 14th word would make 80
		"           " + words(13),
		"  TRY " + words(15), // 80
		"      " + words(14), // 75
		"      " + words(11),
	}
	if got := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("verdict\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// The pacing line names the loop, the open loop's rate or ramp, and a run
// that fell behind.
func TestConsolePacing(t *testing.T) {
	for _, c := range []struct {
		p    Pacing
		want string
	}{
		{Pacing{}, "pacing - loop\n"},
		{Pacing{Mode: "closed"}, "pacing closed loop\n"},
		{Pacing{Mode: "open", Rate: 250, Arrivals: 10, Late: 2}, "pacing open loop at 250.0/s: 10 arrivals, 2 late, 0 unstarted\n"},
		{Pacing{Mode: "open", Ramp: "1:2:1/1s", Arrivals: 10}, "pacing open loop ramp 1:2:1/1s: 10 arrivals, 0 late, 0 unstarted\n"},
		{Pacing{Mode: "open", Rate: 250, Arrivals: 10, WarmupDropped: 1234}, "pacing open loop at 250.0/s: 10 arrivals, 0 late, 0 unstarted\n" +
			"  1234 warm-up arrivals never started, dropped when the steady phase began\n"},
		{Pacing{Mode: "open", Rate: 5, Arrivals: 10, Late: 9, LateShare: 0.9, MaxLateMs: 250, Unstarted: 4, FellBehind: true},
			"pacing open loop at 5.0/s: 10 arrivals, 9 late, 4 unstarted\n" +
				"FELL BEHIND: 90% of arrivals due late or never started (up to 250ms)\n" +
				"  so latencies include the wait for a free worker\n"},
		{Pacing{Mode: "open", Rate: 5, Arrivals: 1e12, Late: 1e12, LateShare: 1, MaxLateMs: 3e6, Unstarted: 123456789012, FellBehind: true},
			"pacing open loop at 5.0/s: 1000.0G arrivals, 1000.0G late, 123456.8M unstarted\n" +
				"FELL BEHIND: 100% of arrivals due late or never started (up to 50.0m)\n" +
				"  so latencies include the wait for a free worker\n"},
	} {
		var b strings.Builder
		printPacing(&b, c.p)
		if b.String() != c.want {
			t.Errorf("%+v:\n%q\nwant\n%q", c.p, b.String(), c.want)
		}
	}
}

// Latencies clamped into the histograms' range are counted under the
// table, and only when there were some; a name as wide as the column is
// kept whole; ops that never ran are named in one line, not given a row
// of zeros.
func TestConsoleOpsTable(t *testing.T) {
	printed := func(ops ...OpSummary) string {
		var b strings.Builder
		printOps(&b, ops, "op")
		return b.String()
	}
	if out := printed(OpSummary{Op: strings.Repeat("o", opWidth), Count: 3}); strings.Contains(out, "clamped") ||
		!strings.Contains(out, "\n"+strings.Repeat("o", opWidth)+" ") {
		t.Errorf("ops table:\n%s", out)
	}
	out := printed(OpSummary{Op: strings.Repeat("o", opWidth+1), Count: 3, Clamped: 2}, OpSummary{Op: "b", Count: 1, Clamped: 1},
		OpSummary{Op: "idle"}, OpSummary{Op: "idle2"})
	if !strings.Contains(out, "\nclamped 3 times outside 1µs..1h to the nearest bound\n") ||
		!strings.Contains(out, "\nnot run: idle, idle2\n") || strings.Contains(out, "\nidle ") ||
		!strings.Contains(out, "\n"+strings.Repeat("o", opWidth-1)+"~ ") {
		t.Errorf("ops table:\n%s", out)
	}
	var idle []OpSummary
	for _, op := range []string{"product-latest", "product-page", "user-timeline", "ranked", "site-latest", "comment-edit", "rank-job"} {
		idle = append(idle, OpSummary{Op: op})
	}
	if out := printed(idle...); !strings.Contains(out, "\nnot run: product-latest, product-page, user-timeline, ranked, site-latest,\n  comment-edit, rank-job\n") {
		t.Errorf("a long not-run line is cut, not wrapped:\n%s", out)
	}
}

// An interval is partial when it falls short of the results interval by
// more than a hundredth of it.
func TestPartialIntervalMark(t *testing.T) {
	for d, want := range map[time.Duration]string{time.Second: "0", 990 * time.Millisecond: "0",
		989 * time.Millisecond: "1", 0: "1", 2 * time.Second: "0"} {
		if got := partial(d, time.Second); got != want {
			t.Errorf("partial(%v) = %s, want %s", d, got, want)
		}
	}
	if partial(time.Millisecond, 0) != "0" {
		t.Error("an interval is partial with no results interval")
	}
}

// Once regions split their keys are long: the hottest region's server,
// share and times the mean still show, its range after them without the
// table's name, or on a line of its own when it does not fit there; the
// all-tables line names the region's table.
func TestConsoleSpreadLongKeys(t *testing.T) {
	pcr := `[product-comment-rank[prod=bAPXWrIwrx r rank=2], end)`
	s := Summary{Spread: []spread.TableSpread{
		{Table: "comment", Regions: 2, Requests: 100, HottestServer: "rs3", HottestServerShare: 1, Ceiling: 1, ServerMaxMean: 3,
			Hottest: []spread.RegionShare{{Name: "comment,ZEul,1.a.", Server: "rs3", Share: 0.53,
				Range: `[comment[order=ZEulUMXMkO prod=zvQwmwOgwG], comment[order=bNHxCQVIpr prod=FsNBdvlumx])`}}},
		{Table: "order", Regions: 4, Requests: 100, Writes: 50, HottestServer: "rs2",
			Hottest:       []spread.RegionShare{{Name: "order,,1.c.", Server: "rs2", Share: 0.28, Range: `[start, order[id=NhlKjZbNtz])`}},
			HottestWrites: &spread.RegionShare{Share: 0.27, Range: `[start, order[id=NhlKjZbNtz])`}},
		{Table: spread.AllTables, Regions: 10, Requests: 300, HottestServer: "rs3", HottestServerShare: 0.72,
			Hottest: []spread.RegionShare{{Name: "product-comment-rank,bAPX,1.b.", Server: "rs3", Share: 0.25, Range: pcr}}},
	}}
	out := printed(t, s)
	for _, want := range []string{
		"\n  hottest region on rs3: 53% of requests, 1.1x the mean\n    [order=ZEulUMXMkO prod=zvQwmwOgwG, order=bNHxCQVIpr prod=FsNBdvlumx)\n",
		"\n  hottest region on rs2: 28% of requests, 1.1x the mean, [start, id=NhlKjZbNtz)\n",
		"\n  writes: 27% of 50 in one region, [start, id=NhlKjZbNtz)\n",
		"\n  hottest region on rs3: 25% of requests, 2.5x the mean\n    product-comment-rank [prod=bAPXWrIwrx r rank=2, end)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("console lacks %q:\n%s", want, out)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if utf8.RuneCountInString(l) > lineWidth {
			t.Errorf("%d columns: %q", utf8.RuneCountInString(l), l)
		}
	}
}

// A ramp or a search goes past its SLOs and falls behind on purpose: its
// answer is the knee, not a breach or a lag.
func TestJudgeCapacityRun(t *testing.T) {
	s := Summary{SLOs: []SLOResult{{SLO: "comment-write:p99<=1ms", Met: false, Actual: 5}},
		Pacing: Pacing{FellBehind: true, LateShare: 0.5}, Capacity: &Capacity{KneeRate: 800}}
	s.Judge(10)
	if len(s.Verdict) != 0 {
		t.Errorf("verdict %+v", s.Verdict)
	}
	s.Capacity = nil
	s.Judge(10)
	if len(s.Verdict) != 3 { // the breach, the lag, the lower rate
		t.Errorf("verdict %+v", s.Verdict)
	}
}
