package comments_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"commentbench/comments"
	"commentbench/keys"
	"commentbench/store"
)

// clustered is built-in name with its product listing holding a copy of
// each comment instead of its key: the value line goes after the line at
// of the product listing's table.
func clustered(t *testing.T, name, at string) *keys.Design {
	t.Helper()
	l, err := keys.Builtin(name)
	if err != nil {
		t.Fatal(err)
	}
	src := string(l.Source())
	i := strings.Index(src, "  product-comment:\n")
	j := i + strings.Index(src[i:], at) + len(at)
	d, err := keys.Parse(name+"-clustered", []byte(src[:j]+"    value: comment\n"+src[j:]))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// countingReads counts the reads of the comment table a page makes.
type countingReads struct {
	store.Store
	table string
	n     int
}

func (c *countingReads) BatchGet(ctx context.Context, table string, rows [][]byte) ([]store.Row, error) {
	if table == c.table {
		c.n++
	}
	return c.Store.BatchGet(ctx, table, rows)
}

func (c *countingReads) Read(ctx context.Context, table string, reads []store.Read) ([]store.Row, store.ScanMetrics, error) {
	if table == c.table {
		for _, rd := range reads {
			if rd.Columns != nil { // a comment's column, not the listing's slice
				c.n++
			}
		}
	}
	return c.Store.Read(ctx, table, reads)
}

// A clustered listing's page is its entries' copies, with no read of the
// comments; an edit rewrites the copy, so the page shows the new text; the
// ranking job ranks the comments the copies are of.
func TestClusteredListing(t *testing.T) {
	for _, d := range []*keys.Design{clustered(t, "unique", "    key: productId lit(c) revTs revLen orderId\n"),
		clustered(t, "between", "    meta: lit(l) lit(0x00)\n")} {
		t.Run(d.Name(), func(t *testing.T) {
			f := newFixture(t, d, comments.Bounded)
			u, p := f.user(), f.product()
			var written []string
			for i := range 12 {
				c := f.comment(u, f.order(u), p, strings.Repeat("글", i+1), ts0+int64(i))
				written = append(written, c.OrderID)
			}
			cr := &countingReads{Store: f.st, table: d.Table(keys.Comment).Store}
			sys := comments.New(cr, comments.Options{Layout: d})
			all := f.walk(func(cursor []byte) (comments.Page, error) { return sys.ProductPage(f.ctx, p, cursor, 5) })
			if len(all) != 12 || cr.n != 0 {
				t.Fatalf("%d entries listed with %d reads of comments; want 12 with none", len(all), cr.n)
			}
			for i, e := range all {
				want, err := d.CommentKey(written[11-i], p)
				if err != nil || !e.Found || e.Comment.OrderID != written[11-i] || !bytes.Equal(e.CommentKey, want) {
					t.Fatalf("entry %d: %+v; want comment %s (newest first)", i, e, written[11-i])
				}
			}
			if _, err := f.sys.EditComment(f.ctx, written[3], p, "고친 글"); err != nil {
				t.Fatal(err)
			}
			pg, err := f.sys.ProductPage(f.ctx, p, nil, 12)
			if err != nil {
				t.Fatal(err)
			}
			if e := pg.Entries[11-3]; e.Comment.Content != "고친 글" || !e.Comment.IsEdited {
				t.Errorf("the edited comment's copy lists %q (edited %v)", e.Comment.Content, e.Comment.IsEdited)
			}
			if _, err := f.sys.RankJob(f.ctx, []string{p}); err != nil {
				t.Fatal(err)
			}
			top, err := f.sys.Ranked(f.ctx, p, 10)
			if err != nil || len(top.Comments()) != 10 || top.Comments()[0].OrderID != written[11] {
				t.Errorf("ranked: %d comments, %v; want 10, the longest (the last written) first", len(top.Comments()), err)
			}
		})
	}
}
