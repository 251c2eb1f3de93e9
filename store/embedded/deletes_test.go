package embedded

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"commentbench/store"
)

// plain drops the families of a row's cells.
func plain(r Row) store.Row {
	out := store.Row{Key: r.Key}
	for _, c := range r.Cells {
		out.Cells = append(out.Cells, store.Cell{Qualifier: c.Qualifier, Value: c.Value, Timestamp: c.Timestamp})
	}
	return out
}

// getVersions is GetRow without the families.
func getVersions(e *Engine, table, row string, rd Read) (store.Row, error) {
	r, err := e.GetRow(ctx, table, []byte(row), rd)
	return plain(r), err
}

// versionsOf renders a row's cells as "q@ts" strings.
func versionsOf(r store.Row) string {
	var parts []string
	for _, c := range r.Cells {
		parts = append(parts, fmt.Sprintf("%s@%d", c.Qualifier, c.Timestamp))
	}
	return strings.Join(parts, ",")
}

func putAt(t testing.TB, e *Engine, row, q string, ts int64) {
	t.Helper()
	mustPut(t, e, "t", row, store.Cell{Qualifier: []byte(q), Value: []byte(fmt.Sprint(ts)), Timestamp: ts})
}

// checkReads compares every read path's view of row with want (versions
// as "q@ts", newest first per qualifier) and the newest-only view.
func checkReads(t *testing.T, e *Engine, row, wantAll, wantLatest string) {
	t.Helper()
	r, err := getVersions(e, "t", row, Read{MaxVersions: 10})
	if err != nil {
		t.Fatal(err)
	}
	if got := versionsOf(r); got != wantAll {
		t.Errorf("GetRow(%s) = %s, want %s", row, got, wantAll)
	}
	if got := versionsOf(mustGet(t, e, "t", row)); got != wantLatest {
		t.Errorf("Get(%s) = %s, want %s", row, got, wantLatest)
	}
	rows, err := e.BatchGet(ctx, "t", [][]byte{[]byte(row), []byte("zz-missing")})
	if err != nil {
		t.Fatal(err)
	}
	if got := versionsOf(rows[0]); got != wantLatest {
		t.Errorf("BatchGet(%s) = %s, want %s", row, got, wantLatest)
	}
	scanned := map[string]string{}
	if _, err := e.Scan(ctx, "t", store.Scan{}, func(r store.Row) bool {
		scanned[string(r.Key)] = versionsOf(r)
		return true
	}); err != nil {
		t.Fatal(err)
	}
	if got, ok := scanned[row]; got != wantLatest || ok != (wantLatest != "") {
		t.Errorf("Scan(%s) = %s (%v), want %s", row, got, ok, wantLatest)
	}
	scanned = map[string]string{}
	if _, err := e.ScanRows(ctx, "t", store.Scan{Reversed: true}, Read{MaxVersions: 10}, func(r Row) bool {
		scanned[string(r.Key)] = versionsOf(plain(r))
		return true
	}); err != nil {
		t.Fatal(err)
	}
	if got := scanned[row]; got != wantAll {
		t.Errorf("ScanRows(%s) = %s, want %s", row, got, wantAll)
	}
}

