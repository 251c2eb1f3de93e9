package results

import (
	"strings"
	"testing"
)

func TestPrintStorage(t *testing.T) {
	var b strings.Builder
	printStorage(&b, []TableStorage{{Table: "comment", Rows: 1000, MeasuredBytes: 320_000, ModeledBytes: 336_000},
		{Table: "product-comment-rank", Rows: 0}})
	out := b.String()
	for _, want := range []string{"modeled", "measured", "comment", "312.5 KiB", "328.1 KiB", "1.05"} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "rank") {
		t.Errorf("shows a table with no rows:\n%s", out)
	}
	b.Reset()
	printStorage(&b, []TableStorage{{Table: "comment", Store: "product", Rows: 7, MeasuredBytes: 1, ModeledBytes: 1},
		{Table: "product", Rows: 3, MeasuredBytes: 1, ModeledBytes: 1}})
	if out := b.String(); !strings.Contains(out, "\n  comment (in product) ") || strings.Contains(out, "product (in") {
		t.Errorf("a table kept in another's rows is not named with it, or one in its own is:\n%s", out)
	}
	b.Reset()
	printStorage(&b, nil)
	if b.Len() != 0 {
		t.Errorf("no storage printed %q", b.String())
	}
}

// Sizes are in binary units, each up to 1023.9 of itself.
func TestByteSizeUnits(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 1536: "1.5 KiB",
		1<<20 - 1: "1024.0 KiB", 1 << 20: "1.0 MiB", 5 << 30: "5.0 GiB", 1 << 60: "1.0 EiB", 1<<62 + 1<<61: "6.0 EiB"} {
		if got := byteSize(n); got != want {
			t.Errorf("byteSize(%d) = %q, want %q", n, got, want)
		}
	}
}
