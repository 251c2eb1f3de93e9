package check

import (
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
		{"agrees, each write started first", func(d *dataset) []ledgerRec { return started(d.acked()) }, 1, RunReport{Acked: 36}},
		{"one in flight", func(d *dataset) []ledgerRec {
			return append(started(d.acked()), ledgerRec{results.Pending, d.ck(d.byProd[d.products[1]][3]), 4})
		}, 2, RunReport{Acked: 36, InFlightPresent: 1}},
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
		}, 2, RunReport{Acked: 35, NotInLedger: Counter{Count: 1}}},
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

// The ledger tells which comments must exist and nothing of their rows:
// an edited comment's rows are matched loosely with it as without it, and
// a length the ledger recorded that is not the comment's own changes no
// count (the data is consistent or not on its own).
func TestLedgerLengthsChangeNoVerdict(t *testing.T) {
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
			recs[5].n += 7 // recorded with a length its rows were not made from
			for _, run := range []string{"", ledger(t, recs)} {
				rep := d.checkRun(false, run)
				if !rep.Consistent {
					t.Errorf("%s, status %c, run %q: %q, want consistent", design, status, run, rep.Verdict)
				}
				for _, ix := range rep.Indexes {
					if ix.Referenced != 36 {
						t.Errorf("%s, status %c: %s: %d rows referenced, want 36", design, status, ix.Table, ix.Referenced)
					}
				}
			}
		}
	}
}

// A comment that is not edited and whose rows were made from a length not
// its own (the length the ledger recorded, say, of a text the run then
// did not write) is counted the same with and without the ledger: one row
// mismatched, one missing. The ledger once lent it its recorded length,
// and the check passed with --run what it failed without.
func TestLedgerRecordedLengthNotItsOwn(t *testing.T) {
	want := map[string]int64{"product-comment.mismatched": 1, "product-comment.unreferenced": 1}
	for _, recorded := range []func(n int) int{func(n int) int { return n + 3 }, func(int) int { return 0 }} {
		d := newDataset(t, keys.Seed)
		recs := d.acked()
		c := d.byProd[d.products[1]][2]
		n := recorded(c.ContentLen())
		recs[len(d.byProd[d.products[0]])+2].n = n
		d.del(keys.ProductComment, d.lengthKey(c, c.ContentLen()))
		d.put(keys.ProductComment, d.lengthKey(c, n), d.ck(c))
		run := ledger(t, recs)
		assertCounts(t, d.checkRun(false, ""), want)
		for _, sorted := range []bool{false, true} {
			rep, err := Run(d.ctx, d.st, Options{Layout: d.layout, MemLimit: 4 << 10, TempDir: t.TempDir(),
				RunDir: run, sortLedger: sorted})
			must(t, err)
			assertCounts(t, rep, want)
			if rep.Run.Acked != 36 {
				t.Errorf("recorded %d of %d, ledger walked sorted %v: %d acknowledged, want 36", n, c.ContentLen(), sorted, rep.Run.Acked)
			}
		}
	}
}

// A ledger from before lengths is proved by its sums as any other.
func TestLedgerWithoutLengths(t *testing.T) {
	d := newDataset(t, keys.Unique)
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "ledger-0000.bin"))
	must(t, err)
	for _, r := range d.acked() {
		_, err := f.Write(append([]byte{results.Acked, byte(len(r.ck))}, r.ck...))
		must(t, err)
	}
	must(t, f.Close())
	sc := &scanCounter{Store: d.st}
	rep, err := Run(d.ctx, sc, Options{Layout: d.layout, MemLimit: 4 << 10, TempDir: t.TempDir(), RunDir: dir})
	must(t, err)
	if rep.Run.Acked != 36 || !rep.Consistent || sc.scans(keys.Comment) != 1 {
		t.Errorf("%q, %d acknowledged, %d reads of the comments; want consistent, 36, 1", rep.Verdict, rep.Run.Acked, sc.scans(keys.Comment))
	}
}
