package embedded

import (
	"errors"
	"fmt"
	"hash/maphash"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"commentbench/store"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/bloom"
	"github.com/cockroachdb/pebble/v2/sstable"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// Options configure an Engine. Zero values take the defaults noted.
type Options struct {
	// Dir is the data directory; "" keeps everything in memory (tests).
	Dir string
	// CreateIfMissing lets Open create a new data dir when Dir is missing or
	// empty. Without it Open only opens an existing engine data dir, which is
	// what a reader such as the verify tool wants.
	CreateIfMissing bool
	// Servers is the number of simulated region servers, "rs1".."rsN";
	// default 3.
	Servers int
	// InitialSplitSize is the split size of a region whose table has exactly
	// one region on that region's server (HBase 2.x SteppingSplitPolicy:
	// 2 x flush size = 256 MB); scaled down, default 1 MiB.
	InitialSplitSize int64
	// MaxRegionSize is the split size otherwise (hbase.hregion.max.filesize,
	// 10 GB); scaled down, default 16 MiB.
	MaxRegionSize int64
	// DisableSplits turns automatic splits off (SplitRegion still works).
	DisableSplits bool
	// FS, if set, is the file system under the data dir (tests inject
	// failures with it); Dir is then a path in it, and "" means "engine".
	FS vfs.FS
	// fatalExit replaces the process exit when Pebble gives up (tests).
	fatalExit func()
	// Sync makes every data write durable before it returns (pebble.Sync),
	// as HBase's WAL with hbase.wal.hsync does; without it a write reaches
	// the WAL buffer only, and a crash can lose the last ones.
	Sync bool
	// ReadOnly opens an existing data dir without writing to it (a checker
	// that must leave the evidence as it found it): Pebble opens read-only,
	// nothing splits or moves, and every write fails.
	ReadOnly bool
	// Base, if set, is a checkpoint (Engine.Checkpoint) the engine starts
	// from: its files are linked (the immutable tables) or copied into Dir,
	// which must be missing or empty, or into memory when Dir is "".
	Base string
	// Now is the clock in ms, used for cell timestamps and region ids;
	// default time.Now().UnixMilli(). It must be safe for concurrent use.
	Now func() int64
	// CacheSize is Pebble's block cache in bytes: default 2 GiB, 8 MiB
	// read-only. A load run reads comments at random across all it wrote;
	// once they outgrow the cache, every listing reads and decompresses a
	// block per comment, and the run slows as its data grows (a region
	// server gives its block cache 40% of its heap for the same reason). A
	// read-only open is a checker's, which scans: a cache would not help,
	// and a larger one costs, since Pebble allocates a cached block in C
	// memory where a small cache reuses what it evicted (64 MiB made
	// verify at 1M comments spend 0.16 s more CPU in calloc, 3% of its
	// time). The cache fills only as blocks are read.
	CacheSize int64
	// MaxRowSize is HBase's hbase.table.max.rowsize: a store.Store read
	// (Get, BatchGet, Read, Scan without Batch) whose cells of one row
	// weigh more (store.CellSize each) fails with store.ErrRowTooBig, as
	// RowTooBigException fails it, instead of holding the row in memory.
	// Default store.DefaultMaxRowSize. The reads the HBase test server
	// makes (GetRow, ScanRows, UpdateRow) do not meet it: the server
	// applies HBase's rule itself.
	MaxRowSize int64
}

// Options.CacheSize's defaults, for a writable engine and a read-only one.
const (
	defaultCacheSize  = 2 << 30
	readOnlyCacheSize = 8 << 20
)

func (o *Options) setDefaults() {
	if o.Servers <= 0 {
		o.Servers = 3
	}
	if o.CacheSize <= 0 {
		o.CacheSize = defaultCacheSize
		if o.ReadOnly {
			o.CacheSize = readOnlyCacheSize
		}
	}
	if o.InitialSplitSize <= 0 {
		o.InitialSplitSize = 1 << 20
	}
	if o.MaxRegionSize <= 0 {
		o.MaxRegionSize = 16 << 20
	}
	if o.MaxRowSize <= 0 {
		o.MaxRowSize = store.DefaultMaxRowSize
	}
	if o.Now == nil {
		o.Now = func() int64 { return time.Now().UnixMilli() }
	}
}

// ErrNotDataDir is returned (wrapped, naming the directory) when Open is
// pointed at a directory that is not an engine data dir.
var ErrNotDataDir = errors.New("not an engine data dir")

// ErrInUse is returned (wrapped, naming the directory) when another
// process holds the data dir open: Pebble allows one at a time.
var ErrInUse = errors.New("the data dir is in use by another process (a loadgen or verify still running on it?): wait for it to end, or give another --data-dir")

// lockStripes is the number of row-lock stripes (a power of two).
const lockStripes = 1024

// Engine is an HBase-shaped store in the process, on Pebble.
type Engine struct {
	opts    Options
	db      *pebble.DB
	servers []string
	// fs and dir are where the DB lives: a bulk load writes its tables
	// there, so Pebble can link rather than copy them in.
	fs  vfs.FS
	dir string

	// inflight counts operations using the DB; closing turns new ones away
	// (see acquire). Unlike a RWMutex, an operation may nest another (a Get
	// inside a Scan callback) without risking a deadlock against Close.
	inflight  atomic.Int64
	closing   atomic.Bool
	closeOnce sync.Once
	closeErr  error

	// tables is a copy-on-write map name -> table, swapped under adminMu.
	tables atomic.Pointer[map[string]*table]

	// adminMu serialises everything that changes metadata: create, drop,
	// split, move, balance. The fields below it are guarded by it.
	adminMu      sync.Mutex
	nextTableID  uint64
	lastRegionID uint64
	roundRobin   uint64

	rowLocks [lockStripes]paddedMutex
	seed     maphash.Seed

	changeMu   sync.Mutex
	changeCh   chan struct{}
	generation uint64

	splitKick    chan struct{}
	idleReq      chan chan struct{}
	stop         chan struct{}
	stopOnce     sync.Once
	splitterDone chan struct{}
	bgErrs       splitErrs

	testAfterCheck func() // test hook inside CheckAndPut's critical section

	balancerOff atomic.Bool // SetBalancer(false): regions stay where they are

	// fault is the first storage failure (a full disk, a background error):
	// from then on every operation fails with it, and faulted is closed.
	fault     atomic.Pointer[error]
	faulted   chan struct{}
	faultOnce sync.Once
}

// failed records the engine's first storage failure.
func (e *Engine) failed(cause error) {
	e.faultOnce.Do(func() {
		err := fmt.Errorf("embedded: %s: %w: %w", e.where(), store.ErrStorage, cause)
		e.fault.Store(&err)
		close(e.faulted)
	})
}

// Fault is closed at the engine's first storage failure; Err then says
// what it was. A run watches it to stop at once rather than count every
// later write as an error.
func (e *Engine) Fault() <-chan struct{} { return e.faulted }

// Err is the first storage failure, nil while there is none.
func (e *Engine) Err() error {
	if p := e.fault.Load(); p != nil {
		return *p
	}
	return nil
}

func (e *Engine) where() string {
	if e.opts.Dir == "" {
		return "in memory"
	}
	return "data dir " + e.opts.Dir
}

// paddedMutex keeps stripes on separate cache lines.
type paddedMutex struct {
	sync.Mutex
	_ [56]byte
}

var _ store.Store = (*Engine)(nil)

// pebbleOptions is the Pebble setup the engine runs on; the raw-Pebble
// benchmark uses it too so that the two compare like for like.
// pebbleOptions: fail hears of every failure of the storage under Pebble
// (a full disk, a flush or compaction that failed), which the engine then
// reports on every operation instead of taking writes it cannot keep.
func pebbleOptions(fs vfs.FS, fail func(error)) *pebble.Options {
	o := &pebble.Options{
		FS:                 fs,
		FormatMajorVersion: pebble.FormatNewest,
		Comparer:           rowComparer,
		// A load-test store is read hard; Pebble's 8 MB default block
		// cache makes every point read decompress a block. Open sets the
		// engine's own (Options.CacheSize).
		CacheSize:     64 << 20,
		Logger:        quietLogger{fail: fail},
		EventListener: &pebble.EventListener{BackgroundError: fail},
	}
	// Row bloom filters, as HBase keeps per store file: without them a
	// point read seeks into every level, reading a block from each, and
	// gets slower with every level the data grows into.
	// MinLZ where the CPU has its assembly (Pebble's fastest): the
	// harness's CPU goes to the load it drives, not to shrinking files.
	for i := range o.Levels {
		o.Levels[i].FilterPolicy = bloom.FilterPolicy(10)
		o.Levels[i].Compression = func() *sstable.CompressionProfile { return sstable.FastestCompression }
	}
	return o
}

// rowComparer orders keys bytewise, as Pebble's default does (so it keeps
// that comparer's name and data dirs written before it open unchanged),
// and splits a data key after its row: Pebble's prefix is the row, its
// bloom filters hold rows, and a point read is a prefix seek.
var rowComparer = func() *pebble.Comparer {
	c := *pebble.DefaultComparer
	c.Split = splitRow
	return &c
}()

// splitRow is the length of a data key's table and row part; any other key
// is a prefix of its own. A data key's row part is escaped and terminated,
// so no row's prefix is a prefix of another's and bytewise order is
// prefix order, then suffix order, as Pebble requires of a Split.
func splitRow(k []byte) int {
	if len(k) < tablePrefixLen || k[0] != spaceData {
		return len(k)
	}
	if n := escapedLen(k[tablePrefixLen:]); n >= 0 {
		return tablePrefixLen + n
	}
	return len(k)
}

// quietLogger drops Pebble's informational chatter but keeps its errors.
type quietLogger struct {
	fail  func(error)
	where string
	exit  func() // ends what called Fatalf; default: the process, exit 2
}

func (quietLogger) Infof(string, ...interface{}) {}
func (quietLogger) Errorf(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "pebble: "+format+"\n", args...)
}

