package embedded

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"commentbench/store"
)

// A table takes up to 256 families, each named up to 255 bytes; one more
// of either is refused.
func TestFamilyLimits(t *testing.T) {
	e := openMem(t, Options{DisableSplits: true})
	names := func(n int) []string {
		var out []string
		for i := range n {
			out = append(out, fmt.Sprintf("f%03d", i))
		}
		return out
	}
	if err := e.CreateTable(ctx, store.TableSpec{Name: "max", Families: names(maxFamilies)}); err != nil {
		t.Fatalf("%d families: %v", maxFamilies, err)
	}
	// The last family is a byte of its own: writes and reads reach it.
	mustUpdate(t, e, "max", "r", puts(1, "f255:q=last", "f064:q=mid", "f000:q=first"))
	if got := mustGetRow(t, e, "max", "r", Read{Families: []string{"f255", "f064"}}); got != "f064:q=mid@1 f255:q=last@1" {
		t.Fatalf("families 64 and 255: %s", got)
	}
	if got := mustGetRow(t, e, "max", "r", Read{Families: []string{"f063"}}); got != "" {
		t.Fatalf("family 63: %s", got)
	}
	if err := e.CreateTable(ctx, store.TableSpec{Name: "over", Families: names(maxFamilies + 1)}); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("%d families: %v", maxFamilies+1, err)
	}
	long := strings.Repeat("n", math.MaxUint8)
	if err := e.CreateTable(ctx, store.TableSpec{Name: "long", Family: long}); err != nil {
		t.Fatalf("a family name of 255 bytes: %v", err)
	}
	if err := e.CreateTable(ctx, store.TableSpec{Name: "longer", Family: long + "n"}); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("a family name of 256 bytes: %v", err)
	}
	if err := e.CreateTableWith(ctx, store.TableSpec{Name: "neg", Family: "f"}, TableOptions{MaxVersions: map[string]int{"f": -1}}); !errors.Is(err, store.ErrInvalid) {
		t.Fatalf("VERSIONS -1: %v", err)
	}
	if err := e.CreateTableWith(ctx, store.TableSpec{Name: "zero", Family: "f"}, TableOptions{MaxVersions: map[string]int{"f": 0}}); err != nil {
		t.Fatalf("VERSIONS 0 (no cap): %v", err)
	}
}

// A read's time range may be empty (MinTs == MaxTs) but not inverted, and
// neither bound nor the version count may be negative.
func TestReadRangeChecks(t *testing.T) {
	e := openMem(t, Options{DisableSplits: true})
	mustCreate(t, e, "t")
	mustPut(t, e, "t", "r", store.Cell{Qualifier: []byte("q"), Value: []byte("v"), Timestamp: 5})
	for _, c := range []struct {
		rd   Read
		want string
		bad  bool
	}{
		{Read{MinTs: 5, MaxTs: 5}, "", false},
		{Read{MinTs: 5, MaxTs: 6}, "cf:q=v@5", false},
		{Read{MinTs: 0, MaxTs: 5}, "", false},
		{Read{MinTs: 6}, "", false},
		{Read{MinTs: 5}, "cf:q=v@5", false},
		{Read{MinTs: 6, MaxTs: 5}, "", true},
		{Read{MinTs: -1}, "", true},
		{Read{MaxVersions: -1}, "", true},
		{Read{MaxVersions: 0}, "cf:q=v@5", false},
	} {
		r, err := e.GetRow(ctx, "t", []byte("r"), c.rd)
		if c.bad {
			if !errors.Is(err, store.ErrInvalid) {
				t.Errorf("%+v: %v, want ErrInvalid", c.rd, err)
			}
			continue
		}
		if err != nil || rowString(r) != c.want {
			t.Errorf("%+v: %q, %v; want %q", c.rd, rowString(r), err, c.want)
		}
	}
}

// On a CellTTL table an empty value reads back empty, with a TTL or
// without; a cell with a TTL so long its end overflows lives for ever.
func TestCellTTLEdgeValues(t *testing.T) {
	clk := newClock(1000)
	e := openMem(t, Options{Now: clk.now, DisableSplits: true})
	if err := e.CreateTableWith(ctx, store.TableSpec{Name: "t", Family: "f"}, TableOptions{CellTTL: true}); err != nil {
		t.Fatal(err)
	}
	mustUpdate(t, e, "t", "r", RowMutation{Puts: []Put{
		{Qualifier: []byte("plain"), Value: []byte{}},
		{Qualifier: []byte("brief"), Value: []byte{}, TTL: 10},
		{Qualifier: []byte("ever"), Value: []byte("x"), TTL: math.MaxInt64},
	}})
	if got := mustGetRow(t, e, "t", "r", Read{}); got != "f:brief=@1000 f:ever=x@1000 f:plain=@1000" {
		t.Fatalf("row: %q", got)
	}
	clk.set(math.MaxInt64 - 1)
	if got := mustGetRow(t, e, "t", "r", Read{}); got != "f:ever=x@1000 f:plain=@1000" {
		t.Fatalf("at the end of time: %q", got)
	}
	if got := sealValue(nil, []byte("v"), 10, 0); string(got) != "\x00v" {
		t.Fatalf("sealed without TTL: %q", got)
	}
	if got := sealValue(nil, []byte("v"), 10, 5); string(got) != "\x01\x00\x00\x00\x00\x00\x00\x00\x0fv" {
		t.Fatalf("sealed with TTL 5 at 10: %q", got)
	}
	for _, bad := range [][]byte{nil, {2}, {valueExpiring, 0, 0}} {
		if _, _, err := openValue(bad, 0); !errors.Is(err, errCorruptValue) {
			t.Errorf("openValue(%q): %v", bad, err)
		}
	}
}

// A one-family table's VERSIONS caps its reads too.
func TestOneFamilyMaxVersions(t *testing.T) {
	e := openMem(t, Options{DisableSplits: true})
	if err := e.CreateTableWith(ctx, store.TableSpec{Name: "t", Family: "f"}, TableOptions{MaxVersions: map[string]int{"f": 2}}); err != nil {
		t.Fatal(err)
	}
	for ts := int64(1); ts <= 4; ts++ {
		mustUpdate(t, e, "t", "r", puts(ts, fmt.Sprintf("f:q=%d", ts)))
	}
	if got := mustGetRow(t, e, "t", "r", Read{MaxVersions: 5}); got != "f:q=4@4 f:q=3@3" {
		t.Fatalf("5 versions asked of a family of 2: %s", got)
	}
	if got := mustGetRow(t, e, "t", "r", Read{MaxVersions: 1}); got != "f:q=4@4" {
		t.Fatalf("1 version asked: %s", got)
	}
}
