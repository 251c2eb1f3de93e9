package main

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"commentbench/results"
	"commentbench/servermodel"
	"commentbench/store"
)

// serversCSV streams servers.csv: per interval and modeled server, its
// requests, handler utilization and queue, marked modeled in the header.
type serversCSV struct {
	f     *os.File
	w     *csv.Writer
	model *servermodel.Store
	start time.Time
	last  map[string]servermodel.ServerStat
	err   error
	// prevBusy and lastInterval are the interval before the last written:
	// what a step's busiest server is measured against.
	prevBusy     map[string]time.Duration
	lastInterval time.Duration
}

func newServersCSV(dir string, model *servermodel.Store, start time.Time, base map[string]servermodel.ServerStat) *serversCSV {
	s := &serversCSV{model: model, start: start, last: map[string]servermodel.ServerStat{}}
	s.f, s.err = os.Create(filepath.Join(dir, "servers.csv"))
	if s.err == nil {
		s.w = csv.NewWriter(s.f)
		s.err = s.w.Write([]string{"end_s", "server", "requests", "utilization_modeled", "queue_modeled"})
	}
	for name, st := range base { // the warm-up is not the steady phase's
		s.last[name] = st
	}
	return s
}

func (s *serversCSV) write(iv results.Interval) error {
	if s.err != nil {
		return s.err
	}
	d := iv.End.Sub(iv.Start)
	s.prevBusy, s.lastInterval = map[string]time.Duration{}, d
	for _, st := range s.model.Stats() {
		prev := s.last[st.Server]
		s.prevBusy[st.Server] = prev.Busy
		s.last[st.Server] = st
		u := servermodel.Utilization(st.Busy-prev.Busy, d, st.Handlers)
		s.err = s.w.Write([]string{strconv.FormatFloat(iv.End.Sub(s.start).Seconds(), 'f', 3, 64), st.Server,
			strconv.FormatInt(st.Requests-prev.Requests, 10), strconv.FormatFloat(u, 'f', 3, 64), strconv.FormatInt(st.Waiting, 10)})
		if s.err != nil {
			return s.err
		}
	}
	s.w.Flush()
	return s.w.Error()
}

func (s *serversCSV) close() error {
	if s.f == nil {
		return s.err
	}
	s.w.Flush()
	if err := s.f.Close(); s.err == nil {
		s.err = err
	}
	return s.err
}

// modeledServers sums the model over the steady phase, for the summary.
func modeledServers(model *servermodel.Store, base map[string]servermodel.ServerStat, d time.Duration) []results.ServerLoad {
	var out []results.ServerLoad
	for _, st := range model.Stats() {
		prev := base[st.Server]
		out = append(out, results.ServerLoad{Server: st.Server, Requests: st.Requests - prev.Requests,
			Utilization: servermodel.Utilization(st.Busy-prev.Busy, d, st.Handlers), Modeled: true})
	}
	return out
}

// busiest is an interval's busiest server: by modeled utilization when the
// server model is on, else by its share of the interval's requests.
func busiest(regions []store.RegionStat, out *outputs) *results.ServerShare {
	if out.model != nil && out.servers != nil {
		var top *results.ServerShare
		for _, st := range out.model.Stats() {
			prev := out.servers.prevBusy[st.Server]
			u := servermodel.Utilization(st.Busy-prev, out.servers.lastInterval, st.Handlers)
			if top == nil || u > top.Value {
				top = &results.ServerShare{Server: st.Server, Value: u, Modeled: true}
			}
		}
		return top
	}
	per := map[string]uint64{}
	var total uint64
	for _, r := range regions {
		n := r.ReadRequests + r.WriteRequests
		per[r.Server] += n
		total += n
	}
	var top *results.ServerShare
	for sv, n := range per {
		if total > 0 && (top == nil || float64(n)/float64(total) > top.Value) {
			top = &results.ServerShare{Server: sv, Value: float64(n) / float64(total)}
		}
	}
	return top
}

// hottestRegion is the region that took the most of an interval's
// requests, and its share.
func hottestRegion(regions []store.RegionStat) results.RegionHeat {
	var top results.RegionHeat
	var most, total uint64
	for _, r := range regions {
		n := r.ReadRequests + r.WriteRequests
		if n > most {
			most, top.Region = n, r.Name
		}
		total += n
	}
	if total > 0 {
		top.Share = float64(most) / float64(total)
	}
	return top
}

// busiestLine is the live status's word on the modeled servers: the one
// busiest over the last interval, its handlers' utilization and its queue.
func busiestLine(out *outputs, regions []store.RegionStat) string {
	if out.model == nil || out.servers == nil {
		return ""
	}
	b := busiest(regions, out)
	if b == nil {
		return ""
	}
	var queued int64
	for _, st := range out.model.Stats() {
		if st.Server == b.Server {
			queued = st.Waiting
		}
	}
	return fmt.Sprintf("busiest %s %.0f%% (modeled), %d queued", b.Server, 100*b.Value, queued)
}
