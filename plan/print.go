package plan

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Print writes the plan for people: the inputs, a row per table, the
// totals, and what the model leaves out.
func (r Report) Print(w io.Writer) error {
	var b strings.Builder
	r.printHead(&b)
	fmt.Fprintf(&b, "\n%-20s %3s %6s %6s %8s %14s %9s %7s %7s\n",
		"table (modeled)", "key", "value", "cell", "/comment", "rows", "size", "regions", "new/day")
	for _, t := range r.Tables {
		fmt.Fprintf(&b, "%-20s %3d %6.1f %6.1f %8s %14s %9s %7d %7s\n", t.Table, t.KeyBytes, t.ValueBytes, t.CellBytes,
			showPerComment(t), Count(t.Rows), FormatSize(t.Bytes), t.Regions, perDay(t.NewRegionsPerDay))
	}
	fmt.Fprintf(&b, "%-20s %3s %6s %6s %8.1f %14s %9s %7d %7s\n", "total", "", "", "", r.Total.PerComment,
		Count(r.Total.Rows), FormatSize(r.Total.Bytes), r.Total.Regions, perDay(r.Total.NewRegionsPerDay))
	r.PrintRows(&b)
	r.printFoot(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

func (r Report) printHead(b *strings.Builder) {
	in := r.Inputs
	fmt.Fprintf(b, "storage plan (modeled) for design %s: %s comments a day for %d days\n",
		r.Design, Count(in.CommentsPerDay), in.Days)
	fmt.Fprintf(b, "  %s users, %s products, %s sellers; %.3g order(s) per comment; regions of %s\n",
		Count(in.Users), Count(in.Products), Count(in.Sellers), in.OrdersPerComment, FormatSize(float64(in.RegionSize)))
	fmt.Fprintf(b, "%s\n%s\n", r.unit(), wrap("cell = "+r.CellFormula, "  ", "         ", 80))
	fmt.Fprintf(b, "  family %q (%d bytes), qualifier %q (%d); an index row's value is the comment's row key\n",
		r.Family, len(r.Family), r.Qualifier, len(r.Qualifier))
	fmt.Fprintf(b, "%s\n", wrap("entity values: "+r.Values.Source, "", "  ", 80))
}

// unit says what the plan's rows are: rows of one cell, or, in a design
// with wide rows, entries (a row of the seed's one column, or a column of
// a wide row), each one cell.
func (r Report) unit() string {
	if r.Wide {
		return "an entry (a row of one cell, or one column of a wide row) is one cell, as HBase stores a KeyValue:"
	}
	return "a row is one cell, as HBase stores a KeyValue:"
}

func (r Report) printFoot(b *strings.Builder) {
	t := r.Total
	fmt.Fprintf(b, "\na comment adds %.0f bytes (its comment, order and index rows); after %d days: %s\n",
		t.PerComment, r.Inputs.Days, FormatSize(t.Bytes))
	fmt.Fprintf(b, "×%d on HDFS with replication %d, before compression: %s\n", r.Replication, r.Replication, FormatSize(t.ReplicatedBytes))
	fmt.Fprintf(b, "regions: bytes over the region size, rounded up; a region splits when it reaches\n"+
		"the size, so a table can hold up to twice as many half-full ones\n")
	b.WriteString("not modeled:\n")
	for _, n := range r.NotModeled {
		fmt.Fprintf(b, "%s\n", wrap("- "+n, "  ", "    ", 80))
	}
}

func showPerComment(t TablePlan) string {
	if t.PerComment == nil {
		return "-"
	}
	return strconv.FormatFloat(*t.PerComment, 'f', 1, 64)
}

func perDay(v float64) string {
	return strconv.FormatFloat(v, 'g', 2, 64)
}

// Count writes n with thousands separators: 1,000,000.
func Count(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// wrap breaks s at spaces into lines of at most width runes, the first
// indented by first, the rest by rest.
func wrap(s, first, rest string, width int) string {
	var b strings.Builder
	n := 0
	for i, w := range strings.Fields(s) {
		switch {
		case i == 0:
			b.WriteString(first)
			n = len(first)
		case n+1+len(w) > width:
			b.WriteString("\n" + rest)
			n = len(rest)
		default:
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}
