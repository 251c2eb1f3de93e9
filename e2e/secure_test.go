package e2e

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jcmturner/gokrb5/v8/credentials"
	"github.com/jcmturner/gokrb5/v8/keytab"

	"commentbench/check"
	"commentbench/hbase/sasl/krbtest"
)

// runEnv is run with extra environment variables (KRB5CCNAME).
func runEnv(t *testing.T, env []string, name string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, name), args...)
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return out.String(), errb.String(), ee.ExitCode()
	}
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return out.String(), errb.String(), 0
}

// securedRun is loadgen then verify through a secured minicluster with
// the given client flags; both must exit 0 with nothing lost. It returns
// everything the two printed, for the secrets check.
func securedRun(t *testing.T, mc *minicluster, env []string, dir string, client []string, loadArgs ...string) string {
	t.Helper()
	out := filepath.Join(dir, "out")
	args := append(append(append([]string{}, mc.flags...), client...), "--table-prefix", "cb_",
		"--preset", "ci", "--layout", "unique", "--ops", "0", "--duration", "2s", "--quiet", "--out", out)
	args = append(args, loadArgs...)
	lout, lerr, code := runEnv(t, env, "loadgen", args...)
	if code != 0 {
		t.Fatalf("loadgen: exit %d\n%s%s\nminicluster: %s", code, lout, lerr, mc.stderr)
	}
	vargs := append(append(append([]string{}, mc.flags...), client...), "--table-prefix", "cb_", "--run", out, "--json", "--out", out)
	vout, verr, code := runEnv(t, env, "verify", vargs...)
	var rep check.Report
	if err := json.Unmarshal([]byte(vout), &rep); err != nil || code != 0 || !rep.Consistent || rep.Run == nil || rep.Run.Acked == 0 || rep.Run.Lost.Count != 0 {
		t.Fatalf("verify: exit %d, %v\n%s%s", code, err, vout, verr)
	}
	return lout + lerr + vout + verr
}

// Loadgen then verify at each protection level with a keytab, and at
// privacy with a kinit ticket cache; then nothing secret in any result
// file or output of those runs.
func TestSecuredLoadgenThenVerify(t *testing.T) {
	t.Parallel()
	k := krbtest.Start(t)
	keytabFlags := []string{"--hbase-keytab", k.UserKeytab, "--hbase-principal", k.User, "--krb5-conf", k.Krb5Conf}
	var printed strings.Builder
	var dirs []string
	// The runs' directories outlive the subtests, for the search below.
	base := t.TempDir()
	for _, p := range []string{"authentication", "integrity", "privacy"} {
		t.Run(p, func(t *testing.T) {
			mc := startMinicluster(t, "--keytab", k.ServiceKeytab, "--principal", k.ServicePrincipal, "--protection", p)
			dir := filepath.Join(base, p)
			// --hbase-protection makes the client insist on the level, so a
			// silent downgrade would fail here.
			printed.WriteString(securedRun(t, mc, nil, dir, append(keytabFlags, "--hbase-protection", p)))
			dirs = append(dirs, dir)
		})
	}
	cc := filepath.Join(k.Dir, "ccache")
	t.Run("privacy with a ticket cache", func(t *testing.T) {
		k.Kinit(t, cc, k.UserKeytab, k.User)
		mc := startMinicluster(t, "--keytab", k.ServiceKeytab, "--principal", k.ServicePrincipal, "--protection", "privacy")
		dir := filepath.Join(base, "ccache")
		printed.WriteString(securedRun(t, mc, []string{"KRB5CCNAME=FILE:" + cc}, dir, []string{"--hbase-kerberos", "--krb5-conf", k.Krb5Conf}))
		dirs = append(dirs, dir)
	})
	if t.Failed() {
		return
	}
	noSecrets(t, secretsOf(t, k.UserKeytab, cc), printed.String(), dirs)
}

// secretsOf is the key material a leak would show: every key in the
// keytab, and the ticket cache's tickets and session keys.
func secretsOf(t *testing.T, keytabPath, ccachePath string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	kt, err := keytab.Load(keytabPath)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range kt.Entries {
		out["keytab key "+string(rune('0'+i))] = e.Key.KeyValue
	}
	cc, err := credentials.LoadCCache(ccachePath)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cc.GetEntries() {
		out["ccache ticket "+string(rune('0'+i))] = c.Ticket
		out["ccache session key "+string(rune('0'+i))] = c.Key.KeyValue
	}
	if len(out) < 3 {
		t.Fatalf("only %d secrets found to look for", len(out))
	}
	return out
}

