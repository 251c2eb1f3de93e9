package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A session of go test -json events, two packages interleaved as go test
// streams them, with a pass, a skip, a failure with a subtest, and a
// package that did not build.
const session = `{"Action":"start","Package":"m/e2e"}
{"Action":"start","Package":"m/unit"}
{"Action":"run","Package":"m/e2e","Test":"TestSlow"}
{"Action":"output","Package":"m/e2e","Test":"TestSlow","Output":"=== RUN   TestSlow\n"}
{"Action":"run","Package":"m/unit","Test":"TestA"}
{"Action":"output","Package":"m/unit","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"output","Package":"m/unit","Test":"TestA/sub","Output":"    a_test.go:9: got 1, want 2\n"}
{"Action":"fail","Package":"m/unit","Test":"TestA/sub","Elapsed":0.1}
{"Action":"fail","Package":"m/unit","Test":"TestA","Elapsed":0.2}
{"Action":"output","Package":"m/e2e","Test":"TestSlow","Output":"--- PASS: TestSlow (12.30s)\n"}
{"Action":"pass","Package":"m/e2e","Test":"TestSlow","Elapsed":12.3}
{"Action":"output","Package":"m/e2e","Test":"TestZK","Output":"    zk_test.go:5: COMMENTBENCH_ZK is not set\n"}
{"Action":"output","Package":"m/e2e","Test":"TestZK","Output":"--- SKIP: TestZK (0.00s)\n"}
{"Action":"skip","Package":"m/e2e","Test":"TestZK","Elapsed":0}
{"Action":"output","Package":"m/unit","Output":"FAIL\n"}
{"Action":"fail","Package":"m/unit","Elapsed":0.5}
{"Action":"pass","Package":"m/e2e","Elapsed":14}
{"Action":"output","Package":"m/quiet","Output":"?   \tm/quiet\t[no test files]\n"}
{"Action":"skip","Package":"m/quiet","Elapsed":0}
{"ImportPath":"m/broken [m/broken.test]","Action":"build-output","Output":"broken.go:3:1: syntax error\n"}
{"ImportPath":"m/broken [m/broken.test]","Action":"build-fail"}
go: warning: something go test said itself
`

func format(t *testing.T, in string, each ...string) (string, bool) {
	t.Helper()
	var b strings.Builder
	at := time.Unix(0, 0)
	f := newFormatter(&b, each, func() time.Time { at = at.Add(time.Second); return at })
	if err := f.read(strings.NewReader(in)); err != nil {
		t.Fatal(err)
	}
	return b.String(), f.failed
}

func TestFormat(t *testing.T) {
	out, failed := format(t, session, "m/e2e")
	if !failed {
		t.Error("a failed session reads as passed")
	}
	for _, want := range []string{
		"FAIL unit TestA (0.2s)\n    === RUN   TestA\n        a_test.go:9: got 1, want 2\n", // the failure whole, its subtest's output too
		"      e2e TestSlow (12.3s)\n", // a line per test of a package in -each
		"skip e2e TestZK: zk_test.go:5: COMMENTBENCH_ZK is not set\n",
		"FAIL m/unit (0.5s)\n    FAIL\n",
		"ok   m/e2e (14.0s)\n",
		"BUILD FAILED m/broken [m/broken.test]\nbroken.go:3:1: syntax error\n",
		"go: warning: something go test said itself\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "m/quiet") {
		t.Errorf("a package without tests shown:\n%s", out)
	}
	if !strings.HasPrefix(out, "[ 0:0") {
		t.Errorf("lines do not start with the time since the start:\n%s", out)
	}
}

// Outside -each, a passing test is not shown, only its package.
func TestFormatQuietPasses(t *testing.T) {
	out, _ := format(t, session)
	if strings.Contains(out, "TestSlow") || !strings.Contains(out, "ok   m/e2e") {
		t.Errorf("output:\n%s", out)
	}
	pass, failed := format(t, `{"Action":"pass","Package":"m/a","Test":"TestX","Elapsed":1}
{"Action":"pass","Package":"m/a","Elapsed":1}
`)
	if failed || !strings.Contains(pass, "ok   m/a (1.0s)") {
		t.Errorf("a passing session: failed %v\n%s", failed, pass)
	}
}

