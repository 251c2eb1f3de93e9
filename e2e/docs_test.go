package e2e

// The documentation's examples are tests. TestDocs reads README.md and
// docs/*.md and runs every command they show, comparing what it prints
// with the output they quote.
//
// The convention:
//
//   - A ```sh block is commands, as a reader would paste them. The block
//     runs whole in bash, in a fresh directory that holds the repository's
//     files (symlinked) and a bin/ whose loadgen, verify and minicluster
//     are this tree's, built by TestMain. bin/ is also first on PATH.
//     `make build` does nothing there (the commands are built) and
//     `make run` runs the Makefile's recipe with those commands.
//   - A ```text block is output: what the nearest ```sh block above it,
//     in the same section (no heading between), printed on stdout. Several
//     may follow one command block. Its lines are matched in order, each
//     against one line of output; a line `...` stands for any number of
//     lines, and a line ending in ` ...` for the rest of that line. A block
//     with no `...` first (last) line starts (ends) where the output does.
//     Numbers, durations, sizes, timestamps, absolute paths, quoted keys
//     and region ranges are wildcards; words, punctuation and the order of
//     things are exact; runs of spaces are one space.
//   - An HTML comment just above a fence, `<!-- doc-test: ... -->`, holds
//     directives separated by `;`:
//     `skip: REASON` does not run the block (nor compare its output);
//     `loadgen ARGS` appends ARGS to every run of loadgen in the block (not
//     to its merge, lint, flaws, plan or report), to shorten it;
//     `exit N` expects the block to end with status N (default 0), and
//     `exit N|M` with either (a capacity run whose first step may breach
//     its SLO on a starved machine), its output compared only after N;
//     `group NAME` runs the blocks of one group in one directory, in the
//     order they appear (a later block reads what an earlier one wrote);
//     `file PATH` on another block (yaml, say) matches it against that
//     file of the repository, as output is matched.
//   - A fence says what it holds (sh, text, yaml, ...): one without is an
//     error, so no example goes untested by accident.
//
// Groups run at once, a few at a time, beside the other parallel tests,
// so the whole takes about a minute; each block is cut off after
// blockTimeout.

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

const (
	blockTimeout  = 90 * time.Second
	docsParallel  = 6
	docTestMarker = "doc-test:"
)

// notConvention lists the docs written to no such convention, and why
// their blocks are not run.
var notConvention = map[string]string{
	"docs/mutation.md": "its commands run mutation testing, most of an hour",
}

// docBlock is one fenced block of a document.
type docBlock struct {
	file    string
	line    int // the fence's line, 1-based
	lang    string
	body    []string
	section string // the heading above it
	skip    string
	loadgen string
	exits   []int // the statuses it may end with; none: 0
	group   string
	path    string // `file` directive
	outputs []*docBlock
}

func (b *docBlock) where() string { return fmt.Sprintf("%s:%d", b.file, b.line) }

var (
	fenceRe  = regexp.MustCompile("^( *)```(.*)$")
	markerRe = regexp.MustCompile(`^<!--\s*doc-test:(.*?)-->\s*$`)
)

// parseDoc splits a markdown file into its fenced blocks, with the
// directives above each and the section each is in.
func parseDoc(t *testing.T, name, text string) []*docBlock {
	var blocks []*docBlock
	lines := strings.Split(text, "\n")
	section, marker := "", ""
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if m := markerRe.FindStringSubmatch(l); m != nil {
			marker = m[1]
			continue
		}
		if strings.HasPrefix(l, "#") {
			section = l
		}
		m := fenceRe.FindStringSubmatch(l)
		if m == nil {
			if strings.TrimSpace(l) != "" {
				marker = ""
			}
			continue
		}
		indent := len(m[1])
		b := &docBlock{file: name, line: i + 1, lang: strings.TrimSpace(m[2]), section: section}
		for i++; i < len(lines); i++ {
			if strings.TrimSpace(lines[i]) == "```" {
				break
			}
			body := lines[i]
			if len(body) >= indent && strings.TrimSpace(body[:indent]) == "" {
				body = body[indent:]
			}
			b.body = append(b.body, body)
		}
		if i == len(lines) {
			t.Errorf("%s: the block is never closed", b.where())
		}
		directives, reason, skipped := strings.Cut(marker, "skip:")
		if skipped {
			b.skip = strings.TrimSpace(reason)
			if b.skip == "" {
				t.Errorf("%s: skip without a reason", b.where())
			}
		}
		for _, d := range strings.Split(directives, ";") {
			d = strings.TrimSpace(d)
			word, rest, _ := strings.Cut(d, " ")
			switch {
			case d == "":
			case word == "loadgen":
				b.loadgen = rest
			case word == "exit":
				b.exits = nil
				for _, c := range strings.Split(rest, "|") {
					n, err := strconv.Atoi(c)
					if err != nil {
						t.Errorf("%s: exit %q", b.where(), rest)
					}
					b.exits = append(b.exits, n)
				}
			case word == "group":
				b.group = rest
			case word == "file":
				b.path = rest
			default:
				t.Errorf("%s: unknown directive %q", b.where(), d)
			}
		}
		marker = ""
		blocks = append(blocks, b)
	}
	return blocks
}

