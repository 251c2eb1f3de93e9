package store

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

func TestPrefixEnd(t *testing.T) {
	cases := []struct{ in, want []byte }{
		{[]byte("abc"), []byte("abd")},
		{[]byte{'a', 0xff}, []byte{'b'}},
		{[]byte{0xff, 0xff}, nil},
		{nil, nil},
	}
	for _, c := range cases {
		if got := PrefixEnd(c.in); !bytes.Equal(got, c.want) || (got == nil) != (c.want == nil) {
			t.Errorf("PrefixEnd(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// Property: every key with the prefix sorts below PrefixEnd, and the first
// key after the prefix range sorts at or above it.
func TestPrefixEndBoundsProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		p := randBytes(r, 1+r.IntN(4))
		end := PrefixEnd(p)
		k := append(bytes.Clone(p), randBytes(r, r.IntN(4))...)
		if end != nil && bytes.Compare(k, end) >= 0 {
			t.Fatalf("key %x with prefix %x not below end %x", k, p, end)
		}
		other := randBytes(r, 1+r.IntN(5))
		if !bytes.HasPrefix(other, p) && bytes.Compare(other, p) > 0 && end != nil && bytes.Compare(other, end) < 0 {
			t.Fatalf("key %x outside prefix %x is below end %x", other, p, end)
		}
	}
}

func randBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.IntN(3)) + 0xfd*byte(r.IntN(2)) // bias towards edges 0x00..0x02, 0xfd..0xff
	}
	return b
}

func TestPrefixFilter(t *testing.T) {
	f := PrefixFilter{Prefix: []byte("bc")}
	for _, c := range []struct {
		row        string
		rev        bool
		keep, done bool
	}{
		{"a", false, false, false},
		{"bcx", false, true, false},
		{"bd", false, false, true},
		{"b", false, false, false}, // shorter than the prefix: dropped, never decides
		{"bd", true, false, false},
		{"bb", true, false, true},
	} {
		keep, done := f.Decide([]byte(c.row), c.rev)
		if keep != c.keep || done != c.done {
			t.Errorf("Decide(%q, rev=%v) = %v,%v want %v,%v", c.row, c.rev, keep, done, c.keep, c.done)
		}
	}
}

func TestRowFilterOps(t *testing.T) {
	v := []byte("m")
	want := map[CompareOp][3]bool{ // rows "a", "m", "z"
		Less: {true, false, false}, LessOrEqual: {true, true, false}, Equal: {false, true, false},
		NotEqual: {true, false, true}, GreaterOrEqual: {false, true, true}, Greater: {false, false, true},
	}
	for op, w := range want {
		for i, row := range []string{"a", "m", "z"} {
			keep, done := RowFilter{Op: op, Value: v}.Decide([]byte(row), false)
			if keep != w[i] || done {
				t.Errorf("%v %q: keep=%v done=%v, want keep=%v", op, row, keep, done, w[i])
			}
		}
	}
}
