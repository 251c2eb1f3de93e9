package embedded

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"commentbench/store"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// A base is a loaded data set kept to start later runs from: a Pebble
// checkpoint of the engine's data dir (Checkpoint), which Open copies into
// a new data dir (Options.Base) instead of loading it again. Its tables
// are immutable, so they are hard-linked where the disk allows; the
// MANIFEST and WAL, which the new engine appends to, are copied.

// Checkpoint writes the engine's data as it is now into dir on the local
// disk, which must not exist: a Pebble checkpoint (its tables linked when
// the engine is on disk too), with every region's record current, so an
// engine opened on it (Options.Base) has the same tables, regions and
// rows. The splitter is let finish first, so the regions are as the data
// will keep them.
func (e *Engine) Checkpoint(dir string) error {
	if err := e.WaitIdle(); err != nil {
		return fmt.Errorf("embedded: checkpoint: %w", err)
	}
	if err := e.acquire(); err != nil {
		return err
	}
	defer e.release()
	if err := e.recordRegions(); err != nil {
		return fmt.Errorf("embedded: checkpoint: %w", err)
	}
	if err := e.db.Flush(); err != nil {
		return fmt.Errorf("embedded: checkpoint: %w", err)
	}
	if e.opts.Dir != "" && e.opts.FS == nil {
		if err := e.db.Checkpoint(dir, pebble.WithFlushedWAL()); err != nil {
			return fmt.Errorf("embedded: checkpoint into %s: %w", dir, err)
		}
		return nil
	}
	return e.checkpointAcross(dir)
}

// checkpointAcross checkpoints an engine that is not on the local disk
// (in memory) inside its own file system, then copies that to dir.
func (e *Engine) checkpointAcross(dir string) error {
	tmp := e.fs.PathJoin(e.dir, fmt.Sprintf("checkpoint-%d", bulkFileSeq.Add(1)))
	defer func() { _ = e.fs.RemoveAll(tmp) }()
	if err := e.db.Checkpoint(tmp, pebble.WithFlushedWAL()); err != nil {
		return fmt.Errorf("embedded: checkpoint: %w", err)
	}
	if _, err := vfsClone(e.fs, tmp, dir); err != nil {
		return fmt.Errorf("embedded: checkpoint into %s: %w", dir, err)
	}
	return nil
}

// recordRegions writes every region's record (its size above all).
func (e *Engine) recordRegions() error {
	e.adminMu.Lock()
	defer e.adminMu.Unlock()
	b := e.db.NewBatch()
	defer b.Close()
	for _, t := range e.sortedTables() {
		for _, r := range t.routing.Load().regions {
			putRegionRecord(b, r)
		}
	}
	return b.Commit(pebble.Sync)
}

// ErrBase is a checkpoint an engine cannot start from.
var ErrBase = errors.New("not a checkpoint to start from")

// baseDir checks that opts.Base is an engine checkpoint.
func baseDir(opts Options) error {
	if opts.FS != nil {
		return fmt.Errorf("embedded: base %s: %w: not with a test's file system", opts.Base, store.ErrInvalid)
	}
	ok, err := filepath.Glob(filepath.Join(opts.Base, "MANIFEST-*"))
	if err != nil || len(ok) == 0 {
		return fmt.Errorf("embedded: base %s: %w (no Pebble MANIFEST in it)", opts.Base, ErrBase)
	}
	return nil
}

// restoreBase readies opts to open a copy of the checkpoint opts.Base: on
// disk, its files in opts.Dir (missing or empty); in memory, a file
// system of its own holding them.
func restoreBase(opts Options) (Options, error) {
	if err := baseDir(opts); err != nil {
		return opts, err
	}
	if opts.Dir == "" {
		mem := vfs.NewMem()
		if _, err := vfsCloneFrom(vfs.Default, opts.Base, mem, "engine"); err != nil {
			return opts, fmt.Errorf("embedded: base %s: %w", opts.Base, err)
		}
		opts.FS, opts.Dir = mem, ""
		return opts, nil
	}
	entries, err := os.ReadDir(opts.Dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return opts, fmt.Errorf("embedded: open %q: %w", opts.Dir, err)
	}
	if len(entries) > 0 {
		return opts, fmt.Errorf("embedded: open %q on base %s: %w: the data dir is not empty", opts.Dir, opts.Base, store.ErrInvalid)
	}
	if err := linkTree(opts.Base, opts.Dir); err != nil {
		return opts, fmt.Errorf("embedded: base %s into %s: %w", opts.Base, opts.Dir, err)
	}
	return opts, nil
}

// linkTree copies the checkpoint in src to dst, linking its tables.
func linkTree(src, dst string) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, d := range entries {
		from, to := filepath.Join(src, d.Name()), filepath.Join(dst, d.Name())
		if d.IsDir() {
			if err := linkTree(from, to); err != nil {
				return err
			}
			continue
		}
		if strings.HasSuffix(d.Name(), ".sst") || strings.HasSuffix(d.Name(), ".blob") {
			if os.Link(from, to) == nil {
				continue // another file system, or no links: copied below
			}
		}
		if err := copyFile(from, to); err != nil {
			return err
		}
	}
	return nil
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return errors.Join(out.Sync(), out.Close())
}

// vfsClone copies dir src of fs to dst on the local disk.
func vfsClone(fs vfs.FS, src, dst string) (bool, error) {
	return vfsCloneFrom(fs, src, vfs.Default, dst)
}

func vfsCloneFrom(from vfs.FS, src string, to vfs.FS, dst string) (bool, error) {
	ok, err := vfs.Clone(from, to, src, dst, vfs.CloneSync)
	if err == nil && !ok {
		err = fmt.Errorf("%s: %w", src, os.ErrNotExist)
	}
	return ok, err
}
