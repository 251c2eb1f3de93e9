package kube

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

func testSpec() Spec {
	return Spec{
		Name: "cb", Namespace: "bench", Image: "registry.example.com/commentbench:dev", Members: 3, RunID: "run-7",
		Args: []string{"--backend", "hbase", "--hbase-zk", "zk-0:2181", "--slo", "*:error-rate<1%"},
		Files: []File{
			{Flag: "scenario", Name: "flash.yaml", Data: []byte("# a comment\npreset: flash-sale\nmix: {write: 1}\n")},
			{Flag: "layout", Name: "mine.yaml", Data: []byte("name: mine\n")},
		},
		Secret: "cb-creds", SecretFlags: []string{"hbase-keytab", "krb5-conf"},
		ResultsClaim: "cb-results", MetricsPort: 9464,
		MergeArgs: []string{"--slo", "*:error-rate<1%"},
	}
}

// decoded is the printed YAML read back as kubectl would: each document
// strictly into its API type, by kind.
type decoded struct {
	configMaps []*corev1.ConfigMap
	jobs       []*batchv1.Job
	kinds      []string
}

func decodeAll(t *testing.T, out []byte) decoded {
	t.Helper()
	var d decoded
	for i, doc := range splitDocs(string(out)) {
		js, err := yaml.YAMLToJSONStrict([]byte(doc))
		if err != nil {
			t.Fatalf("document %d: %v\n%s", i, err, doc)
		}
		var tm metav1.TypeMeta
		if err := json.Unmarshal(js, &tm); err != nil {
			t.Fatalf("document %d: %v", i, err)
		}
		var obj any
		switch tm.APIVersion + " " + tm.Kind {
		case "v1 ConfigMap":
			cm := &corev1.ConfigMap{}
			d.configMaps, obj = append(d.configMaps, cm), cm
		case "batch/v1 Job":
			j := &batchv1.Job{}
			d.jobs, obj = append(d.jobs, j), j
		default:
			t.Fatalf("document %d: unexpected %s %s", i, tm.APIVersion, tm.Kind)
		}
		if err := strictDecode(js, obj); err != nil {
			t.Fatalf("document %d (%s): %v\n%s", i, tm.Kind, err, doc)
		}
		d.kinds = append(d.kinds, tm.Kind)
	}
	return d
}

func strictDecode(js []byte, obj any) error {
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	return dec.Decode(obj)
}

// splitDocs splits a multi-document YAML at its --- lines.
func splitDocs(s string) []string {
	var docs []string
	var cur strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		if strings.TrimSpace(l) == "---" {
			docs, cur = append(docs, cur.String()), strings.Builder{}
			continue
		}
		cur.WriteString(l)
	}
	if strings.TrimSpace(cur.String()) != "" {
		docs = append(docs, cur.String())
	}
	return docs
}

