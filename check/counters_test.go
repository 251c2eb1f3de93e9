package check

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"commentbench/comments"
	"commentbench/entry"
	"commentbench/keys"
	"commentbench/model"
	"commentbench/results"
	"commentbench/store"
)

// One test per counter verify reports, each named after it: a fault that
// shows as exactly that counter (and, where no fault can show alone, the
// fewest others it must bring, said at the case), every other counter at 0,
// and what a repair does about it: what it plans, what it says it cannot
// repair and why, and what is left after it.

// repairPlan is what a repair of a data set says it would do.
type repairPlan struct {
	puts, deletes, reranks int
	cannot                 []string // the cannot-repair notes, in order
}

// counterFault is one fault of a counter's test.
type counterFault struct {
	name    string
	designs []string // default: unique
	inject  func(d *dataset)
	// run, if set, writes a loadgen run's ledger for the check to reconcile
	// with, and returns its directory.
	run  func(d *dataset) string
	want map[string]int64
	plan repairPlan
	// wantFor and planFor are want and plan for the designs named, where
	// they differ: a design with a latest-comment listing has a third
	// index entry per comment, one that keeps counts a count beside it.
	wantFor map[string]map[string]int64
	planFor map[string]repairPlan
	after   map[string]int64 // the counters after the repair is applied
	// also checks more of the report before the repair, and of the data
	// after it.
	also, afterRepair func(t *testing.T, d *dataset, r Report)
}

var everyDesign = []string{"seed", "unique", "salted", "hashed", "time-led", "between", "feed"}

func runCounterFaults(t *testing.T, faults []counterFault) {
	t.Helper()
	for _, f := range faults {
		designs := f.designs
		if designs == nil {
			designs = []string{"unique"}
		}
		for _, name := range designs {
			t.Run(name+"/"+f.name, func(t *testing.T) {
				d := newDataset(t, builtin(t, name))
				f.inject(d)
				run := ""
				if f.run != nil {
					run = f.run(d)
				}
				// A repair's put stamped in the millisecond of the fault's
				// delete of the same row would stay hidden, as on HBase.
				time.Sleep(2 * time.Millisecond)
				r := d.checkRun(true, run)
				want, plan := f.want, f.plan
				if w, ok := f.wantFor[name]; ok {
					want = w
				}
				if p, ok := f.planFor[name]; ok {
					plan = p
				}
				assertCounts(t, r, want)
				assertJoinAllAgrees(t, d, run, r)
				assertSameWithoutRun(t, d, run, r)
				if f.also != nil {
					f.also(t, d, r)
				}
				assertPlan(t, r.Repair, plan)
				must(t, r.Repair.Apply(d.ctx, d.st, d.layout))
				if !r.Repair.Applied {
					t.Error("the repair ran but does not say it was applied")
				}
				after := d.checkRun(false, run)
				if after.Repair != nil {
					t.Errorf("a check without --repair planned one: %+v", after.Repair)
				}
				assertCounts(t, after, f.after)
				assertSameWithoutRun(t, d, run, after)
				if f.afterRepair != nil {
					f.afterRepair(t, d, after)
				}
			})
		}
	}
}

// assertSameWithoutRun checks the rule that a run's ledger adds its own
// findings and nothing else: a check of the data without it reports r, but
// for the run's block, the failures reconciled with it, and the verdict
// and repair they may add to.
func assertSameWithoutRun(t *testing.T, d *dataset, run string, r Report) {
	t.Helper()
	if run == "" {
		return
	}
	without, err := Run(d.ctx, d.st, Options{Layout: d.layout, MemLimit: 4 << 10, TempDir: t.TempDir(), Spread: true, Repair: r.Repair != nil})
	must(t, err)
	a, b := dataOnly(r), dataOnly(without)
	if a != b {
		t.Errorf("with the run's ledger the check found\n%s\nwithout it\n%s", a, b)
	}
}

// dataOnly is a report as JSON without what a run's ledger adds.
func dataOnly(r Report) string {
	r.Run, r.Faults, r.Verdict, r.Consistent = nil, nil, "", false
	if r.Repair != nil {
		plan := *r.Repair
		plan.Cannot = slices.DeleteFunc(slices.Clone(plan.Cannot), func(s string) bool { return strings.Contains(s, "acknowledged") })
		r.Repair = &plan
	}
	b, _ := json.Marshal(r)
	return string(b)
}

// assertJoinAllAgrees checks that joining every bucket finds what joining
// only those the sums did not prove found, and that walking the run's
// ledger sorted finds what proving it by its sums found: the same report,
// to the samples and the repair planned.
func assertJoinAllAgrees(t *testing.T, d *dataset, run string, r Report) {
	t.Helper()
	for _, way := range []struct {
		name string
		o    Options
	}{{"joining all of them", Options{joinAll: true}}, {"with the ledger walked sorted", Options{sortLedger: true}}} {
		o := way.o
		o.Layout, o.MemLimit, o.TempDir, o.Repair, o.Spread, o.RunDir = d.layout, 4<<10, t.TempDir(), true, true, run
		other, err := Run(d.ctx, d.st, o)
		must(t, err)
		a, _ := json.Marshal(r)
		b, _ := json.Marshal(other)
		if string(a) != string(b) {
			t.Errorf("joining the unproved buckets, the ledger proved by sums, found\n%s\n%s\n%s", a, way.name, b)
		}
	}
}

func (d *dataset) checkRun(repair bool, run string) Report {
	d.t.Helper()
	rep, err := Run(d.ctx, d.st, Options{Layout: d.layout, MemLimit: 4 << 10, TempDir: d.t.TempDir(),
		Repair: repair, Spread: true, RunDir: run})
	must(d.t, err)
	return rep
}

func assertPlan(t *testing.T, r *RepairReport, want repairPlan) {
	t.Helper()
	if r == nil {
		t.Fatal("a check with --repair planned no repair")
	}
	if r.Puts != want.puts || r.Deletes != want.deletes || r.Reranks != want.reranks || r.Dropped != 0 || r.Applied {
		t.Errorf("repair plans %d puts, %d deletes, %d reranks (%d dropped, applied %v); want %d, %d, %d",
			r.Puts, r.Deletes, r.Reranks, r.Dropped, r.Applied, want.puts, want.deletes, want.reranks)
	}
	if fmt.Sprintf("%q", r.Cannot) != fmt.Sprintf("%q", want.cannot) {
		t.Errorf("cannot repair %q\nwant          %q", r.Cannot, want.cannot)
	}
}

// put and del write and delete an entry of table, where the design keeps
// it: a row of its own, or a column of a row.
func (d *dataset) put(table string, key, val []byte) {
	d.t.Helper()
	t := d.layout.Table(table)
	if len(key) != t.Len { // a key no entry has: a row of its own, where it must be
		must(d.t, d.st.Mutate(d.ctx, t.Store, store.Put(key, cellOf(val))))
		return
	}
	must(d.t, d.st.Mutate(d.ctx, t.Store, entry.Put(t, key, val)))
}

func (d *dataset) del(table string, key []byte) {
	d.t.Helper()
	t := d.layout.Table(table)
	must(d.t, d.st.Mutate(d.ctx, t.Store, entry.Delete(t, key)))
}

// indexKey is the key comment c's row has in an index table.
func (d *dataset) indexKey(table string, c model.Comment) []byte {
	d.t.Helper()
	k, err := d.layout.Encode(keys.Key{Table: table, UserID: c.UserID, ProductID: c.ProductID,
		OrderID: c.OrderID, Timestamp: c.Timestamp, ContentLen: c.ContentLen()})
	must(d.t, err)
	return k
}

