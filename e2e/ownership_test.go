package e2e

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"commentbench/hbase"
	"commentbench/hbase/wire"
	"commentbench/hbasetest"
	"commentbench/store"
	"commentbench/store/embedded"
)

func dialHBase(t *testing.T, cl *hbasetest.Cluster) *hbase.Client {
	t.Helper()
	c, err := hbase.Dial(context.Background(), hbase.Options{Bootstrap: cl.Bootstrap()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// tablesUnder lists the cluster's tables whose names start with prefix.
func tablesUnder(t *testing.T, c *hbase.Client, prefix string) []string {
	t.Helper()
	names, err := c.ListTables(context.Background(), prefix+".*")
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// engineKeys lists a table's row keys as the engine holds them.
func engineKeys(t *testing.T, eng *embedded.Engine, table string) []string {
	t.Helper()
	var keys []string
	if _, err := eng.ScanRows(context.Background(), table, store.Scan{}, embedded.Read{}, func(r embedded.Row) bool {
		keys = append(keys, string(r.Key))
		return true
	}); err != nil {
		t.Fatalf("scan %s: %v", table, err)
	}
	return keys
}

// theirs makes table with the plain client, as another application would,
// holding one row.
func theirs(t *testing.T, c *hbase.Client, table string) {
	t.Helper()
	ctx := context.Background()
	if err := c.CreateTable(ctx, table, []string{"cf"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Mutate(ctx, table, []hbase.Mutation{{Row: []byte("theirs"), Family: "cf",
		Cells: []hbase.Cell{{Qualifier: []byte("q"), Value: []byte("keep")}}}}); err != nil {
		t.Fatal(err)
	}
}

// A table of the harness's name that it did not create stops loadgen
// before it creates anything: exit 2 naming the table and why, and the
// cluster holds that table alone, untouched.
func TestHBaseForeignTableRefusedBeforeCreating(t *testing.T) {
	t.Parallel()
	cl, eng := cluster(t)
	c := dialHBase(t, cl)
	theirs(t, c, "cb_product-comment-rank")
	_, errOut, code := run(t, "loadgen", append(hbaseArgs(cl, "cb_"), "--preset", "ci", "--ops", "50", "--quiet",
		"--out", filepath.Join(t.TempDir(), "out"))...)
	if code != 2 || !strings.Contains(errOut, "cb_product-comment-rank: no mark in cb_harness-tables") ||
		!strings.Contains(errOut, "--reuse-tables") {
		t.Errorf("loadgen beside a foreign table: exit %d, stderr %q; want 2 naming the table and the reason", code, errOut)
	}
	if got := tablesUnder(t, c, "cb_"); !slices.Equal(got, []string{"cb_product-comment-rank"}) {
		t.Errorf("tables after the refusal %v; want only the foreign one", got)
	}
	if got := engineKeys(t, eng, "cb_product-comment-rank"); !slices.Equal(got, []string{"theirs"}) {
		t.Errorf("rows of the foreign table %q; want only theirs", got)
	}
}

// A table the harness created, dropped and made again by someone else, is
// theirs now: a later loadgen (--append, or --drop-tables) refuses with
// exit 2 before it writes or drops anything, naming it.
func TestHBaseRecreatedTableRefused(t *testing.T) {
	t.Parallel()
	cl, eng := cluster(t)
	c := dialHBase(t, cl)
	args := append(hbaseArgs(cl, "cb_"), "--preset", "ci", "--ops", "50", "--quiet")
	if _, errOut, code := run(t, "loadgen", append(args, "--out", filepath.Join(t.TempDir(), "a"))...); code != 0 {
		t.Fatalf("first run: exit %d: %s", code, errOut)
	}
	before := tablesUnder(t, c, "cb_")
	comments := engineKeys(t, eng, "cb_comment")
	if len(before) != 10 || len(comments) == 0 {
		t.Fatalf("after the first run: tables %v, %d comments; want nine and the registry, and comments", before, len(comments))
	}
	ctx := context.Background()
	if err := c.DisableTable(ctx, "cb_product-comment-rank"); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteTable(ctx, "cb_product-comment-rank"); err != nil {
		t.Fatal(err)
	}
	theirs(t, c, "cb_product-comment-rank")

	for _, extra := range [][]string{{"--append"}, {"--drop-tables"}, {"--fresh"}} {
		_, errOut, code := run(t, "loadgen", append(append(args, extra...), "--out", filepath.Join(t.TempDir(), "b"))...)
		if code != 2 || !strings.Contains(errOut, "cb_product-comment-rank: it has no owner row") {
			t.Errorf("loadgen %v over a recreated table: exit %d, stderr %q; want 2 naming it", extra, code, errOut)
		}
	}
	if got := tablesUnder(t, c, "cb_"); !slices.Equal(got, before) {
		t.Errorf("tables after the refusals %v; want %v", got, before)
	}
	if got := engineKeys(t, eng, "cb_product-comment-rank"); !slices.Equal(got, []string{"theirs"}) {
		t.Errorf("rows of the recreated table %q; want only theirs", got)
	}
	if got := engineKeys(t, eng, "cb_comment"); !slices.Equal(got, comments) {
		t.Errorf("cb_comment holds %d rows after the refusals; want the first run's %d", len(got), len(comments))
	}
}

// A cluster that cannot list its tables cannot tell the harness's from
// another's: loadgen exits 2 saying so, and creates nothing.
func TestHBaseListTablesFails(t *testing.T) {
	t.Parallel()
	cl, _ := cluster(t)
	c := dialHBase(t, cl)
	cl.FailMethod("GetTableNames", wire.ExcIO)
	_, errOut, code := run(t, "loadgen", append(hbaseArgs(cl, "cb_"), "--preset", "ci", "--ops", "50", "--quiet",
		"--out", filepath.Join(t.TempDir(), "out"))...)
	cl.FailMethod("GetTableNames", "")
	if code != 2 || !strings.Contains(errOut, "list tables") || !strings.Contains(errOut, "IOException") {
		t.Errorf("loadgen when tables cannot be listed: exit %d, stderr %q; want 2 saying why", code, errOut)
	}
	if got := tablesUnder(t, c, ""); len(got) != 0 {
		t.Errorf("tables after the failure %v; want none", got)
	}
}

// On a cluster that denies every change, verify (and its dry-run repair)
// gives its usual verdict without sending one; loadgen exits 2 at the
// first change it asks for, which is denied, and nothing is created.
func TestHBaseReadOnlyCluster(t *testing.T) {
	t.Parallel()
	cl, eng := cluster(t)
	c := dialHBase(t, cl)
	dir := t.TempDir()
	args := append(hbaseArgs(cl, "cb_"), "--preset", "ci", "--layout", "unique", "--quiet")
	if _, errOut, code := run(t, "loadgen", append(args, "--out", filepath.Join(dir, "run"))...); code != 0 {
		t.Fatalf("loadgen: exit %d: %s", code, errOut)
	}
	comments := len(engineKeys(t, eng, "cb_comment"))
	cl.RejectWrites(true)
	before := cl.Calls()
	rep, code := verifyJSON(t, append(hbaseArgs(cl, "cb_"), "--run", filepath.Join(dir, "run"))...)
	if code != 0 || !rep.Consistent || rep.References.Comments == 0 {
		t.Errorf("verify on a read-only cluster: exit %d, %s", code, rep.Verdict)
	}
	if out, errOut, code := run(t, "verify", append(hbaseArgs(cl, "cb_"), "--repair")...); code != 0 {
		t.Errorf("verify --repair (dry run) on a read-only cluster: exit %d\n%s%s", code, out, errOut)
	}
	after := cl.Calls()
	for _, m := range []string{"Mutate", "CreateTable", "DisableTable", "EnableTable", "DeleteTable"} {
		if after[m] != before[m] {
			t.Errorf("verify sent %d %s calls", after[m]-before[m], m)
		}
	}
	if d := cl.Denied(); len(d) != 0 {
		t.Errorf("verify asked for changes: %v", d)
	}

	_, errOut, code := run(t, "loadgen", append(hbaseArgs(cl, "cb_new_"), "--preset", "ci", "--quiet",
		"--out", filepath.Join(dir, "new"))...)
	if code != 2 || !strings.Contains(errOut, "cb_new_harness-tables") || !strings.Contains(errOut, "AccessDeniedException") {
		t.Errorf("loadgen on a read-only cluster: exit %d, stderr %q; want 2 naming the denied change", code, errOut)
	}
	if d := cl.Denied(); len(d) != 1 || d["CreateTable"] != 1 {
		t.Errorf("changes asked for %v; want the registry's creation alone", d)
	}
	_, errOut, code = run(t, "loadgen", append(args, "--append", "--out", filepath.Join(dir, "again"))...)
	if code != 2 || !strings.Contains(errOut, "the cluster denies it") {
		t.Errorf("loadgen --append on a read-only cluster: exit %d, stderr %q; want 2", code, errOut)
	}
	cl.RejectWrites(false)
	if got := tablesUnder(t, c, "cb_new_"); len(got) != 0 {
		t.Errorf("tables created on a read-only cluster: %v", got)
	}
	if got := len(engineKeys(t, eng, "cb_comment")); got != comments {
		t.Errorf("cb_comment holds %d rows; want %d as before", got, comments)
	}
}

// --drop-tables after a run that wrote into another's table (given
// --reuse-tables) would drop the harness's tables and keep that one, with
// the run's rows in it, for the fresh run to find: it refuses, exit 2,
// before it drops anything.
func TestHBaseReusedTableKeepsDropRefused(t *testing.T) {
	t.Parallel()
	cl, _ := cluster(t)
	c := dialHBase(t, cl)
	theirs(t, c, "cb_user-comment")
	args := append(hbaseArgs(cl, "cb_"), "--preset", "ci", "--ops", "50", "--quiet", "--reuse-tables")
	if _, errOut, code := run(t, "loadgen", append(args, "--out", filepath.Join(t.TempDir(), "a"))...); code != 0 {
		t.Fatalf("run into a reused table: exit %d: %s", code, errOut)
	}
	before := tablesUnder(t, c, "cb_")
	_, errOut, code := run(t, "loadgen", append(args, "--drop-tables", "--out", filepath.Join(t.TempDir(), "b"))...)
	if code != 2 || !strings.Contains(errOut, "[user-comment] are not the harness's tables") || !strings.Contains(errOut, "nothing was dropped") {
		t.Errorf("--drop-tables beside a reused table: exit %d, stderr %q; want 2 naming it", code, errOut)
	}
	if got := tablesUnder(t, c, "cb_"); !slices.Equal(got, before) {
		t.Errorf("tables after the refusal %v; want %v", got, before)
	}
}
