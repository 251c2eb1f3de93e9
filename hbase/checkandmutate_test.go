package hbase

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"

	"commentbench/hbase/pb"
	"commentbench/hbase/wire"
)

// TestCheckAndMutateCompareTypes checks every CompareType against an
// absent cell, an equal, a smaller and a larger stored value, with the
// expected value "m". HBase compares the expected value with the stored
// one: LESS holds when "m" < stored, so when the stored value is larger.
// A non-empty expected value matches no absent cell, whatever the
// operator; NO_OP cannot compare and fails once there is a value.
func TestCheckAndMutateCompareTypes(t *testing.T) {
	tc := startCluster(t)
	c, ctx := tc.c, context.Background()
	if err := c.CreateTable(ctx, "cm", []string{"f"}, nil); err != nil {
		t.Fatal(err)
	}
	stored := map[string]string{"absent": "", "equal": "m", "smaller": "a", "larger": "z"}
	// Whether the put is applied, per operator and stored value.
	want := map[CompareOp]map[string]bool{
		Less:           {"absent": false, "equal": false, "smaller": false, "larger": true},
		LessOrEqual:    {"absent": false, "equal": true, "smaller": false, "larger": true},
		Equal:          {"absent": false, "equal": true, "smaller": false, "larger": false},
		NotEqual:       {"absent": false, "equal": false, "smaller": true, "larger": true},
		GreaterOrEqual: {"absent": false, "equal": true, "smaller": true, "larger": false},
		Greater:        {"absent": false, "equal": false, "smaller": true, "larger": false},
		NoOp:           {"absent": false},
	}
	n := 0
	for op, outcomes := range want {
		for _, state := range []string{"absent", "equal", "smaller", "larger"} {
			n++
			row := []byte(fmt.Sprintf("row-%d", n))
			if v := stored[state]; v != "" {
				if err := c.Mutate(ctx, "cm", []Mutation{{Row: row, Cells: []Cell{cellAt("f", "q", v)}}}); err != nil {
					t.Fatal(err)
				}
			}
			ok, err := c.CheckAndMutate(ctx, "cm", CheckAndMutate{
				Row:       row,
				Condition: Condition{Family: "f", Qualifier: []byte("q"), Op: op, Value: []byte("m")},
				Mutations: []Mutation{{Cells: []Cell{cellAt("f", "done", "yes")}}},
			})
			expect, defined := outcomes[state]
			if !defined { // NO_OP against a value
				if err == nil {
					t.Errorf("NO_OP against a %s value: applied %v, want an error", state, ok)
				}
				continue
			}
			if err != nil {
				t.Fatalf("%v vs %s: %v", pbOp(op), state, err)
			}
			got, _ := c.GetRow(ctx, "cm", Get{Row: row, Columns: []Column{{Family: "f", Qualifiers: [][]byte{[]byte("done")}}}})
			if ok != expect || got.Found() != expect {
				t.Errorf("%v with stored %s (%q): reported %v, put landed %v; want %v", pbOp(op), state, stored[state], ok, got.Found(), expect)
			}
		}
	}
}

func pbOp(op CompareOp) string { return pb.CompareType(op).String() }

// An empty expected value stands for "absent or empty": every operator
// but NOT_EQUAL matches an absent or empty cell, NOT_EQUAL only a
// non-empty one.
func TestCheckAndMutateEmptyExpected(t *testing.T) {
	tc := startCluster(t)
	c, ctx := tc.c, context.Background()
	if err := c.CreateTable(ctx, "cm", []string{"f"}, nil); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, op := range []CompareOp{Equal, NotEqual, Greater} {
		for state, v := range map[string]*string{"absent": nil, "empty": new(string), "set": ptr("x")} {
			n++
			row := []byte(fmt.Sprint("e", n))
			if v != nil {
				if err := c.Mutate(ctx, "cm", []Mutation{{Row: row, Cells: []Cell{cellAt("f", "q", *v)}}}); err != nil {
					t.Fatal(err)
				}
			}
			ok, err := c.CheckAndMutate(ctx, "cm", CheckAndMutate{Row: row,
				Condition: Condition{Family: "f", Qualifier: []byte("q"), Op: op},
				Mutations: []Mutation{{Cells: []Cell{cellAt("f", "done", "yes")}}}})
			want := (state != "set") == (op != NotEqual)
			if err != nil || ok != want {
				t.Errorf("%s against %s: %v %v, want %v", pbOp(op), state, ok, err, want)
			}
		}
	}
}