// ghost is a comment that was never written: no comment row, no order.
func (d *dataset) ghost() model.Comment {
	return model.Comment{OrderID: "GhostOrder", ProductID: d.products[0], UserID: d.users[0],
		Timestamp: ts0 + 5000, Content: "never written"}
}

func (d *dataset) rankKey(product string, rank int) []byte {
	d.t.Helper()
	k, err := d.layout.RankKey(product, rank)
	must(d.t, err)
	return k
}

// ranked is the comment key at a product's rank.
func (d *dataset) ranked(product string, rank int) []byte {
	d.t.Helper()
	rows, err := entry.Get(d.ctx, d.st, d.layout.Table(keys.ProductRank), [][]byte{d.rankKey(product, rank)})
	must(d.t, err)
	v, ok := rows[0].Value(keys.Qualifier)
	if !ok {
		d.t.Fatalf("product %s has no rank %d", product, rank)
	}
	return v
}

// exists says whether table holds key.
func (d *dataset) exists(table string, key []byte) bool {
	d.t.Helper()
	if t := d.layout.Table(table); len(key) != t.Len {
		row, err := d.st.Get(d.ctx, t.Store, key)
		must(d.t, err)
		return row.Found()
	}
	rows, err := entry.Get(d.ctx, d.st, d.layout.Table(table), [][]byte{key})
	must(d.t, err)
	return rows[0].Found()
}

// assertSamples checks that each of a counter's samples, in order,
// contains its piece of want.
func assertSamples(t *testing.T, r Report, counter string, want ...string) {
	t.Helper()
	got := allCounters(r)[counter].Samples
	if len(got) != len(want) {
		t.Errorf("%s samples %q, want %d", counter, got, len(want))
		return
	}
	for i, w := range want {
		if !strings.Contains(got[i], w) {
			t.Errorf("%s sample %q does not say %q", counter, got[i], w)
		}
	}
}

var bothIndexes = []string{keys.UserComment, keys.ProductComment}

// ---- index counters

func TestCounterUnreferenced(t *testing.T) {
	var faults []counterFault
	for _, table := range bothIndexes {
		designs := everyDesign
		if table == keys.UserComment {
			designs = nil
		}
		faults = append(faults, counterFault{
			name: "delete a " + table + " row", designs: designs,
			inject: func(d *dataset) { d.del(table, d.indexKey(table, d.byProd[d.products[0]][5])) },
			want:   map[string]int64{table + ".unreferenced": 1},
			plan:   repairPlan{puts: 1},
			// The product's count still counts the row: off by one, set
			// again by the repair to the entries the row then holds.
			wantFor: map[string]map[string]int64{"between": {table + ".unreferenced": 1, table + ".count_off": 1}},
			afterRepair: func(t *testing.T, d *dataset, _ Report) {
				if !d.exists(table, d.indexKey(table, d.byProd[d.products[0]][5])) {
					t.Error("the repair did not write the missing row back")
				}
			},
		})
	}
	runCounterFaults(t, faults)
}

func TestCounterUndefined(t *testing.T) {
	var faults []counterFault
	for _, table := range bothIndexes {
		faults = append(faults, counterFault{
			name: "a " + table + " row of a comment never written",
			inject: func(d *dataset) {
				g := d.ghost()
				d.put(table, d.indexKey(table, g), d.ck(g))
			},
			want: map[string]int64{table + ".undefined": 1},
			plan: repairPlan{deletes: 1},
			afterRepair: func(t *testing.T, d *dataset, r Report) {
				if d.exists(table, d.indexKey(table, d.ghost())) {
					t.Error("the repair left the undefined row")
				}
				if r.References.Comments != 36 || r.Indexes[0].Rows != 36 || r.Indexes[1].Rows != 36 {
					t.Errorf("after the repair: %d comments, %d and %d index rows; want 36 of each",
						r.References.Comments, r.Indexes[0].Rows, r.Indexes[1].Rows)
				}
			},
		})
	}
	faults = append(faults, counterFault{
		name: "delete a comment", designs: everyDesign,
		inject: func(d *dataset) {
			c := d.byProd[d.products[1]][0] // the shortest: not ranked
			d.del(keys.Comment, d.ck(c))
		},
		want: map[string]int64{"user-comment.undefined": 1, "product-comment.undefined": 1},
		plan: repairPlan{deletes: 2},
		wantFor: map[string]map[string]int64{
			"feed": {"user-comment.undefined": 1, "product-comment.undefined": 1, "latest-comment.undefined": 1}},
		planFor: map[string]repairPlan{"feed": {deletes: 3}},
	})
	runCounterFaults(t, faults)
}

// A row that points at a comment whose fields do not make its key never
// shows alone: its comment either has its own row too (an extra
// reference, TestCounterExtra), or has none (unreferenced).
func TestCounterMismatched(t *testing.T) {
	var faults []counterFault
	for _, table := range bothIndexes {
		faults = append(faults, counterFault{
			name: table + " row moved to another millisecond",
			inject: func(d *dataset) {
				c := d.byProd[d.products[2]][6]
				d.del(table, d.indexKey(table, c))
				moved := c
				moved.Timestamp += 7
				d.put(table, d.indexKey(table, moved), d.ck(c))
			},
			want: map[string]int64{table + ".mismatched": 1, table + ".unreferenced": 1},
			plan: repairPlan{puts: 1, deletes: 1},
			also: func(t *testing.T, d *dataset, r Report) {
				// The sample names the row readable and in hex, and the row
				// its comment's fields make.
				c := d.byProd[d.products[2]][6]
				moved := c
				moved.Timestamp += 7
				want := d.layout.Describe(table, d.indexKey(table, c)) + " 0x" + hex.EncodeToString(d.indexKey(table, c))
				got := d.layout.Describe(table, d.indexKey(table, moved)) + " 0x" + hex.EncodeToString(d.indexKey(table, moved))
				s := allCounters(r)[table+".mismatched"].Samples
				if len(s) != 1 || !strings.HasPrefix(s[0], got+" -> ") || !strings.HasSuffix(s[0], ", whose fields make "+want) {
					t.Errorf("mismatched sample %q: want it to name %s and the row its comment makes, %s", s, got, want)
				}
			},
		})
	}
	faults = append(faults, counterFault{
		name: "rewrite an index value to another comment", designs: everyDesign,
		inject: func(d *dataset) {
			a, b := d.byProd[d.products[0]][3], d.byProd[d.products[2]][4]
			d.put(keys.ProductComment, d.productKey(a), d.ck(b))
		},
		want: map[string]int64{"product-comment.mismatched": 1, "product-comment.extra": 1, "product-comment.unreferenced": 1},
		plan: repairPlan{puts: 1, deletes: 1},
	})
	runCounterFaults(t, faults)
}

