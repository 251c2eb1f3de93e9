// A scenario is every knob of a run. Presets name scenarios; a YAML file
// overlays one; command-line flags override single knobs through Set.

package workload

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"commentbench/comments"
	"commentbench/faults"
	"commentbench/keys"
	"commentbench/pace"
	"commentbench/servermodel"
)

// Bounds that catch typos (an extra zero) before they cost a long seeding.
const (
	MaxPopulation = 10_000_000 // users, products or sellers
	MaxWorkers    = 10_000
	MaxBurstSize  = 10_000
	MaxMultiOrder = 100
	// MaxLoadPerUser and MaxLoad bound the load phase: load_per_user, and
	// the comments it writes in all.
	MaxLoadPerUser = 1_000
	MaxLoad        = 100_000_000
	MinInterval    = 10 * time.Millisecond
)

// Scenario is every knob of a run. The zero value is not runnable: start
// from Preset or LoadScenario.
type Scenario struct {
	Name        string `yaml:"name" json:"name"`
	Description string `yaml:"description" json:"description"`
	// System is the seed's whole design at once: "seed" (its keys, its
	// scans, its rank upsert) or "fixed" (collision-free keys, bounded
	// scans, a rank job that deletes what a shorter ranking leaves). It
	// sets Layout, Scan and Ranks; a layout or scan given after it wins.
	System string `yaml:"system" json:"system,omitempty"`
	Layout string `yaml:"layout" json:"layout"` // keys.Load: a built-in design or a design file
	Scan   string `yaml:"scan" json:"scan"`     // comments.ParseScanMode: "bounded" | "seed"
	// Ranks is how the ranking job writes: "upsert" (the seed's: ranks past
	// a shorter new ranking stay) or "replace" (they are deleted).
	Ranks string `yaml:"ranks" json:"ranks"`
	// Writes is how a comment write keeps its listing entries in step
	// (comments.ParseWrites): "non-atomic" (the seed's), "one-row",
	// "verified" or "transactional".
	Writes string `yaml:"writes" json:"writes"`
	// Faults are the failures injected into comment writes and edits:
	// odds per request of failing and of losing its reply, and per write
	// of its writer stopping partway.
	Faults faults.Spec `yaml:"faults" json:"faults,omitempty"`
	IDs    string      `yaml:"ids" json:"ids"` // keys.SchemeByName: "random" | "sequential"
	// Clock stamps comments: "wall" (milliseconds of real time: comments
	// share one by chance too) or "logical" (a millisecond per stamp: only
	// bursts and multi-product orders share one, so a seed fixes the run).
	Clock string `yaml:"clock" json:"clock"`
	Seed  uint64 `yaml:"seed" json:"seed"`

	// The population seeded before the run, and regions per table.
	Users    int `yaml:"users" json:"users"`
	Products int `yaml:"products" json:"products"`
	Sellers  int `yaml:"sellers" json:"sellers"`
	Regions  int `yaml:"regions" json:"regions"`

	// The run stops at Duration or after Ops operations, whichever comes
	// first; 0 turns either off, but not both. Warmup runs before Duration
	// and is not recorded.
	Duration Duration `yaml:"duration" json:"duration"`
	Ops      int64    `yaml:"ops" json:"ops"`
	Warmup   Duration `yaml:"warmup" json:"warmup"`
	Workers  int      `yaml:"workers" json:"workers"`
	// LoadPerUser is a load phase, as YCSB runs one before its workload:
	// before the warm-up the workers write Users x LoadPerUser comments
	// (on average this many a user) through the write path as fast as the
	// store takes them, unrecorded. The run then measures a store whose
	// listings and timelines are already full, not one filling from empty.
	LoadPerUser int `yaml:"load_per_user" json:"load_per_user,omitempty"`

	// Rate 0 and Ramp "" is a closed loop: each worker starts its next
	// operation when the last one ends. Otherwise arrivals are open loop at
	// Rate ops/s, or follow Ramp (pace.ParseRamp syntax), which overrides
	// Rate so a --ramp flag works over any preset.
	Rate     float64  `yaml:"rate" json:"rate"`
	Arrival  string   `yaml:"arrival" json:"arrival"` // "constant" | "poisson"
	Ramp     string   `yaml:"ramp" json:"ramp"`
	Interval Duration `yaml:"interval" json:"interval"` // how often results are reported

	Popularity PopularitySpec `yaml:"popularity" json:"popularity"`
	Content    ContentSpec    `yaml:"content" json:"content"`
	PageSize   int            `yaml:"page_size" json:"page_size"`
	MaxPages   int            `yaml:"max_pages" json:"max_pages"`   // pager depth limit, 0 = to the end
	RankEvery  Duration       `yaml:"rank_every" json:"rank_every"` // 0 = ranker runs only from the mix
	// RankShrink is how often (0..1) a product's new ranking is shorter
	// than its best comments allow, as when good comments lose their
	// standing: what leaves stale ranks under the seed's upsert.
	RankShrink float64   `yaml:"rank_shrink" json:"rank_shrink"`
	Burst      BurstSpec `yaml:"burst" json:"burst"`
	MultiOrder int       `yaml:"multi_order" json:"multi_order"` // products per multi-product order

	// Mix weighs the actors (ActorNames) each worker picks from.
	Mix map[string]float64 `yaml:"mix" json:"mix"`

	// ServerModel puts a modeled region server in front of each of the
	// embedded engine's servers (capacity 0: none), so a hot server is
	// felt as latency. A real cluster's servers are real: on the hbase
	// backend a scenario's model is left off.
	ServerModel servermodel.Spec `yaml:"server_model" json:"server_model"`
}

