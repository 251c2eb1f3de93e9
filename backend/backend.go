// Package backend turns command-line flags into an open store.Store, so
// every command names and configures backends the same way.
//
// It owns the backend flags and their validation; it must not know the
// comment schema or what the command does with the store.
package backend

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"commentbench/entry"
	"commentbench/hbase"
	"commentbench/hbase/sasl"
	"commentbench/plan"
	"commentbench/store"
	"commentbench/store/embedded"
	hbasestore "commentbench/store/hbase"
)

// MinMaxRowSize is the least --max-row-size: what the harness's own reads
// of a wide row (entry.Batch cells, comments of up to a few KiB each) may
// take at once.
const MinMaxRowSize = 1 << 20

// Names lists the --backend values.
var Names = []string{"embedded", "hbase"}

// Flags are the backend flags of a command.
type Flags struct {
	Backend string

	// embedded
	DataDir      string
	Servers      int
	SplitInitial int64
	SplitMax     int64
	NoSplits     bool
	Sync         bool
	BlockCache   int64 // 0: the engine's default for the mode
	// MaxRowSize is the most of one row a read may return whole (HBase's
	// hbase.table.max.rowsize), parsed from maxRowSize.
	MaxRowSize int64
	maxRowSize string

	// hbase
	ZooKeeper   string
	ZKRoot      string
	Bootstrap   string
	DialTimeout time.Duration
	CallTimeout time.Duration
	Prefix      string
	ReuseTables bool
	DropTables  bool

	// hbase security (README "Secured clusters")
	Keytab           string
	Principal        string
	Krb5Conf         string
	ServicePrincipal string
	Protection       string
	TLS              bool
	TLSCA            string
	TLSCert          string
	TLSKey           string
	Kerberos         bool

	// Base, if set, is an embedded checkpoint the store starts from (set by
	// the command, not a flag; see embedded.Options.Base).
	Base string

	// Expect names the tables a Create open is about to make or write (set
	// by the command, not a flag): on hbase, Open refuses them all, before
	// anything is created, when one is not the harness's.
	Expect []string
}

// ErrRefused is a cluster on which the harness cannot make or use its
// tables (one is another's, its owner cannot be told, the cluster denies
// a change): commands exit 2 on it, as on a cluster they cannot reach.
var ErrRefused = hbasestore.ErrRefused

// Register adds the flags to fs.
func (f *Flags) Register(fs *pflag.FlagSet) {
	f.registerWhere(fs, "embedded: data directory (empty: in memory, gone at exit)")
	fs.IntVar(&f.Servers, "servers", 3, "embedded: simulated region servers")
	fs.Int64Var(&f.SplitInitial, "split-initial", 1<<20, "embedded: bytes at which a table's only region on a server splits")
	fs.Int64Var(&f.SplitMax, "split-max", 16<<20, "embedded: bytes at which any other region splits")
	fs.BoolVar(&f.NoSplits, "no-splits", false, "embedded: never split regions automatically")
	fs.Int64Var(&f.BlockCache, "block-cache", 2<<30, "embedded: the block cache in bytes, as a region server's, taken as blocks are read: a run whose data outgrows it reads more from disk, and slows")
	fs.BoolVar(&f.Sync, "sync", false, "make each write durable before it is acknowledged (embedded: without it a crash can lose the writes of about the last second), and the run's ledger record of it (either backend)")
	fs.BoolVar(&f.ReuseTables, "reuse-tables", false, "hbase: write into existing tables the harness did not create")
	fs.StringVar(&f.maxRowSize, "max-row-size", "1GiB", "embedded: the most of one row a read may return whole, as HBase's hbase.table.max.rowsize (modeled): a whole-row read of a bigger row fails as HBase's RowTooBigException; a read of a slice of its columns does not")
	f.registerHBase(fs)
}

