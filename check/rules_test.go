package check

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"commentbench/comments"
	"commentbench/entry"
	"commentbench/keys"
	"commentbench/model"
	"commentbench/results"
	"commentbench/store"
	"commentbench/store/embedded"
	"commentbench/workload"
)

// The two rules of verify's verdict, over random faults in a real run's
// data:
//   - the verdict on the data is the same with and without the run's
//     ledger: --run adds the ledger's own findings, nothing else;
//   - a repair made without the ledger leaves data that verify with and
//     without it reads CONSISTENT, but for what the repair says it cannot
//     mend (and, with --run, the acknowledged comments lost).
//
// Each fault kind verify has a counter for is applied alone to random rows
// of the ci preset's data (700 operations), on a tall, a colliding and a
// wide design, and then in random pairs. FuzzVerifyRules tries more seeds
// (make fuzz).
func TestVerifyRules(t *testing.T) {
	if raceOn {
		// Each check runs alone; the race detector would take a minute
		// and a half to find nothing here that its other tests miss.
		t.Skip("run without -race: make test runs it so")
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, design := range ruleDesigns {
		base := newRunData(t, design)
		kinds := faultsFor(design)
		for _, k := range kinds {
			t.Run(design+"/"+k.name, func(t *testing.T) { assertRules(t, base, r, []faultKind{k}) })
		}
		for range 5 {
			pair := []faultKind{kinds[r.IntN(len(kinds))], kinds[r.IntN(len(kinds))]}
			t.Run(design+"/"+pair[0].name+"+"+pair[1].name, func(t *testing.T) { assertRules(t, base, r, pair) })
		}
	}
}

// FuzzVerifyRules draws the design, the faults and the rows they hit from
// its inputs.
func FuzzVerifyRules(f *testing.F) {
	f.Add(uint64(1), uint8(0), uint8(3), uint8(7))
	f.Add(uint64(2), uint8(1), uint8(12), uint8(255))
	f.Add(uint64(3), uint8(2), uint8(20), uint8(4))
	if raceOn {
		f.Skip("run without -race: make test runs its seeds so, as TestVerifyRules")
	}
	bases, keep := map[string]runData{}, f.TempDir()
	f.Fuzz(func(t *testing.T, seed uint64, design, a, b uint8) {
		name := ruleDesigns[int(design)%len(ruleDesigns)]
		base, ok := bases[name]
		if !ok {
			base = newRunData(t, name)
			base.dir = copyDir(t, base.dir, keep) // outlives the first input's temp dir
			base.run = copyDir(t, base.run, keep)
			bases[name] = base
		}
		kinds := faultsFor(name)
		picked := []faultKind{kinds[int(a)%len(kinds)]}
		if b != 255 {
			picked = append(picked, kinds[int(b)%len(kinds)])
		}
		assertRules(t, base, rand.New(rand.NewPCG(seed, 9)), picked)
	})
}

var ruleDesigns = []string{"unique", "seed", "between"}

// runData is a ci preset run's data, closed, and its results dir; clean
// if the run left nothing for verify to find (the seed design's bursts
// collide).
type runData struct {
	design   string
	dir, run string
	clean    bool
	report   string // its check's, as dataOnly has it
}

// newRunData runs the ci preset (3,000 operations, every actor, edits and
// bursts) on design, keeping its ledger.
func newRunData(t *testing.T, design string) runData {
	t.Helper()
	base := runData{design: design, dir: filepath.Join(t.TempDir(), "data"), run: t.TempDir()}
	sc, err := workload.Preset("ci")
	must(t, err)
	sc.Layout, sc.Ops = design, 700
	must(t, sc.Validate())
	e, err := embedded.Open(embedded.Options{Dir: base.dir, CreateIfMissing: true})
	must(t, err)
	defer e.Close()
	sys, err := workload.System(e, sc, nil)
	must(t, err)
	ledger := results.NewLedger(base.run, false)
	cfg := workload.Config{Scenario: sc, Results: results.NewSet(workload.ResultNames()), WorkersTotal: 1, Sys: sys, Ledger: ledger}
	ctx := context.Background()
	env, err := workload.Prepare(ctx, cfg)
	must(t, err)
	_, err = env.Run(ctx, cfg)
	must(t, err)
	must(t, ledger.Close())
	rep := base.open(t).checkRun(true, "")
	base.clean, base.report = rep.Consistent, dataOnly(rep)
	return base
}

// open copies the run's data and reads it into a dataset.
func (b runData) open(t *testing.T) *dataset {
	t.Helper()
	e, err := embedded.Open(embedded.Options{Dir: copyDir(t, b.dir, t.TempDir())})
	must(t, err)
	t.Cleanup(func() { e.Close() })
	d := &dataset{t: t, ctx: context.Background(), st: e, layout: builtin(t, b.design), byProd: map[string][]model.Comment{}}
	d.sys = comments.New(e, comments.Options{Layout: d.layout})
	users := map[string]bool{}
	c := &checker{st: e, o: Options{Layout: d.layout}}
	c.o.defaults()
	for row, err := range c.wholeTable(d.ctx, keys.Comment) {
		must(t, err)
		v, _ := row.Value(keys.Qualifier)
		c, err := model.Decode[model.Comment](model.JSON, v)
		must(t, err)
		if len(d.byProd[c.ProductID]) == 0 {
			d.products = append(d.products, c.ProductID)
		}
		d.byProd[c.ProductID] = append(d.byProd[c.ProductID], c)
		if !users[c.UserID] {
			users[c.UserID] = true
			d.users = append(d.users, c.UserID)
		}
	}
	return d
}

func copyDir(t *testing.T, src, parent string) string {
	t.Helper()
	dst := filepath.Join(parent, fmt.Sprintf("copy-%d", rand.Int()))
	must(t, os.CopyFS(dst, os.DirFS(src)))
	return dst
}

// assertRules applies the faults to a copy of the run's data, then checks
// both rules.
func assertRules(t *testing.T, base runData, r *rand.Rand, faults []faultKind) {
	d := base.open(t)
	repairable := true
	for _, f := range faults {
		f.inject(d, r)
		repairable = repairable && f.repairable
	}
	with, without := d.checkRun(true, base.run), d.checkRun(true, "")
	if a, b := dataOnly(with), dataOnly(without); a != b {
		t.Fatalf("with the run's ledger the check found\n%s\nwithout it\n%s", a, b)
	}
	if len(faults) == 1 && faults[0].seen && dataOnly(without) == base.report {
		t.Fatalf("%s left nothing to find: %s", faults[0].name, without.Verdict)
	}
	must(t, without.Repair.Apply(d.ctx, d.st, d.layout))
	afterWith, afterWithout := d.checkRun(false, base.run), d.checkRun(false, "")
	if a, b := dataOnly(afterWith), dataOnly(afterWithout); a != b {
		t.Fatalf("after the repair, with the run's ledger the check found\n%s\nwithout it\n%s", a, b)
	}
	if afterWith.Run.Lost.Count != with.Run.Lost.Count {
		t.Errorf("the repair changed the lost comments: %d, then %d", with.Run.Lost.Count, afterWith.Run.Lost.Count)
	}
	if repairable && base.clean {
		if !afterWithout.Consistent {
			t.Errorf("after a repair of mendable faults: %q", afterWithout.Verdict)
		}
		return
	}
	for name, c := range allCounters(afterWithout) {
		if c.Count > 0 && !slices.Contains(unmendable, name) {
			t.Errorf("after the repair %s is %d: a finding the repair did not say it cannot mend (it said %q)",
				name, c.Count, without.Repair.Cannot)
		}
	}
}

// unmendable are the counters a repair leaves: a comment's content, a
// missing entity or a colliding key are beyond it.
var unmendable = []string{"refs.bad", "refs.missing_order", "refs.order_user", "refs.missing_user",
	"refs.missing_product", "refs.missing_seller", "ranks.bad_comment",
	"user-comment.collided", "product-comment.collided", "latest-comment.collided"}

// faultKind is one kind of fault verify has a counter for.
type faultKind struct {
	name string
	// seen: alone, it leaves something for verify to find; repairable:
	// the repair mends all of it.
	seen, repairable bool
	inject           func(d *dataset, r *rand.Rand)
}

// faultsFor is every kind that applies to the design.
func faultsFor(design string) []faultKind {
	d, err := keys.Builtin(design)
	if err != nil {
		panic(err)
	}
	tall := !d.Table(keys.ProductComment).Wide()
	var out []faultKind
	for _, table := range keys.Indexes {
		if d.Table(table) != nil {
			t := d.Table(table)
			out = append(out, indexFaults(table, tall, t.Has(keys.PartLen, "") || t.Has(keys.PartRevLen, ""))...)
		}
	}
	if !tall {
		out = append(out, faultKind{"count bumped", true, true, func(d *dataset, r *rand.Rand) {
			t := d.layout.Table(keys.ProductComment)
			must(d.t, d.st.Mutate(d.ctx, t.Store, store.Put([]byte(d.product(r)), store.Cell{Qualifier: t.Meta, Value: comments.EncodeCount(99)})))
		}})
	}
	return append(append(out, rankFaults(tall)...), refFaults...)
}

func indexFaults(table string, tall bool, lengths bool) []faultKind {
	return []faultKind{
		{table + " entry dropped", true, true, func(d *dataset, r *rand.Rand) {
			d.del(table, d.indexKey(table, d.unedited(r)))
		}},
		{table + " entry of no comment", true, true, func(d *dataset, r *rand.Rand) {
			g := d.stranger(r)
			d.put(table, d.indexKey(table, g), d.ck(g))
		}},
		{table + " entry of another length", lengths, true, func(d *dataset, r *rand.Rand) {
			c := d.unedited(r)
			d.del(table, d.indexKey(table, c))
			c.Content += "+3b"
			d.put(table, d.indexKey(table, c), d.ck(c))
		}},
		{table + " entry twice", lengths, true, func(d *dataset, r *rand.Rand) {
			c := d.unedited(r)
			c.Content += "and five"
			d.put(table, d.indexKey(table, c), d.ck(c))
		}},
		{table + " entry naming no comment", true, true, func(d *dataset, r *rand.Rand) {
			d.put(table, d.indexKey(table, d.unedited(r)), []byte("garbage"))
		}},
		// On a wide design the row is not the table's: no entry.
		{table + " entry of an undecodable key", tall, true, func(d *dataset, r *rand.Rand) {
			d.put(table, []byte("zz-garbage-key"), d.ck(d.comment(r)))
		}},
	}
}

func rankFaults(tall bool) []faultKind {
	return []faultKind{
		{"rank 11", true, true, func(d *dataset, r *rand.Rand) {
			p := d.rankedProduct(r, 1)
			d.put(keys.ProductRank, d.rankKey(p, 11), d.ranked(p, 1))
		}},
		{"rank 2 dropped", true, true, func(d *dataset, r *rand.Rand) {
			d.del(keys.ProductRank, d.rankKey(d.rankedProduct(r, 3), 2))
		}},
		{"last rank repeats rank 1", true, true, func(d *dataset, r *rand.Rand) {
			p := d.rankedProduct(r, 2)
			d.put(keys.ProductRank, d.rankKey(p, d.ranks(p)), d.ranked(p, 1))
		}},
		{"rank of no comment", true, true, func(d *dataset, r *rand.Rand) {
			p := d.rankedProduct(r, 1)
			d.put(keys.ProductRank, d.rankKey(p, 1+r.IntN(d.ranks(p))), d.ck(d.stranger(r)))
		}},
		{"rank of another product's comment", true, true, func(d *dataset, r *rand.Rand) {
			p := d.rankedProduct(r, 1)
			c := d.comment(r)
			for c.ProductID == p {
				c = d.comment(r)
			}
			d.put(keys.ProductRank, d.rankKey(p, 1), d.ck(c))
		}},
		{"rank of an undecodable key", tall, true, func(d *dataset, r *rand.Rand) {
			d.put(keys.ProductRank, []byte("rank-garbage"), d.ranked(d.rankedProduct(r, 1), 1))
		}},
		{"rank with an empty value", true, true, func(d *dataset, r *rand.Rand) {
			d.put(keys.ProductRank, d.rankKey(d.rankedProduct(r, 1), 1), nil)
		}},
		{"ranked comment not JSON", true, false, func(d *dataset, r *rand.Rand) {
			d.put(keys.Comment, d.ranked(d.rankedProduct(r, 1), 1), []byte("{not json"))
		}},
	}
}

var refFaults = []faultKind{
	{"comment not JSON", true, false, func(d *dataset, r *rand.Rand) {
		d.put(keys.Comment, d.ck(d.comment(r)), []byte("{not json"))
	}},
	{"comment lost", true, true, func(d *dataset, r *rand.Rand) { d.del(keys.Comment, d.ck(d.comment(r))) }},
	{"comment edited", false, true, func(d *dataset, r *rand.Rand) {
		c := d.comment(r)
		_, err := d.sys.EditComment(d.ctx, c.OrderID, c.ProductID, "고쳐 쓴 글")
		must(d.t, err)
	}},
	{"order missing", true, false, func(d *dataset, r *rand.Rand) {
		d.del(keys.Order, d.entityKey(keys.Order, d.comment(r).OrderID))
	}},
	{"order of another user", true, false, func(d *dataset, r *rand.Rand) {
		c := d.comment(r)
		must(d.t, d.sys.CreateOrder(d.ctx, model.Order{ID: c.OrderID, UserID: c.UserID + "x"}))
	}},
	{"user missing", true, false, func(d *dataset, r *rand.Rand) {
		d.del(keys.User, d.entityKey(keys.User, d.comment(r).UserID))
	}},
	{"product missing", true, false, func(d *dataset, r *rand.Rand) {
		d.del(keys.Product, d.entityKey(keys.Product, d.product(r)))
	}},
	{"seller missing", true, false, func(d *dataset, r *rand.Rand) {
		rows, err := entry.Get(d.ctx, d.st, d.layout.Table(keys.Product), [][]byte{d.entityKey(keys.Product, d.product(r))})
		must(d.t, err)
		v, _ := rows[0].Value(keys.Qualifier)
		p, err := model.Decode[model.Product](model.JSON, v)
		must(d.t, err)
		d.del(keys.Seller, d.entityKey(keys.Seller, p.SellerID))
	}},
}

func (d *dataset) product(r *rand.Rand) string { return d.products[r.IntN(len(d.products))] }

func (d *dataset) comment(r *rand.Rand) model.Comment {
	cs := d.byProd[d.product(r)]
	return cs[r.IntN(len(cs))]
}

// unedited is a comment whose index rows are keyed by its length now.
func (d *dataset) unedited(r *rand.Rand) model.Comment {
	for {
		if c := d.comment(r); !c.IsEdited {
			return c
		}
	}
}

// stranger is a comment never written, of one of the data's products.
func (d *dataset) stranger(r *rand.Rand) model.Comment {
	return model.Comment{OrderID: fmt.Sprintf("Stranger%02d", r.IntN(100)), ProductID: d.product(r),
		UserID: d.users[r.IntN(len(d.users))], Timestamp: ts0 + r.Int64N(1e6), Content: "never written"}
}

// ranks is how many ranks product p has, 1 up.
func (d *dataset) ranks(p string) int {
	n := 0
	for n < keys.MaxRank && d.exists(keys.ProductRank, d.rankKey(p, n+1)) {
		n++
	}
	return n
}

// rankedProduct is a product with at least min ranks.
func (d *dataset) rankedProduct(r *rand.Rand, min int) string {
	for range 1000 {
		if p := d.product(r); d.ranks(p) >= min {
			return p
		}
	}
	d.t.Fatalf("no product has %d ranks", min)
	return ""
}
