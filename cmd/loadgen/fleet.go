package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"commentbench/fleet"
	"commentbench/results"
)

// registerFleet adds a fleet member's flags: where the fleet meets, the
// run it is, how long it waits and how far its clock may be off.
func (o *options) registerFleet(fs *pflag.FlagSet) {
	fs.StringVar(&o.coordinate, "coordinate", "", "with --workers-total above 1: start the fleet together through ZooKeeper at HOST:PORT[,HOST:PORT...]/PATH (default with --backend hbase: --hbase-zk's ensemble at /commentbench; off: each process starts on its own)")
	fs.StringVar(&o.runID, "run-id", "", "the run's id, the same for every member of a fleet (default: a new one; a fleet must give it)")
	fs.DurationVar(&o.joinTimeout, "join-timeout", 2*time.Minute, "fleet: how long to wait for every member to join, and then for the last to finish its load phase")
	fs.DurationVar(&o.maxSkew, "max-clock-skew", fleet.DefaultMaxSkew, "fleet: refuse to start when this machine's clock is further than this from ZooKeeper's")
	fs.DurationVar(&o.memberTimeout, "member-timeout", fleet.DefaultSessionTimeout, "fleet: how soon the others count a member lost that died without a word (its ZooKeeper session's timeout; the ensemble keeps it within its bounds, by default 4s to 40s)")
}

// validateFleet settles whether this process is a coordinated fleet
// member (o.fleetCfg set) and checks what that needs.
func (o *options) validateFleet(fs *pflag.FlagSet) error {
	coord := o.coordinate
	if coord == "" && o.workersTotal > 1 && o.backend.Backend == "hbase" && o.backend.ZooKeeper != "" {
		coord = o.backend.ZooKeeper + "/commentbench"
	}
	if coord == "off" || coord == "" {
		if fs.Changed("join-timeout") || fs.Changed("max-clock-skew") || fs.Changed("member-timeout") {
			return errors.New("--join-timeout, --max-clock-skew and --member-timeout are for a coordinated fleet: give --workers-total above 1 with --coordinate (or --backend hbase)")
		}
		return nil
	}
	if o.workersTotal < 2 {
		return fmt.Errorf("--coordinate %s: a fleet has --workers-total 2 or more (it is %d)", o.coordinate, o.workersTotal)
	}
	servers, root, err := fleet.ParseCoordinate(coord)
	if err != nil {
		return fmt.Errorf("--coordinate: %w", err)
	}
	if o.runID == "" {
		return fmt.Errorf("--coordinate %s: give every member the same --run-id (loadgen kube makes one)", coord)
	}
	if strings.Contains(o.runID, "/") {
		return fmt.Errorf("--run-id %q: no '/' (it names a ZooKeeper node)", o.runID)
	}
	if o.joinTimeout <= 0 || o.maxSkew <= 0 || o.memberTimeout <= 0 {
		return fmt.Errorf("--join-timeout %v, --max-clock-skew %v, --member-timeout %v: want each above 0", o.joinTimeout, o.maxSkew, o.memberTimeout)
	}
	if o.backend.DropTables {
		return errors.New("--fresh/--drop-tables in a fleet: every member would drop what the others write; drop the tables before starting the fleet")
	}
	host, _ := os.Hostname()
	o.fleetCfg = &fleet.Config{Servers: servers, Root: root, RunID: o.runID, Index: o.workerIndex, Total: o.workersTotal,
		Host: host, JoinTimeout: o.joinTimeout, MaxSkew: o.maxSkew, SessionTimeout: o.memberTimeout, Now: fakeClock()}
	o.coordinate = coord
	return nil
}

// fakeClock is a clock offset by COMMENTBENCH_FAKE_CLOCK_OFFSET (a
// duration, e.g. 250ms), nil without it: how the tests give one member a
// skewed clock, since Go reads the system clock past any preloaded
// library that would fake it.
func fakeClock() func() time.Time {
	d, err := time.ParseDuration(os.Getenv("COMMENTBENCH_FAKE_CLOCK_OFFSET"))
	if err != nil || d == 0 {
		return nil
	}
	return func() time.Time { return time.Now().Add(d) }
}

// member is this process's place in a running fleet: the ZooKeeper
// member, what it has seen of the others, and the record for the results.
type member struct {
	m      *fleet.Member
	rec    results.Fleet
	mu     sync.Mutex
	stderr io.Writer
	// completed: the run wrote its results. A member that ends otherwise
	// leaves without marking itself done, and the others count it lost.
	completed bool
}

