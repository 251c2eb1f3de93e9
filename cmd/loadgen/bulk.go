package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"commentbench/results"
	"commentbench/store"
	"commentbench/store/embedded"
	"commentbench/workload"
)

// The load phase in bulk (workload.LoadPlan), and the bases it keeps: a
// load made once is kept as a checkpoint of the engine's data under
// --base-cache, named by everything that decides what the load writes,
// and a later run of the same load starts from a copy of it instead.

// basePlan is how the run's load phase is made, decided before anything
// is opened.
type basePlan struct {
	method string // workload.LoadPuts, LoadBulk or LoadBatched
	why    string // why puts where bulk was asked
	root   string // where bases are kept; "" keeps none
	key    string // this load's base
	reuse  bool   // the base is kept: the run starts from it
}

// minCachedLoad is the smallest load kept in the default base cache: a
// smaller one loads in moments, and would only fill the cache.
const minCachedLoad = 100_000

// baseFile describes a kept base; a base without it is not whole.
const baseFile = "base.json"

// planLoad decides how the load phase is written and whether a kept base
// stands for it; a base cache that cannot be written is refused here.
func (o *options) planLoad() error {
	if o.loadMethod != "bulk" && o.loadMethod != "puts" {
		return fmt.Errorf("--load %q: want bulk or puts", o.loadMethod)
	}
	total := workload.Config{Scenario: o.sc, WorkerIndex: o.workerIndex, WorkersTotal: o.workersTotal}.LoadTotal()
	if total == 0 {
		return nil // no load phase: the first line says nothing of one
	}
	p := &basePlan{method: workload.LoadPuts}
	o.bases = p
	switch {
	case o.loadMethod == "puts":
		return nil
	case o.appendRun:
		p.why = "--append: the data holds earlier runs' rows"
		return nil
	}
	if p.why = workload.BulkRefusal(o.sc, o.workersTotal); p.why != "" {
		return nil
	}
	p.method = workload.LoadBulk
	if o.backend.Backend == "hbase" {
		p.method = workload.LoadBatched
		return nil
	}
	root, explicit, err := baseRoot(o.baseCache)
	if err != nil || root == "" || (!explicit && total < minCachedLoad) {
		return err
	}
	if err := writableDir(root); err != nil {
		return fmt.Errorf("--base-cache %s: %w (give a directory loadgen can write, or --base-cache off)", root, err)
	}
	p.root, p.key = root, o.baseKey()
	if _, err := os.Stat(filepath.Join(root, p.key, baseFile)); err == nil && !o.freshLoad {
		return o.reuseBase(p)
	}
	return nil
}

// reuseBase starts the run from the kept base p names: only into an empty
// data dir, which the base's copy becomes.
func (o *options) reuseBase(p *basePlan) error {
	if d := o.backend.DataDir; d != "" {
		if entries, err := os.ReadDir(d); err == nil && len(entries) > 0 {
			return fmt.Errorf("--data-dir %s holds data, and the load's base %s is started from in an empty one: give an empty --data-dir, or --fresh-load to load into this one", d, p.key)
		}
	}
	p.reuse = true
	o.backend.Base = filepath.Join(p.root, p.key, "data")
	return nil
}

// baseRoot is --base-cache: "off" none, "" the user's cache (then
// explicit is false).
func baseRoot(flag string) (root string, explicit bool, err error) {
	switch flag {
	case "off":
		return "", true, nil
	case "":
		dir, err := os.UserCacheDir() // $XDG_CACHE_HOME, else ~/.cache
		if err != nil {
			return "", false, nil // no cache to keep bases in: load each time
		}
		return filepath.Join(dir, "commentbench", "bases"), false, nil
	}
	return flag, true, nil
}

// writableDir makes dir if need be and checks a file can be made in it.
func writableDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".probe-*")
	if err != nil {
		return err
	}
	return errors.Join(f.Close(), os.Remove(f.Name()))
}

// baseKey names what decides the load's data: the design whole, the
// population and the load, how the workers draw them and how comments
// are written and stamped, and how the engine cuts its regions.
func (o *options) baseKey() string {
	sc, b := o.sc, o.backend
	what := struct {
		Format                            int
		Design                            string
		Seed                              uint64
		Users, Products, Sellers, PerUser int
		IDs, Clock, Writes                string
		Regions, Workers                  int
		Content, Popularity               any
		Servers                           int
		SplitInitial, SplitMax            int64
		NoSplits                          bool
	}{1, string(o.design.Source()), sc.Seed, sc.Users, sc.Products, sc.Sellers, sc.LoadPerUser,
		sc.IDs, sc.Clock, sc.Writes, sc.Regions, sc.Workers, sc.Content, sc.Popularity,
		b.Servers, b.SplitInitial, b.SplitMax, b.NoSplits}
	j, _ := json.Marshal(what) // plain values: never fails
	sum := sha256.Sum256(j)
	return hex.EncodeToString(sum[:8])
}