// The seed's keys cannot tell apart two comments on one product in one
// millisecond with one length, nor one user's two comments in one
// millisecond: the second put takes the first's row. No repair can give
// the first comment a row of its own on that layout.
func TestCounterCollided(t *testing.T) {
	note := func(n int, table string) []string {
		return []string{fmt.Sprintf("%d collided comments in %s: on the seed layout their index key holds another comment, "+
			"so no row can be written for them; the unique layout gives every comment its own key", n, table)}
	}
	faults := []counterFault{
		{name: "one product, one millisecond, one length", designs: []string{"seed"}, inject: func(d *dataset) {
			p := d.products[2]
			d.write("CollideOne", p, d.users[0], "같은 길이", ts0+1000)
			d.write("CollideTwo", p, d.users[1], "같은 길이", ts0+1000)
		}, want: map[string]int64{"product-comment.collided": 1, "collided_comments": 1},
			plan: repairPlan{cannot: note(1, keys.ProductComment)}, after: map[string]int64{"product-comment.collided": 1, "collided_comments": 1}},
		{name: "one user, one millisecond, three products", designs: []string{"seed"}, inject: func(d *dataset) {
			u := d.users[3]
			d.write("CollideOne", d.products[0], u, "첫째", ts0+1000)
			d.write("CollideTwo", d.products[1], u, "둘째 글", ts0+1000)
			d.write("CollideTre", d.products[2], u, "셋째 글입니다", ts0+1000)
		}, want: map[string]int64{"user-comment.collided": 2, "collided_comments": 2},
			plan: repairPlan{cannot: note(2, keys.UserComment)}, after: map[string]int64{"user-comment.collided": 2, "collided_comments": 2}},
		{name: "one user, one product, one millisecond, one length: hidden from both listings, one comment lost",
			designs: []string{"seed"}, inject: func(d *dataset) {
				u, p := d.users[3], d.products[2]
				d.write("CollideOne", p, u, "같은 길이", ts0+1000)
				d.write("CollideTwo", p, u, "같은 길이", ts0+1000)
			}, want: map[string]int64{"product-comment.collided": 1, "user-comment.collided": 1, "collided_comments": 1},
			plan:  repairPlan{cannot: append(note(1, keys.UserComment), note(1, keys.ProductComment)...)},
			after: map[string]int64{"product-comment.collided": 1, "user-comment.collided": 1, "collided_comments": 1}},
		{name: "two empty comments in one millisecond, the first edited since, with the ledger", designs: []string{"seed"},
			inject: func(d *dataset) {
				p := d.products[2]
				d.write("CollideOne", p, d.users[0], "", ts0+1000)
				d.write("CollideTwo", p, d.users[1], "", ts0+1000)
				_, err := d.sys.EditComment(d.ctx, "CollideOne", p, "no longer empty")
				must(d.t, err)
			},
			run: func(d *dataset) string {
				// The ledger holds the length the keys were made from, 0,
				// which the check does not take from it: the edited
				// comment's row is taken to be the one the other holds in
				// its millisecond, with the ledger as without it.
				recs := d.acked()
				for _, o := range []string{"CollideOne", "CollideTwo"} {
					k, err := d.layout.CommentKey(o, d.products[2])
					must(d.t, err)
					recs = append(recs, ledgerRec{results.Acked, k, 0})
				}
				return ledger(d.t, recs)
			},
			want: map[string]int64{"product-comment.collided": 1, "collided_comments": 1},
			plan: repairPlan{cannot: note(1, keys.ProductComment)}, after: map[string]int64{"product-comment.collided": 1, "collided_comments": 1}},
		{name: "one product, one millisecond, one length, with the order in the key",
			designs: []string{"unique", "salted", "hashed", "time-led"}, inject: func(d *dataset) {
				p := d.products[2]
				d.write("CollideOne", p, d.users[0], "같은 길이", ts0+1000)
				d.write("CollideTwo", p, d.users[1], "같은 길이", ts0+1000)
			}, want: map[string]int64{}},
	}
	runCounterFaults(t, faults)
}

// One comment with two rows in an index: the second is also mismatched
// (its key is not the one the comment's fields make), so extra never
// shows alone; the repair deletes that one and keeps the right one.
func TestCounterExtra(t *testing.T) {
	var faults []counterFault
	for _, table := range bothIndexes {
		faults = append(faults, counterFault{
			name: "a second " + table + " row for one comment",
			inject: func(d *dataset) {
				c := d.byProd[d.products[1]][8]
				copied := c
				copied.Timestamp -= 3
				d.put(table, d.indexKey(table, copied), d.ck(c))
			},
			want: map[string]int64{table + ".extra": 1, table + ".mismatched": 1},
			plan: repairPlan{deletes: 1},
			also: func(t *testing.T, d *dataset, r Report) {
				assertSamples(t, r, table+".extra", "has 2 rows in "+table)
			},
			afterRepair: func(t *testing.T, d *dataset, _ Report) {
				if !d.exists(table, d.indexKey(table, d.byProd[d.products[1]][8])) {
					t.Error("the repair deleted the comment's right row")
				}
			},
		})
	}
	faults = append(faults, counterFault{
		name: "three product-comment rows for one comment",
		inject: func(d *dataset) {
			c := d.byProd[d.products[0]][4]
			for _, dt := range []int64{-2000, 3000} {
				copied := c
				copied.Timestamp += dt
				d.put(keys.ProductComment, d.productKey(copied), d.ck(c))
			}
		},
		want: map[string]int64{"product-comment.extra": 2, "product-comment.mismatched": 2},
		plan: repairPlan{deletes: 2},
		also: func(t *testing.T, d *dataset, r Report) {
			assertSamples(t, r, "product-comment.extra", "has 2 rows in product-comment", "has 3 rows in product-comment")
		},
	})
	runCounterFaults(t, faults)
}

func TestCounterBadValue(t *testing.T) {
	faults := []counterFault{
		{name: "a row no comment calls for, holding three bytes", inject: func(d *dataset) {
			d.put(keys.ProductComment, d.productKey(d.ghost()), []byte("abc"))
		}, want: map[string]int64{"product-comment.bad_value": 1}, plan: repairPlan{deletes: 1},
			afterRepair: func(t *testing.T, d *dataset, _ Report) {
				if d.exists(keys.ProductComment, d.productKey(d.ghost())) {
					t.Error("the repair left the bad row")
				}
			}},
		{name: "an index row with an empty value", inject: func(d *dataset) {
			c := d.byProd[d.products[1]][2]
			d.put(keys.ProductComment, d.productKey(c), nil)
		}, want: map[string]int64{"product-comment.bad_value": 1}, // once: its comment wants that very row
			plan: repairPlan{puts: 1, deletes: 1}},
		{name: "an index row with a short value", inject: func(d *dataset) {
			c := d.byProd[d.products[1]][3]
			d.put(keys.UserComment, d.userKey(c), d.ck(c)[:7])
		}, want: map[string]int64{"user-comment.bad_value": 1},
			plan: repairPlan{puts: 1, deletes: 1}},
		{name: "an index row with a long value", inject: func(d *dataset) {
			c := d.byProd[d.products[2]][9]
			d.put(keys.UserComment, d.userKey(c), append(d.ck(c), 'x'))
		}, want: map[string]int64{"user-comment.bad_value": 1},
			plan: repairPlan{puts: 1, deletes: 1}},
	}
	runCounterFaults(t, faults)
}

func TestCounterUndecodable(t *testing.T) {
	var faults []counterFault
	for _, table := range bothIndexes {
		faults = append(faults, counterFault{
			name: "an undecodable key in " + table,
			inject: func(d *dataset) {
				d.put(table, []byte("garbage"), d.ck(d.byProd[d.products[2]][1]))
			},
			want: map[string]int64{table + ".undecodable": 1},
			plan: repairPlan{deletes: 1},
			also: func(t *testing.T, d *dataset, r Report) {
				for _, ix := range r.Indexes {
					if want := int64(36 + map[bool]int{true: 1}[ix.Table == table]); ix.Rows != want || ix.Referenced != 36 {
						t.Errorf("%s: %d rows, %d referenced; want %d and 36", ix.Table, ix.Rows, ix.Referenced, want)
					}
				}
			},
			afterRepair: func(t *testing.T, d *dataset, _ Report) {
				if d.exists(table, []byte("garbage")) {
					t.Error("the repair left the undecodable row")
				}
			},
		})
	}
	runCounterFaults(t, faults)
}

