package workload

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"commentbench/keys"

	"go.yaml.in/yaml/v3"
)

func TestPresetsValidate(t *testing.T) {
	want := []string{"ci", "consistency", "deep-pagination", "flash-sale", "shapes", "steady", "trial"}
	if got := PresetNames(); !slices.Equal(got, want) {
		t.Fatalf("PresetNames() = %v, want %v", got, want)
	}
	for _, name := range want {
		s, err := Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(); err != nil {
			t.Errorf("preset %s: %v", name, err)
		}
		if s.Name != name || !strings.HasPrefix(s.Describe(), name+": "+s.Description) {
			t.Errorf("preset %s: name %q, Describe %q", name, s.Name, s.Describe())
		}
	}
	_, err := Preset("turbo")
	if err == nil || !strings.Contains(err.Error(), strings.Join(want, ", ")) {
		t.Errorf("Preset(turbo) error %v, want the preset names", err)
	}
}

func TestPresetReturnsFreshMix(t *testing.T) {
	a, _ := Preset("steady")
	a.Mix["write"] = 0
	if b, _ := Preset("steady"); b.Mix["write"] == 0 {
		t.Error("editing one preset's mix changed the next one")
	}
}

func TestCIPresetIsDeterministic(t *testing.T) {
	s, _ := Preset("ci")
	for _, name := range ActorNames {
		if s.Mix[name] <= 0 {
			t.Errorf("ci mix: %s has weight %v, want > 0", name, s.Mix[name])
		}
	}
	if s.RankEvery != 0 || s.Burst.Every != 0 || s.Rate != 0 || s.Ops <= 0 || s.Burst.EqualLength != 1 {
		t.Errorf("ci runs something on a clock or unbounded: %+v", s)
	}
}

func TestLoadScenarioOverlays(t *testing.T) {
	path := writeScenarioFile(t, "sale.yaml", `
preset: flash-sale
workers: 3
layout: unique
duration: 1m30s
warmup: 5
burst:
  size: 9
popularity: {exponent: 1.2}
mix:
  write: 1
  list: 2
`)
	s, err := LoadScenario(path)
	if err != nil {
		t.Fatal(err)
	}
	base, _ := Preset("flash-sale")
	if s.Name != "sale" || s.Workers != 3 || s.Layout != "unique" ||
		s.Duration != Duration(90*time.Second) || s.Warmup != Duration(5*time.Second) {
		t.Errorf("top-level fields not overlaid: %+v", s)
	}
	if s.Burst.Size != 9 || s.Burst.Every != base.Burst.Every || s.Burst.EqualLength != base.Burst.EqualLength {
		t.Errorf("burst = %+v, want size 9 over %+v", s.Burst, base.Burst)
	}
	if s.Popularity.Exponent != 1.2 || s.Popularity.HotProducts != base.Popularity.HotProducts {
		t.Errorf("popularity = %+v", s.Popularity)
	}
	if len(s.Mix) != 2 || s.Mix["write"] != 1 || s.Mix["list"] != 2 {
		t.Errorf("mix = %v, want the file's mix alone", s.Mix)
	}
	if s.Users != base.Users || s.Content != base.Content {
		t.Errorf("unset fields lost the preset's values: %+v", s)
	}
}

func TestLoadScenarioEmptyFileIsSteady(t *testing.T) {
	s, err := LoadScenario(writeScenarioFile(t, "empty.yml", ""))
	if err != nil {
		t.Fatal(err)
	}
	base, _ := Preset("steady")
	if s.Name != "empty" || s.Workers != base.Workers || s.Description == base.Description {
		t.Errorf("got %+v", s)
	}
}

