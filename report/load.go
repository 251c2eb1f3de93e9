package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"commentbench/check"
	"commentbench/keys"
	"commentbench/results"
)

// Files a run dir must hold for a report: the summary, and the two streamed
// CSVs the charts over time and key space are drawn from.
const (
	TimelineFile = "timeline.csv"
	RegionsFile  = "regions.csv"
	// ServersFile is the server model's per-interval utilization (issue 13):
	// drawn when a run wrote it.
	ServersFile = "servers.csv"
)

var requiredFiles = []string{results.SummaryFile, TimelineFile, RegionsFile}

// InputError is input the report cannot be made from: a dir that is not a
// run, a run missing files, runs that do not compare. Commands exit 2 on it.
type InputError struct{ err error }

func (e *InputError) Error() string { return e.err.Error() }
func (e *InputError) Unwrap() error { return e.err }

// inputErr is fmt.Errorf's error (%w wraps the cause) marked as bad input.
func inputErr(format string, a ...any) error { return &InputError{err: fmt.Errorf(format, a...)} }

// Run is one run dir as the report reads it.
type Run struct {
	Dir     string
	Label   string // what the page calls the run: its system, else its design
	Summary results.Summary
	Config  Config
	// Verify is verify's report when `verify --out` wrote one into the dir.
	Verify   *check.Report
	Timeline []TimelineRow
	Regions  []RegionRow
	Servers  *ServerSeries // nil unless the server model wrote servers.csv
	Extras   Extras
	// Lint is the design's lint, LintErr why there is none (a design file
	// that is not where the run found it, say).
	Lint    *keys.LintReport
	LintErr string
}

// Config is what the report needs of the run's recorded configuration.
type Config struct {
	Scenario       ScenarioInfo
	scenarioFields map[string]json.RawMessage // every knob, to compare runs by
	Backend        string                     `json:"backend"`
	Servers        int                        `json:"servers"`
	Version        string                     `json:"version"`
	RegionCounters string                     `json:"region_counters"`
}

// ScenarioInfo is the scenario's knobs the page shows.
type ScenarioInfo struct {
	Name     string  `json:"name"`
	System   string  `json:"system"`
	Layout   string  `json:"layout"`
	Scan     string  `json:"scan"`
	Ranks    string  `json:"ranks"`
	Writes   string  `json:"writes"`
	IDs      string  `json:"ids"`
	Seed     uint64  `json:"seed"`
	Regions  int     `json:"regions"`
	Duration string  `json:"duration"`
	Warmup   string  `json:"warmup"`
	Ops      int64   `json:"ops"`
	Workers  int     `json:"workers"`
	Rate     float64 `json:"rate"`
	Ramp     string  `json:"ramp"`
	Interval string  `json:"interval"`
	PageSize int     `json:"page_size"`
}

// Load reads a run dir. A dir without summary.json is not a run; one
// without the CSVs is named with what it lacks.
func Load(dir string) (*Run, error) {
	fi, err := os.Stat(dir)
	if err != nil || !fi.IsDir() {
		return nil, inputErr("%s is not a directory: give a run's results dir (loadgen --out)", dir)
	}
	var missing []string
	for _, f := range requiredFiles {
		if _, err := os.Stat(filepath.Join(dir, f)); errors.Is(err, os.ErrNotExist) {
			missing = append(missing, f)
		}
	}
	if len(missing) == len(requiredFiles) || slices.Contains(missing, results.SummaryFile) && len(missing) > 1 {
		return nil, inputErr("%s is not a run: it holds none of %s", dir, strings.Join(missing, ", "))
	}
	if len(missing) > 0 {
		return nil, inputErr("%s: the run is missing %s", dir, strings.Join(missing, ", "))
	}
	r := &Run{Dir: dir}
	for _, step := range []func() error{r.readSummary, r.readVerify, r.readTimeline, r.readRegions, r.readServers} {
		if err := step(); err != nil {
			return nil, err
		}
	}
	r.lint()
	return r, nil
}

func (r *Run) readSummary() error {
	sum, err := results.ReadSummary(r.Dir)
	if err != nil {
		return inputErr("%s: %w", r.Dir, err)
	}
	r.Summary = sum
	if err := r.Config.parse(sum.Config); err != nil {
		return inputErr("%s: summary.json's config: %w", r.Dir, err)
	}
	r.Label = r.Config.Scenario.System
	if r.Label == "" {
		r.Label = r.Config.Scenario.Layout
	}
	if r.Label == "" {
		r.Label = filepath.Base(r.Dir)
	}
	extras, err := readExtras(filepath.Join(r.Dir, results.SummaryFile))
	if err != nil {
		return inputErr("%s: %w", r.Dir, err)
	}
	r.Extras = extras
	return nil
}

func (c *Config) parse(raw json.RawMessage) error {
	if len(raw) == 0 {
		return nil // a summary without its configuration: the header says so
	}
	var top struct {
		Scenario json.RawMessage `json:"scenario"`
	}
	if err := json.Unmarshal(raw, &top); err != nil {
		return err
	}
	if err := json.Unmarshal(raw, c); err != nil {
		return err
	}
	if len(top.Scenario) == 0 {
		return nil
	}
	if err := json.Unmarshal(top.Scenario, &c.Scenario); err != nil {
		return err
	}
	return json.Unmarshal(top.Scenario, &c.scenarioFields)
}

func (r *Run) readVerify() error {
	rep, found, err := check.ReadReport(r.Dir)
	if err != nil {
		return inputErr("%s: %w", r.Dir, err)
	}
	if found {
		r.Verify = &rep
	}
	return nil
}

// lint runs the design's static checks as the run was split. A design file
// given by a relative path is looked for from here, then beside the run.
func (r *Run) lint() {
	sc := r.Config.Scenario
	if sc.Layout == "" {
		r.LintErr = "the run records no key design"
		return
	}
	d, err := keys.Load(sc.Layout)
	if err != nil && !filepath.IsAbs(sc.Layout) {
		if d2, err2 := keys.Load(filepath.Join(r.Dir, sc.Layout)); err2 == nil {
			d, err = d2, nil
		}
	}
	if err != nil {
		r.LintErr = fmt.Sprintf("design %s: %v", sc.Layout, err)
		return
	}
	scheme, err := keys.SchemeByName(sc.IDs)
	if err != nil {
		scheme = keys.RandomLetters
	}
	rep, err := d.Lint(scheme, max(sc.Regions, 1))
	if err != nil {
		r.LintErr = fmt.Sprintf("lint %s: %v", sc.Layout, err)
		return
	}
	r.Lint = &rep
}
