package results

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func hotKeys(top int, approximate bool, products ...HotKey) *HotKeys {
	h := &HotKeys{Top: top, Approximate: approximate}
	for i := range HotLists {
		*h.List(i).Keys = append([]HotKey(nil), products...)
		for _, k := range products {
			*h.List(i).Total += k.Count * 2
			*h.List(i).Bound = max(*h.List(i).Bound, k.Error)
		}
	}
	return h
}

// summary.json holds the four lists under their names, with totals and
// error bounds by the same names, and reads back whole.
func TestHotKeysJSON(t *testing.T) {
	s := Summary{Version: FormatVersion, HotKeys: hotKeys(10, true, HotKey{Key: "PfHsNeVbRc", Count: 900, Error: 4, Share: 0.9,
		Table: "product-comment", Region: "product-comment,GaA,1.x.", Range: `["GaA", "NAA")`, Server: "rs1", Regions: 1})}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var raw struct {
		HotKeys map[string]json.RawMessage `json:"hot_keys"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"top", "approximate", "products_by_requests", "products_by_rows_written", "users_by_requests", "users_by_rows_written", "totals", "error_bounds"} {
		if raw.HotKeys[name] == nil {
			t.Errorf("hot_keys has no %s: %s", name, b)
		}
	}
	var back Summary
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if got, want := fmt.Sprint(*back.HotKeys), fmt.Sprint(*s.HotKeys); got != want {
		t.Errorf("read back %s, wrote %s", got, want)
	}
	if b, _ := json.Marshal(Summary{}); strings.Contains(string(b), "hot_keys") {
		t.Errorf("a run with no hot keys writes them: %s", b)
	}
}

// The console shows three keys a list in at most 13 lines of 80 columns:
// the list named on its first line, counts marked ≤ when they may be over,
// the server cut, and how many more regions a salted listing spans.
func TestConsoleHotKeys(t *testing.T) {
	var ks []HotKey
	for i := range 10 {
		ks = append(ks, HotKey{Key: fmt.Sprintf("Key%07d", i), Count: int64(1000 - i), Error: 3, Share: 0.5, Table: "product-comment",
			Range:  `[product-comment[prod=TmUKsWFOeR c ts=2026-11-24T21:34:09.578Z len=57], end)`,
			Server: "regionserver-with-a-very-long-name.example.com:16020", Regions: 8})
	}
	out := printed(t, Summary{HotKeys: hotKeys(10, true, ks...)})
	_, block, ok := strings.Cut(out, "hot keys (top 3 of 10; all in summary.json)")
	if !ok {
		t.Fatalf("no hot keys block:\n%s", out)
	}
	var lines []string
	for _, l := range strings.Split(block, "\n")[1:] {
		if !strings.HasPrefix(l, "  ") {
			break
		}
		lines = append(lines, l)
	}
	if len(lines) != 12 {
		t.Fatalf("%d key lines, want 4 lists of 3:\n%s", len(lines), block)
	}
	if !strings.Contains(block, "\n≤ marks an upper bound: ") {
		t.Errorf("the bounds are not explained:\n%s", block)
	}
	for i, l := range lines {
		if n := utf8.RuneCountInString(l); n > lineWidth {
			t.Errorf("%d columns: %q", n, l)
		}
		if !strings.Contains(l, "≤") || !strings.HasSuffix(l, " +7 more") || !strings.Contains(l, "…") {
			t.Errorf("line %q: want a bound, the server or range cut, +7 more", l)
		}
		if labelled := strings.HasPrefix(l, "  "+hotLabels[i/3]); labelled != (i%3 == 0) {
			t.Errorf("line %d %q: list named %v", i, l, labelled)
		}
	}
	if strings.Contains(printed(t, Summary{}), "hot keys") {
		t.Errorf("a hot keys block with none")
	}
	exact := printed(t, Summary{HotKeys: hotKeys(10, true, HotKey{Key: "PfHsNeVbRc", Count: 1234, Share: 0.8312, Table: "user-comment",
		Range: `["GaA", "NAA")`, Server: "rs2", Regions: 1})})
	want := "\n  user rows        PfHsNeVbRc    1234  83.1% rs2 [\"GaA\", \"NAA\")\n"
	if !strings.Contains(exact, want) || strings.Contains(exact, "≤") || strings.Contains(exact, "more") {
		t.Errorf("exact single-region key: want %q in\n%s", want, exact)
	}
}

// Merged runs sum each key's counts. A key one run did not list takes that
// run's last listed count as count and error when its list was full, and
// nothing when the list was short and exact; shares are of the summed
// totals; the merged lists keep the top.
func TestMergeHotKeys(t *testing.T) {
	a := hotKeys(2, false, HotKey{Key: "hot", Count: 100, Region: "r1", Server: "rs1"}, HotKey{Key: "a", Count: 10})
	b := hotKeys(2, false, HotKey{Key: "hot", Count: 50, Region: "r2"}, HotKey{Key: "b", Count: 20})
	c := hotKeys(2, false, HotKey{Key: "hot", Count: 5}) // short: it counted nothing else
	m, err := Merge([]Summary{sumWith(a), sumWith(b), sumWith(c), sumWith(nil)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	h := m.HotKeys
	want := []HotKey{{Key: "hot", Count: 155, Region: "r1", Server: "rs1"}, {Key: "b", Count: 30, Error: 10}}
	for i := range HotLists {
		got := *h.List(i).Keys
		if len(got) != 2 || got[0].Key != want[0].Key || got[0].Count != want[0].Count || got[0].Error != 0 ||
			got[0].Region != "r1" || got[1].Key != want[1].Key || got[1].Count != want[1].Count || got[1].Error != want[1].Error {
			t.Errorf("%s: %+v, want %+v", HotLists[i], got, want)
		}
		if *h.List(i).Total != 370 || got[0].Share != 155.0/370 || *h.List(i).Bound != 30 {
			t.Errorf("%s: total %d, share %v, bound %d", HotLists[i], *h.List(i).Total, got[0].Share, *h.List(i).Bound)
		}
	}
	if !h.Approximate || h.Top != 2 {
		t.Errorf("approximate %v, top %d: past a full list counts are bounds", h.Approximate, h.Top)
	}
	if m, _ := Merge([]Summary{sumWith(nil)}, nil); m.HotKeys != nil {
		t.Errorf("hot keys from runs with none: %+v", m.HotKeys)
	}
}

func sumWith(h *HotKeys) Summary {
	return Summary{Version: FormatVersion, HotKeys: h}
}
