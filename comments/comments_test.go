package comments_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"commentbench/comments"
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

func newFixture(t *testing.T, layout keys.Layout, mode comments.ScanMode) *fixture {
	t.Helper()
	eng, err := embedded.Open(embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	return newFixtureOn(t, eng, layout, mode)
}

func newFixtureOn(t testing.TB, st store.Store, layout keys.Layout, mode comments.ScanMode) *fixture {
	t.Helper()
	f := &fixture{t: t, ctx: context.Background(), st: st,
		sys: comments.New(st, comments.Options{Layout: layout, Scan: mode, Clock: func() int64 { return ts0 }}),
		ids: keys.NewRandom(rand.New(rand.NewPCG(7, 9)))}
	splits, err := keys.SplitPoints(keys.RandomLetters, 4)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.sys.CreateTables(f.ctx, splits); err != nil {
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

func (f *fixture) count(table string) int {
	f.t.Helper()
	n := 0
	if _, err := f.st.Scan(f.ctx, table, store.Scan{}, func(store.Row) bool { n++; return true }); err != nil {
		f.t.Fatal(err)
	}
	return n
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

var layouts = []keys.Layout{keys.Seed, keys.Unique}

// Two comments on one product in one millisecond with equal byte length:
// the seed layout keeps one product-comment row, so the listing shows one;
// the unique layout shows both.
func TestProductCollision(t *testing.T) {
	for _, l := range layouts {
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
			want := map[string]int{"seed": 1, "unique": 2}[l.Name()]
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
	for _, l := range layouts {
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
			want := map[string]int{"seed": 1, "unique": 2}[l.Name()]
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

// Paging a product with a few hundred comments returns each exactly once,
// newest first, in both layouts and both scan modes' first pages.
func TestListingWalk(t *testing.T) {
	for _, l := range layouts {
		t.Run(l.Name(), func(t *testing.T) {
			f := newFixture(t, l, comments.Bounded)
			p := f.product()
			other := f.product()
			u := f.user()
			want := map[string]int64{}
			for i := range 300 {
				// Three comments share each millisecond with distinct byte
				// lengths (3, 6, 9): no collision is forced.
				ts := ts0 + int64(i/3)
				content := strings.Repeat("가", 1+i%3)
				c := f.comment(u, f.order(u), p, content, ts)
				want[c.OrderID] = ts
				f.comment(u, f.order(u), other, "noise", ts) // another product's rows around
			}
			seen := map[string]bool{}
			var prev *comments.Entry
			for i, e := range f.walk(func(c []byte) (comments.Page, error) { return f.sys.ProductPage(f.ctx, p, c, 10) }) {
				if !e.Found || e.Comment.ProductID != p {
					t.Fatalf("entry %d: %+v is not a found comment of %s", i, e, p)
				}
				if seen[e.Comment.OrderID] {
					t.Fatalf("comment %s listed twice", e.Comment.OrderID)
				}
				seen[e.Comment.OrderID] = true
				if prev != nil && (prev.Comment.Timestamp < e.Comment.Timestamp ||
					prev.Comment.Timestamp == e.Comment.Timestamp && prev.Comment.ContentLen() < e.Comment.ContentLen()) {
					t.Fatalf("entry %d (%d, %dB) listed after (%d, %dB): not newest then longest first", i,
						e.Comment.Timestamp, e.Comment.ContentLen(), prev.Comment.Timestamp, prev.Comment.ContentLen())
				}
				prev = &e
			}
			if len(seen) != len(want) {
				t.Fatalf("walk returned %d comments, want %d", len(seen), len(want))
			}
		})
	}
}

func TestTimelineWalk(t *testing.T) {
	f := newFixture(t, keys.Unique, comments.Bounded)
	u, v := f.user(), f.user()
	for i := range 55 {
		f.comment(u, f.order(u), f.product(), "mine", ts0+int64(i))
		f.comment(v, f.order(v), f.product(), "theirs", ts0+int64(i))
	}
	entries := f.walk(func(c []byte) (comments.Page, error) { return f.sys.UserPage(f.ctx, u, c, 10) })
	if len(entries) != 55 {
		t.Fatalf("timeline has %d comments, want 55", len(entries))
	}
	for i, e := range entries {
		if e.Comment.UserID != u || e.Comment.Timestamp != ts0+int64(54-i) {
			t.Fatalf("entry %d = %+v, want user %s at ts %d", i, e.Comment, u, ts0+int64(54-i))
		}
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

func TestRankJobAndStaleRanks(t *testing.T) {
	for _, keep := range []bool{false, true} {
		t.Run(fmt.Sprintf("keepStale=%v", keep), func(t *testing.T) {
			f := newFixture(t, keys.Seed, comments.Bounded)
			f.sys = comments.New(f.st, comments.Options{Layout: keys.Seed, KeepStaleRanks: keep})
			u, p := f.user(), f.product()
			for i := range 14 {
				f.comment(u, f.order(u), p, strings.Repeat("a", i+1), ts0+int64(i))
			}
			st, err := f.sys.RankJob(f.ctx, []string{p})
			if err != nil || st.Ranked != keys.MaxRank || st.RowsScanned != 14 {
				t.Fatalf("rank job: %+v, %v; want 10 ranked from 14 rows", st, err)
			}
			top, err := f.sys.Ranked(f.ctx, p, 10)
			if err != nil {
				t.Fatal(err)
			}
			for i, c := range top.Comments() {
				if c.ContentLen() != 14-i {
					t.Fatalf("rank %d has %d bytes; want %d (longest first)", i+1, c.ContentLen(), 14-i)
				}
			}
			// A shorter ranking: ranks 4..10 are stale unless deleted.
			ck, _ := keys.CommentKey(top.Comments()[0].OrderID, p)
			if err := f.sys.UpsertRanks(f.ctx, p, [][]byte{ck, ck, ck}); err != nil {
				t.Fatal(err)
			}
			want := map[bool]int{false: 3, true: 10}[keep]
			if got := f.count(keys.ProductRank); got != want {
				t.Errorf("%d rank rows after a 3-rank upsert; want %d", got, want)
			}
		})
	}
}

// The layout is recorded with the tables; a System of another layout is
// refused on the same data.
func TestLayoutRecorded(t *testing.T) {
	f := newFixture(t, keys.Seed, comments.Bounded)
	got, found, err := comments.RecordedLayout(f.ctx, f.st)
	if err != nil || !found || got != "seed" {
		t.Fatalf("recorded layout %q, %v, %v; want seed", got, found, err)
	}
	other := comments.New(f.st, comments.Options{Layout: keys.Unique})
	if err := other.CreateTables(f.ctx, nil); !errors.Is(err, comments.ErrLayoutMismatch) {
		t.Errorf("unique tables over seed data: %v; want ErrLayoutMismatch", err)
	}
	if err := f.sys.CreateTables(f.ctx, nil); err != nil {
		t.Errorf("the same layout again: %v", err)
	}
}
