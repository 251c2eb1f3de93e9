// Command loadgen drives the comment system: it creates the tables, seeds
// users, sellers, products and orders, writes comments from several
// workers, walks product listings, and prints what it did and how the
// regions sit on the servers.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"commentbench/backend"
	"commentbench/comments"
	"commentbench/keys"
	"commentbench/model"
	"commentbench/spread"
	"commentbench/store"
)

type config struct {
	backend  backend.Flags
	layout   string
	scan     string
	users    int
	products int
	comments int
	workers  int
	pageSize int
	walks    int
	regions  int
	seed     uint64
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	var c config
	fs := pflag.NewFlagSet("loadgen", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	c.backend.Register(fs)
	fs.StringVar(&c.layout, "layout", "seed", "index key layout: "+strings.Join(keys.LayoutNames(), ", "))
	fs.StringVar(&c.scan, "scan", "bounded", "listing scans: bounded (start/stop rows) or seed (filters from the table start)")
	fs.IntVar(&c.users, "users", 200, "users to seed")
	fs.IntVar(&c.products, "products", 50, "products to seed")
	fs.IntVar(&c.comments, "comments", 5000, "comments to write")
	fs.IntVar(&c.workers, "workers", 4, "concurrent writers")
	fs.IntVar(&c.pageSize, "page-size", 10, "comments per listing page")
	fs.IntVar(&c.walks, "walks", 20, "product listings to walk to the end after writing")
	fs.IntVar(&c.regions, "regions", 4, "regions each table is pre-split into")
	fs.Uint64Var(&c.seed, "seed", 1, "random seed: the same seed writes the same ids and contents")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "loadgen: %v\nrun 'loadgen --help' for the flags\n", err)
		return 2
	}
	if err := c.validate(); err != nil {
		fmt.Fprintln(stderr, "loadgen:", err)
		return 2
	}
	layout, _ := keys.LayoutByName(c.layout)
	mode, _ := comments.ParseScanMode(c.scan)
	st, err := c.backend.Open(false)
	if err != nil {
		fmt.Fprintln(stderr, "loadgen:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	sys := comments.New(st, comments.Options{Layout: layout, Scan: mode})
	err = drive(ctx, c, sys, stdout)
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		fmt.Fprintln(stderr, "loadgen:", err)
		return 1
	}
	return 0
}

func (c *config) validate() error {
	if err := c.backend.Validate(); err != nil {
		return err
	}
	if _, err := keys.LayoutByName(c.layout); err != nil {
		return fmt.Errorf("--layout: %w", err)
	}
	if _, err := comments.ParseScanMode(c.scan); err != nil {
		return fmt.Errorf("--scan: %w", err)
	}
	for _, f := range []struct {
		name   string
		v, min int
	}{{"users", c.users, 1}, {"products", c.products, 1}, {"comments", c.comments, 0},
		{"workers", c.workers, 1}, {"page-size", c.pageSize, 1}, {"walks", c.walks, 0}, {"regions", c.regions, 1}} {
		if f.v < f.min {
			return fmt.Errorf("--%s %d: want at least %d", f.name, f.v, f.min)
		}
	}
	if c.pageSize > comments.MaxPageSize {
		return fmt.Errorf("--page-size %d: want at most %d", c.pageSize, comments.MaxPageSize)
	}
	return nil
}

type population struct {
	users, products []string
}

func drive(ctx context.Context, c config, sys *comments.System, out io.Writer) error {
	splits, err := keys.SplitPoints(keys.RandomLetters, c.regions)
	if err != nil {
		return err
	}
	if err := sys.CreateTables(ctx, splits); err != nil {
		return err
	}
	start := time.Now()
	pop, err := seedEntities(ctx, c, sys)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "seeded %d users, %d products, %d sellers in %v\n",
		len(pop.users), len(pop.products), c.products/10+1, time.Since(start).Round(time.Millisecond))

	start = time.Now()
	written, failed := writeComments(ctx, c, sys, pop)
	el := time.Since(start)
	fmt.Fprintf(out, "wrote %d comments (%d failed) with %d workers in %v: %.0f comments/s\n",
		written.Load(), failed.Load(), c.workers, el.Round(time.Millisecond), float64(written.Load())/el.Seconds())

	if err := walkListings(ctx, c, sys, pop, out); err != nil {
		return err
	}
	return printRegions(ctx, sys.Store(), out)
}

