package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"

	"commentbench/keys"
	"commentbench/kube"
)

// kubeSecretFlags are the backend's flags that name a file of
// credentials: a member reads each from the fleet's Secret, under the
// flag's name (TestKubeSecretFlags keeps the list whole).
var kubeSecretFlags = []string{"hbase-keytab", "krb5-conf", "hbase-tls-ca", "hbase-tls-cert", "hbase-tls-key"}

// kubeRefused are the run's flags kube refuses, and why: most it gives
// each member itself.
var kubeRefused = []struct{ flag, why string }{
	{"worker-index", "leave it to kube: each member's is its pod's completion index (JOB_COMPLETION_INDEX)"},
	{"out", "leave it to kube: each member's is its directory on the results claim"},
	{"metrics-addr", "leave it to kube: each member serves its metrics on --metrics-port"},
	{"cpuprofile", "a member's profile would stay in its container, and go with it"},
}

// kubeRunID names a run kube starts; a test fixes it.
var kubeRunID = newRunID

// kubeCmd is `loadgen kube`: the Kubernetes objects that run a fleet of
// loadgen members, from the flags a member runs with, printed as YAML.
func kubeCmd(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("loadgen kube", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.SortFlags = false
	var s kube.Spec
	fs.StringVar(&s.Image, "image", "", "the image the members run: one with loadgen on its PATH (required)")
	fs.StringVar(&s.ResultsClaim, "results-claim", "", "the PersistentVolumeClaim (ReadWriteMany) the members write their results to, and the merge reads (required)")
	fs.StringVar(&s.Name, "name", "loadgen", "the Job's name; the ConfigMap is NAME-files, the merge Job NAME-merge")
	fs.StringVar(&s.Namespace, "namespace", "", "the objects' namespace (default: the one kubectl is pointed at)")
	fs.StringVar(&s.Secret, "secret", "", "the Secret holding the files the run's --hbase-keytab, --krb5-conf, --hbase-tls-ca, --hbase-tls-cert and --hbase-tls-key name, each under the flag's name")
	fs.IntVar(&s.MetricsPort, "metrics-port", 9100, "the port each member serves its Prometheus metrics on")
	fs.Usage = func() { kubeUsage(fs, stdout) }
	own, runArgs := kubeSplitArgs(fs, args)
	if err := fs.Parse(own); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "loadgen kube: %v\nrun 'loadgen kube --help' for the flags\n", err)
		return 2
	}
	if fs.NArg() > 0 { // only when the run's flags follow a --
		return fail(stderr, fmt.Errorf("kube: unexpected argument %q", fs.Arg(0)))
	}
	for _, a := range runArgs {
		if name, _, _ := strings.Cut(strings.TrimPrefix(a, "--"), "="); strings.HasPrefix(a, "--") && fs.Lookup(name) != nil {
			return fail(stderr, fmt.Errorf("kube: --%s is kube's own flag: give it before the run's flags", name))
		}
	}
	f, code := kubeFleet(s, runArgs, stdout, stderr)
	if f == nil {
		return code
	}
	if err := f.Validate(); err != nil {
		return fail(stderr, fmt.Errorf("kube: %w", err))
	}
	if err := f.Write(stdout); err != nil {
		fmt.Fprintln(stderr, "loadgen kube:", err)
		return 1
	}
	f.notes(stderr)
	return 0
}

// kubePlan is a fleet's spec, and where the files of its Secret are here.
type kubePlan struct {
	kube.Spec
	secretFiles []string // by SecretFlags
}

func kubeUsage(fs *pflag.FlagSet, w io.Writer) {
	fmt.Fprint(w, `loadgen kube prints the Kubernetes objects of a fleet: --workers-total
loadgen members driving one HBase cluster, each a pod of an Indexed Job,
and a Job that merges their results, created suspended.

usage: loadgen kube --image IMG --results-claim PVC [flags] [--] LOADGEN FLAGS...

Its own flags come first; the rest are the flags each member runs with,
checked as loadgen checks them. They need --backend hbase and
--workers-total N (2 or more). kube sets each member's --worker-index
(its pod's completion index), --out and --metrics-addr, names the run
unless --run-id does, ships the --scenario and --layout files in a
ConfigMap and mounts the credential files from --secret.

flags:
`)
	fmt.Fprint(w, fs.FlagUsages())
	fmt.Fprintln(w, "\nsee deploy/README.md for a worked example")
}

// kubeSplitArgs splits the command line into kube's own flags, which come
// first, and the run's: everything from the first flag kube does not know,
// or after a --.
func kubeSplitArgs(fs *pflag.FlagSet, args []string) (own, run []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return args[:i], args[i+1:]
		case a == "-h" || a == "--help":
			continue
		}
		name, _, inline := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		if !strings.HasPrefix(a, "--") || fs.Lookup(name) == nil {
			return args[:i], args[i:]
		}
		if !inline {
			i++ // its value
		}
	}
	return args, nil
}