// PopularitySpec is how products are picked; see NewPopularity.
type PopularitySpec struct {
	Exponent    float64 `yaml:"exponent" json:"exponent"`         // Zipf exponent, 0 = uniform
	HotProducts int     `yaml:"hot_products" json:"hot_products"` // size of an explicit hot set, 0 = none
	HotShare    float64 `yaml:"hot_share" json:"hot_share"`       // fraction of picks going to the hot set
	// HotUsers and HotUserShare are the same for users: a few who comment
	// in a streak (their timelines, and under the seed's keys their
	// same-millisecond comments, take the load).
	HotUsers     int     `yaml:"hot_users" json:"hot_users"`
	HotUserShare float64 `yaml:"hot_user_share" json:"hot_user_share"`
}

// BurstSpec shapes flash-sale bursts: Size comments on one product in one
// millisecond, EqualLength of them sharing one byte length (which is what
// makes the seed layout's product-comment keys collide).
type BurstSpec struct {
	Every       Duration `yaml:"every" json:"every"` // 0 = bursts only when picked from the mix
	Size        int      `yaml:"size" json:"size"`
	EqualLength float64  `yaml:"equal_length" json:"equal_length"` // 0..1
}

// ActorNames are the actors a mix may weigh, in the order runs use them.
var ActorNames = []string{"write", "burst", "multi-order", "list", "pager", "timeline", "ranker", "ranked", "editor", "latest"}

// Duration is a time.Duration read from YAML or a flag as "30s" or
// "1m30s", or as a plain number of seconds.
type Duration time.Duration

// ParseDuration reads "30s", "1m30s", or a number of seconds such as "90"
// or "0.5".
func ParseDuration(s string) (Duration, error) {
	s = strings.TrimSpace(s)
	if d, err := time.ParseDuration(s); err == nil {
		return Duration(d), nil
	}
	secs, err := strconv.ParseFloat(s, 64)
	// The bound keeps the conversion to nanoseconds from overflowing.
	if err != nil || math.IsNaN(secs) || math.Abs(secs) >= math.MaxInt64/1e9 {
		return 0, fmt.Errorf("%q is not a duration (want e.g. 30s, 1m30s, or a number of seconds)", s)
	}
	return Duration(secs * float64(time.Second)), nil
}

func (d Duration) String() string { return time.Duration(d).String() }

// UnmarshalYAML reads the forms ParseDuration accepts.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("want a duration, not a %s", nodeKind(n))
	}
	v, err := ParseDuration(n.Value)
	if err == nil {
		*d = v
	}
	return err
}

// MarshalYAML writes the form people type, so a dumped scenario reads back.
func (d Duration) MarshalYAML() (any, error) { return d.String(), nil }

// MarshalJSON writes the same form, so summary.json reads "30s", not ns.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// UnmarshalJSON reads what MarshalJSON wrote.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	return d.Set(s)
}

