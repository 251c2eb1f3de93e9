package report

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"commentbench/check"
	"commentbench/results"
	"commentbench/spread"
)

// editSummary rewrites a synthetic run's summary.
func editSummary(tb testing.TB, dir string, edit func(*results.Summary)) {
	tb.Helper()
	s, err := results.ReadSummary(dir)
	if err != nil {
		tb.Fatal(err)
	}
	edit(&s)
	if err := results.WriteSummary(dir, s); err != nil {
		tb.Fatal(err)
	}
}

// setListing gives every product listing op the same cost: the pages' sums
// are twice it, their means its own.
func setListing(s *results.Summary, pages, rows, cells int64) {
	for i, o := range s.Ops {
		if slices.Contains(results.ListingOps, o.Op) {
			c := results.Cost{Pages: pages, Scans: pages, Rows: rows, MaxRows: 1, Cells: cells}
			s.Ops[i].Listing = &results.ListingCost{Cost: c, ScansPerPage: c.ScansPerPage(), RowsPerPage: c.RowsPerPage(),
				CellsPerPage: c.CellsPerPage()}
		}
	}
}

// setHottestWrites makes the share of the table's hottest writes region.
func setHottestWrites(s *results.Summary, table string, share float64) {
	t := tableSpread(s.Spread, table)
	w := *t.HottestWrites
	w.Share = share
	t.HottestWrites = &w
}

// tallRun is a run of a tall design (its every row one cell): one
// hottest listing region of 14%, 10.8 rows and cells a page, 572 bytes a
// comment, every index consistent.
func tallRun(tb testing.TB, dir string) {
	tb.Helper()
	synthRun(tb, dir, 3, "unique", 1)
	editSummary(tb, dir, func(s *results.Summary) {
		setHottestWrites(s, results.ListingTable, 0.14)
		setListing(s, 100, 1080, 1080)
		s.Storage = []results.TableStorage{{Table: "user", Rows: 10, MeasuredBytes: 999}, {Table: "order", Rows: 1000, MeasuredBytes: 100000},
			{Table: "comment", Rows: 1000, MeasuredBytes: 300000}, {Table: "user-comment", Rows: 1000, MeasuredBytes: 80000},
			{Table: "product-comment", Rows: 1000, MeasuredBytes: 92000}, {Table: "product-comment-rank", Rows: 40, MeasuredBytes: 50000}}
		s.HotRows = []results.HotRow{{Table: "comment", Row: "comment[order=AGbYaaglmu]", Writes: 224, Error: 223, Region: "comment,,1.a.", Share: 0.06}}
		s.MaxRowSize = 1 << 30
	})
	writeVerify(tb, dir, check.Report{Layout: "unique", Consistent: true, Verdict: "CONSISTENT: 1000 comments",
		Indexes: []check.IndexReport{{Table: "product-comment", Rows: 1000, Referenced: 1000}}})
}