// RegisterRead adds the flags a command that reads existing data needs:
// where the data is, not how to write or split it; and, for its repairs,
// whether it may write into tables another made.
func (f *Flags) RegisterRead(fs *pflag.FlagSet) {
	f.registerWhere(fs, "embedded: the data directory loadgen wrote")
	f.Servers, f.SplitInitial, f.SplitMax = 3, 1<<20, 16<<20
	f.registerHBase(fs)
	fs.BoolVar(&f.ReuseTables, "reuse-tables", false, "hbase, with --repair --yes: write the repairs into existing tables the harness did not create (a check only reads, and needs it not)")
}

func (f *Flags) registerWhere(fs *pflag.FlagSet, dataDir string) {
	fs.StringVar(&f.Backend, "backend", "embedded", "storage backend: "+strings.Join(Names, ", "))
	fs.StringVar(&f.DataDir, "data-dir", "", dataDir)
}

func (f *Flags) registerHBase(fs *pflag.FlagSet) {
	fs.StringVar(&f.ZooKeeper, "hbase-zk", "", "hbase: ZooKeeper quorum host:port,...")
	fs.StringVar(&f.ZKRoot, "hbase-zk-root", "/hbase", "hbase: HBase's root znode")
	fs.StringVar(&f.Bootstrap, "hbase-bootstrap", "", "hbase: RPC registry bootstrap servers host:port,... (HBase 2.5+; instead of or besides --hbase-zk)")
	fs.DurationVar(&f.DialTimeout, "hbase-timeout", 10*time.Second, "hbase: time to reach the cluster before giving up")
	fs.DurationVar(&f.CallTimeout, "hbase-call-timeout", 30*time.Second, "hbase: deadline of one RPC")
	fs.StringVar(&f.Prefix, "table-prefix", "cb_", "hbase: prefix of the tables the harness creates")
	fs.StringVar(&f.Keytab, "hbase-keytab", "", "hbase: Kerberos keytab to log in with (with --hbase-principal); without it, a kinit ticket cache (KRB5CCNAME) if --hbase-kerberos")
	fs.StringVar(&f.Principal, "hbase-principal", "", "hbase: Kerberos principal whose key --hbase-keytab holds (user@REALM)")
	fs.BoolVar(&f.Kerberos, "hbase-kerberos", false, "hbase: authenticate with Kerberos (implied by --hbase-keytab); credentials from the ticket cache unless --hbase-keytab")
	fs.StringVar(&f.Krb5Conf, "krb5-conf", "", "hbase: krb5.conf to use (default $KRB5_CONFIG, then /etc/krb5.conf)")
	fs.StringVar(&f.ServicePrincipal, "hbase-service-principal", hbase.DefaultServicePrincipal+"@REALM", "hbase: the servers' Kerberos principal; _HOST is each server's host name, REALM the krb5.conf default realm")
	fs.StringVar(&f.Protection, "hbase-protection", "", "hbase: SASL protection to require: authentication, integrity or privacy (default: the strongest the cluster offers)")
	fs.BoolVar(&f.TLS, "hbase-tls", false, "hbase: connect with TLS (HBase 2.6+ hbase.server.netty.tls.enabled); server names are checked")
	fs.StringVar(&f.TLSCA, "hbase-tls-ca", "", "hbase: PEM file of the CA(s) to trust for the servers' certificates (default: the system's)")
	fs.StringVar(&f.TLSCert, "hbase-tls-cert", "", "hbase: PEM client certificate, for clusters that require one (with --hbase-tls-key)")
	fs.StringVar(&f.TLSKey, "hbase-tls-key", "", "hbase: PEM private key of --hbase-tls-cert")
}

// RegisterDrop adds --drop-tables, for commands that start a fresh run.
func (f *Flags) RegisterDrop(fs *pflag.FlagSet) {
	fs.BoolVar(&f.DropTables, "drop-tables", false, "drop the harness's own tables first (never another's)")
}

