package pace

import (
	"strings"
	"testing"
)

// Against a capacity it does not know, the search probes From, To, then
// halves the gap until the highest rate that held and the lowest that
// breached are within 5%: its answer is within 5% below the capacity.
func TestSearchBisects(t *testing.T) {
	for _, capacity := range []float64{137, 500, 999, 2400, 4999} {
		s := &Search{From: 100, To: 5000, Within: DefaultWithin}
		var probes []float64
		for {
			rate, ok := s.Next()
			if !ok {
				break
			}
			probes = append(probes, rate)
			s.Done(rate, rate <= capacity)
			if len(probes) > 40 {
				t.Fatalf("capacity %v: no end to the search: %v", capacity, probes)
			}
		}
		got, note := s.Result()
		if got > capacity || got < capacity/(1+DefaultWithin) {
			t.Errorf("capacity %v: found %v (%s) after %v, want within 5%% below", capacity, got, note, probes)
		}
		if probes[0] != 100 || probes[1] != 5000 {
			t.Errorf("capacity %v: probes %v, want From then To first", capacity, probes)
		}
	}
}

// A capacity outside the range is said to be, after one or two probes.
func TestSearchOutOfRange(t *testing.T) {
	s := &Search{From: 100, To: 200, Within: DefaultWithin}
	rate, _ := s.Next()
	s.Done(rate, false)
	if _, ok := s.Next(); ok {
		t.Error("the search went on after From breached")
	}
	if c, note := s.Result(); c != 0 || !strings.HasPrefix(note, "below 100/s") {
		t.Errorf("result %v %q, want 0, below 100/s", c, note)
	}
	s = &Search{From: 100, To: 200, Within: DefaultWithin}
	for {
		rate, ok := s.Next()
		if !ok {
			break
		}
		s.Done(rate, true)
	}
	if c, note := s.Result(); c != 200 || !strings.HasPrefix(note, "at least 200/s") {
		t.Errorf("result %v %q, want 200, at least 200/s", c, note)
	}
}

func TestParseSearch(t *testing.T) {
	if s, err := ParseSearch("100:5000"); err != nil || s.From != 100 || s.To != 5000 {
		t.Errorf("ParseSearch(100:5000) = %+v, %v", s, err)
	}
	for in, want := range map[string]string{
		"100":      "want FROM:TO",
		"a:5":      "want FROM:TO",
		"500:100":  "TO 100 is not above FROM 500",
		"100:100":  "TO 100 is not above FROM 100",
		"0:100":    "must be above 0",
		"-5:100":   "must be above 0",
		"100:+Inf": "must be above 0",
	} {
		if _, err := ParseSearch(in); err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "--find-capacity") {
			t.Errorf("ParseSearch(%q): %v, want an error naming --find-capacity and %q", in, err, want)
		}
	}
}

// A target counts its settings, and reads as the last one set.
func TestTarget(t *testing.T) {
	tg := NewTarget(10)
	g := tg.Gen()
	tg.Set(25)
	if tg.At(0) != 25 || tg.Gen() != g+1 {
		t.Errorf("target %v gen %d, want 25 and %d", tg.At(0), tg.Gen(), g+1)
	}
}