func ptr(s string) *string { return &s }

// A Delete, and RowMutations (a Put and a Delete of one row, together),
// apply only when the condition holds, and then entirely.
func TestCheckAndMutateDeleteAndRowMutations(t *testing.T) {
	tc := startCluster(t)
	c, ctx := tc.c, context.Background()
	if err := c.CreateTableSchema(ctx, "cm", []FamilySchema{{Name: "f"}, {Name: "g"}}, nil); err != nil {
		t.Fatal(err)
	}
	row := []byte("r")
	if err := c.Mutate(ctx, "cm", []Mutation{{Row: row, Cells: []Cell{cellAt("f", "state", "open"), cellAt("f", "x", "1"), cellAt("g", "y", "2")}}}); err != nil {
		t.Fatal(err)
	}
	is := func(v string) Condition {
		return Condition{Family: "f", Qualifier: []byte("state"), Op: Equal, Value: []byte(v)}
	}
	delX := Mutation{Cells: []Cell{{Family: []byte("f"), Qualifier: []byte("x"), Type: wire.TypeDeleteColumn}}}

	if ok, err := c.CheckAndMutate(ctx, "cm", CheckAndMutate{Row: row, Condition: is("closed"), Mutations: []Mutation{delX}}); ok || err != nil {
		t.Fatalf("delete under a false condition: %v %v", ok, err)
	}
	if got := getRow(t, c, "cm", Get{Row: row}); got != "f:state=open f:x=1 g:y=2" {
		t.Fatalf("after a delete that did not apply: %s", got)
	}
	if ok, err := c.CheckAndMutate(ctx, "cm", CheckAndMutate{Row: row, Condition: is("open"), Mutations: []Mutation{delX}}); !ok || err != nil {
		t.Fatalf("delete under a true condition: %v %v", ok, err)
	}
	if got := getRow(t, c, "cm", Get{Row: row}); got != "f:state=open g:y=2" {
		t.Fatalf("after the delete: %s", got)
	}

	closing := []Mutation{
		{Cells: []Cell{cellAt("f", "state", "closed"), cellAt("g", "z", "3")}},
		{Cells: []Cell{{Family: []byte("g"), Type: wire.TypeDeleteFamily}}},
	}
	if ok, err := c.CheckAndMutate(ctx, "cm", CheckAndMutate{Row: row, Condition: is("nope"), Mutations: closing}); ok || err != nil {
		t.Fatalf("row mutations under a false condition: %v %v", ok, err)
	}
	if got := getRow(t, c, "cm", Get{Row: row}); got != "f:state=open g:y=2" {
		t.Fatalf("row mutations applied in part: %s", got)
	}
	if ok, err := c.CheckAndMutate(ctx, "cm", CheckAndMutate{Row: row, Condition: is("open"), Mutations: closing}); !ok || err != nil {
		t.Fatalf("row mutations under a true condition: %v %v", ok, err)
	}
	// The DeleteFamily on g comes after the put of g:z in the same
	// update, at the same now: it hides it, as HBase's would.
	if got := getRow(t, c, "cm", Get{Row: row}); got != "f:state=closed" {
		t.Fatalf("after the row mutations: %s", got)
	}
	// A condition on a family the table lacks is an error, not a false.
	_, err := c.CheckAndMutate(ctx, "cm", CheckAndMutate{Row: row, Condition: Condition{Family: "nope", Qualifier: []byte("q"), Op: Equal, Value: []byte("v")},
		Mutations: []Mutation{delX}})
	if !errors.Is(err, ErrNoSuchFamily) {
		t.Fatalf("condition on a missing family: %v", err)
	}
}

