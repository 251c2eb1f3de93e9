// Package kube writes the Kubernetes objects that run a loadgen fleet
// (`loadgen kube`): a ConfigMap of the files the members read, an Indexed
// Job of N members whose completion index is each one's worker index, and
// a suspended Job that merges their results, printed as one multi-document
// YAML.
//
// It owns the objects' shape: their names and labels, the volumes and
// where each file lands in a pod, the run's directories on the results
// claim, the scrape annotations, and the few loadgen flags that follow
// from them (--workers-total, --run-id, --out, --metrics-addr, and the
// flag of each file it mounts). It must not know what the rest of
// loadgen's flags mean, nor read the files it ships: the command
// validates the flags and says which of them name a file.
package kube

import (
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
	"unicode/utf8"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Where a pod finds what kube mounts, unless a Spec says otherwise.
const (
	DefaultFilesDir   = "/etc/loadgen/files"
	DefaultSecretsDir = "/etc/loadgen/secrets"
	DefaultResultsDir = "/results"
)

// IndexVar is the variable an Indexed Job's pod holds its completion index
// in; Kubernetes expands $(IndexVar) in a container's args.
const IndexVar = "JOB_COMPLETION_INDEX"

// indexAnnotation is where the Job controller writes a pod's index.
const indexAnnotation = "batch.kubernetes.io/job-completion-index"

// RunIDLabel labels every object and pod of one run.
const RunIDLabel = "commentbench/run-id"

// maxConfigMap is what one ConfigMap may hold.
const maxConfigMap = 1 << 20

// File is a file a member reads, named by one of loadgen's flags: the
// flag is given the file's path in the pod.
type File struct {
	Flag string // the flag, without dashes: "scenario"
	Name string // the file's base name, kept in the pod (a scenario file without a name of its own is named by it)
	Data []byte
}

// Spec is one fleet.
type Spec struct {
	Name      string // the Job's name; the ConfigMap and the merge Job are named after it
	Namespace string // empty: the namespace kubectl is pointed at
	Image     string // an image with loadgen on its PATH
	Members   int    // the Job's completions and parallelism: loadgen's --workers-total
	RunID     string // every member's --run-id; names the run's directory on the claim, and labels its objects

	// Args are the flags every member runs with, but for those Spec adds:
	// --workers-total, --run-id, --out, --metrics-addr and the flags of
	// Files and SecretFlags.
	Args []string
	// Files go in a ConfigMap, each mounted read-only at
	// FilesDir/FLAG/NAME and given to its flag.
	Files []File
	// Secret is a Secret holding, under the key FLAG, the file of each
	// flag of SecretFlags; each is mounted read-only at SecretsDir/FLAG.
	Secret      string
	SecretFlags []string

	ResultsClaim string // a PersistentVolumeClaim every member and the merge mount at ResultsDir
	MetricsPort  int
	MergeArgs    []string // `loadgen merge`'s flags besides --out and the members' directories

	// Where things are mounted in a pod; empty: the defaults above. A test
	// sets them to lay the mounts out in a directory of its own.
	FilesDir, SecretsDir, ResultsDir string
}

func (s Spec) filesDir() string   { return or(s.FilesDir, DefaultFilesDir) }
func (s Spec) secretsDir() string { return or(s.SecretsDir, DefaultSecretsDir) }
func (s Spec) resultsDir() string { return or(s.ResultsDir, DefaultResultsDir) }

func or(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// FilePath is where a member reads f.
func (s Spec) FilePath(f File) string { return path.Join(s.filesDir(), f.Flag, f.Name) }

// SecretPath is where a member reads the file of a secret flag.
func (s Spec) SecretPath(flag string) string { return path.Join(s.secretsDir(), flag) }

// RunDir is the run's directory on the results claim.
func (s Spec) RunDir() string { return path.Join(s.resultsDir(), s.RunID) }

// MemberDir is member i's results directory; i may be "$(JOB_COMPLETION_INDEX)".
func (s Spec) MemberDir(i string) string { return path.Join(s.RunDir(), "member-"+i) }

// MergedDir is where the merge Job writes.
func (s Spec) MergedDir() string { return path.Join(s.RunDir(), "merged") }

// MergeJobName is the merge Job's name.
func (s Spec) MergeJobName() string { return s.Name + "-merge" }

// ConfigMapName is the ConfigMap's name.
func (s Spec) ConfigMapName() string { return s.Name + "-files" }

// Validate says what is wrong with s, naming the field as the command's
// flag would.
func (s Spec) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	// The merge Job's name is the longest; an Indexed Job's pods are
	// NAME-INDEX-xxxxx, and their host names NAME-INDEX.
	if msgs := validation.IsDNS1123Label(s.MergeJobName()); len(msgs) > 0 {
		bad("--name %q: want a DNS label of at most %d characters (%s)", s.Name,
			validation.DNS1123LabelMaxLength-len("-merge"), strings.Join(msgs, "; "))
	}
	if s.Namespace != "" {
		if msgs := validation.IsDNS1123Label(s.Namespace); len(msgs) > 0 {
			bad("--namespace %q: %s", s.Namespace, strings.Join(msgs, "; "))
		}
	}
	if strings.TrimSpace(s.Image) == "" {
		bad("--image: give the image the members run (one with loadgen on its PATH)")
	}
	if s.Members < 1 {
		bad("members %d: want at least 1", s.Members)
	}
	if msgs := validation.IsValidLabelValue(s.RunID); s.RunID == "" || len(msgs) > 0 {
		bad("run id %q: want letters, digits, '-', '_' or '.', at most 63, starting and ending with a letter or digit", s.RunID)
	}
	if s.ResultsClaim == "" {
		bad("--results-claim: give the PersistentVolumeClaim (ReadWriteMany) the members write their results to")
	} else if msgs := validation.IsDNS1123Subdomain(s.ResultsClaim); len(msgs) > 0 {
		bad("--results-claim %q: %s", s.ResultsClaim, strings.Join(msgs, "; "))
	}
	switch {
	case len(s.SecretFlags) > 0 && s.Secret == "":
		bad("--%s names a file a member reads from a Secret: give --secret NAME (a Secret with the file under the key %s)",
			s.SecretFlags[0], s.SecretFlags[0])
	case len(s.SecretFlags) == 0 && s.Secret != "":
		bad("--secret %s: no flag of the run names a file to read from it (--hbase-keytab, --krb5-conf, --hbase-tls-ca, ...)", s.Secret)
	case s.Secret != "":
		if msgs := validation.IsDNS1123Subdomain(s.Secret); len(msgs) > 0 {
			bad("--secret %q: %s", s.Secret, strings.Join(msgs, "; "))
		}
	}
	if s.MetricsPort < 1 || s.MetricsPort > 65535 {
		bad("--metrics-port %d: want 1..65535", s.MetricsPort)
	}
	seen := map[string]bool{}
	size := 0
	for _, f := range s.Files {
		if seen[f.Flag] {
			bad("--%s: shipped twice", f.Flag)
		}
		seen[f.Flag] = true
		if msgs := validation.IsConfigMapKey(f.Flag); len(msgs) > 0 {
			bad("--%s: not a ConfigMap key: %s", f.Flag, strings.Join(msgs, "; "))
		}
		if f.Name == "" || f.Name == "." || f.Name == ".." || strings.ContainsRune(f.Name, '/') {
			bad("--%s: %q is not a file name", f.Flag, f.Name)
		}
		size += len(f.Flag) + len(f.Data)
	}
	if size > maxConfigMap {
		bad("the files to ship take %d bytes; a ConfigMap holds at most %d", size, maxConfigMap)
	}
	for _, f := range s.SecretFlags {
		if seen[f] {
			bad("--%s: shipped twice", f)
		}
		seen[f] = true
		if msgs := validation.IsConfigMapKey(f); len(msgs) > 0 {
			bad("--%s: not a Secret key: %s", f, strings.Join(msgs, "; "))
		}
	}
	return errors.Join(errs...)
}

// MemberArgs are the arguments of every member's loadgen, with
// $(JOB_COMPLETION_INDEX) in its --out for Kubernetes to expand.
func (s Spec) MemberArgs() []string {
	args := append([]string(nil), s.Args...)
	for _, f := range s.Files {
		args = append(args, "--"+f.Flag, s.FilePath(f))
	}
	for _, f := range s.SecretFlags {
		args = append(args, "--"+f, s.SecretPath(f))
	}
	// Metrics on every address of the pod: loadgen takes an empty host for
	// loopback, where no scraper would reach it.
	return append(args,
		"--workers-total", strconv.Itoa(s.Members),
		"--run-id", s.RunID,
		"--out", s.MemberDir("$("+IndexVar+")"),
		"--metrics-addr", "0.0.0.0:"+strconv.Itoa(s.MetricsPort))
}

// mergeArgs are the merge Job's arguments: every member's directory,
// listed, not globbed (there is no shell).
func (s Spec) mergeArgs() []string {
	args := append([]string{"merge", "--out", s.MergedDir()}, s.MergeArgs...)
	for i := range s.Members {
		args = append(args, s.MemberDir(strconv.Itoa(i)))
	}
	return args
}

// Fleet is the objects of one run.
type Fleet struct {
	Files   *corev1.ConfigMap // nil when there are no files to ship
	Members *batchv1.Job
	Merge   *batchv1.Job
}

// Objects are the fleet's objects in the order they are applied.
func (f *Fleet) Objects() []any {
	var out []any
	if f.Files != nil {
		out = append(out, f.Files)
	}
	return append(out, f.Members, f.Merge)
}

// Build makes the fleet's objects.
func (s Spec) Build() (*Fleet, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	f := &Fleet{}
	var volumes []corev1.Volume
	var mounts []corev1.VolumeMount
	if len(s.Files) > 0 {
		cm := &corev1.ConfigMap{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: s.meta(s.ConfigMapName(), "files"),
		}
		var items []corev1.KeyToPath
		for _, file := range s.Files {
			if utf8.Valid(file.Data) {
				if cm.Data == nil {
					cm.Data = map[string]string{}
				}
				cm.Data[file.Flag] = string(file.Data)
			} else {
				if cm.BinaryData == nil {
					cm.BinaryData = map[string][]byte{}
				}
				cm.BinaryData[file.Flag] = file.Data
			}
			items = append(items, corev1.KeyToPath{Key: file.Flag, Path: path.Join(file.Flag, file.Name)})
		}
		f.Files = cm
		volumes = append(volumes, corev1.Volume{Name: "files", VolumeSource: corev1.VolumeSource{
			ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: cm.Name}, Items: items}}})
		mounts = append(mounts, corev1.VolumeMount{Name: "files", MountPath: s.filesDir(), ReadOnly: true})
	}
	if len(s.SecretFlags) > 0 {
		var items []corev1.KeyToPath
		for _, flag := range s.SecretFlags {
			items = append(items, corev1.KeyToPath{Key: flag, Path: flag})
		}
		volumes = append(volumes, corev1.Volume{Name: "secrets", VolumeSource: corev1.VolumeSource{
			Secret: &corev1.SecretVolumeSource{SecretName: s.Secret, Items: items}}})
		mounts = append(mounts, corev1.VolumeMount{Name: "secrets", MountPath: s.secretsDir(), ReadOnly: true})
	}
	results := corev1.Volume{Name: "results", VolumeSource: corev1.VolumeSource{
		PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: s.ResultsClaim}}}
	resultsMount := corev1.VolumeMount{Name: "results", MountPath: s.resultsDir()}
	volumes = append(volumes, results)
	mounts = append(mounts, resultsMount)

	members := int32(s.Members)
	indexed := batchv1.IndexedCompletion
	zero := int32(0)
	memberLabels := s.labels("member")
	f.Members = &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: s.meta(s.Name, "member"),
		Spec: batchv1.JobSpec{
			CompletionMode: &indexed,
			Completions:    &members,
			Parallelism:    &members,
			// No retries, and a failed member fails only its own index
			// (see the comment written above the field).
			BackoffLimitPerIndex: &zero,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: memberLabels, Annotations: map[string]string{
					"prometheus.io/scrape": "true",
					"prometheus.io/port":   strconv.Itoa(s.MetricsPort),
					"prometheus.io/path":   "/metrics",
				}},
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					// Members on different nodes where there are nodes to
					// spare: a member's node is a load generator's NIC and
					// cores; sharing one would cap the fleet below its sum.
					TopologySpreadConstraints: []corev1.TopologySpreadConstraint{{
						MaxSkew:           1,
						TopologyKey:       "kubernetes.io/hostname",
						WhenUnsatisfiable: corev1.ScheduleAnyway,
						LabelSelector:     &metav1.LabelSelector{MatchLabels: memberLabels},
					}},
					Containers: []corev1.Container{{
						Name:    "loadgen",
						Image:   s.Image,
						Command: []string{"loadgen"},
						Args:    s.MemberArgs(),
						// The Job controller adds this variable to an Indexed
						// Job's containers itself; declared here, the $(...) in
						// the args plainly refers to it.
						Env: []corev1.EnvVar{{Name: IndexVar, ValueFrom: &corev1.EnvVarSource{
							FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.annotations['" + indexAnnotation + "']"}}}},
						Ports:        []corev1.ContainerPort{{Name: "metrics", ContainerPort: int32(s.MetricsPort)}},
						VolumeMounts: mounts,
					}},
					Volumes: volumes,
				},
			},
		},
	}

	suspend := true
	f.Merge = &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: s.meta(s.MergeJobName(), "merge"),
		Spec: batchv1.JobSpec{
			Suspend:      &suspend,
			BackoffLimit: &zero,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: s.labels("merge")},
				Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyNever,
					Containers: []corev1.Container{{
						Name:         "merge",
						Image:        s.Image,
						Command:      []string{"loadgen"},
						Args:         s.mergeArgs(),
						VolumeMounts: []corev1.VolumeMount{resultsMount},
					}},
					Volumes: []corev1.Volume{results},
				},
			},
		},
	}
	return f, nil
}

func (s Spec) labels(component string) map[string]string {
	return map[string]string{
		"app.kubernetes.io/name":      "commentbench",
		"app.kubernetes.io/instance":  s.Name,
		"app.kubernetes.io/component": component,
		RunIDLabel:                    s.RunID,
	}
}

func (s Spec) meta(name, component string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: s.Namespace, Labels: s.labels(component)}
}
