package e2e

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"commentbench/check"
	"commentbench/hbase"
	"commentbench/hbasetest"
	"commentbench/results"
	"commentbench/store/embedded"
	"commentbench/workload"
)

// cluster runs an in-process HBase cluster (the test server) for the
// commands to reach over loopback.
func cluster(t *testing.T) (*hbasetest.Cluster, *embedded.Engine) {
	t.Helper()
	eng, err := embedded.Open(embedded.Options{Servers: 3})
	if err != nil {
		t.Fatal(err)
	}
	cl, err := hbasetest.Start(hbasetest.Options{Engine: eng})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close(); eng.Close() })
	return cl, eng
}

func hbaseArgs(cl *hbasetest.Cluster, prefix string) []string {
	return []string{"--backend", "hbase", "--hbase-bootstrap", strings.Join(cl.Bootstrap(), ","), "--table-prefix", prefix}
}

func verifyJSON(t *testing.T, args ...string) (check.Report, int) {
	t.Helper()
	out, errOut, code := run(t, "verify", append(args, "--json")...)
	var rep check.Report
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("verify %v: exit %d, %v\n%s%s", args, code, err, out, errOut)
	}
	return rep, code
}

// The ci preset through the client and the test server: zero
// inconsistencies on unique, the collisions on seed, and the same
// operations as the embedded backend with the same seed (one worker, so
// each run's sequence is the seed's alone; on seed the pages walked depend
// on chance collisions, so those two counts are left out).
func TestHBaseBackendCI(t *testing.T) {
	t.Parallel()
	cl, _ := cluster(t)
	for _, layout := range []string{"unique", "seed"} {
		dir := t.TempDir()
		prefix := "cb_" + layout + "_"
		args := append(hbaseArgs(cl, prefix), "--preset", "ci", "--workers", "1", "--layout", layout, "--duration", ciCap,
			"--quiet", "--out", filepath.Join(dir, "hb"))
		out, errOut, code := run(t, "loadgen", args...)
		if code != 0 {
			t.Fatalf("loadgen %s on hbase: exit %d\n%s%s", layout, code, out, errOut)
		}
		if !strings.Contains(out, "hbase client:") {
			t.Errorf("no client counters in the summary:\n%s", out)
		}
		hb, err := results.ReadSummary(filepath.Join(dir, "hb"))
		if err != nil {
			t.Fatal(err)
		}
		emb := loadgenCI(t, dir, layout, "--workers", "1")
		for _, op := range workload.OpNames {
			// On seed, how many comments a listing shows depends on which
			// writes happened to share a millisecond, and so do its pages.
			if layout == "seed" && (op == "product-page" || op == "user-timeline") {
				continue
			}
			if opCount(hb, op) != opCount(emb, op) {
				t.Errorf("%s %s: %d on hbase, %d embedded", layout, op, opCount(hb, op), opCount(emb, op))
			}
		}
		rep, code := verifyJSON(t, append(hbaseArgs(cl, prefix), "--run", filepath.Join(dir, "hb"))...)
		written := opCount(hb, "comment-write") + opCount(hb, "burst-write") + opCount(hb, "multi-order-write")
		if rep.References.Comments != written || rep.Run.Lost.Count != 0 {
			t.Errorf("%s: verify saw %d comments, lost %d; loadgen wrote %d", layout, rep.References.Comments, rep.Run.Lost.Count, written)
		}
		switch layout {
		case "unique":
			if code != 0 || !rep.Consistent {
				t.Errorf("unique on hbase: exit %d, %s", code, rep.Verdict)
			}
		case "seed":
			if code != 1 || rep.Indexes[1].Collided.Count == 0 {
				t.Errorf("seed on hbase: exit %d, product-comment collided %d; want the seed's collisions", code, rep.Indexes[1].Collided.Count)
			}
		}
	}
}

// Regions split and a region server dies while loadgen runs: it carries on,
// and verify finds every acknowledged comment; unknown outcomes are
// reported apart.
func TestHBaseSplitAndKillDuringLoad(t *testing.T) {
	t.Parallel()
	cl, eng := cluster(t)
	dir := t.TempDir()
	args := append(hbaseArgs(cl, "cb_"), "--preset", "ci", "--layout", "unique", "--ops", "0", "--duration", "6s",
		"--quiet", "--out", filepath.Join(dir, "out"))
	done := make(chan struct{})
	var out, errOut string
	var code int
	go func() {
		defer close(done)
		out, errOut, code = run(t, "loadgen", args...)
	}()
	ctx := context.Background()
	time.Sleep(2 * time.Second)
	if err := eng.SplitRegion(ctx, "cb_comment", nil); err != nil {
		t.Errorf("split: %v", err)
	}
	if err := eng.SplitRegion(ctx, "cb_product-comment", nil); err != nil {
		t.Errorf("split: %v", err)
	}
	time.Sleep(time.Second)
	if err := cl.KillServer("rs2"); err != nil {
		t.Errorf("kill: %v", err)
	}
	<-done
	if code != 0 {
		t.Fatalf("loadgen through a split and a dead server: exit %d\n%s%s", code, out, errOut)
	}
	rep, _ := verifyJSON(t, append(hbaseArgs(cl, "cb_"), "--run", filepath.Join(dir, "out"))...)
	if rep.Run == nil || rep.Run.Acked == 0 || rep.Run.Lost.Count != 0 {
		t.Fatalf("run reconciliation %+v; want acknowledged comments and none lost", rep.Run)
	}
	t.Logf("acknowledged %d, unknown present %d, absent %d; %s", rep.Run.Acked, rep.Run.UnknownPresent, rep.Run.UnknownAbsent, rep.Verdict)
}

