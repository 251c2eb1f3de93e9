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
	l := NewLedger(dir, false)
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
	if torn, err := ReadLedger(dir, func(r LedgerRecord) error {
		got[string(r.Key)], gotLen[string(r.Key)] = r.Status, r.Len
		return nil
	}); err != nil || torn != 0 {
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
	dir := t.TempDir()
	if _, err := ReadLedger(dir, func(LedgerRecord) error { return nil }); err == nil ||
		!strings.Contains(err.Error(), "no ledger") {
		t.Errorf("empty dir: %v; want an error saying there is no ledger", err)
	}
	// A run's results dir without a ledger: the run was stopped before
	// its first comment write.
	if err := os.WriteFile(filepath.Join(dir, "timeline.csv"), []byte("interval,op\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadLedger(dir, func(LedgerRecord) error { return nil }); err == nil ||
		!strings.Contains(err.Error(), "stopped before its first comment write") {
		t.Errorf("a run's dir with no ledger: %v; want it said the run stopped before writing", err)
	}
}

// A crash tears a file's last record, or leaves garbage where it was
// being written: the records before it read, the rest is one torn tail,
// never an error.
func TestLedgerTornTail(t *testing.T) {
	dir := t.TempDir()
	l := NewLedger(dir, false)
	w, err := l.Writer(0)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		w.Write(Acked, []byte(fmt.Sprintf("order%05dproduct%03d", i, 0)), i)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "ledger-0000.bin")
	whole, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recLen := len(whole) / 5
	for _, c := range []struct {
		name string
		data []byte
		want int
	}{
		{"cut inside the fourth record", whole[:3*recLen+7], 3},
		{"fourth record's checksum wrong", flip(whole, 3*recLen+recLen-1), 3},
		{"garbage status after the second", append(whole[:2*recLen:2*recLen], 0x00, 0x14), 2},
	} {
		if err := os.WriteFile(path, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		n := 0
		torn, err := ReadLedger(dir, func(LedgerRecord) error { n++; return nil })
		if err != nil || torn != 1 || n != c.want {
			t.Errorf("%s: %d records, torn %d, %v; want %d records and one torn tail", c.name, n, torn, err, c.want)
		}
	}
}

func flip(b []byte, i int) []byte {
	out := append([]byte(nil), b...)
	out[i] ^= 0xff
	return out
}

// Every record is on the file system when Write returns, so a process
// killed at any instant keeps them all; under sync the outcomes are also
// durable, which no test short of a power cut can see.
func TestLedgerWrittenAtOnce(t *testing.T) {
	for _, sync := range []bool{false, true} {
		dir := t.TempDir()
		l := NewLedger(dir, sync)
		w, err := l.Writer(0)
		if err != nil {
			t.Fatal(err)
		}
		var got []byte
		for _, st := range []byte{Pending, Acked, Pending, NotWritten, Pending, Unknown, Pending} {
			w.Write(st, []byte("orderAAAAAproductBBB"), 3)
			got = got[:0]
			if torn, err := ReadLedger(dir, func(r LedgerRecord) error { got = append(got, r.Status); return nil }); err != nil || torn != 0 {
				t.Fatalf("sync %v: torn %d, %v", sync, torn, err)
			}
			if got[len(got)-1] != st {
				t.Fatalf("sync %v: before Close the ledger reads %q, want it to end in %q", sync, got, st)
			}
		}
		if string(got) != "papnpup" {
			t.Errorf("sync %v: read %q", sync, got)
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
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
	if _, err := ReadLedger(dir, func(r LedgerRecord) error {
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
