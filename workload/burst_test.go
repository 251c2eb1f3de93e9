package workload

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"
)

// A burst's comments are released at one instant from their own
// goroutines: against a store that takes 20 ms a call, eight comment
// writes (four calls each) finish together in about one write's time, not
// eight.
func TestBurstWritesRace(t *testing.T) {
	sc := testScenario(t, "seed")
	sc.Mix = map[string]float64{"burst": 1}
	sc.Burst = BurstSpec{Size: 8, EqualLength: 1}
	sc.Ops, sc.Workers = 2, 1
	sc.Users, sc.Products, sc.Sellers = 20, 5, 2 // seeding goes through the slow store too
	const delay = 20 * time.Millisecond
	_, tot := runScenario(t, context.Background(), slowStore{openEngine(t), delay}, sc)
	bw := tot["burst-write"]
	if bw.Count != 16 {
		t.Fatalf("%d burst writes, want 16", bw.Count)
	}
	action := tot["action:post-burst"]
	// Orders: 8 sequential puts; comments: about one write's 4 calls.
	ordersAndOneWrite := time.Duration(8+4) * delay
	if got := time.Duration(action.Service.Max()) * time.Microsecond; got > ordersAndOneWrite+8*delay {
		t.Errorf("a burst took %v: its writes ran one after another (want about %v)", got, ordersAndOneWrite)
	}
}

// Hot users take their share of picks; the others share the rest.
func TestHotUsers(t *testing.T) {
	sc := testScenario(t, "seed")
	sc.Popularity.HotUsers, sc.Popularity.HotUserShare = 3, 0.6
	if err := sc.Validate(); err != nil {
		t.Fatal(err)
	}
	w := &Worker{env: &Env{Scenario: sc, Pop: Population{Users: make([]string, 500)}}, r: rand.New(rand.NewPCG(1, 2))}
	hot := 0
	const n = 20000
	for range n {
		if w.user() < 3 {
			hot++
		}
	}
	// 0.6 to the hot set, plus the uniform pick's 3/500 of the other 0.4.
	want := 0.6 + 0.4*3.0/500
	if got := float64(hot) / n; got < want-0.02 || got > want+0.02 {
		t.Errorf("hot users took %.3f of picks, want %.3f", got, want)
	}
	sc.Popularity.HotUserShare = 0
	if err := sc.Validate(); err == nil {
		t.Error("hot_users without a share was accepted")
	}
}