// An unreachable cluster or a peer that is not HBase is exit 2 within the
// timeout, never a hang.
func TestHBaseUnreachable(t *testing.T) {
	t.Parallel()
	start := time.Now()
	_, errOut, code := run(t, "loadgen", "--backend", "hbase", "--hbase-bootstrap", "127.0.0.1:1", "--hbase-timeout", "2s",
		"--preset", "ci", "--quiet", "--out", filepath.Join(t.TempDir(), "out"))
	if code != 2 || !strings.Contains(errOut, "127.0.0.1:1") || time.Since(start) > 20*time.Second {
		t.Errorf("unreachable: exit %d after %v, stderr %q; want 2, naming the address", code, time.Since(start), errOut)
	}
	_, errOut, code = run(t, "verify", "--backend", "hbase")
	if code != 2 || !strings.Contains(errOut, "--hbase-zk or --hbase-bootstrap") {
		t.Errorf("no address: exit %d, %q", code, errOut)
	}
}

// --drop-tables drops the harness's own tables and leaves another owner's
// table under the same prefix alone.
func TestHBaseDropTables(t *testing.T) {
	t.Parallel()
	cl, _ := cluster(t)
	ctx := context.Background()
	c, err := hbase.Dial(ctx, hbase.Options{Bootstrap: cl.Bootstrap()})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.CreateTable(ctx, "cb_other", []string{"cf"}, nil); err != nil {
		t.Fatal(err)
	}
	args := append(hbaseArgs(cl, "cb_"), "--preset", "ci", "--ops", "50", "--quiet")
	if _, errOut, code := run(t, "loadgen", append(args, "--out", filepath.Join(t.TempDir(), "a"))...); code != 0 {
		t.Fatalf("first run: exit %d: %s", code, errOut)
	}
	_, errOut, code := run(t, "loadgen", append(args, "--drop-tables", "--out", filepath.Join(t.TempDir(), "b"))...)
	if code != 0 || !strings.Contains(errOut, "dropped the harness's tables") || !strings.Contains(errOut, "[other]") {
		t.Fatalf("--drop-tables: exit %d, stderr %q", code, errOut)
	}
	names, err := c.ListTables(ctx, "cb_other")
	if err != nil || len(names) != 1 {
		t.Errorf("cb_other after --drop-tables: %v, %v; want it left alone", names, err)
	}
}

// Designs travel over the wire too: a user's design file and the salted
// built-in (8 scans per page through the client), loadgen then verify
// against the test server, clean; verify takes the design from the tables.
func TestHBaseDesigns(t *testing.T) {
	t.Parallel()
	cl, _ := cluster(t)
	for i, c := range []struct {
		layout, name string
		scans        float64 // per listing page
	}{{userDesign(t), "product-hash", 1}, {"salted", "salted", 8}} {
		dir := t.TempDir()
		prefix := "cb_d" + strconv.Itoa(i) + "_"
		args := append(hbaseArgs(cl, prefix), "--preset", "ci", "--layout", c.layout, "--quiet", "--out", filepath.Join(dir, "hb"))
		out, errOut, code := run(t, "loadgen", args...)
		if code != 0 {
			t.Fatalf("loadgen %s on hbase: exit %d\n%s%s", c.name, code, out, errOut)
		}
		sum, err := results.ReadSummary(filepath.Join(dir, "hb"))
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range []string{"product-latest", "product-page"} {
			var l *results.ListingCost
			for _, o := range sum.Ops {
				if o.Op == op {
					l = o.Listing
				}
			}
			// A next page skips the buckets an earlier page used up.
			if l == nil || l.ScansPerPage > c.scans || (op == "product-latest" || c.scans == 1) && l.ScansPerPage != c.scans {
				t.Errorf("%s on hbase: %s listing cost %+v, want %v scans per page", c.name, op, l, c.scans)
			}
		}
		// No --layout: verify reads the design from the tables.
		rep, code := verifyJSON(t, append(hbaseArgs(cl, prefix), "--run", filepath.Join(dir, "hb"))...)
		if code != 0 || !rep.Consistent || rep.Run.Lost.Count != 0 || rep.References.Comments == 0 || rep.Layout != c.name {
			t.Errorf("%s on hbase: exit %d, %s, lost %d, layout %q", c.name, code, rep.Verdict, rep.Run.Lost.Count, rep.Layout)
		}
	}
	// A design other than the tables' is refused before anything is
	// written, naming the first table and part that differ.
	_, errOut, code := run(t, "loadgen", append(hbaseArgs(cl, "cb_d1_"), "--preset", "ci", "--layout", "seed", "--append",
		"--quiet", "--out", filepath.Join(t.TempDir(), "x"))...)
	if code != 2 || !strings.Contains(errOut, "user-comment") || !strings.Contains(errOut, "part 1") {
		t.Errorf("seed over salted tables: exit %d, want 2 naming user-comment's first part\n%s", code, errOut)
	}
}
