// Command minicluster runs the HBase test cluster (package hbasetest) on
// loopback as a process of its own, so the hbase backend can be tried, and
// its failures rehearsed, without an HBase cluster: a master and region
// servers speaking HBase 2.x's protocol over the embedded engine.
//
// It prints on stdout one line, the flags loadgen and verify need to reach
// it (--backend hbase and the registry or ZooKeeper address), then serves
// until SIGINT (Ctrl-C) or SIGTERM, when it closes every listener and
// connection, flushes the engine and exits 0. Failures can be scheduled
// (--fault) or typed on stdin (--commands). Exit 2: it could not start.
package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"commentbench/buildinfo"
	"commentbench/hbase/sasl"
	"commentbench/hbasetest"
	"commentbench/store"
	"commentbench/store/embedded"
)

type options struct {
	servers   int
	dataDir   string
	zk        string
	zkRoot    string
	noSplits  bool
	faults    string
	commands  bool
	flagsFile string
	maxRow    int64
	lease     time.Duration

	keytab, principal, protection string
	tlsCert, tlsKey, tlsClientCA  string
	dropExpired                   bool
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run starts the cluster, prints the flags line and serves until ctx is
// done (a signal). It returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	o, err := parseFlags(args, stdout, stderr)
	if errors.Is(err, pflag.ErrHelp) || errors.Is(err, errVersion) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "minicluster: %v\n", err)
		return 2
	}
	schedule, err := parseSchedule(o.faults)
	if err != nil {
		fmt.Fprintf(stderr, "minicluster: --fault: %v\n", err)
		return 2
	}
	mc, err := start(o)
	if err != nil {
		fmt.Fprintf(stderr, "minicluster: %v\n", err)
		return 2
	}
	line := mc.flagsLine(o)
	fmt.Fprintln(stdout, line)
	if o.flagsFile != "" {
		if err := writeFlagsFile(o.flagsFile, line); err != nil {
			fmt.Fprintf(stderr, "minicluster: %v\n", err)
			mc.stop(stderr)
			return 2
		}
	}
	fmt.Fprintf(stderr, "minicluster: master %s, region servers %s; Ctrl-C stops it\n", mc.cl.MasterAddr(), mc.serverList())

	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go mc.runSchedule(runCtx, schedule, stderr)
	if o.commands {
		go mc.readCommands(runCtx, stdin, stdout, stderr)
	}
	<-ctx.Done()
	cancel()
	return mc.stop(stderr)
}

var errVersion = errors.New("version printed")

