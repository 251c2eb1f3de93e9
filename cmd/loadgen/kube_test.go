package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"commentbench/backend"
	"commentbench/kube"
)

var updateExample = flag.Bool("update-example", false, "rewrite deploy/example/fleet.yaml from the command deploy/README.md shows")

// fixRunID makes the run ids kube names n for the test.
func fixRunID(t *testing.T, id string) {
	old := kubeRunID
	kubeRunID = func() string { return id }
	t.Cleanup(func() { kubeRunID = old })
}

// podObjects reads the printed YAML back into its ConfigMap and Jobs.
func podObjects(t *testing.T, out []byte) (cm *corev1.ConfigMap, jobs []*batchv1.Job) {
	t.Helper()
	for _, doc := range regexp.MustCompile(`(?m)^---$`).Split(string(out), -1) {
		js, err := yaml.YAMLToJSONStrict([]byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		var kind struct{ Kind string }
		if err := json.Unmarshal(js, &kind); err != nil {
			t.Fatal(err)
		}
		switch kind.Kind {
		case "ConfigMap":
			cm = &corev1.ConfigMap{}
			err = json.Unmarshal(js, cm)
		case "Job":
			j := &batchv1.Job{}
			jobs, err = append(jobs, j), json.Unmarshal(js, j)
		default:
			t.Fatalf("kind %q", kind.Kind)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	return cm, jobs
}

// expand does what the kubelet does to a container's args: $(VAR) becomes
// the value of VAR when the container declares it, $$ a $.
func expand(arg string, env map[string]string) string {
	var b strings.Builder
	for i := 0; i < len(arg); i++ {
		switch {
		case strings.HasPrefix(arg[i:], "$$"):
			b.WriteByte('$')
			i++
		case strings.HasPrefix(arg[i:], "$("):
			if end := strings.IndexByte(arg[i:], ')'); end > 0 {
				if v, ok := env[arg[i+2:i+end]]; ok {
					b.WriteString(v)
					i += end
					continue
				}
			}
			b.WriteByte('$')
		default:
			b.WriteByte(arg[i])
		}
	}
	return b.String()
}

// Each pod of the printed Job, its volumes laid out as the kubelet would
// and its args expanded with its completion index, starts loadgen with
// its own worker index, the fleet's size and run, and the files shipped
// to it; none of the paths of the machine kube ran on is needed.
func TestKubeMembersRunWithTheirFlags(t *testing.T) {
	fixRunID(t, "0123456789abcdef")
	dir := t.TempDir()
	src := filepath.Join(dir, "here")
	layoutData, err := os.ReadFile("../../layouts/product-hash.yaml")
	if err != nil {
		t.Fatal(err)
	}
	layout := filepath.Join(src, "designs", "mine.yaml")
	scenario := filepath.Join(src, "hot.yaml") // names no name: the file's name is the scenario's
	if err := os.MkdirAll(filepath.Dir(layout), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(layout, layoutData, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(scenario, []byte("# hot products\npreset: flash-sale\nlayout: "+layout+"\nusers: 1234\nduration: 1m\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	pod := filepath.Join(dir, "pod")
	base := kube.Spec{Name: "cb", Image: "img", ResultsClaim: "res", Secret: "creds", MetricsPort: 9100,
		FilesDir: pod + "/etc/files", SecretsDir: pod + "/etc/secrets", ResultsDir: pod + "/results"}
	args := []string{"--backend", "hbase", "--hbase-zk", "zk-0:2181,zk-1:2181", "--workers-total", "3", "--scenario", scenario,
		"--hbase-keytab", "/nowhere/cb.keytab", "--hbase-principal", "cb@EXAMPLE.COM",
		"--hbase-tls", "--hbase-tls-ca=/nowhere/ca.pem", "--slo", "product-latest:p99<=200ms", "--quiet"}
	var stderr strings.Builder
	plan, code := kubeFleet(base, args, io.Discard, &stderr)
	if plan == nil {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var out bytes.Buffer
	if err := plan.Write(&out); err != nil {
		t.Fatal(err)
	}
	cm, jobs := podObjects(t, out.Bytes())
	if cm == nil || len(jobs) != 2 {
		t.Fatalf("configmap %v, %d jobs", cm != nil, len(jobs))
	}
	job := jobs[0]
	if job.Labels[kube.RunIDLabel] != "0123456789abcdef" {
		t.Errorf("run %q, want the one kube named", job.Labels[kube.RunIDLabel])
	}
	podSpec := job.Spec.Template.Spec
	c := podSpec.Containers[0]

	// The volumes, as the kubelet lays them out.
	for _, m := range c.VolumeMounts {
		i := slices.IndexFunc(podSpec.Volumes, func(v corev1.Volume) bool { return v.Name == m.Name })
		v := podSpec.Volumes[i]
		var files map[string]string
		switch {
		case v.ConfigMap != nil:
			files = map[string]string{}
			for _, it := range v.ConfigMap.Items {
				files[it.Path] = cm.Data[it.Key]
			}
		case v.Secret != nil:
			files = map[string]string{}
			for _, it := range v.Secret.Items {
				files[it.Path] = "a credential"
			}
		}
		if err := os.MkdirAll(m.MountPath, 0o755); err != nil {
			t.Fatal(err)
		}
		for p, data := range files {
			p = filepath.Join(m.MountPath, p)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(data), 0o444); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := os.RemoveAll(src); err != nil { // a pod has none of this machine's files
		t.Fatal(err)
	}

	declared := map[string]bool{}
	for _, e := range c.Env {
		declared[e.Name] = true
	}
	for _, a := range c.Args {
		for _, m := range regexp.MustCompile(`\$\(([^)]*)\)`).FindAllStringSubmatch(a, -1) {
			if !declared[m[1]] {
				t.Errorf("arg %q: $(%s) is not a variable of the container, so it is not expanded", a, m[1])
			}
		}
	}
	for i := range 3 {
		env := map[string]string{kube.IndexVar: strconv.Itoa(i)} // the downward API's value
		var podArgs []string
		for _, a := range c.Args {
			podArgs = append(podArgs, expand(a, env))
		}
		t.Setenv(kube.IndexVar, strconv.Itoa(i))
		stderr.Reset()
		o, code := parse(podArgs, io.Discard, &stderr)
		if o == nil {
			t.Fatalf("member %d: exit %d: %s\nargs %q", i, code, stderr.String(), podArgs)
		}
		for _, c := range []struct{ what, got, want string }{
			{"worker index", strconv.Itoa(o.workerIndex), strconv.Itoa(i)},
			{"workers total", strconv.Itoa(o.workersTotal), "3"},
			{"run id", o.flags.Lookup("run-id").Value.String(), "0123456789abcdef"},
			{"out", o.out, filepath.Join(pod, "results", "0123456789abcdef", "member-"+strconv.Itoa(i))},
			{"scenario", o.flags.Lookup("scenario").Value.String(), filepath.Join(pod, "etc/files/scenario/hot.yaml")},
			{"scenario name", o.sc.Name, "hot"},
			{"users", strconv.Itoa(o.sc.Users), "1234"},
			{"layout", o.sc.Layout, filepath.Join(pod, "etc/files/layout/mine.yaml")},
			{"design", o.design.Name(), "product-hash"},
			{"keytab", o.backend.Keytab, filepath.Join(pod, "etc/secrets/hbase-keytab")},
			{"tls ca", o.backend.TLSCA, filepath.Join(pod, "etc/secrets/hbase-tls-ca")},
			{"principal", o.backend.Principal, "cb@EXAMPLE.COM"},
			{"metrics", o.metricsAddr, "0.0.0.0:9100"},
			{"slos", strconv.Itoa(len(o.slos)), "1"},
		} {
			if c.got != c.want {
				t.Errorf("member %d: %s %q, want %q", i, c.what, c.got, c.want)
			}
		}
	}

	// The merge reads every member's directory and writes beside them.
	merge := jobs[1].Spec.Template.Spec.Containers[0].Args
	run := filepath.Join(pod, "results", "0123456789abcdef")
	want := []string{"merge", "--out", run + "/merged", "--slo", "product-latest:p99<=200ms", run + "/member-0", run + "/member-1", run + "/member-2"}
	if !slices.Equal(merge, want) {
		t.Errorf("merge args %q, want %q", merge, want)
	}
}

// Bad input is refused with exit 2 and a message naming what is wrong,
// and nothing on stdout.
func TestKubeBadInput(t *testing.T) {
	fixRunID(t, "r1")
	kubeFlags := []string{"kube", "--image", "img", "--results-claim", "res"}
	cluster := []string{"--backend", "hbase", "--hbase-zk", "zk:2181"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{append(slices.Concat(kubeFlags, cluster), "--workers-total", "1"), "--workers-total 1: a fleet is 2 or more members"},
		{slices.Concat(kubeFlags, cluster), "--workers-total 1: a fleet is 2 or more members"},
		{append(slices.Concat(kubeFlags, cluster), "--workers-total", "4", "--wrokers", "2"), "unknown flag: --wrokers"},
		{append(slices.Concat(kubeFlags, []string{"--"}, cluster), "--workers-total", "4", "--scenario", "/nowhere/flash.yaml"),
			"--scenario: open /nowhere/flash.yaml: no such file or directory"},
		{append(slices.Concat(kubeFlags, cluster), "--workers-total", "4", "--layout", "/nowhere/mine.yaml"), "/nowhere/mine.yaml"},
		{append(slices.Concat(kubeFlags, cluster), "--workers-total", "4", "--out", "x"), "--out: leave it to kube"},
		{append(slices.Concat(kubeFlags, cluster), "--workers-total", "4", "--worker-index", "1"), "--worker-index: leave it to kube"},
		{append(slices.Concat(kubeFlags, cluster), "--workers-total", "4", "--metrics-addr", ":1"), "--metrics-addr: leave it to kube"},
		{append(slices.Concat(kubeFlags, cluster), "--workers-total", "4", "--cpuprofile", "cpu.out"), "--cpuprofile: a member's profile would stay in its container"},
		{append(slices.Clone(kubeFlags), "--workers-total", "4"), "--backend embedded: a fleet drives one HBase cluster"},
		{append(slices.Concat(kubeFlags, cluster), "--workers-total", "4", "--image", "x"), "--image is kube's own flag: give it before the run's flags"},
		{append([]string{"kube", "--results-claim", "res"}, append(cluster, "--workers-total", "4")...), "--image: give the image"},
		{append(slices.Concat(kubeFlags, cluster), "--workers-total", "4", "--hbase-keytab", "/k", "--hbase-principal", "u@R"),
			"--hbase-keytab names a file a member reads from a Secret: give --secret NAME"},
		{append(slices.Concat(kubeFlags, cluster), "--workers-total", "4", "--hbase-kerberos"), "a pod has none of"},
		{append(slices.Concat(kubeFlags, []string{"--name", "Fleet"}, cluster), "--workers-total", "4"), "--name \"Fleet\""},
		{[]string{"kube", "--metrics-port", "x"}, "invalid argument \"x\" for \"--metrics-port\""},
	} {
		var stdout, stderr strings.Builder
		code := run(c.args, &stdout, &stderr)
		if code != 2 || !strings.Contains(stderr.String(), c.want) || stdout.Len() > 0 {
			t.Errorf("loadgen %s: exit %d, stdout %d bytes, stderr:\n%s\nwant exit 2 and %q",
				strings.Join(c.args, " "), code, stdout.Len(), stderr.String(), c.want)
		}
	}
}

func TestKubeHelp(t *testing.T) {
	var stdout strings.Builder
	if code := run([]string{"kube", "--help"}, &stdout, io.Discard); code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, f := range []string{"--image", "--results-claim", "--name", "--namespace", "--secret", "--metrics-port", "usage: loadgen kube"} {
		if !strings.Contains(stdout.String(), f) {
			t.Errorf("the help has no %s:\n%s", f, stdout.String())
		}
	}
}

// Without --run-id kube names the run, and every member and the merge
// are given that name.
func TestKubeNamesTheRun(t *testing.T) {
	fixRunID(t, "feedfacecafebeef")
	var stdout, stderr strings.Builder
	code := run([]string{"kube", "--image", "img", "--results-claim", "res", "--backend", "hbase", "--hbase-zk", "zk:2181",
		"--workers-total", "2"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	_, jobs := podObjects(t, []byte(stdout.String()))
	args := jobs[0].Spec.Template.Spec.Containers[0].Args
	if i := slices.Index(args, "--run-id"); i < 0 || args[i+1] != "feedfacecafebeef" || strings.Count(strings.Join(args, " "), "--run-id") != 1 {
		t.Errorf("member args %q: want one --run-id feedfacecafebeef", args)
	}
	if m := jobs[1].Spec.Template.Spec.Containers[0].Args; m[2] != "/results/feedfacecafebeef/merged" {
		t.Errorf("merge args %q", m)
	}
	if !strings.Contains(stderr.String(), "run feedfacecafebeef: 2 members") {
		t.Errorf("stderr: %s", stderr.String())
	}
}

// deploy/example/fleet.yaml is what the command deploy/README.md shows
// prints (go test ./cmd/loadgen -run TestKubeExample -update-example
// writes it anew).
func TestKubeExample(t *testing.T) {
	readme, err := os.ReadFile("../../deploy/README.md")
	if err != nil {
		t.Fatal(err)
	}
	args := exampleCommand(t, string(readme))
	t.Chdir("../..") // the command's paths are the repository's
	var stdout, stderr strings.Builder
	if code := run(args, &stdout, &stderr); code != 0 {
		t.Fatalf("loadgen %s: exit %d: %s", strings.Join(args, " "), code, stderr.String())
	}
	const file = "deploy/example/fleet.yaml"
	if *updateExample {
		if err := os.WriteFile(file, []byte(stdout.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	// What the README quotes of it: the notes on stderr, and a member's
	// command line.
	if quoted := textBlock(t, string(readme), "loadgen kube: run "); !slices.Equal(quoted, strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")) {
		t.Errorf("deploy/README.md quotes kube's notes as\n%s\nit printed\n%s", strings.Join(quoted, "\n"), stderr.String())
	}
	_, jobs := podObjects(t, want)
	c := jobs[0].Spec.Template.Spec.Containers[0]
	if quoted := strings.Fields(strings.Join(textBlock(t, string(readme), "loadgen --backend"), " ")); !slices.Equal(quoted, slices.Concat(c.Command, c.Args)) {
		t.Errorf("deploy/README.md quotes a member's command line as\n%q\nfleet.yaml has\n%q", quoted, slices.Concat(c.Command, c.Args))
	}
	if got := stdout.String(); got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		i := 0
		for i < len(gl) && i < len(wl) && gl[i] == wl[i] {
			i++
		}
		t.Errorf("%s is not what deploy/README.md's command prints (rewrite it with -update-example); first difference at line %d:\n got %q\nwant %q",
			file, i+1, at(gl, i), at(wl, i))
	}
}

func at(lines []string, i int) string {
	if i < len(lines) {
		return lines[i]
	}
	return "(end)"
}

// textBlock is the ```text block of doc whose first line starts with
// prefix.
func textBlock(t *testing.T, doc, prefix string) []string {
	t.Helper()
	for _, b := range strings.Split(doc, "```text\n")[1:] {
		body, _, _ := strings.Cut(b, "```")
		if strings.HasPrefix(body, prefix) {
			return strings.Split(strings.TrimSuffix(body, "\n"), "\n")
		}
	}
	t.Fatalf("no text block starting %q", prefix)
	return nil
}

// exampleCommand is the `loadgen kube` command of a document's sh block,
// as argv: lines joined at a trailing \, the redirection cut off.
func exampleCommand(t *testing.T, doc string) []string {
	t.Helper()
	inSh := false
	var cmd string
	for _, l := range strings.Split(doc, "\n") {
		switch {
		case strings.HasPrefix(l, "```"):
			inSh = strings.TrimSpace(strings.TrimPrefix(l, "```")) == "sh"
			continue
		case !inSh:
			continue
		case cmd != "":
			cmd += " " + strings.TrimSpace(l)
		case strings.HasPrefix(l, "bin/loadgen kube "):
			cmd = strings.TrimSpace(l)
		default:
			continue
		}
		if !strings.HasSuffix(cmd, `\`) {
			break
		}
		cmd = strings.TrimSuffix(cmd, `\`)
	}
	if cmd == "" {
		t.Fatal("no `bin/loadgen kube` command in an sh block")
	}
	cmd, _, _ = strings.Cut(cmd, " > ")
	words := shellWords(t, cmd)
	return words[1:] // after bin/loadgen
}

// shellWords splits a command line as sh would, for the quoting the
// examples use: '...' and plain words.
func shellWords(t *testing.T, s string) []string {
	var words []string
	var w strings.Builder
	inWord, quoted := false, false
	for _, r := range s {
		switch {
		case quoted && r == '\'':
			quoted = false
		case quoted:
			w.WriteRune(r)
		case r == '\'':
			quoted, inWord = true, true
		case r == ' ' || r == '\t':
			if inWord {
				words, inWord = append(words, w.String()), false
				w.Reset()
			}
		case strings.ContainsRune(`"$\`+"`;&|<>()", r):
			t.Fatalf("%q: %q is not a quoting the test reads", s, r)
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words
}

// Every backend flag that names a credential file is mounted from the
// fleet's Secret: a new one missing from kubeSecretFlags would be read at
// a path of the machine kube ran on, which no pod has.
func TestKubeSecretFlags(t *testing.T) {
	fs := pflag.NewFlagSet("", pflag.ContinueOnError)
	var f backend.Flags
	f.Register(fs)
	f.RegisterDrop(fs)
	flagRef := regexp.MustCompile(`--[a-z0-9-]+`)
	var files []string
	fs.VisitAll(func(fl *pflag.Flag) {
		u := strings.ToLower(flagRef.ReplaceAllString(fl.Usage, "")) // what it says of itself, not of another
		named := slices.ContainsFunc([]string{"-conf", "-keytab", "-ca", "-cert", "-key"}, func(s string) bool { return strings.HasSuffix(fl.Name, s) })
		if fl.Value.Type() == "string" && (named || strings.Contains(u, "file") || strings.Contains(u, "pem") || strings.Contains(u, "keytab")) {
			files = append(files, fl.Name)
		}
	})
	slices.Sort(files)
	want := slices.Sorted(slices.Values(kubeSecretFlags))
	if !slices.Equal(files, want) {
		t.Errorf("backend flags naming a file: %v; kube mounts %v from the Secret", files, want)
	}
}

// An Indexed Job's pod gives loadgen its worker index in
// JOB_COMPLETION_INDEX; --worker-index wins over it, and a bad one is
// refused naming the variable.
func TestJobCompletionIndex(t *testing.T) {
	base := func() []string { return []string{"--workers-total", "4", "--out", t.TempDir() + "/out"} }
	t.Setenv("JOB_COMPLETION_INDEX", "2")
	if o, code := parse(base(), io.Discard, io.Discard); o == nil || o.workerIndex != 2 {
		t.Errorf("JOB_COMPLETION_INDEX=2: exit %d, %+v", code, o)
	}
	if o, code := parse(append(base(), "--worker-index", "1"), io.Discard, io.Discard); o == nil || o.workerIndex != 1 {
		t.Errorf("--worker-index 1 with JOB_COMPLETION_INDEX=2: exit %d, %+v", code, o)
	}
	for _, v := range []string{"x", "-1", "4"} {
		t.Setenv("JOB_COMPLETION_INDEX", v)
		var stderr strings.Builder
		if o, code := parse(base(), io.Discard, &stderr); o != nil || code != 2 ||
			!strings.Contains(stderr.String(), `JOB_COMPLETION_INDEX="`+v+`": want this worker's index, 0..3`) {
			t.Errorf("JOB_COMPLETION_INDEX=%s: exit %d: %s", v, code, stderr.String())
		}
	}
}
