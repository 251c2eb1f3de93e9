package results

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// pagesA records listing pages on ops 0 ("list") and 2 ("rank") from two
// workers, with a Collect between: costs are kept over the whole run, not
// per interval. Op 1 reads no page.
func pagesA(s *Set) {
	r1, r2 := s.NewRecorder(), s.NewRecorder()
	r1.RecordPage(0, 8, 80, 80)
	r1.RecordPage(0, 8, 88, 90)
	s.Collect(t0, t0.Add(time.Second))
	r1.RecordPage(0, 5, 12, 12)
	r2.RecordPage(0, 1, 10, 10)
	r2.RecordPage(2, 1, 10, 31)
}

// pagesB is another run: more pages of op 0 and op 1's only page.
func pagesB(s *Set) {
	r := s.NewRecorder()
	r.RecordPage(0, 1, 11, 11)
	r.RecordPage(0, 1, 9, 9)
	r.RecordPage(1, 2, 7, 7)
}

func listingOf(t *testing.T, s Summary) map[string]*ListingCost {
	t.Helper()
	m := map[string]*ListingCost{}
	for _, o := range s.Ops {
		m[o.Op] = o.Listing
	}
	return m
}

func TestListingCostInSummary(t *testing.T) {
	ops := []string{"list", "write", "rank"}
	s := summaryOf(t, ops, t0, t0.Add(10*time.Second), dataA, pagesA)
	got := listingOf(t, s)
	want := map[string]*ListingCost{
		"list":  {Cost: Cost{Pages: 4, Scans: 22, Rows: 190, MaxRows: 88, Cells: 192}, ScansPerPage: 5.5, RowsPerPage: 47.5, CellsPerPage: 48},
		"write": nil, // recorded ops, but no page
		"rank":  {Cost: Cost{Pages: 1, Scans: 1, Rows: 10, MaxRows: 10, Cells: 31}, ScansPerPage: 1, RowsPerPage: 10, CellsPerPage: 31},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("listing costs %s\nwant          %s", show(got), show(want))
	}
	// The totals a running workload reads carry the same sums.
	set := NewSet(ops)
	pagesA(set)
	if c := set.Totals()[0].Cost; c != want["list"].Cost {
		t.Errorf("totals of list: %+v, want %+v", c, want["list"].Cost)
	}

	// summary.json keeps them, under their documented names.
	dir := t.TempDir()
	if err := WriteSummary(dir, s); err != nil {
		t.Fatal(err)
	}
	back, err := ReadSummary(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(listingOf(t, back), want) {
		t.Errorf("read back %s, want %s", show(listingOf(t, back)), show(want))
	}
	raw, err := os.ReadFile(filepath.Join(dir, SummaryFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{`"listing"`, `"pages": 4`, `"scans": 22`, `"rows_read": 190`, `"max_rows_per_page": 88`,
		`"scans_per_page": 5.5`, `"rows_per_page": 47.5`, `"cells_read": 192`, `"cells_per_page": 48`} {
		if !strings.Contains(string(raw), key) {
			t.Errorf("summary.json lacks %s", key)
		}
	}
}

// Merging runs sums pages, scans and rows exactly and keeps the largest
// page: what one run that recorded both gives.
func TestMergeListingCost(t *testing.T) {
	ops := []string{"list", "write", "rank"}
	a := summaryOf(t, ops, t0, t0.Add(10*time.Second), pagesA)
	b := summaryOf(t, ops[:2], t0, t0.Add(10*time.Second), pagesB)
	got, err := Merge([]Summary{a, b}, []string{"a", "b"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]*ListingCost{
		"list":  {Cost: Cost{Pages: 6, Scans: 24, Rows: 210, MaxRows: 88, Cells: 212}, ScansPerPage: 4, RowsPerPage: 35, CellsPerPage: 212.0 / 6},
		"write": {Cost: Cost{Pages: 1, Scans: 2, Rows: 7, MaxRows: 7, Cells: 7}, ScansPerPage: 2, RowsPerPage: 7, CellsPerPage: 7},
		"rank":  {Cost: Cost{Pages: 1, Scans: 1, Rows: 10, MaxRows: 10, Cells: 31}, ScansPerPage: 1, RowsPerPage: 10, CellsPerPage: 31},
	}
	if !reflect.DeepEqual(listingOf(t, got), want) {
		t.Errorf("merged listing costs %s\nwant                 %s", show(listingOf(t, got)), show(want))
	}
	one := summaryOf(t, ops, t0, t0.Add(10*time.Second), pagesA, pagesB)
	if !reflect.DeepEqual(listingOf(t, got), listingOf(t, one)) {
		t.Errorf("merged %s, one run %s", show(listingOf(t, got)), show(listingOf(t, one)))
	}
	if a.Ops[0].Listing.Pages != 4 {
		t.Error("merge changed its input")
	}
}

// Processes that loaded side by side merge into one load: their comments
// summed over the longest one's time; runs without a load merge to none.
func TestMergeLoad(t *testing.T) {
	ops := []string{"list", "write", "rank"}
	a := summaryOf(t, ops, t0, t0.Add(10*time.Second), pagesA)
	b := summaryOf(t, ops, t0, t0.Add(10*time.Second), pagesA)
	got, err := Merge([]Summary{a, b}, nil)
	if err != nil || got.Load != nil {
		t.Fatalf("merged without a load: %+v, %v", got.Load, err)
	}
	a.Load, b.Load = &LoadPhase{Comments: 600, Seconds: 2.5}, &LoadPhase{Comments: 400, Seconds: 3.25}
	got, err = Merge([]Summary{a, b}, nil)
	if err != nil || got.Load == nil || *got.Load != (LoadPhase{Comments: 1000, Seconds: 3.25}) {
		t.Fatalf("merged load %+v, %v; want 1000 comments in 3.25 s", got.Load, err)
	}
	if a.Load.Comments != 600 {
		t.Error("merge changed its input")
	}
}

func TestPrintListingCost(t *testing.T) {
	s := summaryOf(t, []string{"list", "write", "rank"}, t0, t0.Add(10*time.Second), pagesA)
	var b strings.Builder
	if err := PrintSummary(&b, s); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"\nlisting cost per page   scans   rows read (mean, max)   cells read (mean)\n",
		"\n  list                   5.5   47.5, 88               48.0\n",
		"\n  rank                   1.0   10.0, 10               31.0\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\n  write ") {
		t.Errorf("summary shows a listing cost for write, which read no page:\n%s", out)
	}
	// No op read a page: no section.
	b.Reset()
	if err := PrintSummary(&b, summaryOf(t, []string{"read", "write"}, t0, t0.Add(time.Second), dataA)); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "listing cost") {
		t.Errorf("summary without pages shows a listing cost:\n%s", b.String())
	}
}

func show(m map[string]*ListingCost) string {
	var parts []string
	for _, op := range []string{"list", "write", "rank"} {
		if c := m[op]; c != nil {
			parts = append(parts, fmt.Sprintf("%s:%+v", op, *c))
		} else {
			parts = append(parts, op+":nil")
		}
	}
	return strings.Join(parts, " ")
}
