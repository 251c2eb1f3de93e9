package workload

import (
	"fmt"
	"hash/maphash"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"commentbench/comments"
	"commentbench/faults"
	"commentbench/keys"
	"commentbench/results"
	"commentbench/store"
)

// Flaws watches the run for two of the seed's flaws as they happen: index
// rows put over another comment's row (colliding keys: the earlier comment
// drops out of the listing), and rank rows a shorter ranking leaves behind
// under the seed's upsert. verify finds the same in the data afterwards;
// these are the live counts, exact as long as no write takes longer than
// collisionWindow.
type Flaws struct {
	mu sync.Mutex
	// Index keys put recently, by table then key, to the comment key: two
	// generations, rotated every collisionWindow, so memory stays flat.
	cur, prev map[string]map[string]string
	rotated   time.Time
	collided  map[string]int64
	hidden    map[string]bool // the comments put over, in any listing
	samples   map[string]string

	ranksMu sync.Mutex
	ranks   map[string][]uint64 // a product's rank rows, a hash of each one's comment key
	stale   map[string]int      // its rank rows repeating a comment ranked higher
}

// collisionWindow is how long a put index key is remembered. A collision
// needs two comments stamped in one millisecond (every listing key holds
// the timestamp), written within moments of each other.
const collisionWindow = 10 * time.Second

// NewFlaws starts with nothing seen.
func NewFlaws() *Flaws {
	return &Flaws{cur: map[string]map[string]string{}, prev: map[string]map[string]string{}, rotated: time.Now(),
		collided: map[string]int64{}, hidden: map[string]bool{}, samples: map[string]string{}, ranks: map[string][]uint64{}, stale: map[string]int{}}
}

// IndexPut is comments.Options.OnIndexPut: a key another comment already
// holds is a collision.
func (f *Flaws) IndexPut(table string, key, ck []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if now := time.Now(); now.Sub(f.rotated) > collisionWindow {
		f.prev, f.cur, f.rotated = f.cur, map[string]map[string]string{}, now
	}
	k := string(key)
	had, ok := f.cur[table][k]
	if !ok {
		had, ok = f.prev[table][k]
	}
	if ok && had != string(ck) {
		f.collided[table]++
		f.hidden[had] = true
		if _, seen := f.samples[table]; !seen {
			f.samples[table] = fmt.Sprintf("%x put over %x", ck, had)
		}
	}
	if f.cur[table] == nil {
		f.cur[table] = map[string]string{}
	}
	f.cur[table][k] = string(ck)
}

// Collided is the collisions seen, by index table.
func (f *Flaws) Collided() map[string]int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make(map[string]int64, len(f.collided))
	for t, n := range f.collided {
		out[t] = n
	}
	return out
}

// CollidedComments is how many comments a collision hid from at least one
// listing, each once: a comment hidden from both listings is one comment.
func (f *Flaws) CollidedComments() int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return int64(len(f.hidden))
}

// ranked notes a ranking written for product, its comment keys in rank
// order: under upsert the rows past it stay, and those that repeat a
// comment it ranks higher are stale, as verify counts them.
func (f *Flaws) ranked(product string, ranking [][]byte, upsert bool) {
	f.ranksMu.Lock()
	defer f.ranksMu.Unlock()
	rows := f.ranks[product]
	if !upsert {
		rows = rows[:0]
	}
	for i, ck := range ranking {
		h := maphash.Bytes(rankSeed, ck)
		if i < len(rows) {
			rows[i] = h
		} else {
			rows = append(rows, h)
		}
	}
	f.ranks[product] = rows
	f.stale[product] = repeats(rows)
}

var rankSeed = maphash.MakeSeed()

// repeats counts the rows equal to one before them.
func repeats(rows []uint64) int {
	n := 0
	for i, h := range rows {
		if slices.Contains(rows[:i], h) {
			n++
		}
	}
	return n
}

// StaleRanks is how many rank rows repeat a comment ranked higher.
func (f *Flaws) StaleRanks() int64 {
	f.ranksMu.Lock()
	defer f.ranksMu.Unlock()
	var n int64
	for _, s := range f.stale {
		n += int64(s)
	}
	return n
}

// System builds the comment system a scenario runs: its key design, scans
// and rank writes, reporting index puts to f (nil: not watched).
func System(st store.Store, sc Scenario, f *Flaws) (*comments.System, error) {
	o, err := systemOptions(sc)
	if err != nil {
		return nil, err
	}
	if sc.Faults.Any() {
		o.Faults = faults.New(sc.Faults, sc.Seed)
	}
	if f != nil {
		o.OnIndexPut = f.IndexPut
	}
	return comments.New(st, o), nil
}

// systemOptions are the comment system's options a scenario sets: its
// design, scans, rank writes and write strategy.
func systemOptions(sc Scenario) (comments.Options, error) {
	layout, err := keys.Load(sc.Layout)
	if err != nil {
		return comments.Options{}, err
	}
	mode, err := comments.ParseScanMode(sc.Scan)
	if err != nil {
		return comments.Options{}, err
	}
	writes, err := comments.ParseWrites(sc.Writes)
	if err != nil {
		return comments.Options{}, err
	}
	return comments.Options{Layout: layout, Scan: mode, KeepStaleRanks: sc.Ranks == "upsert", Writes: writes}, nil
}

// ConsistencyOf is the run's consistency block: what the system's writes
// left and its readers set right, the failures injected, the cost.
func ConsistencyOf(sys *comments.System) *results.Consistency {
	r := sys.Residue()
	return &results.Consistency{
		Writes: sys.Writes().String(),
		Injected: results.Injected{FailedWrites: r.Injected.Failed, LostReplies: r.Injected.Lost,
			AbandonedWriters: r.Injected.Abandoned},
		CommentWrites: r.Writes, Acked: r.Acked, Unknown: r.Unknown,
		Left: results.Left{Unreferenced: r.Unreferenced, Undefined: r.Undefined, Unverified: r.Unverified,
			Orphans: r.Orphans, StaleCopies: r.StaleCopies, LocksForward: r.LocksForward, LocksBack: r.LocksBack},
		Resolved: results.Resolved{Repaired: r.Repaired, Deleted: r.Deleted, Skipped: r.Skipped,
			RolledForward: r.RolledForward, RolledBack: r.RolledBack},
		Conflicts: r.Conflicts, Retries: r.Retries, Requests: r.Requests, Bytes: r.Bytes,
	}
}

// rankOptions shapes the ranking job as the scenario says: some rankings
// shorter than their comments allow (RankShrink), 1..n-1 of the best kept,
// the rest dropped wherever they stood; each ranking noted in f.
func rankOptions(sc Scenario, r *rand.Rand, f *Flaws) comments.JobOptions {
	var o comments.JobOptions
	if sc.RankShrink > 0 {
		o.Keep = func(_ string, n int) []int {
			all := make([]int, n)
			for i := range all {
				all[i] = i
			}
			if n < 2 || r.Float64() >= sc.RankShrink {
				return all
			}
			r.Shuffle(n, func(i, j int) { all[i], all[j] = all[j], all[i] })
			kept := all[:1+r.IntN(n-1)]
			slices.Sort(kept)
			return kept
		}
	}
	if f != nil {
		upsert := sc.Ranks == "upsert"
		o.Ranked = func(p string, ranking [][]byte) { f.ranked(p, ranking, upsert) }
	}
	return o
}
