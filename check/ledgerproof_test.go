package check

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"commentbench/keys"
	"commentbench/results"
)

// A ledger that agrees with the data is proved by its sums, with no read
// of the comments beyond the pass's own; one that does not is walked
// after the pass, on a second read, and counted exactly.
func TestLedgerProvedBySums(t *testing.T) {
	for _, c := range []struct {
		name   string
		ledger func(d *dataset) []ledgerRec
		scans  int
		want   RunReport
	}{
		{"agrees", (*dataset).acked, 1, RunReport{Acked: 36}},
		{"one lost", func(d *dataset) []ledgerRec {
			g := d.ghost()
			return append(d.acked(), ledgerRec{results.Acked, d.ck(g), g.ContentLen()})
		}, 2, RunReport{Acked: 37, Lost: Counter{Count: 1}}},
		{"one unknown", func(d *dataset) []ledgerRec {
			recs := d.acked()
			recs[7].status = results.Unknown
			return recs
		}, 2, RunReport{Acked: 35, UnknownPresent: 1}},
		{"one acknowledged twice", func(d *dataset) []ledgerRec {
			recs := d.acked()
			return append(recs, recs[0])
		}, 2, RunReport{Acked: 37}},
		{"a comment the run did not write", func(d *dataset) []ledgerRec {
			return d.acked()[1:]
		}, 2, RunReport{Acked: 35}},
	} {
		for _, design := range []string{"unique", "seed"} {
			d := newDataset(t, builtin(t, design))
			sc := &scanCounter{Store: d.st}
			rep, err := Run(d.ctx, sc, Options{Layout: d.layout, MemLimit: 4 << 10, TempDir: t.TempDir(),
				RunDir: ledger(t, c.ledger(d))})
			must(t, err)
			assertRun(t, rep, c.want)
			if got := sc.scans(keys.Comment); got != c.scans {
				t.Errorf("%s, %s: %d reads of the comments, want %d", design, c.name, got, c.scans)
			}
		}
	}
}

// Edited comments wait for the ledger's lengths, which a Bloom filter
// picks out of it: with the lengths their rows were written with, their
// rows are proved as any other's, and the comments are read once.
//
// Their outcome unknown, their buckets are walked too, which takes back
// no row of theirs: the comments are read twice, and no join reads them
// a third time.
func TestLedgerLengthsOfEditedComments(t *testing.T) {
	for _, design := range []string{"unique", "seed", "time-led"} {
		for _, status := range []byte{results.Acked, results.Unknown} {
			d := newDataset(t, builtin(t, design))
			recs := d.acked() // the lengths before the edits
			for i, p := range d.products[:2] {
				c := d.byProd[p][0]
				_, err := d.sys.EditComment(d.ctx, c.OrderID, c.ProductID, "고쳐 쓴 글, 처음보다 훨씬 깁니다")
				must(t, err)
				recs[i*len(d.byProd[d.products[0]])].status = status
			}
			sc := &scanCounter{Store: d.st}
			rep, err := Run(d.ctx, sc, Options{Layout: d.layout, MemLimit: 4 << 10, TempDir: t.TempDir(),
				RunDir: ledger(t, recs)})
			must(t, err)
			scans := map[byte]int{results.Acked: 1, results.Unknown: 2}[status]
			if !rep.Consistent || sc.scans(keys.Comment) != scans {
				t.Errorf("%s, status %c: %q after %d reads of the comments, want consistent after %d",
					design, status, rep.Verdict, sc.scans(keys.Comment), scans)
			}
			for _, ix := range rep.Indexes {
				if ix.Referenced != 36 {
					t.Errorf("%s, status %c: %s: %d rows referenced, want 36", design, status, ix.Table, ix.Referenced)
				}
			}
		}
	}
}

// A comment that is not edited and whose recorded length is not its own
// (a run that wrote another text than it recorded, say) had its rows
// summed with the wrong length in the pass: the walk of its bucket takes
// them back and sums the right ones, so a row made from the recorded
// length is its own, as the sorted walk finds it.
func TestLedgerRecordedLengthNotItsOwn(t *testing.T) {
	for _, recorded := range []func(n int) int{func(n int) int { return n + 3 }, func(int) int { return 0 }} {
		d := newDataset(t, keys.Seed)
		recs := d.acked()
		c := d.byProd[d.products[1]][2]
		n := recorded(c.ContentLen())
		recs[len(d.byProd[d.products[0]])+2].n = n
		d.del(keys.ProductComment, d.productKey(c))
		d.put(keys.ProductComment, d.lengthKey(c, n), d.ck(c))
		run := ledger(t, recs)
		for _, w := range []struct {
			sorted bool
			scans  int // the pass's, and the proof's walk of the failed bucket: no join
		}{{false, 2}, {true, 1}} {
			sc := &scanCounter{Store: d.st}
			rep, err := Run(d.ctx, sc, Options{Layout: d.layout, MemLimit: 4 << 10, TempDir: t.TempDir(),
				RunDir: run, sortLedger: w.sorted})
			must(t, err)
			if !rep.Consistent || rep.Run.Acked != 36 || sc.scans(keys.Comment) != w.scans {
				t.Errorf("recorded %d of %d, ledger walked sorted %v: %q, %d acknowledged, %d reads of the comments; want consistent, 36, %d",
					n, c.ContentLen(), w.sorted, rep.Verdict, rep.Run.Acked, sc.scans(keys.Comment), w.scans)
			}
		}
	}
}

// A ledger from before lengths cannot prove what an edited comment's rows
// were made from: it is walked sorted, as it always was.
func TestLedgerWithoutLengthsWalkedSorted(t *testing.T) {
	d := newDataset(t, keys.Unique)
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "ledger-0000.bin"))
	must(t, err)
	for _, r := range d.acked() {
		_, err := f.Write(append([]byte{results.Acked, byte(len(r.ck))}, r.ck...))
		must(t, err)
	}
	must(t, f.Close())
	c := &checker{st: d.st, o: Options{Layout: d.layout, RunDir: dir, TempDir: t.TempDir()}}
	c.o.defaults()
	l, err := c.openLedger(true, true)
	must(t, err)
	defer l.close()
	if _, sorted := l.(*runLedger); !sorted {
		t.Fatalf("a ledger without lengths is walked by %T, want the sorted walk", l)
	}
	rep := d.checkRun(false, dir)
	if rep.Run.Acked != 36 || !rep.Consistent {
		t.Errorf("%q, %d acknowledged; want consistent, 36", rep.Verdict, rep.Run.Acked)
	}
}

// Every key added passes the filter; of keys not added, few do.
func TestKeyFilter(t *testing.T) {
	var f keyFilter
	if f.has([]byte("k")) {
		t.Fatal("an empty filter passes a key")
	}
	const n = 100_000
	for i := range n {
		f.add(fmt.Appendf(nil, "in-%d", i))
	}
	passed := 0
	for i := range n {
		if !f.has(fmt.Appendf(nil, "in-%d", i)) {
			t.Fatalf("key %d added and not passed", i)
		}
		if f.has(fmt.Appendf(nil, "out-%d", i)) {
			passed++
		}
	}
	if passed > n/1000 {
		t.Errorf("%d of %d keys not added passed, want at most 1 in 1,000", passed, n)
	}
}
