package comments_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"commentbench/comments"
	"commentbench/entry"
	"commentbench/keys"
	"commentbench/model"
	"commentbench/store"
	"commentbench/store/embedded"
)

const ts0 = int64(1763697906123) // 2025-11-21T04:05:06.123Z

type fixture struct {
	t   testing.TB
	ctx context.Context
	st  store.Store
	sys *comments.System
	ids keys.IDGen
}

func newFixture(t *testing.T, layout *keys.Design, mode comments.ScanMode) *fixture {
	t.Helper()
	eng, err := embedded.Open(embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return newFixtureOn(t, eng, layout, mode)
}

func newFixtureOn(t testing.TB, st store.Store, layout *keys.Design, mode comments.ScanMode) *fixture {
	t.Helper()
	f := &fixture{t: t, ctx: context.Background(), st: st,
		sys: comments.New(st, comments.Options{Layout: layout, Scan: mode, Clock: func() int64 { return ts0 }}),
		ids: keys.NewRandom(rand.New(rand.NewPCG(7, 9)))}
	if err := f.sys.CreateTables(f.ctx, keys.RandomLetters, 4); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fixture) user() string {
	id := f.ids.Next()
	if err := f.sys.CreateUser(f.ctx, model.User{ID: id, Name: "n", Nickname: "nick"}); err != nil {
		f.t.Fatal(err)
	}
	return id
}

func (f *fixture) product() string {
	id := f.ids.Next()
	if err := f.sys.CreateProduct(f.ctx, model.Product{ID: id, SellerID: f.ids.Next()}); err != nil {
		f.t.Fatal(err)
	}
	return id
}

func (f *fixture) order(user string) string {
	id := f.ids.Next()
	if err := f.sys.CreateOrder(f.ctx, model.Order{ID: id, UserID: user}); err != nil {
		f.t.Fatal(err)
	}
	return id
}

func (f *fixture) comment(user, order, product, content string, ts int64) model.Comment {
	f.t.Helper()
	c, err := f.sys.WriteComment(f.ctx, comments.NewComment{OrderID: order, ProductID: product,
		UserID: user, Content: content, Timestamp: ts})
	if err != nil {
		f.t.Fatal(err)
	}
	return c
}

// count is how many entries table holds: rows of its own, or columns of
// the rows it is kept in.
func (f *fixture) count(table string) int {
	f.t.Helper()
	n := 0
	f.eachEntry(table, func(store.Row) { n++ })
	return n
}

// eachEntry hands each entry of table to fn, in key order.
func (f *fixture) eachEntry(table string, fn func(store.Row)) {
	f.t.Helper()
	t := f.sys.Layout().Table(table)
	if _, err := f.st.Scan(f.ctx, t.Store, entry.ScanOf(t, store.Scan{}), func(r store.Row) bool {
		return entry.Each(t, r, func(e store.Row) bool { fn(e); return true })
	}); err != nil {
		f.t.Fatal(err)
	}
}

// walk pages a listing to the end and returns every entry.
func (f *fixture) walk(page func(cursor []byte) (comments.Page, error)) []comments.Entry {
	f.t.Helper()
	var all []comments.Entry
	var cursor []byte
	for i := 0; ; i++ {
		p, err := page(cursor)
		if err != nil {
			f.t.Fatal(err)
		}
		all = append(all, p.Entries...)
		if p.Next == nil {
			return all
		}
		if i > 10000 {
			f.t.Fatal("listing never ends")
		}
		cursor = p.Next
	}
}

// walkCounted is walk over owner's listing of table, checking what each
// page cost in scans: the first page scans every branch of the listing, a
// later one only the branches that still hold rows not yet listed (a salted
// listing's buckets run dry one by one and are not scanned again).
func (f *fixture) walkCounted(table, owner string, page func(cursor []byte) (comments.Page, error)) []comments.Entry {
	f.t.Helper()
	l, err := f.sys.Layout().Listing(table, owner)
	if err != nil {
		f.t.Fatal(err)
	}
	if got, want := len(l.Branches), wantBranches(f.sys.Layout()); got != want {
		f.t.Fatalf("%s listing of design %s has %d branches, want %d", table, f.sys.Layout().Name(), got, want)
	}
	left := make([]int, len(l.Branches)) // per branch: rows not yet listed
	f.eachEntry(table, func(r store.Row) {
		if l.Owns(r.Key) {
			left[l.Branch(r.Key)]++
		}
	})
	var all []comments.Entry
	var cursor []byte
	for i := 0; ; i++ {
		p, err := page(cursor)
		if err != nil {
			f.t.Fatal(err)
		}
		want := len(l.Branches)
		if cursor != nil {
			want = 0
			for _, n := range left {
				if n > 0 {
					want++
				}
			}
		}
		if p.Scans != want {
			f.t.Fatalf("page %d issued %d scans, want %d (rows left per branch %v)", i, p.Scans, want, left)
		}
		for _, e := range p.Entries {
			b := l.Branch(e.IndexKey)
			if b < 0 || !l.Owns(e.IndexKey) {
				f.t.Fatalf("page %d lists %s, not a row of %s's listing", i, f.sys.Layout().Describe(table, e.IndexKey), owner)
			}
			left[b]--
		}
		all = append(all, p.Entries...)
		if p.Next == nil {
			return all
		}
		if i > 10000 {
			f.t.Fatal("listing never ends")
		}
		cursor = p.Next
	}
}

var layouts = []*keys.Design{keys.Seed, keys.Unique}

// builtins are every built-in design, in keys.BuiltinNames order.
func builtins(t testing.TB) []*keys.Design {
	t.Helper()
	var out []*keys.Design
	for _, name := range keys.BuiltinNames() {
		d, err := keys.Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, d)
	}
	if len(out) != 7 {
		t.Fatalf("%d built-in designs, want seed, unique, salted, hashed, time-led, between and feed", len(out))
	}
	return out
}

