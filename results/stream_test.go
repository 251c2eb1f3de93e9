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
	tw := NewTimelineWriter(&b, t0)
	iv := Interval{Start: t0, End: t0.Add(1500 * time.Millisecond), Ops: []OpInterval{
		{Op: "read", Count: 10, P50: 1500 * time.Microsecond, P99: 3 * time.Millisecond, Max: time.Second},
		{Op: "idle"},
		{Op: "write", Errors: 2},
	}}
	if err := tw.Write(iv); err != nil {
		t.Fatal(err)
	}
	iv.End = iv.End.Add(time.Second)
	iv.Ops = iv.Ops[:2]
	if err := tw.Write(iv); err != nil {
		t.Fatal(err)
	}
	rows := readCSV(t, &b)
	if !reflect.DeepEqual(rows[0], timelineHeader) || len(rows) != 4 {
		t.Fatalf("rows %q", rows)
	}
	want := []string{"1.500", "read", "10", "1.500", "3.000", "0.000", "1000.000", "0"}
	if !reflect.DeepEqual(rows[1], want) || rows[2][1] != "write" || rows[3][0] != "2.500" {
		t.Errorf("rows %q", rows)
	}
}

func TestRegionsCSV(t *testing.T) {
	var b bytes.Buffer
	rw := NewRegionsWriter(&b, t0)
	stat := func(name string, c store.Counters) store.RegionStat {
		return store.RegionStat{Region: store.Region{Table: "comment", Name: name, Server: "rs1"}, Counters: c}
	}
	deltas := []store.RegionStat{
		stat("comment,,1.a", store.Counters{ReadRequests: 3, RowsScanned: 7, BytesOut: 900}),
		stat("comment,x,2.b", store.Counters{}),
		stat("comment,y,3.c", store.Counters{WriteRequests: 1, BytesIn: 50}),
	}
	if err := rw.Write(t0.Add(time.Second), deltas); err != nil {
		t.Fatal(err)
	}
	rows := readCSV(t, &b)
	if !reflect.DeepEqual(rows[0], regionsHeader) || len(rows) != 3 {
		t.Fatalf("rows %q", rows)
	}
	want := []string{"1.000", "comment", "comment,,1.a", "rs1", "3", "0", "7", "0", "900"}
	if !reflect.DeepEqual(rows[1], want) || rows[2][2] != "comment,y,3.c" {
		t.Errorf("rows %q", rows)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestStreamErrorSticks(t *testing.T) {
	tw := NewTimelineWriter(failWriter{}, t0)
	for range 2 {
		if err := tw.Write(Interval{}); err == nil {
			t.Error("write to a failing writer: no error")
		}
	}
}