// Fatalf is Pebble giving up on the DB (it must not return): the process
// ends with the storage failure's exit code and its cause, not a panic.
func (l quietLogger) Fatalf(format string, args ...interface{}) {
	msg := fmt.Sprintf(format, args...)
	if l.fail != nil {
		l.fail(errors.New(msg))
	}
	fmt.Fprintf(os.Stderr, "embedded: %s: storage failed, Pebble cannot go on: %s\n", l.where, msg)
	if l.exit != nil {
		l.exit()
		return
	}
	os.Exit(2)
}

// Open opens (or, with CreateIfMissing or in memory, creates) an engine.
func Open(opts Options) (*Engine, error) {
	opts.setDefaults()
	e := &Engine{faulted: make(chan struct{}), opts: opts}
	if opts.Base != "" {
		var err error
		if opts, err = restoreBase(opts); err != nil {
			return nil, err
		}
	}
	db, place, err := openDB(opts, e.failed)
	if err != nil {
		return nil, err
	}
	*e = Engine{
		faulted:      e.faulted,
		opts:         opts,
		db:           db,
		fs:           place.fs,
		dir:          place.dir,
		seed:         maphash.MakeSeed(),
		changeCh:     make(chan struct{}),
		splitKick:    make(chan struct{}, 1),
		idleReq:      make(chan chan struct{}),
		stop:         make(chan struct{}),
		splitterDone: make(chan struct{}),
	}
	for i := 1; i <= opts.Servers; i++ {
		e.servers = append(e.servers, fmt.Sprintf("rs%d", i))
	}
	if err := e.loadMeta(); err != nil {
		db.Close()
		return nil, fmt.Errorf("embedded: open %q: %w", opts.Dir, err)
	}
	if opts.ReadOnly {
		e.opts.DisableSplits = true
	} else if err := e.adoptOrphans(); err != nil {
		db.Close()
		return nil, fmt.Errorf("embedded: open %q: %w", opts.Dir, err)
	}
	go e.splitter()
	if !opts.ReadOnly {
		e.kickSplitter() // regions may have been left over-size by the last run
	}
	return e, nil
}

