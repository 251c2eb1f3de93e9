package check

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"commentbench/comments"
	"commentbench/keys"
	"commentbench/model"
	"commentbench/store"
	"commentbench/store/embedded"
)

const ts0 = int64(1763697906123)

// dataset is a good data set on an in-memory engine: products with a dozen
// comments each (longer content later, so the two shortest are unranked),
// ranked by the ranking job.
type dataset struct {
	t        *testing.T
	ctx      context.Context
	st       store.Store
	sys      *comments.System
	layout   *keys.Design
	products []string
	users    []string
	byProd   map[string][]model.Comment
}

func newDataset(t *testing.T, layout *keys.Design) *dataset {
	t.Helper()
	e, err := embedded.Open(embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	d := &dataset{t: t, ctx: context.Background(), st: e, layout: layout, byProd: map[string][]model.Comment{},
		sys: comments.New(e, comments.Options{Layout: layout})}
	must(t, d.sys.CreateTables(d.ctx, keys.RandomLetters, 3))
	ids := keys.NewRandom(rand.New(rand.NewPCG(3, 4)))
	seller := ids.Next()
	must(t, d.sys.CreateSeller(d.ctx, model.Seller{ID: seller, Name: "s"}))
	for range 4 {
		u := ids.Next()
		must(t, d.sys.CreateUser(d.ctx, model.User{ID: u}))
		d.users = append(d.users, u)
	}
	ts := ts0
	for range 3 {
		p := ids.Next()
		must(t, d.sys.CreateProduct(d.ctx, model.Product{ID: p, SellerID: seller}))
		d.products = append(d.products, p)
		for i := range 12 {
			ts++
			d.byProd[p] = append(d.byProd[p], d.write(ids.Next(), p, d.users[i%4], strings.Repeat("글", i+1), ts))
		}
	}
	if _, err := d.sys.RankJob(d.ctx, d.products); err != nil {
		t.Fatal(err)
	}
	return d
}

func (d *dataset) write(order, product, user, content string, ts int64) model.Comment {
	must(d.t, d.sys.CreateOrder(d.ctx, model.Order{ID: order, UserID: user}))
	c, err := d.sys.WriteComment(d.ctx, comments.NewComment{OrderID: order, ProductID: product, UserID: user,
		Content: content, Timestamp: ts})
	must(d.t, err)
	return c
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func (d *dataset) check(repair bool) Report {
	d.t.Helper()
	rep, err := Run(d.ctx, d.st, Options{Layout: d.layout, MemLimit: 4 << 10, TempDir: d.t.TempDir(), Repair: repair, Spread: true})
	must(d.t, err)
	return rep
}

func (d *dataset) ck(c model.Comment) []byte {
	k, err := d.layout.CommentKey(c.OrderID, c.ProductID)
	must(d.t, err)
	return k
}

func (d *dataset) productKey(c model.Comment) []byte {
	k, err := d.layout.Encode(keys.Key{Table: keys.ProductComment, UserID: c.UserID, ProductID: c.ProductID,
		OrderID: c.OrderID, Timestamp: c.Timestamp, ContentLen: c.ContentLen()})
	must(d.t, err)
	return k
}

func (d *dataset) orderKey(id string) []byte {
	k, err := d.layout.EntityKey(keys.Order, id)
	must(d.t, err)
	return k
}

func (d *dataset) userRow(id string) []byte {
	k, err := d.layout.EntityKey(keys.User, id)
	must(d.t, err)
	return k
}

func builtin(t testing.TB, name string) *keys.Design {
	t.Helper()
	if src, ok := clusteredDesigns[name]; ok {
		l, err := keys.Parse(name+".yaml", []byte(src))
		must(t, err)
		return l
	}
	l, err := keys.Builtin(name)
	must(t, err)
	return l
}

// clusteredDesigns are built-ins whose product listing holds a copy of
// each comment (a clustered index), in a row of its own or in the
// product's.
var clusteredDesigns = map[string]string{
	"clustered":         clusteredOf("unique", "    key: productId lit(c) revTs revLen orderId\n"),
	"between-clustered": clusteredOf("between", "    meta: lit(l) lit(0x00)\n"),
}

// clusteredOf is built-in name with its product listing's value a copy of
// the comment: the value line goes after the product listing's line at.
func clusteredOf(name, at string) string {
	l, err := keys.Builtin(name)
	if err != nil {
		panic(err)
	}
	src := strings.Replace(string(l.Source()), "name: "+name, "name: "+name+"-clustered", 1)
	i := strings.Index(src, "  product-comment:\n")
	j := i + strings.Index(src[i:], at) + len(at)
	return src[:j] + "    value: comment\n" + src[j:]
}

// counters flattens every non-zero counter of a report.
func counters(r Report) map[string]Counter {
	m := map[string]Counter{}
	for name, c := range allCounters(r) {
		if c.Count != 0 {
			m[name] = c
		}
	}
	return m
}

// allCounters is every counter of a report, zero or not.
func allCounters(r Report) map[string]Counter {
	m := map[string]Counter{}
	for _, ix := range r.Indexes {
		for name, c := range map[string]Counter{"unreferenced": ix.Unreferenced, "undefined": ix.Undefined,
			"mismatched": ix.Mismatched, "collided": ix.Collided, "extra": ix.Extra,
			"bad_value": ix.BadValue, "undecodable": ix.Undecodable, "count_off": ix.CountOff,
			"stale_copies": ix.StaleCopies} {
			m[ix.Table+"."+name] = c
		}
	}
	rk, rf := r.Ranks, r.References
	for name, c := range map[string]Counter{"ranks.over_limit": rk.OverLimit, "ranks.gaps": rk.Gaps, "ranks.stale": rk.Stale,
		"ranks.dangling": rk.Dangling, "ranks.wrong_product": rk.WrongProduct, "ranks.unparsable": rk.Unparsable,
		"ranks.bad_value": rk.BadValue, "ranks.bad_comment": rk.BadComment,
		"refs.bad": rf.BadComments, "refs.missing_order": rf.MissingOrder, "refs.order_user": rf.OrderUser,
		"refs.missing_user": rf.MissingUser, "refs.missing_product": rf.MissingProduct, "refs.missing_seller": rf.MissingSeller} {
		m[name] = c
	}
	if r.Run != nil {
		m["run.lost"] = r.Run.Lost
	}
	return m
}

func assertCounts(t *testing.T, r Report, want map[string]int64) {
	t.Helper()
	got := map[string]int64{}
	for name, c := range allCounters(r) {
		switch {
		case c.Count == 0 && len(c.Samples) > 0:
			t.Errorf("%s: nothing counted but samples %q", name, c.Samples)
		case c.Count == 0:
		case len(c.Samples) == 0 || c.Samples[0] == "":
			t.Errorf("%s: %d counted but no sample", name, c.Count)
		case int64(len(c.Samples)) > min(c.Count, MaxSamples): // a sample per finding, a finding may count several
			t.Errorf("%s: %d counted, %d samples; want at most %d", name, c.Count, len(c.Samples), min(c.Count, MaxSamples))
		}
		if c.Count != 0 {
			got[name] = c.Count
		}
	}
	if r.CollidedComments != 0 { // the comments behind the collided rows, each once
		got["collided_comments"] = r.CollidedComments
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("counters %v\nwant     %v", got, want)
		for name, c := range counters(r) {
			t.Logf("%s: %q", name, c.Samples)
		}
	}
	if r.Consistent != (len(want) == 0) {
		t.Errorf("consistent = %v with counters %v (%s)", r.Consistent, got, r.Verdict)
	}
	// The verdict sums every counter (the collided comments are the
	// collided rows again, counted by comment).
	var sum int64
	for name, n := range want {
		if name != "collided_comments" {
			sum += n
		}
	}
	verdict := fmt.Sprintf("INCONSISTENT: %d problems over %d comments (layout %s)", sum, r.References.Comments, r.Layout)
	if sum == 0 {
		verdict = fmt.Sprintf("CONSISTENT: %d comments, every index row and rank accounted for (layout %s)",
			r.References.Comments, r.Layout)
	}
	if r.Verdict != verdict {
		t.Errorf("verdict %q\nwant    %q", r.Verdict, verdict)
	}
}

// A data set written with any built-in design verifies consistent, with
// zero in every counter.
func TestCleanDataSet(t *testing.T) {
	for _, name := range keys.BuiltinNames() {
		t.Run(name, func(t *testing.T) {
			d := newDataset(t, builtin(t, name))
			r := d.check(false)
			assertCounts(t, r, map[string]int64{})
			if r.Layout != name {
				t.Errorf("report names layout %q, want %q", r.Layout, name)
			}
			if r.References.Comments != 36 || r.Indexes[0].Referenced != 36 || r.Indexes[1].Referenced != 36 ||
				r.Indexes[0].Rows != 36 || r.Indexes[1].Rows != 36 || r.Ranks.Rows != 30 || r.Ranks.Products != 3 {
				t.Errorf("checked %d comments, referenced %d/%d of %d/%d rows, %d ranks of %d products",
					r.References.Comments, r.Indexes[0].Referenced, r.Indexes[1].Referenced,
					r.Indexes[0].Rows, r.Indexes[1].Rows, r.Ranks.Rows, r.Ranks.Products)
			}
		})
	}
}

// productFirst is unique with the comment table keyed product first: its
// comments no longer stream in their orders' key order, so only a sort
// joins them with the order table.
const productFirst = `name: product-first
description: unique, with comments keyed by product then order.
tables:
  user:
    key: id
  seller:
    key: id
  product:
    key: id
  order:
    key: id
  comment:
    key: productId orderId
  user-comment:
    key: userId revTs orderId productId
  product-comment:
    key: productId lit(c) revTs revLen orderId
  product-comment-rank:
    key: productId lit(r) rank
`

// Missing orders and orders of another user are counted once per comment
// that names them, through the sorted order join: on hashed, whose order
// keys lead with a hash of the id, and on a design whose comment keys do not
// follow their orders' key order at all.
func TestOrderJoin(t *testing.T) {
	pf, err := keys.Parse("product-first.yaml", []byte(productFirst))
	must(t, err)
	for _, l := range []*keys.Design{builtin(t, "hashed"), pf} {
		t.Run(l.Name(), func(t *testing.T) {
			d := newDataset(t, l)
			// One order with comments on two products, then deleted: both
			// comments miss it.
			u := d.users[0]
			shared := d.write("SharedOrdr", d.products[0], u, "두 상품", ts0+2000)
			c2, err := d.sys.WriteComment(d.ctx, comments.NewComment{OrderID: shared.OrderID, ProductID: d.products[1],
				UserID: u, Content: "두 번째", Timestamp: ts0 + 2001})
			must(t, err)
			must(t, d.st.Mutate(d.ctx, keys.Order, store.Delete(d.orderKey(shared.OrderID))))
			// Another comment's order deleted, and two handed to other users.
			gone := d.byProd[d.products[2]][3]
			must(t, d.st.Mutate(d.ctx, keys.Order, store.Delete(d.orderKey(gone.OrderID))))
			for _, c := range []model.Comment{d.byProd[d.products[0]][2], d.byProd[d.products[1]][9]} {
				must(t, d.sys.CreateOrder(d.ctx, model.Order{ID: c.OrderID, UserID: d.users[(slices.Index(d.users, c.UserID)+1)%4]}))
			}
			r := d.check(false)
			assertCounts(t, r, map[string]int64{"refs.missing_order": 3, "refs.order_user": 2})
			if r.References.Comments != 38 {
				t.Errorf("checked %d comments, want 38", r.References.Comments)
			}
			missing := strings.Join(r.References.MissingOrder.Samples, "\n")
			for _, id := range []string{shared.OrderID, gone.OrderID, c2.ProductID} {
				if strings.Count(missing, id) == 0 {
					t.Errorf("missing-order samples %q do not name %s", r.References.MissingOrder.Samples, id)
				}
			}
		})
	}
}

// Repair writes the missing rows, deletes the dangling and mismatched
// ones and rebuilds broken rankings; what is left on seed is its
// collision, which it says it cannot repair.
func TestRepair(t *testing.T) {
	for _, name := range []string{"seed", "salted", "hashed"} {
		t.Run(name, func(t *testing.T) {
			d := newDataset(t, builtin(t, name))
			p0, p1, p2 := d.products[0], d.products[1], d.products[2]
			must(t, d.st.Mutate(d.ctx, keys.ProductComment, store.Delete(d.productKey(d.byProd[p0][5]))))
			must(t, d.st.Mutate(d.ctx, keys.Comment, store.Delete(d.ck(d.byProd[p1][0]))))
			a, b := d.byProd[p0][3], d.byProd[p2][4]
			must(t, d.st.Mutate(d.ctx, keys.ProductComment, store.Put(d.productKey(a), store.Cell{Qualifier: keys.Qualifier, Value: d.ck(b)})))
			rk, _ := d.layout.RankKey(p0, 11)
			must(t, d.st.Mutate(d.ctx, keys.ProductRank, store.Put(rk, store.Cell{Qualifier: keys.Qualifier, Value: d.ck(a)})))
			d.write("CollideOne", p2, d.users[0], "같은 길이", ts0+1000)
			d.write("CollideTwo", p2, d.users[1], "같은 길이", ts0+1000)

			r := d.check(true)
			if r.Consistent || r.Repair == nil || r.Repair.Puts != 2 || r.Repair.Deletes != 3 || r.Repair.Reranks != 1 {
				t.Fatalf("before repair: %s, repair %+v", r.Verdict, r.Repair)
			}
			want := map[string]int64{}
			if name == "seed" {
				if len(r.Repair.Cannot) != 1 || !strings.Contains(r.Repair.Cannot[0], "unique") {
					t.Errorf("cannot-repair notes %q; want the collision, naming the unique layout", r.Repair.Cannot)
				}
				want["product-comment.collided"], want["collided_comments"] = 1, 1
			} else if len(r.Repair.Cannot) != 0 {
				t.Errorf("cannot-repair notes %q; want none without a collision", r.Repair.Cannot)
			}
			must(t, r.Repair.Apply(d.ctx, d.st, d.layout))
			assertCounts(t, d.check(false), want)
		})
	}
}

func TestSpread(t *testing.T) {
	d := newDataset(t, keys.Unique)
	s := d.check(false).Spread
	var comment TableData
	for _, td := range s.Tables {
		if td.Table == keys.Comment {
			comment = td
		}
	}
	if comment.Rows != 36 || len(comment.Regions) != 3 || comment.Bytes <= 36*20 {
		t.Fatalf("comment table spread %+v", comment)
	}
	var rows int64
	for _, r := range comment.Regions {
		rows += r.Rows
	}
	if rows != 36 || comment.Biggest[0].Bytes < comment.Smallest.Bytes {
		t.Errorf("regions add to %d rows; biggest %d bytes, smallest %d", rows, comment.Biggest[0].Bytes, comment.Smallest.Bytes)
	}
	var regions int
	for _, sv := range s.Servers {
		regions += sv.Regions
	}
	if regions != 3*len(keys.Tables) {
		t.Errorf("servers hold %d regions, want %d", regions, 3*len(keys.Tables))
	}
}

// Each table is pre-split as its design says: into the run's regions, or
// one region per salt bucket, or at a design's own keys, and every row is
// in one region.
func TestSpreadRegions(t *testing.T) {
	regions := map[string]map[string]int{ // tables not named have the run's 3
		"salted":   {keys.UserComment: 8, keys.ProductComment: 8},
		"time-led": {keys.ProductComment: 8},
	}
	for _, name := range keys.BuiltinNames() {
		t.Run(name, func(t *testing.T) {
			d := newDataset(t, builtin(t, name))
			s := d.check(false).Spread
			if len(s.Tables) != len(d.layout.StoreTables()) {
				t.Fatalf("spread of %d tables, want %d", len(s.Tables), len(d.layout.StoreTables()))
			}
			total := 0
			wantRows := map[string]int64{keys.User: 4, keys.Seller: 1, keys.Product: 3, keys.Order: 36,
				keys.Comment: 36, keys.UserComment: 36, keys.ProductComment: 36, keys.ProductRank: 30}
			// A wide row holds an owner's entries: a user's row their
			// timeline (and the user, and its count), a product's row its
			// comments, listing, ranking (and the product, and its count);
			// feed's one row holds every comment besides.
			wantCells := maps.Clone(wantRows)
			switch name {
			case "between":
				wantRows[keys.User], wantCells[keys.User] = 4, 4*(1+9+1)
				wantRows[keys.Product], wantCells[keys.Product] = 3, 3*(1+12+12+10+1)
			case "feed":
				wantRows[keys.UserComment], wantCells[keys.UserComment] = 4, 36
				wantRows[keys.ProductComment], wantCells[keys.ProductComment] = 3+1, 36+36
			}
			for _, td := range s.Tables {
				want := 3
				if n, ok := regions[name][td.Table]; ok {
					want = n
				}
				if len(td.Regions) != want {
					t.Errorf("%s: %d regions, want %d", td.Table, len(td.Regions), want)
				}
				total += want
				var rows int64
				for _, r := range td.Regions {
					rows += r.Rows
				}
				if td.Rows != wantRows[td.Table] || rows != td.Rows {
					t.Errorf("%s: %d rows, regions add to %d; want %d", td.Table, td.Rows, rows, wantRows[td.Table])
				}
				if td.Cells != wantCells[td.Table] {
					t.Errorf("%s: %d cells, want %d", td.Table, td.Cells, wantCells[td.Table])
				}
			}
			held := 0
			for _, sv := range s.Servers {
				held += sv.Regions
			}
			if held != total {
				t.Errorf("servers hold %d regions, want %d", held, total)
			}
		})
	}
}

func (d *dataset) userKey(c model.Comment) []byte {
	k, err := d.layout.Encode(keys.Key{Table: keys.UserComment, UserID: c.UserID, ProductID: c.ProductID,
		OrderID: c.OrderID, Timestamp: c.Timestamp, ContentLen: c.ContentLen()})
	must(d.t, err)
	return k
}

// Each table's biggest regions come biggest first, three at most, and the
// smallest is the least of all; region ranges run from the table's start
// to its end, each region starting where the last one ended.
func TestSpreadBiggestAndRanges(t *testing.T) {
	d := newDataset(t, keys.Unique)
	for _, td := range d.check(false).Spread.Tables {
		bySize := slices.Clone(td.Regions)
		slices.SortStableFunc(bySize, func(a, b RegionData) int { return int(b.Bytes - a.Bytes) })
		if len(td.Biggest) != min(3, len(td.Regions)) {
			t.Errorf("%s: %d biggest of %d regions", td.Table, len(td.Biggest), len(td.Regions))
		}
		for i, r := range td.Biggest {
			if r.Bytes != bySize[i].Bytes || (i > 0 && r.Bytes > td.Biggest[i-1].Bytes) {
				t.Errorf("%s: biggest #%d holds %d bytes, want %d", td.Table, i, r.Bytes, bySize[i].Bytes)
			}
		}
		if last := bySize[len(bySize)-1]; td.Smallest.Name == "" || td.Smallest.Bytes != last.Bytes {
			t.Errorf("%s: smallest %+v, want %d bytes", td.Table, td.Smallest, last.Bytes)
		}
		for i, r := range td.Regions {
			start, end, ok := strings.Cut(strings.TrimSuffix(strings.TrimPrefix(r.Range, "["), ")"), ", ")
			if !ok || (i == 0) != (start == "start") || (i == len(td.Regions)-1) != (end == "end") ||
				(i > 0 && !strings.HasSuffix(td.Regions[i-1].Range, ", "+start+")")) {
				t.Errorf("%s region %d: range %s", td.Table, i, r.Range)
			}
		}
	}
}

// The progress counters: on consistent data a check reads each row of
// each table once (a stray-free index needs no second look at the
// comments), and counts each comment.
func TestProgressCountsEachRowOnce(t *testing.T) {
	d := newDataset(t, builtin(t, "unique"))
	var want int64
	for _, table := range keys.Tables {
		_, err := d.st.Scan(d.ctx, table, store.Scan{}, func(store.Row) bool { want++; return true })
		must(t, err)
	}
	var rows, comments atomic.Int64
	_, err := Run(d.ctx, d.st, Options{Layout: d.layout, MemLimit: 4 << 10, TempDir: t.TempDir(), Rows: &rows, Comments: &comments})
	must(t, err)
	if rows.Load() != want || comments.Load() != 36 {
		t.Errorf("counted %d rows and %d comments; want %d and 36", rows.Load(), comments.Load(), want)
	}
}