// noSecrets looks for each secret, raw, in hex and in base64, in what the
// commands printed and in every file under dirs.
func noSecrets(t *testing.T, secrets map[string][]byte, printed string, dirs []string) {
	t.Helper()
	texts := map[string][]byte{"stdout and stderr": []byte(printed)}
	for _, d := range dirs {
		_ = filepath.Walk(d, func(p string, fi os.FileInfo, err error) error {
			if err == nil && !fi.IsDir() {
				b, rerr := os.ReadFile(p)
				if rerr != nil {
					t.Fatal(rerr)
				}
				texts[p] = b
			}
			return nil
		})
	}
	if len(texts) < 3 {
		t.Fatalf("only %d outputs to search: the runs wrote no files?", len(texts))
	}
	for name, s := range secrets {
		// A 4-byte window is too short to mean anything; the material is
		// 16 bytes and up.
		if len(s) < 16 {
			t.Fatalf("%s is only %d bytes", name, len(s))
		}
		forms := [][]byte{s, []byte(hex.EncodeToString(s)), []byte(strings.ToUpper(hex.EncodeToString(s))), []byte(base64.StdEncoding.EncodeToString(s)[:20])}
		for where, b := range texts {
			for _, f := range forms {
				if bytes.Contains(b, f) {
					t.Errorf("%s found in %s", name, where)
				}
			}
		}
	}
}

// pki is a CA with a server certificate for 127.0.0.1 and localhost and a
// client certificate, as PEM files.
type pki struct {
	ca, serverCert, serverKey, clientCert, clientKey string
}

func makePKI(t *testing.T, dir, name string) pki {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name + " test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	write := func(file, typ string, der []byte) string {
		p := filepath.Join(dir, name+"-"+file)
		if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	leaf := func(serial int64, cn string, usage x509.ExtKeyUsage, server bool) (string, string) {
		key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: cn},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage}}
		if server {
			tmpl.IPAddresses = []net.IP{net.ParseIP("127.0.0.1")}
			tmpl.DNSNames = []string{"localhost"}
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		kder, _ := x509.MarshalPKCS8PrivateKey(key)
		return write(cn+".pem", "CERTIFICATE", der), write(cn+"-key.pem", "PRIVATE KEY", kder)
	}
	p := pki{ca: write("ca.pem", "CERTIFICATE", caDER)}
	p.serverCert, p.serverKey = leaf(2, "server", x509.ExtKeyUsageServerAuth, true)
	p.clientCert, p.clientKey = leaf(3, "client", x509.ExtKeyUsageClientAuth, false)
	return p
}

// The same over TLS: TLS alone; mutual TLS with Kerberos inside it at each
// protection level, from a keytab; and privacy from a ticket cache.
func TestSecuredTLS(t *testing.T) {
	t.Parallel()
	k := krbtest.Start(t)
	p := makePKI(t, t.TempDir(), "good")
	t.Run("tls", func(t *testing.T) {
		mc := startMinicluster(t, "--tls-cert", p.serverCert, "--tls-key", p.serverKey)
		securedRun(t, mc, nil, t.TempDir(), []string{"--hbase-tls-ca", p.ca})
	})
	for _, prot := range []string{"authentication", "integrity", "privacy"} {
		t.Run("mutual tls and kerberos "+prot, func(t *testing.T) {
			mc := startMinicluster(t, "--tls-cert", p.serverCert, "--tls-key", p.serverKey, "--tls-client-ca", p.ca,
				"--keytab", k.ServiceKeytab, "--principal", k.ServicePrincipal, "--protection", prot)
			securedRun(t, mc, nil, t.TempDir(), []string{"--hbase-tls-ca", p.ca, "--hbase-tls-cert", p.clientCert, "--hbase-tls-key", p.clientKey,
				"--hbase-keytab", k.UserKeytab, "--hbase-principal", k.User, "--krb5-conf", k.Krb5Conf, "--hbase-protection", prot})
		})
	}
	t.Run("tls and kerberos privacy with a ticket cache", func(t *testing.T) {
		cc := filepath.Join(t.TempDir(), "ccache")
		k.Kinit(t, cc, k.UserKeytab, k.User)
		mc := startMinicluster(t, "--tls-cert", p.serverCert, "--tls-key", p.serverKey,
			"--keytab", k.ServiceKeytab, "--principal", k.ServicePrincipal, "--protection", "privacy")
		securedRun(t, mc, []string{"KRB5CCNAME=FILE:" + cc}, t.TempDir(), []string{"--hbase-tls-ca", p.ca,
			"--hbase-kerberos", "--krb5-conf", k.Krb5Conf, "--hbase-protection", "privacy"})
	})
}