// wideRun is a run of a design that keeps the product listing in
// product's rows: a hot product's row takes 97.7% of its region's 78% of
// the writes; a page reads 1 row of 11.17 cells; 620 bytes a comment.
func wideRun(tb testing.TB, dir string) {
	tb.Helper()
	synthRun(tb, dir, 3, "between", 1)
	editSummary(tb, dir, func(s *results.Summary) {
		s.Stores = map[string]string{"comment": "product", "product-comment": "product", "user-comment": "user"}
		s.Spread = append(s.Spread, spread.TableSpread{Table: "product", Regions: 8, Requests: 28668, Writes: 7417,
			Hottest:       []spread.RegionShare{{Name: "product,,1.a.", Server: "rs3", Range: `[start, "GaA")`, Share: 0.802}},
			HottestWrites: &spread.RegionShare{Name: "product,,1.a.", Server: "rs3", Range: `[start, "GaA")`, Share: 0.78},
			Unsplittable:  &spread.RowShare{Row: "product[id=FKlMOseNna]", Share: 0.977}})
		setListing(s, 100, 100, 1117)
		s.Storage = []results.TableStorage{{Table: "order", Rows: 2000, MeasuredBytes: 200000}, {Table: "comment", Rows: 2000, MeasuredBytes: 600000},
			{Table: "user-comment", Rows: 2000, MeasuredBytes: 160000}, {Table: "product-comment", Rows: 2000, MeasuredBytes: 180000},
			{Table: "latest-comment", Rows: 2000, MeasuredBytes: 100000}, {Table: "product-comment-rank", Rows: 40, MeasuredBytes: 70000}}
		s.HotRows = []results.HotRow{
			{Table: "product", Row: "product[id=FKlMOseNna]", Writes: 5665, Error: 15, Cells: 11308, CellsPerSec: 2242.25,
				Region: "product,,1.a.", Range: `[start, "GaA")`, Server: "rs3", Share: 0.9779},
			{Table: "product", Row: "product[id=NhfVoBKmtK]", Writes: 223, Error: 15, CellsPerSec: 84.07, Region: "product,NAA,1.b.", Share: 0.66},
			{Table: "user", Row: "user[id=dnHRdUssde]", Writes: 22, CellsPerSec: 1.39, Region: "user,aAA,1.c.", Share: 0.025},
			{Table: "order", Row: "order[id=ABiwDVodLE]", Writes: 17, Error: 16, CellsPerSec: 0.4, Region: "order,,1.d.", Share: 0.019},
		}
		s.BiggestRows = []results.TableRows{
			{Table: "user", Rows: []results.RowSize{{Row: "user[id=uIbuNpHAOp]", Cells: 13, Bytes: 1067}}},
			{Table: "product", Rows: []results.RowSize{{Row: "product[id=FKlMOseNna]", Cells: 22204, Bytes: 4344851},
				{Row: "product[id=NhfVoBKmtK]", Cells: 866, Bytes: 169063}}},
		}
		s.MaxRowSize = 1 << 30
	})
	writeVerify(tb, dir, check.Report{Layout: "between", Consistent: false, Verdict: "INCONSISTENT: 2 counts off",
		Indexes: []check.IndexReport{{Table: "product-comment", Rows: 2000, Referenced: 2000, Collections: 391,
			CountOff:    check.Counter{Count: 2, Samples: []string{"product[id=FKlMOseNna]: count 11, 12 entries"}},
			StaleCopies: check.Counter{Count: 1}}}})
}

func writeVerify(tb testing.TB, dir string, rep check.Report) {
	tb.Helper()
	if err := check.WriteReport(dir, rep); err != nil {
		tb.Fatal(err)
	}
}

// rowOf is the row of a table whose data-* attributes are as given.
func rowOf(t *testing.T, in *html.Node, attrs ...string) *html.Node {
	t.Helper()
	ps := []pred{tag("tr")}
	for i := 0; i < len(attrs); i += 2 {
		ps = append(ps, has(attrs[i], attrs[i+1]))
	}
	row := findOne(in, and(ps...))
	if row == nil {
		t.Fatalf("no row %v", attrs)
	}
	return row
}

// cellsAre checks a row's cells, column by column.
func cellsAre(t *testing.T, row *html.Node, want map[string]string) {
	t.Helper()
	for _, col := range slices.Sorted(maps.Keys(want)) {
		if got := cellOf(t, row, col); got != want[col] {
			t.Errorf("%v %s: %q, want %q", row.Attr, col, got, want[col])
		}
	}
}

