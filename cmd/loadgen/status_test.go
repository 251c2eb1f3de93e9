package main

import (
	"testing"
	"time"

	"commentbench/workload"
)

// A load-phase tick shows the comments loaded of those to load, with the
// load's own clock; the warm-up's and the run's figures wait for theirs.
func TestStatusOfLoad(t *testing.T) {
	sc, _ := workload.Preset("steady")
	tick := workload.Tick{Phase: "load", Elapsed: 7 * time.Second, Loaded: 1234, Arrivals: 99}
	s := status(sc, tick, 2, 5000)
	if s.Phase != "load" || s.Ops != 1234 || s.OpsTotal != 5000 || s.Elapsed != 7*time.Second || s.Errors != 2 || s.Total != 0 {
		t.Errorf("status %+v; want load, 1234 of 5000 at 7s, 2 errors, no run length", s)
	}
	tick.Phase = "steady"
	if s := status(sc, tick, 2, 5000); s.Ops != 99 || s.OpsTotal != sc.Ops || s.Elapsed != 7*time.Second+time.Duration(sc.Warmup) {
		t.Errorf("steady status %+v; want the run's arrivals and clock", s)
	}
}