// wantBranches is how many scans a listing page of each built-in issues at
// most: salted reads every salt bucket; the others derive their prefix.
func wantBranches(d *keys.Design) int {
	if d.Name() == "salted" {
		return 8
	}
	return 1
}

// Two comments on one product in one millisecond with equal byte length:
// the seed layout keeps one product-comment row, so the listing shows one;
// every other built-in holds the order id in the key and shows both.
func TestProductCollision(t *testing.T) {
	for _, l := range builtins(t) {
		t.Run(l.Name(), func(t *testing.T) {
			f := newFixture(t, l, comments.Bounded)
			p := f.product()
			u1, u2 := f.user(), f.user()
			f.comment(u1, f.order(u1), p, "같은길이", ts0)         // 12 bytes
			f.comment(u2, f.order(u2), p, "twelve bytes", ts0) // 12 bytes
			page, err := f.sys.ProductPage(f.ctx, p, nil, 10)
			if err != nil {
				t.Fatal(err)
			}
			want := 2
			if l.Name() == "seed" {
				want = 1
			}
			if got := len(page.Comments()); got != want {
				t.Errorf("listing shows %d comments, want %d", got, want)
			}
			if got := f.count(keys.ProductComment); got != want {
				t.Errorf("%d product-comment rows, want %d", got, want)
			}
			if got := f.count(keys.Comment); got != 2 {
				t.Errorf("%d comment rows, want 2 (both comments were written)", got)
			}
		})
	}
}