func TestLoadScenarioErrors(t *testing.T) {
	cases := map[string]string{
		"seed: 2\nwrokers: 3":               `line 2: unknown key "wrokers"`,
		"burst: {sise: 3}":                  `line 1: unknown key "burst.sise"`,
		"workers: -1":                       "workers: -1 is out of range (want 1 to 10000)",
		"workers: many":                     `line 1: workers: "many" is not an integer`,
		"seed: -1":                          `seed: "-1" is not an integer of 0 or more`,
		"mix: {write: 1, jump: 2}":          `mix: unknown actor "jump"`,
		"mix: {write: x}":                   `line 1: mix.write: "x" is not a number`,
		"mix: {write: -1, list: 1}":         "mix.write: -1 is out of range",
		"mix: {write: 0}":                   "mix: no actor has a weight above 0",
		"mix: [write]":                      "mix: a list is not a mapping",
		"mix: {write: 1, write: 2}":         "mix.write: given twice (first at line 1)",
		"duration: soon":                    `line 1: duration: "soon" is not a duration`,
		"duration: 0\nops: 0":               "duration 0 and ops 0: the run would never stop",
		"warmup: -1s":                       "warmup: -1s is out of range",
		"interval: 1ms":                     "interval: 1ms is out of range (want 10ms or more)",
		"layout: hex":                       `layout: unknown layout "hex" (want one of seed, unique, salted, hashed, time-led, between, feed, or a design file`,
		"scan: full":                        `scan: scan mode "full"`,
		"ids: uuid":                         `ids: unknown id scheme "uuid"`,
		"arrival: bursty":                   `arrival: "bursty" (want constant or poisson)`,
		"ramp: 10:1:1/1s":                   `ramp: --ramp "10:1:1/1s": To 1 is below From 10`,
		"rate: -5":                          "rate: -5 is out of range",
		"burst: {equal_length: 1.5}":        "burst.equal_length: 1.5 is out of range (want 0 to 1)",
		"burst: {size: 1, every: 1s}":       "burst.size: 1 is out of range (want 2 to",
		"burst: 5":                          `line 1: burst: "5" is not a mapping of every, size, equal_length`,
		"popularity: {hot_products: 5}":     "popularity.hot_share: 0 with hot_products 5",
		"popularity: {exponent: 11}":        "popularity.exponent: 11 is out of range (want 0 to 10)",
		"popularity: {hot_products: -1}":    "popularity.hot_products: -1 is out of range",
		"content: {korean: 2}":              "content.korean: 2 is out of range (want 0 to 1)",
		"content: {max_chars: 3}":           "content.max_chars: 3 is out of range",
		"page_size: 0":                      "page_size: 0 is out of range",
		"max_pages: -2":                     "max_pages: -2 is out of range",
		"multi_order: 1":                    "multi_order: 1 is out of range (want 2 to 100)",
		"load_per_user: -1":                 "load_per_user: -1 is out of range (want 0 to 1000)",
		"load_per_user: 1001":               "load_per_user: 1001 is out of range (want 0 to 1000)",
		"users: 200000\nload_per_user: 501": "load_per_user: 501 comments for each of 200000 users is 100200000, over 100000000",
		"regions: 0":                        "regions: 0 is out of range",
		"name: ''":                          `name: ""`,
		"preset: turbo":                     `line 1: preset: "turbo" is not a preset (want one of ci,`,
		"workers: 2\nworkers: 3":            "line 2: workers: given twice (first at line 1)",
		"- workers":                         "line 1: want a mapping of scenario fields, not a list",
		"workers: [1":                       "yaml:",
	}
	for body, want := range cases {
		_, err := LoadScenario(writeScenarioFile(t, "bad.yaml", body))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("file %q: error %v\nwant it to contain %q", body, err, want)
		}
	}
}

func TestLoadScenarioMissingFile(t *testing.T) {
	if _, err := LoadScenario(filepath.Join(t.TempDir(), "nope.yaml")); err == nil || !strings.Contains(err.Error(), "nope.yaml") {
		t.Errorf("error %v, want it to name the file", err)
	}
}

