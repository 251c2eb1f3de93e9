package keys

import (
	"math"
	"strings"
	"testing"
)

func TestRandomIDs(t *testing.T) {
	a, b := draw(NewRandom(newRand(9)), 1000), draw(NewRandom(newRand(9)), 1000)
	c := draw(NewRandom(newRand(10)), 1000)
	if strings.Join(a, "") != strings.Join(b, "") {
		t.Error("same seed, different ids: runs would not reproduce")
	}
	if strings.Join(a, "") == strings.Join(c, "") {
		t.Error("different seeds, same ids")
	}
	counts := map[rune]int{}
	for _, id := range draw(NewRandom(newRand(11)), sample) {
		if err := CheckID(id); err != nil {
			t.Fatal(err)
		}
		for _, ch := range id {
			counts[ch]++
		}
	}
	want := sample * IDLen / len(RandomLetters.Alphabet)
	for _, ch := range RandomLetters.Alphabet {
		if n := counts[ch]; n < want*9/10 || n > want*11/10 {
			t.Errorf("letter %c drawn %d times, want about %d", ch, n, want)
		}
	}
	if len(counts) != 52 {
		t.Errorf("%d distinct symbols, want 52 letters", len(counts))
	}
}

// Every position of an id is uniform on its own: a draw serves several
// letters, and the last of them must be as random as the first.
func TestRandomIDsEveryPosition(t *testing.T) {
	const n = 52 * 400
	var counts [IDLen][52]int
	for _, id := range draw(NewRandom(newRand(12)), n) {
		for i := range IDLen {
			counts[i][strings.IndexByte(RandomLetters.Alphabet, id[i])]++
		}
	}
	want, sd := 400.0, math.Sqrt(400*(1-1.0/52))
	for i := range IDLen {
		for l, got := range counts[i] {
			if math.Abs(float64(got)-want) > 5*sd {
				t.Errorf("position %d: letter %c drawn %d times, want about %v", i, RandomLetters.Alphabet[l], got, want)
			}
		}
	}
}

func TestSchemes(t *testing.T) {
	if got := strings.Join(SchemeNames(), ","); got != "random,sequential" {
		t.Errorf("SchemeNames() = %s", got)
	}
	for _, s := range []Scheme{RandomLetters, Base36} {
		got, err := SchemeByName(s.Name)
		if err != nil || got != s {
			t.Errorf("SchemeByName(%q) = %v, %v", s.Name, got, err)
		}
		if err := s.check(); err != nil {
			t.Error(err)
		}
	}
	if len(RandomLetters.Alphabet) != 52 || len(Base36.Alphabet) != 36 {
		t.Error("alphabet sizes")
	}
	if _, err := SchemeByName("uuid"); err == nil || !strings.Contains(err.Error(), "random, sequential") {
		t.Errorf("SchemeByName(uuid): %v", err)
	}
	if _, err := NewRandomIn(newRand(1), Scheme{Name: "bad", Alphabet: "ba"}); err == nil {
		t.Error("NewRandomIn accepted an unsorted alphabet")
	}
	if NewRandom(newRand(1)).Scheme() != RandomLetters || NewSequential(0, 1).Scheme() != Base36 {
		t.Error("generators report the wrong scheme")
	}
}

func TestSequentialIDs(t *testing.T) {
	ids := draw(NewSequential(0, 1), 50_000)
	if ids[0] != "0000000000" || ids[35] != "000000000z" || ids[36] != "0000000010" {
		t.Errorf("ids 0, 35, 36 = %s %s %s", ids[0], ids[35], ids[36])
	}
	for i, id := range ids {
		if err := CheckID(id); err != nil {
			t.Fatal(err)
		}
		if i > 0 && ids[i-1] >= id {
			t.Fatalf("id %d %q not above %q", i, id, ids[i-1])
		}
	}
	space := uint64(1)
	for range IDLen {
		space *= 36
	}
	if space != SequentialSpace {
		t.Errorf("SequentialSpace = %d, want 36^10 = %d", SequentialSpace, space)
	}
	if got := draw(NewSequential(SequentialSpace-1, 1), 2); got[0] != "zzzzzzzzzz" || got[1] != "0000000000" {
		t.Errorf("at the end of the space: %q, want wrap to zero", got)
	}
	if got := draw(NewSequential(5, 0), 2); got[1] != "0000000006" {
		t.Errorf("step 0: %q, want step 1", got)
	}
}

// TestSequentialPartition: workers i of n with start=i, step=n share no id
// and together cover the counter's first n·k values.
func TestSequentialPartition(t *testing.T) {
	const workers, each = 4, 1000
	seen := map[string]int{}
	for w := range workers {
		for _, id := range draw(NewSequential(uint64(w), workers), each) {
			if prev, dup := seen[id]; dup {
				t.Fatalf("id %s from workers %d and %d", id, prev, w)
			}
			seen[id] = w
		}
	}
	for _, id := range draw(NewSequential(0, 1), workers*each) {
		if _, ok := seen[id]; !ok {
			t.Fatalf("id %s not produced by any worker", id)
		}
	}
}
