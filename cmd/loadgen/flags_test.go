package main

import (
	"io"
	"strings"
	"testing"
)

// A real cluster's servers are real: a server model asked for on the
// hbase backend is refused, naming the flag; one a preset carries is left
// off there, and the run says so.
func TestServerModelOnHBase(t *testing.T) {
	base := []string{"--backend", "hbase", "--hbase-bootstrap", "127.0.0.1:1", "--out", t.TempDir() + "/out"}
	var stderr strings.Builder
	if _, code := parse(append(base, "--preset", "ci", "--server-capacity", "100"), io.Discard, &stderr); code != 2 ||
		!strings.Contains(stderr.String(), "--server-capacity models the embedded engine's servers") {
		t.Errorf("--server-capacity on hbase: exit %d\n%s", code, stderr.String())
	}
	o, code := parse(append(base, "--preset", "flash-sale"), io.Discard, io.Discard)
	if o == nil || code != 0 {
		t.Fatalf("flash-sale on hbase: exit %d", code)
	}
	if o.sc.ServerModel.On() || !strings.Contains(o.modelNote, "flash-sale's modeled servers are left off") {
		t.Errorf("flash-sale on hbase: model %+v, note %q", o.sc.ServerModel, o.modelNote)
	}
	o, _ = parse([]string{"--preset", "flash-sale", "--out", t.TempDir() + "/out"}, io.Discard, io.Discard)
	if o == nil || !o.sc.ServerModel.On() || o.modelNote != "" {
		t.Errorf("flash-sale on embedded: the preset's model should be on: %+v", o)
	}
}