// One user comments on two products of one order in one millisecond: the
// seed's user-comment key has nothing but user and time, so one row remains.
func TestUserCollision(t *testing.T) {
	for _, l := range builtins(t) {
		t.Run(l.Name(), func(t *testing.T) {
			f := newFixture(t, l, comments.Bounded)
			u := f.user()
			o := f.order(u)
			f.comment(u, o, f.product(), "first", ts0)
			f.comment(u, o, f.product(), "a second, longer one", ts0)
			page, err := f.sys.UserPage(f.ctx, u, nil, 10)
			if err != nil {
				t.Fatal(err)
			}
			want := 2
			if l.Name() == "seed" {
				want = 1
			}
			if got := len(page.Comments()); got != want {
				t.Errorf("timeline shows %d comments, want %d", got, want)
			}
			if got := f.count(keys.UserComment); got != want {
				t.Errorf("%d user-comment rows, want %d", got, want)
			}
		})
	}
}

// fillProducts writes n comments with distinct timestamps on each product.
func (f *fixture) fillProducts(products []string, n int) map[string][]model.Comment {
	out := map[string][]model.Comment{}
	u := f.user()
	for _, p := range products {
		for i := range n {
			c := f.comment(u, f.order(u), p, fmt.Sprintf("comment %d on %s", i, p), ts0+int64(i))
			out[p] = append(out[p], c)
		}
	}
	return out
}

// The seed's next page filters "row >= cursor" with no start or stop row: it
// reads from the table's first row and, near the end of one product's
// listing, runs into the next product's comments. Bounded scans do neither.
func TestSeedScanLeaksAndCosts(t *testing.T) {
	for _, mode := range []comments.ScanMode{comments.SeedScan, comments.Bounded} {
		t.Run(mode.String(), func(t *testing.T) {
			f := newFixture(t, keys.Seed, mode)
			products := []string{f.product(), f.product(), f.product()}
			written := f.fillProducts(products, 15)
			// The product whose listing sorts first has others after it.
			p := products[0]
			for _, q := range products {
				if q < p {
					p = q
				}
			}
			first, err := f.sys.ProductPage(f.ctx, p, nil, 10)
			if err != nil {
				t.Fatal(err)
			}
			next, err := f.sys.ProductPage(f.ctx, p, first.Next, 10)
			if err != nil {
				t.Fatal(err)
			}
			foreign := 0
			for _, c := range next.Comments() {
				if c.ProductID != p {
					foreign++
				}
			}
			total := int64(f.count(keys.ProductComment))
			switch mode {
			case comments.SeedScan:
				if foreign == 0 {
					t.Errorf("seed next page held only product %s's comments; want other products' too", p)
				}
				if next.Scan.RowsScanned <= 11 {
					t.Errorf("seed next page read %d rows; want reading from the table start (more than limit+1)", next.Scan.RowsScanned)
				}
			case comments.Bounded:
				if foreign != 0 || len(next.Comments()) != len(written[p])-10 {
					t.Errorf("bounded next page: %d foreign of %d; want only the %d remaining of %s",
						foreign, len(next.Comments()), len(written[p])-10, p)
				}
				if next.Scan.RowsScanned > 11 || first.Scan.RowsScanned > 11 {
					t.Errorf("bounded pages read %d and %d rows; want at most limit+1 = 11",
						first.Scan.RowsScanned, next.Scan.RowsScanned)
				}
			}
			if next.Scan.RowsScanned > total {
				t.Errorf("scan read %d rows of a %d-row table", next.Scan.RowsScanned, total)
			}
		})
	}
}

