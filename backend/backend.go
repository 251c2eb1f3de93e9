// Package backend turns command-line flags into an open store.Store, so
// every command names and configures backends the same way.
//
// It owns the backend flags and their validation; it must not know the
// comment schema or what the command does with the store.
package backend

import (
	"fmt"
	"slices"

	"github.com/spf13/pflag"

	"commentbench/store"
	"commentbench/store/embedded"
)

// Names lists the --backend values this build accepts.
var Names = []string{"embedded"}

// Flags are the backend flags of a command.
type Flags struct {
	Backend      string
	DataDir      string
	Servers      int
	SplitInitial int64
	SplitMax     int64
	NoSplits     bool
}

// Register adds the flags to fs.
func (f *Flags) Register(fs *pflag.FlagSet) {
	fs.StringVar(&f.Backend, "backend", "embedded", "storage backend: "+fmt.Sprint(Names))
	fs.StringVar(&f.DataDir, "data-dir", "", "embedded: data directory (empty: in memory, gone at exit)")
	fs.IntVar(&f.Servers, "servers", 3, "embedded: simulated region servers")
	fs.Int64Var(&f.SplitInitial, "split-initial", 1<<20, "embedded: bytes at which a table's only region on a server splits")
	fs.Int64Var(&f.SplitMax, "split-max", 16<<20, "embedded: bytes at which any other region splits")
	fs.BoolVar(&f.NoSplits, "no-splits", false, "embedded: never split regions automatically")
}

// Validate rejects bad values before anything is opened or written.
func (f *Flags) Validate() error {
	if !slices.Contains(Names, f.Backend) {
		return fmt.Errorf("--backend %q: want one of %v", f.Backend, Names)
	}
	if f.Servers < 1 || f.Servers > 1000 {
		return fmt.Errorf("--servers %d: want 1..1000", f.Servers)
	}
	if f.SplitInitial < 1024 {
		return fmt.Errorf("--split-initial %d: want at least 1024 bytes", f.SplitInitial)
	}
	if f.SplitMax < f.SplitInitial {
		return fmt.Errorf("--split-max %d: want at least --split-initial (%d)", f.SplitMax, f.SplitInitial)
	}
	return nil
}

// Mode is how a command uses the data it opens.
type Mode int

const (
	// Create opens the data, creating it if there is none (a load run).
	Create Mode = iota
	// Existing opens data another run wrote, to change it (a repair).
	Existing
	// ReadOnly opens data another run wrote and writes nothing (a check).
	ReadOnly
)

// Open opens the backend.
func (f *Flags) Open(mode Mode) (store.Store, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	if mode != Create && f.DataDir == "" {
		return nil, fmt.Errorf("--data-dir is required: there is nothing to read in memory")
	}
	e, err := embedded.Open(embedded.Options{
		Dir:              f.DataDir,
		Servers:          f.Servers,
		InitialSplitSize: f.SplitInitial,
		MaxRegionSize:    f.SplitMax,
		DisableSplits:    f.NoSplits,
		CreateIfMissing:  mode == Create,
		ReadOnly:         mode == ReadOnly,
	})
	if err != nil {
		return nil, fmt.Errorf("open embedded store: %w", err)
	}
	return e, nil
}
