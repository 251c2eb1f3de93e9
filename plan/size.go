package plan

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// MaxSize bounds a size so products of sizes and counts stay exact in an
// int64 and in a float64's integers.
const MaxSize = 1 << 50 // 1 PiB

// sizeUnits are the suffixes ParseSize takes: binary ones (what HBase's
// hbase.hregion.max.filesize defaults are quoted in) and decimal ones (what
// disks are sold in).
var sizeUnits = []struct {
	name string
	mult float64
}{
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
	{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1},
}

// SizeSyntax says what ParseSize accepts, for error messages and help.
const SizeSyntax = "a whole number of bytes, or a number with B, KB, MB, GB, TB, KiB, MiB, GiB or TiB (e.g. 10GiB, 512MiB, 1GB), at most 1PiB"

// ErrSize is every size ParseSize refuses.
var ErrSize = errors.New("bad size")

// ParseSize reads "10GiB", "512MiB", "1GB", "1.5GiB" or a plain number of
// bytes. Units are matched without regard to case; the result is at least
// one byte.
func ParseSize(s string) (int64, error) {
	num, mult, err := splitUnit(strings.TrimSpace(s))
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || strings.ContainsAny(num, "eEx_") {
		return 0, fmt.Errorf("%w: %q is not a number of bytes (want %s)", ErrSize, s, SizeSyntax)
	}
	n := math.Floor(v * mult)
	switch {
	case mult == 1 && v != math.Trunc(v):
		return 0, fmt.Errorf("%w: %q is not a whole number of bytes (want %s)", ErrSize, s, SizeSyntax)
	case v < 0:
		return 0, fmt.Errorf("%w: %q is negative (want %s)", ErrSize, s, SizeSyntax)
	case n < 1:
		return 0, fmt.Errorf("%w: %q is less than one byte (want %s)", ErrSize, s, SizeSyntax)
	case n > MaxSize:
		return 0, fmt.Errorf("%w: %q is more than 1PiB (want %s)", ErrSize, s, SizeSyntax)
	}
	return int64(n), nil
}

// splitUnit cuts the unit off a size: the letters at its end.
func splitUnit(s string) (num string, mult float64, err error) {
	i := strings.LastIndexFunc(s, func(r rune) bool { return r >= '0' && r <= '9' || r == '.' })
	num, unit := s[:i+1], strings.TrimSpace(s[i+1:])
	if unit == "" {
		return num, 1, nil
	}
	for _, u := range sizeUnits {
		if strings.EqualFold(unit, u.name) {
			return num, u.mult, nil
		}
	}
	return "", 0, fmt.Errorf("%w: %q has an unknown unit %q (want %s)", ErrSize, s, unit, SizeSyntax)
}

// FormatSize writes bytes in binary units with three significant figures:
// "812 B", "1.46 KiB", "12.3 GiB".
func FormatSize(b float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	i := 0
	for ; math.Abs(b) >= 1024 && i < len(units)-1; i++ {
		b /= 1024
	}
	switch {
	case i == 0:
		return fmt.Sprintf("%.0f B", b)
	case b >= 100 || b == math.Trunc(b):
		return fmt.Sprintf("%.0f %s", b, units[i])
	case b >= 10:
		return fmt.Sprintf("%.1f %s", b, units[i])
	}
	return fmt.Sprintf("%.2f %s", b, units[i])
}
