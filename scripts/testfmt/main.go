// Command testfmt shows `go test -json` as it runs, for `make test`: a line
// per package as it finishes, a line per finished top-level test of the
// packages named by -each (the long end-to-end package, so its minutes are
// not silent), skipped tests with their reason, and, for whatever fails,
// its whole output. It exits 1 when anything failed. With -recap FILE it
// also appends to FILE a few lines per failure (the test's name and the
// lines its assertions printed), so the end of a long log, the part a CI
// page shows, still says what failed.
//
//	go test -json ./... | testfmt -each commentbench/e2e -recap .data/test-recap
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// event is one line of test2json's output (go doc test2json); build
// events carry ImportPath instead of Package.
type event struct {
	Action      string
	Package     string
	ImportPath  string
	Test        string
	Elapsed     float64
	Output      string
	FailedBuild string
}

func main() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }

// run formats stdin's events and returns the exit status: 1 when a test
// failed or the recap could not be written.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("testfmt", flag.ContinueOnError)
	fs.SetOutput(stderr)
	each := fs.String("each", "", "comma-separated packages whose every top-level test gets a line")
	recap := fs.String("recap", "", "a file to append each failure's short form to")
	tag := fs.String("tag", "", "a word after every package's name (-race), when one run's packages come twice")
	since := fs.Int64("since", 0, "the clock's zero in Unix seconds, when two runs share a log (default: now)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	f := newFormatter(stdout, strings.Split(*each, ","), time.Now)
	if *tag != "" {
		f.tag = " " + *tag
	}
	if *since > 0 {
		f.start = time.Unix(*since, 0)
	}
	err := f.read(stdin)
	if err == nil && *recap != "" && len(f.recap) > 0 {
		err = appendFile(*recap, strings.Join(f.recap, ""))
	}
	switch {
	case err != nil:
		fmt.Fprintln(stderr, "testfmt:", err)
		return 1
	case f.failed:
		return 1
	}
	return 0
}

func appendFile(path, s string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("recap: %w", err)
	}
	if _, err := f.WriteString(s); err != nil {
		f.Close()
		return fmt.Errorf("recap %s: %w", path, err)
	}
	return f.Close()
}

type formatter struct {
	w      io.Writer
	each   map[string]bool
	now    func() time.Time
	start  time.Time
	failed bool
	// tag follows every package's name: " -race", or "".
	tag string
	// recap holds each failure's short form, in the order they failed.
	recap []string
	// out holds output not yet shown, by package, then top-level test ("":
	// the package's own), to print if it fails.
	out map[string]map[string]*strings.Builder
}

func newFormatter(w io.Writer, each []string, now func() time.Time) *formatter {
	f := &formatter{w: w, each: map[string]bool{}, now: now, start: now(), out: map[string]map[string]*strings.Builder{}}
	for _, p := range each {
		f.each[strings.TrimSpace(p)] = true
	}
	return f
}

// read formats events until r ends. A line that is not an event (go
// test's own complaints) is passed through.
func (f *formatter) read(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil || e.Action == "" {
			f.printf("%s\n", sc.Text())
			continue
		}
		f.handle(e)
	}
	return sc.Err()
}

func (f *formatter) handle(e event) {
	top, _, _ := strings.Cut(e.Test, "/")
	switch e.Action {
	case "output", "build-output":
		f.buffer(e.Package+e.ImportPath, top).WriteString(e.Output)
	case "build-fail":
		f.failed = true
		out := f.take(e.ImportPath, "")
		f.printf("%s BUILD FAILED %s%s\n%s", f.clock(), e.ImportPath, f.tag, out)
		f.recap = append(f.recap, fmt.Sprintf("BUILD FAILED %s%s\n%s", e.ImportPath, f.tag, indent(gist(out))))
	case "pass", "fail", "skip":
		if e.Test == "" {
			f.packageDone(e)
		} else if e.Test == top {
			f.testDone(e)
		}
	}
}

func (f *formatter) buffer(pkg, test string) *strings.Builder {
	if f.out[pkg] == nil {
		f.out[pkg] = map[string]*strings.Builder{}
	}
	b := f.out[pkg][test]
	if b == nil {
		b = &strings.Builder{}
		f.out[pkg][test] = b
	}
	return b
}