// loadPlan is the workload's plan for the load phase: nil put by put.
// engine is the embedded engine under the run's store, nil on hbase. A
// reused base's ledger files join the run's ledger, so verify --run
// proves its comments as the run's own.
func (o *options) loadPlan(engine *embedded.Engine, ledger *results.Ledger) (*workload.LoadPlan, error) {
	p := o.bases
	if p == nil || p.method == workload.LoadPuts {
		return nil, nil
	}
	plan := &workload.LoadPlan{Reuse: p.reuse, Base: p.key}
	if p.reuse {
		info, err := readBase(filepath.Join(p.root, p.key))
		if err != nil {
			return nil, err
		}
		plan.Collided = info.Collided
		files, _ := filepath.Glob(filepath.Join(p.root, p.key, "ledger-load-*.bin"))
		for _, f := range files {
			if err := ledger.Adopt(f); err != nil {
				return nil, fmt.Errorf("base %s: %w", p.key, err)
			}
		}
		return plan, nil
	}
	if engine == nil {
		return plan, nil // batched puts
	}
	plan.Ingest = ingestInto(engine)
	if p.root != "" {
		plan.Loaded = func(_ context.Context, collided []workload.Collision) error { return o.saveBase(engine, collided) }
	}
	return plan, nil
}

// ingestInto is a plan's Ingest on the embedded engine: its bulk load.
func ingestInto(e *embedded.Engine) func(context.Context, string, []func() (store.BulkRow, bool)) error {
	return func(ctx context.Context, table string, parts []func() (store.BulkRow, bool)) error {
		_, err := e.BulkLoad(ctx, table, parts...)
		return err
	}
}

// engineOf is the embedded engine a store is, if it is one.
func engineOf(st store.Store) *embedded.Engine {
	e, _ := st.(*embedded.Engine)
	return e
}

// baseInfo is a kept base's base.json.
type baseInfo struct {
	Key      string    `json:"key"`
	Scenario string    `json:"scenario"`
	Design   string    `json:"design"`
	Seed     uint64    `json:"seed"`
	Comments int64     `json:"comments"`
	Made     time.Time `json:"made"`
	RunID    string    `json:"run_id"` // the run that loaded it (its mark stays in the data)
	// Collided are the load's index puts onto keys another of its
	// comments put: a run on the base tells its flaws of them.
	Collided []workload.Collision `json:"collided,omitempty"`
}

// saveBase keeps the engine's data, just loaded, as the load's base: a
// checkpoint and the load's ledger files, made beside the cache's bases
// and renamed into place whole, so a base is never seen half made.
func (o *options) saveBase(e *embedded.Engine, collided []workload.Collision) error {
	p := o.bases
	final := filepath.Join(p.root, p.key)
	tmp := fmt.Sprintf("%s.tmp-%d", final, os.Getpid())
	if err := os.RemoveAll(tmp); err != nil {
		return fmt.Errorf("keep base %s: %w", p.key, err)
	}
	err := o.writeBase(e, tmp, collided)
	if err == nil {
		if err = os.RemoveAll(final); err == nil { // --fresh-load replaces it
			err = os.Rename(tmp, final)
		}
	}
	if err != nil {
		_ = os.RemoveAll(tmp)
		return fmt.Errorf("keep base %s in %s: %w", p.key, p.root, err)
	}
	return nil
}

func (o *options) writeBase(e *embedded.Engine, dir string, collided []workload.Collision) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := e.Checkpoint(filepath.Join(dir, "data")); err != nil {
		return err
	}
	files, _ := filepath.Glob(filepath.Join(o.out, "ledger-load-*.bin"))
	for _, f := range files {
		if err := copyInto(f, dir); err != nil {
			return err
		}
	}
	info := baseInfo{Key: o.bases.key, Scenario: o.sc.Name, Design: o.design.Name(), Seed: o.sc.Seed,
		Comments: workload.Config{Scenario: o.sc, WorkersTotal: 1}.LoadTotal(), Made: time.Now().UTC(), RunID: o.runID,
		Collided: collided}
	j, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, baseFile), append(j, '\n'), 0o644)
}

// readBase reads a kept base's description.
func readBase(dir string) (baseInfo, error) {
	var info baseInfo
	j, err := os.ReadFile(filepath.Join(dir, baseFile))
	if err == nil {
		err = json.Unmarshal(j, &info)
	}
	if err != nil {
		return info, fmt.Errorf("base %s: %w (remove it, or give --fresh-load)", dir, err)
	}
	return info, nil
}

// copyInto copies file f into dir under its name.
func copyInto(f, dir string) error {
	in, err := os.Open(f)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(filepath.Join(dir, filepath.Base(f)))
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	return errors.Join(err, out.Sync(), out.Close())
}

// loadLine is the first line's word on the load phase: how it is made.
func (p *basePlan) loadLine() string {
	switch {
	case p == nil:
		return ""
	case p.reuse:
		return ", load: reused base " + p.key
	case p.method == workload.LoadPuts && p.why != "":
		return ", load: puts (" + p.why + ")"
	}
	return ", load: " + p.method
}

// loadDone is the line after the load phase: how many, how, how long.
// A reused base's time is its restore (the store's open) and the replay
// of the generators over it.
func loadDone(res workload.Outcome, opened time.Duration) string {
	rate := float64(res.Loaded) / max(res.LoadTime.Seconds(), 1e-9)
	if res.LoadedBy == workload.LoadReused {
		return fmt.Sprintf("load phase: %d comments in %.1fs from reused base %s (restored in %.1fs, generators replayed in %.1fs), not recorded",
			res.Loaded, (opened + res.LoadTime).Seconds(), res.Base, opened.Seconds(), res.LoadTime.Seconds())
	}
	s := fmt.Sprintf("load phase: %d comments in %.1fs (%.0f/s) by %s, not recorded", res.Loaded, res.LoadTime.Seconds(), rate, res.LoadedBy)
	if res.SaveTime > 0 {
		s += fmt.Sprintf("; kept as base %s in %.1fs", res.Base, res.SaveTime.Seconds())
	}
	return s
}
