package kube

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"go.yaml.in/yaml/v3"
)

// Write prints the fleet's objects as one multi-document YAML, in the
// order kubectl should create them, with comments that say what each is.
func (s Spec) Write(w io.Writer) error {
	f, err := s.Build()
	if err != nil {
		return err
	}
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	for _, obj := range f.Objects() {
		doc, err := toNode(obj)
		if err != nil {
			return err
		}
		s.annotate(doc, obj == any(f.Merge))
		if err := enc.Encode(doc); err != nil {
			return err
		}
	}
	return enc.Close()
}

// toNode turns an object into YAML the way kubectl would read it back:
// through its JSON form (the API's field names and omissions), fields in
// the types' order, with the empty values the JSON form keeps for structs
// (creationTimestamp: null, status: {}) left out.
func toNode(obj any) (*yaml.Node, error) {
	data, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil { // JSON is YAML
		return nil, err
	}
	tidy(&doc)
	root := doc.Content[0]
	front(root, "apiVersion", "kind")
	if spec := child(root, "spec"); spec != nil {
		front(spec, "completionMode", "completions", "parallelism", "backoffLimitPerIndex", "backoffLimit", "suspend")
		if pod := child(child(spec, "template"), "spec"); pod != nil {
			front(pod, "restartPolicy", "containers")
		}
	}
	return &doc, nil
}

// front moves the given keys of a mapping, those it has, to its start.
func front(n *yaml.Node, keys ...string) {
	var first, rest []*yaml.Node
	for _, k := range keys {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == k {
				first = append(first, n.Content[i], n.Content[i+1])
			}
		}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if !slices.Contains(keys, n.Content[i].Value) {
			rest = append(rest, n.Content[i], n.Content[i+1])
		}
	}
	n.Content = append(first, rest...)
}

// child is the value of a mapping's key, or nil.
func child(n *yaml.Node, k string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == k {
			return n.Content[i+1]
		}
	}
	return nil
}

// tidy drops null values and empty mappings (none of the objects built
// here has an empty mapping that means anything, as emptyDir: {} would),
// and clears the JSON's flow and quoting styles so the encoder writes
// block YAML, quoting only what would read back as another type.
func tidy(n *yaml.Node) {
	n.Style = 0
	for _, c := range n.Content {
		tidy(c)
	}
	if n.Kind != yaml.MappingNode {
		return
	}
	kept := n.Content[:0]
	for i := 0; i+1 < len(n.Content); i += 2 {
		v := n.Content[i+1]
		if v.Tag == "!!null" || (v.Kind == yaml.MappingNode && len(v.Content) == 0) {
			continue
		}
		kept = append(kept, n.Content[i], v)
	}
	n.Content = kept
}

// annotate writes the comments a reader of the YAML needs.
func (s Spec) annotate(doc *yaml.Node, merge bool) {
	root := doc.Content[0]
	switch {
	case child(root, "kind").Value == "ConfigMap":
		root.HeadComment = fmt.Sprintf("The files the members read, mounted read-only at %s/FLAG/NAME.", s.filesDir())
	case merge:
		root.HeadComment = fmt.Sprintf("Merges the members' results into %s.\n"+
			"Created suspended: start it once job/%s has finished:\n"+
			"  kubectl%s patch job %s --type=merge -p '{\"spec\":{\"suspend\":false}}'",
			s.MergedDir(), s.Name, s.nsFlag(), s.MergeJobName())
	default:
		root.HeadComment = fmt.Sprintf("Run %s: %d loadgen members, one pod per completion index;\n"+
			"a pod's index (%s) is its --worker-index.\n"+
			"Results: %s/member-INDEX.", s.RunID, s.Members, IndexVar, s.RunDir())
		if k := key(root, "spec", "backoffLimitPerIndex"); k != nil {
			k.HeadComment = "A failed member is not retried: a retry would start late, out of step\n" +
				"with the fleet, and loadgen refuses a results directory a first try\n" +
				"wrote into. A failure fails its own index only, so the other members\n" +
				"run on (one that exits 1, an --slo breached, has written its results);\n" +
				"backoffLimit, left out, is then unlimited. backoffLimit: 0 instead would\n" +
				"stop every member at the first failure. Needs Kubernetes 1.29 or later."
		}
	}
}

func (s Spec) nsFlag() string {
	if s.Namespace == "" {
		return ""
	}
	return " -n " + s.Namespace
}

// key finds the key node at a path of mapping keys.
func key(n *yaml.Node, path ...string) *yaml.Node {
	for _, p := range path[:len(path)-1] {
		n = child(n, p)
	}
	if n == nil {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == path[len(path)-1] {
			return n.Content[i]
		}
	}
	return nil
}
