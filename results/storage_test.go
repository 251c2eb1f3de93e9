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
	printStorage(&b, nil)
	if b.Len() != 0 {
		t.Errorf("no storage printed %q", b.String())
	}
}
