package embedded

import (
	"encoding/binary"
	"errors"
	"sync"
	"testing"

	"commentbench/store"
)

func counter(t *testing.T, e *Engine, table, row, q string) int64 {
	t.Helper()
	got, _, err := e.Read(ctx, table, []store.Read{{Row: []byte(row), Columns: [][]byte{[]byte(q)}}})
	if err != nil {
		t.Fatal(err)
	}
	v, ok := got[0].Value([]byte(q))
	if !ok {
		return 0
	}
	if len(v) != 8 {
		t.Fatalf("counter %s holds %d bytes", q, len(v))
	}
	return int64(binary.BigEndian.Uint64(v))
}

func inc(q string, d int64) store.Increment { return store.Increment{Qualifier: []byte(q), Delta: d} }

// An increment lands with the row's puts, counts from 0 where there is no
// counter, and adds to what is there; one call incrementing a counter
// twice adds both.
func TestMutateIncrements(t *testing.T) {
	e := openMem(t, Options{DisableSplits: true})
	mustCreate(t, e, "t")
	must := func(muts ...store.Mutation) {
		t.Helper()
		if err := e.Mutate(ctx, "t", muts...); err != nil {
			t.Fatal(err)
		}
	}
	must(store.Mutation{Row: []byte("r"), Cells: []store.Cell{cell("e1", "x")}, Increments: []store.Increment{inc("n", 1)}})
	must(store.Mutation{Row: []byte("r"), Cells: []store.Cell{cell("e2", "y")}, Increments: []store.Increment{inc("n", 1), inc("m", 5)}})
	must(store.Mutation{Row: []byte("r"), Increments: []store.Increment{inc("n", 10)}},
		store.Mutation{Row: []byte("r"), Increments: []store.Increment{inc("n", -3)}})
	if n, m := counter(t, e, "t", "r", "n"), counter(t, e, "t", "r", "m"); n != 9 || m != 5 {
		t.Errorf("counters n %d, m %d; want 9, 5", n, m)
	}
	if got := cellsOf(mustGet(t, e, "t", "r")); len(mustGet(t, e, "t", "r").Cells) != 4 {
		t.Errorf("row %s, want e1, e2, m and n", got)
	}
	// Counted writes from many writers at once sum exactly: the row's lock
	// holds each read of the counter to its write.
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 50 {
				q := []byte{'c', byte(w), byte(i)}
				if err := e.Mutate(ctx, "t", store.Mutation{Row: []byte("hot"), Cells: []store.Cell{{Qualifier: q, Value: q}},
					Increments: []store.Increment{inc("count", 1)}}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if n := counter(t, e, "t", "hot", "count"); n != 400 {
		t.Errorf("400 counted writes count %d", n)
	}
}

func TestMutateIncrementRefusals(t *testing.T) {
	e := openMem(t, Options{DisableSplits: true})
	mustCreate(t, e, "t")
	mustPut(t, e, "t", "r", cell("short", "abc"))
	for name, m := range map[string]store.Mutation{
		"put and incremented":     {Row: []byte("r"), Cells: []store.Cell{cell("n", "x")}, Increments: []store.Increment{inc("n", 1)}},
		"deleted and incremented": {Row: []byte("r"), DeleteColumns: [][]byte{[]byte("n")}, Increments: []store.Increment{inc("n", 1)}},
		"no qualifier":            {Row: []byte("r"), Increments: []store.Increment{inc("", 1)}},
	} {
		if err := e.Mutate(ctx, "t", m); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("%s: %v, want ErrInvalid", name, err)
		}
	}
	err := e.Mutate(ctx, "t", store.Mutation{Row: []byte("r"), Cells: []store.Cell{cell("p", "1")}, Increments: []store.Increment{inc("short", 1)}})
	if err == nil {
		t.Fatal("an increment of a 3-byte value succeeded")
	}
	if _, ok := mustGet(t, e, "t", "r").Value([]byte("p")); ok {
		t.Error("a failed increment's put landed")
	}
}

// A scan is weighed a call's worth of cells at a time, as HBase's server
// weighs them: with a max row size above a call's (2 MiB) no scan meets
// it, while a Get of the same row does.
func TestScanWeighsACallAtATime(t *testing.T) {
	e := openMem(t, Options{DisableSplits: true, MaxRowSize: 3 << 20})
	mustCreate(t, e, "t")
	cells := wideCells(400, 10<<10) // 4 MiB
	for i := 0; i < len(cells); i += 50 {
		mustPut(t, e, "t", "big", cells[i:i+50]...)
	}
	if _, err := e.Get(ctx, "t", []byte("big")); !errors.Is(err, store.ErrRowTooBig) {
		t.Errorf("Get of a 4 MiB row past a 3 MiB limit: %v, want ErrRowTooBig", err)
	}
	got, _ := chunks(t, e, "t", store.Scan{})
	if len(got) != 1 || len(got[0].Cells) != 400 {
		t.Errorf("a scan of the row gave %d rows, want it whole", len(got))
	}
}

// A counter keeps one version on disk however often it is incremented,
// as HBase's flush leaves one of a table of one version: a hot row's count
// is no trail of versions for its reads to walk.
func TestIncrementKeepsOneVersion(t *testing.T) {
	clk := newClock(100)
	e := openMem(t, Options{Now: clk.now, DisableSplits: true})
	mustCreate(t, e, "t")
	for range 5 {
		clk.set(clk.now() + 1)
		if err := e.Mutate(ctx, "t", store.Mutation{Row: []byte("r"), Increments: []store.Increment{inc("n", 2)}}); err != nil {
			t.Fatal(err)
		}
	}
	if got := rawEntries(t, e, "t", "r"); got != "n@105" {
		t.Errorf("Pebble holds %s, want n@105 alone", got)
	}
	if n := counter(t, e, "t", "r", "n"); n != 10 {
		t.Errorf("counter %d, want 10", n)
	}
}