// Every refusal exits 2 with a message naming what was tried and what to
// change, against one cluster with mutual TLS and Kerberos privacy.
func TestSecuredErrors(t *testing.T) {
	t.Parallel()
	k := krbtest.Start(t)
	dir := t.TempDir()
	good := makePKI(t, dir, "good")
	other := makePKI(t, dir, "other")
	skewed := k.Skewed(t, "+2h")
	mc := startMinicluster(t, "--tls-cert", good.serverCert, "--tls-key", good.serverKey, "--tls-client-ca", good.ca,
		"--keytab", k.ServiceKeytab, "--principal", k.ServicePrincipal, "--protection", "privacy")
	tlsOK := []string{"--hbase-tls-ca", good.ca, "--hbase-tls-cert", good.clientCert, "--hbase-tls-key", good.clientKey}
	krbOK := []string{"--hbase-keytab", k.UserKeytab, "--hbase-principal", k.User, "--krb5-conf", k.Krb5Conf}
	cat := func(a ...[]string) []string {
		var out []string
		for _, x := range a {
			out = append(out, x...)
		}
		return out
	}
	for _, tc := range []struct {
		name  string
		env   []string
		flags []string
		want  []string
	}{
		{"no ticket and no keytab", []string{"KRB5CCNAME=FILE:" + filepath.Join(dir, "none")}, cat(tlsOK, []string{"--hbase-kerberos", "--krb5-conf", k.Krb5Conf}),
			[]string{"no Kerberos credentials", filepath.Join(dir, "none"), "kinit"}},
		{"keytab without principal", nil, cat(tlsOK, []string{"--hbase-keytab", k.UserKeytab, "--krb5-conf", k.Krb5Conf}),
			[]string{k.UserKeytab, "--hbase-principal"}},
		{"clock skew", nil, cat(tlsOK, []string{"--hbase-keytab", k.UserKeytab, "--hbase-principal", k.User, "--krb5-conf", skewed}),
			[]string{"clock", k.User}},
		{"service principal the KDC does not know", nil, cat(tlsOK, krbOK, []string{"--hbase-service-principal", "hbase/nosuch@" + k.Realm}),
			[]string{"hbase/nosuch@" + k.Realm, "--hbase-service-principal"}},
		{"service principal of another service", nil, cat(tlsOK, krbOK, []string{"--hbase-service-principal", k.User}),
			[]string{"refused our Kerberos ticket", k.User, "--hbase-service-principal"}},
		{"protection the server refuses", nil, cat(tlsOK, krbOK, []string{"--hbase-protection", "integrity"}),
			[]string{"--hbase-protection integrity", "offers protection privacy", "set it to privacy"}},
		{"no authentication on a secured cluster", nil, tlsOK,
			[]string{"requires Kerberos", "--hbase-keytab"}},
		{"untrusted certificate", nil, cat([]string{"--hbase-tls-ca", other.ca, "--hbase-tls-cert", good.clientCert, "--hbase-tls-key", good.clientKey}, krbOK),
			[]string{"not signed by a CA", "--hbase-tls-ca"}},
		{"no client certificate", nil, cat([]string{"--hbase-tls-ca", good.ca}, krbOK),
			[]string{"--hbase-tls-cert"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := cat(mc.flags, tc.flags, []string{"--hbase-timeout", "5s", "--preset", "ci", "--quiet", "--out", filepath.Join(t.TempDir(), "out")})
			out, errOut, code := runEnv(t, tc.env, "loadgen", args...)
			if code != 2 {
				t.Fatalf("loadgen exit %d, want 2\n%s%s", code, out, errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errOut)
				}
			}
			_, verr, vcode := runEnv(t, tc.env, "verify", cat(mc.flags, tc.flags, []string{"--hbase-timeout", "5s"})...)
			if vcode != 2 || !strings.Contains(verr, tc.want[0]) {
				t.Errorf("verify exit %d, want 2 naming %q:\n%s", vcode, tc.want[0], verr)
			}
		})
	}
}

// A run longer than the tickets live keeps going: the cluster drops each
// connection when its 20-second ticket runs out, and the client comes
// back with a fresh one, logging in again from its keytab.
func TestSecuredOutlivesTickets(t *testing.T) {
	t.Parallel()
	k := krbtest.Start(t)
	mc := startMinicluster(t, "--keytab", k.ServiceKeytab, "--principal", k.ServicePrincipal, "--protection", "privacy", "--drop-expired")
	start := time.Now()
	// Paced: the test is about the ticket's lifetime, not the cluster's
	// throughput, and an unpaced worker spends a core for 45 s.
	securedRun(t, mc, nil, t.TempDir(), []string{"--hbase-keytab", k.ShortKeytab, "--hbase-principal", k.ShortUser, "--krb5-conf", k.Krb5Conf},
		"--duration", "45s", "--rate", "100")
	if time.Since(start) < 45*time.Second {
		t.Fatalf("the run took %v, not longer than two ticket lifetimes", time.Since(start))
	}
	log, err := os.ReadFile(filepath.Join(k.Dir, "kdc.log"))
	if err != nil {
		t.Fatal(err)
	}
	// One TGT per lifetime at least: the first, and again after expiry.
	if n := strings.Count(string(log), "AS_REQ") - strings.Count(string(log), "NEEDED_PREAUTH"); n < 3 {
		t.Errorf("%d TGTs issued over 45 s of 20-second tickets; want the client to have logged in again", n)
	}
}