// Set and Type make *Duration a pflag.Value.
func (d *Duration) Set(s string) error {
	v, err := ParseDuration(s)
	if err == nil {
		*d = v
	}
	return err
}

// Type names the flag's value in help text.
func (d *Duration) Type() string { return "duration" }

// Validate checks every field; each problem names the yaml field, its
// value and what is allowed.
func (s Scenario) Validate() error {
	var errs []error
	for _, check := range []func() []error{s.checkChoices, s.checkSizes, s.checkTimes, s.checkPopularity, s.checkBurst, s.checkMix} {
		for _, err := range check() {
			if err != nil {
				errs = append(errs, err)
			}
		}
	}
	if err := s.Content.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("content.%w", err))
	}
	return joinProblems(s.Name, errs)
}

// joinProblems lists every problem, so one edit of a file fixes them all.
func joinProblems(name string, errs []error) error {
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("scenario %q: %w", name, errs[0])
	}
	lines := make([]string, len(errs))
	for i, err := range errs {
		lines[i] = "\n\t" + err.Error()
	}
	return fmt.Errorf("scenario %q has %d problems:%s", name, len(errs), strings.Join(lines, ""))
}

func (s Scenario) checkChoices() []error {
	var errs []error
	if s.Name == "" {
		errs = append(errs, errors.New(`name: "" (want a name for reports)`))
	}
	if _, err := keys.Load(s.Layout); err != nil {
		errs = append(errs, fmt.Errorf("layout: %w", err))
	}
	if _, err := comments.ParseScanMode(s.Scan); err != nil {
		errs = append(errs, fmt.Errorf("scan: %w", err))
	}
	if w, err := comments.ParseWrites(s.Writes); err != nil {
		errs = append(errs, err)
	} else if d, err := keys.Load(s.Layout); err == nil {
		if err := comments.CheckWrites(d, w); err != nil {
			errs = append(errs, err)
		}
	}
	if err := s.Faults.Validate(); err != nil {
		errs = append(errs, err)
	}
	if s.System != "" && systems[s.System] == nil {
		errs = append(errs, fmt.Errorf("system: %q (want seed or fixed)", s.System))
	}
	if s.Clock != "wall" && s.Clock != "logical" {
		errs = append(errs, fmt.Errorf("clock: %q (want wall or logical)", s.Clock))
	}
	if s.Ranks != "upsert" && s.Ranks != "replace" {
		errs = append(errs, fmt.Errorf("ranks: %q (want upsert or replace)", s.Ranks))
	}
	if _, err := keys.SchemeByName(s.IDs); err != nil {
		errs = append(errs, fmt.Errorf("ids: %w", err))
	}
	if s.Arrival != "constant" && s.Arrival != "poisson" {
		errs = append(errs, fmt.Errorf("arrival: %q (want constant or poisson)", s.Arrival))
	}
	if s.Ramp != "" {
		if _, err := pace.ParseRamp(s.Ramp); err != nil {
			errs = append(errs, fmt.Errorf("ramp: %w", err))
		}
	}
	return errs
}

func (s Scenario) checkSizes() []error {
	errs := []error{
		intWithin("users", s.Users, 1, MaxPopulation),
		intWithin("products", s.Products, 1, MaxPopulation),
		intWithin("sellers", s.Sellers, 1, MaxPopulation),
		intWithin("regions", s.Regions, 1, keys.MaxRegions),
		intWithin("workers", s.Workers, 1, MaxWorkers),
		intWithin("page_size", s.PageSize, 1, comments.MaxPageSize),
		intWithin("max_pages", s.MaxPages, 0, math.MaxInt32),
		intWithin("load_per_user", s.LoadPerUser, 0, MaxLoadPerUser),
		intWithin("multi_order", s.MultiOrder, 2, MaxMultiOrder),
	}
	if n := int64(s.Users) * int64(s.LoadPerUser); n > MaxLoad {
		errs = append(errs, fmt.Errorf("load_per_user: %d comments for each of %d users is %d, over %d (lower load_per_user or users)", s.LoadPerUser, s.Users, n, MaxLoad))
	}
	if s.Mix["multi-order"] > 0 && s.MultiOrder > s.Products {
		errs = append(errs, fmt.Errorf("multi_order: %d is more than products %d (an order's products are distinct)", s.MultiOrder, s.Products))
	}
	return errs
}

