package keys

import (
	"strings"
	"testing"
)

// findings indexes a lint report's findings by kind and table.
func findings(t *testing.T, name string) (LintReport, map[string]Finding) {
	t.Helper()
	d, err := Builtin(name)
	if err != nil {
		t.Fatal(err)
	}
	r, err := d.Lint(RandomLetters, 8)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]Finding{}
	for _, f := range r.Findings {
		m[f.Kind+" "+f.Table] = f
	}
	return r, m
}

func TestLintSeedCollisions(t *testing.T) {
	r, m := findings(t, "seed")
	if !r.CollisionRisk {
		t.Fatal("seed: no collision risk reported")
	}
	pc, ok := m[FindCollision+" "+ProductComment]
	if !ok || !pc.Risk || !strings.Contains(pc.Message, "on one product in one millisecond with equal byte length") {
		t.Errorf("product-comment collision: %+v", pc)
	}
	uc, ok := m[FindCollision+" "+UserComment]
	if !ok || !uc.Risk || !strings.Contains(uc.Message, "by one user in one millisecond") {
		t.Errorf("user-comment collision: %+v", uc)
	}
}

func TestLintNoCollisionOnCures(t *testing.T) {
	for _, name := range []string{"unique", "salted", "hashed", "time-led"} {
		r, _ := findings(t, name)
		if r.CollisionRisk {
			t.Errorf("%s: collision risk reported: %+v", name, r.Findings)
		}
		for _, f := range r.Findings {
			if f.Risk {
				t.Errorf("%s: risk finding %+v", name, f)
			}
		}
	}
}

func TestLintTimeLedHotspot(t *testing.T) {
	_, m := findings(t, "time-led")
	f, ok := m[FindMonotonic+" "+ProductComment]
	if !ok || !f.Hotspot || !strings.Contains(f.Message, "last region") {
		t.Errorf("time-led product-comment: %+v", f)
	}
	if _, ok := m[FindTableScan+" "+ProductComment]; !ok {
		t.Error("time-led: the listing's table scan is not reported")
	}
	for k, f := range m {
		if f.Hotspot && k != FindMonotonic+" "+ProductComment {
			t.Errorf("time-led: unexpected hotspot %s", k)
		}
	}
}

func TestLintHashedSpreadsSequentialIDs(t *testing.T) {
	_, m := findings(t, "hashed")
	for k := range m {
		if strings.HasPrefix(k, FindMonotonic) {
			t.Errorf("hashed: %s reported monotonic", k)
		}
	}
	_, seed := findings(t, "seed")
	for _, table := range Tables {
		if _, ok := seed[FindMonotonic+" "+table]; !ok {
			t.Errorf("seed: %s leads with a plain id but is not reported monotonic under sequential ids", table)
		}
	}
}

func TestLintSaltedScatter(t *testing.T) {
	r, m := findings(t, "salted")
	for _, table := range []string{UserComment, ProductComment} {
		f, ok := m[FindScatter+" "+table]
		if !ok || !strings.Contains(f.Message, "8 scans") {
			t.Errorf("salted %s: scatter-gather not reported: %+v", table, f)
		}
	}
	for _, tl := range r.Tables {
		if tl.Table == ProductComment && len(tl.Points) != 7 {
			t.Errorf("salted product-comment: %d split points, want 7 (one region per bucket)", len(tl.Points))
		}
	}
}

func TestLintLayoutAndBytes(t *testing.T) {
	r, _ := findings(t, "unique")
	want := map[string]int{User: 10, Comment: 20, UserComment: 38, ProductComment: 33, ProductRank: 13}
	for _, tl := range r.Tables {
		if n, ok := want[tl.Table]; ok && tl.Bytes != n {
			t.Errorf("%s: %d bytes, want %d", tl.Table, tl.Bytes, n)
		}
		if len(tl.Example) != 2*tl.Bytes {
			t.Errorf("%s: example %s is not %d bytes of hex", tl.Table, tl.Example, tl.Bytes)
		}
		last := tl.Parts[len(tl.Parts)-1]
		if last.Offset+last.Width != tl.Bytes {
			t.Errorf("%s: parts end at %d, key is %d bytes", tl.Table, last.Offset+last.Width, tl.Bytes)
		}
	}
	if r.KeyBytesPerComment != 20+38+33 || r.IndexValueBytes != 40 {
		t.Errorf("bytes per comment: keys %d values %d, want 91 and 40", r.KeyBytesPerComment, r.IndexValueBytes)
	}
}
