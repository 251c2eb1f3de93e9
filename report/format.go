package report

import (
	"fmt"
	"strconv"
	"strings"
)

// The page's numbers are written so a test (or a person) can read back the
// summary's figure: latencies in ms to the microsecond the histograms
// hold, counts whole with thousands separated, shares in percent to a
// tenth, ratios to a hundredth.

func ms(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }

func rate(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

func share(v float64) string { return strconv.FormatFloat(100*v, 'f', 1, 64) + "%" }

// share2 is a share to a hundredth of a percent: a row against the max
// row size is a small part of it, as the console shows it.
func share2(v float64) string { return strconv.FormatFloat(100*v, 'f', 2, 64) + "%" }

func ratio(v float64) string { return "×" + strconv.FormatFloat(v, 'f', 2, 64) }

func fixed2(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

// thousands writes n with commas: 2,096.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		return "-" + s
	}
	return s
}

func uthousands(n uint64) string { return thousands(int64(n)) }

// byteSize writes n bytes in binary units as the console does: "812 B",
// "4.6 MiB".
func byteSize(n int64) string {
	const units = "KMGTPE"
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	v, i := float64(n)/1024, 0
	for ; v >= 1024 && i < len(units)-1; i++ {
		v /= 1024
	}
	return fmt.Sprintf("%.1f %ciB", v, units[i])
}

// seconds shows a duration in seconds to the millisecond.
func seconds(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) + " s" }

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}
