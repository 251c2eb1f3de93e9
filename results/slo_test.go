package results

import (
	"strings"
	"testing"
	"time"
)

func TestParseSLO(t *testing.T) {
	good := []struct {
		expr string
		want SLO
	}{
		{"product-latest:p99<=200ms", SLO{"product-latest", "p99", "<=", 200, "product-latest:p99<=200ms"}},
		{"  read : p99.9 < 1.5s ", SLO{"read", "p999", "<", 1500, "read : p99.9 < 1.5s"}},
		{"*:max>800us", SLO{"*", "max", ">", 0.8, "*:max>800us"}},
		{"w:mean>=800µs", SLO{"w", "mean", ">=", 0.8, "w:mean>=800µs"}},
		{"w:p50<=2m", SLO{"w", "p50", "<=", 120000, "w:p50<=2m"}},
		{"*:error-rate<0.5%", SLO{"*", "error-rate", "<", 0.5, "*:error-rate<0.5%"}},
		{"w:throughput >= 500/s", SLO{"w", "throughput", ">=", 500, "w:throughput >= 500/s"}},
		{"w:throughput>500", SLO{"w", "throughput", ">", 500, "w:throughput>500"}},
	}
	for _, c := range good {
		got, err := ParseSLO(c.expr)
		if err != nil || got != c.want {
			t.Errorf("ParseSLO(%q) = %+v, %v; want %+v", c.expr, got, err, c.want)
		}
	}
	bad := []struct{ expr, want string }{
		{"x:p98<=1ms", `slo "x:p98<=1ms": metric "p98": want one of p50, p90, p99, p999, max, mean, error-rate, throughput`},
		{"p99<=1ms", "want OP:METRIC CMP VALUE"},
		{":p99<=1ms", `op "": want an op name or *`},
		{"x:p99", "no comparison: want one of <=, >=, <, >"},
		{"x:p99=1ms", `comparison "=": want one of`},
		{"x:p99==1ms", `comparison "==": want one of`},
		{"x:p99=<1ms", `comparison "=<"`},
		{"x:p99<>1ms", `comparison "<>"`},
		{"x:p99<=200", `value "200": want a duration, like 200ms`},
		{"x:p99<=-1s", `value "-1s": want a duration`},
		{"x:p99<=", `value "": want a duration`},
		{"x:error-rate<1", `value "1": want a percentage`},
		{"x:error-rate<101%", `value "101%": want a percentage`},
		{"x:throughput>fast", `value "fast": want ops per second`},
	}
	for _, c := range bad {
		_, err := ParseSLO(c.expr)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseSLO(%q) error %v, want it to contain %q", c.expr, err, c.want)
		}
	}
}

func TestCheckOp(t *testing.T) {
	ops := []string{"read", "write"}
	for expr, ok := range map[string]bool{"read:p99<1s": true, "*:p99<1s": true, "raed:p99<1s": false} {
		slo, err := ParseSLO(expr)
		if err != nil {
			t.Fatal(err)
		}
		if err := slo.CheckOp(ops); (err == nil) != ok {
			t.Errorf("%s: CheckOp error %v", expr, err)
		} else if err != nil && !strings.Contains(err.Error(), `op "raed": want one of read, write or *`) {
			t.Errorf("%s: error %v", expr, err)
		}
	}
}

func TestEvaluate(t *testing.T) {
	// read: 1..1000ms; write: 300 fast ops and one error; over 10 s.
	sum := summaryOf(t, []string{"read", "write", "scan"}, t0, t0.Add(10*time.Second), dataA)
	cases := []struct {
		expr   string
		met    bool
		actual float64
		note   string
	}{
		{"read:p50<=501ms", true, 500.223, ""},
		{"read:p50<500ms", false, 500.223, ""},
		{"read:max>=1s", true, 1000.447, ""},
		// Merged, write's 300 values all lie below read's: the 650th of
		// 1300 is read's 350th, the 1287th read's 987th.
		{"*:p50>100ms", true, 350.207, ""},
		{"*:p99<=1s", true, 987.135, ""},
		{"write:error-rate<=0.5%", true, 100.0 / 301, ""},
		{"*:error-rate<0.05%", false, 100.0 / 1301, ""},
		{"read:throughput>=100/s", true, 100, ""},
		{"*:throughput>130", false, 130, ""},
		{"scan:p99<1s", false, 0, "op did not run"},
		{"gone:throughput>0", false, 0, "op did not run"},
	}
	var slos []SLO
	for _, c := range cases {
		slo, err := ParseSLO(c.expr)
		if err != nil {
			t.Fatal(err)
		}
		slos = append(slos, slo)
	}
	for i, r := range Evaluate(slos, sum) {
		c := cases[i]
		if r.SLO != c.expr || r.Met != c.met || !near(r.Actual, c.actual, 0.003) || r.Note != c.note {
			t.Errorf("%s: got %+v, want met %v actual %v note %q", c.expr, r, c.met, c.actual, c.note)
		}
	}
}

func TestEvaluateNoSuccesses(t *testing.T) {
	s := NewSet([]string{"w"})
	s.NewRecorder().Record(0, t0, t0, t0, "timeout")
	sum, err := s.Summary(t0, t0.Add(time.Second), nil)
	if err != nil {
		t.Fatal(err)
	}
	slos := []SLO{mustSLO(t, "w:p99<1s"), mustSLO(t, "w:error-rate<=100%")}
	rs := Evaluate(slos, sum)
	if rs[0].Met || rs[0].Note != "no successful operations" || !rs[1].Met || rs[1].Actual != 100 {
		t.Errorf("results %+v", rs)
	}
}

func mustSLO(t *testing.T, expr string) SLO {
	t.Helper()
	s, err := ParseSLO(expr)
	if err != nil {
		t.Fatal(err)
	}
	return s
}
