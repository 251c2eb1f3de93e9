package keys

import (
	"bytes"
	"encoding/binary"
	"slices"
	"sort"
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
		if _, err := Seed.Table(Comment).SplitPoints(RandomLetters, n); err == nil || !strings.Contains(err.Error(), "1..65536") {
			t.Errorf("comment table SplitPoints(n=%d): err %v", n, err)
		}
	}
	for _, a := range []string{"", "a", "ba", "aab"} {
		if _, err := SplitPoints(Scheme{Name: "x", Alphabet: a}, 4); err == nil {
			t.Errorf("alphabet %q accepted", a)
		}
		if _, err := Seed.Table(User).SplitPoints(Scheme{Name: "x", Alphabet: a}, 4); err == nil {
			t.Errorf("user table: alphabet %q accepted", a)
		}
	}
}

// TestSeedSplitsAreIDSplits: the old code cut one set of splits over the
// id alphabet and used it for every table, since every seed key leads with
// an id; the seed and unique designs' tables must cut exactly there.
func TestSeedSplitsAreIDSplits(t *testing.T) {
	for _, s := range []Scheme{RandomLetters, Base36} {
		for _, n := range []int{1, 2, 3, 8, 16, 100, 1000, 4096, MaxRegions} {
			want, err := oldSplitPoints(s, n)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := SplitPoints(s, n); err != nil || !equalSplits(got, want) {
				t.Fatalf("SplitPoints(%s, %d) differs from the old id splits: %v", s.Name, n, err)
			}
			for _, d := range allDesigns {
				for _, table := range Tables {
					got, err := d.Table(table).SplitPoints(s, n)
					if err != nil || !equalSplits(got, want) {
						t.Fatalf("%s %s %s n=%d: %d splits, %v; want the old id splits (%d)", d.Name(), table, s.Name, n, len(got), err, len(want))
					}
				}
			}
		}
	}
	// An alphabet too small for the id alone: the entity tables, whose key
	// is the id, still cut where the old code did.
	bits := Scheme{Name: "bits", Alphabet: "01"}
	for _, n := range []int{2, 16, 1024} {
		want, err := oldSplitPoints(bits, n)
		if err != nil {
			t.Fatal(err)
		}
		for _, table := range []string{User, Seller, Product, Order} {
			if got, err := Seed.Table(table).SplitPoints(bits, n); err != nil || !equalSplits(got, want) {
				t.Errorf("seed %s bits n=%d: %q, %v; want %q", table, n, got, err, want)
			}
		}
	}
}

func equalSplits(a, b [][]byte) bool { return slices.EqualFunc(a, b, bytes.Equal) }

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

// TestSplitsFitEveryTable: every table's rows of uniformly random ids
// spread evenly over its own split points, in every built-in design whose
// tables are cut by region count.
func TestSplitsFitEveryTable(t *testing.T) {
	r := newRand(8)
	const n, keys = 8, 20_000
	for _, d := range builtins(t) {
		for _, table := range Tables {
			tk := d.Table(table)
			if !tk.Splits.Regions {
				continue
			}
			splits, err := tk.SplitPoints(RandomLetters, n)
			if err != nil {
				t.Fatal(err)
			}
			counts := make([]int, n)
			for range keys {
				counts[RegionOf(splits, enc(t, d, genKey(r, d, table)))]++
			}
			for i, c := range counts {
				if c < keys*8/10/n || c > keys*12/10/n {
					t.Errorf("%s %s: region %d holds %d of %d", d.Name(), table, i, c, keys)
				}
			}
		}
	}
}

// regionBySearch is the region HBase routes key to: the last split at or
// below it. It is written out here rather than calling RegionOf, so a
// mistake there cannot hide one in the splits.
func regionBySearch(splits [][]byte, key []byte) int {
	return sort.Search(len(splits), func(i int) bool { return bytes.Compare(key, splits[i]) < 0 })
}

// seqKeys encodes n keys of every table from sequential ids, as a run with
// --ids sequential writes them.
func seqKeys(t testing.TB, d *Design, n int) map[string][][]byte {
	g := NewSequential(0, 1)
	out := map[string][][]byte{}
	for i := range n {
		id := g.Next()
		for _, table := range Tables {
			k := Key{Table: table, ID: id, UserID: id, ProductID: id, OrderID: id,
				Timestamp: 1_700_000_000_000 + int64(i), ContentLen: i % 500, Rank: 1 + i%MaxRank}
			out[table] = append(out[table], enc(t, d, k))
		}
	}
	return out
}

// TestHashedSpreadsSequentialIDs: hashed leads every key with 2 bytes of
// a hash of its id, so counter ids spread over the regions, while the
// seed's keys, led by the id itself, pile into one.
func TestHashedSpreadsSequentialIDs(t *testing.T) {
	const regions, n = 8, 20_000
	hottest := func(d *Design, table string, keys [][]byte) int {
		splits, err := d.Table(table).SplitPoints(Base36, regions)
		if err != nil {
			t.Fatal(err)
		}
		if len(splits) != regions-1 {
			t.Fatalf("%s %s: %d splits, want %d", d.Name(), table, len(splits), regions-1)
		}
		counts := make([]int, regions)
		for _, k := range keys {
			i := regionBySearch(splits, k)
			if i != RegionOf(splits, k) {
				t.Fatalf("RegionOf(%q) = %d, sort.Search says %d", k, RegionOf(splits, k), i)
			}
			counts[i]++
		}
		return slices.Max(counts)
	}
	hashed := builtin(t, "hashed")
	hk, sk := seqKeys(t, hashed, n), seqKeys(t, Seed, n)
	for _, table := range Tables {
		if h := hottest(hashed, table, hk[table]); h > n*2/regions {
			t.Errorf("hashed %s: the hottest of %d regions holds %d of %d sequential keys, want <= %d", table, regions, h, n, n*2/regions)
		}
		if s := hottest(Seed, table, sk[table]); s < n/2 {
			t.Errorf("seed %s: the hottest of %d regions holds only %d of %d sequential keys, want >= half", table, regions, s, n)
		}
	}
}

