package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"commentbench/keys"
	"commentbench/plan"
	"commentbench/workload"
)

// Bad input exits 2 naming the flag, the value and what is allowed.
func TestPlanBadInput(t *testing.T) {
	base := []string{"plan", "--layout", "seed", "--days", "3"}
	cases := []struct {
		args []string
		want []string
	}{
		{append(base, "--comments-per-day", "0"), []string{"--comments-per-day", `"0"`, "from 1 to"}},
		{append(base, "--comments-per-day", "-5"), []string{"--comments-per-day", `"-5"`, "from 1 to"}},
		{append(base, "--comments-per-day", "9", "--users", "0"), []string{"--users", `"0"`, "from 1 to"}},
		{append(base, "--comments-per-day", "9", "--region-size", "10XB"), []string{"--region-size", `"10XB"`, "10GiB"}},
		{append(base, "--comments-per-day", "9", "--region-size", "0"), []string{"--region-size", `"0"`, "10GiB"}},
		{append(base, "--comments-per-day", "9", "--orders-per-comment", "-1"), []string{"--orders-per-comment", `"-1"`, "above 0"}},
		{[]string{"plan", "--layout", "seed", "--comments-per-day", "9"}, []string{"--days is required", "from 1 to"}},
		{[]string{"plan", "--comments-per-day", "9", "--days", "1"}, []string{"--layout is required", "seed"}},
		{append(base, "--comments-per-day", "9", "--layout", "nope"), []string{"--layout nope", "unknown"}},
	}
	for _, c := range cases {
		var out, errb strings.Builder
		code := run(c.args, &out, &errb)
		if code != 2 || out.Len() > 0 {
			t.Errorf("%v: exit %d, stdout %q; want 2 and nothing", c.args, code, out.String())
		}
		for _, w := range c.want {
			if !strings.Contains(errb.String(), w) {
				t.Errorf("%v: %q does not say %q", c.args, errb.String(), w)
			}
		}
	}
}

func TestPlanJSON(t *testing.T) {
	var out, errb strings.Builder
	code := run([]string{"plan", "--layout", "unique", "--comments-per-day", "1_000", "--days", "10", "--products", "20",
		"--region-size", "1MiB", "--json"}, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var r plan.Report
	if err := json.Unmarshal([]byte(out.String()), &r); err != nil {
		t.Fatal(err)
	}
	if !r.Modeled || r.Design != "unique" || r.Inputs.Products != 20 || r.Inputs.Users != 20_000 || r.Inputs.RegionSize != 1<<20 {
		t.Fatalf("report %+v", r)
	}
	for _, tp := range r.Tables {
		want := int64(10_000)
		switch tp.Table {
		case keys.User:
			want = 20_000
		case keys.Product:
			want = 20
		case keys.Seller:
			want = 200
		case keys.ProductRank:
			want = 200
		}
		if tp.Rows != want {
			t.Errorf("%s: %d rows, want %d", tp.Table, tp.Rows, want)
		}
	}
}

// The sampled values are the comment system's own: an index row holds the
// comment's key, and a fixed seed gives the same means every time.
func TestSampleValues(t *testing.T) {
	sc, _ := workload.Preset("steady")
	a, err := sampleValues(context.Background(), sc)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := sampleValues(context.Background(), sc)
	d, _ := keys.Load(sc.Layout)
	for _, ix := range []string{keys.UserComment, keys.ProductComment} {
		if a.Mean[ix] != float64(d.Table(keys.Comment).Len) {
			t.Errorf("%s values %v bytes, want the comment key's %d", ix, a.Mean[ix], d.Table(keys.Comment).Len)
		}
	}
	for _, tb := range plan.EntityTables {
		if a.Mean[tb] != b.Mean[tb] || a.Mean[tb] <= 0 {
			t.Errorf("%s: means %v then %v", tb, a.Mean[tb], b.Mean[tb])
		}
	}
	// Shorter texts make shorter comments: the content spec is used.
	short := sc
	short.Content.MedianChars, short.Content.MaxChars = 5, 10
	s, _ := sampleValues(context.Background(), short)
	if s.Mean[keys.Comment] >= a.Mean[keys.Comment]-50 {
		t.Errorf("comments of 5 chars: %v bytes, of 40: %v", s.Mean[keys.Comment], a.Mean[keys.Comment])
	}
}

func TestOrdersPerComment(t *testing.T) {
	steady, _ := workload.Preset("steady")
	flash, _ := workload.Preset("flash-sale") // write 20, multi-order 10 of 3 products
	if got := ordersPerComment(steady); got != 1 {
		t.Errorf("steady: %v orders per comment, want 1", got)
	}
	if got := ordersPerComment(flash); got != 0.6 {
		t.Errorf("flash-sale: %v orders per comment, want (20+10)/(20+30) = 0.6", got)
	}
}