// ---- rank counters

func TestCounterOverLimit(t *testing.T) {
	runCounterFaults(t, []counterFault{
		{name: "an 11th rank", designs: everyDesign, inject: func(d *dataset) {
			d.put(keys.ProductRank, d.rankKey(d.products[0], 11), d.ck(d.byProd[d.products[0]][0]))
		}, want: map[string]int64{"ranks.over_limit": 1}, plan: repairPlan{reranks: 1},
			also: func(t *testing.T, d *dataset, r Report) {
				if r.Ranks.Rows != 31 || r.Ranks.Products != 3 {
					t.Errorf("%d rank rows of %d products, want 31 of 3", r.Ranks.Rows, r.Ranks.Products)
				}
			},
			afterRepair: func(t *testing.T, d *dataset, _ Report) {
				if d.exists(keys.ProductRank, d.rankKey(d.products[0], 11)) {
					t.Error("the rerank left rank 11")
				}
			}},
		{name: "ranks 11 and 12 of two products", inject: func(d *dataset) {
			for _, p := range d.products[1:] {
				for rank := 11; rank <= 12; rank++ {
					d.put(keys.ProductRank, d.rankKey(p, rank), d.ck(d.byProd[p][rank-11]))
				}
			}
		}, want: map[string]int64{"ranks.over_limit": 4}, plan: repairPlan{reranks: 2}},
	})
}

func TestCounterGaps(t *testing.T) {
	runCounterFaults(t, []counterFault{
		{name: "rank 5 deleted", inject: func(d *dataset) {
			d.del(keys.ProductRank, d.rankKey(d.products[1], 5))
		}, want: map[string]int64{"ranks.gaps": 1}, plan: repairPlan{reranks: 1},
			also: func(t *testing.T, d *dataset, r Report) {
				assertSamples(t, r, "ranks.gaps", "product "+d.products[1]+": 1 ranks missing below 10")
			},
			afterRepair: func(t *testing.T, d *dataset, _ Report) {
				if !d.exists(keys.ProductRank, d.rankKey(d.products[1], 5)) {
					t.Error("the rerank did not write rank 5 back")
				}
			}},
		{name: "ranks 1, 2 and 9 deleted", inject: func(d *dataset) {
			for _, rank := range []int{1, 2, 9} {
				d.del(keys.ProductRank, d.rankKey(d.products[2], rank))
			}
		}, want: map[string]int64{"ranks.gaps": 3}, plan: repairPlan{reranks: 1},
			also: func(t *testing.T, d *dataset, r Report) {
				assertSamples(t, r, "ranks.gaps", "product "+d.products[2]+": 3 ranks missing below 10")
			}},
		{name: "rank 9 deleted, rank 10 kept", inject: func(d *dataset) {
			d.del(keys.ProductRank, d.rankKey(d.products[0], 9))
		}, want: map[string]int64{"ranks.gaps": 1}, plan: repairPlan{reranks: 1}},
		{name: "ranks 3 and 10 deleted, an 11th written", inject: func(d *dataset) {
			p := d.products[0]
			d.del(keys.ProductRank, d.rankKey(p, 3))
			d.del(keys.ProductRank, d.rankKey(p, 10))
			d.put(keys.ProductRank, d.rankKey(p, 11), d.ck(d.byProd[p][0]))
		}, want: map[string]int64{"ranks.gaps": 1, "ranks.over_limit": 1}, plan: repairPlan{reranks: 1}},
	})
}

// A stale rank repeats a comment ranked higher, or was written before its
// ranking's rank 1: what a shorter ranking written over a longer one
// without deleting leaves (the seed's upsert). The fixed job deletes them.
func TestCounterStale(t *testing.T) {
	runCounterFaults(t, []counterFault{
		{name: "rank 1's comment again at rank 10", inject: func(d *dataset) {
			p := d.products[2]
			d.put(keys.ProductRank, d.rankKey(p, 10), d.ranked(p, 1))
		}, want: map[string]int64{"ranks.stale": 1}, plan: repairPlan{reranks: 1},
			also: func(t *testing.T, d *dataset, r Report) {
				if s := r.Ranks.Stale.Samples[0]; !strings.Contains(s, "repeats rank 1's comment") {
					t.Errorf("stale sample %q does not name the rank it repeats", s)
				}
			}},
		{name: "rank 1 written again, after the rest", inject: func(d *dataset) {
			// When a row was written says nothing: every other row is
			// older than rank 1 now, and none is stale.
			p := d.products[2]
			time.Sleep(2 * time.Millisecond)
			d.put(keys.ProductRank, d.rankKey(p, 1), d.ranked(p, 1))
		}, want: map[string]int64{}},
		{name: "rank 1 written again with rank 4's comment", inject: func(d *dataset) {
			p := d.products[2]
			time.Sleep(2 * time.Millisecond)
			d.put(keys.ProductRank, d.rankKey(p, 1), d.ranked(p, 4))
		}, want: map[string]int64{"ranks.stale": 1}, plan: repairPlan{reranks: 1},
			also: func(t *testing.T, d *dataset, r Report) {
				assertSamples(t, r, "ranks.stale", "rank=4] 0x"+hex.EncodeToString(d.rankKey(d.products[2], 4))+" repeats rank 1's comment")
			}},
		{name: "a shorter ranking upserted over a longer one, each comment moved up one", designs: []string{"seed", "unique"}, inject: func(d *dataset) {
			// Ranks 1..7 now hold what 2..8 held; 8..10 are left: rank 8
			// repeats rank 7's comment, and 9 and 10 repeat nothing.
			d.sys = comments.New(d.st, comments.Options{Layout: d.layout, KeepStaleRanks: true})
			for _, p := range d.products[:2] {
				var cks [][]byte
				for rank := 2; rank <= 8; rank++ {
					cks = append(cks, d.ranked(p, rank))
				}
				must(d.t, d.sys.UpsertRanks(d.ctx, p, cks))
			}
		}, want: map[string]int64{"ranks.stale": 2}, plan: repairPlan{reranks: 2},
			also: func(t *testing.T, d *dataset, r Report) {
				if s := r.Ranks.Stale.Samples[0]; !strings.Contains(s, "rank=8]") || !strings.Contains(s, "repeats rank 7's comment") {
					t.Errorf("stale sample %q, want rank 8 repeating rank 7's comment", s)
				}
			}},
		{name: "a shorter ranking written by the fixed job", inject: func(d *dataset) {
			time.Sleep(2 * time.Millisecond)
			shorter := comments.JobOptions{Keep: func(string, int) []int { return []int{0, 1, 2, 3, 4, 5, 6} }}
			if _, err := d.sys.RankJobWith(d.ctx, d.products[:2], shorter); err != nil {
				d.t.Fatal(err)
			}
		}, want: map[string]int64{}},
	})
}

func TestCounterDangling(t *testing.T) {
	runCounterFaults(t, []counterFault{
		{name: "rank 3 of a comment never written", inject: func(d *dataset) {
			d.put(keys.ProductRank, d.rankKey(d.products[0], 3), d.ck(d.ghost()))
		}, want: map[string]int64{"ranks.dangling": 1}, plan: repairPlan{reranks: 1},
			afterRepair: func(t *testing.T, d *dataset, _ Report) {
				if want := d.ck(d.byProd[d.products[0]][9]); string(d.ranked(d.products[0], 3)) != string(want) {
					t.Errorf("rank 3 after the rerank is %q, want %q", d.ranked(d.products[0], 3), want)
				}
			}},
	})
}