// take returns and forgets what a test (or a package, test "") printed.
func (f *formatter) take(pkg, test string) string {
	b := f.out[pkg][test]
	if b == nil {
		return ""
	}
	delete(f.out[pkg], test)
	return b.String()
}

func (f *formatter) testDone(e event) {
	out := f.take(e.Package, e.Test)
	switch {
	case e.Action == "fail":
		f.failed = true
		f.printf("%s FAIL %s%s %s (%.1fs)\n%s", f.clock(), short(e.Package), f.tag, e.Test, e.Elapsed, indent(out))
		f.recap = append(f.recap, fmt.Sprintf("FAIL %s%s %s\n%s", short(e.Package), f.tag, e.Test, indent(gist(out))))
	case e.Action == "skip":
		f.printf("%s skip %s%s %s: %s\n", f.clock(), short(e.Package), f.tag, e.Test, skipReason(out))
	case f.each[e.Package]:
		f.printf("%s      %s%s %s (%.1fs)\n", f.clock(), short(e.Package), f.tag, e.Test, e.Elapsed)
	}
}

func (f *formatter) packageDone(e event) {
	own := f.take(e.Package, "")
	delete(f.out, e.Package)
	switch {
	case e.Action == "fail":
		f.failed = true
		f.printf("%s FAIL %s%s (%.1fs)\n%s", f.clock(), e.Package, f.tag, e.Elapsed, indent(own))
		if g := gist(own); g != "" {
			f.recap = append(f.recap, fmt.Sprintf("FAIL %s%s\n%s", e.Package, f.tag, indent(g)))
		}
	case strings.Contains(own, "[no test files]"):
	default:
		f.printf("%s ok   %s%s (%.1fs)\n", f.clock(), e.Package, f.tag, e.Elapsed)
	}
}

// clock is the time since the tests began, so a slow stretch shows.
func (f *formatter) clock() string {
	d := f.now().Sub(f.start).Round(time.Second)
	return fmt.Sprintf("[%2d:%02d]", int(d.Minutes()), int(d.Seconds())%60)
}

func (f *formatter) printf(format string, a ...any) { fmt.Fprintf(f.w, format, a...) }

func short(pkg string) string {
	_, after, ok := strings.Cut(pkg, "/")
	if !ok {
		return pkg
	}
	return after
}

// skipReason is the message t.Skip printed: the output's last line that
// is not the "--- SKIP" line.
func skipReason(out string) string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l != "" && !strings.HasPrefix(l, "--- SKIP") && !strings.HasPrefix(l, "=== ") {
			return l
		}
	}
	return "no reason given"
}

func indent(s string) string {
	if s == "" {
		return ""
	}
	return "    " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n    ") + "\n"
}

// gistLines bounds a failure's recap: enough for the assertion and its
// context, not a whole log.
const gistLines = 10

// gist is what a failure said, short: the lines its tests logged from a
// _test.go file (t.Errorf and t.Fatal say where they are) with the more
// indented lines that continue them; when there are none (a panic, a
// timeout), the output's last lines. At most gistLines, the last ones, as
// a test's fatal line comes last.
func gist(out string) string {
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	var keep []string
	depth := -1 // the indent of the assertion being continued, -1 for none
	for _, l := range lines {
		t := strings.TrimSpace(l)
		in := len(l) - len(strings.TrimLeft(l, " \t"))
		switch {
		case strings.Contains(t, "_test.go:"):
			keep, depth = append(keep, t), in
		case depth >= 0 && in > depth && t != "":
			keep = append(keep, "  "+t)
		default:
			depth = -1
		}
	}
	if len(keep) == 0 {
		for _, l := range lines {
			if t := strings.TrimSpace(l); !framing(t) {
				keep = append(keep, t)
			}
		}
	}
	if len(keep) > gistLines {
		keep = append([]string{fmt.Sprintf("(%d lines before these)", len(keep)-gistLines+1)}, keep[len(keep)-gistLines+1:]...)
	}
	return strings.Join(keep, "\n")
}

// framing is go test's own line around a test's output ("=== RUN",
// "--- FAIL", a package's "FAIL" and its timing), not what the test said.
func framing(line string) bool {
	return line == "" || line == "FAIL" || strings.HasPrefix(line, "FAIL\t") ||
		strings.HasPrefix(line, "=== ") || strings.HasPrefix(line, "--- ")
}
