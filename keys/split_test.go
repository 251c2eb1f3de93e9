package keys

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

func TestSplitPointsShape(t *testing.T) {
	for _, s := range []Scheme{RandomLetters, Base36, {Name: "bits", Alphabet: "01"}} {
		for _, n := range []int{1, 2, 3, 16, 100, 1000, MaxRegions} {
			splits, err := SplitPoints(s, n)
			if s.Name == "bits" && n > 1<<IDLen {
				if err == nil {
					t.Errorf("%s n=%d: want an error, a 10-symbol binary prefix has 1024 values", s.Name, n)
				}
				continue
			}
			if err != nil || len(splits) != n-1 {
				t.Fatalf("%s n=%d: %d splits, %v", s.Name, n, len(splits), err)
			}
			for i, k := range splits {
				if len(k) == 0 || len(k) > IDLen || strings.Trim(string(k), s.Alphabet) != "" {
					t.Fatalf("%s n=%d: split %q is not an id prefix", s.Name, n, k)
				}
				if i > 0 && bytes.Compare(splits[i-1], k) >= 0 {
					t.Fatalf("%s n=%d: split %d %q not above %q", s.Name, n, i, k, splits[i-1])
				}
			}
		}
	}
}

// TestSplitPointsExact: 52² = 2704 ≥ 2000 prefixes, half of them is 1352 =
// 26·52, i.e. "aA": upper-case-led ids in one region, lower-case in the other.
func TestSplitPointsExact(t *testing.T) {
	splits, err := SplitPoints(RandomLetters, 2)
	if err != nil || len(splits) != 1 || string(splits[0]) != "aA" {
		t.Errorf("SplitPoints(RandomLetters, 2) = %q, %v; want [aA]", splits, err)
	}
}

func TestSplitPointsErrors(t *testing.T) {
	for _, n := range []int{0, -1, MaxRegions + 1} {
		if _, err := SplitPoints(RandomLetters, n); err == nil || !strings.Contains(err.Error(), "1..65536") {
			t.Errorf("SplitPoints(n=%d): err %v", n, err)
		}
	}
	for _, a := range []string{"", "a", "ba", "aab"} {
		if _, err := SplitPoints(Scheme{Name: "x", Alphabet: a}, 4); err == nil {
			t.Errorf("alphabet %q accepted", a)
		}
	}
}

const sample = 100_000

func regionCounts(splits [][]byte, ids []string) []int {
	counts := make([]int, len(splits)+1)
	for _, id := range ids {
		counts[RegionOf(splits, []byte(id))]++
	}
	return counts
}

func draw(g IDGen, n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = g.Next()
	}
	return ids
}

func TestSplitPointsEven(t *testing.T) {
	b36, err := NewRandomIn(newRand(7), Base36)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []IDGen{NewRandom(newRand(6)), b36} {
		const n = 16
		splits, err := SplitPoints(g.Scheme(), n)
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range regionCounts(splits, draw(g, sample)) {
			if c < sample*8/10/n || c > sample*12/10/n {
				t.Errorf("%s: region %d holds %d of %d ids, want about %d", g.Scheme().Name, i, c, sample, sample/n)
			}
		}
	}
}

// TestHexSplitPointsLeaveRegionsEmpty: letter ids sort after every digit, so
// the regions "0".."8" get nothing and "9" (all upper case) and "f" (f..z)
// take almost everything.
func TestHexSplitPointsLeaveRegionsEmpty(t *testing.T) {
	splits := HexSplitPoints(16)
	if len(splits) != 15 || string(splits[0]) != "10000000" || string(splits[14]) != "f0000000" {
		t.Fatalf("HexSplitPoints(16) = %q", splits)
	}
	counts := regionCounts(splits, draw(NewRandom(newRand(6)), sample))
	empty := 0
	for _, c := range counts {
		if c == 0 {
			empty++
		}
	}
	slices.Sort(counts)
	if top2 := counts[15] + counts[14]; empty < 9 || top2 < sample*85/100 {
		t.Errorf("hex splits: %d of 16 regions empty, top two hold %d of %d; want >= 9 and > 85%%", empty, top2, sample)
	}
	if HexSplitPoints(1) != nil || HexSplitPoints(0) != nil {
		t.Error("HexSplitPoints(n<2) should give no split keys")
	}
}

// TestSequentialIdsHitOneRegion: on a table pre-split for base-36 ids, a
// counter's ids all fall in the first region (and, as the table grows and
// splits, in the last): the hotspot.
func TestSequentialIdsHitOneRegion(t *testing.T) {
	splits, err := SplitPoints(Base36, 16)
	if err != nil {
		t.Fatal(err)
	}
	counts := regionCounts(splits, draw(NewSequential(0, 1), sample))
	if counts[0] != sample {
		t.Errorf("sequential ids by region: %v; want all %d in region 0", counts, sample)
	}
}

func TestRegionOf(t *testing.T) {
	splits := [][]byte{[]byte("b"), []byte("d")}
	for key, want := range map[string]int{"": 0, "a": 0, "azzz": 0, "b": 1, "bA": 1, "c": 1, "d": 2, "zz": 2} {
		if got := RegionOf(splits, []byte(key)); got != want {
			t.Errorf("RegionOf(%q) = %d, want %d", key, got, want)
		}
	}
	if RegionOf(nil, []byte("x")) != 0 {
		t.Error("no splits: one region")
	}
}

// TestSplitsFitEveryTable: a row key of every table is routed by its leading
// id, so index and comment rows of uniformly random ids spread evenly too.
func TestSplitsFitEveryTable(t *testing.T) {
	r := newRand(8)
	const n = 8
	splits, err := SplitPoints(RandomLetters, n)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range allLayouts {
		for _, table := range Tables {
			counts := make([]int, n)
			for range 20_000 {
				counts[RegionOf(splits, mustOf(t)(Encode(l, genKey(r, l, table))))]++
			}
			for i, c := range counts {
				if c < 20_000*8/10/n || c > 20_000*12/10/n {
					t.Errorf("%s %s: region %d holds %d of 20000", l.Name(), table, i, c)
				}
			}
		}
	}
}
