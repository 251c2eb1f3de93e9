package fleet

import (
	"context"
	"fmt"
	"net"
	"slices"
	"testing"
	"time"
)

func TestParseCoordinate(t *testing.T) {
	const want = " (want HOST:PORT[,HOST:PORT...]/PATH, e.g. zk1:2181,zk2:2181/commentbench)"
	for _, c := range []struct {
		in      string
		servers []string
		root    string
		err     string
	}{
		{in: "zk1:2181/commentbench", servers: []string{"zk1:2181"}, root: "/commentbench"},
		{in: "zk1:2181,zk2:2182,10.0.0.3:2181/a/b", servers: []string{"zk1:2181", "zk2:2182", "10.0.0.3:2181"}, root: "/a/b"},
		{in: "[::1]:2181/commentbench", servers: []string{"[::1]:2181"}, root: "/commentbench"},
		{in: "", err: `zookeeper coordinate "": empty` + want},
		{in: "zk1:2181", err: `zookeeper coordinate "zk1:2181": no path after the servers` + want},
		{in: "/commentbench", err: `zookeeper coordinate "/commentbench": no servers before the path` + want},
		{in: "zk1:2181/", err: `zookeeper coordinate "zk1:2181/": the path after the servers is empty` + want},
		{in: "zk1/commentbench", err: `zookeeper coordinate "zk1/commentbench": server "zk1" is not HOST:PORT` + want},
		{in: ":2181/commentbench", err: `zookeeper coordinate ":2181/commentbench": server ":2181" is not HOST:PORT` + want},
		{in: "zk1:2181,,zk2:2181/x", err: `zookeeper coordinate "zk1:2181,,zk2:2181/x": an empty server in the list` + want},
		{in: "zk1:99999/x", err: `zookeeper coordinate "zk1:99999/x": server "zk1:99999": port "99999" is not a number from 1 to 65535` + want},
		{in: "zk1:zk/x", err: `zookeeper coordinate "zk1:zk/x": server "zk1:zk": port "zk" is not a number from 1 to 65535` + want},
		{in: "zk1:0/x", err: `zookeeper coordinate "zk1:0/x": server "zk1:0": port "0" is not a number from 1 to 65535` + want},
		{in: "zk1:2181/a//b", err: `zookeeper coordinate "zk1:2181/a//b": path "/a//b": an empty segment` + want},
		{in: "zk1:2181/a/", err: `zookeeper coordinate "zk1:2181/a/": path "/a/" ends in /` + want},
		{in: "zk1:2181/a/../b", err: `zookeeper coordinate "zk1:2181/a/../b": path "/a/../b": a segment ".."` + want},
	} {
		servers, root, err := ParseCoordinate(c.in)
		if c.err != "" {
			if err == nil || err.Error() != c.err {
				t.Errorf("ParseCoordinate(%q) error\n got %v\nwant %s", c.in, err, c.err)
			}
			continue
		}
		if err != nil || !slices.Equal(servers, c.servers) || root != c.root {
			t.Errorf("ParseCoordinate(%q) = %q, %q, %v; want %q, %q", c.in, servers, root, err, c.servers, c.root)
		}
	}
}

func TestErrorMessages(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{&SkewError{Offset: 212400 * time.Microsecond, Bound: 50 * time.Millisecond}, "this machine's clock is 212ms ahead of ZooKeeper's; --max-clock-skew allows 50ms"},
		{&SkewError{Offset: -1500 * time.Millisecond, Bound: 50 * time.Millisecond}, "this machine's clock is 1.5s behind ZooKeeper's; --max-clock-skew allows 50ms"},
		{&MissingError{Stage: StageJoin, Missing: []int{2, 3}, Total: 4, Within: 30 * time.Second}, "members 2, 3 of 4 did not join within 30s"},
		{&MissingError{Stage: StageJoin, Missing: []int{1}, Total: 3, Within: time.Second}, "member 1 of 3 did not join within 1s"},
		{&MissingError{Stage: StageJoin, Missing: []int{1}, Left: []int{2}, Total: 3, Within: time.Second}, "member 1 of 3 did not join within 1s; member 2 joined, then left"},
		{&MissingError{Stage: StageJoin, Left: []int{1, 2}, Total: 3, Within: time.Second}, "members 1, 2 of 3 joined, then left, before all had joined within 1s"},
		{&MissingError{Stage: StageReady, Missing: []int{0}, Total: 2, Within: 1500 * time.Millisecond}, "member 0 of 2 was not ready within 1.5s"},
		{&MissingError{Stage: StageReady, Missing: []int{0, 1}, Total: 2, Within: time.Minute}, "members 0, 1 of 2 were not ready within 1m0s"},
		{&LostError{Lost: Lost{Index: 2}, Total: 4}, "member 2 of 4 left the fleet (its ZooKeeper session ended) before the fleet started"},
		{&LostError{Lost: Lost{Index: 1}, Total: 4, Self: true}, "this member (1 of 4) lost its ZooKeeper session before the fleet started; the others count it lost"},
	} {
		if got := c.err.Error(); got != c.want {
			t.Errorf("%#v:\n got %s\nwant %s", c.err, got, c.want)
		}
	}
}

