package hbase

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-zookeeper/zk"
	"google.golang.org/protobuf/proto"

	"commentbench/hbase/pb"
	"commentbench/hbase/wire"
)

type quietLogger struct{}

func (quietLogger) Printf(string, ...any) {}

// zkLocate reads the meta and master znodes under ZKRoot (§5.2). The
// ZooKeeper session lives only for these two reads.
func (c *Client) zkLocate(ctx context.Context) (meta, master string, err error) {
	zc, _, err := zk.Connect(c.o.ZooKeeper, 10*time.Second, zk.WithLogger(quietLogger{}), zk.WithLogInfo(false))
	if err != nil {
		return "", "", err
	}
	// Close waits up to a second for an unreachable quorum; do not make
	// the caller wait for it.
	defer func() { go zc.Close() }()
	get := func(path string, msg proto.Message) error {
		type res struct {
			b   []byte
			err error
		}
		ch := make(chan res, 1)
		go func() {
			b, _, err := zc.Get(path)
			ch <- res{b, err}
		}()
		select {
		case r := <-ch:
			if r.err != nil {
				return fmt.Errorf("zookeeper %s: %w", path, r.err)
			}
			if err := wire.DecodeZNode(r.b, msg); err != nil {
				return fmt.Errorf("zookeeper %s: %w", path, err)
			}
			return nil
		case <-ctx.Done():
			return fmt.Errorf("zookeeper %s: %w", path, ctx.Err())
		}
	}
	var mrs pb.MetaRegionServer
	if err := get(c.o.ZKRoot+"/meta-region-server", &mrs); err != nil {
		return "", "", err
	}
	var m pb.Master
	if err := get(c.o.ZKRoot+"/master", &m); err != nil {
		return "", "", err
	}
	if mrs.GetServer().GetPort() == 0 || m.GetMaster().GetPort() == 0 {
		return "", "", errors.New("zookeeper: server name without port")
	}
	return serverAddr(mrs.GetServer()), serverAddr(m.GetMaster()), nil
}
