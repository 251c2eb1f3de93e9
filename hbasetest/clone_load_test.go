package hbasetest

import (
	"fmt"
	"sync"
	"testing"

	"commentbench/hbase/pb"
	"commentbench/hbase/wire"

	"google.golang.org/protobuf/proto"
)

// A clone staged while clients write to the snapshot's table loses none
// of the writes it acknowledged: the table is offline while it stages the
// clone, and a write either lands before or waits for it to come back.
func TestCloneKeepsWritesToItsSource(t *testing.T) {
	c, eng := newCluster(t, 1)
	regs := createTable(t, eng, "src")
	mc := dial(t, c.MasterAddr(), wire.ServiceMaster, true)
	snap := &pb.SnapshotRequest{Snapshot: snapDesc("s", "src")}
	mc.mustCall("Snapshot", snap, nil, &pb.SnapshotResponse{})

	stop := make(chan struct{})
	var acked []string
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		cl := rsClient(t, c, regs[0].Server, true)
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			row := fmt.Sprintf("w%05d", i)
			req, cells := putReq(regs[0].Name, row, "q", "v")
			if _, exc := cl.call("Mutate", req, cells, &pb.MutateResponse{}); exc == nil {
				acked = append(acked, row)
			} else if exc.GetExceptionClassName() != wire.ExcNotServingRegion {
				t.Errorf("write while cloning: %s", exc.GetStackTrace())
				return
			}
		}
	}()
	for i := range 20 {
		if _, exc := restoreInto(mc, "s", fmt.Sprintf("c%d", i)); exc != nil {
			t.Fatalf("clone %d: %s", i, exc.GetStackTrace())
		}
	}
	close(stop)
	wg.Wait()
	have := map[string]bool{}
	for _, r := range rowValues(t, eng, "src") {
		have[r[:len(r)-2]] = true
	}
	for _, row := range acked {
		if !have[row] {
			t.Fatalf("acknowledged write of %s lost by a clone (%d acknowledged)", row, len(acked))
		}
	}
	if len(acked) == 0 {
		t.Fatal("no write went through")
	}
}

func snapDesc(name, table string) *pb.SnapshotDescription {
	return &pb.SnapshotDescription{Name: proto.String(name), Table: proto.String(table)}
}