// Paging a product with a few hundred comments, several in each
// millisecond, returns each exactly once, newest first, on every built-in,
// with another product's rows around it. Where the key holds the order id,
// two comments of one millisecond also share a length.
func TestListingWalk(t *testing.T) {
	for _, l := range builtins(t) {
		t.Run(l.Name(), func(t *testing.T) {
			f := newFixture(t, l, comments.Bounded)
			p := f.product()
			other := f.product()
			u := f.user()
			// The seed's key would collide on equal lengths: three distinct
			// lengths (3, 6, 9 bytes) per millisecond there, 3, 6, 9, 3
			// elsewhere.
			perMs := 4
			if l.Name() == "seed" {
				perMs = 3
			}
			want := map[string]int64{}
			for i := range 100 * perMs {
				ts := ts0 + int64(i/perMs)
				content := strings.Repeat("가", 1+i%perMs%3)
				c := f.comment(u, f.order(u), p, content, ts)
				want[c.OrderID] = ts
				f.comment(u, f.order(u), other, "noise", ts) // another product's rows around
			}
			listing, err := l.Listing(keys.ProductComment, p)
			if err != nil {
				t.Fatal(err)
			}
			seen := map[string]bool{}
			var prev *comments.Entry
			entries := f.walkCounted(keys.ProductComment, p, func(c []byte) (comments.Page, error) { return f.sys.ProductPage(f.ctx, p, c, 10) })
			for i, e := range entries {
				if !e.Found || e.Comment.ProductID != p {
					t.Fatalf("entry %d: %+v is not a found comment of %s", i, e, p)
				}
				if seen[e.Comment.OrderID] {
					t.Fatalf("comment %s listed twice", e.Comment.OrderID)
				}
				seen[e.Comment.OrderID] = true
				if ts := want[e.Comment.OrderID]; e.Comment.Timestamp != ts {
					t.Fatalf("entry %d: comment %s at %d, written at %d", i, e.Comment.OrderID, e.Comment.Timestamp, ts)
				}
				if prev != nil && prev.Comment.Timestamp < e.Comment.Timestamp {
					t.Fatalf("entry %d (%d) listed after (%d): not newest first", i, e.Comment.Timestamp, prev.Comment.Timestamp)
				}
				// A listing read forwards keeps the seed's tie-break.
				if prev != nil && !listing.Reversed && prev.Comment.Timestamp == e.Comment.Timestamp &&
					prev.Comment.ContentLen() < e.Comment.ContentLen() {
					t.Fatalf("entry %d (%d, %dB) listed after (%d, %dB): not longest first within a millisecond", i,
						e.Comment.Timestamp, e.Comment.ContentLen(), prev.Comment.Timestamp, prev.Comment.ContentLen())
				}
				if prev != nil && listing.Compare(prev.IndexKey, e.IndexKey) >= 0 {
					t.Fatalf("entry %d: %s listed after %s, out of the listing's order", i,
						l.Describe(keys.ProductComment, e.IndexKey), l.Describe(keys.ProductComment, prev.IndexKey))
				}
				prev = &e
			}
			if len(seen) != len(want) {
				t.Fatalf("walk returned %d comments, want %d", len(seen), len(want))
			}
		})
	}
}

// A user's timeline pages newest first on every built-in, past another
// user's comments.
func TestTimelineWalk(t *testing.T) {
	for _, l := range builtins(t) {
		t.Run(l.Name(), func(t *testing.T) {
			f := newFixture(t, l, comments.Bounded)
			u, v := f.user(), f.user()
			for i := range 55 {
				f.comment(u, f.order(u), f.product(), "mine", ts0+int64(i))
				f.comment(v, f.order(v), f.product(), "theirs", ts0+int64(i))
			}
			entries := f.walkCounted(keys.UserComment, u, func(c []byte) (comments.Page, error) { return f.sys.UserPage(f.ctx, u, c, 10) })
			if len(entries) != 55 {
				t.Fatalf("timeline has %d comments, want 55", len(entries))
			}
			for i, e := range entries {
				if e.Comment.UserID != u || e.Comment.Timestamp != ts0+int64(54-i) {
					t.Fatalf("entry %d = %+v, want user %s at ts %d", i, e.Comment, u, ts0+int64(54-i))
				}
			}
		})
	}
}