// A wide run's page has a Wide rows section: the hot rows of the tables
// whose most written row took two writes beyond its error, as the
// summary counts them; the biggest rows, the biggest table first, against
// the modeled max row size; the row no split divides in the spread; and
// the cells the listing pages read.
func TestWideRowsSection(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "between")
	wideRun(t, dir)
	page, _ := renderPage(t, dir)
	if findOne(page, and(tag("a"), has("href", "#wide-rows"))) == nil {
		t.Error("no link to the wide rows")
	}
	w := byID(page, "wide-rows")
	if w == nil {
		t.Fatal("no wide rows section")
	}
	hot := findOne(w, has("class", "hot-rows"))
	for row, want := range map[string]map[string]string{
		"product[id=FKlMOseNna]": {"writes": "≤5,665", "region-share": "97.8%", "cells-per-sec": "2242.2"},
		"product[id=NhfVoBKmtK]": {"writes": "≤223", "region-share": "66.0%", "cells-per-sec": "84.1"},
		"user[id=dnHRdUssde]":    {"writes": "22", "region-share": "2.5%", "cells-per-sec": "1.4"},
	} {
		cellsAre(t, rowOf(t, hot, "data-row", row), want)
	}
	if n := findOne(hot, has("data-table", "order")); n != nil {
		t.Error("order's rows shown: its most written row may have taken a single write (17, error 16)")
	}
	big := findOne(w, has("class", "big-rows"))
	if head := text(findOne(big, tag("thead"))); !strings.Contains(head, "of the max row size (1.0 GiB, modeled)") {
		t.Errorf("biggest rows' head %q: no modeled max row size", head)
	}
	var order []string
	for _, tr := range findAll(big, and(tag("tr"), func(n *html.Node) bool { return attr(n, "data-row") != "" })) {
		order = append(order, attr(tr, "data-row"))
	}
	if want := []string{"product[id=FKlMOseNna]", "product[id=NhfVoBKmtK]", "user[id=uIbuNpHAOp]"}; !slices.Equal(order, want) {
		t.Errorf("biggest rows %v, want %v: the table with the biggest row first", order, want)
	}
	for row, want := range map[string]map[string]string{
		"product[id=FKlMOseNna]": {"cells": "22,204", "bytes": "4,344,851", "of-max": "0.40%"},
		"user[id=uIbuNpHAOp]":    {"cells": "13", "bytes": "1,067", "of-max": "0.00%"},
	} {
		cellsAre(t, rowOf(t, big, "data-row", row), want)
	}

	sp := byID(page, "spread")
	cellsAre(t, rowOf(t, sp, "data-table", "product"), map[string]string{"one-row-share": "97.7%", "one-row": "product[id=FKlMOseNna]"})
	if findOne(rowOf(t, sp, "data-table", "order"), has("data-col", "one-row-share")) != nil {
		t.Error("a one-row share on order, whose hottest region no row took")
	}
	sum, err := results.ReadSummary(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range sum.Ops {
		if l := o.Listing; l != nil {
			cellsAre(t, rowOf(t, byID(page, "listing"), "data-op", o.Op),
				map[string]string{"cells": thousands(l.Cells), "cells-per-page": fixed2(l.CellsPerPage)})
		}
	}
	cellsAre(t, rowOf(t, byID(page, "listing"), "data-op", "product-latest"), map[string]string{"cells": "1,117", "cells-per-page": "11.17"})

	cellsAre(t, rowOf(t, byID(page, "verify"), "data-index", "product-comment"),
		map[string]string{"collections": "391", "count_off": "2", "stale_copies": "1"})
	if v := text(byID(page, "verify")); !strings.Contains(v, "product-comment count_off: product[id=FKlMOseNna]: count 11, 12 entries") {
		t.Errorf("verify %q: no sample of the count off", v)
	}
}

// A tall run, whose sketch cannot tell its rows' writes from one, and
// whose rows are a cell each, has no Wide rows section, nor a row no
// split divides.
func TestTallRunHasNoWideRows(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "unique")
	tallRun(t, dir)
	page, _ := renderPage(t, dir)
	if byID(page, "wide-rows") != nil || findOne(page, has("href", "#wide-rows")) != nil {
		t.Error("a Wide rows section for a tall run")
	}
	if n := findAll(byID(page, "spread"), has("data-col", "one-row-share")); len(n) > 0 {
		t.Errorf("%d one-row shares in a tall run's spread", len(n))
	}
}

// A run with no hot row but rows of several cells shows them alone, and
// without a max row size no share of it.
func TestWideRowsWithoutHotRows(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "between")
	wideRun(t, dir)
	editSummary(t, dir, func(s *results.Summary) { s.HotRows, s.MaxRowSize = nil, 0 })
	page, _ := renderPage(t, dir)
	w := byID(page, "wide-rows")
	if w == nil {
		t.Fatal("no wide rows section for a run with rows of several cells")
	}
	if findOne(w, has("class", "hot-rows")) != nil || !strings.Contains(text(w), "No hot row") {
		t.Errorf("wide rows %q: want no hot rows, said so", text(w))
	}
	if n := findAll(w, has("data-col", "of-max")); len(n) > 0 || strings.Contains(text(w), "max row size") {
		t.Errorf("a share of an unknown max row size")
	}
}

