package wire

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"commentbench/hbase/pb"
)

// The worked example of §5.1.
func TestRegionNameWorkedExample(t *testing.T) {
	const want = "t1,row5,1700000000000.2f0a1f39f4faead3f95c55463a2f8c86."
	name := RegionName("t1", []byte("row5"), 1700000000000)
	if string(name) != want {
		t.Fatalf("RegionName = %s, want %s", name, want)
	}
	table, start, id, err := ParseRegionName(name)
	if err != nil || table != "t1" || string(start) != "row5" || id != 1700000000000 {
		t.Fatalf("parse: %q %q %d %v", table, start, id, err)
	}
	enc, err := EncodedRegionName(name)
	if err != nil || enc != "2f0a1f39f4faead3f95c55463a2f8c86" {
		t.Fatalf("encoded name %q %v", enc, err)
	}
}

func TestParseRegionNameRoundTrip(t *testing.T) {
	cases := []struct {
		table string
		start []byte
		id    uint64
	}{
		{"t", []byte("a,b,,c,"), 42},                // commas inside the start key
		{"ns:tbl", nil, 1},                          // first region
		{"t", []byte{0, ',', 0xff, '.'}, 1<<64 - 1}, // binary key, dot, max id
		{"t-x", []byte(",,,"), 0},
	}
	for _, c := range cases {
		name := RegionName(c.table, c.start, c.id)
		table, start, id, err := ParseRegionName(name)
		if err != nil || table != c.table || !bytes.Equal(start, c.start) || id != c.id {
			t.Errorf("%q: got %q %q %d %v", name, table, start, id, err)
		}
	}
}

func TestParseMetaRegionName(t *testing.T) {
	table, start, id, err := ParseRegionName([]byte(MetaRegionName))
	if err != nil || table != MetaTable || len(start) != 0 || id != 1 {
		t.Fatalf("%q %q %d %v", table, start, id, err)
	}
	if enc, err := EncodedRegionName([]byte(MetaRegionName)); err != nil || enc != MetaEncodedName {
		t.Fatalf("meta encoded name %q %v", enc, err)
	}
	if _, err := EncodedRegionName([]byte("t,,5")); err == nil {
		t.Fatal("old-format user region has an encoded name")
	}
}

func TestParseRegionNameRejects(t *testing.T) {
	good := string(RegionName("t1", []byte("row5"), 1700000000000))
	for _, in := range []string{
		"", "dummy", "t1", "t1,row5", ",row5,1", "t,,", "t,,x1", "t,,1.", "t,,-1",
		"t,,123456789012345678901", // overflows uint64
		"t,,01",
		strings.Replace(good, "2f0a", "2f0b", 1),
		strings.Replace(good, "row5", "row6", 1),
		strings.TrimSuffix(good, "."),
		good + ".",
	} {
		if _, _, _, err := ParseRegionName([]byte(in)); !errors.Is(err, ErrRegionName) {
			t.Errorf("%q: %v", in, err)
		}
	}
}

func TestTableText(t *testing.T) {
	for text, want := range map[string]string{"t": "t", "default:t": "t", "hbase:meta": "hbase:meta", "ns:a": "ns:a"} {
		tn := TableFromText(text)
		if tn.Namespace == nil || tn.Qualifier == nil {
			t.Fatalf("%q: required field unset", text)
		}
		if got := TableText(tn); got != want {
			t.Errorf("TableText(TableFromText(%q)) = %q, want %q", text, got, want)
		}
	}
	if got := TableText(&pb.TableName{Namespace: []byte("default"), Qualifier: []byte("x")}); got != "x" {
		t.Errorf("default namespace text %q", got)
	}
}

func TestMetaRanges(t *testing.T) {
	start, stop := MetaLookupRange("default:t", []byte("k,1"))
	if string(start) != "t,k,1,:" || string(stop) != "t" {
		t.Fatalf("lookup range %q %q", start, stop)
	}
	table, key, err := ParseMetaLookupKey(start)
	if err != nil || table != "t" || string(key) != "k,1" {
		t.Fatalf("parse lookup key %q %q %v", table, key, err)
	}
	if _, key, _ := ParseMetaLookupKey([]byte("t,k,99999999999999")); string(key) != "k" {
		t.Fatalf("Java-style lookup key parsed to %q", key)
	}
	if _, _, err := ParseMetaLookupKey([]byte("t,k")); err == nil {
		t.Fatal("lookup key with one comma accepted")
	}
	start, _ = MetaLookupRange("t", make([]byte, 40000))
	if len(start) != MaxRowLen {
		t.Fatalf("long key gives a %d-byte start row", len(start))
	}
	start, stop = MetaListRange("t")
	if string(start) != "t" || string(stop) != "t." {
		t.Fatalf("list range %q %q", start, stop)
	}
}

// §5.7: with regions "t,," and "t,a," a lookup of "a\x01" must land on
// "t,a,", which plain byte order gets wrong.
func TestCompareMetaKeys(t *testing.T) {
	rows := [][]byte{
		RegionName("t", nil, 1),
		RegionName("t", []byte("a"), 1),
		RegionName("t", []byte("a"), 2),
		RegionName("t", []byte("a\x01"), 1),
		RegionName("t", []byte("b"), 1),
		RegionName("t-x", nil, 1),
		RegionName("s", []byte("zz"), 1),
		[]byte("t"),
		[]byte(MetaRegionName),
	}
	sorted := slices.Clone(rows)
	slices.SortFunc(sorted, CompareMetaKeys)
	wantOrder := []int{8, 6, 7, 0, 1, 2, 3, 4, 5}
	for i, j := range wantOrder {
		if !bytes.Equal(sorted[i], rows[j]) {
			t.Fatalf("position %d holds %q, want %q", i, sorted[i], rows[j])
		}
	}
	for _, a := range rows {
		for _, b := range rows {
			if CompareMetaKeys(a, b) != -CompareMetaKeys(b, a) {
				t.Fatalf("not antisymmetric on %q, %q", a, b)
			}
		}
	}

	// The lookup row "t,a\x01,:" sorts bytewise before its region "t,a,1.…"
	// but must sort after it (and before the next table) in meta order.
	table := [][]byte{RegionName("t", nil, 1), RegionName("t", []byte("a"), 1)}
	key, _ := MetaLookupRange("t", []byte("a\x01"))
	if bytes.Compare(key, table[1]) >= 0 {
		t.Fatal("example no longer shows the bytewise trap")
	}
	if CompareMetaKeys(table[1], key) >= 0 || CompareMetaKeys(key, []byte("t.")) >= 0 {
		t.Fatal("lookup key does not sort after its region")
	}
	if CompareMetaKeys([]byte("t"), table[0]) >= 0 {
		t.Fatal("bare table does not sort before its regions")
	}
}

func TestRegionInfoValue(t *testing.T) {
	ri := &pb.RegionInfo{RegionId: new(uint64), TableName: TableFromText("t"), StartKey: []byte("a")}
	*ri.RegionId = 7
	v, err := EncodeRegionInfo(ri)
	if err != nil || !bytes.HasPrefix(v, []byte("PBUF")) {
		t.Fatalf("%q %v", v, err)
	}
	got, err := DecodeRegionInfo(v)
	if err != nil || got.GetRegionId() != 7 || string(got.GetStartKey()) != "a" {
		t.Fatalf("%v %v", got, err)
	}
	if _, err := DecodeRegionInfo(v[4:]); err == nil {
		t.Fatal("value without PBUF accepted")
	}
	if _, err := EncodeRegionInfo(&pb.RegionInfo{}); err == nil {
		t.Fatal("region info without required fields encoded")
	}
}