// The recap names each failure with what its assertions said, not go
// test's framing or the log lines around them.
func TestRecap(t *testing.T) {
	var b strings.Builder
	f := newFormatter(&b, nil, time.Now)
	if err := f.read(strings.NewReader(session)); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(f.recap, "")
	want := "FAIL unit TestA\n    a_test.go:9: got 1, want 2\n" +
		"BUILD FAILED m/broken [m/broken.test]\n    broken.go:3:1: syntax error\n"
	if got != want {
		t.Errorf("recap:\n%s\nwant:\n%s", got, want)
	}
}

func TestGist(t *testing.T) {
	for _, c := range []struct{ name, out, want string }{
		{"assertion and its continuation, logs dropped",
			"=== RUN   TestX\n    x_test.go:5: ran loadgen\n    loadgen: 120 writes/s\n    x_test.go:9: exit 1, want 0\n        stderr: boom\n--- FAIL: TestX (1.00s)\n",
			"x_test.go:5: ran loadgen\nx_test.go:9: exit 1, want 0\n  stderr: boom"},
		{"a panic: the last lines",
			"=== RUN   TestP\npanic: nil map\n\ngoroutine 7 [running]:\nFAIL\n",
			"panic: nil map\ngoroutine 7 [running]:"},
		{"only framing", "=== RUN   TestQ\n--- FAIL: TestQ (0.00s)\nFAIL\nFAIL\tm/q\t0.004s\n", ""},
	} {
		if got := gist(c.out); got != c.want {
			t.Errorf("%s: gist\n%q, want\n%q", c.name, got, c.want)
		}
	}
	var long strings.Builder
	for i := range 25 {
		fmt.Fprintf(&long, "    y_test.go:%d: bad\n", i)
	}
	got := strings.Split(gist(long.String()), "\n")
	if len(got) != gistLines || got[0] != "(16 lines before these)" || got[gistLines-1] != "y_test.go:24: bad" {
		t.Errorf("a long failure's gist: %q", got)
	}
}

// -recap appends each run's failures to the file, so the two test runs
// of make test share it; a run without failures adds nothing and exits 0.
func TestRunRecapFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "recap")
	var out, errOut strings.Builder
	for range 2 {
		if code := run([]string{"-recap", path}, strings.NewReader(session), &out, &errOut); code != 1 {
			t.Fatalf("a failed session: exit %d, want 1; %s", code, errOut.String())
		}
	}
	pass := `{"Action":"pass","Package":"m/a","Elapsed":1}` + "\n"
	if code := run([]string{"-recap", path}, strings.NewReader(pass), &out, &errOut); code != 0 {
		t.Fatalf("a passing session: exit %d, want 0", code)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(got), "FAIL unit TestA\n"); n != 2 {
		t.Errorf("the recap holds TestA %d times, want 2 (one a failed run):\n%s", n, got)
	}
	if code := run([]string{"-recap", filepath.Join(path, "no", "dir")}, strings.NewReader(session), &out, &errOut); code != 1 ||
		!strings.Contains(errOut.String(), "testfmt: recap:") {
		t.Errorf("an unwritable recap: exit %d, stderr %q", code, errOut.String())
	}
}

// -tag marks every package line, failure and recap of a run whose
// packages come twice in one log (the race detector's), and -since puts
// its clock on the other run's zero.
func TestRunTagAndSince(t *testing.T) {
	path := filepath.Join(t.TempDir(), "recap")
	var out, errOut strings.Builder
	since := time.Now().Add(-125 * time.Second).Unix()
	code := run([]string{"-tag", "-race", "-since", fmt.Sprint(since), "-each", "m/e2e", "-recap", path},
		strings.NewReader(session), &out, &errOut)
	if code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, errOut.String())
	}
	for _, want := range []string{"FAIL unit -race TestA (0.2s)", "      e2e -race TestSlow (12.3s)", "skip e2e -race TestZK:",
		"FAIL m/unit -race (0.5s)", "ok   m/e2e -race (14.0s)", "BUILD FAILED m/broken [m/broken.test] -race"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if !strings.HasPrefix(out.String(), "[ 2:0") {
		t.Errorf("the clock does not count from -since, 125 s ago:\n%s", out.String())
	}
	recap, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(recap), "FAIL unit -race TestA\n") || !strings.Contains(string(recap), "BUILD FAILED m/broken [m/broken.test] -race\n") {
		t.Errorf("the recap does not carry the tag:\n%s", recap)
	}
}