func TestDeleteMarkers(t *testing.T) {
	clock := newClock(1000)
	dir := filepath.Join(t.TempDir(), "data")
	opts := Options{Dir: dir, CreateIfMissing: true, Servers: 1, DisableSplits: true, Now: clock.now}
	e, err := Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { e.Close() }()
	if err := e.CreateTable(ctx, store.TableSpec{Name: "t", Family: "cf"}); err != nil {
		t.Fatal(err)
	}
	for _, row := range []string{"a", "b"} {
		for _, q := range []string{"", "q", "r", "s"} {
			for _, ts := range []int64{10, 20, 30} {
				putAt(t, e, row, q, ts)
			}
		}
	}
	all := "@30,@20,@10,q@30,q@20,q@10,r@30,r@20,r@10,s@30,s@20,s@10"
	checkReads(t, e, "a", all, "@30,q@30,r@30,s@30")

	// Delete (8): exactly one version; at LATEST the newest visible one.
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(e.DeleteVersionAt(ctx, "t", []byte("a"), []byte("q"), 20))
	must(e.DeleteVersionAt(ctx, "t", []byte("a"), []byte("q"), 0))
	checkReads(t, e, "a", "@30,@20,@10,q@10,r@30,r@20,r@10,s@30,s@20,s@10", "@30,q@10,r@30,s@30")
	// DeleteColumn (12): every version <= ts of one column (the empty
	// qualifier is a column too).
	must(e.DeleteColumnAt(ctx, "t", []byte("a"), []byte("r"), 20))
	must(e.DeleteColumnAt(ctx, "t", []byte("a"), []byte(""), 0)) // now = 1000
	checkReads(t, e, "a", "q@10,r@30,s@30,s@20,s@10", "q@10,r@30,s@30")
	// DeleteFamilyVersion (10): every column at exactly ts.
	must(e.DeleteFamilyVersionAt(ctx, "t", []byte("a"), 30))
	checkReads(t, e, "a", "q@10,s@20,s@10", "q@10,s@20")
	// Row b is untouched.
	checkReads(t, e, "b", all, "@30,q@30,r@30,s@30")

	// Later puts the markers cover stay hidden; newer ones show.
	for _, p := range []struct {
		q  string
		ts int64
	}{{"q", 20}, {"q", 30}, {"r", 15}, {"r", 20}, {"s", 30}, {"", 999}, {"", 1000}} {
		putAt(t, e, "a", p.q, p.ts)
	}
	checkReads(t, e, "a", "q@10,s@20,s@10", "q@10,s@20")
	for _, p := range []struct {
		q  string
		ts int64
	}{{"q", 25}, {"r", 21}, {"s", 31}, {"", 1001}} {
		putAt(t, e, "a", p.q, p.ts)
	}
	want, wantLatest := "@1001,q@25,q@10,r@21,s@31,s@20,s@10", "@1001,q@25,r@21,s@31"
	checkReads(t, e, "a", want, wantLatest)

	// Delete at LATEST of a column without versions takes now.
	must(e.DeleteVersionAt(ctx, "t", []byte("c"), []byte("q"), 0))
	putAt(t, e, "c", "q", 1000)
	putAt(t, e, "c", "q", 999)
	checkReads(t, e, "c", "q@999", "q@999")

	// One call, several markers, one now.
	clock.set(2000)
	must(e.DeleteCells(ctx, "t", []byte("b"),
		DeleteMarker{Kind: DeleteVersion, Qualifier: []byte("q")},
		DeleteMarker{Kind: DeleteColumn, Qualifier: []byte("r"), Timestamp: 20},
		DeleteMarker{Kind: DeleteFamilyVersion, Timestamp: 10}))
	checkReads(t, e, "b", "@30,@20,q@20,r@30,s@30,s@20", "@30,q@20,r@30,s@30")
	must(e.DeleteCells(ctx, "t", []byte("b"), DeleteMarker{Kind: DeleteFamily, Timestamp: 20}))
	checkReads(t, e, "b", "@30,r@30,s@30", "@30,r@30,s@30")
	if err := e.DeleteCells(ctx, "t", []byte("b"), DeleteMarker{Kind: 0}); err == nil {
		t.Fatal("bad delete kind accepted")
	}
	if err := e.DeleteColumnAt(ctx, "t", nil, []byte("q"), 1); err == nil {
		t.Fatal("empty row accepted")
	}

	// The markers persist across a reopen.
	must(e.Close())
	opts.CreateIfMissing = false
	if e, err = Open(opts); err != nil {
		t.Fatal(err)
	}
	checkReads(t, e, "a", want, wantLatest)
	checkReads(t, e, "b", "@30,r@30,s@30", "@30,r@30,s@30")
	putAt(t, e, "a", "r", 20)
	putAt(t, e, "a", "s", 30)
	putAt(t, e, "a", "q", 30)
	checkReads(t, e, "a", want, wantLatest)
}

// TestMarkerKeysParse checks that the new marker keys and the old
// DeleteFamily keys parse apart at every timestamp edge.
func TestMarkerKeysParse(t *testing.T) {
	for _, ts := range []int64{0, 1, 1 << 40, math.MaxInt64} {
		cases := []struct {
			key  []byte
			kind byte
			q    string
		}{
			{appendMarkerKey(nil, 7, []byte("row"), 0, ts), kindDeleteFamily, ""},
			{appendFamilyVersionKey(nil, 7, []byte("row"), 0, ts), entryFamilyVersion, ""},
			{appendColumnMarkerKey(nil, 7, []byte("row"), 0, []byte("q\x00"), colDeleteAll, ts), entryDeleteColumn, "q\x00"},
			{appendColumnMarkerKey(nil, 7, []byte("row"), 0, nil, colDeleteOne, ts), entryDeleteVersion, ""},
			{appendCellKey(nil, 7, []byte("row"), 0, []byte("q"), ts), kindPut, "q"},
		}
		for _, c := range cases {
			pl, err := rowPrefixLen(c.key)
			if err != nil {
				t.Fatal(err)
			}
			en, err := parseEntry(c.key[pl:])
			if err != nil {
				t.Fatalf("ts %d kind %#x: %v", ts, c.kind, err)
			}
			if en.kind != c.kind || en.ts != ts || string(unescape(nil, en.qualifier)) != c.q {
				t.Fatalf("ts %d: parsed %+v, want kind %#x q %q", ts, en, c.kind, c.q)
			}
		}
		// Every marker of a family sorts before its cells.
		if string(appendMarkerKey(nil, 7, []byte("row"), 0, ts)) >= string(appendCellKey(nil, 7, []byte("row"), 0, nil, math.MaxInt64)) ||
			string(appendColumnMarkerKey(nil, 7, []byte("row"), 0, []byte("zz"), colDeleteOne, 0)) >= string(appendMarkerKey(nil, 7, []byte("row"), 0, math.MaxInt64)) {
			t.Fatal("marker order")
		}
	}
}
