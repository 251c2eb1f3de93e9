package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"time"

	"commentbench/buildinfo"
)

//go:embed page.tmpl
var pageTemplate string

//go:embed style.css
var style string

var tmpl = template.Must(template.New("report").Funcs(template.FuncMap{
	"sub":       func(a, b int) int { return a - b },
	"captioned": func(caption string, rows any) captioned { return captioned{caption, rows} },
}).Parse(pageTemplate))

// captioned is a table's rows with the caption that names their run or
// runs: a table shown in several places is given its caption there.
type captioned struct {
	Caption string
	Rows    any
}

// FileName is the report loadgen writes into a run's dir.
const FileName = "report.html"

// LoadAll reads the run dirs and checks they compare (force: whatever
// their scenarios). Errors are *InputError.
func LoadAll(dirs []string, force bool) ([]*Run, error) {
	if len(dirs) == 0 {
		return nil, inputErr("give one run dir, or several to compare")
	}
	runs := make([]*Run, 0, len(dirs))
	for _, d := range dirs {
		r, err := Load(d)
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	if err := Comparable(runs, force); err != nil {
		return nil, err
	}
	labels(runs)
	return runs, nil
}

// Write renders one run's page, or the comparison of several, first run
// the reference.
func Write(w io.Writer, runs []*Run, now time.Time) error {
	font, err := fontCSS()
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	p := page{Title: title(runs), Compare: len(runs) > 1, Style: font + template.CSS(style),
		Generated: fmt.Sprintf("written %s by commentbench %s", now.UTC().Format(time.RFC3339), buildinfo.Version())}
	if p.Compare {
		p.Cmp, err = buildCompare(runs)
	} else {
		p.Run, err = buildRun(runs[0])
		if err == nil {
			err = drawRun(runs[0], p.Run, runDists, runTimeline, runHeatmaps, runServers)
		}
	}
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := tmpl.ExecuteTemplate(w, "page", p); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// WriteFile writes the page for dirs to path, atomically: a reader (or a
// browser reloading) never sees half a page.
func WriteFile(path string, dirs []string, force bool) error {
	runs, err := LoadAll(dirs, force)
	if err != nil {
		return err
	}
	return Save(path, runs)
}

// Save writes the page of runs loaded already to path, whole or not at
// all: a page half written is never left where the old one was.
func Save(path string, runs []*Run) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	err = Write(f, runs, time.Now())
	if err == nil {
		err = f.Chmod(0o644)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("report: write %s: %w", path, err)
	}
	return nil
}
