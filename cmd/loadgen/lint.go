package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"commentbench/comments"
	"commentbench/keys"
	"commentbench/model"
	"commentbench/plan"
	"commentbench/store"
	"commentbench/workload"
)

// lint analyses a key design without running anything: each table's key
// as parts with offsets, an example key, the split points, bytes per
// comment, and what can be told statically (collisions, monotonic leading
// parts, scatter-gather listings). Exit 1 on a collision risk.
func lint(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("loadgen lint", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	layout := fs.String("layout", "", "key design: a built-in ("+strings.Join(keys.BuiltinNames(), ", ")+") or a design file")
	asJSON := fs.Bool("json", false, "print the report as a JSON document")
	print := fs.Bool("print", false, "print the design file itself")
	regions := fs.Int("regions", 8, "regions, for the split points of tables split by --regions")
	ids := fs.String("ids", "random", "id scheme, for the split points: "+strings.Join(keys.SchemeNames(), ", "))
	writes := fs.String("writes", "", "refuse the design (exit 2) if it cannot be written this way: "+strings.Join(comments.WritesNames(), ", "))
	pf := &planFlags{perDay: countFlag{v: 1_000_000, max: maxPlanCount}, days: countFlag{v: 30, max: maxPlanDays},
		regionSize: sizeFlag(10 << 30), maxRowSize: sizeFlag(store.DefaultMaxRowSize)}
	fs.Var(&pf.perDay, "comments-per-day", "wide rows: the rate their growth is projected at (loadgen plan's model)")
	fs.Var(&pf.days, "days", "wide rows: the days their growth is projected over")
	fs.Var(&pf.maxRowSize, "max-row-size", "wide rows: HBase's hbase.table.max.rowsize, past which a whole-row read fails")
	fs.StringVar(&pf.preset, "preset", "steady", "wide rows: the scenario whose popularity and values the projection takes: "+strings.Join(workload.PresetNames(), ", "))
	fs.Usage = func() {
		fmt.Fprint(stderr, "usage: loadgen lint --layout NAME|FILE [--json] [--print]\n\n"+
			"Shows a key design's keys, split points and bytes per comment, and what can be told\n"+
			"without running it. Exit 1 when an index key can collide, 0 otherwise, 2 on bad input.\n\n")
		fmt.Fprint(stderr, fs.FlagUsages())
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0
		}
		return fail(stderr, err)
	}
	if fs.NArg() > 0 {
		return fail(stderr, fmt.Errorf("lint: unexpected argument %q", fs.Arg(0)))
	}
	if *layout == "" {
		return fail(stderr, fmt.Errorf("lint: --layout is required (%s, or a design file)", strings.Join(keys.BuiltinNames(), ", ")))
	}
	d, err := keys.Load(*layout)
	if err != nil {
		return fail(stderr, fmt.Errorf("--layout: %w", err))
	}
	if *print {
		_, _ = stdout.Write(d.Source())
		return 0
	}
	if *writes != "" {
		w, err := comments.ParseWrites(*writes)
		if err == nil {
			err = comments.CheckWrites(d, w)
		}
		if err != nil {
			return fail(stderr, err)
		}
	}
	scheme, err := keys.SchemeByName(*ids)
	if err != nil {
		return fail(stderr, fmt.Errorf("--ids: %w", err))
	}
	r, err := d.Lint(scheme, *regions)
	if err != nil {
		return fail(stderr, fmt.Errorf("--regions %d: %w", *regions, err))
	}
	val := commentValueBytes()
	var rows *plan.Report
	if d.Wide() {
		pf.layout = *layout
		rep, err := pf.report(context.Background(), fs)
		if err != nil {
			return fail(stderr, err)
		}
		rows = &rep
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		var wide []plan.RowPlan
		if rows != nil {
			wide = rows.Rows
		}
		err = enc.Encode(struct {
			keys.LintReport
			CommentValueBytes int            `json:"comment_value_bytes"`
			WideRows          []plan.RowPlan `json:"wide_rows,omitempty"`
		}{r, val, wide})
	} else {
		err = printLint(stdout, r, val, rows)
	}
	if err != nil {
		return fail(stderr, err)
	}
	if r.CollisionRisk {
		return 1
	}
	return 0
}

