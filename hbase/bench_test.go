package hbase

import (
	"context"
	"fmt"
	"io"
	"net"
	"testing"
)

// scanBenchSetup readies BenchmarkScan10k and returns its undo. It does
// nothing here, so make bench can build this file into an older tree's
// client to compare with; prefetch_test.go sets it in this one.
var scanBenchSetup = func() func() { return func() {} }

// BenchmarkRoundTrip is one Get after another through the test server on
// loopback: the time per op is a round trip, client and server included.
func BenchmarkRoundTrip(b *testing.B) {
	tc := startCluster(b)
	ctx := context.Background()
	if err := tc.c.CreateTable(ctx, "rt", []string{"f"}, nil); err != nil {
		b.Fatal(err)
	}
	if err := tc.c.Mutate(ctx, "rt", []Mutation{putMut(key(1), "v")}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := tc.c.Get(ctx, "rt", key(1), "f"); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/rtt")
}

// BenchmarkScan10k scans a 10,000-row table in one region, 1,000 rows an
// RPC, through the test server on loopback.
func BenchmarkScan10k(b *testing.B) {
	tc := startCluster(b)
	ctx := context.Background()
	if err := tc.c.CreateTable(ctx, "s10k", []string{"f"}, nil); err != nil {
		b.Fatal(err)
	}
	const n = 10_000
	muts := make([]Mutation, 0, 1000)
	for i := range n {
		muts = append(muts, putMut(fmt.Appendf(nil, "row-%06d", i), fmt.Sprintf("value-%064d", i)))
		if len(muts) == cap(muts) {
			if err := tc.c.Mutate(ctx, "s10k", muts); err != nil {
				b.Fatal(err)
			}
			muts = muts[:0]
		}
	}
	defer scanBenchSetup()()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		rows := 0
		if _, err := tc.c.Scan(ctx, "s10k", Scan{}, func(Result) bool { rows++; return true }); err != nil {
			b.Fatal(err)
		}
		if rows != n {
			b.Fatalf("scanned %d rows, want %d", rows, n)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkEchoRoundTrip is the floor under BenchmarkRoundTrip: a bare TCP
// echo of a Get-sized frame on loopback, one goroutine a side.
func BenchmarkEchoRoundTrip(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		buf := make([]byte, 64)
		for {
			if _, err := io.ReadFull(c, buf); err != nil {
				return
			}
			if _, err := c.Write(buf); err != nil {
				return
			}
		}
	}()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	buf := make([]byte, 64)
	b.ResetTimer()
	for range b.N {
		if _, err := c.Write(buf); err != nil {
			b.Fatal(err)
		}
		if _, err := io.ReadFull(c, buf); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/rtt")
}
