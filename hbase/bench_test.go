package hbase

import (
	"context"
	"fmt"
	"io"
	"net"
	"strings"
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

// BenchmarkGet is BenchmarkRoundTrip as a load test makes its Gets: each
// under a context that can be cancelled (the harness's), on a row of
// comment size (a 400-byte value).
func BenchmarkGet(b *testing.B) {
	tc := startCluster(b)
	if err := tc.c.CreateTable(context.Background(), "g", []string{"f"}, nil); err != nil {
		b.Fatal(err)
	}
	if err := tc.c.Mutate(context.Background(), "g", []Mutation{putMut(key(1), strings.Repeat("v", 400))}); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if r, err := tc.c.Get(ctx, "g", key(1), ""); err != nil || len(r.Cells) != 1 {
			b.Fatal(r, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/rtt")
}

// BenchmarkScan10k scans a 10,000-row table (1 MiB) in one region through
// the test server on loopback, as many rows a call as the client asks.
func BenchmarkScan10k(b *testing.B) {
	benchScan(b, "s10k", func(i int) string { return fmt.Sprintf("value-%064d", i) })
}

// BenchmarkScanFull scans 10,000 rows of comment size (a 400-byte value;
// 4 MiB in all) in one region: by HBase's default, 2 MiB a call.
func BenchmarkScanFull(b *testing.B) {
	body := strings.Repeat("c", 390)
	benchScan(b, "sfull", func(i int) string { return fmt.Sprintf("%s%010d", body, i) })
}

// benchScan loads 10,000 rows of the values value makes into table, then
// scans them whole each op.
func benchScan(b *testing.B, table string, value func(i int) string) {
	tc := startCluster(b)
	ctx := context.Background()
	if err := tc.c.CreateTable(ctx, table, []string{"f"}, nil); err != nil {
		b.Fatal(err)
	}
	const n = 10_000
	muts := make([]Mutation, 0, 1000)
	for i := range n {
		muts = append(muts, putMut(fmt.Appendf(nil, "row-%06d", i), value(i)))
		if len(muts) == cap(muts) {
			if err := tc.c.Mutate(ctx, table, muts); err != nil {
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
		if _, err := tc.c.Scan(ctx, table, Scan{}, func(Result) bool { rows++; return true }); err != nil {
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