// docFiles are README.md and docs/*.md, relative to the repository.
func docFiles(t *testing.T, root string) []string {
	files := []string{"README.md"}
	more, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range more {
		rel, _ := filepath.Rel(root, f)
		files = append(files, rel)
	}
	return files
}

// docGroup is the blocks that run in one directory, in order.
type docGroup struct {
	name   string
	blocks []*docBlock
	fails  []string
	logs   []string
	took   time.Duration
}

func TestDocs(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	tools := t.TempDir()
	writeDocTools(t, tools, root)

	groups := map[string]*docGroup{}
	var order []string
	for _, name := range docFiles(t, root) {
		text, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		checkLinks(t, root, name, string(text))
		if why, ok := notConvention[name]; ok {
			t.Logf("%s: not run: %s", name, why)
			continue
		}
		var last *docBlock
		for _, b := range parseDoc(t, name, string(text)) {
			switch b.lang {
			case "":
				t.Errorf("%s: a fence must say what it holds (sh, text, yaml, ...)", b.where())
			case "sh":
				last = b
				if b.skip != "" {
					t.Logf("%s: not run: %s", b.where(), b.skip)
					continue
				}
				g := b.group
				if g == "" {
					g = b.where()
				} else {
					g = name + "#" + g
				}
				if groups[g] == nil {
					groups[g] = &docGroup{name: g}
					order = append(order, g)
				}
				groups[g].blocks = append(groups[g].blocks, b)
			case "text":
				switch {
				case b.skip != "":
					t.Logf("%s: not compared: %s", b.where(), b.skip)
				case last == nil || last.section != b.section:
					t.Errorf("%s: output with no command above it in its section (mark it skip: with the reason)", b.where())
				case last.skip != "":
					// its command is not run
				default:
					last.outputs = append(last.outputs, b)
				}
			default:
				if b.path != "" {
					want, err := os.ReadFile(filepath.Join(root, b.path))
					if err != nil {
						t.Errorf("%s: %v", b.where(), err)
					} else if msg := matchOutput(b.body, splitLines(string(want))); msg != "" {
						t.Errorf("%s: the block is not %s: %s", b.where(), b.path, msg)
					}
				}
			}
		}
	}

	start := time.Now()
	sem := make(chan struct{}, docsParallel)
	var wg sync.WaitGroup
	for _, name := range order {
		g := groups[name]
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			runDocGroup(g, root, tools)
		}()
	}
	wg.Wait()
	for _, name := range order {
		g := groups[name]
		t.Run(name, func(t *testing.T) {
			for _, l := range g.logs {
				t.Log(l)
			}
			for _, f := range g.fails {
				t.Error(f)
			}
		})
	}
	t.Logf("%d groups of examples in %s", len(order), time.Since(start).Round(100*time.Millisecond))
}

