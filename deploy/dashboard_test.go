// Package deploy holds what runs loadgen elsewhere (deploy/README.md);
// its test keeps the Grafana dashboard's queries on the metrics loadgen
// serves.
package deploy

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// dashboard is what the test reads of grafana-dashboard.json.
type dashboard struct {
	Panels []struct {
		Title   string
		Targets []struct{ Expr string }
	}
	Templating struct {
		List []struct {
			Name, Type, Definition string
			Query                  json.RawMessage
		}
	}
}

var metricRe = regexp.MustCompile(`\bcommentbench_[A-Za-z0-9_:]*`)

// Every metric a query of the dashboard names is one metrics/ serves (by
// its name in the Go source, so a renamed metric fails here), every panel
// queries one, and every panel keeps to the run picked in run_id.
func TestDashboardMetrics(t *testing.T) {
	served := servedSeries(t, "../metrics")
	data, err := os.ReadFile("grafana-dashboard.json")
	if err != nil {
		t.Fatal(err)
	}
	var d dashboard
	dec := json.NewDecoder(strings.NewReader(string(data)))
	if err := dec.Decode(&d); err != nil {
		t.Fatal(err)
	}
	if len(d.Panels) < 5 {
		t.Errorf("%d panels", len(d.Panels))
	}
	check := func(where, expr string) {
		names := metricRe.FindAllString(expr, -1)
		if len(names) == 0 {
			t.Errorf("%s: %q names no commentbench metric", where, expr)
		}
		for _, n := range names {
			if !served[n] {
				t.Errorf("%s: %s is not a series metrics/ serves (%s)", where, n, strings.Join(slices.Sorted(maps.Keys(served)), ", "))
			}
		}
	}
	for _, p := range d.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q: no query", p.Title)
		}
		for _, tg := range p.Targets {
			check("panel "+strconv.Quote(p.Title), tg.Expr)
			if strings.Count(tg.Expr, `run_id="$run_id"`) != len(metricRe.FindAllString(tg.Expr, -1)) {
				t.Errorf("panel %q: %q: every series it selects should be the picked run's (run_id=\"$run_id\")", p.Title, tg.Expr)
			}
		}
	}
	i := slices.IndexFunc(d.Templating.List, func(v struct {
		Name, Type, Definition string
		Query                  json.RawMessage
	}) bool {
		return v.Name == "run_id"
	})
	if i < 0 {
		t.Fatal("no run_id variable")
	}
	v := d.Templating.List[i]
	check("variable run_id", v.Definition)
	check("variable run_id's query", string(v.Query))
	if !strings.Contains(v.Definition, "run_id)") {
		t.Errorf("variable run_id: %q does not list the run ids", v.Definition)
	}
}

// The check itself: a name the source does not serve is caught.
func TestServedSeriesRefusesOthers(t *testing.T) {
	served := servedSeries(t, "../metrics")
	for _, n := range []string{"commentbench_ops_total", "commentbench_latency_seconds", "commentbench_latency_seconds_count"} {
		if !served[n] {
			t.Errorf("%s: not found in metrics/ (found %v)", n, slices.Sorted(maps.Keys(served)))
		}
	}
	for _, n := range []string{"commentbench_ops", "commentbench_latency_seconds_bucket", "commentbench_achieved_rate_total"} {
		if served[n] {
			t.Errorf("%s taken for a served series", n)
		}
	}
}

// servedSeries reads the metric names out of the package's Go source: the
// Name of every prometheus {Counter,Gauge,Summary,Histogram}Opts and the
// name of every prometheus.NewDesc, each with the series names its kind
// exposes (a summary's _sum and _count, a histogram's _bucket too). A name
// the test cannot work out fails it, rather than go unchecked.
func servedSeries(t *testing.T, dir string) map[string]bool {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var parsed []*ast.File
	consts := map[string]ast.Expr{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		parsed = append(parsed, af)
		for _, decl := range af.Decls {
			if g, ok := decl.(*ast.GenDecl); ok && g.Tok == token.CONST {
				for _, spec := range g.Specs {
					vs := spec.(*ast.ValueSpec)
					for i, n := range vs.Names {
						if i < len(vs.Values) {
							consts[n.Name] = vs.Values[i]
						}
					}
				}
			}
		}
	}
	var str func(ast.Expr) (string, bool)
	str = func(e ast.Expr) (string, bool) {
		switch e := e.(type) {
		case *ast.BasicLit:
			if e.Kind == token.STRING {
				s, err := strconv.Unquote(e.Value)
				return s, err == nil
			}
		case *ast.BinaryExpr:
			if e.Op == token.ADD {
				a, ok1 := str(e.X)
				b, ok2 := str(e.Y)
				return a + b, ok1 && ok2
			}
		case *ast.Ident:
			if c, ok := consts[e.Name]; ok {
				return str(c)
			}
		case *ast.ParenExpr:
			return str(e.X)
		}
		return "", false
	}
	suffixes := map[string][]string{
		"CounterOpts": {""}, "GaugeOpts": {""},
		"SummaryOpts": {"", "_sum", "_count"}, "HistogramOpts": {"_bucket", "_sum", "_count"},
		"NewDesc": {"", "_sum", "_count"}, // a collector's own: a summary's series (a gauge's or counter's too)
	}
	served := map[string]bool{}
	add := func(pos token.Pos, kind string, name ast.Expr, parts map[string]ast.Expr) {
		var full []string
		for _, p := range []ast.Expr{parts["Namespace"], parts["Subsystem"], name} {
			if p == nil {
				continue
			}
			s, ok := str(p)
			if !ok {
				t.Errorf("%s: a metric name the test cannot work out", fset.Position(pos))
				return
			}
			if s != "" {
				full = append(full, s)
			}
		}
		for _, suf := range suffixes[kind] {
			served[strings.Join(full, "_")+suf] = true
		}
	}
	for _, af := range parsed {
		ast.Inspect(af, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CompositeLit:
				sel, ok := n.Type.(*ast.SelectorExpr)
				if !ok || suffixes[sel.Sel.Name] == nil || sel.Sel.Name == "NewDesc" {
					return true
				}
				parts := map[string]ast.Expr{}
				for _, el := range n.Elts {
					if kv, ok := el.(*ast.KeyValueExpr); ok {
						if k, ok := kv.Key.(*ast.Ident); ok {
							parts[k.Name] = kv.Value
						}
					}
				}
				if parts["Name"] == nil {
					t.Errorf("%s: %s without a Name", fset.Position(n.Pos()), sel.Sel.Name)
					return true
				}
				add(n.Pos(), sel.Sel.Name, parts["Name"], parts)
			case *ast.CallExpr:
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "NewDesc" && len(n.Args) > 0 {
					add(n.Pos(), "NewDesc", n.Args[0], nil)
				}
			}
			return true
		})
	}
	if len(served) == 0 {
		t.Fatalf("no metric found in %s", dir)
	}
	return served
}
