package main

import (
	"fmt"
	"io"
	"strings"

	"commentbench/check"
)

// printReport writes the report for people, at 80 columns: the counters,
// the samples of every non-zero one, the data spread, the repair, and the
// verdict last.
func printReport(w io.Writer, r check.Report, how string, dryRun bool) error {
	var b strings.Builder
	fmt.Fprintf(&b, "layout %s (%s), writes %s; %d comments checked\n\n", r.Layout, how, cmpOr(r.Writes, "non-atomic"), r.References.Comments)
	fmt.Fprintf(&b, "%-15s %8s %8s %6s %6s %6s %6s %5s %5s %5s\n", "index", "rows", "refd", "unref", "undef", "mismat", "collid", "extra", "badv", "undec")
	for _, ix := range r.Indexes {
		fmt.Fprintf(&b, "%-15s %8d %8d %6d %6d %6d %6d %5d %5d %5d\n", cut(ix.Table, 15), ix.Rows, ix.Referenced,
			ix.Unreferenced.Count, ix.Undefined.Count, ix.Mismatched.Count, ix.Collided.Count, ix.Extra.Count,
			ix.BadValue.Count, ix.Undecodable.Count)
	}
	for _, ix := range r.Indexes {
		if ix.Collections > 0 || ix.CountOff.Count > 0 {
			fmt.Fprintf(&b, "%s counts: %d collections, %d counting other than the entries their row holds\n",
				ix.Table, ix.Collections, ix.CountOff.Count)
		}
		if ix.Copies {
			fmt.Fprintf(&b, "%s copies: %d of its %d entries not what their comment says\n", ix.Table, ix.StaleCopies.Count, ix.Rows)
		}
		if r.Writes == "verified" {
			fmt.Fprintf(&b, "%s unverified: %d entries a writer did not finish, not drift: %d rolled forward (their comment is there), %d back (it is not)\n",
				ix.Table, ix.Unverified.Count, ix.Unverified.Count-ix.UnverifiedBack, ix.UnverifiedBack)
		}
	}
	if l := r.Locks; l != nil {
		fmt.Fprintf(&b, "locks of unfinished transactions, not drift: %d rows rolled forward (committed), %d back\n", l.RolledForward, l.RolledBack)
	}
	rk, rf := r.Ranks, r.References
	fmt.Fprintf(&b, "\nranks: %d rows, %d products; over limit %d, gaps %d, stale %d, dangling %d,\n  wrong product %d, unparsable %d, bad value %d, bad comment %d\n",
		rk.Rows, rk.Products, rk.OverLimit.Count, rk.Gaps.Count, rk.Stale.Count, rk.Dangling.Count, rk.WrongProduct.Count, rk.Unparsable.Count,
		rk.BadValue.Count, rk.BadComment.Count)
	fmt.Fprintf(&b, "references: bad comments %d, missing order %d, order of another user %d,\n  missing user %d, missing product %d, missing seller %d\n",
		rf.BadComments.Count, rf.MissingOrder.Count, rf.OrderUser.Count, rf.MissingUser.Count, rf.MissingProduct.Count, rf.MissingSeller.Count)
	if run := r.Run; run != nil {
		fmt.Fprintf(&b, "run %s: %d acknowledged, %d lost; unknown outcome: %d present, %d absent\n",
			run.Dir, run.Acked, run.Lost.Count, run.UnknownPresent, run.UnknownAbsent)
		if run.InFlightPresent+run.InFlightAbsent > 0 {
			fmt.Fprintf(&b, "  in flight when the run stopped (started, no outcome): %d present, %d absent\n", run.InFlightPresent, run.InFlightAbsent)
		}
		if run.NotInLedger.Count > 0 {
			fmt.Fprintf(&b, "  in the data, not in the ledger: %d (another run's writes, or records the ledger lost)\n", run.NotInLedger.Count)
		}
		if run.TornTails > 0 {
			fmt.Fprintf(&b, "  %d ledger files end in a record a crash tore: that write's outcome is unknown\n", run.TornTails)
		}
	}
	printFaults(&b, r.Faults)
	printSamples(&b, r)
	if r.Spread != nil {
		printSpread(&b, r.Spread)
	}
	if r.Repair != nil {
		printRepair(&b, r.Repair, dryRun)
	}
	fmt.Fprintf(&b, "\n%s\n", r.Verdict)
	_, err := io.WriteString(w, b.String())
	return err
}

