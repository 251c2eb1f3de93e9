package check

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"commentbench/comments"
	"commentbench/keys"
	"commentbench/store"
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
	mu      sync.Mutex
	puts    []indexAction
	dels    []indexAction
	reranks []string
	dropped int64
}

func newRepairs(on bool) *repairs { return &repairs{on: on} }

func (r *repairs) add(f func()) {
	if !r.on {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.puts)+len(r.dels)+len(r.reranks) >= MaxRepairs {
		r.dropped++
		return
	}
	f()
}

// put and del keep copies: the checks hand them bytes they reuse.
func (r *repairs) put(table string, key, val []byte) {
	r.add(func() { r.puts = append(r.puts, indexAction{table, bytes.Clone(key), bytes.Clone(val)}) })
}

func (r *repairs) del(table string, key []byte) {
	r.add(func() { r.dels = append(r.dels, indexAction{table: table, key: bytes.Clone(key)}) })
}

func (r *repairs) rerank(product string) {
	r.add(func() { r.reranks = append(r.reranks, product) })
}

// RepairReport is what a repair does, or would do.
type RepairReport struct {
	Puts    int      `json:"index_rows_written"`
	Deletes int      `json:"index_rows_deleted"`
	Reranks int      `json:"products_reranked"`
	Dropped int64    `json:"actions_left_for_next_run,omitempty"`
	Applied bool     `json:"applied"`
	Cannot  []string `json:"cannot_repair,omitempty"`
	actions *repairs
}

func (r *repairs) report(rep Report) *RepairReport {
	out := &RepairReport{Puts: len(r.puts), Deletes: len(r.dels), Reranks: len(r.reranks), Dropped: r.dropped, actions: r}
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

// Apply carries the repair out: dangling and mismatched index rows are
// deleted, then the missing rows written, then broken rankings rebuilt by
// the ranking job.
func (r *RepairReport) Apply(ctx context.Context, st store.Store, layout *keys.Design) error {
	a := r.actions
	if err := mutateAll(ctx, st, a.dels, func(x indexAction) store.Mutation { return store.Delete(x.key) }); err != nil {
		return err
	}
	// HBase keeps a delete's marker and hides every put stamped at or before
	// it: a row written again in the same millisecond would stay invisible.
	if len(a.dels) > 0 && len(a.puts) > 0 {
		time.Sleep(2 * time.Millisecond)
	}
	if err := mutateAll(ctx, st, a.puts, func(x indexAction) store.Mutation {
		return store.Put(x.key, store.Cell{Qualifier: keys.Qualifier, Value: x.val})
	}); err != nil {
		return err
	}
	products := slices.Compact(slices.Sorted(slices.Values(a.reranks)))
	sys := comments.New(st, comments.Options{Layout: layout})
	if _, err := sys.RankJob(ctx, products); err != nil {
		return fmt.Errorf("repair ranks: %w", err)
	}
	r.Applied = true
	return nil
}

// mutateAll applies actions in batches per table.
func mutateAll(ctx context.Context, st store.Store, actions []indexAction, mut func(indexAction) store.Mutation) error {
	const batch = 1000
	byTable := map[string][]store.Mutation{}
	for _, x := range actions {
		byTable[x.table] = append(byTable[x.table], mut(x))
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
