package check

import (
	"fmt"
	"strings"
	"testing"
)

// filed is what a referrers filed: key -> "count first", in key order,
// keys repeated across flushes joined by "|".
func filed(t *testing.T, r *referrers) map[string]string {
	t.Helper()
	must(t, r.flush())
	got := map[string]string{}
	for rec, err := range sorted(r.out) {
		must(t, err)
		n, first := decodeReferrers(rec.Val)
		s := fmt.Sprintf("%d %s", n, first)
		if prev, ok := got[string(rec.Key)]; ok {
			s = prev + "|" + s
		}
		got[string(rec.Key)] = s
	}
	return got
}

// Keys short enough to be held inline and keys too long for that are
// counted alike, each with its first referrer; a key of 23 bytes is the
// longest held inline, and one that is a prefix of another (or another
// with zero bytes after it) is another key.
func TestReferrersCountEveryKeyLength(t *testing.T) {
	c := &checker{o: Options{TempDir: t.TempDir(), MemLimit: 1 << 10}}
	r := c.referrers()
	long := strings.Repeat("L", 40)
	k23, k24, k24y := strings.Repeat("x", 23), strings.Repeat("x", 24), strings.Repeat("x", 23)+"y"
	adds := [][2]string{{"u1", "c1"}, {long, "c2"}, {"u1", "c3"}, {k23, "c4"}, {k24, "c5"}, {long, "c6"}, {"u", "c7"}, {k24, "c8"}, {"", "c9"}, {k24y, "c10"}, {"u\x00", "c11"}}
	for _, a := range adds {
		must(t, r.add([]byte(a[0]), []byte(a[1])))
	}
	want := map[string]string{"u1": "2 c1", long: "2 c2", k23: "1 c4", k24: "2 c5", "u": "1 c7", "": "1 c9", k24y: "1 c10", "u\x00": "1 c11"}
	if got := filed(t, r); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("filed %v, want %v", got, want)
	}
	if len(r.short)+len(r.long)+len(r.refs) != 0 {
		t.Fatalf("a flush left %d short, %d long keys and %d referrers", len(r.short), len(r.long), len(r.refs))
	}
}

// Past maxReferenced keys the counts are filed and counting starts again:
// a key seen on both sides of a flush is filed twice, each with its count
// and its first referrer since the last flush.
func TestReferrersFlushAtTheLimit(t *testing.T) {
	c := &checker{o: Options{TempDir: t.TempDir()}}
	r := c.referrers()
	must(t, r.add([]byte("hot"), []byte("first")))
	for i := range maxReferenced - 1 {
		must(t, r.add(fmt.Appendf(nil, "k%06d", i), []byte("c")))
	}
	must(t, r.add([]byte("hot"), []byte("second")))
	if len(r.refs) != maxReferenced {
		t.Fatalf("%d keys counted before the limit, want %d", len(r.refs), maxReferenced)
	}
	must(t, r.add([]byte("new"), []byte("n1"))) // the limit: a flush, then this key
	must(t, r.add([]byte("hot"), []byte("third")))
	if len(r.refs) != 2 {
		t.Fatalf("%d keys counted after the flush, want 2", len(r.refs))
	}
	got := filed(t, r)
	if got["hot"] != "2 first|1 third" || got["new"] != "1 n1" || got["k000007"] != "1 c" || len(got) != maxReferenced+1 {
		t.Fatalf("hot %q, new %q, k000007 %q, %d keys; want 2 first|1 third, 1 n1, 1 c, %d",
			got["hot"], got["new"], got["k000007"], len(got), maxReferenced+1)
	}
}