// The strict decoding the tests rely on does refuse a field the API type
// has not, so a misspelt field in the printed YAML fails them.
func TestStrictDecodeRefusesUnknownFields(t *testing.T) {
	js, err := yaml.YAMLToJSONStrict([]byte("apiVersion: batch/v1\nkind: Job\nspec:\n  completionsMode: Indexed\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := strictDecode(js, &batchv1.Job{}); err == nil || !strings.Contains(err.Error(), "completionsMode") {
		t.Errorf("a misspelt field decoded: %v", err)
	}
}

func TestWrite(t *testing.T) {
	s := testSpec()
	var out bytes.Buffer
	if err := s.Write(&out); err != nil {
		t.Fatal(err)
	}
	d := decodeAll(t, out.Bytes())
	if want := []string{"ConfigMap", "Job", "Job"}; !slices.Equal(d.kinds, want) {
		t.Fatalf("kinds %v, want %v", d.kinds, want)
	}
	cm, members, merge := d.configMaps[0], d.jobs[0], d.jobs[1]
	for _, m := range []metav1.ObjectMeta{cm.ObjectMeta, members.ObjectMeta, merge.ObjectMeta} {
		if m.Namespace != "bench" || m.Labels[RunIDLabel] != "run-7" || m.Labels["app.kubernetes.io/instance"] != "cb" {
			t.Errorf("%s: namespace %q, labels %v", m.Name, m.Namespace, m.Labels)
		}
	}
	if cm.Name != "cb-files" || members.Name != "cb" || merge.Name != "cb-merge" {
		t.Errorf("names %s, %s, %s", cm.Name, members.Name, merge.Name)
	}

	// The ConfigMap: a key per flag, the files as they were.
	if !reflect.DeepEqual(cm.Data, map[string]string{"scenario": string(s.Files[0].Data), "layout": string(s.Files[1].Data)}) || cm.BinaryData != nil {
		t.Errorf("ConfigMap data %q, binary %v", cm.Data, cm.BinaryData)
	}

	// The members' Job.
	js := members.Spec
	if js.CompletionMode == nil || *js.CompletionMode != batchv1.IndexedCompletion {
		t.Errorf("completionMode %v, want Indexed", js.CompletionMode)
	}
	if js.Completions == nil || js.Parallelism == nil || *js.Completions != 3 || *js.Parallelism != 3 {
		t.Errorf("completions %s, parallelism %s, want 3 and 3", p32(js.Completions), p32(js.Parallelism))
	}
	if js.BackoffLimitPerIndex == nil || *js.BackoffLimitPerIndex != 0 || js.BackoffLimit != nil {
		t.Errorf("backoffLimitPerIndex %s, backoffLimit %s: want 0 and unset (a failure fails its index, not the fleet)",
			p32(js.BackoffLimitPerIndex), p32(js.BackoffLimit))
	}
	if !strings.Contains(out.String(), "# A failed member is not retried") {
		t.Error("the YAML does not explain the backoff choice")
	}
	pod := js.Template
	if pod.Spec.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("restartPolicy %q", pod.Spec.RestartPolicy)
	}
	if want := map[string]string{"prometheus.io/scrape": "true", "prometheus.io/port": "9464", "prometheus.io/path": "/metrics"}; !reflect.DeepEqual(pod.Annotations, want) {
		t.Errorf("pod annotations %v, want %v", pod.Annotations, want)
	}
	if len(pod.Spec.Containers) != 1 {
		t.Fatalf("%d containers", len(pod.Spec.Containers))
	}
	c := pod.Spec.Containers[0]
	if c.Image != s.Image || !slices.Equal(c.Command, []string{"loadgen"}) {
		t.Errorf("image %q, command %v", c.Image, c.Command)
	}
	if len(c.Ports) != 1 || c.Ports[0].ContainerPort != 9464 {
		t.Errorf("ports %v", c.Ports)
	}
	wantArgs := append(slices.Clone(s.Args),
		"--scenario", "/etc/loadgen/files/scenario/flash.yaml",
		"--layout", "/etc/loadgen/files/layout/mine.yaml",
		"--hbase-keytab", "/etc/loadgen/secrets/hbase-keytab",
		"--krb5-conf", "/etc/loadgen/secrets/krb5-conf",
		"--workers-total", "3", "--run-id", "run-7",
		"--out", "/results/run-7/member-$(JOB_COMPLETION_INDEX)",
		"--metrics-addr", "0.0.0.0:9464")
	if !slices.Equal(c.Args, wantArgs) {
		t.Errorf("args\n%q\nwant\n%q", c.Args, wantArgs)
	}
	if slices.ContainsFunc(c.Args, func(a string) bool { return strings.HasPrefix(a, "--worker-index") }) {
		t.Error("a member's args name its worker index: each takes its pod's")
	}
	// $(JOB_COMPLETION_INDEX) expands only if the container declares it.
	if len(c.Env) != 1 || c.Env[0].Name != IndexVar || c.Env[0].ValueFrom == nil || c.Env[0].ValueFrom.FieldRef == nil ||
		c.Env[0].ValueFrom.FieldRef.FieldPath != "metadata.annotations['batch.kubernetes.io/job-completion-index']" {
		t.Errorf("env %+v", c.Env)
	}

	// Every file the args name is where a volume puts it.
	files := mountedFiles(t, pod.Spec, c, map[string]*corev1.ConfigMap{cm.Name: cm})
	for _, p := range []string{"/etc/loadgen/files/scenario/flash.yaml", "/etc/loadgen/files/layout/mine.yaml"} {
		if files[p] != "configMap cb-files" {
			t.Errorf("%s: %q, want it from the ConfigMap", p, files[p])
		}
	}
	for _, p := range []string{"/etc/loadgen/secrets/hbase-keytab", "/etc/loadgen/secrets/krb5-conf"} {
		if files[p] != "secret cb-creds" {
			t.Errorf("%s: %q, want it from the Secret", p, files[p])
		}
	}
	for _, m := range c.VolumeMounts {
		if ro := m.Name != "results"; m.ReadOnly != ro {
			t.Errorf("mount %s read-only %v, want %v", m.Name, m.ReadOnly, ro)
		}
	}
	if claim := claimAt(pod.Spec, c, "/results"); claim != "cb-results" {
		t.Errorf("results at /results from claim %q", claim)
	}

	// The merge: suspended, every member's directory listed, the same claim.
	ms := merge.Spec
	if ms.Suspend == nil || !*ms.Suspend || ms.BackoffLimit == nil || *ms.BackoffLimit != 0 {
		t.Errorf("merge suspend %v, backoffLimit %s", ms.Suspend != nil && *ms.Suspend, p32(ms.BackoffLimit))
	}
	mc := ms.Template.Spec.Containers[0]
	wantMerge := []string{"merge", "--out", "/results/run-7/merged", "--slo", "*:error-rate<1%",
		"/results/run-7/member-0", "/results/run-7/member-1", "/results/run-7/member-2"}
	if !slices.Equal(mc.Command, []string{"loadgen"}) || !slices.Equal(mc.Args, wantMerge) {
		t.Errorf("merge command %v args\n%q\nwant\n%q", mc.Command, mc.Args, wantMerge)
	}
	if ms.Template.Spec.RestartPolicy != corev1.RestartPolicyNever || claimAt(ms.Template.Spec, mc, "/results") != "cb-results" {
		t.Errorf("merge pod: restart %q, claim %q", ms.Template.Spec.RestartPolicy, claimAt(ms.Template.Spec, mc, "/results"))
	}
}