// locked says whether Pebble failed to take the data dir's LOCK file: the
// kernel refuses a lock another process holds with EAGAIN; Pebble refuses
// one this process holds itself, with an error that has no type.
func locked(err error) bool {
	return err != nil && (errors.Is(err, syscall.EAGAIN) || strings.Contains(err.Error(), "lock held by current process"))
}

// dbPlace is the file system and directory a DB lives in.
type dbPlace struct {
	fs  vfs.FS
	dir string
}

// openDB opens the Pebble DB and checks, or for a new dir writes, the
// engine format marker. It says where the DB lives.
func openDB(opts Options, fail func(error)) (*pebble.DB, dbPlace, error) {
	fs, dir := vfs.Default, opts.Dir
	if opts.FS != nil {
		fs = opts.FS
	}
	create := opts.CreateIfMissing
	switch {
	case opts.FS != nil: // a test's file system: whatever it holds
		if dir == "" {
			dir = "engine"
		}
	case dir == "":
		fs, dir, create = vfs.NewMem(), "engine", true
	default:
		entries, err := os.ReadDir(dir)
		switch {
		case err != nil && !errors.Is(err, os.ErrNotExist):
			return nil, dbPlace{}, fmt.Errorf("embedded: open %q: %w", dir, err)
		case len(entries) > 0 && !hasPebbleManifest(entries):
			// Checked before Pebble sees the dir: even a failed pebble.Open
			// leaves a LOCK file behind.
			return nil, dbPlace{}, fmt.Errorf("embedded: open %q: %w (it has files but no Pebble DB)", dir, ErrNotDataDir)
		case len(entries) > 0:
			create = false // never create a DB inside a non-empty directory
		case !create:
			return nil, dbPlace{}, fmt.Errorf("embedded: open %q: %w (missing or empty: is it the directory loadgen wrote?)", dir, ErrNotDataDir)
		}
	}
	readOnly := opts.ReadOnly && opts.Dir != "" // an in-memory engine starts empty: nothing to read
	create = create && !readOnly
	po := pebbleOptions(vfs.OnDiskFull(fs, func() { fail(syscall.ENOSPC) }), fail)
	po.Logger = quietLogger{fail: fail, where: "data dir " + dir, exit: opts.fatalExit}
	po.ErrorIfNotExists = !create
	po.ReadOnly = readOnly
	po.CacheSize = opts.CacheSize
	db, err := pebble.Open(dir, po)
	if locked(err) {
		return nil, dbPlace{}, fmt.Errorf("embedded: open %q: %w", dir, ErrInUse)
	}
	if errors.Is(err, pebble.ErrDBDoesNotExist) {
		return nil, dbPlace{}, fmt.Errorf("embedded: open %q: %w (it has files but no Pebble DB)", dir, ErrNotDataDir)
	}
	if err != nil {
		return nil, dbPlace{}, fmt.Errorf("embedded: open %q: %w", dir, err)
	}
	v, closer, err := db.Get(keyFormat)
	switch {
	case errors.Is(err, pebble.ErrNotFound) && create:
		// A fresh DB: only a brand-new one may be claimed, so check it is empty.
		it, ierr := db.NewIter(nil)
		if ierr == nil {
			if it.First() {
				ierr = fmt.Errorf("embedded: open %q: %w (a Pebble DB without the engine marker)", dir, ErrNotDataDir)
			}
			it.Close()
		}
		if ierr == nil {
			ierr = db.Set(keyFormat, []byte(formatMarker), pebble.Sync)
		}
		if ierr != nil {
			db.Close()
			return nil, dbPlace{}, ierr
		}
		return db, dbPlace{po.FS, dir}, nil
	case errors.Is(err, pebble.ErrNotFound):
		db.Close()
		return nil, dbPlace{}, fmt.Errorf("embedded: open %q: %w (a Pebble DB without the engine marker)", dir, ErrNotDataDir)
	case err != nil:
		db.Close()
		return nil, dbPlace{}, fmt.Errorf("embedded: open %q: %w", dir, err)
	}
	got := string(v)
	closer.Close()
	if got != formatMarker {
		db.Close()
		return nil, dbPlace{}, fmt.Errorf("embedded: open %q: %w (format %q, want %q)", dir, ErrNotDataDir, got, formatMarker)
	}
	return db, dbPlace{po.FS, dir}, nil
}