func TestCounterWrongProduct(t *testing.T) {
	runCounterFaults(t, []counterFault{
		{name: "rank 4 of another product's comment", inject: func(d *dataset) {
			d.put(keys.ProductRank, d.rankKey(d.products[0], 4), d.ck(d.byProd[d.products[1]][11]))
		}, want: map[string]int64{"ranks.wrong_product": 1}, plan: repairPlan{reranks: 1}},
		{name: "ranks 2 and 6 of the other two products' comments", inject: func(d *dataset) {
			d.put(keys.ProductRank, d.rankKey(d.products[1], 2), d.ck(d.byProd[d.products[0]][10]))
			d.put(keys.ProductRank, d.rankKey(d.products[1], 6), d.ck(d.byProd[d.products[2]][0]))
		}, want: map[string]int64{"ranks.wrong_product": 2}, plan: repairPlan{reranks: 1}},
	})
}

// A rank row whose key the design cannot read belongs to no ranking: the
// repair deletes it and reranks nothing.
func TestCounterUnparsable(t *testing.T) {
	runCounterFaults(t, []counterFault{
		{name: "an undecodable rank key", inject: func(d *dataset) {
			d.put(keys.ProductRank, []byte("rank-garbage"), d.ck(d.byProd[d.products[2]][1]))
		}, want: map[string]int64{"ranks.unparsable": 1}, plan: repairPlan{deletes: 1},
			also: func(t *testing.T, d *dataset, r Report) {
				if r.Ranks.Rows != 31 || r.Ranks.Products != 3 {
					t.Errorf("%d rank rows of %d products, want 31 of 3", r.Ranks.Rows, r.Ranks.Products)
				}
			},
			afterRepair: func(t *testing.T, d *dataset, _ Report) {
				if d.exists(keys.ProductRank, []byte("rank-garbage")) {
					t.Error("the repair left the unparsable rank row")
				}
			}},
	})
}

// ---- reference counters

var brokenRefs = "%d broken references (orders, users, products, sellers): the data does not say what the right entity is"

func TestCounterBadComments(t *testing.T) {
	note := []string{"1 comments whose value does not parse or is not its row's: their content is gone; their index rows are left as they are"}
	runCounterFaults(t, []counterFault{
		{name: "a comment whose value does not parse", inject: func(d *dataset) {
			c := d.byProd[d.products[0]][1] // short: unranked
			d.put(keys.Comment, d.ck(c), []byte("{not json"))
			// and an undecodable index row pointing at it: the repair
			// deletes that one, never the comment's valid rows
			d.put(keys.ProductComment, []byte("garbage"), d.ck(c))
		}, want: map[string]int64{"refs.bad": 1, "product-comment.undecodable": 1},
			plan: repairPlan{deletes: 1, cannot: note}, after: map[string]int64{"refs.bad": 1},
			afterRepair: func(t *testing.T, d *dataset, _ Report) {
				c := d.byProd[d.products[0]][1]
				if !d.exists(keys.ProductComment, d.productKey(c)) || !d.exists(keys.UserComment, d.userKey(c)) {
					t.Error("the repair deleted the corrupt comment's valid index rows")
				}
			}},
		// It parses, but names another order: as bad as one that does not
		// parse, counted once, its index rows neither mismatched nor
		// deleted by the repair.
		{name: "a comment whose value names another order", inject: func(d *dataset) {
			c := d.byProd[d.products[2]][1]
			other := c
			other.OrderID = "ElsewhereA"
			v, err := model.JSON.Marshal(other)
			must(d.t, err)
			d.put(keys.Comment, d.ck(c), v)
		}, want: map[string]int64{"refs.bad": 1}, plan: repairPlan{cannot: note}, after: map[string]int64{"refs.bad": 1},
			afterRepair: func(t *testing.T, d *dataset, _ Report) {
				c := d.byProd[d.products[2]][1]
				if !d.exists(keys.ProductComment, d.productKey(c)) || !d.exists(keys.UserComment, d.userKey(c)) {
					t.Error("the repair deleted the bad comment's index rows")
				}
			}},
		// Neither of its rows is its own, so the second is an extra
		// reference; neither is mismatched, and both stay.
		{name: "a comment whose value does not parse, with a second row", inject: func(d *dataset) {
			c := d.byProd[d.products[0]][1]
			d.put(keys.Comment, d.ck(c), []byte("{not json"))
			copied := c
			copied.Timestamp -= 3
			d.put(keys.ProductComment, d.productKey(copied), d.ck(c))
		}, want: map[string]int64{"refs.bad": 1, "product-comment.extra": 1}, plan: repairPlan{cannot: note},
			after: map[string]int64{"refs.bad": 1, "product-comment.extra": 1}},
		{name: "a comment row with no value cell", inject: func(d *dataset) {
			c := d.byProd[d.products[1]][0] // the shortest: unranked
			d.del(keys.Comment, d.ck(c))
			time.Sleep(2 * time.Millisecond) // a put in the delete's millisecond stays hidden
			must(d.t, d.st.Mutate(d.ctx, keys.Comment, store.Put(d.ck(c), store.Cell{Qualifier: []byte("other"), Value: []byte("x")})))
		}, want: map[string]int64{"refs.bad": 1}, plan: repairPlan{cannot: note}, after: map[string]int64{"refs.bad": 1}},
	})
}

func TestCounterMissingOrder(t *testing.T) {
	runCounterFaults(t, []counterFault{
		{name: "an order deleted", inject: func(d *dataset) {
			d.del(keys.Order, d.orderKey(d.byProd[d.products[2]][3].OrderID))
		}, want: map[string]int64{"refs.missing_order": 1},
			plan: repairPlan{cannot: []string{fmt.Sprintf(brokenRefs, 1)}}, after: map[string]int64{"refs.missing_order": 1}},
		{name: "the first and the last orders deleted", inject: func(d *dataset) {
			first, last := scanKeys(d, keys.Order)
			d.del(keys.Order, first)
			d.del(keys.Order, last)
		}, want: map[string]int64{"refs.missing_order": 2},
			plan: repairPlan{cannot: []string{fmt.Sprintf(brokenRefs, 2)}}, after: map[string]int64{"refs.missing_order": 2}},
	})
}

// scanKeys is the first and the last key of a table.
func scanKeys(d *dataset, table string) (first, last []byte) {
	d.t.Helper()
	_, err := d.st.Scan(d.ctx, table, store.Scan{}, func(r store.Row) bool {
		if first == nil {
			first = r.Key
		}
		last = r.Key
		return true
	})
	must(d.t, err)
	return first, last
}

func TestCounterOrderUser(t *testing.T) {
	runCounterFaults(t, []counterFault{
		{name: "an order of another user", designs: everyDesign, inject: func(d *dataset) {
			c := d.byProd[d.products[0]][7]
			must(d.t, d.sys.CreateOrder(d.ctx, model.Order{ID: c.OrderID, UserID: d.users[(7+1)%4]}))
		}, want: map[string]int64{"refs.order_user": 1},
			plan: repairPlan{cannot: []string{fmt.Sprintf(brokenRefs, 1)}}, after: map[string]int64{"refs.order_user": 1},
			also: func(t *testing.T, d *dataset, r Report) {
				c := d.byProd[d.products[0]][7]
				want := fmt.Sprintf("comment by %s, order %s is %s's", c.UserID, c.OrderID, d.users[0])
				if s := r.References.OrderUser.Samples[0]; !strings.Contains(s, want) {
					t.Errorf("sample %q, want it to say %q", s, want)
				}
			}},
		{name: "an order whose value does not parse", inject: func(d *dataset) {
			d.put(keys.Order, d.orderKey(d.byProd[d.products[1]][4].OrderID), []byte("{"))
		}, want: map[string]int64{"refs.order_user": 1},
			plan: repairPlan{cannot: []string{fmt.Sprintf(brokenRefs, 1)}}, after: map[string]int64{"refs.order_user": 1}},
	})
}