// joinFleet joins the fleet before anything is written, and from then on
// stops the run when another member asks, tells the others when this one
// is interrupted, and records the members it sees leave.
func (o *options) joinFleet(ctx, interrupted context.Context, stderr io.Writer) (*member, error) {
	if o.fleetCfg == nil {
		return nil, nil
	}
	if !o.quiet {
		fmt.Fprintf(stderr, "loadgen: member %d of %d of run %s: joining at %s...\n", o.workerIndex, o.workersTotal, o.runID, o.coordinate)
	}
	m, err := fleet.Join(ctx, *o.fleetCfg)
	if err != nil {
		return nil, fmt.Errorf("fleet %s: %w", o.coordinate, err)
	}
	f := &member{m: m, stderr: stderr, rec: results.Fleet{Total: o.workersTotal, Index: o.workerIndex, Coordinate: o.coordinate}}
	for _, mi := range m.Members() {
		f.rec.Members = append(f.rec.Members, results.FleetMember{Index: mi.Index, Host: mi.Host,
			OffsetMS: float64(mi.Offset.Microseconds()) / 1000})
	}
	go f.watch(interrupted, o.stopRun, o.workerIndex)
	return f, nil
}

func (f *member) watch(interrupted context.Context, stopRun func(), self int) {
	lost, stopped := f.m.Lost(), f.m.Stopped()
	for {
		select {
		case l, ok := <-lost:
			if !ok {
				return
			}
			fmt.Fprintf(f.stderr, "loadgen: fleet member %d is gone (its ZooKeeper session ended); this member goes on\n", l.Index)
			f.mu.Lock()
			f.rec.Lost = append(f.rec.Lost, results.LostMember{Index: l.Index, At: l.At})
			f.mu.Unlock()
		case why, ok := <-stopped:
			if !ok {
				return
			}
			fmt.Fprintf(f.stderr, "loadgen: the fleet was stopped (%s): stopping\n", why)
			f.mu.Lock()
			f.rec.StoppedBy = why
			f.mu.Unlock()
			stopRun()
			stopped = nil
		case <-interrupted.Done():
			_ = f.m.Stop("interrupted")
			interrupted = context.Background() // told once
		}
	}
}

// Member 0 makes the run's tables and the others wait for it: the
// harness marks each table it creates as its own, and four processes
// creating one table at once would each find another's mark.
const tablesMark = "tables"

// awaitTables waits, in every member but 0, until member 0 has made the
// tables.
func (f *member) awaitTables(ctx context.Context) error {
	if f == nil || f.rec.Index == 0 {
		return nil
	}
	if err := f.m.AwaitMark(ctx, tablesMark); err != nil {
		return fmt.Errorf("waiting for member 0 to create the tables: %w", err)
	}
	return nil
}

// tablesMade tells the others, from member 0, that the tables are made.
func (f *member) tablesMade(ctx context.Context) error {
	if f == nil || f.rec.Index != 0 {
		return nil
	}
	return f.m.Mark(ctx, tablesMark)
}

// startAt is the run's StartAt: the fleet's shared instant, on this
// member's clock.
func (f *member) startAt(ctx context.Context) (time.Time, error) {
	at, err := f.m.Ready(ctx)
	if err != nil {
		return time.Time{}, fmt.Errorf("fleet: %w", err)
	}
	f.mu.Lock()
	f.rec.StartAt = at
	f.mu.Unlock()
	return f.m.Local(at), nil
}

// record is the fleet block of this member's summary.
func (f *member) record(began time.Time) *results.Fleet {
	f.mu.Lock()
	defer f.mu.Unlock()
	r := f.rec
	r.Began = began
	r.Members = append([]results.FleetMember(nil), r.Members...)
	r.Lost = append([]results.LostMember(nil), r.Lost...)
	return &r
}

// finish marks this member done, so the others do not count it lost when
// its session ends, and leaves.
func (f *member) finish() {
	if f == nil {
		return
	}
	if f.completed {
		_ = f.m.Done()
	}
	_ = f.m.Close()
}

// fleetFailed says whether err is a fleet that could not start: a member
// missing, a clock off, or a member gone before the start (exit 2).
func fleetFailed(err error) bool {
	var skew *fleet.SkewError
	var missing *fleet.MissingError
	var lost *fleet.LostError
	return errors.As(err, &skew) || errors.As(err, &missing) || errors.As(err, &lost)
}