// kubeFleet completes s from the run's flags: they are parsed as loadgen
// parses them, so a member would start with them, and rewritten for the
// pods. A nil plan is an exit with the code.
func kubeFleet(s kube.Spec, runArgs []string, stdout, stderr io.Writer) (*kubePlan, int) {
	// Every member, and the merge, must agree on the run: one given is
	// kept, else kube names it.
	if !slices.ContainsFunc(runArgs, func(a string) bool { return a == "--run-id" || strings.HasPrefix(a, "--run-id=") }) {
		runArgs = append(slices.Clip(runArgs), "--run-id", kubeRunID())
	}
	o, code := parse(runArgs, stdout, stderr)
	if o == nil {
		return nil, code
	}
	fs := o.flags
	for _, r := range kubeRefused {
		if fs.Changed(r.flag) {
			return nil, fail(stderr, fmt.Errorf("kube: --%s: %s", r.flag, r.why))
		}
	}
	if o.workersTotal < 2 {
		return nil, fail(stderr, fmt.Errorf("kube: --workers-total %d: a fleet is 2 or more members, one pod each: give --workers-total N", o.workersTotal))
	}
	if o.backend.Backend != "hbase" {
		return nil, fail(stderr, fmt.Errorf("kube: --backend %s: a fleet drives one HBase cluster; give --backend hbase (each member's embedded store would be its own)", o.backend.Backend))
	}
	if o.backend.Kerberos && o.backend.Keytab == "" {
		return nil, fail(stderr, errors.New("kube: --hbase-kerberos without --hbase-keytab reads a kinit's ticket cache, which a pod has none of: give --hbase-keytab and --hbase-principal"))
	}

	s.Members = o.workersTotal
	s.RunID = fs.Lookup("run-id").Value.String()
	drop := map[string]bool{"workers-total": true, "run-id": true}

	// The layout a member runs with, when it is a file: shipped.
	layout, layoutFile := o.sc.Layout, !kubeBuiltinLayout(o.sc.Layout)
	if layoutFile {
		data, err := os.ReadFile(layout)
		if err != nil {
			return nil, fail(stderr, fmt.Errorf("kube: --layout: %w", err))
		}
		f := kube.File{Flag: "layout", Name: filepath.Base(layout), Data: data}
		s.Files = append(s.Files, f)
		drop["layout"] = true
		layout = s.FilePath(f)
	}
	if path := fs.Lookup("scenario").Value.String(); path != "" {
		data, err := os.ReadFile(path)
		if err == nil {
			data, err = kubeScenario(data, layout)
		}
		if err != nil {
			return nil, fail(stderr, fmt.Errorf("kube: --scenario: %w", err))
		}
		s.Files = append([]kube.File{{Flag: "scenario", Name: filepath.Base(path), Data: data}}, s.Files...)
		drop["scenario"] = true
	}
	var secretFiles []string
	for _, name := range kubeSecretFlags {
		if f := fs.Lookup(name); f != nil && f.Value.String() != "" {
			s.SecretFlags = append(s.SecretFlags, name)
			secretFiles = append(secretFiles, f.Value.String())
			drop[name] = true
		}
	}

	s.Args = kubeDropFlags(fs, runArgs, drop)
	if slos, err := fs.GetStringArray("slo"); err == nil {
		for _, e := range slos {
			s.MergeArgs = append(s.MergeArgs, "--slo", e)
		}
	}
	return &kubePlan{Spec: s, secretFiles: secretFiles}, 0
}

func kubeBuiltinLayout(name string) bool {
	return slices.Contains(keys.BuiltinNames(), name) && !strings.ContainsRune(name, os.PathSeparator)
}

// kubeScenario is a scenario file as a member reads it. A design file it
// names by path is not in the pod, and loading the scenario checks its
// layout, so the path becomes the layout the member runs with (a built-in
// name, or the shipped file's path); the file is otherwise unchanged.
func kubeScenario(data []byte, layout string) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return data, nil // loadgen read it; nothing to change
	}
	m := doc.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		v := m.Content[i+1]
		if m.Content[i].Value != "layout" || v.Kind != yaml.ScalarNode || kubeBuiltinLayout(v.Value) {
			continue
		}
		note := "loadgen kube: was " + v.Value
		if v.LineComment != "" {
			note = v.LineComment + " (" + note + ")"
		}
		v.LineComment = note
		v.Value, v.Style, v.Tag = layout, 0, "!!str"
		var b strings.Builder
		enc := yaml.NewEncoder(&b)
		enc.SetIndent(2)
		if err := enc.Encode(&doc); err != nil {
			return nil, err
		}
		return []byte(b.String()), enc.Close()
	}
	return data, nil
}

// kubeDropFlags is args, parsed by fs, without the flags drop names (and
// their values).
func kubeDropFlags(fs *pflag.FlagSet, args []string, drop map[string]bool) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		name, _, inline := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		f := fs.Lookup(name)
		if !strings.HasPrefix(a, "--") || f == nil {
			out = append(out, a)
			continue
		}
		n := 1
		if !inline && f.NoOptDefVal == "" && i+1 < len(args) {
			n = 2 // pflag takes the next argument as the value
		}
		if !drop[name] {
			out = append(out, args[i:i+n]...)
		}
		i += n - 1
	}
	return out
}

// notes says, on stderr, what to do with the YAML.
func (f *kubePlan) notes(w io.Writer) {
	ns := ""
	if f.Namespace != "" {
		ns = " -n " + f.Namespace
	}
	fmt.Fprintf(w, "loadgen kube: run %s: %d members (job/%s), results on claim %s under %s\n",
		f.RunID, f.Members, f.Name, f.ResultsClaim, f.RunDir())
	if len(f.SecretFlags) > 0 {
		from := ""
		for i, flag := range f.SecretFlags {
			from += " --from-file=" + flag + "=" + f.secretFiles[i]
		}
		fmt.Fprintf(w, "loadgen kube: the Secret, unless it is there: kubectl%s create secret generic %s%s\n", ns, f.Secret, from)
	}
	fmt.Fprintf(w, "loadgen kube: once job/%s has finished: kubectl%s patch job %s --type=merge -p '{\"spec\":{\"suspend\":false}}'\n",
		f.Name, ns, f.MergeJobName())
}