// mountedFiles maps each file a ConfigMap or Secret volume puts in c to
// where it comes from.
func mountedFiles(t *testing.T, pod corev1.PodSpec, c corev1.Container, cms map[string]*corev1.ConfigMap) map[string]string {
	files := map[string]string{}
	for _, m := range c.VolumeMounts {
		i := slices.IndexFunc(pod.Volumes, func(v corev1.Volume) bool { return v.Name == m.Name })
		if i < 0 {
			t.Errorf("mount %s: no such volume", m.Name)
			continue
		}
		v := pod.Volumes[i]
		switch {
		case v.ConfigMap != nil:
			cm := cms[v.ConfigMap.Name]
			for _, it := range v.ConfigMap.Items {
				if _, ok := cm.Data[it.Key]; !ok {
					t.Errorf("volume %s: ConfigMap %s has no key %s", v.Name, v.ConfigMap.Name, it.Key)
				}
				files[m.MountPath+"/"+it.Path] = "configMap " + v.ConfigMap.Name
			}
		case v.Secret != nil:
			for _, it := range v.Secret.Items {
				files[m.MountPath+"/"+it.Path] = "secret " + v.Secret.SecretName
			}
		}
	}
	return files
}

func claimAt(pod corev1.PodSpec, c corev1.Container, dir string) string {
	for _, m := range c.VolumeMounts {
		for _, v := range pod.Volumes {
			if v.Name == m.Name && m.MountPath == dir && v.PersistentVolumeClaim != nil {
				return v.PersistentVolumeClaim.ClaimName
			}
		}
	}
	return ""
}

// Without files to ship there is no ConfigMap, and no volume for one; a
// file that is not text goes in binaryData.
func TestWriteWithoutFiles(t *testing.T) {
	s := testSpec()
	s.Files, s.SecretFlags, s.Secret = nil, nil, ""
	var out bytes.Buffer
	if err := s.Write(&out); err != nil {
		t.Fatal(err)
	}
	d := decodeAll(t, out.Bytes())
	if !slices.Equal(d.kinds, []string{"Job", "Job"}) {
		t.Fatalf("kinds %v", d.kinds)
	}
	if v := d.jobs[0].Spec.Template.Spec.Volumes; len(v) != 1 || v[0].Name != "results" {
		t.Errorf("volumes %+v", v)
	}

	s = testSpec()
	s.Files = []File{{Flag: "layout", Name: "odd.bin", Data: []byte{0xff, 0xfe, 0}}}
	out.Reset()
	if err := s.Write(&out); err != nil {
		t.Fatal(err)
	}
	d = decodeAll(t, out.Bytes())
	if cm := d.configMaps[0]; cm.Data != nil || !bytes.Equal(cm.BinaryData["layout"], []byte{0xff, 0xfe, 0}) {
		t.Errorf("data %q, binaryData %v", cm.Data, cm.BinaryData)
	}
}

func TestValidate(t *testing.T) {
	for _, c := range []struct {
		change func(*Spec)
		want   string
	}{
		{func(s *Spec) { s.Name = strings.Repeat("a", 60) }, "--name"},
		{func(s *Spec) { s.Name = "Big_Name" }, "--name"},
		{func(s *Spec) { s.Namespace = "a.b" }, "--namespace"},
		{func(s *Spec) { s.Image = "" }, "--image"},
		{func(s *Spec) { s.ResultsClaim = "" }, "--results-claim"},
		{func(s *Spec) { s.RunID = "a/b" }, "run id"},
		{func(s *Spec) { s.RunID = "" }, "run id"},
		{func(s *Spec) { s.Secret = "" }, "--hbase-keytab names a file a member reads from a Secret: give --secret NAME"},
		{func(s *Spec) { s.SecretFlags = nil }, "--secret cb-creds: no flag"},
		{func(s *Spec) { s.MetricsPort = 0 }, "--metrics-port"},
		{func(s *Spec) { s.Files[1].Name = "../x" }, "not a file name"},
		{func(s *Spec) { s.Files[1].Flag = "scenario" }, "--scenario: shipped twice"},
		{func(s *Spec) { s.Files[0].Data = make([]byte, 1<<20) }, "a ConfigMap holds at most"},
	} {
		s := testSpec()
		c.change(&s)
		err := s.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("want an error with %q, got %v", c.want, err)
		}
		if _, berr := s.Build(); fmt.Sprint(berr) != fmt.Sprint(err) {
			t.Errorf("Build: %v, Validate: %v", berr, err)
		}
	}
	if err := testSpec().Validate(); err != nil {
		t.Errorf("the test spec: %v", err)
	}
}

func p32(p *int32) string {
	if p == nil {
		return "unset"
	}
	return fmt.Sprint(*p)
}