func printSamples(b *strings.Builder, r check.Report) {
	type named struct {
		name string
		c    check.Counter
	}
	var all []named
	for _, ix := range r.Indexes {
		all = append(all, named{ix.Table + " unreferenced", ix.Unreferenced}, named{ix.Table + " undefined", ix.Undefined},
			named{ix.Table + " mismatched", ix.Mismatched}, named{ix.Table + " collided", ix.Collided},
			named{ix.Table + " extra references", ix.Extra}, named{ix.Table + " rows holding no comment key", ix.BadValue},
			named{ix.Table + " rows whose key does not decode", ix.Undecodable},
			named{ix.Table + " counts other than the entries their row holds", ix.CountOff},
			named{ix.Table + " copies that are not what their comment says", ix.StaleCopies})
	}
	rk, rf := r.Ranks, r.References
	all = append(all, named{"ranks over limit", rk.OverLimit}, named{"rank gaps", rk.Gaps}, named{"stale ranks", rk.Stale},
		named{"dangling ranks", rk.Dangling}, named{"ranks of another product", rk.WrongProduct}, named{"unparsable ranks", rk.Unparsable},
		named{"ranks naming no comment", rk.BadValue}, named{"ranks of a bad comment", rk.BadComment},
		named{"bad comments", rf.BadComments}, named{"missing orders", rf.MissingOrder}, named{"orders of another user", rf.OrderUser},
		named{"missing users", rf.MissingUser}, named{"missing products", rf.MissingProduct}, named{"missing sellers", rf.MissingSeller})
	if r.Run != nil {
		all = append(all, named{"lost acknowledged comments", r.Run.Lost}, named{"comments in no record of the run", r.Run.NotInLedger})
	}
	for _, n := range all {
		if n.c.Count == 0 {
			continue
		}
		fmt.Fprintf(b, "\n%s: %d, e.g.\n", n.name, n.c.Count)
		for _, s := range n.c.Samples[:min(3, len(n.c.Samples))] {
			fmt.Fprintf(b, "  %s\n", s)
		}
	}
}

func printSpread(b *strings.Builder, s *check.DataSpread) {
	fmt.Fprintf(b, "\ndata spread (by bytes)\n%-21s %8s %8s %8s %4s %6s %5s %6s %5s\n",
		"table", "rows", "cells", "bytes", "regs", "max/mn", "gini", "srv/mn", "gini")
	for _, t := range s.Tables {
		fmt.Fprintf(b, "%-21s %8d %8d %8s %4d %6.2f %5.2f %6.2f %5.2f\n", cut(t.Table, 21), t.Rows, t.Cells, bytesHuman(t.Bytes),
			len(t.Regions), t.RegionMaxMean, t.RegionGini, t.ServerMaxMean, t.ServerGini)
	}
	for _, t := range s.Tables {
		if len(t.BiggestRows) == 0 || t.Cells <= t.Rows {
			continue // rows of one cell each: none is bigger than a cell
		}
		fmt.Fprintf(b, "  %s: biggest rows", t.Table)
		for _, r := range t.BiggestRows {
			fmt.Fprintf(b, "  %s %d cells %s", r.Row, r.Cells, bytesHuman(r.Bytes))
		}
		fmt.Fprintln(b)
	}
	for _, t := range s.Tables {
		if len(t.Biggest) == 0 || t.Bytes == 0 {
			continue
		}
		big := t.Biggest[0]
		fmt.Fprintf(b, "  %s: largest %s %s on %s %s\n    smallest %s on %s\n", t.Table, bytesHuman(big.Bytes),
			fmt.Sprintf("(%d rows)", big.Rows), big.Server, big.Range, bytesHuman(t.Smallest.Bytes), t.Smallest.Server)
	}
	fmt.Fprintf(b, "servers:")
	for _, sv := range s.Servers {
		fmt.Fprintf(b, "  %s %d regions %d rows %s", sv.Server, sv.Regions, sv.Rows, bytesHuman(sv.Bytes))
	}
	fmt.Fprintln(b)
}

func printRepair(b *strings.Builder, r *check.RepairReport, dryRun bool) {
	verb := "repaired"
	if dryRun {
		verb = "would repair (dry run; add --yes to apply)"
	}
	fmt.Fprintf(b, "\nrepair: %s: write %d index rows, delete %d, rebuild %d rankings\n", verb, r.Puts, r.Deletes, r.Reranks)
	if r.Recounts > 0 {
		fmt.Fprintf(b, "  and set %d collections' counts to the entries their row holds\n", r.Recounts)
	}
	if r.Dropped > 0 {
		fmt.Fprintf(b, "  %d more actions did not fit in one pass: run again\n", r.Dropped)
	}
	for _, c := range r.Cannot {
		fmt.Fprintf(b, "  cannot repair: %s\n", c)
	}
}

func bytesHuman(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1fG", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1fM", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1fK", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%dB", n)
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "~"
}

// printFaults reconciles the run's injected failures: a line per kind of
// residue, what the run says its writes left (less what its readers set
// right) beside what the check found.
func printFaults(b *strings.Builder, f *check.FaultReport) {
	if f == nil {
		return
	}
	in := f.Injected
	fmt.Fprintf(b, "injected into the run (writes %s): %d failed writes, %d lost replies, %d abandoned writers\n",
		f.Writes, in.FailedWrites, in.LostReplies, in.AbandonedWriters)
	if f.Note != "" {
		fmt.Fprintf(b, "  %s\n", f.Note)
		return
	}
	for _, l := range f.Lines {
		if l.Expected == 0 && l.Found == 0 {
			continue
		}
		mark := "explained"
		if l.Expected != l.Found {
			mark = "NOT EXPLAINED"
		}
		fmt.Fprintf(b, "  %-48s %6d found, %6d left by the failures  %s\n", l.What, l.Found, l.Expected, mark)
	}
	switch {
	case f.Unknown > 0:
		fmt.Fprintf(b, "  %d writes failed in ways not injected: what they left is not known, so the counts may differ\n", f.Unknown)
	case len(f.Unexplained) == 0:
		fmt.Fprintf(b, "  every finding is explained by the injected failures\n")
	}
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
