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
	want, wantLen := map[string]byte{}, map[string]int{}
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
			lw.Write(st, []byte(k), i*3)
			want[k], wantLen[k] = st, i*3
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	got, gotLen := map[string]byte{}, map[string]int{}
	if err := ReadLedger(dir, func(r LedgerRecord) error {
		got[string(r.Key)], gotLen[string(r.Key)] = r.Status, r.Len
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("read %d records, wrote %d", len(got), len(want))
	}
	for k, st := range want {
		if got[k] != st || gotLen[k] != wantLen[k] {
			t.Fatalf("%s: status %q length %d, want %q and %d", k, got[k], gotLen[k], st, wantLen[k])
		}
	}
}

func TestLedgerErrors(t *testing.T) {
	if err := ReadLedger(t.TempDir(), func(LedgerRecord) error { return nil }); err == nil ||
		!strings.Contains(err.Error(), "no ledger") {
		t.Errorf("empty dir: %v; want an error saying there is no ledger", err)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "ledger-0000.bin"), []byte{Acked, 20, 'x'}, 0o644)
	if err := ReadLedger(dir, func(LedgerRecord) error { return nil }); err == nil || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("truncated file: %v; want a truncation error", err)
	}
}

// A ledger from before lengths were recorded still reads, its lengths -1.
func TestLedgerWithoutLengths(t *testing.T) {
	dir := t.TempDir()
	old := append([]byte{Acked, 3}, "abc"...)
	old = append(old, Unknown, 2, 'd', 'e')
	if err := os.WriteFile(filepath.Join(dir, "ledger-0000.bin"), old, 0o644); err != nil {
		t.Fatal(err)
	}
	var got []LedgerRecord
	if err := ReadLedger(dir, func(r LedgerRecord) error {
		got = append(got, LedgerRecord{Status: r.Status, Key: append([]byte(nil), r.Key...), Len: r.Len})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Status != Acked || string(got[0].Key) != "abc" || got[0].Len != -1 ||
		got[1].Status != Unknown || string(got[1].Key) != "de" || got[1].Len != -1 {
		t.Errorf("old records: %+v", got)
	}
}