// runDocGroup runs a group's blocks in order in one fresh directory.
func runDocGroup(g *docGroup, root, tools string) {
	began := time.Now()
	defer func() { g.took = time.Since(began) }()
	dir, err := os.MkdirTemp("", "commentbench-docs")
	if err != nil {
		g.fails = append(g.fails, err.Error())
		return
	}
	defer os.RemoveAll(dir)
	if err := linkRepo(dir, root, tools); err != nil {
		g.fails = append(g.fails, err.Error())
		return
	}
	for _, b := range g.blocks {
		t0 := time.Now()
		stdout, stderr, code, err := runDocBlock(b, dir, tools, root)
		g.logs = append(g.logs, fmt.Sprintf("%s: exit %d in %s", b.where(), code, time.Since(t0).Round(100*time.Millisecond)))
		script := strings.Join(b.body, "\n")
		if err != nil {
			g.fails = append(g.fails, fmt.Sprintf("%s: %v\n%s\nstdout:\n%s\nstderr:\n%s", b.where(), err, script, stdout, tail(stderr, 40)))
			return
		}
		want := b.exits
		if want == nil {
			want = []int{0}
		}
		if !slices.Contains(want, code) {
			g.fails = append(g.fails, fmt.Sprintf("%s: exit %d, want %v\n%s\nstdout:\n%s\nstderr:\n%s", b.where(), code, want, script, stdout, tail(stderr, 40)))
			return
		}
		if code != want[0] {
			// The quoted run kept up; this machine, busy, did not.
			g.logs = append(g.logs, fmt.Sprintf("%s: exit %d: output not compared with the quoted run's (exit %d)", b.where(), code, want[0]))
			continue
		}
		out := splitLines(stdout)
		for _, o := range b.outputs {
			if msg := matchOutput(o.body, out); msg != "" {
				g.fails = append(g.fails, fmt.Sprintf("%s: the output quoted at %s does not match: %s\nstdout was:\n%s", b.where(), o.where(), msg, stdout))
			}
		}
	}
}

func tail(s string, n int) string {
	l := splitLines(s)
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, "\n")
}

// runDocBlock runs one block in bash in dir, cut off after blockTimeout.
func runDocBlock(b *docBlock, dir, tools, root string) (string, string, int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), blockTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-c", strings.Join(b.body, "\n"))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"PATH="+filepath.Join(tools, "bin")+":"+os.Getenv("PATH"),
		"DOCTEST_LOADGEN_ARGS="+b.loadgen,
		"DOCTEST_ROOT="+root,
		"NO_COLOR=1",
	)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	// Whatever the block left running (a minicluster in the background)
	// goes with it.
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if ctx.Err() != nil {
		return out.String(), errb.String(), -1, fmt.Errorf("still running after %s", blockTimeout)
	}
	if ee, ok := err.(*exec.ExitError); ok {
		return out.String(), errb.String(), ee.ExitCode(), nil
	}
	if err != nil {
		return out.String(), errb.String(), -1, err
	}
	return out.String(), errb.String(), 0, nil
}

