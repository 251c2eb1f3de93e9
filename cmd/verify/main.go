// Command verify reads a data directory that loadgen wrote and reports what
// it holds: rows per table, whether each index has one row per comment, and
// how the regions sit on the servers. It only reads.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/pflag"

	"commentbench/backend"
	"commentbench/keys"
	"commentbench/spread"
	"commentbench/store"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// Exit codes: 0 consistent, 1 inconsistencies found, 2 could not check.
func run(args []string, stdout, stderr io.Writer) int {
	var bf backend.Flags
	fs := pflag.NewFlagSet("verify", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	bf.Register(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "verify: %v\nrun 'verify --help' for the flags\n", err)
		return 2
	}
	st, err := bf.Open(true)
	if err != nil {
		fmt.Fprintln(stderr, "verify:", err)
		return 2
	}
	defer st.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	missing, err := check(ctx, st, stdout)
	if err != nil {
		fmt.Fprintln(stderr, "verify:", err)
		return 2
	}
	if missing > 0 {
		return 1
	}
	return 0
}

// check counts rows and compares each index with the comments: a consistent
// data set has exactly one row per comment in each listing index. It returns
// how many index rows are missing in all.
func check(ctx context.Context, st store.Store, out io.Writer) (int64, error) {
	counts := map[string]int64{}
	var regions []store.Region
	for _, t := range keys.Tables {
		n, err := countRows(ctx, st, t)
		if err != nil {
			return 0, err
		}
		counts[t] = n
		rs, err := st.Regions(ctx, t)
		if err != nil {
			return 0, err
		}
		regions = append(regions, rs...)
		fmt.Fprintf(out, "%-22s %9d rows %4d regions\n", t, n, len(rs))
	}
	var missing int64
	for _, idx := range []string{keys.UserComment, keys.ProductComment} {
		if d := counts[keys.Comment] - counts[idx]; d != 0 {
			fmt.Fprintf(out, "%s: %d rows for %d comments (%+d)\n", idx, counts[idx], counts[keys.Comment], -d)
			missing += max(d, -d)
		}
	}
	fmt.Fprintln(out)
	if err := spread.RegionsPerServer(out, regions); err != nil {
		return 0, err
	}
	if missing > 0 {
		fmt.Fprintf(out, "\nINCONSISTENT: the indexes are off by %d rows from the comments\n", missing)
	} else {
		fmt.Fprintln(out, "\nconsistent: one row per comment in each listing index")
	}
	return missing, nil
}

func countRows(ctx context.Context, st store.Store, table string) (int64, error) {
	var n int64
	_, err := st.Scan(ctx, table, store.Scan{}, func(store.Row) bool { n++; return true })
	if errors.Is(err, store.ErrTableNotFound) {
		return 0, fmt.Errorf("table %s is missing: is this a loadgen data directory? %w", table, err)
	}
	return n, err
}
