package backend

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"strings"

	"commentbench/hbase"
	"commentbench/hbase/sasl"
)

// security fills the client's Kerberos and TLS settings from the flags.
// Credentials are loaded and the login done here, so missing or refused
// credentials stop the command before it touches the cluster.
func (f *Flags) security(o *hbase.Options) error {
	if f.Keytab != "" || f.Principal != "" || f.Kerberos {
		creds, err := sasl.NewCredentials(sasl.CredOptions{Keytab: f.Keytab, Principal: f.Principal, Krb5Conf: f.Krb5Conf})
		if err != nil {
			return err
		}
		o.Kerberos = creds
		// "REALM" in the default stands for the krb5.conf default realm.
		o.ServicePrincipal = strings.TrimSuffix(f.ServicePrincipal, "@REALM")
		if f.Protection != "" {
			p, _ := sasl.ParseProtection(f.Protection)
			o.Protection = p
		}
	} else if f.Protection != "" {
		return fmt.Errorf("--hbase-protection %s needs Kerberos: add --hbase-keytab and --hbase-principal, or --hbase-kerberos after kinit", f.Protection)
	}
	if !f.TLS {
		return nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if f.TLSCA != "" {
		pem, err := os.ReadFile(f.TLSCA)
		if err != nil {
			return fmt.Errorf("%w: --hbase-tls-ca: %v", hbase.ErrTLS, err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return fmt.Errorf("%w: --hbase-tls-ca %s holds no PEM certificate", hbase.ErrTLS, f.TLSCA)
		}
		cfg.RootCAs = pool
	}
	if f.TLSCert != "" {
		cert, err := tls.LoadX509KeyPair(f.TLSCert, f.TLSKey)
		if err != nil {
			return fmt.Errorf("%w: --hbase-tls-cert %s / --hbase-tls-key %s: %v", hbase.ErrTLS, f.TLSCert, f.TLSKey, err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	o.TLS = cfg
	return nil
}