// A cursor is the listing's own: in bounded mode a cursor from another
// product's listing (or another user's timeline), or a mangled one, is
// refused, on every built-in. The seed's scans trust a well-formed cursor.
func TestForeignCursor(t *testing.T) {
	for _, l := range builtins(t) {
		t.Run(l.Name(), func(t *testing.T) {
			f := newFixture(t, l, comments.Bounded)
			p, q := f.product(), f.product()
			u, v := f.user(), f.user()
			for i := range 25 {
				f.comment(u, f.order(u), p, "on p", ts0+int64(i))
				f.comment(v, f.order(v), q, "on q", ts0+int64(i))
			}
			qPage, err := f.sys.ProductPage(f.ctx, q, nil, 10)
			if err != nil || qPage.Next == nil {
				t.Fatalf("q's first page: next %x, %v; want a cursor", qPage.Next, err)
			}
			vPage, err := f.sys.UserPage(f.ctx, v, nil, 10)
			if err != nil || vPage.Next == nil {
				t.Fatalf("v's first page: next %x, %v; want a cursor", vPage.Next, err)
			}
			pPage, err := f.sys.ProductPage(f.ctx, p, nil, 10)
			if err != nil || pPage.Next == nil {
				t.Fatalf("p's first page: next %x, %v; want a cursor", pPage.Next, err)
			}
			if _, err := f.sys.ProductPage(f.ctx, p, pPage.Next, 10); err != nil {
				t.Fatalf("p's own cursor: %v", err)
			}
			bad := map[string]func() error{
				"product cursor of another product": func() error {
					_, err := f.sys.ProductPage(f.ctx, p, qPage.Next, 10)
					return err
				},
				"timeline cursor of another user": func() error {
					_, err := f.sys.UserPage(f.ctx, u, vPage.Next, 10)
					return err
				},
				"own cursor cut short": func() error {
					_, err := f.sys.ProductPage(f.ctx, p, pPage.Next[:len(pPage.Next)-1], 10)
					return err
				},
				"own cursor with a byte more": func() error {
					_, err := f.sys.ProductPage(f.ctx, p, append(bytes.Clone(pPage.Next), 0), 10)
					return err
				},
			}
			for name, page := range bad {
				if err := page(); !errors.Is(err, comments.ErrBadCursor) {
					t.Errorf("%s: err = %v; want ErrBadCursor", name, err)
				}
			}
			seed := comments.New(f.st, comments.Options{Layout: l, Scan: comments.SeedScan})
			if _, err := seed.ProductPage(f.ctx, p, qPage.Next, 10); err != nil {
				t.Errorf("seed scan with another product's cursor: %v; want it trusted", err)
			}
		})
	}
}

func TestBadInput(t *testing.T) {
	f := newFixture(t, keys.Seed, comments.Bounded)
	u, other := f.user(), f.user()
	o, p := f.order(u), f.product()
	cases := []struct {
		name string
		n    comments.NewComment
		want error
		text string
	}{
		{"short product id", comments.NewComment{OrderID: o, ProductID: "short", UserID: u}, keys.ErrBadID, "product id"},
		{"long user id", comments.NewComment{OrderID: o, ProductID: p, UserID: u + "x"}, keys.ErrBadID, "user id"},
		{"missing order", comments.NewComment{OrderID: "NoSuchOrdr", ProductID: p, UserID: u}, comments.ErrOrderNotFound, "NoSuchOrdr"},
		{"order of another user", comments.NewComment{OrderID: o, ProductID: p, UserID: other}, comments.ErrOrderUser, other},
	}
	for _, c := range cases {
		_, err := f.sys.WriteComment(f.ctx, c.n)
		if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.text) {
			t.Errorf("%s: err = %v; want %v naming %q", c.name, err, c.want, c.text)
		}
	}
	for _, table := range []string{keys.Comment, keys.UserComment, keys.ProductComment} {
		if n := f.count(table); n != 0 {
			t.Errorf("%d rows in %s after rejected comments; want none half-written", n, table)
		}
	}
	if _, err := f.st.Get(f.ctx, "no-such-table", []byte("k")); !errors.Is(err, store.ErrTableNotFound) ||
		!strings.Contains(err.Error(), "no-such-table") {
		t.Errorf("unknown table: err = %v; want ErrTableNotFound naming it", err)
	}
	if _, err := f.sys.ProductPage(f.ctx, p, nil, 0); err == nil || !strings.Contains(err.Error(), "limit 0") {
		t.Errorf("limit 0: err = %v; want an error naming the limit", err)
	}
	if _, err := f.sys.ProductPage(f.ctx, p, []byte("AnotherPrdc..."), 10); !errors.Is(err, comments.ErrBadCursor) {
		t.Errorf("foreign cursor: err = %v; want ErrBadCursor", err)
	}
}

