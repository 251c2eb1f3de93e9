// Comment text: Korean and English review words with long-tailed lengths.
// Hangul takes 3 bytes in UTF-8, so a comment's byte length (which the seed
// layout puts in the product-comment key) differs from its character count.

package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"unicode/utf8"
)

// MaxContentChars bounds MaxChars: far beyond any review, and small enough
// that one comment cannot blow up a batch.
const MaxContentChars = 100_000

// lengthSigma is the log-normal spread of comment lengths: p99 is about
// e^(2.33·sigma) ≈ 10× the median, the shape of real review lengths (most
// are a line, a few are essays).
const lengthSigma = 1.0

// ContentSpec shapes comment text.
type ContentSpec struct {
	Korean      float64 `yaml:"korean" json:"korean"`             // fraction of words in Korean, 0..1
	MedianChars int     `yaml:"median_chars" json:"median_chars"` // median length in characters
	MaxChars    int     `yaml:"max_chars" json:"max_chars"`       // longest comment, in characters
}

// Validate names the yaml field, the value and the allowed range.
func (c ContentSpec) Validate() error {
	switch {
	case !(c.Korean >= 0 && c.Korean <= 1):
		return fmt.Errorf("korean: %v is out of range (want 0 to 1)", c.Korean)
	case c.MedianChars < 1 || c.MedianChars > MaxContentChars:
		return fmt.Errorf("median_chars: %d is out of range (want 1 to %d)", c.MedianChars, MaxContentChars)
	case c.MaxChars < c.MedianChars || c.MaxChars > MaxContentChars:
		return fmt.Errorf("max_chars: %d is out of range (want median_chars %d to %d)", c.MaxChars, c.MedianChars, MaxContentChars)
	}
	return nil
}

// Chars draws a comment length: log-normal with median MedianChars,
// clipped to [1, MaxChars].
func (c ContentSpec) Chars(r *rand.Rand) int {
	n := math.Round(float64(c.MedianChars) * math.Exp(lengthSigma*r.NormFloat64()))
	return int(max(1, min(n, float64(c.MaxChars))))
}

// Text returns exactly chars characters (runes) of space-separated review
// words, each Korean with probability c.Korean. The last word is cut to fit,
// and a final single free character becomes punctuation rather than a
// trailing space.
func (c ContentSpec) Text(r *rand.Rand, chars int) string {
	var b strings.Builder
	b.Grow(chars * 3)
	for left := chars; left > 0; {
		if left < chars {
			if left == 1 {
				b.WriteByte(".!?"[r.IntN(3)])
				break
			}
			b.WriteByte(' ')
			left--
		}
		left -= writePrefix(&b, c.word(r), left)
	}
	return b.String()
}

// word draws once: the high half of the draw picks the language, the low
// half the word (as a fraction of the list: the lists are far shorter than
// 2^32, so no word is favoured by more than 2^-25).
func (c ContentSpec) word(r *rand.Rand) word {
	x := r.Uint64()
	ws := englishWords
	if float64(x>>32) < c.Korean*(1<<32) {
		ws = koreanWords
	}
	return ws[(x&(1<<32-1))*uint64(len(ws))>>32]
}

// A word is a review word and its length in runes: Text counts runes, and
// a word that fits whole is written in one go.
type word struct {
	s     string
	runes int
}

func words(ws ...string) []word {
	out := make([]word, len(ws))
	for i, w := range ws {
		out[i] = word{w, utf8.RuneCountInString(w)}
	}
	return out
}

// writePrefix writes at most n runes of w and returns how many it wrote.
func writePrefix(b *strings.Builder, w word, n int) int {
	if w.runes <= n {
		b.WriteString(w.s)
		return w.runes
	}
	cut := 0
	for range n {
		_, size := utf8.DecodeRuneInString(w.s[cut:])
		cut += size
	}
	b.WriteString(w.s[:cut])
	return n
}

// ContentOfBytes returns exactly nbytes bytes of valid UTF-8 mixing 3-byte
// Hangul and ASCII. A burst uses it to give comments one byte length (so
// the seed layout's product-comment keys collide) while their texts differ.
func ContentOfBytes(r *rand.Rand, nbytes int) string {
	var b strings.Builder
	b.Grow(nbytes)
	for left := nbytes; left > 0; left = nbytes - b.Len() {
		if b.Len() > 0 && left > 1 {
			b.WriteByte(' ')
			left--
		}
		w := koreanWords[r.IntN(len(koreanWords))].s
		if r.IntN(2) == 0 {
			w = englishWords[r.IntN(len(englishWords))].s
		}
		if len(w) > left {
			w = fillerBytes(r, left)
		}
		b.WriteString(w)
	}
	return b.String()
}

