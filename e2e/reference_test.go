package e2e

import (
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"commentbench/results"
)

// reference is what HdrHistogram's JavaScript port reads from a run.
type reference struct {
	Ops map[string]struct {
		Count                    int64
		P50, P90, P99, P999, Max int64 // µs
	} `json:"ops"`
	Hlogs map[string][]int64 `json:"hlogs"`
}

// readReference runs testdata/hdr-reference.js over a run directory with
// the hdr-histogram-js package that `make test` installs (its node_modules
// in COMMENTBENCH_HDRJS).
func readReference(t *testing.T, dir string) reference {
	t.Helper()
	mods := os.Getenv("COMMENTBENCH_HDRJS")
	if mods == "" {
		t.Skip("COMMENTBENCH_HDRJS is not set: `make test` installs hdr-histogram-js and sets it")
	}
	script, err := filepath.Abs(filepath.Join("testdata", "hdr-reference.js"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", script, dir)
	cmd.Env = append(os.Environ(), "NODE_PATH="+mods)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node %s: %v", script, err)
	}
	var r reference
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("reference output: %v\n%s", err, out)
	}
	return r
}

func us(ms float64) int64 { return int64(math.Round(ms * 1000)) }

// agree checks that every op's count and percentiles in summary.json are
// the ones the reference computes from the same histograms, and that the
// op's interval log holds all of its count.
func agree(t *testing.T, name, dir string) {
	t.Helper()
	sum, err := results.ReadSummary(dir)
	if err != nil {
		t.Fatal(err)
	}
	ref := readReference(t, dir)
	checked := 0
	entries := sum.Ops
	for _, a := range sum.Actions {
		a.Op = results.ActionPrefix + a.Op
		entries = append(entries, a)
	}
	for _, o := range entries {
		if o.Count == 0 {
			continue
		}
		r, ok := ref.Ops[o.Op]
		if !ok {
			t.Errorf("%s %s: the reference read no histogram", name, o.Op)
			continue
		}
		checked++
		l := o.Latency
		got := [6]int64{o.Count, us(l.P50), us(l.P90), us(l.P99), us(l.P999), us(l.Max)}
		want := [6]int64{r.Count, r.P50, r.P90, r.P99, r.P999, r.Max}
		if got != want {
			t.Errorf("%s %s: summary count,p50,p90,p99,p99.9,max (µs) %v; reference %v", name, o.Op, got, want)
		}
		var inLog int64
		for _, n := range ref.Hlogs[o.Op] {
			inLog += n
		}
		if inLog != o.Count {
			t.Errorf("%s %s: %s.hlog intervals hold %d, the op counted %d", name, o.Op, o.Op, inLog, o.Count)
		}
	}
	if checked < 12 {
		t.Errorf("%s: only %d ops checked", name, checked)
	}
}

// The p99 a CI gate reads is the one every HdrHistogram tool computes: a
// run's and a merged run's summaries agree with an independent
// implementation on every op's count, percentiles and max, and their
// interval logs hold every count.
func TestHistogramsAgreeWithReference(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	loadgenCI(t, a, "unique", "--worker-index", "0", "--workers-total", "2")
	loadgenCI(t, b, "unique", "--worker-index", "1", "--workers-total", "2")
	agree(t, "run", filepath.Join(a, "out"))
	merged := filepath.Join(dir, "merged")
	if out, errOut, code := run(t, "loadgen", "merge", "--out", merged, filepath.Join(a, "out"), filepath.Join(b, "out")); code != 0 {
		t.Fatalf("merge: exit %d\n%s%s", code, out, errOut)
	}
	agree(t, "merged", merged)
}
