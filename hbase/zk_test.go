package hbase

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"commentbench/hbase/pb"
	"commentbench/hbase/wire"
)

// fakeZK is a minimal ZooKeeper server: it accepts a session and answers
// getData from nodes, pings and close; nothing else.
func fakeZK(t *testing.T, nodes map[string][]byte) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	readFrame := func(r io.Reader) ([]byte, error) {
		var l [4]byte
		if _, err := io.ReadFull(r, l[:]); err != nil {
			return nil, err
		}
		b := make([]byte, binary.BigEndian.Uint32(l[:]))
		_, err := io.ReadFull(r, b)
		return b, err
	}
	frame := func(parts ...[]byte) []byte {
		var body []byte
		for _, p := range parts {
			body = append(body, p...)
		}
		return append(binary.BigEndian.AppendUint32(nil, uint32(len(body))), body...)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, nc)
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer nc.Close()
				r := bufio.NewReader(nc)
				if _, err := readFrame(r); err != nil { // ConnectRequest
					return
				}
				var resp []byte
				resp = binary.BigEndian.AppendUint32(resp, 0)    // protocol version
				resp = binary.BigEndian.AppendUint32(resp, 4000) // timeout ms
				resp = binary.BigEndian.AppendUint64(resp, 42)   // session id
				resp = binary.BigEndian.AppendUint32(resp, 16)
				resp = append(resp, make([]byte, 16)...)
				if _, err := nc.Write(frame(resp)); err != nil {
					return
				}
				for {
					req, err := readFrame(r)
					if err != nil || len(req) < 8 {
						return
					}
					xid, op := req[:4], int32(binary.BigEndian.Uint32(req[4:8]))
					hdr := func(code int32) []byte {
						h := append([]byte{}, xid...)
						h = binary.BigEndian.AppendUint64(h, 1)
						return binary.BigEndian.AppendUint32(h, uint32(code))
					}
					switch op {
					case 4: // getData
						n := binary.BigEndian.Uint32(req[8:12])
						data, ok := nodes[string(req[12:12+n])]
						if !ok {
							_, _ = nc.Write(frame(hdr(-101))) // no node
							continue
						}
						stat := make([]byte, 68)
						binary.BigEndian.PutUint32(stat[52:], uint32(len(data)))
						_, _ = nc.Write(frame(hdr(0), binary.BigEndian.AppendUint32(nil, uint32(len(data))), data, stat))
					case -11: // close
						_, _ = nc.Write(frame(hdr(0)))
						return
					default: // ping and anything else
						_, _ = nc.Write(frame(hdr(0)))
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

func serverName(t *testing.T, addr string) *pb.ServerName {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := strconv.Atoi(port)
	return &pb.ServerName{HostName: proto.String(host), Port: proto.Uint32(uint32(p)), StartCode: proto.Uint64(1)}
}

// TestDialZooKeeper locates meta and the master through the znodes and then
// reads through the located meta (no Bootstrap given).
func TestDialZooKeeper(t *testing.T) {
	tc := startCluster(t)
	if err := tc.c.CreateTable(context.Background(), "z", []string{"f"}, nil); err != nil {
		t.Fatal(err)
	}
	if err := tc.c.Mutate(context.Background(), "z", []Mutation{putMut([]byte("r"), "zk")}); err != nil {
		t.Fatal(err)
	}
	metaAddr, _ := tc.cl.ServerAddr(tc.cl.MetaServer())
	mrs, err := wire.EncodeZNode(&pb.MetaRegionServer{Server: serverName(t, metaAddr)}, []byte("1@test"))
	if err != nil {
		t.Fatal(err)
	}
	master, err := wire.EncodeZNode(&pb.Master{Master: serverName(t, tc.cl.MasterAddr())}, []byte("1@test"))
	if err != nil {
		t.Fatal(err)
	}
	zkAddr := fakeZK(t, map[string][]byte{"/hb/meta-region-server": mrs, "/hb/master": master})
	c, err := Dial(context.Background(), Options{ZooKeeper: []string{zkAddr}, ZKRoot: "/hb", DialTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if r, err := c.Get(context.Background(), "z", []byte("r"), "f"); err != nil || value(r) != "zk" {
		t.Fatalf("Get = %+v, %v", r, err)
	}
	if tables, err := c.ListTables(context.Background(), "z"); err != nil || len(tables) != 1 {
		t.Fatalf("ListTables = %v, %v", tables, err)
	}

	// Missing znodes: a clear, bounded Dial error.
	empty := fakeZK(t, nil)
	start := time.Now()
	if _, err := Dial(context.Background(), Options{ZooKeeper: []string{empty}, DialTimeout: time.Second}); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("Dial with empty ZooKeeper: %v", err)
	}
	if time.Since(start) > 3*time.Second {
		t.Fatal("slow failure")
	}
	// Unreachable quorum: bounded by DialTimeout.
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	dead := ln.Addr().String()
	ln.Close()
	start = time.Now()
	_, err = Dial(context.Background(), Options{ZooKeeper: []string{dead}, DialTimeout: 300 * time.Millisecond})
	if !errors.Is(err, ErrUnavailable) || time.Since(start) > 2*time.Second {
		t.Fatalf("Dial with dead ZooKeeper: %v after %v", err, time.Since(start))
	}
	t.Log(err)
}
