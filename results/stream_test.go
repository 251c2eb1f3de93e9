package results

import (
	"bytes"
	"encoding/csv"
	"errors"
	"reflect"
	"testing"
	"time"

	"commentbench/store"
)

func readCSV(t *testing.T, b *bytes.Buffer) [][]string {
	t.Helper()
	rows, err := csv.NewReader(b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func TestTimelineCSV(t *testing.T) {
	var b bytes.Buffer
	tw := NewTimelineWriter(&b, t0, time.Second)
	iv := Interval{Start: t0, End: t0.Add(time.Second), Ops: []OpInterval{
		{Op: "read", Count: 10, P50: 1500 * time.Microsecond, P99: 3 * time.Millisecond, Max: time.Second},
		{Op: "idle"},
		{Op: "write", Errors: 2},
	}}
	if err := tw.Write(iv); err != nil {
		t.Fatal(err)
	}
	// The run ends 400 ms into its second interval: that one is partial.
	iv.Start, iv.End = iv.End, iv.End.Add(400*time.Millisecond)
	iv.Ops = iv.Ops[:2]
	if err := tw.Write(iv); err != nil {
		t.Fatal(err)
	}
	rows := readCSV(t, &b)
	if !reflect.DeepEqual(rows[0], timelineHeader) || len(rows) != 4 {
		t.Fatalf("rows %q", rows)
	}
	want := []string{"0.000", "1.000", "0", "read", "10", "1.500", "3.000", "0.000", "1000.000", "0"}
	if !reflect.DeepEqual(rows[1], want) || rows[2][3] != "write" || rows[2][2] != "0" {
		t.Errorf("rows %q", rows)
	}
	if got := rows[3][:3]; !reflect.DeepEqual(got, []string{"1.000", "1.400", "1"}) {
		t.Errorf("last interval: start, end, partial %q, want 1.000 1.400 1", got)
	}
}

// A hundredth of the interval is timer jitter; less than that left out of
// it is a partial interval, whichever interval it is.
func TestPartialInterval(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{{time.Second, "0"}, {995 * time.Millisecond, "0"}, {1010 * time.Millisecond, "0"},
		{989 * time.Millisecond, "1"}, {958 * time.Millisecond, "1"}, {time.Millisecond, "1"}} {
		if got := partial(c.d, time.Second); got != c.want {
			t.Errorf("partial(%v of 1s) = %s, want %s", c.d, got, c.want)
		}
	}
	if got := partial(time.Millisecond, 0); got != "0" {
		t.Errorf("no interval known: partial %s, want 0", got)
	}
}

func TestRegionsCSV(t *testing.T) {
	var b bytes.Buffer
	rw := NewRegionsWriter(&b, t0, time.Second)
	stat := func(name string, start, end string, c store.Counters) store.RegionStat {
		var e []byte
		if end != "" {
			e = []byte(end)
		}
		return store.RegionStat{Region: store.Region{Table: "comment", Name: name, Server: "rs1",
			Start: []byte(start), End: e}, Counters: c}
	}
	deltas := []store.RegionStat{
		stat("comment,,1.a", "", "x", store.Counters{ReadRequests: 3, RowsScanned: 7, BytesOut: 900}),
		stat("comment,x,2.b", "x", "y", store.Counters{}),
		stat("comment,y,3.c", "y", "", store.Counters{WriteRequests: 1, BytesIn: 50}),
	}
	if err := rw.Write(t0, t0.Add(time.Second), deltas); err != nil {
		t.Fatal(err)
	}
	// Idle again in the second interval, which the run's end cuts short:
	// named once is enough.
	if err := rw.Write(t0.Add(time.Second), t0.Add(1500*time.Millisecond), deltas); err != nil {
		t.Fatal(err)
	}
	rows := readCSV(t, &b)
	if !reflect.DeepEqual(rows[0], regionsHeader) || len(rows) != 6 {
		t.Fatalf("rows %q", rows)
	}
	want := []string{"0.000", "1.000", "0", "comment", "comment,,1.a", "rs1", "", "78", "3", "0", "7", "0", "900"}
	if !reflect.DeepEqual(rows[1], want) {
		t.Errorf("row 1 %q, want %q", rows[1], want)
	}
	idle := []string{"0.000", "1.000", "0", "comment", "comment,x,2.b", "rs1", "78", "79", "0", "0", "0", "0", "0"}
	if !reflect.DeepEqual(rows[2], idle) {
		t.Errorf("an idle region's first interval: %q, want %q", rows[2], idle)
	}
	if rows[3][4] != "comment,y,3.c" || rows[3][7] != "" {
		t.Errorf("row 3 %q: want the last region, its end the table's end", rows[3])
	}
	for _, r := range rows[4:] {
		if r[4] == "comment,x,2.b" {
			t.Errorf("idle region written again: %q", r)
		}
		if r[0] != "1.000" || r[1] != "1.500" || r[2] != "1" {
			t.Errorf("second interval %q: want 1.000 to 1.500, partial", r[:3])
		}
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestStreamErrorSticks(t *testing.T) {
	tw := NewTimelineWriter(failWriter{}, t0, time.Second)
	for range 2 {
		if err := tw.Write(Interval{}); err == nil {
			t.Error("write to a failing writer: no error")
		}
	}
}
