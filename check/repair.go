package check

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"commentbench/comments"
	"commentbench/entry"
	"commentbench/keys"
	"commentbench/model"
	"commentbench/store"
	"commentbench/txn"
)

// MaxRepairs bounds the actions one check collects, so a data set that is
// wrong everywhere cannot exhaust memory; run the repair again for the rest.
const MaxRepairs = 1_000_000

type indexAction struct {
	table    string
	key, val []byte
}

// repairs collects what a repair would do, from checks running in parallel.
type repairs struct {
	on      bool
	layout  *keys.Design
	writes  comments.Writes
	mu      sync.Mutex
	puts    []indexAction
	dels    []indexAction
	reranks []string
	// The verified index's entries a reader would repair, and the rows
	// locked by unfinished transactions (see strategy.go).
	reverifies []indexAction
	locks      []txn.Ref
	// recounts are the collections whose count a repair sets: by table,
	// the rows that counted wrong or whose entries it puts or deletes.
	recounts map[string]map[string]bool
	dropped  int64
}

func newRepairs(on bool, layout *keys.Design, writes comments.Writes) *repairs {
	return &repairs{on: on, layout: layout, writes: writes}
}

func (r *repairs) add(f func()) {
	if !r.on {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.puts)+len(r.dels)+len(r.reranks)+len(r.reverifies)+len(r.locks) >= MaxRepairs {
		r.dropped++
		return
	}
	f()
}

// put and del keep copies: the checks hand them bytes they reuse. An
// entry put or deleted in a collection with a count changes what it
// should count.
func (r *repairs) put(table string, key, val []byte) {
	r.add(func() {
		r.puts = append(r.puts, indexAction{table, bytes.Clone(key), bytes.Clone(val)})
		r.counted(table, key)
	})
}

func (r *repairs) del(table string, key []byte) {
	r.add(func() {
		r.dels = append(r.dels, indexAction{table: table, key: bytes.Clone(key)})
		r.counted(table, key)
	})
}

// recount notes a collection whose count is wrong.
func (r *repairs) recount(table string, row []byte) {
	r.add(func() { r.mark(table, row) })
}

// counted notes the collection an entry of table goes in, if it keeps a
// count; r.mu is held.
func (r *repairs) counted(table string, key []byte) {
	if t := r.layout.Table(table); t != nil && t.Meta != nil && len(key) == t.Len {
		r.mark(table, t.Row(key))
	}
}

func (r *repairs) mark(table string, row []byte) {
	if r.recounts == nil {
		r.recounts = map[string]map[string]bool{}
	}
	if r.recounts[table] == nil {
		r.recounts[table] = map[string]bool{}
	}
	r.recounts[table][string(row)] = true
}

func (r *repairs) rerank(product string) {
	r.add(func() { r.reranks = append(r.reranks, product) })
}

func (r *repairs) reverify(table string, key []byte) {
	r.add(func() { r.reverifies = append(r.reverifies, indexAction{table: table, key: bytes.Clone(key)}) })
}

func (r *repairs) resolveLock(ref txn.Ref) {
	r.add(func() { r.locks = append(r.locks, ref) })
}

// RepairReport is what a repair does, or would do.
type RepairReport struct {
	Puts    int `json:"index_rows_written"`
	Deletes int `json:"index_rows_deleted"`
	Reranks int `json:"products_reranked"`
	// Reverified are unverified entries marked verified (their comment is
	// there); Locks, rows of unfinished transactions rolled forward or
	// back, as a reader would.
	Reverified int `json:"unverified_repaired,omitempty"`
	Locks      int `json:"locks_resolved,omitempty"`
	// Recounts are the collections whose count the repair sets to the
	// entries their row holds after it.
	Recounts int      `json:"counts_set,omitempty"`
	Dropped  int64    `json:"actions_left_for_next_run,omitempty"`
	Applied  bool     `json:"applied"`
	Cannot   []string `json:"cannot_repair,omitempty"`
	actions  *repairs
}

