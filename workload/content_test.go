package workload

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

var testContentSpec = ContentSpec{Korean: 0.5, MedianChars: 40, MaxChars: 1000}

func TestContentCharsLongTail(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	n := make([]int, 20_000)
	for i := range n {
		n[i] = testContentSpec.Chars(r)
	}
	slices.Sort(n)
	median, p99 := n[len(n)/2], n[len(n)*99/100]
	if median < 36 || median > 44 {
		t.Errorf("median %d chars, want 40±4", median)
	}
	if p99 < 5*median {
		t.Errorf("p99 %d chars is not a long tail over median %d", p99, median)
	}
	if n[0] < 1 || n[len(n)-1] > testContentSpec.MaxChars {
		t.Errorf("lengths span %d..%d, want within 1..%d", n[0], n[len(n)-1], testContentSpec.MaxChars)
	}
}

func TestContentCharsClipped(t *testing.T) {
	c := ContentSpec{MedianChars: 40, MaxChars: 50}
	r := rand.New(rand.NewPCG(2, 2))
	hitMax := false
	for range 10_000 {
		n := c.Chars(r)
		if n < 1 || n > 50 {
			t.Fatalf("Chars = %d outside 1..50", n)
		}
		hitMax = hitMax || n == 50
	}
	if !hitMax {
		t.Error("the clip at max_chars was never reached")
	}
}

func TestContentText(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	for _, korean := range []float64{0, 0.5, 1} {
		c := ContentSpec{Korean: korean, MedianChars: 40, MaxChars: 1000}
		bytes, runes := 0, 0
		for chars := range 200 {
			s := c.Text(r, chars)
			if !utf8.ValidString(s) {
				t.Fatalf("korean %v: Text(%d) is not valid UTF-8: %q", korean, chars, s)
			}
			if got := utf8.RuneCountInString(s); got != chars {
				t.Fatalf("korean %v: Text(%d) has %d characters: %q", korean, chars, got, s)
			}
			if strings.HasPrefix(s, " ") || strings.HasSuffix(s, " ") {
				t.Fatalf("Text(%d) = %q has an outer space", chars, s)
			}
			if korean == 1 && chars >= 2 && len(s) <= chars {
				t.Errorf("Korean Text(%d) has %d bytes, want more than characters: %q", chars, len(s), s)
			}
			bytes, runes = bytes+len(s), runes+chars
		}
		if ratio := float64(bytes) / float64(runes); korean == 0 && ratio != 1 || korean > 0 && ratio < 1+korean {
			t.Errorf("korean %v: %.2f bytes per character", korean, ratio)
		}
	}
}

func TestContentOfBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	hangul := false
	for n := range 501 {
		s := ContentOfBytes(r, n)
		if len(s) != n || !utf8.ValidString(s) {
			t.Fatalf("ContentOfBytes(%d) = %q: %d bytes, valid UTF-8 %v", n, s, len(s), utf8.ValidString(s))
		}
		hangul = hangul || utf8.RuneCountInString(s) < n
	}
	if !hangul {
		t.Error("no Hangul in any content")
	}
	same := 0
	for range 100 {
		if ContentOfBytes(r, 30) == ContentOfBytes(r, 30) {
			same++
		}
	}
	if same > 2 {
		t.Errorf("%d of 100 pairs of 30-byte contents were equal", same)
	}
}

func TestContentSpecValidate(t *testing.T) {
	if err := testContentSpec.Validate(); err != nil {
		t.Fatal(err)
	}
	bad := map[string]ContentSpec{
		"korean: 1.5":       {Korean: 1.5, MedianChars: 40, MaxChars: 1000},
		"korean: -0.1":      {Korean: -0.1, MedianChars: 40, MaxChars: 1000},
		"median_chars: 0":   {MedianChars: 0, MaxChars: 1000},
		"max_chars: 10":     {MedianChars: 40, MaxChars: 10},
		"max_chars: 200000": {MedianChars: 40, MaxChars: 200_000},
	}
	for want, c := range bad {
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%+v.Validate() = %v, want %q", c, err, want)
		}
	}
}

// One draw a word still honours Korean's share, and reaches every word of
// both lists.
func TestContentWordMix(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for _, korean := range []float64{0, 0.3, 1} {
		c := ContentSpec{Korean: korean}
		seen := map[string]bool{}
		const n = 20000
		k := 0
		for range n {
			w := c.word(r)
			seen[w.s] = true
			if slices.Contains(koreanWords, w) {
				k++
			}
		}
		// 5 standard deviations of a binomial share at n draws.
		if got, sd := float64(k)/n, math.Sqrt(korean*(1-korean)/n); math.Abs(got-korean) > 5*sd {
			t.Errorf("korean %v: %v of the words are Korean", korean, got)
		}
		want := 0
		if korean > 0 {
			want += len(koreanWords)
		}
		if korean < 1 {
			want += len(englishWords)
		}
		if len(seen) != want {
			t.Errorf("korean %v: %d distinct words drawn, want all %d", korean, len(seen), want)
		}
	}
}

// A corpus's texts read as Text's do, have Text's bytes per character over
// many comments, and cost no allocation; a length it cannot hold is made
// by Text.
func TestCorpusText(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	for _, korean := range []float64{0, 0.5, 1} {
		c := ContentSpec{Korean: korean, MedianChars: 40, MaxChars: 1000}
		k := newCorpus(c, rand.New(rand.NewPCG(5, 5)))
		corpusRatio := float64(len(k.text)) / float64(len(k.at)-1)
		bytes, runes := 0, 0
		for i := range 20000 {
			chars := 1 + i%c.MaxChars
			s := k.Text(r, chars)
			if got := utf8.RuneCountInString(s); got != chars || !utf8.ValidString(s) {
				t.Fatalf("korean %v: Text(%d) has %d characters: %q", korean, chars, got, s)
			}
			if strings.HasPrefix(s, " ") || strings.HasSuffix(s, " ") {
				t.Fatalf("Text(%d) = %q has an outer space", chars, s)
			}
			if !strings.Contains(k.text, s) {
				t.Fatalf("Text(%d) = %q is not from the corpus", chars, s)
			}
			bytes, runes = bytes+len(s), runes+chars
		}
		ratio := float64(bytes) / float64(runes)
		if korean == 0 && ratio != 1 || korean > 0 && math.Abs(ratio-corpusRatio) > 0.05 {
			t.Errorf("korean %v: %.3f bytes per character, the corpus has %.3f", korean, ratio, corpusRatio)
		}
		if korean > 0 && corpusRatio < 1+korean {
			t.Errorf("korean %v: the corpus has %.2f bytes per character", korean, corpusRatio)
		}
		if n := testing.AllocsPerRun(100, func() { k.Text(r, 40) }); n != 0 {
			t.Errorf("korean %v: a 40-character text allocates %v times, want 0", korean, n)
		}
		long := len(k.at) // a rune more than the corpus holds
		if s := k.Text(r, long); utf8.RuneCountInString(s) != long || strings.Contains(k.text, s) {
			t.Errorf("korean %v: Text(%d) is not new text of that length", korean, long)
		}
	}
}