func (s Scenario) checkTimes() []error {
	errs := []error{
		durationAtLeast("duration", s.Duration, 0),
		durationAtLeast("warmup", s.Warmup, 0),
		durationAtLeast("interval", s.Interval, Duration(MinInterval)),
		durationAtLeast("rank_every", s.RankEvery, 0),
	}
	if s.Ops < 0 {
		errs = append(errs, fmt.Errorf("ops: %d is out of range (want 0 or more)", s.Ops))
	}
	if s.ServerModel.On() {
		if _, err := s.ServerModel.Options(); err != nil {
			errs = append(errs, fmt.Errorf("server_model: %w", err))
		}
	}
	if s.Duration == 0 && s.Ops == 0 {
		errs = append(errs, errors.New("duration 0 and ops 0: the run would never stop; give a duration with a unit (30s) or a number of operations"))
	}
	if !(s.Rate >= 0) || math.IsInf(s.Rate, 0) {
		errs = append(errs, fmt.Errorf("rate: %v is out of range (want 0 for a closed loop, or ops/s above 0)", s.Rate))
	}
	return errs
}

func (s Scenario) checkPopularity() []error {
	p := s.Popularity
	errs := []error{
		floatWithin("rank_shrink", s.RankShrink, 0, 1),
		floatWithin("popularity.exponent", p.Exponent, 0, MaxExponent),
		intWithin("popularity.hot_products", p.HotProducts, 0, s.Products),
		floatWithin("popularity.hot_share", p.HotShare, 0, 1),
	}
	errs = append(errs, intWithin("popularity.hot_users", p.HotUsers, 0, s.Users),
		floatWithin("popularity.hot_user_share", p.HotUserShare, 0, 1))
	if (p.HotUsers > 0) != (p.HotUserShare > 0) {
		errs = append(errs, fmt.Errorf("popularity.hot_user_share: %v with hot_users %d (want both 0, or both above 0)", p.HotUserShare, p.HotUsers))
	}
	if (p.HotProducts > 0) != (p.HotShare > 0) {
		errs = append(errs, fmt.Errorf("popularity.hot_share: %v with hot_products %d (want both 0, or both above 0)", p.HotShare, p.HotProducts))
	} else if s.Products > 0 && p.HotProducts == s.Products && p.HotShare < 1 { // no products: said once, above
		errs = append(errs, fmt.Errorf("popularity.hot_share: %v with every product hot (want 1)", p.HotShare))
	}
	return errs
}

func (s Scenario) checkBurst() []error {
	b := s.Burst
	minSize := 0
	if b.Every > 0 || s.Mix["burst"] > 0 {
		minSize = 2 // a burst of one collides with nothing
	}
	return []error{
		durationAtLeast("burst.every", b.Every, 0),
		intWithin("burst.size", b.Size, minSize, MaxBurstSize),
		floatWithin("burst.equal_length", b.EqualLength, 0, 1),
	}
}

func (s Scenario) checkMix() []error {
	var errs []error
	positive := false
	for _, name := range slices.Sorted(maps.Keys(s.Mix)) {
		w := s.Mix[name]
		switch {
		case !slices.Contains(ActorNames, name):
			errs = append(errs, fmt.Errorf("mix: unknown actor %q (want one of %s)", name, strings.Join(ActorNames, ", ")))
		case !(w >= 0) || math.IsInf(w, 0):
			errs = append(errs, fmt.Errorf("mix.%s: %v is out of range (want a weight of 0 or more)", name, w))
		}
		positive = positive || w > 0
	}
	if !positive {
		errs = append(errs, fmt.Errorf("mix: no actor has a weight above 0 (actors: %s)", strings.Join(ActorNames, ", ")))
	}
	return errs
}

func intWithin(field string, v, lo, hi int) error {
	if v < lo || v > hi {
		return fmt.Errorf("%s: %d is out of range (want %d to %d)", field, v, lo, hi)
	}
	return nil
}

func floatWithin(field string, v, lo, hi float64) error {
	if !(v >= lo && v <= hi) {
		return fmt.Errorf("%s: %v is out of range (want %v to %v)", field, v, lo, hi)
	}
	return nil
}

func durationAtLeast(field string, d, lo Duration) error {
	if d < lo {
		return fmt.Errorf("%s: %v is out of range (want %v or more)", field, d, lo)
	}
	return nil
}

