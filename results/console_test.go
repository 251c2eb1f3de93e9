package results

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"commentbench/spread"
)

func TestHuman(t *testing.T) {
	for ms, want := range map[float64]string{0: "0", 0.812: "812µs", 0.9996: "1.00ms", 1.234: "1.23ms",
		12.34: "12.3ms", 812.4: "812ms", 1200: "1.20s", 12345: "12.3s", 90000: "1.5m", 3600e3: "60.0m"} {
		if got := human(ms); got != want {
			t.Errorf("human(%v) = %q, want %q", ms, got, want)
		}
	}
}

func TestCompact(t *testing.T) {
	for _, c := range []struct {
		n     int64
		width int
		want  string
	}{{123, 7, "123"}, {1234567, 7, "1234567"}, {12345678, 7, "12.3M"}, {1e13, 9, "10000.0G"}} {
		if got := compact(c.n, c.width); got != c.want {
			t.Errorf("compact(%d, %d) = %q, want %q", c.n, c.width, got, c.want)
		}
	}
}

func TestPrintSummaryFits80(t *testing.T) {
	long := "an-operation-name-far-too-long-for-the-table"
	s := summaryOf(t, []string{"read", "write", long}, t0, t0.Add(90*time.Second), dataA, dataB)
	s.Ops[0].Count, s.Ops[0].Errors, s.Ops[0].Rate = 98765432109, 123456789, 1234567.8
	s.Merged = []string{"a", "b"}
	s.Ops[2].Listing = &ListingCost{Cost: Cost{Pages: 1e12, Scans: 8e12, Rows: 1e21 / 1e3, MaxRows: 9876543210987},
		ScansPerPage: 8, RowsPerPage: 1e9}
	s.Pacing = Pacing{Mode: "open", Rate: 123456.7, Arrivals: 1e12, Late: 1e11, Unstarted: 1e10}
	s.Violations = map[string]*Violation{
		"leak":  {Count: 3, Samples: []string{strings.Repeat("product 123 listed comment of 456 ", 5)}},
		"stale": {Count: 1},
	}
	s.Spread = []spread.TableSpread{
		{Table: "product-comment", Regions: 8, Requests: 1000, HottestServer: "rs2", HottestServerShare: 0.41,
			RegionMaxMean: 3.3, RegionGini: 0.52, ServerMaxMean: 1.9, ServerGini: 0.3, Ceiling: 2.44},
		{Table: strings.Repeat("very-long-table-name-", 3), Regions: 123, Requests: 1, HottestServer: "regionserver-with-long-name",
			HottestServerShare: 1, RegionMaxMean: 123, RegionGini: 0.99, ServerMaxMean: 3, Ceiling: 1},
		{Table: "user", Regions: 4},
	}
	var slos []SLO
	for _, e := range []string{"read:p99<=200ms", "*:error-rate<1%", "scan:p50<1ms", long + ":throughput>=1/s"} {
		slo, err := ParseSLO(e)
		if err != nil {
			t.Fatal(err)
		}
		slos = append(slos, slo)
	}
	s.SLOs = Evaluate(slos, s)
	var b strings.Builder
	if err := PrintSummary(&b, s); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for i, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if n := utf8.RuneCountInString(l); n > 80 {
			t.Errorf("line %d is %d columns: %q", i+1, n, l)
		}
	}
	for _, want := range []string{"\nread ", "\nwrite ", "\nan-operation-name~ ", "98765.4M", "p99.9",
		"pacing open loop", "leak 3: ", "    e.g. product 123", "product-comment  8 regions, 1000 requests, gini 0.52",
		"hottest server rs2: 41% of requests (ceiling 2.4x; max/mean 1.9)", "idle (no requests): user", "SLO read:p99<=200ms  BREACHED (p99 ", "SLO scan:p50<1ms  BREACHED (op did not run)",
		"error-rate 0.12%", "BREACHED (throughput 0.0111/s)", "1000.0G arrivals", "errors read: order-not-found 1, timeout 1",
		"listing cost per page", "  an-operation-name~     8.0   1000000000.0, 9876543210987"} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if testing.Verbose() {
		t.Log("\n" + out)
	}
}
