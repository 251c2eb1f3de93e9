package e2e

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"commentbench/check"
	"commentbench/results"
)

// shapesRun runs the shapes preset, shortened, on layout: into dir on the
// embedded engine, or through the HBase protocol when hbase holds the
// cluster's flags. It returns the summary and verify's report of the data.
func shapesRun(t *testing.T, dir, layout string, hbase []string, extra ...string) (results.Summary, string) {
	t.Helper()
	out := filepath.Join(dir, "out")
	where := []string{"--data-dir", filepath.Join(dir, "data")}
	if hbase != nil {
		where = hbase
	}
	args := append([]string{"--preset", "shapes", "--layout", layout, "--duration", "3s", "--warmup", "1s",
		"--users", "2000", "--products", "200", "--quiet", "--out", out}, where...)
	if o, e, code := run(t, "loadgen", append(args, extra...)...); code != 0 {
		t.Fatalf("loadgen %v: exit %d\n%s%s", args, code, o, e)
	}
	sum, err := results.ReadSummary(out)
	if err != nil {
		t.Fatal(err)
	}
	return sum, out
}

// The seeds' wide shapes run through the HBase protocol and verify clean,
// as they do on the embedded engine (TestShapesComparison).
func TestShapesWide(t *testing.T) {
	t.Parallel()
	cl, _ := cluster(t)
	for _, layout := range []string{"between", "feed"} {
		t.Run(layout, func(t *testing.T) {
			dir := t.TempDir()
			hb := hbaseArgs(cl, "cb_"+layout+"_")
			sum, out := shapesRun(t, dir, layout, hb)
			rep, code := verifyJSON(t, append(hb, "--run", out)...)
			if code != 0 || !rep.Consistent || rep.Run.Lost.Count != 0 {
				t.Fatalf("verify: exit %d, %s, lost %d", code, rep.Verdict, rep.Run.Lost.Count)
			}
			wideShape(t, layout, sum, rep)
		})
	}
}

// The README's comparison of the three shapes, shortened: the shapes
// preset on unique, between and feed, each verified into its run, then
// loadgen report of the three and its line per run. Tall keeps the hot
// product in one region of its listing and no wide row; between keeps it
// in one row of the product table; feed puts every comment in one row.
func TestShapesComparison(t *testing.T) {
	t.Parallel()
	var outs []string
	for _, layout := range []string{"unique", "between", "feed"} {
		dir := t.TempDir()
		sum, out := shapesRun(t, dir, layout, nil)
		rep, code := verifyJSON(t, "--data-dir", filepath.Join(dir, "data"), "--run", out, "--out", out)
		if code != 0 || !rep.Consistent || rep.Run.Lost.Count != 0 {
			t.Fatalf("verify %s: exit %d, %s, lost %d", layout, code, rep.Verdict, rep.Run.Lost.Count)
		}
		if layout != "unique" {
			wideShape(t, layout, sum, rep)
		}
		outs = append(outs, out)
	}
	page := filepath.Join(t.TempDir(), "compare.html")
	stdout, stderr, code := run(t, "loadgen", append([]string{"report", "-o", page}, outs...)...)
	lines := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
	if code != 0 || len(lines) != 4 || lines[0] != "report: "+page {
		t.Fatalf("loadgen report: exit %d, want the page's path and a line per run\n%s%s", code, stdout, stderr)
	}
	for i, want := range []string{
		`^unique: hottest product-comment region \d+% of writes; 1 scan per listing page; .*; 0 hidden by colliding keys; verify consistent$`,
		`^between: hottest product-comment region \(in product\) \d+% of writes, one row (9\d|100)% \(unique \d+%\); .*; biggest row [\d,]+ cells, .*; verify consistent \(unique consistent\)$`,
		`^feed: hottest product-comment region \d+% of writes, one row 100% \(unique \d+%\); .*; biggest row [\d,]+ cells, .*; verify consistent \(unique consistent\)$`,
	} {
		if !regexp.MustCompile(want).MatchString(lines[i+1]) {
			t.Errorf("line %d:\n  %s\nwant it to match\n  %s", i+1, lines[i+1], want)
		}
	}
}