// hangulBytes is the UTF-8 length of every precomposed Hangul syllable.
const hangulBytes = 3

// fillerBytes makes n bytes when no word fits: Hangul syllables while 3 bytes
// remain, then ASCII letters.
func fillerBytes(r *rand.Rand, n int) string {
	var b strings.Builder
	for ; n >= hangulBytes; n -= hangulBytes {
		b.WriteRune(rune(0xAC00 + r.IntN(11172))) // 가..힣
	}
	for ; n > 0; n-- {
		b.WriteByte(byte('a' + r.IntN(26)))
	}
	return b.String()
}

// Words people write in product reviews, so listings look like the real
// thing when someone inspects the tables.
var koreanWords = words(
	"좋아요", "배송", "빠르고", "만족합니다", "가격", "대비", "품질", "최고예요",
	"재구매", "의사", "있어요", "포장", "꼼꼼하게", "왔어요", "사이즈", "딱",
	"맞아요", "색상", "예뻐요", "생각보다", "작아요", "아쉬워요", "추천합니다", "튼튼하고",
	"가볍고", "편해요", "별로예요", "그냥", "그래요", "정말", "너무", "마음에",
	"들어요", "선물용으로", "샀는데", "부모님이", "좋아하세요", "냄새", "교환", "했어요",
	"디자인", "깔끔해요", "가성비", "두번째", "구매", "입니다", "감사합니다", "느려요",
)

var englishWords = words(
	"great", "fast", "shipping", "quality", "love", "it", "would", "buy",
	"again", "size", "fits", "perfectly", "color", "is", "nice", "cheap",
	"smaller", "than", "expected", "recommend", "sturdy", "comfortable", "packaging", "was",
	"damaged", "works", "fine", "value", "for", "money", "returned", "gift",
	"my", "kids", "the", "product", "arrived", "late", "not", "bad",
	"excellent", "okay", "disappointed", "five", "stars", "soft", "light", "broke",
)

// corpusRunes is the least a corpus holds: thousands of words, so that
// comments drawn from it rarely share more than a phrase, and few enough
// that it stays in a core's cache. At 65,536 runes a text cost four
// misses (its start, its end's offset, the rune before it, its first
// byte's offset): 350 ns, a seventh of a harness arrival, where at
// 16,384 it costs 60.
const corpusRunes = 1 << 14

// corpus is review text made once by ContentSpec.Text, from which each
// comment takes a slice: a comment write then draws no words and copies
// no bytes, where making its text was a tenth of the harness's time per
// arrival. A slice starts at a word and does not end on a space, so it
// reads as Text's do; the mix of Korean and English, and so the bytes per
// character, is the corpus's, which is Korean's share over many words.
type corpus struct {
	spec   ContentSpec
	text   string
	at     []int32 // the byte offset of each rune, and len(text) after the last
	starts []int32 // the runes that begin a word
}

// newCorpus makes a corpus of at least 4 times MaxChars runes, so that
// most word starts have room for the longest comment.
func newCorpus(c ContentSpec, r *rand.Rand) *corpus {
	k := &corpus{spec: c, text: c.Text(r, max(corpusRunes, 4*c.MaxChars))}
	prev := ' '
	for i, ch := range k.text {
		if prev == ' ' && ch != ' ' {
			k.starts = append(k.starts, int32(len(k.at)))
		}
		k.at = append(k.at, int32(i))
		prev = ch
	}
	k.at = append(k.at, int32(len(k.text)))
	return k
}

// Text returns exactly chars runes: a slice of the corpus when one of the
// few word starts it tries has room and does not end on a space, else new
// text from the spec.
func (k *corpus) Text(r *rand.Rand, chars int) string {
	runes := len(k.at) - 1
	for range 8 {
		from := int(k.starts[r.IntN(len(k.starts))])
		to := from + chars
		if to > runes || k.text[k.at[to]-1] == ' ' {
			continue
		}
		return k.text[k.at[from]:k.at[to]]
	}
	return k.spec.Text(r, chars)
}