// hasPebbleManifest reports whether a directory listing has a Pebble
// manifest, the file every Pebble DB has.
func hasPebbleManifest(entries []os.DirEntry) bool {
	for _, d := range entries {
		if strings.HasPrefix(d.Name(), "MANIFEST-") {
			return true
		}
	}
	return false
}

// adoptOrphans reassigns regions whose server is not in this run's server
// list (the engine was reopened with fewer servers), round-robin.
func (e *Engine) adoptOrphans() error {
	e.adminMu.Lock()
	defer e.adminMu.Unlock()
	for _, t := range e.sortedTables() {
		for _, r := range t.routing.Load().regions {
			if e.isServer(r.info.Server) {
				continue
			}
			if err := e.moveLocked(r, e.nextServer()); err != nil {
				return err
			}
		}
	}
	return nil
}

func (e *Engine) isServer(s string) bool {
	for _, x := range e.servers {
		if x == s {
			return true
		}
	}
	return false
}

// Close stops the splitter, records region sizes, flushes and closes the
// DB. It waits for operations in flight, so it must not be called from
// inside a Scan callback. Calling it again returns the first call's result.
func (e *Engine) Close() error {
	e.closeOnce.Do(func() {
		done := make(chan error, 1)
		go func() { done <- e.close() }()
		select {
		case e.closeErr = <-done:
		case <-time.After(CloseTimeout):
			e.closeErr = fmt.Errorf("embedded: close %s: Pebble did not finish within %v (%v): the last writes may be lost",
				e.where(), CloseTimeout, e.Err())
		}
	})
	return e.closeErr
}