func seedEntities(ctx context.Context, c config, sys *comments.System) (population, error) {
	ids := keys.NewRandom(rand.New(rand.NewPCG(c.seed, 0)))
	var pop population
	sellers := make([]string, c.products/10+1)
	for i := range sellers {
		sellers[i] = ids.Next()
		if err := sys.CreateSeller(ctx, model.Seller{ID: sellers[i], Name: "seller"}); err != nil {
			return pop, err
		}
	}
	now := time.Now().UnixMilli()
	for i := range c.products {
		p := model.Product{ID: ids.Next(), SellerID: sellers[i%len(sellers)], Content: []byte("<img>"), CreatedAt: now, UpdatedAt: now}
		if err := sys.CreateProduct(ctx, p); err != nil {
			return pop, err
		}
		pop.products = append(pop.products, p.ID)
	}
	for range c.users {
		u := model.User{ID: ids.Next(), Name: "user", Nickname: "nick"}
		if err := sys.CreateUser(ctx, u); err != nil {
			return pop, err
		}
		pop.users = append(pop.users, u.ID)
	}
	return pop, nil
}

// writeComments splits the comments over the workers; each worker has its
// own random source, so the set written depends only on --seed.
func writeComments(ctx context.Context, c config, sys *comments.System, pop population) (ok, failed *atomic.Int64) {
	ok, failed = new(atomic.Int64), new(atomic.Int64)
	var wg sync.WaitGroup
	for w := range c.workers {
		n := c.comments / c.workers
		if w < c.comments%c.workers {
			n++
		}
		wg.Go(func() {
			r := rand.New(rand.NewPCG(c.seed, uint64(w)+1))
			ids := keys.NewRandom(r)
			for range n {
				if ctx.Err() != nil {
					return
				}
				if err := writeOne(ctx, sys, r, ids, pop); err != nil {
					failed.Add(1)
					continue
				}
				ok.Add(1)
			}
		})
	}
	wg.Wait()
	return ok, failed
}

func writeOne(ctx context.Context, sys *comments.System, r *rand.Rand, ids keys.IDGen, pop population) error {
	user := pop.users[r.IntN(len(pop.users))]
	order := model.Order{ID: ids.Next(), UserID: user}
	if err := sys.CreateOrder(ctx, order); err != nil {
		return err
	}
	_, err := sys.WriteComment(ctx, comments.NewComment{OrderID: order.ID, UserID: user,
		ProductID: pop.products[r.IntN(len(pop.products))], Content: content(r)})
	return err
}

var words = []string{"좋아요", "배송이", "빨라요", "가격", "대비", "최고", "great", "fast", "shipping", "would", "buy", "again"}

// content mixes Korean (3 bytes a character) and English words, so byte
// length and character count differ.
func content(r *rand.Rand) string {
	n := 1 + r.IntN(12)
	parts := make([]string, n)
	for i := range parts {
		parts[i] = words[r.IntN(len(words))]
	}
	return strings.Join(parts, " ")
}

func walkListings(ctx context.Context, c config, sys *comments.System, pop population, out io.Writer) error {
	var pages, listed, scanned, foreign int64
	n := min(c.walks, len(pop.products))
	for _, p := range pop.products[:n] {
		var cursor []byte
		for {
			page, err := sys.ProductPage(ctx, p, cursor, c.pageSize)
			if err != nil {
				if errors.Is(err, context.Canceled) {
					return nil
				}
				return err
			}
			pages++
			scanned += page.Scan.RowsScanned
			for _, cm := range page.Comments() {
				listed++
				if cm.ProductID != p {
					foreign++
				}
			}
			if page.Next == nil || ctx.Err() != nil {
				break
			}
			cursor = page.Next
		}
	}
	if pages == 0 {
		return nil
	}
	fmt.Fprintf(out, "walked %d listings: %d pages, %d comments listed (%d of other products), %.1f index rows read per page\n",
		n, pages, listed, foreign, float64(scanned)/float64(pages))
	return nil
}

func printRegions(ctx context.Context, st store.Store, out io.Writer) error {
	tables, err := st.ListTables(ctx)
	if err != nil {
		return err
	}
	var all []store.Region
	for _, t := range tables {
		rs, err := st.Regions(ctx, t.Name)
		if err != nil {
			return err
		}
		all = append(all, rs...)
	}
	fmt.Fprintln(out)
	return spread.RegionsPerServer(out, all)
}