// wideShape holds what a wide shape must show: between's hot product's
// row takes most of its table's writes, and its region is reported
// unsplittable; feed's one row takes every comment, and is unsplittable
// too.
func wideShape(t *testing.T, layout string, sum results.Summary, rep check.Report) {
	t.Helper()
	store := map[string]string{"between": "product", "feed": "product-comment"}[layout]
	ts := tableSpread(t, sum, store)
	if ts.Unsplittable == nil {
		t.Errorf("%s's hottest writes region %+v is not reported unsplittable", store, ts.HottestWrites)
	}
	top := topRow(t, sum, store)
	switch layout {
	case "between":
		if share := float64(top.Writes-top.Error) / float64(ts.Writes); share < 0.5 {
			t.Errorf("the hot product's row %s took %d of %s's %d writes, want at least half", top.Row, top.Writes, store, ts.Writes)
		}
		for _, st := range sum.Storage {
			if st.Table == "comment" && (st.Store != "product" || st.Rows != rep.References.Comments) {
				t.Errorf("storage of comments %+v: want the %d comments, kept in product's rows", st, rep.References.Comments)
			}
		}
	case "feed":
		if !strings.Contains(top.Row, "__notag__") {
			t.Errorf("the most written row of %s is %s, want the one every comment goes in", store, top.Row)
		}
		big := biggestRow(t, rep.Spread.Tables, store)
		if big.Cells != rep.References.Comments || !strings.Contains(big.Row, "__notag__") {
			t.Errorf("the biggest row of %s is %s of %d cells; want __notag__, holding every one of the %d comments",
				store, big.Row, big.Cells, rep.References.Comments)
		}
	}
}

func topRow(t *testing.T, s results.Summary, table string) results.HotRow {
	t.Helper()
	for _, r := range s.HotRows { // each table's, most written first
		if r.Table == table {
			return r
		}
	}
	t.Fatalf("no hot row of %s in %+v", table, s.HotRows)
	return results.HotRow{}
}

func biggestRow(t *testing.T, tables []check.TableData, table string) check.RowSize {
	t.Helper()
	for _, td := range tables {
		if td.Table == table && len(td.BiggestRows) > 0 {
			return td.BiggestRows[0]
		}
	}
	t.Fatalf("verify names no biggest row of %s", table)
	return check.RowSize{}
}

// A whole-row read of a wide row past the max row size fails as HBase's
// RowTooBigException does; a read of a slice of it does not. Between's
// listing read as the seed's scans read (the whole row, sliced by the
// client) meets it once the hot product's row outgrows 1 MiB; read a
// slice at a time it never does.
func TestMaxRowSizeWholeRowRead(t *testing.T) {
	t.Parallel()
	for _, scan := range []string{"seed", "bounded"} {
		sum, _ := shapesRun(t, t.TempDir(), "between", nil, "--scan", scan, "--max-row-size", "1MiB", "--load-per-user", "5")
		var tooBig int64
		for _, o := range sum.Ops {
			tooBig += o.ErrorsByKind["row-too-big"]
		}
		switch {
		case scan == "seed" && tooBig == 0:
			t.Errorf("whole-row listing reads of a row past 1 MiB: no row-too-big errors")
		case scan == "bounded" && tooBig != 0:
			t.Errorf("listing reads a slice at a time: %d row-too-big errors, want none", tooBig)
		}
		var biggest int64
		for _, tr := range sum.BiggestRows {
			biggest = max(biggest, tr.Rows[0].Bytes)
		}
		if biggest <= 1<<20 {
			t.Errorf("the biggest row is %d bytes: the run never tried a row past the limit", biggest)
		}
	}
}
