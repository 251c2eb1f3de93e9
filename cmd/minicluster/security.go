package main

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"

	"commentbench/hbase/sasl"
	"commentbench/hbasetest"
)

// security turns the Kerberos and TLS flags into the cluster's settings;
// nil when neither is asked for.
func (o options) security() (*hbasetest.Security, error) {
	if o.keytab == "" && o.tlsCert == "" {
		return nil, nil
	}
	p, err := sasl.ParseProtection(o.protection)
	if err != nil {
		return nil, err
	}
	sec := &hbasetest.Security{Keytab: o.keytab, Principal: o.principal, Protection: p, DropExpired: o.dropExpired}
	if o.tlsCert != "" {
		cert, err := tls.LoadX509KeyPair(o.tlsCert, o.tlsKey)
		if err != nil {
			return nil, fmt.Errorf("--tls-cert/--tls-key: %w", err)
		}
		sec.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		if o.tlsClientCA != "" {
			pem, err := os.ReadFile(o.tlsClientCA)
			if err != nil {
				return nil, fmt.Errorf("--tls-client-ca: %w", err)
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return nil, fmt.Errorf("--tls-client-ca %s holds no PEM certificate", o.tlsClientCA)
			}
			sec.TLS.ClientCAs = pool
			sec.TLS.ClientAuth = tls.RequireAndVerifyClientCert
		}
	}
	return sec, nil
}

// securityFlags are what loadgen and verify need besides the address to
// reach a secured cluster; the client's own credentials and CA are the
// user's to add.
func (o options) securityFlags() string {
	s := ""
	if o.principal != "" {
		s += " --hbase-service-principal " + o.principal
	}
	if o.tlsCert != "" {
		s += " --hbase-tls"
	}
	return s
}
