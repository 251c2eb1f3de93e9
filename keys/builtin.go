package keys

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

//go:embed designs/*.yaml
var builtinFS embed.FS

// builtinNames is the order the built-ins are listed in.
var builtinNames = []string{"seed", "unique", "salted", "hashed", "time-led", "between", "feed"}

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
// file. A built-in's name wins over a file of that name in the working
// directory; any other value is a path.
func Load(nameOrPath string) (*Design, error) {
	if _, err := builtinFS.Open("designs/" + nameOrPath + ".yaml"); err == nil && !strings.ContainsRune(nameOrPath, os.PathSeparator) {
		return Builtin(nameOrPath)
	}
	src, err := os.ReadFile(nameOrPath)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !strings.ContainsRune(nameOrPath, os.PathSeparator) &&
		!strings.HasSuffix(nameOrPath, ".yaml") && !strings.HasSuffix(nameOrPath, ".yml"):
		return Builtin(nameOrPath) // says which names there are
	case err != nil:
		return nil, fmt.Errorf("layout file: %w", err)
	}
	return Parse(nameOrPath, src)
}