// failingStore fails every mutation of one table, as a region server dying
// between the seed's puts would.
type failingStore struct {
	store.Store
	table string
}

func (s failingStore) Mutate(ctx context.Context, table string, m ...store.Mutation) error {
	if table == s.table {
		return errors.New("injected failure")
	}
	return s.Store.Mutate(ctx, table, m...)
}

// A failure between the puts leaves a comment no listing shows.
func TestPartialWriteIsInvisible(t *testing.T) {
	f := newFixture(t, keys.Seed, comments.Bounded)
	u := f.user()
	o, p := f.order(u), f.product()
	broken := comments.New(failingStore{f.st, keys.UserComment}, comments.Options{})
	_, err := broken.WriteComment(f.ctx, comments.NewComment{OrderID: o, ProductID: p, UserID: u, Content: "lost"})
	var we *comments.WriteError
	if !errors.As(err, &we) || len(we.Written) != 1 || we.Written[0] != keys.Comment {
		t.Fatalf("err = %v; want a WriteError after writing only %s", err, keys.Comment)
	}
	if _, found, _ := f.sys.Comment(f.ctx, o, p); !found {
		t.Error("the comment row should have been written before the failure")
	}
	page, err := f.sys.ProductPage(f.ctx, p, nil, 10)
	if err != nil || len(page.Entries) != 0 {
		t.Errorf("listing = %+v, %v; want the half-written comment invisible", page.Entries, err)
	}
}

func TestEditKeepsIndex(t *testing.T) {
	f := newFixture(t, keys.Seed, comments.Bounded)
	u := f.user()
	o, p := f.order(u), f.product()
	f.comment(u, o, p, "short", ts0)
	before := f.count(keys.ProductComment)
	c, err := f.sys.EditComment(f.ctx, o, p, "a much longer edited text")
	if err != nil || !c.IsEdited {
		t.Fatalf("edit: %+v, %v", c, err)
	}
	page, _ := f.sys.ProductPage(f.ctx, p, nil, 10)
	if got := page.Comments(); len(got) != 1 || got[0].Content != "a much longer edited text" || !got[0].IsEdited ||
		f.count(keys.ProductComment) != before {
		t.Errorf("after edit listing = %+v; want the edited comment under the same index row", got)
	}
	if _, err := f.sys.EditComment(f.ctx, o, f.product(), "x"); !errors.Is(err, comments.ErrCommentNotFound) {
		t.Errorf("edit of a missing comment: %v; want ErrCommentNotFound", err)
	}
}