func TestValidateListsEveryProblem(t *testing.T) {
	s, _ := Preset("steady")
	s.Workers, s.Layout, s.Mix["dance"] = 0, "hex", 1
	err := s.Validate()
	if err == nil || !strings.Contains(err.Error(), "has 3 problems") {
		t.Fatalf("error %v, want 3 problems", err)
	}
	for _, want := range []string{"workers: 0", `layout: unknown layout "hex"`, `mix: unknown actor "dance"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %v lacks %q", err, want)
		}
	}
}

func TestDurationYAML(t *testing.T) {
	good := map[string]time.Duration{
		"30s": 30 * time.Second, "1m30s": 90 * time.Second, "90": 90 * time.Second,
		"1.5": 1500 * time.Millisecond, "0": 0, "'250ms'": 250 * time.Millisecond,
	}
	for in, want := range good {
		var v struct{ D Duration }
		if err := yaml.Unmarshal([]byte("d: "+in), &v); err != nil || time.Duration(v.D) != want {
			t.Errorf("d: %s = %v, %v; want %v", in, v.D, err, want)
		}
		out, err := yaml.Marshal(v)
		var back struct{ D Duration }
		if err != nil || yaml.Unmarshal(out, &back) != nil || back != v {
			t.Errorf("d: %s does not round-trip through %q", in, out)
		}
	}
	for _, in := range []string{"abc", "[1]", "1e30", "10 parsecs", "{s: 1}"} {
		var v struct{ D Duration }
		if err := yaml.Unmarshal([]byte("d: "+in), &v); err == nil {
			t.Errorf("d: %s decoded to %v, want an error", in, v.D)
		}
	}
}

func TestDurationFlag(t *testing.T) {
	var d Duration
	if err := d.Set("2m"); err != nil || d != Duration(2*time.Minute) || d.Type() != "duration" {
		t.Errorf("Set(2m): %v, %v", d, err)
	}
	if err := d.Set("later"); err == nil || !strings.Contains(err.Error(), `"later" is not a duration`) {
		t.Errorf("Set(later) error %v", err)
	}
}

func TestScenarioSet(t *testing.T) {
	s, _ := Preset("steady")
	sets := [][2]string{
		{"workers", "4"}, {"burst.size", "9"}, {"mix.write", "7"}, {"duration", "1m"},
		{"layout", "unique"}, {"name", "123"}, {"ramp", "1:2:1/1s"}, {"content.korean", "1"},
	}
	for _, kv := range sets {
		if err := s.Set(kv[0], kv[1]); err != nil {
			t.Fatalf("Set(%s, %s): %v", kv[0], kv[1], err)
		}
	}
	base, _ := Preset("steady")
	if s.Workers != 4 || s.Burst.Size != 9 || s.Burst.EqualLength != base.Burst.EqualLength ||
		s.Mix["write"] != 7 || s.Mix["list"] != base.Mix["list"] || s.Duration != Duration(time.Minute) ||
		s.Layout != "unique" || s.Name != "123" || s.Ramp != "1:2:1/1s" || s.Content.Korean != 1 {
		t.Errorf("after Set: %+v", s)
	}
	if base.Mix["write"] == 7 {
		t.Error("Set changed a shared mix")
	}
	if err := s.Set("mix", "{list: 1}"); err != nil || len(s.Mix) != 1 {
		t.Errorf("Set(mix, {list: 1}) = %v, mix %v", err, s.Mix)
	}
	bad := map[[2]string]string{
		{"wrokers", "1"}:    `unknown key "wrokers"`,
		{"burst.sise", "1"}: `unknown key "burst.sise"`,
		{"workers", "x"}:    `workers: "x" is not an integer`,
		{"mix.write", "x"}:  `mix.write: "x" is not a number`,
		{"warmup", "soon"}:  `warmup: "soon" is not a duration`,
	}
	for kv, want := range bad {
		if err := s.Set(kv[0], kv[1]); err == nil || err.Error() != want && !strings.HasPrefix(err.Error(), want) {
			t.Errorf("Set(%s, %s) error %v, want %q", kv[0], kv[1], err, want)
		}
	}
}

func writeScenarioFile(t *testing.T, name, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A scenario's layout may be a design file's path; a file that is missing
// or does not parse is a problem of the layout field, naming the file.
func TestScenarioLayoutFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "mine.yaml")
	src := strings.Replace(string(keys.Unique.Source()), "name: unique", "name: mine", 1)
	if err := os.WriteFile(good, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := LoadScenario(writeScenarioFile(t, "own.yaml", "preset: ci\nlayout: "+good))
	if err != nil || s.Layout != good {
		t.Fatalf("layout file: %v, layout %q; want %q accepted", err, s.Layout, good)
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("name: bad\ntables:\n  user:\n    key: nosuchpart\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{bad, filepath.Join(dir, "absent.yaml")} {
		_, err := LoadScenario(writeScenarioFile(t, "own.yaml", "preset: ci\nlayout: "+path))
		if err == nil || !strings.Contains(err.Error(), "layout: ") || !strings.Contains(err.Error(), path) {
			t.Errorf("layout %s: error %v; want a layout problem naming the file", path, err)
		}
	}
}
