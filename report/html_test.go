package report

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

// The tests read the page as a browser's parser does and find its figures
// by the data-* attributes the template puts on them.

func parsePage(t testing.TB, b []byte) *html.Node {
	t.Helper()
	n, err := html.Parse(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("parse the page: %v", err)
	}
	return n
}

type pred func(*html.Node) bool

func findAll(n *html.Node, p pred) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && p(n) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

func findOne(n *html.Node, p pred) *html.Node {
	if all := findAll(n, p); len(all) > 0 {
		return all[0]
	}
	return nil
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func has(key, val string) pred { return func(n *html.Node) bool { return attr(n, key) == val } }

func tag(name string) pred { return func(n *html.Node) bool { return n.Data == name } }

func and(ps ...pred) pred {
	return func(n *html.Node) bool {
		for _, p := range ps {
			if !p(n) {
				return false
			}
		}
		return true
	}
}

func byID(n *html.Node, id string) *html.Node { return findOne(n, has("id", id)) }

// text is a node's text, spaces collapsed, elements other than inline
// ones apart.
func text(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
		if n.Type == html.ElementNode && n.Data != "span" && n.Data != "b" && n.Data != "i" {
			b.WriteByte(' ') // cells and blocks are apart, as a browser shows them
		}
	}
	walk(n)
	return strings.Join(strings.Fields(b.String()), " ")
}

// number reads a figure as the page writes it: thousands commas, a unit
// (%, ×, s) around it.
func number(t testing.TB, s string) float64 {
	t.Helper()
	c := strings.NewReplacer(",", "", "%", "", "×", "", " s", "").Replace(strings.TrimSpace(s))
	v, err := strconv.ParseFloat(c, 64)
	if err != nil {
		t.Fatalf("%q is not a number: %v", s, err)
	}
	return v
}

// cellOf is the text of row's cell in column col.
func cellOf(t testing.TB, row *html.Node, col string) string {
	t.Helper()
	c := findOne(row, has("data-col", col))
	if c == nil {
		t.Fatalf("no %s cell in row %v", col, row.Attr)
	}
	if v := findOne(c, has("class", "v")); v != nil {
		return text(v)
	}
	return text(c)
}

func near(a, b, tol float64) bool { return a-b <= tol && b-a <= tol }
