// Package krbtest gives tests a throwaway MIT Kerberos realm on loopback,
// made by scripts/kdc.sh in the test's temporary directory and stopped at
// cleanup: a service principal for the test cluster, users with keytabs,
// one whose tickets live 20 seconds. It owns nothing else; the protocol is
// package sasl's.
package krbtest

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// KDC is a running realm.
type KDC struct {
	Dir      string
	Realm    string
	Port     int
	Krb5Conf string // client profile: the realm, its KDC, TCP only

	ServicePrincipal string // hbase/localhost@REALM
	ServiceKeytab    string
	User             string // cbuser@REALM
	UserKeytab       string
	ShortUser        string // cbshort@REALM: tickets live 20 s
	ShortKeytab      string
}

func script() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "scripts", "kdc.sh")
}

// Available reports whether the MIT KDC can be run here; tests skip when
// it cannot, except as root, where make test has installed it and a
// missing KDC is a failure.
func Available(t testing.TB) {
	t.Helper()
	for _, b := range []string{"krb5kdc", "kdb5_util", "kadmin.local"} {
		if _, err := exec.LookPath(b); err != nil {
			if _, err := os.Stat(filepath.Join("/usr/sbin", b)); err == nil {
				continue
			}
			if os.Getuid() == 0 {
				t.Fatalf("%s missing though running as root: scripts/prereqs.sh installs krb5-kdc and krb5-admin-server", b)
			}
			t.Skipf("%s missing: install krb5-kdc and krb5-admin-server (make test does as root) to run the Kerberos tests", b)
		}
	}
}

// FreePort is a loopback TCP port nobody listens on right now.
func FreePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// Start makes a realm in a fresh temporary directory.
func Start(t testing.TB) *KDC {
	t.Helper()
	Available(t)
	dir := t.TempDir()
	port := FreePort(t)
	out, err := exec.Command("bash", script(), "start", dir, strconv.Itoa(port)).CombinedOutput()
	t.Cleanup(func() { _ = exec.Command("bash", script(), "stop", dir).Run() })
	if err != nil {
		t.Fatalf("scripts/kdc.sh start: %v\n%s", err, out)
	}
	realm := "COMMENTBENCH.TEST"
	return &KDC{
		Dir: dir, Realm: realm, Port: port, Krb5Conf: filepath.Join(dir, "krb5.conf"),
		ServicePrincipal: "hbase/localhost@" + realm, ServiceKeytab: filepath.Join(dir, "hbase.keytab"),
		User: "cbuser@" + realm, UserKeytab: filepath.Join(dir, "user.keytab"),
		ShortUser: "cbshort@" + realm, ShortKeytab: filepath.Join(dir, "short.keytab"),
	}
}

// Skewed starts a second KDC on the same realm whose clock is offset (such
// as "+2h") and returns a krb5.conf that points at it.
func (k *KDC) Skewed(t testing.TB, offset string) string {
	t.Helper()
	if _, err := exec.LookPath("faketime"); err != nil {
		if os.Getuid() == 0 {
			t.Fatal("faketime missing though running as root: scripts/prereqs.sh installs it")
		}
		t.Skip("faketime missing: install faketime to run the clock-skew test")
	}
	out, err := exec.Command("bash", script(), "skewed", k.Dir, offset, strconv.Itoa(FreePort(t))).CombinedOutput()
	if err != nil {
		t.Fatalf("scripts/kdc.sh skewed: %v\n%s", err, out)
	}
	return filepath.Join(k.Dir, "skewed", "krb5.conf")
}

// Kinit fills the ticket cache ccache for principal from keytab with MIT's
// kinit, as a person would before a run.
func (k *KDC) Kinit(t testing.TB, ccache, keytab, principal string) {
	t.Helper()
	cmd := exec.Command("kinit", "-k", "-t", keytab, principal)
	cmd.Env = append(os.Environ(), "KRB5_CONFIG="+k.Krb5Conf, "KRB5CCNAME=FILE:"+ccache)
	if out, err := cmd.CombinedOutput(); err != nil {
		if _, lerr := exec.LookPath("kinit"); lerr != nil && os.Getuid() != 0 {
			t.Skip("kinit missing: install krb5-user to run the ticket-cache tests")
		}
		t.Fatalf("kinit %s: %v\n%s", principal, err, strings.TrimSpace(string(out)))
	}
}