// LoadScenario reads a YAML file of scenario fields over a preset: the one
// its top-level "preset" key names, or "steady". Keys the file leaves out
// keep the preset's values, except that a mix replaces the preset's mix
// whole (a merged mix would run actors the file does not list). Unknown
// keys and values of the wrong type are errors naming the key and line;
// the result is validated.
func LoadScenario(path string) (Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Scenario{}, err
	}
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	s, err := parseScenario(data, name)
	if err != nil {
		return Scenario{}, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// parseScenario overlays data on its base preset; name is used when the
// file does not name itself.
func parseScenario(data []byte, name string) (Scenario, error) {
	root, err := yamlRoot(data)
	if err != nil {
		return Scenario{}, err
	}
	base, root, err := takePreset(root)
	if err != nil {
		return Scenario{}, err
	}
	s, _ := Preset(base)
	s.Name, s.Description = name, fmt.Sprintf("Loaded from a file over the %s preset.", base)
	if err := overlayScenario(&s, root); err != nil {
		return Scenario{}, err
	}
	return s, s.Validate()
}

// yamlRoot returns the top-level mapping, or an empty one for an empty file.
func yamlRoot(data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 {
		return &yaml.Node{Kind: yaml.MappingNode}, nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("line %d: want a mapping of scenario fields, not a %s", root.Line, nodeKind(root))
	}
	return root, nil
}

// takePreset removes a top-level "preset" key and returns its value.
func takePreset(root *yaml.Node) (string, *yaml.Node, error) {
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if k.Value != "preset" {
			continue
		}
		if _, err := Preset(v.Value); err != nil || v.Kind != yaml.ScalarNode {
			return "", nil, fmt.Errorf("line %d: preset: %q is not a preset (want one of %s)", v.Line, v.Value, strings.Join(PresetNames(), ", "))
		}
		rest := *root
		rest.Content = slices.Delete(slices.Clone(root.Content), i, i+2)
		return v.Value, &rest, nil
	}
	return "steady", root, nil
}

// Set overrides one knob by its yaml name, dotted for nested fields
// ("burst.size", "mix.write"); value is read as YAML would read it in a
// file ("30s", "0.5", "{write: 1, list: 2}"). It is how flags override a
// scenario. Call Validate after the last Set.
func (s *Scenario) Set(key, value string) error {
	n := &yaml.Node{Kind: yaml.ScalarNode, Value: value}
	if strings.HasPrefix(strings.TrimSpace(value), "{") {
		root, err := yamlRoot([]byte(value))
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		n = root
	}
	parts := strings.Split(key, ".")
	if len(parts) == 2 && parts[0] == "mix" {
		return s.setMixWeight(parts[1], n)
	}
	return overlayScenario(s, nest(parts, n))
}

// nest wraps n in one single-key mapping per part, as a file would nest it.
func nest(parts []string, n *yaml.Node) *yaml.Node {
	for i := len(parts) - 1; i >= 0; i-- {
		n = &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{{Kind: yaml.ScalarNode, Value: parts[i]}, n}}
	}
	return n
}

// setMixWeight changes one weight and keeps the others.
func (s *Scenario) setMixWeight(actor string, n *yaml.Node) error {
	var w float64
	if err := n.Decode(&w); err != nil {
		return fmt.Errorf("mix.%s: %q is not a number", actor, n.Value)
	}
	mix := maps.Clone(s.Mix)
	if mix == nil {
		mix = map[string]float64{}
	}
	mix[actor] = w
	s.Mix = mix
	return nil
}

// systems are what System sets.
var systems = map[string]func(*Scenario){
	"seed":  func(s *Scenario) { s.Layout, s.Scan, s.Ranks = "seed", "seed", "upsert" },
	"fixed": func(s *Scenario) { s.Layout, s.Scan, s.Ranks = "unique", "bounded", "replace" },
}

// SetSystem applies a System value: it sets Layout, Scan and Ranks. An
// unknown value is kept for Validate to name.
func (s *Scenario) SetSystem(name string) {
	s.System = name
	if apply := systems[name]; apply != nil {
		apply(s)
	}
}

