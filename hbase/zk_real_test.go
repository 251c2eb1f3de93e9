package hbase

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"commentbench/hbasetest"
	"commentbench/store/embedded"
)

// zkEnv names the real ZooKeeper `make test` starts (scripts/zookeeper.sh).
const zkEnv = "COMMENTBENCH_ZK"

// The ZooKeeper path against a real ZooKeeper: the test cluster publishes
// its znodes, the client finds meta and the master through them alone (no
// bootstrap nodes), and after the server hosting meta dies it finds meta's
// new home through the rewritten znode.
func TestRealZooKeeper(t *testing.T) {
	addr := os.Getenv(zkEnv)
	if addr == "" {
		t.Skipf("%s is not set: `make test` starts a ZooKeeper and sets it", zkEnv)
	}
	eng, err := embedded.Open(embedded.Options{DisableSplits: true})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	cl, err := hbasetest.Start(hbasetest.Options{Engine: eng})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	root := fmt.Sprintf("/hbase-test-%d", time.Now().UnixNano())
	if err := cl.PublishZooKeeper(strings.Split(addr, ","), root); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c, err := Dial(ctx, Options{ZooKeeper: strings.Split(addr, ","), ZKRoot: root, DialTimeout: 10 * time.Second, CallTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	tc := &testCluster{cl: cl, eng: eng, c: c}
	tc.createLoaded(t, "zk", 300)
	if err := cl.KillServer(cl.MetaServer()); err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{0, 150, 299} {
		r, err := c.Get(ctx, "zk", key(i), "f")
		if err != nil || value(r) != fmt.Sprint("v", i) {
			t.Fatalf("after meta moved: get %s = %q, %v", key(i), value(r), err)
		}
	}
	if _, err := Dial(ctx, Options{ZooKeeper: strings.Split(addr, ","), ZKRoot: root + "-missing", DialTimeout: 3 * time.Second}); err == nil {
		t.Error("dial with a root that has no znodes succeeded")
	}
}
