package hbasetest

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/go-zookeeper/zk"
	"google.golang.org/protobuf/proto"

	"commentbench/hbase/pb"
	"commentbench/hbase/wire"
)

// zkFirstSession bounds how long PublishZooKeeper retries: a ZooKeeper just
// started may refuse sessions for a moment.
const zkFirstSession = 15 * time.Second

type quietLogger struct{}

func (quietLogger) Printf(string, ...any) {}

// publisher keeps the two znodes clients read (§5.2) current.
type publisher struct {
	conn *zk.Conn
	root string
	id   []byte // znode metadata: HBase writes pid@host plus salt
}

// PublishZooKeeper writes /meta-region-server and /master under root on the
// ZooKeeper ensemble at servers, as HBase does, and rewrites the meta znode
// whenever hbase:meta moves (KillServer). It waits on a real operation, not
// on the port, because a freshly started ZooKeeper can refuse its first
// sessions.
func (c *Cluster) PublishZooKeeper(servers []string, root string) error {
	conn, _, err := zk.Connect(servers, 5*time.Second, zk.WithLogger(quietLogger{}), zk.WithLogInfo(false))
	if err != nil {
		return fmt.Errorf("hbasetest: zookeeper %v: %w", servers, err)
	}
	host, _ := os.Hostname()
	p := &publisher{conn: conn, root: root, id: []byte(fmt.Sprintf("%d@%s", os.Getpid(), host))}
	deadline := time.Now().Add(zkFirstSession)
	for {
		if err = p.ensure(root, nil); err == nil {
			break
		}
		if time.Now().After(deadline) {
			conn.Close()
			return fmt.Errorf("hbasetest: zookeeper %v: create %s: %w", servers, root, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	c.mu.Lock()
	c.zk = p
	c.mu.Unlock()
	if err := p.publish(root+"/master", &pb.Master{Master: c.master.serverName()}); err != nil {
		return err
	}
	return c.publishMeta()
}

// publishMeta rewrites the meta znode with the current meta host.
func (c *Cluster) publishMeta() error {
	c.mu.Lock()
	p, host := c.zk, c.metaHost
	c.mu.Unlock()
	if p == nil {
		return nil
	}
	return p.publish(p.root+"/meta-region-server", &pb.MetaRegionServer{Server: c.byName[host].serverName()})
}

func (p *publisher) publish(path string, msg proto.Message) error {
	data, err := wire.EncodeZNode(msg, p.id)
	if err != nil {
		return fmt.Errorf("hbasetest: znode %s: %w", path, err)
	}
	return p.ensure(path, data)
}

// ensure creates path with data, or overwrites the data if it exists.
func (p *publisher) ensure(path string, data []byte) error {
	_, err := p.conn.Create(path, data, 0, zk.WorldACL(zk.PermAll))
	if errors.Is(err, zk.ErrNodeExists) {
		if data == nil {
			return nil
		}
		_, err = p.conn.Set(path, data, -1)
	}
	if err != nil {
		return fmt.Errorf("hbasetest: znode %s: %w", path, err)
	}
	return nil
}

// close removes the znodes (a client must not find a stopped cluster's
// addresses there) and ends the session.
func (p *publisher) close() {
	if p == nil {
		return
	}
	for _, path := range []string{p.root + "/meta-region-server", p.root + "/master"} {
		_ = p.conn.Delete(path, -1)
	}
	p.conn.Close()
}