// exampleContent is the content length lint prices a comment at.
const exampleContent = 100

// commentValueBytes is the JSON value of a comment with exampleContent
// bytes of content, as the comment table stores it.
func commentValueBytes() int {
	b, _ := model.JSON.Marshal(model.Comment{OrderID: "OgDjYiMuQt", ProductID: "PfHsNeVbRc", UserID: "UbXeWkQaTz",
		Content: strings.Repeat("x", exampleContent), Timestamp: 1795435200000})
	return len(b)
}

func printLint(w io.Writer, r keys.LintReport, commentValue int, rows *plan.Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "design %s (%s)\n", r.Design, r.File)
	if r.Description != "" {
		b.WriteString(wrap(r.Description, "  ", "  ", 78) + "\n")
	}
	for _, t := range r.Tables {
		parts := make([]string, len(t.Parts))
		for i, p := range t.Parts {
			parts[i] = fmt.Sprintf("%s@%d", p.Part, p.Offset)
		}
		fmt.Fprintf(&b, "\n%s  %s: %s\n", t.Table, shape(t), strings.Join(parts, " "))
		if t.Meta != "" {
			fmt.Fprintf(&b, "  meta     %s: the collection's count, before its entries\n", t.Meta)
		}
		if t.Value != "" {
			fmt.Fprintf(&b, "  value    a copy of the comment (a clustered listing)\n")
		}
		fmt.Fprintf(&b, "  example  %s\n           %s\n", t.Example, t.Readable)
		fmt.Fprintf(&b, "  splits   %s: %s\n", t.Splits, showPoints(t.Points))
		if t.Listing != "" {
			fmt.Fprintf(&b, "  listing  %s\n", t.Listing)
		}
	}
	fmt.Fprintf(&b, "\nbytes per comment written: keys %d, index values %d, comment value %d (JSON, %d bytes of content): %d in all\n",
		r.KeyBytesPerComment, r.IndexValueBytes, commentValue, exampleContent, r.KeyBytesPerComment+r.IndexValueBytes+commentValue)
	b.WriteString("\nfindings:\n")
	if len(r.Findings) == 0 {
		b.WriteString("  none\n")
	}
	for _, f := range r.Findings {
		label := "note"
		switch {
		case f.Risk:
			label = "RISK"
		case f.Hotspot:
			label = "HOT "
		}
		b.WriteString(wrap(fmt.Sprintf("%s %s (%s): %s", label, f.Table, f.Kind, f.Message), "  ", "       ", 78) + "\n")
	}
	if rows != nil {
		rows.PrintRows(&b)
	}
	if r.CollisionRisk {
		b.WriteString("\ncollision risk: comments can be lost (exit 1)\n")
	} else {
		b.WriteString("\nno collision risk\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// shape says how many bytes a table's key takes, and where its entries
// live when they are columns or in another table's rows.
func shape(t keys.TableLint) string {
	var where string
	if t.Store != "" {
		where = "in " + t.Store + "'s rows, "
	}
	if t.RowBytes == 0 {
		return fmt.Sprintf("%s%d bytes", where, t.Bytes)
	}
	return fmt.Sprintf("%scolumns of a row: row key %d bytes, column %d", where, t.RowBytes, t.Bytes-t.RowBytes)
}

// showPoints lists split points, the first and last few of a long list.
func showPoints(ps []string) string {
	if len(ps) == 0 {
		return "none (one region)"
	}
	if len(ps) > 6 {
		return fmt.Sprintf("%s ... %s (%d)", strings.Join(ps[:3], " "), strings.Join(ps[len(ps)-2:], " "), len(ps))
	}
	return strings.Join(ps, " ")
}