// A counter counts every finding and keeps the first MaxSamples.
func TestCounterKeepsTheFirstSamples(t *testing.T) {
	var c Counter
	for i := range MaxSamples + 2 {
		c.add(2, func() string { return fmt.Sprint(i) })
	}
	if c.Count != 2*(MaxSamples+2) || len(c.Samples) != MaxSamples || c.Samples[MaxSamples-1] != fmt.Sprint(MaxSamples-1) {
		t.Errorf("count %d, samples %q; want %d and the first %d", c.Count, c.Samples, 2*(MaxSamples+2), MaxSamples)
	}
}

func TestCounterMissingUser(t *testing.T) {
	runCounterFaults(t, []counterFault{
		{name: "a user deleted, with their nine comments", inject: func(d *dataset) {
			d.del(keys.User, d.entityKey(keys.User, d.users[1]))
		}, want: map[string]int64{"refs.missing_user": 9},
			plan: repairPlan{cannot: []string{fmt.Sprintf(brokenRefs, 9)}}, after: map[string]int64{"refs.missing_user": 9}},
		{name: "every user deleted", inject: func(d *dataset) {
			for _, u := range d.users {
				d.del(keys.User, d.entityKey(keys.User, u))
			}
		}, want: map[string]int64{"refs.missing_user": 36},
			plan: repairPlan{cannot: []string{fmt.Sprintf(brokenRefs, 36)}}, after: map[string]int64{"refs.missing_user": 36},
			also: func(t *testing.T, d *dataset, r Report) {
				// One sample per missing user, with how many comments name it.
				s := r.References.MissingUser.Samples
				if len(s) != len(d.users) {
					t.Fatalf("%d missing users, %d samples %q; want one each", len(d.users), len(s), s)
				}
				for _, x := range s {
					if !strings.HasSuffix(x, " and 8 more") {
						t.Errorf("sample %q: want it to end with the user's other 8 comments", x)
					}
				}
			}},
		{name: "a comment by a user never created", designs: []string{"unique", "hashed"}, inject: func(d *dataset) {
			d.write("NoUserOrdr", d.products[1], "NobodyUser", "누구", ts0+3000)
		}, want: map[string]int64{"refs.missing_user": 1},
			plan: repairPlan{cannot: []string{fmt.Sprintf(brokenRefs, 1)}}, after: map[string]int64{"refs.missing_user": 1},
			also: func(t *testing.T, d *dataset, r Report) {
				if s := r.References.MissingUser.Samples[0]; !strings.Contains(s, "NobodyUser") || strings.Contains(s, " more") {
					t.Errorf("sample %q: want it to name the missing user and its one referrer alone", s)
				}
			}},
	})
}

func (d *dataset) entityKey(table, id string) []byte {
	d.t.Helper()
	k, err := d.layout.EntityKey(table, id)
	must(d.t, err)
	return k
}

func TestCounterMissingProduct(t *testing.T) {
	runCounterFaults(t, []counterFault{
		{name: "a product deleted, with its twelve comments", designs: []string{"unique", "hashed"}, inject: func(d *dataset) {
			d.del(keys.Product, d.entityKey(keys.Product, d.products[1]))
		}, want: map[string]int64{"refs.missing_product": 12},
			plan: repairPlan{cannot: []string{fmt.Sprintf(brokenRefs, 12)}}, after: map[string]int64{"refs.missing_product": 12}},
		{name: "a comment on a product never created", inject: func(d *dataset) {
			d.write("NoProdOrdr", "NoSuchProd", d.users[2], "없는 상품", ts0+3000)
		}, want: map[string]int64{"refs.missing_product": 1},
			plan: repairPlan{cannot: []string{fmt.Sprintf(brokenRefs, 1)}}, after: map[string]int64{"refs.missing_product": 1}},
	})
}

// A seller is counted missing once per product that names it.
func TestCounterMissingSeller(t *testing.T) {
	runCounterFaults(t, []counterFault{
		{name: "the seller of three products deleted", designs: everyDesign, inject: func(d *dataset) {
			first, _ := scanKeys(d, keys.Seller)
			d.del(keys.Seller, first)
		}, want: map[string]int64{"refs.missing_seller": 3},
			plan: repairPlan{cannot: []string{fmt.Sprintf(brokenRefs, 3)}}, after: map[string]int64{"refs.missing_seller": 3}},
		{name: "a product with no comments, of a seller never created", inject: func(d *dataset) {
			must(d.t, d.sys.CreateProduct(d.ctx, model.Product{ID: "LonelyProd", SellerID: "NoSellerId"}))
		}, want: map[string]int64{"refs.missing_seller": 1},
			plan: repairPlan{cannot: []string{fmt.Sprintf(brokenRefs, 1)}}, after: map[string]int64{"refs.missing_seller": 1}},
		{name: "a product whose seller id is not a key's", inject: func(d *dataset) {
			must(d.t, d.sys.CreateProduct(d.ctx, model.Product{ID: "OddSellers", SellerID: "s"}))
		}, want: map[string]int64{"refs.missing_seller": 1},
			plan: repairPlan{cannot: []string{fmt.Sprintf(brokenRefs, 1)}}, after: map[string]int64{"refs.missing_seller": 1}},
		{name: "a product whose value does not parse still exists", inject: func(d *dataset) {
			d.put(keys.Product, d.entityKey(keys.Product, d.products[0]), []byte("{"))
		}, want: map[string]int64{}},
	})
}

// Every broken reference is summed in the one note.
func TestBrokenReferencesSummed(t *testing.T) {
	runCounterFaults(t, []counterFault{
		{name: "one of each", inject: func(d *dataset) {
			d.del(keys.Order, d.orderKey(d.byProd[d.products[2]][3].OrderID))
			c := d.byProd[d.products[0]][7]
			must(d.t, d.sys.CreateOrder(d.ctx, model.Order{ID: c.OrderID, UserID: d.users[0]}))
			d.write("NoUserOrdr", d.products[1], "NobodyUser", "누구", ts0+3000)
			d.write("NoProdOrdr", "NoSuchProd", d.users[2], "없는 상품", ts0+3001)
			must(d.t, d.sys.CreateProduct(d.ctx, model.Product{ID: "LonelyProd", SellerID: "NoSellerId"}))
		}, want: map[string]int64{"refs.missing_order": 1, "refs.order_user": 1, "refs.missing_user": 1,
			"refs.missing_product": 1, "refs.missing_seller": 1},
			plan: repairPlan{cannot: []string{fmt.Sprintf(brokenRefs, 5)}},
			after: map[string]int64{"refs.missing_order": 1, "refs.order_user": 1, "refs.missing_user": 1,
				"refs.missing_product": 1, "refs.missing_seller": 1}},
	})
}

// ---- run counters

