package hbase

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"commentbench/hbase/sasl"
	"commentbench/hbase/sasl/krbtest"
	"commentbench/hbasetest"
	"commentbench/store/embedded"
)

// securedClient is a client of a test cluster that offers protection p
// (0: a plain cluster, SIMPLE auth).
func securedClient(b *testing.B, k *krbtest.KDC, p sasl.Protection) *Client {
	b.Helper()
	eng, err := embedded.Open(embedded.Options{DisableSplits: true})
	if err != nil {
		b.Fatal(err)
	}
	o := hbasetest.Options{Engine: eng}
	co := Options{DialTimeout: 5 * time.Second, CallTimeout: 10 * time.Second}
	if p != 0 {
		o.Security = &hbasetest.Security{Keytab: k.ServiceKeytab, Principal: k.ServicePrincipal, Protection: p}
		creds, err := sasl.NewCredentials(sasl.CredOptions{Keytab: k.UserKeytab, Principal: k.User, Krb5Conf: k.Krb5Conf})
		if err != nil {
			b.Fatal(err)
		}
		co.Kerberos, co.Protection = creds, p
	}
	cl, err := hbasetest.Start(o)
	if err != nil {
		b.Fatal(err)
	}
	co.Bootstrap = cl.Bootstrap()
	c, err := Dial(context.Background(), co)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close(); cl.Close(); eng.Close() })
	return c
}

// BenchmarkCommentWritesPrivacyVsPlain puts comment-sized rows (a 400-byte
// body) one after another through a plain cluster and through one with
// Kerberos privacy, and reports the cost of privacy as the ratio of the
// two times per write.
//
//	go test ./hbase -run '^$' -bench PrivacyVsPlain -benchtime 2000x
func BenchmarkCommentWritesPrivacyVsPlain(b *testing.B) {
	k := krbtest.Start(b)
	ctx := context.Background()
	body := strings.Repeat("comment text ", 31)[:400]
	per := map[string]time.Duration{}
	for _, level := range []struct {
		name string
		p    sasl.Protection
	}{{"plain", 0}, {"privacy", sasl.Privacy}} {
		c := securedClient(b, k, level.p)
		if err := c.CreateTable(ctx, "comments", []string{"f"}, nil); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		for i := range b.N {
			if err := c.Mutate(ctx, "comments", []Mutation{putMut(fmt.Appendf(nil, "c-%09d", i), body)}); err != nil {
				b.Fatal(err)
			}
		}
		per[level.name] = time.Since(start) / time.Duration(b.N)
	}
	b.ReportMetric(float64(per["plain"].Microseconds()), "µs/plain-write")
	b.ReportMetric(float64(per["privacy"].Microseconds()), "µs/privacy-write")
	b.ReportMetric(float64(per["privacy"])/float64(per["plain"]), "privacy/plain")
}
