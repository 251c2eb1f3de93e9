// Package buildinfo says which build of commentbench is running, for
// --version and the results a run writes: the module version and, when
// built from a checkout, the commit and whether it had local changes.
//
// It must not know anything else.
package buildinfo

import (
	"runtime/debug"
	"strings"
)

// Version is the module version, then the VCS revision (12 hex digits,
// "+dirty" for a modified tree) and the Go version.
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	parts := []string{bi.Main.Version}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value[:min(12, len(s.Value))]
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if rev != "" {
		parts = append(parts, rev+dirty)
	}
	return strings.Join(append(parts, bi.GoVersion), " ")
}
