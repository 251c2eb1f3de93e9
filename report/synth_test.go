package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"commentbench/results"
	"commentbench/spread"
	"commentbench/store"
)

// synthRun writes the run dir a long steady run leaves, without running
// one: made-up operations fed through the results package's own recorder
// and writers (so the files are loadgen's format, byte for byte), one
// interval of one second after another. It is the shape and size of a
// real run's results, not a measurement: latencies are drawn from a
// seeded log-normal per op, requests spread over five tables of eight
// regions with one hot product-listing region. The last interval is cut to
// 400 ms, as a run's end cuts it.
func synthRun(tb testing.TB, dir string, intervals int, layout string, seed uint64) {
	tb.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	s := newSynth(dir, layout, seed)
	for i := range intervals {
		d := time.Second
		if i == intervals-1 {
			d = 400 * time.Millisecond
		}
		if err := s.interval(d); err != nil {
			tb.Fatal(err)
		}
	}
	if err := s.finish(); err != nil {
		tb.Fatal(err)
	}
}

var synthOps = []string{"order-create", "comment-write", "burst-write", "multi-order-write", "product-latest",
	"product-page", "user-timeline", "rank-job", "ranked", "comment-edit",
	"action:post-comment", "action:read-listing", "action:walk-listing"}

var synthTables = []string{"comment", "order", "product-comment", "product-comment-rank", "user-comment"}

type synth struct {
	dir, layout string
	rng         *rand.Rand
	set         *results.Set
	rec         *results.Recorder
	start, at   time.Time
	tl          *results.TimelineWriter
	rw          *results.RegionsWriter
	files       []*os.File
	bufs        []*bufio.Writer
	regions     []store.Region
	loads       map[string]*spread.Load
	err         error
}

func newSynth(dir, layout string, seed uint64) *synth {
	start := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	s := &synth{dir: dir, layout: layout, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		set: results.NewSet(synthOps), start: start, at: start, loads: map[string]*spread.Load{}}
	s.rec = s.set.NewRecorder()
	tl, rw := s.create(TimelineFile), s.create(RegionsFile)
	s.tl = results.NewTimelineWriter(tl, start, time.Second)
	s.rw = results.NewRegionsWriter(rw, start, time.Second)
	bounds := []string{"", "GaA", "NAA", "TaA", "aAA", "gaA", "nAA", "taA", ""}
	for ti, t := range synthTables {
		for r := range 8 {
			reg := store.Region{Table: t, ID: uint64(ti), Server: fmt.Sprintf("rs%d", 1+(ti+r)%3),
				Name: fmt.Sprintf("%s,%s,1795435200000.%02d%02d.", t, bounds[r], ti, r), Start: []byte(bounds[r])}
			if bounds[r+1] != "" {
				reg.End = []byte(bounds[r+1])
			}
			s.regions = append(s.regions, reg)
		}
	}
	return s
}

func (s *synth) create(name string) *bufio.Writer {
	f, err := os.Create(filepath.Join(s.dir, name))
	if err != nil && s.err == nil {
		s.err = err
	}
	b := bufio.NewWriter(f)
	s.files, s.bufs = append(s.files, f), append(s.bufs, b)
	return b
}

// interval records one interval of d: about 60 operations a second per op,
// and each region's requests.
func (s *synth) interval(d time.Duration) error {
	end := s.at.Add(d)
	for op := range synthOps {
		median := 0.05 * math.Pow(2, float64(op%7)) // ms: ops of different speeds
		n := int(60 * d.Seconds())
		for range n {
			svc := time.Duration(median * math.Exp(0.9*s.rng.NormFloat64()) * float64(time.Millisecond))
			wait := time.Duration(0)
			if s.rng.IntN(50) == 0 { // now and then, a queue: latency beyond service time
				wait = time.Duration(s.rng.IntN(20)) * time.Millisecond
			}
			at := s.at.Add(time.Duration(s.rng.Int64N(int64(d))))
			s.rec.Record(op, at, at.Add(wait), at.Add(wait+svc), "")
		}
		if synthOps[op] == "product-latest" || synthOps[op] == "product-page" {
			for range n {
				n := int64(10 + s.rng.IntN(2))
				s.rec.RecordPage(op, 1, n, n)
			}
		}
	}
	iv := s.set.Collect(s.at, end)
	if err := s.tl.Write(iv); err != nil {
		return err
	}
	if err := s.rw.Write(s.at, end, s.regionDeltas(d)); err != nil {
		return err
	}
	s.at = end
	return nil
}

// regionDeltas spreads the interval's requests: the product listing's
// second region takes a hot product's writes.
func (s *synth) regionDeltas(d time.Duration) []store.RegionStat {
	out := make([]store.RegionStat, 0, len(s.regions))
	for i, r := range s.regions {
		reads, writes := uint64(s.rng.IntN(200)), uint64(s.rng.IntN(100))
		if r.Table == "product-comment" && i%8 == 1 {
			writes *= 6
		}
		reads, writes = uint64(float64(reads)*d.Seconds()), uint64(float64(writes)*d.Seconds())
		out = append(out, store.RegionStat{Region: r, Counters: store.Counters{ReadRequests: reads, WriteRequests: writes,
			RowsScanned: reads * 10, BytesIn: writes * 300, BytesOut: reads * 3000}})
		l := s.loads[r.Name]
		if l == nil {
			l = &spread.Load{Region: r}
			s.loads[r.Name] = l
		}
		l.Reads += reads
		l.Writes += writes
	}
	return out
}

func (s *synth) finish() error {
	for i, b := range s.bufs {
		if err := b.Flush(); err != nil {
			return err
		}
		if err := s.files[i].Close(); err != nil {
			return err
		}
	}
	if s.err != nil {
		return s.err
	}
	sum, err := s.set.Summary(s.start, s.at, s.config())
	if err != nil {
		return err
	}
	var loads []spread.Load
	for _, r := range s.regions {
		loads = append(loads, *s.loads[r.Name])
	}
	sum.Spread = spread.Tables(loads, []string{"rs1", "rs2", "rs3"}, nil, 3)
	sum.RunID = fmt.Sprintf("synthetic-%s", s.layout)
	sum.FillFlaws(map[string]int64{"product-comment": 3}, 3, 0)
	sum.Judge(10)
	return results.WriteSummary(s.dir, sum)
}

func (s *synth) config() json.RawMessage {
	secs := s.at.Sub(s.start).Round(time.Second)
	return json.RawMessage(fmt.Sprintf(`{"scenario":{"name":"synthetic","layout":%q,"scan":"bounded","ranks":"replace",
		"ids":"random","seed":1,"regions":8,"duration":%q,"warmup":"0s","workers":8,"interval":"1s","page_size":10},
		"backend":"embedded","servers":3,"version":"synthetic"}`, s.layout, secs.String()))
}
