package workload

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"

	"commentbench/comments"
	"commentbench/keys"
	"commentbench/model"
)

// seedPopulation writes the sellers, products and users the actors choose
// from. Their ids come from the seed alone, so every process loading one
// cluster (--worker-index) shares one population, the hot products included.
func seedPopulation(ctx context.Context, sys *comments.System, sc Scenario, scheme keys.Scheme) (Population, error) {
	next := populationIDs(sc, scheme)
	pop := Population{Sellers: take(next(), sc.Sellers), Products: take(next(), sc.Products), Users: take(next(), sc.Users)}
	now := time.Now().UnixMilli()
	var jobs []func(context.Context) error
	for _, id := range pop.Sellers {
		jobs = append(jobs, func(ctx context.Context) error {
			return sys.CreateSeller(ctx, model.Seller{ID: id, Name: "seller"})
		})
	}
	for i, id := range pop.Products {
		p := model.Product{ID: id, SellerID: pop.Sellers[i%len(pop.Sellers)],
			Content: []byte("<img src=product.jpg>"), CreatedAt: now, UpdatedAt: now}
		jobs = append(jobs, func(ctx context.Context) error { return sys.CreateProduct(ctx, p) })
	}
	for _, id := range pop.Users {
		jobs = append(jobs, func(ctx context.Context) error {
			return sys.CreateUser(ctx, model.User{ID: id, Name: "user", Nickname: "nick"})
		})
	}
	return pop, parallel(ctx, min(sc.Workers, 16), jobs)
}

// populationIDs returns one id generator per entity kind. Random ids share
// one seeded stream; sequential ones count from zero per table.
func populationIDs(sc Scenario, scheme keys.Scheme) func() keys.IDGen {
	if scheme == keys.Base36 {
		return func() keys.IDGen { return keys.NewSequential(0, 1) }
	}
	g := keys.NewRandom(rand.New(rand.NewPCG(sc.Seed, 0x5eed)))
	return func() keys.IDGen { return g }
}

func take(g keys.IDGen, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = g.Next()
	}
	return out
}

// parallel runs the jobs over the given number of goroutines and returns
// the first error.
func parallel(ctx context.Context, workers int, jobs []func(context.Context) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	next := make(chan func(context.Context) error)
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Go(func() {
			for job := range next {
				if err := job(ctx); err != nil {
					cancel(err)
				}
			}
		})
	}
feed:
	for _, job := range jobs {
		select {
		case next <- job:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	return context.Cause(ctx)
}

// orderIDs gives each worker its order id generator. Random ids come from a
// stream per (run, process, worker); sequential ids from one counter per
// process (the anti-pattern: every new order lands at the end of the
// table), each (run, process) counting in its own block of the id space:
// 2^38 ids each, for up to 64 processes and 200 runs appended.
func orderIDs(sc Scenario, workerIndex int, run int64) (func(worker int) keys.IDGen, error) {
	scheme, err := keys.SchemeByName(sc.IDs)
	if err != nil {
		return nil, err
	}
	if scheme == keys.Base36 {
		shared := &lockedGen{g: keys.NewSequential((uint64(run)*64+uint64(workerIndex))<<38, 1)}
		return func(int) keys.IDGen { return shared }, nil
	}
	return func(w int) keys.IDGen {
		return keys.NewRandom(rand.New(rand.NewPCG(sc.Seed^0x0dde7^uint64(run)<<48, uint64(workerIndex)<<32|uint64(w))))
	}, nil
}

// lockedGen shares one generator between workers.
type lockedGen struct {
	mu sync.Mutex
	g  keys.IDGen
}

func (l *lockedGen) Next() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.g.Next()
}

func (l *lockedGen) Scheme() keys.Scheme { return l.g.Scheme() }