// CloseTimeout bounds Close: a store whose disk failed may never finish
// flushing, and a run must still end.
const CloseTimeout = 10 * time.Second

func (e *Engine) close() error {
	e.stopOnce.Do(func() { close(e.stop) })
	<-e.splitterDone
	e.closing.Store(true)
	for e.inflight.Load() != 0 {
		time.Sleep(time.Millisecond) // Close is rare; polling keeps acquire lock-free
	}
	if e.opts.ReadOnly {
		return e.db.Close()
	}
	var errs []error
	if e.Err() == nil { // after a storage failure, write nothing more
		b := e.db.NewBatch()
		for _, t := range e.sortedTables() {
			for _, r := range t.routing.Load().regions {
				putRegionRecord(b, r)
			}
		}
		errs = append(errs, b.Commit(pebble.Sync), b.Close(), e.db.Flush())
	}
	errs = append(errs, e.db.Close())
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("embedded: close: %w", err)
	}
	return nil
}

// acquire admits an operation unless the engine is closing; pair with
// release. The count is raised before closing is read, and Close sets
// closing before it reads the count, so either the operation sees closing
// or Close sees the operation and waits for it.
func (e *Engine) acquire() error {
	e.inflight.Add(1)
	if e.closing.Load() {
		e.inflight.Add(-1)
		return fmt.Errorf("embedded: %w", store.ErrClosed)
	}
	if err := e.Err(); err != nil {
		e.inflight.Add(-1)
		return err
	}
	return nil
}

func (e *Engine) release() { e.inflight.Add(-1) }

// enter admits an operation on a table, as acquire, and looks the table
// up; on success pair it with release.
func (e *Engine) enter(tableName string) (*table, error) {
	if err := e.acquire(); err != nil {
		return nil, err
	}
	t, err := e.table(tableName)
	if err != nil {
		e.release()
		return nil, err
	}
	return t, nil
}

// table looks a table up by name.
func (e *Engine) table(name string) (*table, error) {
	if t, ok := (*e.tables.Load())[name]; ok {
		return t, nil
	}
	return nil, fmt.Errorf("embedded: %w: %q", store.ErrTableNotFound, name)
}

func (e *Engine) sortedTables() []*table {
	m := *e.tables.Load()
	out := make([]*table, 0, len(m))
	for _, t := range m {
		out = append(out, t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// now is the engine clock in ms.
func (e *Engine) now() int64 { return e.opts.Now() }

// newRegionID issues a region id: the clock, but strictly above every id
// issued before (and above floor, a parent's id). Callers hold adminMu.
func (e *Engine) newRegionID(floor uint64) uint64 {
	id := max(uint64(max(e.now(), 0)), e.lastRegionID+1, floor+1)
	e.lastRegionID = id
	return id
}

// nextServer is the round-robin assignment. Callers hold adminMu.
func (e *Engine) nextServer() string {
	s := e.servers[e.roundRobin%uint64(len(e.servers))]
	e.roundRobin++
	return s
}

// writeOpts is how data writes commit: synced only when asked (Sync).
func (e *Engine) writeOpts() *pebble.WriteOptions {
	if e.opts.Sync {
		return pebble.Sync
	}
	return pebble.NoSync
}

// commit commits a data write; a failure of the storage under it fails the
// engine, so the run stops there instead of counting errors.
func (e *Engine) commit(b *pebble.Batch) error {
	err := b.Commit(e.writeOpts())
	if err != nil && !errors.Is(err, pebble.ErrClosed) {
		e.failed(err)
		if ferr := e.Err(); ferr != nil {
			return ferr
		}
	}
	return err
}