// A filter condition holds when the filter passes a cell of the row; a
// condition's time range hides the versions outside it.
func TestCheckAndMutateFilterCondition(t *testing.T) {
	tc := startCluster(t)
	c, ctx := tc.c, context.Background()
	if err := c.CreateTable(ctx, "cm", []string{"f"}, nil); err != nil {
		t.Fatal(err)
	}
	row := []byte("r")
	old := cellAt("f", "q", "old")
	old.Timestamp = 10
	if err := c.Mutate(ctx, "cm", []Mutation{{Row: row, Cells: []Cell{old, cellAt("f", "n", "7")}}}); err != nil {
		t.Fatal(err)
	}
	mark := func(v string) []Mutation { return []Mutation{{Cells: []Cell{cellAt("f", "mark", v)}}} }
	cases := []struct {
		name string
		cond Condition
		want bool
	}{
		{"value filter passes a cell", Condition{Filter: ValueFilter{Op: Equal, Value: []byte("7")}}, true},
		{"value filter passes none", Condition{Filter: ValueFilter{Op: Equal, Value: []byte("8")}}, false},
		{"column value filter", Condition{Filter: SingleColumnValueFilter{Family: []byte("f"), Qualifier: []byte("n"), Op: Equal, Value: []byte("7"), FilterIfMissing: true, LatestVersionOnly: true}}, true},
		{"both of a list", Condition{Filter: FilterList{All: true, Filters: []Filter{
			QualifierFilter{Op: Equal, Value: []byte("q")}, ValueFilter{Op: Equal, Value: []byte("7")}}}}, false},
		{"either of a list", Condition{Filter: FilterList{Filters: []Filter{
			QualifierFilter{Op: Equal, Value: []byte("q")}, ValueFilter{Op: Equal, Value: []byte("8")}}}}, true},
		{"value inside the time range", Condition{Family: "f", Qualifier: []byte("q"), Op: Equal, Value: []byte("old"), TimeRange: TimeRange{From: 5, To: 11}}, true},
		{"value outside the time range is absent", Condition{Family: "f", Qualifier: []byte("q"), Op: Equal, Value: []byte("old"), TimeRange: TimeRange{From: 11}}, false},
	}
	for i, tt := range cases {
		v := fmt.Sprint(i)
		ok, err := c.CheckAndMutate(ctx, "cm", CheckAndMutate{Row: row, Condition: tt.cond, Mutations: mark(v)})
		got, _ := c.GetRow(ctx, "cm", Get{Row: row, Columns: []Column{{Family: "f", Qualifiers: [][]byte{[]byte("mark")}}}})
		if err != nil || ok != tt.want || (value2(got) == v) != tt.want {
			t.Errorf("%s: applied %v (mark %q), %v; want %v", tt.name, ok, value2(got), err, tt.want)
		}
	}
}

func value2(r Result) string {
	if len(r.Cells) == 0 {
		return ""
	}
	return string(r.Cells[0].Value)
}

// Check-and-mutate is atomic against itself: concurrent compare-and-set
// increments of one counter lose none.
func TestCheckAndMutateConcurrent(t *testing.T) {
	tc := startCluster(t)
	c, ctx := tc.c, context.Background()
	if err := c.CreateTable(ctx, "cm", []string{"f"}, nil); err != nil {
		t.Fatal(err)
	}
	row := []byte("counter")
	const workers, each = 6, 20
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for done := 0; done < each; {
				r, err := c.Get(ctx, "cm", row, "f")
				if err != nil {
					t.Error(err)
					return
				}
				cur := value(r)
				n, _ := strconv.Atoi(cur)
				ok, err := c.CheckAndMutate(ctx, "cm", CheckAndMutate{Row: row,
					Condition: Condition{Family: "f", Qualifier: []byte("q"), Op: Equal, Value: []byte(cur)},
					Mutations: []Mutation{{Cells: []Cell{cellAt("f", "q", strconv.Itoa(n+1))}}}})
				if err != nil {
					t.Error(err)
					return
				}
				if ok {
					done++
				}
			}
		}()
	}
	wg.Wait()
	r, err := c.Get(ctx, "cm", row, "f")
	if err != nil || value(r) != strconv.Itoa(workers*each) {
		t.Fatalf("counter %q %v, want %d", value(r), err, workers*each)
	}
}