// The ranking job keeps the ten longest comments on every built-in, and a
// shorter ranking deletes the ranks beyond it unless the seed's stale ranks
// are kept.
func TestRankJobAndStaleRanks(t *testing.T) {
	for _, l := range builtins(t) {
		for _, keep := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/keepStale=%v", l.Name(), keep), func(t *testing.T) {
				f := newFixture(t, l, comments.Bounded)
				f.sys = comments.New(f.st, comments.Options{Layout: l, KeepStaleRanks: keep})
				u, p := f.user(), f.product()
				for i := range 14 {
					f.comment(u, f.order(u), p, strings.Repeat("a", i+1), ts0+int64(i))
				}
				// Another product's comments, longer than any of p's: the
				// job must not rank them for p.
				q := f.product()
				for i := range 3 {
					f.comment(u, f.order(u), q, strings.Repeat("b", 40+i), ts0+int64(i))
				}
				st, err := f.sys.RankJob(f.ctx, []string{p})
				if err != nil || st.Products != 1 || st.Ranked != keys.MaxRank {
					t.Fatalf("rank job: %+v, %v; want 10 ranked for 1 product", st, err)
				}
				// A listing whose key leads with the product reads its 14
				// rows; a time-led one reads the whole table to find them.
				// One kept in the product's row reads that row's 14 columns.
				wantRows, wantCells := int64(14), int64(14)
				switch lst, _ := l.Listing(keys.ProductComment, p); {
				case lst.Filtered:
					wantRows, wantCells = 14+3, 14+3
				case lst.Wide:
					wantRows = 1
				}
				if st.RowsScanned != wantRows || st.CellsScanned != wantCells {
					t.Errorf("rank job scanned %d rows, %d cells; want %d, %d", st.RowsScanned, st.CellsScanned, wantRows, wantCells)
				}
				top, err := f.sys.Ranked(f.ctx, p, 10)
				if err != nil {
					t.Fatal(err)
				}
				if top.Scans != 1 || len(top.Comments()) != keys.MaxRank {
					t.Fatalf("ranked: %d comments in %d scans; want 10 in 1", len(top.Comments()), top.Scans)
				}
				for i, c := range top.Comments() {
					if c.ProductID != p || c.ContentLen() != 14-i {
						t.Fatalf("rank %d is %s's with %d bytes; want %s's with %d (longest first)", i+1, c.ProductID, c.ContentLen(), p, 14-i)
					}
				}
				// A shorter ranking: ranks 4..10 are stale unless deleted.
				ck, err := f.sys.Layout().CommentKey(top.Comments()[0].OrderID, p)
				if err != nil {
					t.Fatal(err)
				}
				if err := f.sys.UpsertRanks(f.ctx, p, [][]byte{ck, ck, ck}); err != nil {
					t.Fatal(err)
				}
				want := map[bool]int{false: 3, true: 10}[keep]
				if got := f.count(keys.ProductRank); got != want {
					t.Errorf("%d rank rows after a 3-rank upsert; want %d", got, want)
				}
				top, err = f.sys.Ranked(f.ctx, p, 10)
				if err != nil || len(top.Entries) != want {
					t.Errorf("ranked after the upsert: %d entries, %v; want %d", len(top.Entries), err, want)
				}
			})
		}
	}
}

// The design is recorded whole with the tables: reading it back gives the
// same keys, and the same design again is accepted.
func TestLayoutRecorded(t *testing.T) {
	for _, l := range builtins(t) {
		t.Run(l.Name(), func(t *testing.T) {
			f := newFixture(t, l, comments.Bounded)
			got, found, err := comments.RecordedLayout(f.ctx, f.st)
			if err != nil || !found {
				t.Fatalf("recorded design: %v, found %v; want %s", err, found, l.Name())
			}
			if got.Name() != l.Name() {
				t.Errorf("recorded design is named %q, want %q", got.Name(), l.Name())
			}
			if diff := got.Diff(l); diff != "" {
				t.Errorf("recorded design differs from the one written: %s", diff)
			}
			if err := f.sys.CreateTables(f.ctx, keys.RandomLetters, 4); err != nil {
				t.Errorf("the same design again: %v", err)
			}
			// A copy under another name writes the same bytes.
			src := strings.Replace(string(l.Source()), "name: "+l.Name(), "name: my-"+l.Name(), 1)
			copied, err := keys.Parse("copy.yaml", []byte(src))
			if err != nil || copied.Name() != "my-"+l.Name() {
				t.Fatalf("renamed copy: %v (name %q)", err, copied.Name())
			}
			if err := comments.New(f.st, comments.Options{Layout: copied}).CreateTables(f.ctx, keys.RandomLetters, 4); err != nil {
				t.Errorf("a renamed copy of the design: %v; want it accepted", err)
			}
		})
	}
}