// TestHashedSplitsSpreadOverHashSpace: the hash leads, so the cuts are
// evenly spaced 2-byte hash values (a third byte, from the id, once the
// regions need more than 65536/1000 prefixes each).
func TestHashedSplitsSpreadOverHashSpace(t *testing.T) {
	hashed := builtin(t, "hashed")
	for _, table := range Tables {
		for _, n := range []int{2, 8, 16, 65, 100, 1000} {
			splits, err := hashed.Table(table).SplitPoints(RandomLetters, n)
			if err != nil || len(splits) != n-1 {
				t.Fatalf("%s n=%d: %d splits, %v", table, n, len(splits), err)
			}
			for i, s := range splits {
				if len(s) < 2 || (n <= 65) != (len(s) == 2) {
					t.Fatalf("%s n=%d: split %d %x: want 2 bytes up to 65 regions, 3 above", table, n, i, s)
				}
				ideal := float64(i+1) * 65536 / float64(n)
				if got := float64(binary.BigEndian.Uint16(s)); got < ideal-1 || got > ideal+1 {
					t.Fatalf("%s n=%d: split %d at hash %v, want %.1f", table, n, i, got, ideal)
				}
			}
		}
	}
}

// TestSaltedSplitsByBucket: salted's listing tables start a region at each
// of the salt's 8 buckets whatever the run's region count, and each row
// lands in its bucket's region.
func TestSaltedSplitsByBucket(t *testing.T) {
	salted := builtin(t, "salted")
	r := newRand(14)
	for _, table := range []string{UserComment, ProductComment} {
		tk := salted.Table(table)
		if !tk.Splits.Buckets {
			t.Fatalf("%s: splits %+v, want buckets", table, tk.Splits)
		}
		for _, regions := range []int{1, 8, 100} {
			splits, err := tk.SplitPoints(RandomLetters, regions)
			if err != nil {
				t.Fatal(err)
			}
			want := [][]byte{{1}, {2}, {3}, {4}, {5}, {6}, {7}}
			if !equalSplits(splits, want) {
				t.Fatalf("%s regions=%d: splits %x, want one per bucket", table, regions, splits)
			}
		}
		splits, _ := tk.SplitPoints(RandomLetters, 8)
		counts := make([]int, 8)
		for range 8000 {
			k := fullKey(r, table)
			b := enc(t, salted, k)
			i := RegionOf(splits, b)
			if want := Salt(8, k.OrderID, k.ProductID); i != want {
				t.Fatalf("%s: key of bucket %d in region %d", table, want, i)
			}
			counts[i]++
		}
		for i, c := range counts {
			if c < 800 || c > 1200 {
				t.Errorf("%s: bucket region %d holds %d of 8000", table, i, c)
			}
		}
	}
	// The tables without buckets are cut by the run's region count.
	if splits, err := salted.Table(User).SplitPoints(RandomLetters, 4); err != nil || len(splits) != 3 {
		t.Errorf("salted user: %d splits, %v; want 3", len(splits), err)
	}
}

// TestSplitSpecs: a count ignores the run's regions, an explicit list is
// taken as written, and buckets follow a literal before the salt.
func TestSplitSpecs(t *testing.T) {
	src := strings.NewReplacer(
		"  user:\n    key: id\n", "  user:\n    key: id\n    splits: 5\n",
		"  seller:\n    key: id\n", "  seller:\n    key: id\n    splits: [AAA, 0x6200, c]\n",
		"  order:\n    key: id\n", "  order:\n    key: lit(o) salt(id,300) id\n    splits: buckets\n",
	).Replace(string(Seed.Source()))
	d, err := Parse("specs.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if s, err := d.Table(User).SplitPoints(RandomLetters, 100); err != nil || len(s) != 4 {
		t.Errorf("splits: 5 gave %d splits, %v", len(s), err)
	}
	if s, err := d.Table(Seller).SplitPoints(RandomLetters, 100); err != nil || !equalSplits(s, [][]byte{[]byte("AAA"), {0x62, 0}, []byte("c")}) {
		t.Errorf("explicit splits: %q, %v", s, err)
	}
	s, err := d.Table(Order).SplitPoints(RandomLetters, 100)
	if err != nil || len(s) != 299 || !bytes.Equal(s[0], []byte{'o', 0, 1}) || !bytes.Equal(s[298], []byte{'o', 1, 43}) {
		t.Errorf("buckets after a literal, 2-byte salt: %d splits, first %x, %v", len(s), s[0], err)
	}
	tl := builtin(t, "time-led").Table(ProductComment)
	if s, err := tl.SplitPoints(RandomLetters, 100); err != nil || len(s) != 7 || len(s[0]) != 8 {
		t.Errorf("time-led product-comment: %x, %v; want its 7 monthly splits", s, err)
	}
}
