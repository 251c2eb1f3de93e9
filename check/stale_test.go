package check

import (
	"os"
	"path/filepath"
	"testing"

	"commentbench/keys"
	"commentbench/results"
)

// An edited comment whose index row another comment took is collided, with
// the run's ledger as without it: the check does not take the length its
// keys were made from from the ledger (see ledgerWalk), and takes the row
// the other holds in its group to be its. The report is written and read
// back whole.
func TestEditedCollisionWithLedger(t *testing.T) {
	d := newDataset(t, keys.Seed)
	p, u := d.products[0], d.users[0]
	a := d.write("OaOaOaOaOa", p, u, "same length!", ts0+100)
	b := d.write("ObObObObOb", p, d.users[1], "same length?", ts0+100)
	if _, err := d.sys.EditComment(d.ctx, a.OrderID, a.ProductID, "now a much longer text"); err != nil {
		t.Fatal(err)
	}
	run := t.TempDir()
	l := results.NewLedger(run, false)
	w, err := l.Writer(0)
	must(t, err)
	for _, c := range []struct {
		ck []byte
		n  int
	}{{d.ck(a), a.ContentLen()}, {d.ck(b), b.ContentLen()}} {
		w.Write(results.Acked, c.ck, c.n)
	}
	must(t, l.Close())
	without := d.check(false)
	assertCounts(t, without, map[string]int64{"product-comment.collided": 1, "collided_comments": 1})
	rep, err := Run(d.ctx, d.st, Options{Layout: d.layout, MemLimit: 4 << 10, TempDir: t.TempDir(), RunDir: run})
	must(t, err)
	assertCounts(t, rep, map[string]int64{"product-comment.collided": 1, "collided_comments": 1})
	if rep.Run.Acked != 2 || rep.Run.Lost.Count != 0 {
		t.Errorf("run: acked %d lost %d, want 2 and 0", rep.Run.Acked, rep.Run.Lost.Count)
	}
	if _, err := os.Stat(filepath.Join(run, ReportFile)); !os.IsNotExist(err) {
		t.Error("a check wrote its report without being asked")
	}
	must(t, WriteReport(run, rep))
	back, found, err := ReadReport(run)
	if err != nil || !found || back.CollidedTotal() != 1 || back.Run.Acked != 2 {
		t.Errorf("report read back: found %v, collided %d, %v", found, back.CollidedTotal(), err)
	}
}