// A bad Config is refused before any connection (the server here does not
// exist).
func TestConfigErrors(t *testing.T) {
	good := Config{Servers: []string{"127.0.0.1:1"}, Root: "/cb", RunID: "r1", Index: 0, Total: 2}
	for _, c := range []struct {
		edit func(*Config)
		want string
	}{
		{func(c *Config) { c.Servers = nil }, "fleet: no ZooKeeper servers"},
		{func(c *Config) { c.Root = "cb" }, `fleet: root: path "cb" does not begin with /`},
		{func(c *Config) { c.Root = "/" }, `fleet: root: path "/" has no segment; runs need a path of their own`},
		{func(c *Config) { c.RunID = "" }, "fleet: empty run id"},
		{func(c *Config) { c.RunID = "a/b" }, `fleet: run id "a/b": a control character or / in "a/b"`},
		{func(c *Config) { c.RunID = ".." }, `fleet: run id "..": a segment ".."`},
		{func(c *Config) { c.Total = 0 }, "fleet: 0 members in total; want at least 1"},
		{func(c *Config) { c.Index = 2 }, "fleet: index 2: want 0..1 (below the total, 2)"},
		{func(c *Config) { c.Index = -1 }, "fleet: index -1: want 0..1 (below the total, 2)"},
	} {
		cfg := good
		c.edit(&cfg)
		m, err := Join(context.Background(), cfg)
		if err == nil {
			m.Close()
		}
		if err == nil || err.Error() != c.want {
			t.Errorf("Join(%+v) error\n got %v\nwant %s", cfg, err, c.want)
		}
	}
}

// With no ZooKeeper to talk to, Join gives up after JoinTimeout.
func TestJoinNoServer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	cfg := Config{Servers: []string{addr}, Root: "/cb", RunID: "r1", Total: 1, JoinTimeout: 300 * time.Millisecond}
	m, err := Join(context.Background(), cfg)
	if err == nil {
		m.Close()
		t.Fatal("joined without a server")
	}
	if want := fmt.Sprintf("fleet: no session with zookeeper %s within 300ms", addr); err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

// A Config's zero values take the defaults, and what is given is kept.
func TestConfigDefaults(t *testing.T) {
	good := Config{Servers: []string{"127.0.0.1:1"}, Root: "/cb", RunID: "r1", Index: 1, Total: 2}
	c, err := good.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if c.JoinTimeout != DefaultJoinTimeout || c.MaxSkew != DefaultMaxSkew || c.Lead != DefaultLead ||
		c.SessionTimeout != DefaultSessionTimeout || c.Now == nil || c.dial == nil || c.Host == "" {
		t.Errorf("defaults: %+v", c)
	}
	given := good
	given.JoinTimeout, given.MaxSkew, given.Lead, given.SessionTimeout, given.Host = 1, 2, 3, 4, "h"
	if c, _ := given.withDefaults(); c.JoinTimeout != 1 || c.MaxSkew != 2 || c.Lead != 3 || c.SessionTimeout != 4 || c.Host != "h" {
		t.Errorf("given values replaced: %+v", c)
	}
	one := good
	one.Index, one.Total = 0, 1
	if _, err := one.withDefaults(); err != nil {
		t.Errorf("a fleet of one: %v", err)
	}
}

// The start is read through the smallest offset the measurement allows:
// moved toward zero by its uncertainty, and none within it.
func TestLocalCorrection(t *testing.T) {
	at := time.Unix(1_800_000_000, 0)
	for _, c := range []struct{ offset, within, want time.Duration }{
		{30 * time.Millisecond, 5 * time.Millisecond, 25 * time.Millisecond},
		{-30 * time.Millisecond, 5 * time.Millisecond, -25 * time.Millisecond},
		{3 * time.Millisecond, 5 * time.Millisecond, 0},
		{-5 * time.Millisecond, 5 * time.Millisecond, 0},
	} {
		m := &Member{offset: c.offset, within: c.within}
		if got := m.Local(at).Sub(at); got != c.want {
			t.Errorf("offset %v ± %v: Local moved the start %v, want %v", c.offset, c.within, got, c.want)
		}
	}
}