// A design is refused over data written with another, before any table is
// created, and the error names the first table and part that differ.
func TestLayoutMismatch(t *testing.T) {
	cases := []struct {
		data, tables string
		where        string // the first difference, in keys.Tables order
	}{
		{"seed", "unique", "table user-comment, part 3"},
		{"unique", "seed", "table user-comment, part 3"},
		{"seed", "hashed", "table user, part 1"},
		{"unique", "salted", "table user-comment, part 1"},
		{"unique", "time-led", "table product-comment, part 1"},
		{"salted", "hashed", "table user, part 1"},
	}
	for _, c := range cases {
		t.Run(c.data+"/"+c.tables, func(t *testing.T) {
			data, err := keys.Builtin(c.data)
			if err != nil {
				t.Fatal(err)
			}
			tables, err := keys.Builtin(c.tables)
			if err != nil {
				t.Fatal(err)
			}
			eng, err := embedded.Open(embedded.Options{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { eng.Close() })
			ctx := context.Background()
			// Only the design recorded, no table yet: a refused design
			// must not create its tables.
			if err := comments.New(eng, comments.Options{Layout: data}).CreateTables(ctx, keys.RandomLetters, 4); err != nil {
				t.Fatal(err)
			}
			for _, table := range keys.Tables {
				if err := eng.DropTable(ctx, table); err != nil {
					t.Fatal(err)
				}
			}
			err = comments.New(eng, comments.Options{Layout: tables}).CreateTables(ctx, keys.RandomLetters, 4)
			if !errors.Is(err, comments.ErrLayoutMismatch) {
				t.Fatalf("%s tables over %s data: %v; want ErrLayoutMismatch", c.tables, c.data, err)
			}
			for _, want := range []string{c.where, `"` + c.data + `"`, `"` + c.tables + `"`} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not name %s", err, want)
				}
			}
			specs, err := eng.ListTables(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(specs) != 1 || specs[0].Name != comments.MetaTable {
				t.Errorf("tables after the refusal: %v; want only %s", specs, comments.MetaTable)
			}
			got, found, err := comments.RecordedLayout(ctx, eng)
			if err != nil || !found || got.Diff(data) != "" {
				t.Errorf("recorded design after the refusal: %v, %v; want %s still", err, found, c.data)
			}
		})
	}
}

// Data from before designs were recorded whole names a built-in in the
// layout row; data with no meta table recorded nothing.
func TestRecordedLayoutByName(t *testing.T) {
	eng, err := embedded.Open(embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	ctx := context.Background()
	if d, found, err := comments.RecordedLayout(ctx, eng); err != nil || found || d != nil {
		t.Fatalf("no meta table: %v, %v, %v; want nothing found", d, found, err)
	}
	if err := eng.CreateTable(ctx, store.TableSpec{Name: comments.MetaTable, Family: keys.Family}); err != nil {
		t.Fatal(err)
	}
	if d, found, err := comments.RecordedLayout(ctx, eng); err != nil || found || d != nil {
		t.Fatalf("empty meta table: %v, %v, %v; want nothing found", d, found, err)
	}
	if err := eng.Mutate(ctx, comments.MetaTable, store.Put([]byte("layout"),
		store.Cell{Qualifier: keys.Qualifier, Value: []byte("unique")})); err != nil {
		t.Fatal(err)
	}
	d, found, err := comments.RecordedLayout(ctx, eng)
	if err != nil || !found || d.Name() != "unique" || d.Diff(keys.Unique) != "" {
		t.Fatalf("layout row %q: %v, %v, %v; want the built-in unique", "unique", d, found, err)
	}
	err = comments.New(eng, comments.Options{Layout: keys.Seed}).CreateTables(ctx, keys.RandomLetters, 4)
	if !errors.Is(err, comments.ErrLayoutMismatch) {
		t.Errorf("seed tables over data named unique: %v; want ErrLayoutMismatch", err)
	}
}