// ledger writes a run's ledger: each record its status, comment and
// length, worker by worker.
func ledger(t *testing.T, workers ...[]ledgerRec) string {
	t.Helper()
	dir := t.TempDir()
	l := results.NewLedger(dir, false)
	for i, recs := range workers {
		w, err := l.Writer(i)
		must(t, err)
		for _, r := range recs {
			w.Write(r.status, r.ck, r.n)
		}
	}
	must(t, l.Close())
	return dir
}

type ledgerRec struct {
	status byte
	ck     []byte
	n      int
}

// acked is every comment of the data set, acknowledged.
func (d *dataset) acked() []ledgerRec {
	var recs []ledgerRec
	for _, p := range d.products {
		for _, c := range d.byProd[p] {
			recs = append(recs, ledgerRec{results.Acked, d.ck(c), c.ContentLen()})
		}
	}
	return recs
}

func assertRun(t *testing.T, r Report, want RunReport) {
	t.Helper()
	if r.Run == nil {
		t.Fatal("a check with a run reports none")
	}
	got := *r.Run
	got.Dir, got.Lost.Samples, got.NotInLedger.Samples = "", nil, nil
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("run %+v\nwant %+v", got, want)
	}
}

func TestCounterLost(t *testing.T) {
	runCounterFaults(t, []counterFault{
		{name: "an acknowledged comment that is not there", inject: func(*dataset) {}, run: func(d *dataset) string {
			g := d.ghost()
			return ledger(d.t, d.acked()[:20], append(d.acked()[20:], ledgerRec{results.Acked, d.ck(g), g.ContentLen()}))
		}, want: map[string]int64{"run.lost": 1},
			plan:  repairPlan{cannot: []string{"1 acknowledged comments lost: their content is gone"}},
			after: map[string]int64{"run.lost": 1},
			also: func(t *testing.T, d *dataset, r Report) {
				assertRun(t, r, RunReport{Acked: 37, Lost: Counter{Count: 1}})
				if s := r.Run.Lost.Samples[0]; !strings.Contains(s, "GhostOrder") {
					t.Errorf("sample %q does not name the lost comment", s)
				}
			}},
		{name: "two acknowledged comments deleted", inject: func(d *dataset) {
			for _, c := range []model.Comment{d.byProd[d.products[0]][0], d.byProd[d.products[2]][1]} { // unranked
				d.del(keys.Comment, d.ck(c))
				d.del(keys.ProductComment, d.productKey(c))
				d.del(keys.UserComment, d.userKey(c))
			}
		}, run: func(d *dataset) string { return ledger(d.t, d.acked()) },
			want:  map[string]int64{"run.lost": 2},
			plan:  repairPlan{cannot: []string{"2 acknowledged comments lost: their content is gone"}},
			after: map[string]int64{"run.lost": 2},
			also: func(t *testing.T, d *dataset, r Report) {
				assertRun(t, r, RunReport{Acked: 36, Lost: Counter{Count: 2}})
			}},
	})
}

// Writes whose outcome was never known are counted apart, present or
// absent: either is legitimate, so neither makes the data inconsistent and
// there is nothing to repair.
func TestCounterUnknownPresent(t *testing.T) {
	runCounterFaults(t, []counterFault{
		{name: "two unknown outcomes that landed", inject: func(*dataset) {}, run: func(d *dataset) string {
			recs := d.acked()
			recs[3].status, recs[30].status = results.Unknown, results.Unknown
			return ledger(d.t, recs)
		}, want: map[string]int64{}, also: func(t *testing.T, d *dataset, r Report) {
			assertRun(t, r, RunReport{Acked: 34, UnknownPresent: 2})
		}},
	})
}

func TestCounterUnknownAbsent(t *testing.T) {
	runCounterFaults(t, []counterFault{
		{name: "an unknown outcome that did not land", inject: func(*dataset) {}, run: func(d *dataset) string {
			g := d.ghost()
			return ledger(d.t, append(d.acked(), ledgerRec{results.Unknown, d.ck(g), g.ContentLen()}))
		}, want: map[string]int64{}, also: func(t *testing.T, d *dataset, r Report) {
			assertRun(t, r, RunReport{Acked: 36, UnknownAbsent: 1})
		}},
	})
}

// A ledger file whose last record a crash tore: the records before it
// count, and the torn one's comment is in no record; the data is not the
// worse for it.
func TestCounterTornTails(t *testing.T) {
	runCounterFaults(t, []counterFault{
		{name: "two of three ledger files torn", inject: func(*dataset) {}, run: func(d *dataset) string {
			recs := d.acked()
			dir := ledger(d.t, recs[:10], recs[10:20], recs[20:])
			for _, i := range []int{0, 2} {
				path := filepath.Join(dir, fmt.Sprintf("ledger-%04d.bin", i))
				fi, err := os.Stat(path)
				must(d.t, err)
				must(d.t, os.Truncate(path, fi.Size()-3)) // the last record loses its checksum's end
			}
			return dir
		}, want: map[string]int64{}, also: func(t *testing.T, d *dataset, r Report) {
			assertRun(t, r, RunReport{Acked: 34, TornTails: 2, NotInLedger: Counter{Count: 2}})
		}},
	})
}