// overlayScenario sets the fields of s that mapping m names, by yaml tag.
// A system it names applies first, so the layout, scan or ranks it also
// names override the system's.
func overlayScenario(s *Scenario, m *yaml.Node) error {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == "system" && m.Content[i+1].Kind == yaml.ScalarNode {
			s.SetSystem(m.Content[i+1].Value)
		}
	}
	return overlayStruct(reflect.ValueOf(s).Elem(), m, "")
}

// overlayStruct recurses into nested specs instead of decoding them whole,
// so a file that sets burst.size keeps the preset's burst.every.
func overlayStruct(v reflect.Value, m *yaml.Node, prefix string) error {
	return eachPair(m, prefix, func(k, val *yaml.Node, name string) error {
		f, ok := fieldByTag(v, k.Value)
		if !ok {
			return fmt.Errorf("%sunknown key %q (want one of %s)", lineOf(k), name, strings.Join(yamlKeys(v.Type(), prefix), ", "))
		}
		return setField(f, val, name)
	})
}

// eachPair walks a mapping's pairs, rejecting a key given twice (plain
// decoding would silently keep the last).
func eachPair(m *yaml.Node, prefix string, fn func(k, v *yaml.Node, name string) error) error {
	seen := map[string]int{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if v.Kind == yaml.AliasNode {
			v = v.Alias
		}
		name := prefix + k.Value
		if line, dup := seen[k.Value]; dup {
			return fmt.Errorf("%s%s: given twice (first at line %d)", lineOf(k), name, line)
		}
		seen[k.Value] = k.Line
		if err := fn(k, v, name); err != nil {
			return err
		}
	}
	return nil
}

func setField(f reflect.Value, n *yaml.Node, name string) error {
	switch f.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return fmt.Errorf("%s%s: %s is not a mapping of %s", lineOf(n), name, nodeShown(n), strings.Join(yamlKeys(f.Type(), ""), ", "))
		}
		return overlayStruct(f, n, name+".")
	case reflect.Map:
		return setMap(f, n, name)
	}
	v := reflect.New(f.Type())
	if err := n.Decode(v.Interface()); err != nil {
		return fmt.Errorf("%s%s: %s is not %s", lineOf(n), name, nodeShown(n), yamlWant(f.Type()))
	}
	f.Set(v.Elem())
	return nil
}

// setMap replaces the map (see LoadScenario) and decodes each value alone
// so an error names the entry.
func setMap(f reflect.Value, n *yaml.Node, name string) error {
	if n.Kind != yaml.MappingNode {
		return fmt.Errorf("%s%s: %s is not a mapping of actor name to weight", lineOf(n), name, nodeShown(n))
	}
	m := reflect.MakeMap(f.Type())
	err := eachPair(n, name+".", func(k, val *yaml.Node, entry string) error {
		v := reflect.New(f.Type().Elem())
		if err := val.Decode(v.Interface()); err != nil {
			return fmt.Errorf("%s%s: %s is not %s", lineOf(val), entry, nodeShown(val), yamlWant(f.Type().Elem()))
		}
		m.SetMapIndex(reflect.ValueOf(k.Value), v.Elem())
		return nil
	})
	if err == nil {
		f.Set(m)
	}
	return err
}

func fieldByTag(v reflect.Value, tag string) (reflect.Value, bool) {
	for i := range v.NumField() {
		if yamlName(v.Type().Field(i)) == tag {
			return v.Field(i), true
		}
	}
	return reflect.Value{}, false
}

func yamlKeys(t reflect.Type, prefix string) []string {
	names := make([]string, t.NumField())
	for i := range names {
		names[i] = prefix + yamlName(t.Field(i))
	}
	return names
}

func yamlName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	return name
}

// at prefixes a node's line; nodes built by Set have none.
func lineOf(n *yaml.Node) string {
	if n.Line == 0 {
		return ""
	}
	return fmt.Sprintf("line %d: ", n.Line)
}

func nodeShown(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return strconv.Quote(n.Value)
	}
	return "a " + nodeKind(n)
}

func nodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	}
	return "scalar"
}

func yamlWant(t reflect.Type) string {
	if t == reflect.TypeFor[Duration]() {
		return "a duration (want e.g. 30s, 1m30s, or a number of seconds)"
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int64:
		return "an integer"
	case reflect.Uint64:
		return "an integer of 0 or more"
	case reflect.Float64:
		return "a number"
	}
	return "a " + t.Kind().String()
}