func (r *repairs) report(rep Report) *RepairReport {
	out := &RepairReport{Puts: len(r.puts), Deletes: len(r.dels), Reranks: len(r.reranks), Reverified: len(r.reverifies),
		Locks: len(r.locks), Dropped: r.dropped, actions: r}
	for _, rows := range r.recounts {
		out.Recounts += len(rows)
	}
	for _, ix := range rep.Indexes {
		if ix.Collided.Count > 0 {
			out.Cannot = append(out.Cannot, fmt.Sprintf(
				"%d collided comments in %s: on the %s layout their index key holds another comment, so no row can be written for them; the unique layout gives every comment its own key",
				ix.Collided.Count, ix.Table, rep.Layout))
		}
	}
	rf := rep.References
	if n := rf.BadComments.Count; n > 0 {
		out.Cannot = append(out.Cannot, fmt.Sprintf(
			"%d comments whose value does not parse or is not its row's: their content is gone; their index rows are left as they are", n))
	}
	if n := rf.MissingOrder.Count + rf.OrderUser.Count + rf.MissingUser.Count +
		rf.MissingProduct.Count + rf.MissingSeller.Count; n > 0 {
		out.Cannot = append(out.Cannot, fmt.Sprintf(
			"%d broken references (orders, users, products, sellers): the data does not say what the right entity is", n))
	}
	if rep.Run != nil && rep.Run.Lost.Count > 0 {
		out.Cannot = append(out.Cannot, fmt.Sprintf("%d acknowledged comments lost: their content is gone", rep.Run.Lost.Count))
	}
	return out
}

// Apply carries the repair out: the rows of unfinished transactions
// resolved first, as a reader would (what the rest was found from is the
// data as a reader sees it); then dangling and mismatched index rows
// deleted, the missing rows written, unverified entries whose comment is
// there marked verified, counts set, and broken rankings rebuilt by the
// ranking job.
func (r *RepairReport) Apply(ctx context.Context, st store.Store, layout *keys.Design) error {
	a := r.actions
	if err := resolveLocks(ctx, st, a.locks); err != nil {
		return err
	}
	if err := mutateAll(ctx, st, layout, a.dels, func(t *keys.TableKey, x indexAction) store.Mutation { return entry.Delete(t, x.key) }); err != nil {
		return err
	}
	// HBase keeps a delete's marker and hides every put stamped at or before
	// it: a row written again in the same millisecond would stay invisible.
	if len(a.dels) > 0 && len(a.puts) > 0 {
		time.Sleep(2 * time.Millisecond)
	}
	if err := mutateAll(ctx, st, layout, a.puts, func(t *keys.TableKey, x indexAction) store.Mutation {
		if a.writes == comments.Verified && x.table != keys.Comment {
			return entry.Put(t, x.key, comments.Framed(comments.StatusVerified, x.val))
		}
		return entry.Put(t, x.key, x.val)
	}); err != nil {
		return err
	}
	if err := reverifyAll(ctx, st, layout, model.JSON, a.reverifies); err != nil {
		return err
	}
	if err := recount(ctx, st, layout, a.recounts); err != nil {
		return err
	}
	products := slices.Compact(slices.Sorted(slices.Values(a.reranks)))
	sys := comments.New(st, comments.Options{Layout: layout, Writes: a.writes})
	if _, err := sys.RankJob(ctx, products); err != nil {
		return fmt.Errorf("repair ranks: %w", err)
	}
	if err := comments.RecordRepair(ctx, st); err != nil {
		return err
	}
	r.Applied = true
	return nil
}

// mutateAll applies actions in batches per store table.
func mutateAll(ctx context.Context, st store.Store, layout *keys.Design, actions []indexAction, mut func(*keys.TableKey, indexAction) store.Mutation) error {
	const batch = 1000
	byTable := map[string][]store.Mutation{}
	for _, x := range actions {
		t := layout.Table(x.table)
		byTable[t.Store] = append(byTable[t.Store], mut(t, x))
	}
	for table, muts := range byTable {
		for len(muts) > 0 {
			n := min(batch, len(muts))
			if err := st.Mutate(ctx, table, muts[:n]...); err != nil {
				return fmt.Errorf("repair %s: %w", table, err)
			}
			muts = muts[n:]
		}
	}
	return nil
}