// writeDocTools writes tools/bin: the built commands behind wrappers that
// append a block's loadgen arguments, and a make that builds nothing.
func writeDocTools(t *testing.T, tools, root string) {
	bin := filepath.Join(tools, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	scripts := map[string]string{
		"loadgen": `#!/bin/sh
case "$1" in merge|lint|flaws|plan|report) exec ` + binDir + `/loadgen "$@";; esac
exec ` + binDir + `/loadgen "$@" $DOCTEST_LOADGEN_ARGS
`,
		"verify":      "#!/bin/sh\nexec " + binDir + "/verify \"$@\"\n",
		"minicluster": "#!/bin/sh\nexec " + binDir + "/minicluster \"$@\"\n",
	}
	// make: build is done (TestMain built the commands); run is the
	// Makefile's recipe with them.
	realMake, err := exec.LookPath("make")
	if err != nil {
		t.Fatal(err)
	}
	scripts["make"] = `#!/bin/sh
case "$*" in
build) exit 0 ;;
run) exec env -u MAKEFLAGS -u MAKELEVEL ` + realMake + ` --no-print-directory -f "$DOCTEST_ROOT/Makefile" -o build run ;;
*) echo "doc test: make $* is not run here: mark its block skip: with the reason" >&2; exit 97 ;;
esac
`
	for name, s := range scripts {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(s), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// linkRepo makes dir look like the repository: its files symlinked, bin/
// the wrappers.
func linkRepo(dir, root, tools string) error {
	entries, err := os.ReadDir(root)
	if err != nil {
		return err
	}
	for _, e := range entries {
		switch e.Name() {
		case "bin", ".data", ".git", "results":
			continue
		}
		if err := os.Symlink(filepath.Join(root, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return os.Symlink(filepath.Join(tools, "bin"), filepath.Join(dir, "bin"))
}

func splitLines(s string) []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out
}

var (
	stampRe  = regexp.MustCompile(`\d{4}-\d\d-\d\d[ T]\d\d:\d\d(:\d\d(\.\d+)?)?Z?`)
	rangeRe  = regexp.MustCompile(`\[(start|[\w-]*\["[^"]*"\]|"[^"]*"), (end|[\w-]*\["[^"]*"\]|"[^"]*")\)`)
	quotedRe = regexp.MustCompile(`"(\\.|[^"\\])*"`)
	absRe    = regexp.MustCompile(`(^|[\s(=:])/[^\s)]*`)
	// a number, with its thousands and decimals, and its unit when one is
	// attached (durations, sizes, ratios), or a size's unit after a space
	numRe = regexp.MustCompile(`[-+]?\d[\d,]*(\.\d+)?((ns|µs|us|ms|h|m|s|KiB|MiB|GiB|TiB|K|M|G|B|x)\b|(ns|µs|us|ms|h|m|s)(\d[\d.]*(ns|µs|us|ms|h|m|s))+)?( (B|KiB|MiB|GiB|TiB)\b)?`)
)

// normLine is a line with its variable parts made wildcards (#) and its
// spaces collapsed.
func normLine(s string) string {
	s = stampRe.ReplaceAllString(s, "#")
	s = rangeRe.ReplaceAllString(s, "[#)")
	s = quotedRe.ReplaceAllString(s, `"#"`)
	s = absRe.ReplaceAllString(s, "$1#")
	s = numRe.ReplaceAllString(s, "#")
	return strings.Join(strings.Fields(s), " ")
}

// lineMatches says whether an output line is what a quoted one says.
func lineMatches(want, got string) bool {
	if strings.HasSuffix(want, " ...") {
		w := normLine(strings.TrimSuffix(want, " ..."))
		return strings.HasPrefix(normLine(got), w)
	}
	return normLine(want) == normLine(got)
}

// matchOutput matches quoted lines against output lines: in order, a
// `...` line skipping any number; "" when they match, else what did not.
func matchOutput(want, got []string) string {
	for len(want) > 0 && strings.TrimSpace(want[len(want)-1]) == "" {
		want = want[:len(want)-1]
	}
	if len(want) == 0 {
		return "the quoted output is empty"
	}
	// segments between `...` lines
	var segs [][]string
	var cur []string
	open := []bool{false} // segs[i] may start anywhere
	for _, w := range want {
		if strings.TrimSpace(w) == "..." {
			if len(cur) > 0 {
				segs = append(segs, cur)
				cur = nil
				open = append(open, true)
			} else {
				open[len(open)-1] = true
			}
			continue
		}
		cur = append(cur, w)
	}
	tailOpen := len(cur) == 0
	if len(cur) > 0 {
		segs = append(segs, cur)
	} else {
		open = open[:len(open)-1]
	}
	pos := 0
	for i, seg := range segs {
		found := -1
		for at := pos; at+len(seg) <= len(got); at++ {
			ok := true
			for j, w := range seg {
				if !lineMatches(w, got[at+j]) {
					ok = false
					break
				}
			}
			if ok {
				found = at
				break
			}
			if !open[i] {
				break
			}
		}
		if found < 0 {
			return fmt.Sprintf("no output matches, from line %d on, the quoted lines\n  %s\n(normalized: %q)", pos+1,
				strings.Join(seg, "\n  "), normLine(seg[0]))
		}
		pos = found + len(seg)
	}
	if !tailOpen && pos != len(got) {
		return fmt.Sprintf("the output goes on after the quoted lines (end the quote with ...): %q", got[pos])
	}
	return ""
}

var linkRe = regexp.MustCompile(`\]\(([^)#\s]+)(#[^)]*)?\)`)

// pendingDocs are linked before they exist: another change writes them.
var pendingDocs = map[string]bool{"docs/load.md": true}

// checkLinks fails on a relative link to a file that is not there.
func checkLinks(t *testing.T, root, name, text string) {
	for _, m := range linkRe.FindAllStringSubmatch(text, -1) {
		target := m[1]
		if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
			continue
		}
		p := filepath.Join(filepath.Dir(filepath.Join(root, name)), target)
		rel, _ := filepath.Rel(root, p)
		if _, err := os.Stat(p); err != nil && !pendingDocs[rel] {
			t.Errorf("%s: link to %s: %v", name, target, err)
		}
	}
}