// A check of a data set with its run's ledger reads every record: the
// counts add up to the ledger, and a run dir with no ledger is refused.
func TestRunWithoutLedger(t *testing.T) {
	d := newDataset(t, keys.Unique)
	_, err := Run(d.ctx, d.st, Options{Layout: d.layout, TempDir: t.TempDir(), RunDir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "--run") {
		t.Errorf("a run dir without a ledger: %v, want an error naming --run", err)
	}
}

// A product is reranked when any of its rank counters moved, whichever
// they are and however many at once.
func TestRerankOnAnyRankProblem(t *testing.T) {
	runCounterFaults(t, []counterFault{
		{name: "stale and dangling in one product, dangling and wrong-product in another", inject: func(d *dataset) {
			a, b := d.products[0], d.products[1]
			d.put(keys.ProductRank, d.rankKey(a, 10), d.ranked(a, 1))
			d.put(keys.ProductRank, d.rankKey(a, 5), d.ck(d.ghost()))
			d.put(keys.ProductRank, d.rankKey(b, 3), d.ck(d.ghost()))
			d.put(keys.ProductRank, d.rankKey(b, 4), d.ck(d.byProd[d.products[2]][11]))
		}, want: map[string]int64{"ranks.stale": 1, "ranks.dangling": 2, "ranks.wrong_product": 1}, plan: repairPlan{reranks: 2}},
		{name: "gaps and over the limit in one product", inject: func(d *dataset) {
			p := d.products[2]
			d.del(keys.ProductRank, d.rankKey(p, 2))
			d.put(keys.ProductRank, d.rankKey(p, 11), d.ck(d.byProd[p][0]))
		}, want: map[string]int64{"ranks.gaps": 1, "ranks.over_limit": 1}, plan: repairPlan{reranks: 1}},
	})
}

// A repair collects at most MaxRepairs actions, puts, deletes and reranks
// together; the rest are counted, left for the next run.
func TestRepairsBounded(t *testing.T) {
	r := newRepairs(true, keys.Unique, comments.NonAtomic)
	r.puts = make([]indexAction, MaxRepairs/2)
	r.dels = make([]indexAction, MaxRepairs/4)
	r.reranks = make([]string, MaxRepairs-MaxRepairs/2-MaxRepairs/4-1)
	r.rerank("last") // the MaxRepairs-th
	r.put(keys.ProductComment, []byte("k"), []byte("v"))
	r.del(keys.ProductComment, []byte("k"))
	r.rerank("over")
	if n := len(r.puts) + len(r.dels) + len(r.reranks); n != MaxRepairs || r.dropped != 3 || r.reranks[len(r.reranks)-1] != "last" {
		t.Errorf("%d actions kept, %d dropped; want %d and 3", n, r.dropped, MaxRepairs)
	}
	rep := r.report(Report{})
	if rep.Dropped != 3 || rep.Puts != MaxRepairs/2 || rep.Reranks != len(r.reranks) {
		t.Errorf("report %+v", rep)
	}
	off := newRepairs(false, keys.Unique, comments.NonAtomic)
	off.put("t", nil, nil)
	off.rerank("p")
	if len(off.puts)+len(off.reranks) != 0 || off.dropped != 0 {
		t.Error("a check without --repair collected actions")
	}
}

// A listing kept with a count in its owner's row (between's) is checked
// against the entries beside it; the repair sets a count that is off to
// the entries the row holds.
func TestCounterCountOff(t *testing.T) {
	meta := func(d *dataset, table, owner string, v []byte) {
		t := d.layout.Table(table)
		must(d.t, d.st.Mutate(d.ctx, t.Store, store.Put([]byte(owner), store.Cell{Qualifier: t.Meta, Value: v})))
	}
	recounted := func(n int) func(t *testing.T, d *dataset, r Report) {
		return func(t *testing.T, d *dataset, r Report) {
			if r.Repair.Recounts != n {
				t.Errorf("the repair sets %d counts, want %d", r.Repair.Recounts, n)
			}
		}
	}
	runCounterFaults(t, []counterFault{
		{name: "a product's count bumped", designs: []string{"between"}, inject: func(d *dataset) {
			meta(d, keys.ProductComment, d.products[1], comments.EncodeCount(99))
		}, want: map[string]int64{"product-comment.count_off": 1}, also: func(t *testing.T, d *dataset, r Report) {
			assertSamples(t, r, "product-comment.count_off", "counts 99, holds 12 entries")
			recounted(1)(t, d, r)
		}},
		{name: "a user's count of 3 bytes", designs: []string{"between"}, inject: func(d *dataset) {
			meta(d, keys.UserComment, d.users[2], []byte("abc"))
		}, want: map[string]int64{"user-comment.count_off": 1}, also: recounted(1)},
		{name: "a count with no entries beside it", designs: []string{"between"}, inject: func(d *dataset) {
			meta(d, keys.ProductComment, "NoCommentP", comments.EncodeCount(1))
		}, want: map[string]int64{"product-comment.count_off": 1}, also: func(t *testing.T, d *dataset, r Report) {
			assertSamples(t, r, "product-comment.count_off", "counts 1, holds 0 entries")
			if r.Indexes[1].Collections != 4 {
				t.Errorf("%d collections, want 4: the three products and the count alone", r.Indexes[1].Collections)
			}
		}},
	})
}

// A rank row whose value names no comment is a finding of its own, and
// the check goes on: the repair reranks its product.
func TestCounterRankBadValue(t *testing.T) {
	runCounterFaults(t, []counterFault{
		{name: "rank 3 with an empty value", designs: everyDesign, inject: func(d *dataset) {
			d.put(keys.ProductRank, d.rankKey(d.products[1], 3), nil)
		}, want: map[string]int64{"ranks.bad_value": 1}, plan: repairPlan{reranks: 1},
			also: func(t *testing.T, d *dataset, r Report) {
				assertSamples(t, r, "ranks.bad_value", "rank=3] 0x"+hex.EncodeToString(d.rankKey(d.products[1], 3))+" holds \"\", no comment's key")
			}},
		{name: "ranks 2 and 5 with values no comment key can be", inject: func(d *dataset) {
			d.put(keys.ProductRank, d.rankKey(d.products[0], 2), []byte("x"))
			d.put(keys.ProductRank, d.rankKey(d.products[0], 5), bytes.Repeat([]byte{0xff}, 300))
		}, want: map[string]int64{"ranks.bad_value": 2}, plan: repairPlan{reranks: 1}},
	})
}

// A ranked comment whose value does not decode is a bad comment, counted
// once as such, and its rank row one of its own kind, not one of a product
// with no id. No ranking can mend it: the repair leaves both.
func TestCounterRankBadComment(t *testing.T) {
	runCounterFaults(t, []counterFault{
		{name: "rank 2's comment not JSON", inject: func(d *dataset) {
			d.put(keys.Comment, d.ranked(d.products[2], 2), []byte("{not json"))
		}, want: map[string]int64{"ranks.bad_comment": 1, "refs.bad": 1},
			plan:  repairPlan{cannot: []string{"1 comments whose value does not parse or is not its row's: their content is gone; their index rows are left as they are"}},
			after: map[string]int64{"ranks.bad_comment": 1, "refs.bad": 1},
			also: func(t *testing.T, d *dataset, r Report) {
				assertSamples(t, r, "ranks.bad_comment", "rank=2] 0x"+hex.EncodeToString(d.rankKey(d.products[2], 2))+" -> comment 0x"+hex.EncodeToString(d.ranked(d.products[2], 2))+", whose value does not decode")
			}},
	})
}

// started puts a pending record before each record, as a run writes them.
func started(recs []ledgerRec) []ledgerRec {
	var out []ledgerRec
	for _, r := range recs {
		out = append(out, ledgerRec{results.Pending, r.ck, r.n}, r)
	}
	return out
}

// A write started and never ended was in flight when the run stopped,
// present or not; one refused before its first put ended as not written.
// Neither is drift, loss or a problem of the data.
func TestCounterInFlight(t *testing.T) {
	runCounterFaults(t, []counterFault{
		{name: "every write started and acknowledged", inject: func(*dataset) {}, run: func(d *dataset) string {
			return ledger(d.t, started(d.acked()))
		}, want: map[string]int64{}, also: func(t *testing.T, d *dataset, r Report) {
			assertRun(t, r, RunReport{Acked: 36})
		}},
		{name: "two writes in flight, one landed", inject: func(*dataset) {}, run: func(d *dataset) string {
			recs := started(d.acked())
			landed := recs[len(recs)-2:]                             // the last comment's pending and outcome
			recs = append(recs[:len(recs)-2:len(recs)-2], landed[0]) // its outcome never written
			g := d.ghost()
			return ledger(d.t, recs, []ledgerRec{{results.Pending, d.ck(g), g.ContentLen()}})
		}, want: map[string]int64{}, also: func(t *testing.T, d *dataset, r Report) {
			assertRun(t, r, RunReport{Acked: 35, InFlightPresent: 1, InFlightAbsent: 1})
		}},
		{name: "a write refused before its first put", inject: func(*dataset) {}, run: func(d *dataset) string {
			g := d.ghost()
			return ledger(d.t, started(append(d.acked(), ledgerRec{results.NotWritten, d.ck(g), g.ContentLen()})))
		}, want: map[string]int64{}, also: func(t *testing.T, d *dataset, r Report) {
			assertRun(t, r, RunReport{Acked: 36})
		}},
		{name: "a comment in no record of the run", inject: func(d *dataset) {
			d.write("StrangerOr", d.products[0], d.users[0], "누가 썼나", ts0+5)
		}, run: func(d *dataset) string {
			return ledger(d.t, started(d.acked()))
		}, want: map[string]int64{}, also: func(t *testing.T, d *dataset, r Report) {
			assertRun(t, r, RunReport{Acked: 36, NotInLedger: Counter{Count: 1}})
			if s := r.Run.NotInLedger.Samples; len(s) != 1 || !strings.Contains(s[0], "StrangerOr") {
				t.Errorf("not in the ledger: samples %q, want the comment named", s)
			}
		}},
	})
}
