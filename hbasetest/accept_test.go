package hbasetest

import (
	"errors"
	"net"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"commentbench/hbase/pb"
	"commentbench/hbase/wire"
	"commentbench/store"

	"google.golang.org/protobuf/proto"
)

// flakyListener fails its first Accept calls as a process out of file
// descriptors does, then accepts.
type flakyListener struct {
	net.Listener
	mu    sync.Mutex
	fails int
}

func (l *flakyListener) Accept() (net.Conn, error) {
	l.mu.Lock()
	fail := l.fails > 0
	l.fails--
	l.mu.Unlock()
	if fail {
		return nil, &net.OpError{Op: "accept", Net: "tcp", Addr: l.Addr(), Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	}
	return l.Listener.Accept()
}

// A region server whose accept failed once must still answer: the kernel
// completes connections to its open port whether or not it accepts them,
// so a server that stopped accepting leaves each call made on a new
// connection unanswered, a client read timeout later.
func TestAcceptOutlivesTransientErrors(t *testing.T) {
	c, eng := newCluster(t, 1)
	regs := createTable(t, eng, "t")
	if err := eng.Mutate(t.Context(), "t", store.Put([]byte("r"), store.Cell{Qualifier: []byte("q"), Value: []byte("v")})); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rs1 := c.byName["rs1"]
	n := &node{name: rs1.name, ln: &flakyListener{Listener: ln, fails: 3}, addr: ln.Addr().String(), conns: map[net.Conn]struct{}{}}
	c.wg.Add(1)
	go c.accept(n)
	t.Cleanup(n.kill)

	cl := dial(t, n.addr, wire.ServiceClient, true)
	_ = cl.nc.SetDeadline(time.Now().Add(3 * time.Second))
	cl.send("Get", getReq(regs[0].Name, "r"), nil)
	hdr, msg, cells, err := wire.ReadResponse(cl.br)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatal("the Get got no reply within 3s: the server stopped accepting after a failed accept")
	}
	if err != nil {
		t.Fatal(err)
	}
	if exc := hdr.GetException(); exc != nil {
		t.Fatalf("Get: %s", exc.GetExceptionClassName())
	}
	resp := &pb.GetResponse{}
	if err := proto.Unmarshal(msg, resp); err != nil {
		t.Fatal(err)
	}
	if got, _ := resultCells(t, resp.GetResult(), cells); len(got) != 1 || string(got[0].Value) != "v" {
		t.Fatalf("Get answered %v", got)
	}
}
