package main

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"commentbench/hbase/wire"
)

// action is one failure to rehearse: a verb and its arguments.
type action struct {
	verb string
	args []string
}

func (a action) String() string { return strings.Join(append([]string{a.verb}, a.args...), " ") }

// fault is an action due some time after start.
type fault struct {
	after time.Duration
	act   action
}

// arity is how many arguments each verb takes: at least, at most.
var arity = map[string][2]int{
	"kill":   {1, 1},
	"split":  {1, 2},
	"move":   {1, 2},
	"busy":   {1, 1},
	"status": {0, 0},
}

func newAction(verb string, args []string) (action, error) {
	n, ok := arity[verb]
	if !ok {
		return action{}, fmt.Errorf("unknown action %q (kill, split, move, busy, status)", verb)
	}
	if len(args) < n[0] || len(args) > n[1] {
		return action{}, fmt.Errorf("%s takes %d to %d arguments, got %d", verb, n[0], n[1], len(args))
	}
	if verb == "busy" {
		if c, err := strconv.Atoi(args[0]); err != nil || c < 1 {
			return action{}, fmt.Errorf("busy %q: want a count of calls", args[0])
		}
	}
	return action{verb: verb, args: args}, nil
}

// parseSchedule reads --fault: AFTER:ACTION[:ARG...] items, comma
// separated, sorted by when they are due.
func parseSchedule(s string) ([]fault, error) {
	var out []fault
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item == "" {
			continue
		}
		parts := strings.Split(item, ":")
		if len(parts) < 2 {
			return nil, fmt.Errorf("%q: want AFTER:ACTION[:ARG...]", item)
		}
		after, err := time.ParseDuration(parts[0])
		if err != nil || after < 0 {
			return nil, fmt.Errorf("%q: %q is not a duration such as 20s", item, parts[0])
		}
		if parts[1] == "status" {
			return nil, fmt.Errorf("%q: status is a stdin command", item)
		}
		a, err := newAction(parts[1], parts[2:])
		if err != nil {
			return nil, fmt.Errorf("%q: %w", item, err)
		}
		out = append(out, fault{after: after, act: a})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].after < out[j].after })
	return out, nil
}

// parseCommand reads a stdin command: ACTION ARG..., space separated.
func parseCommand(line string) (action, error) {
	f := strings.Fields(line)
	return newAction(f[0], f[1:])
}

// runSchedule performs each fault when it is due, reporting on stderr.
func (mc *minicluster) runSchedule(ctx context.Context, faults []fault, stderr io.Writer) {
	begin := time.Now()
	for _, f := range faults {
		t := time.NewTimer(time.Until(begin.Add(f.after)))
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		msg, err := mc.do(f.act)
		if err != nil {
			fmt.Fprintf(stderr, "minicluster: %v: %s: %v\n", f.after, f.act, err)
			continue
		}
		fmt.Fprintf(stderr, "minicluster: %v: %s\n", f.after, msg)
	}
}

// do performs an action on the cluster and says what it did.
func (mc *minicluster) do(a action) (string, error) {
	ctx := context.Background()
	switch a.verb {
	case "kill":
		if err := mc.cl.KillServer(a.args[0]); err != nil {
			return "", err
		}
		return "killed " + a.args[0], nil
	case "split":
		var key []byte
		if len(a.args) == 2 {
			key = []byte(a.args[1])
		}
		before := mc.regionCount(a.args[0])
		if err := mc.eng.SplitRegion(ctx, a.args[0], key); err != nil {
			return "", err
		}
		return fmt.Sprintf("split %s: %d regions, now %d", a.args[0], before, mc.regionCount(a.args[0])), nil
	case "move":
		return mc.moveTable(a.args[0], a.args[1:])
	case "busy":
		n, _ := strconv.Atoi(a.args[0]) // checked by newAction
		mc.cl.FailNext(n, wire.ExcRegionTooBusy)
		return fmt.Sprintf("the next %d calls fail with RegionTooBusyException", n), nil
	case "status":
		return mc.status(), nil
	}
	return "", fmt.Errorf("unknown action %q", a.verb)
}

func (mc *minicluster) regionCount(table string) int {
	rs, _ := mc.eng.Regions(context.Background(), table)
	return len(rs)
}

// moveTable moves every region of table to server, or each to the next
// live server.
func (mc *minicluster) moveTable(table string, server []string) (string, error) {
	rs, err := mc.eng.Regions(context.Background(), table)
	if err != nil {
		return "", err
	}
	dest := ""
	if len(server) == 1 {
		dest = server[0]
	}
	for _, r := range rs {
		if err := mc.cl.MoveRegion(r.Name, dest); err != nil {
			return "", err
		}
	}
	return fmt.Sprintf("moved %d regions of %s", len(rs), table), nil
}

// status lists each server, live or dead, with its region count.
func (mc *minicluster) status() string {
	stats, _ := mc.eng.RegionStats(context.Background())
	count := map[string]int{}
	for _, s := range stats {
		count[s.Server]++
	}
	var b strings.Builder
	for _, s := range mc.eng.Servers() {
		addr, live := mc.cl.ServerAddr(s)
		state := "dead"
		if live {
			state = addr
		}
		fmt.Fprintf(&b, "%s %s %d regions", s, state, count[s])
		if s == mc.cl.MetaServer() {
			b.WriteString(" (hbase:meta)")
		}
		b.WriteByte('\n')
	}
	return strings.TrimSuffix(b.String(), "\n")
}
