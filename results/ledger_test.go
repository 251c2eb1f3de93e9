package results

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLedgerRoundTrip(t *testing.T) {
	dir := t.TempDir()
	l := NewLedger(dir)
	want := map[string]byte{}
	for w := range 3 {
		lw, err := l.Writer(w)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 1000 {
			k := fmt.Sprintf("order%05dproduct%03d", i, w)
			st := Acked
			if i%7 == 0 {
				st = Unknown
			}
			lw.Write(st, []byte(k))
			want[k] = st
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	got := map[string]byte{}
	if err := ReadLedger(dir, func(st byte, k []byte) error { got[string(k)] = st; return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("read %d records, wrote %d", len(got), len(want))
	}
	for k, st := range want {
		if got[k] != st {
			t.Fatalf("%s: status %q, want %q", k, got[k], st)
		}
	}
}

func TestLedgerErrors(t *testing.T) {
	if err := ReadLedger(t.TempDir(), func(byte, []byte) error { return nil }); err == nil ||
		!strings.Contains(err.Error(), "no ledger") {
		t.Errorf("empty dir: %v; want an error saying there is no ledger", err)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "ledger-0000.bin"), []byte{Acked, 20, 'x'}, 0o644)
	if err := ReadLedger(dir, func(byte, []byte) error { return nil }); err == nil || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("truncated file: %v; want a truncation error", err)
	}
}