// Validate rejects bad values before anything is opened or written.
func (f *Flags) Validate() error {
	if !slices.Contains(Names, f.Backend) {
		return fmt.Errorf("--backend %q: want one of %s", f.Backend, strings.Join(Names, ", "))
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
	if f.BlockCache < 0 || (f.BlockCache > 0 && f.BlockCache < 1<<20) {
		return fmt.Errorf("--block-cache %d: want at least 1048576 bytes (1 MiB)", f.BlockCache)
	}
	if f.maxRowSize != "" {
		n, err := plan.ParseSize(f.maxRowSize)
		if err != nil {
			return fmt.Errorf("--max-row-size: %w", err)
		}
		if n < MinMaxRowSize {
			return fmt.Errorf("--max-row-size %s: want at least 1MiB: the harness reads a wide row's cells %d at a time, up to that much", f.maxRowSize, entry.Batch)
		}
		f.MaxRowSize = n
	}
	if f.Backend != "hbase" {
		return nil
	}
	if f.ZooKeeper == "" && f.Bootstrap == "" {
		return errors.New("--backend hbase: give --hbase-zk or --hbase-bootstrap")
	}
	for _, a := range append(hosts(f.ZooKeeper), hosts(f.Bootstrap)...) {
		if i := strings.LastIndexByte(a, ':'); i <= 0 || i == len(a)-1 {
			return fmt.Errorf("address %q: want host:port", a)
		}
	}
	if f.DialTimeout <= 0 || f.CallTimeout <= 0 {
		return errors.New("--hbase-timeout and --hbase-call-timeout must be above 0")
	}
	if f.Prefix == "" {
		return errors.New("--table-prefix: empty; the harness never works on unprefixed tables")
	}
	if f.Protection != "" {
		p, err := sasl.ParseProtection(f.Protection)
		if err != nil || p != Strongest(p) {
			return fmt.Errorf("--hbase-protection %q: want one of authentication, integrity, privacy", f.Protection)
		}
	}
	if (f.TLSCert == "") != (f.TLSKey == "") {
		return errors.New("--hbase-tls-cert and --hbase-tls-key go together: give both for a client certificate, or neither")
	}
	if !f.TLS && (f.TLSCA != "" || f.TLSCert != "") {
		return errors.New("--hbase-tls-ca, --hbase-tls-cert and --hbase-tls-key apply with --hbase-tls; add it")
	}
	return nil
}

// Strongest is the strongest single level of p.
func Strongest(p sasl.Protection) sasl.Protection {
	for _, l := range []sasl.Protection{sasl.Privacy, sasl.Integrity, sasl.Authentication} {
		if p&l != 0 {
			return l
		}
	}
	return 0
}

func hosts(list string) []string {
	var out []string
	for _, h := range strings.Split(list, ",") {
		if h = strings.TrimSpace(h); h != "" {
			out = append(out, h)
		}
	}
	return out
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
	if f.Backend == "hbase" {
		return f.openHBase(mode)
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
		Sync:             f.Sync,
		CacheSize:        f.BlockCache,
		MaxRowSize:       f.MaxRowSize,
		CreateIfMissing:  mode == Create,
		Base:             f.Base,
		ReadOnly:         mode == ReadOnly,
	})
	if err != nil {
		return nil, fmt.Errorf("open embedded store: %w", err)
	}
	return e, nil
}

func (f *Flags) openHBase(mode Mode) (store.Store, error) {
	// Deciding who owns the expected tables takes a few calls per table
	// after the dial.
	ctx, cancel := context.WithTimeout(context.Background(), f.DialTimeout+time.Second+
		time.Duration(len(f.Expect))*f.CallTimeout)
	defer cancel()
	o := hbasestore.Options{Prefix: f.Prefix, ReuseTables: f.ReuseTables, ReadOnly: mode == ReadOnly,
		Client: hbase.Options{ZooKeeper: hosts(f.ZooKeeper), ZKRoot: f.ZKRoot, Bootstrap: hosts(f.Bootstrap),
			DialTimeout: f.DialTimeout, CallTimeout: f.CallTimeout}}
	if mode == Create {
		o.Expect = f.Expect
	}
	if err := f.security(&o.Client); err != nil {
		return nil, err
	}
	s, err := hbasestore.Open(ctx, o)
	if err != nil {
		return nil, fmt.Errorf("open hbase (zk %q, bootstrap %q): %w", f.ZooKeeper, f.Bootstrap, err)
	}
	return s, nil
}

