package hbase

import (
	"context"
	"errors"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"commentbench/hbase/pb"
	"commentbench/hbase/wire"
)

// slowRows answers a Get at once, but that of row "slow" only when told
// on the channel returned, which carries the requests held.
func slowRows(t *testing.T) (*responder, chan func()) {
	release := make(chan func(), 4)
	s := newResponder(t, func(rc *respConn, req request) {
		var g pb.GetRequest
		_ = proto.Unmarshal(req.param, &g)
		if string(g.GetGet().GetRow()) == "slow" {
			release <- func() { echoRow(rc, req) }
			return
		}
		echoRow(rc, req)
	})
	return s, release
}

// Calls sharing one context (a load test's) are each interrupted when it
// ends, though it is watched once for them all; the connection lives on.
func TestConnSharedContextInterrupts(t *testing.T) {
	s, release := slowRows(t)
	cn, err := dialConn(context.Background(), s.addr(), wire.ServiceClient, "root", time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cn.close()
	ctx, cancel := context.WithCancel(context.Background())
	for range 3 {
		if _, _, err := cn.call(ctx, "Get", getReq("a"), nil, time.Second); err != nil {
			t.Fatal(err)
		}
	}
	go func() {
		answer := <-release
		cancel()
		time.Sleep(20 * time.Millisecond)
		answer() // late: dropped
	}()
	start := time.Now()
	if _, _, err := cn.call(ctx, "Get", getReq("slow"), nil, 10*time.Second); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("cancel took %v", d)
	}
	time.Sleep(50 * time.Millisecond)
	if msg, _, err := cn.call(context.Background(), "Get", getReq("b"), nil, time.Second); err != nil || rowOf(t, msg) != "b" {
		t.Fatalf("after the cancel: %v", err)
	}
}

// The end of a context whose call is over disturbs no other call: its
// watch outlives the call, but interrupts only a wait under it.
func TestConnEndedContextLeavesOthersAlone(t *testing.T) {
	s, release := slowRows(t)
	cn, err := dialConn(context.Background(), s.addr(), wire.ServiceClient, "root", time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cn.close()
	done, cancelDone := context.WithCancel(context.Background())
	if _, _, err := cn.call(done, "Get", getReq("a"), nil, time.Second); err != nil {
		t.Fatal(err)
	}
	other, cancelOther := context.WithCancel(context.Background())
	defer cancelOther()
	for _, ctx := range []context.Context{context.Background(), other} {
		go func() {
			answer := <-release
			cancelDone()
			time.Sleep(20 * time.Millisecond)
			answer()
		}()
		msg, _, err := cn.call(ctx, "Get", getReq("slow"), nil, 5*time.Second)
		if err != nil || rowOf(t, msg) != "slow" {
			t.Fatalf("call under another context: %v", err)
		}
		if !cn.alive() {
			t.Fatal("connection died")
		}
		done, cancelDone = context.WithCancel(context.Background())
		if _, _, err := cn.call(done, "Get", getReq("a"), nil, time.Second); err != nil {
			t.Fatal(err)
		}
	}
	cancelDone()
}