func parseFlags(args []string, stdout, stderr io.Writer) (options, error) {
	var o options
	fs := pflag.NewFlagSet("minicluster", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.SortFlags = false
	fs.IntVar(&o.servers, "servers", 3, "region servers")
	fs.StringVar(&o.dataDir, "data-dir", "", "keep the data in this engine data dir (created if missing); default: in memory, gone at exit")
	fs.StringVar(&o.zk, "zk", "", "publish the cluster in this ZooKeeper quorum (host:port,...), and print --hbase-zk; default: the RPC registry, --hbase-bootstrap")
	fs.StringVar(&o.zkRoot, "zk-root", "/hbase", "HBase's root znode in --zk")
	fs.BoolVar(&o.noSplits, "no-splits", false, "never split regions automatically")
	fs.StringVar(&o.faults, "fault", "", "failures to rehearse, AFTER:ACTION[:ARG...] comma-separated, AFTER from start (e.g. 20s:kill:rs2,30s:split:cb_comment); see --help")
	fs.BoolVar(&o.commands, "commands", false, "read failure commands from stdin, one per line (kill rs2, split TABLE [KEY], move TABLE [SERVER], busy N, status)")
	fs.StringVar(&o.flagsFile, "flags-file", "", "also write the flags line to this file (for scripts)")
	fs.DurationVar(&o.lease, "scanner-timeout", hbasetest.DefaultScannerTimeout, "how long a scanner outlives the client call that last used it (HBase's hbase.client.scanner.timeout.period): past it the scanner is gone and its next call fails with UnknownScannerException")
	fs.Int64Var(&o.maxRow, "max-row-size", store.DefaultMaxRowSize, "the `BYTES` of one row a Get or scan call may return (HBase's hbase.table.max.rowsize): past them the read fails with RowTooBigException")
	fs.StringVar(&o.keytab, "keytab", "", "Kerberos: the servers' service keytab; every client must then authenticate (SASL GSSAPI)")
	fs.StringVar(&o.principal, "principal", "", "Kerberos: the servers' principal in --keytab, e.g. hbase/localhost@REALM")
	fs.StringVar(&o.protection, "protection", "authentication", "Kerberos: layers offered, as hbase.rpc.protection: authentication, integrity, privacy, or a comma-separated list")
	fs.BoolVar(&o.dropExpired, "drop-expired", false, "Kerberos: close each connection when the client's ticket runs out, so clients must re-authenticate (for tests of long runs)")
	fs.StringVar(&o.tlsCert, "tls-cert", "", "TLS: PEM certificate every listener presents (with --tls-key)")
	fs.StringVar(&o.tlsKey, "tls-key", "", "TLS: PEM private key of --tls-cert")
	fs.StringVar(&o.tlsClientCA, "tls-client-ca", "", "TLS: require client certificates signed by a CA in this PEM file (mutual TLS)")
	version := fs.Bool("version", false, "print the version and exit")
	fs.Usage = func() { usage(fs, stdout) }
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if *version {
		fmt.Fprintln(stdout, "minicluster", buildinfo.Version())
		return o, errVersion
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected argument %q (see --help)", fs.Arg(0))
	}
	if o.servers < 1 || o.servers > 64 {
		return o, fmt.Errorf("--servers %d: want 1..64", o.servers)
	}
	if o.maxRow <= 0 {
		return o, fmt.Errorf("--max-row-size %d: want a positive number of bytes", o.maxRow)
	}
	if o.lease < time.Millisecond || o.lease%time.Millisecond != 0 || o.lease.Milliseconds() > math.MaxUint32 {
		return o, fmt.Errorf("--scanner-timeout %v: want a whole number of milliseconds from 1ms to %v (HBase counts hbase.client.scanner.timeout.period in milliseconds)",
			o.lease, time.Duration(math.MaxUint32)*time.Millisecond)
	}
	if (o.keytab == "") != (o.principal == "") {
		return o, errors.New("--keytab and --principal go together: the service keytab and the principal in it")
	}
	if _, err := sasl.ParseProtection(o.protection); err != nil {
		return o, fmt.Errorf("--protection: %w", err)
	}
	if (o.tlsCert == "") != (o.tlsKey == "") {
		return o, errors.New("--tls-cert and --tls-key go together")
	}
	if o.tlsClientCA != "" && o.tlsCert == "" {
		return o, errors.New("--tls-client-ca needs --tls-cert and --tls-key")
	}
	return o, nil
}

func usage(fs *pflag.FlagSet, w io.Writer) {
	fmt.Fprint(w, `minicluster runs an HBase 2.x test cluster on loopback: a master and region
servers over the embedded engine. It prints the flags loadgen and verify
need (one line, to paste after loadgen or verify) and serves until Ctrl-C.

  bin/minicluster                          # prints --backend hbase --hbase-bootstrap 127.0.0.1:...
  bin/loadgen <that line> --preset ci --layout unique

Flags:
`)
	fmt.Fprint(w, fs.FlagUsages())
	fmt.Fprint(w, `
Failures (--fault AFTER:ACTION[:ARG...], or typed on stdin with --commands
as ACTION ARG...; AFTER is a duration from start, such as 20s):
  kill:SERVER          a region server (rs1..rsN) dies: its connections drop,
                       its regions and hbase:meta move to the live ones
  split:TABLE[:KEY]    split TABLE's region holding KEY there, or every
                       region holding two rows or more at its middle
  move:TABLE[:SERVER]  move every region of TABLE to SERVER, or each to the
                       next live server
  busy:N               the next N client calls fail with RegionTooBusyException
  status               (stdin only) print the servers and their regions
Tables are named as in HBase: loadgen's carry its prefix (cb_comment).
`)
}

// minicluster is a running cluster and its engine.
type minicluster struct {
	eng *embedded.Engine
	cl  *hbasetest.Cluster
}

func start(o options) (*minicluster, error) {
	eng, err := embedded.Open(embedded.Options{
		Dir:             o.dataDir,
		CreateIfMissing: true,
		Servers:         o.servers,
		DisableSplits:   o.noSplits,
	})
	if err != nil {
		return nil, err
	}
	sec, err := o.security()
	if err != nil {
		eng.Close()
		return nil, err
	}
	cl, err := hbasetest.Start(hbasetest.Options{Engine: eng, Security: sec, ScannerTimeout: o.lease})
	if err != nil {
		eng.Close()
		return nil, err
	}
	cl.SetMaxRowSize(o.maxRow)
	mc := &minicluster{eng: eng, cl: cl}
	if o.zk != "" {
		if err := cl.PublishZooKeeper(strings.Split(o.zk, ","), o.zkRoot); err != nil {
			cl.Close()
			eng.Close()
			return nil, err
		}
	}
	return mc, nil
}

// flagsLine is what loadgen and verify need to reach the cluster.
func (mc *minicluster) flagsLine(o options) string {
	if o.zk != "" {
		return fmt.Sprintf("--backend hbase --hbase-zk %s --hbase-zk-root %s", o.zk, o.zkRoot) + o.securityFlags()
	}
	return "--backend hbase --hbase-bootstrap " + strings.Join(mc.cl.Bootstrap(), ",") + o.securityFlags()
}

func (mc *minicluster) serverList() string {
	var parts []string
	for _, s := range mc.eng.Servers() {
		if a, ok := mc.cl.ServerAddr(s); ok {
			parts = append(parts, s+"="+a)
		}
	}
	return strings.Join(parts, " ")
}

// stop closes the cluster, then the engine; the code is 0 when both
// closed cleanly.
func (mc *minicluster) stop(stderr io.Writer) int {
	err := errors.Join(mc.cl.Close(), mc.eng.Close())
	if err != nil {
		fmt.Fprintf(stderr, "minicluster: stop: %v\n", err)
		return 1
	}
	fmt.Fprintln(stderr, "minicluster: stopped")
	return 0
}

// writeFlagsFile writes the line whole or not at all, so a script
// waiting for the file never reads half of it.
func writeFlagsFile(path, line string) error {
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	if err := os.WriteFile(tmp, []byte(line+"\n"), 0o644); err != nil {
		return fmt.Errorf("--flags-file: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("--flags-file: %w", err)
	}
	return nil
}

// readCommands runs the commands typed on stdin until it ends or ctx is
// done.
func (mc *minicluster) readCommands(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer) {
	sc := bufio.NewScanner(stdin)
	for sc.Scan() && ctx.Err() == nil {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		a, err := parseCommand(line)
		if err == nil {
			var msg string
			if msg, err = mc.do(a); err == nil {
				fmt.Fprintln(stdout, msg)
				continue
			}
		}
		fmt.Fprintf(stderr, "minicluster: %s: %v\n", line, err)
	}
}
