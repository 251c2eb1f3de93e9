package check

import (
	"bytes"
	"testing"

	"commentbench/keys"
	"commentbench/model"
	"commentbench/results"
)

// Every record of a comment is reconciled: the sorted walk counts each
// acknowledged and unknown one present.
func TestLedgerWalkCountsEveryRecord(t *testing.T) {
	d := newDataset(t, keys.Unique)
	ck := d.ck(d.byProd[d.products[0]][0])
	c := &checker{st: d.st, o: Options{Layout: d.layout, RunDir: ledger(t, []ledgerRec{
		{results.Unknown, ck, -1}, {results.Acked, ck, 0}, {results.Acked, ck, 5},
	}), TempDir: t.TempDir()}}
	c.o.defaults()
	l, err := c.sortLedger(&RunReport{}, nil)
	must(t, err)
	defer l.close()
	l.at(c, ck)
	run, err := l.finish(d.ctx, c)
	must(t, err)
	if run.Acked != 2 || run.UnknownPresent != 1 || run.Lost.Count != 0 {
		t.Fatalf("run report %+v, want 2 acknowledged and 1 unknown, all present", run)
	}
}

// Acknowledged comments past the last comment of the table are lost too,
// and unknown ones there absent: the ledger's tail is reconciled after the
// comment pass ends.
func TestLedgerTailPastTheLastComment(t *testing.T) {
	d := newDataset(t, keys.Unique)
	past := bytes.Repeat([]byte{0xff}, 30) // above every comment key
	rep := d.checkRun(false, ledger(t, append(d.acked(), ledgerRec{results.Acked, past, 3}, ledgerRec{results.Unknown, append(past, 1), 3})))
	if r := rep.Run; r == nil || r.Lost.Count != 1 || r.UnknownAbsent != 1 || r.Acked != 37 {
		t.Fatalf("run report %+v, want one of 37 acknowledged lost and one unknown absent", rep.Run)
	}
}

// Products no comment names, sorting after every named one, are still
// read to the end: a missing seller there is counted, and the table needs
// no scan of its own for the spread.
func TestProductsPastTheLastReferenced(t *testing.T) {
	d := newDataset(t, keys.Unique)
	seller, _ := scanKeys(d, keys.Seller) // the data set's one seller: an id is its own key
	must(t, d.sys.CreateProduct(d.ctx, model.Product{ID: "zzzzzzzzzy", SellerID: string(seller)}))
	must(t, d.sys.CreateProduct(d.ctx, model.Product{ID: "zzzzzzzzzz", SellerID: "NoSellerId"}))
	sc := &scanCounter{Store: d.st}
	rep, err := Run(d.ctx, sc, Options{Layout: d.layout, MemLimit: 4 << 10, TempDir: t.TempDir(), Spread: true})
	must(t, err)
	if rep.References.MissingSeller.Count != 1 || sc.bounded.Load() != 0 {
		t.Fatalf("missing sellers %d, region scans %d; want 1 and 0", rep.References.MissingSeller.Count, sc.bounded.Load())
	}
}
