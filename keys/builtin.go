package keys

import (
	"embed"
	"fmt"
	"os"
	"strings"
)

//go:embed designs/*.yaml
var builtinFS embed.FS

// builtinNames is the order the built-ins are listed in.
var builtinNames = []string{"seed", "unique", "salted", "hashed", "time-led"}

// Built-in designs, parsed once; a built-in that does not parse is a
// programming error that every test catches.
var (
	Seed   = mustBuiltin("seed")
	Unique = mustBuiltin("unique")
)

func mustBuiltin(name string) *Design {
	d, err := Builtin(name)
	if err != nil {
		panic(err)
	}
	return d
}

// BuiltinNames lists the built-in designs.
func BuiltinNames() []string { return append([]string(nil), builtinNames...) }

// Builtin returns a built-in design by name.
func Builtin(name string) (*Design, error) {
	src, err := builtinFS.ReadFile("designs/" + name + ".yaml")
	if err != nil {
		return nil, fmt.Errorf("unknown layout %q (want one of %s, or a design file's path)", name, strings.Join(builtinNames, ", "))
	}
	return Parse("builtin:"+name, src)
}

// Load takes a --layout value: a built-in's name, or the path of a design
// file (anything with a / or ending in .yaml or .yml).
func Load(nameOrPath string) (*Design, error) {
	if !strings.ContainsRune(nameOrPath, os.PathSeparator) && !strings.HasSuffix(nameOrPath, ".yaml") &&
		!strings.HasSuffix(nameOrPath, ".yml") {
		return Builtin(nameOrPath)
	}
	src, err := os.ReadFile(nameOrPath)
	if err != nil {
		return nil, fmt.Errorf("layout file: %w", err)
	}
	return Parse(nameOrPath, src)
}