// The verdict line gives what decides tall or wide, each figure beside
// the first run's: where the listing is kept and its hottest region's
// share with one row's, rows and cells a page, bytes a comment, the
// biggest row, verify's verdict.
func TestVerdictLineShapes(t *testing.T) {
	base := t.TempDir()
	tall, wide := filepath.Join(base, "unique"), filepath.Join(base, "between")
	tallRun(t, tall)
	wideRun(t, wide)
	runs, err := LoadAll([]string{tall, wide}, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		r, first *Run
		want     string
	}{
		{runs[0], runs[0], "unique: hottest product-comment region 14% of writes; 1 scan per listing page; 10.8 rows read per page; " +
			"10.8 cells read per page; 572 B per comment; 0 hidden by colliding keys; verify consistent"},
		{runs[1], runs[0], "between: hottest product-comment region (in product) 78% of writes, one row 98% (unique 14%); " +
			"1 scan per listing page (unique 1); 1 rows read per page (unique 10.8); 11.2 cells read per page (unique 10.8); " +
			"620 B per comment (unique 572); biggest row 22,204 cells, 4.1 MiB (unique no wide row); " +
			"0 hidden by colliding keys (unique 0); verify inconsistent (unique consistent)"},
		{runs[0], runs[1], "unique: hottest product-comment region 14% of writes (between 78%, one row 98%); " +
			"1 scan per listing page (between 1); 10.8 rows read per page (between 1); 10.8 cells read per page (between 11.2); " +
			"572 B per comment (between 620); no wide row (between 22,204 cells, 4.1 MiB); " +
			"0 hidden by colliding keys (between 0); verify consistent (between inconsistent)"},
	} {
		if got := VerdictLine(c.r, c.first); got != c.want {
			t.Errorf("verdict line\n%s\nwant\n%s", got, c.want)
		}
	}
}

// The comparison's Shapes table holds the verdict line's figures to the
// page's precision, a row per run; a run without storage or verify shows
// dashes.
func TestShapesTable(t *testing.T) {
	base := t.TempDir()
	tall, wide, bare := filepath.Join(base, "unique"), filepath.Join(base, "between"), filepath.Join(base, "salted")
	tallRun(t, tall)
	wideRun(t, wide)
	synthRun(t, bare, 3, "salted", 1)
	page, _ := renderPage(t, tall, wide, bare)
	if findOne(page, and(tag("a"), has("href", "#shapes"))) == nil {
		t.Error("no link to the shapes")
	}
	sh := byID(page, "shapes")
	if sh == nil {
		t.Fatal("no shapes section")
	}
	bareSum, err := results.ReadSummary(bare)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := listingCost(bareSum)
	for run, want := range map[string]map[string]string{
		"unique": {"store": "product-comment", "hottest-writes-share": "14.0%", "one-row-share": "–", "rows-per-page": "10.80",
			"cells-per-page": "10.80", "bytes-per-comment": "572", "biggest-row": "no wide row", "biggest-cells": "–",
			"biggest-bytes": "–", "verify": "consistent"},
		"between": {"store": "product", "hottest-writes-share": "78.0%", "one-row-share": "97.7%", "rows-per-page": "1.00",
			"cells-per-page": "11.17", "bytes-per-comment": "620", "biggest-row": "product[id=FKlMOseNna]",
			"biggest-cells": "22,204", "biggest-bytes": "4,344,851", "verify": "inconsistent"},
		"salted": {"store": "product-comment", "hottest-writes-share": share(tableSpread(bareSum.Spread, "product-comment").HottestWrites.Share),
			"one-row-share": "–", "rows-per-page": fixed2(c.RowsPerPage()),
			"cells-per-page": fixed2(c.CellsPerPage()), "bytes-per-comment": "–", "biggest-row": "–", "biggest-cells": "–",
			"biggest-bytes": "–", "verify": "–"},
	} {
		cellsAre(t, rowOf(t, sh, "data-run", run), want)
	}
	if got := attr(findOne(rowOf(t, sh, "data-run", "between"), has("data-col", "verify")), "class"); got != "critical" {
		t.Errorf("an inconsistent verify is class %q, want critical", got)
	}
}