// DropOwn drops the tables the harness created, if asked to, and returns
// what it dropped. Tables another owner made are listed apart, untouched;
// when one the run would use (Expect) holds rows (the harness wrote into
// it, given --reuse-tables), nothing is dropped: the run would find them.
func (f *Flags) DropOwn(ctx context.Context, st store.Store) (dropped, kept []string, err error) {
	if !f.DropTables {
		return nil, nil, nil
	}
	own, kept, err := ownTables(ctx, st)
	if err != nil {
		return nil, nil, fmt.Errorf("--drop-tables: %w", err)
	}
	if held := holdingRows(ctx, st, slices.DeleteFunc(slices.Clone(kept), func(t string) bool { return !slices.Contains(f.Expect, t) })); len(held) > 0 {
		return nil, kept, fmt.Errorf("--drop-tables: %v are not the harness's tables, so they would stay, with the rows in them "+
			"(written with --reuse-tables, say), and a fresh run would find them; nothing was dropped: empty or drop them by hand, "+
			"or give another --table-prefix: %w", held, ErrRefused)
	}
	for _, t := range own {
		if err := st.DropTable(ctx, t); err != nil {
			return dropped, kept, fmt.Errorf("--drop-tables: %w", err)
		}
		dropped = append(dropped, t)
	}
	return dropped, kept, nil
}

// ownTables splits the tables into the harness's and another owner's.
func ownTables(ctx context.Context, st store.Store) (own, foreign []string, err error) {
	tables, err := st.ListTables(ctx)
	if err != nil {
		return nil, nil, err
	}
	owner, _ := st.(interface {
		Foreign(context.Context, string) (bool, error)
	})
	for _, t := range tables {
		theirs := false
		if owner != nil {
			if theirs, err = owner.Foreign(ctx, t.Name); err != nil {
				return nil, nil, err
			}
		}
		if theirs {
			foreign = append(foreign, t.Name)
		} else {
			own = append(own, t.Name)
		}
	}
	return own, foreign, nil
}

// holdingRows are the tables that hold a row; one that cannot be read is
// taken to hold one.
func holdingRows(ctx context.Context, st store.Store, tables []string) []string {
	var out []string
	for _, t := range tables {
		found := false
		if _, err := st.Scan(ctx, t, store.Scan{Limit: 1}, func(store.Row) bool { found = true; return false }); err != nil || found {
			out = append(out, t)
		}
	}
	return out
}

// Describe names where the data is, for messages.
// Durability says when an acknowledged write is safe from a crash, for
// the summary: on the embedded engine it depends on --sync; a cluster's is
// its own WAL settings.
func (f *Flags) Durability() string {
	switch {
	case f.Backend == "hbase":
		return "the cluster's: as its WAL settings (hbase.wal.hsync, deferred flush) make it"
	case f.Sync:
		return "sync: every write durable before it was acknowledged"
	}
	return "no sync: a write is acknowledged in Pebble's WAL buffer; a crash can lose about the last second's writes"
}

func (f *Flags) Describe() string {
	if f.Backend == "hbase" {
		return fmt.Sprintf("hbase tables %s* (zk %q, bootstrap %q)", f.Prefix, f.ZooKeeper, f.Bootstrap)
	}
	if f.DataDir == "" {
		return "embedded store in memory"
	}
	return "embedded store in " + f.DataDir
}
