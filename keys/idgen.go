package keys

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"strings"
)

// Scheme is an id scheme: its flag name and the alphabet its ids are drawn
// from. SplitPoints needs the alphabet, not the generator, to cut the key
// space, so a pre-split table matches the ids the run will write.
type Scheme struct {
	Name     string
	Alphabet string // symbols in ascending byte order, each once
}

// RandomLetters is the seed's scheme (RandomStringUtils.randomAlphabetic):
// uniformly random ids spread rows over every region.
var RandomLetters = Scheme{Name: "random", Alphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"}

// Base36 is the sequential scheme's alphabet, digits before letters, so a
// zero-padded counter sorts bytewise in counting order: the monotonically
// increasing key that SCHEMA.md's hotspot rule warns about.
var Base36 = Scheme{Name: "sequential", Alphabet: "0123456789abcdefghijklmnopqrstuvwxyz"}

var schemes = []Scheme{RandomLetters, Base36}

// SchemeNames lists the values SchemeByName accepts, for flag help text.
func SchemeNames() []string {
	names := make([]string, len(schemes))
	for i, s := range schemes {
		names[i] = s.Name
	}
	return names
}

// SchemeByName maps an --ids flag value to its Scheme, so a typo fails at
// start-up with the allowed names.
func SchemeByName(name string) (Scheme, error) {
	for _, s := range schemes {
		if s.Name == name {
			return s, nil
		}
	}
	return Scheme{}, fmt.Errorf("unknown id scheme %q (want one of %s)", name, strings.Join(SchemeNames(), ", "))
}

// check rejects alphabets that would make "first symbols as a number"
// disagree with byte order, which SplitPoints relies on.
func (s Scheme) check() error {
	a := s.Alphabet
	if len(a) < 2 {
		return fmt.Errorf("id scheme %q: alphabet %q has %d symbols, want at least 2", s.Name, a, len(a))
	}
	for i := 1; i < len(a); i++ {
		if a[i-1] >= a[i] {
			return fmt.Errorf("id scheme %q: alphabet %q is not strictly ascending at byte %d", s.Name, a, i)
		}
	}
	return nil
}

// IDGen makes entity ids for a run. It is an interface so the workload can
// switch between the seed's random ids and sequential ones to show the
// hotspot the latter cause, and report which scheme it used.
type IDGen interface {
	Next() string
	Scheme() Scheme
}

// NewRandom draws ids of IDLen letters uniformly from RandomLetters, as the
// seed does. All randomness comes from r, so the same --seed reproduces the
// same ids. Not safe for concurrent use (neither is r): give each worker its
// own generator.
func NewRandom(r *rand.Rand) IDGen {
	return &random{r: r, s: RandomLetters}
}

type random struct {
	r *rand.Rand
	s Scheme
	x uint64 // the draw being read
}

// Next takes a draw for every 5 letters: the draw, as a fraction of 2^64,
// read as 5 digits in base len(Alphabet). Each letter is uniform to within
// len(Alphabet)^5 / 2^64 (about 2e-11 for the seed's letters), and an id
// costs 2 draws, not 10.
func (g *random) Next() string {
	n := uint64(len(g.s.Alphabet))
	var b [IDLen]byte
	for i := range b {
		if i%lettersPerDraw == 0 {
			g.x = g.r.Uint64()
		}
		var d uint64
		d, g.x = bits.Mul64(g.x, n)
		b[i] = g.s.Alphabet[d]
	}
	return string(b[:])
}

const lettersPerDraw = 5

func (g *random) Scheme() Scheme { return g.s }

// SequentialSpace is how many distinct sequential ids exist (36^10, about
// 3.7e15). The counter wraps modulo this; at a million ids a second that
// takes over a century, so wrapping is documented rather than guarded.
const SequentialSpace uint64 = 3656158440062976

// NewSequential counts start, start+step, start+2·step, ... as zero-padded
// base-36 ids: the anti-pattern where every new row lands at the end of the
// key space, so a table that splits as it grows takes all writes in its last
// region. Worker i of n uses start=i, step=n, so workers never share an id.
// start and step are taken modulo SequentialSpace; a step of 0 would repeat
// one id forever, so it counts as 1. Not safe for concurrent use.
func NewSequential(start, step uint64) IDGen {
	step %= SequentialSpace
	if step == 0 {
		step = 1
	}
	return &sequential{next: start % SequentialSpace, step: step}
}

type sequential struct{ next, step uint64 }

func (g *sequential) Next() string {
	v := g.next
	g.next = (g.next + g.step) % SequentialSpace
	var b [IDLen]byte
	for i := IDLen - 1; i >= 0; i-- {
		b[i] = Base36.Alphabet[v%36]
		v /= 36
	}
	return string(b[:])
}

func (g *sequential) Scheme() Scheme { return Base36 }
