// Package krbtest gives tests a throwaway MIT Kerberos realm on loopback,
// made by scripts/kdc.sh in the test's temporary directory and stopped at
// cleanup: a service principal for the test cluster, users with keytabs,
// one whose tickets live 20 seconds. It owns nothing else; the protocol is
// package sasl's.
package krbtest

import (
	"fmt"
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

// FreePort is a loopback port nobody listens on right now, on TCP or on
// UDP: a KDC serves both, and a client's ephemeral UDP port (a kinit's,
// another test's) is as much in its way as a listener.
func FreePort(t testing.TB) int {
	t.Helper()
	for range 20 {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		udp, err := net.ListenPacket("udp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		ln.Close()
		if err == nil {
			udp.Close()
			return port
		}
	}
	t.Fatal("no loopback port free on both TCP and UDP in 20 tries")
	return 0
}

// Start makes a realm in a fresh temporary directory.
func Start(t testing.TB) *KDC {
	t.Helper()
	Available(t)
	var dir string
	var port int
	// A port free when chosen can be taken before the KDC binds it: each
	// try gets a fresh port and a fresh directory (the database of a
	// failed start is still there).
	err := retry(t, func() error {
		dir, port = t.TempDir(), FreePort(t)
		d := dir
		out, err := exec.Command("bash", script(), "start", d, strconv.Itoa(port)).CombinedOutput()
		t.Cleanup(func() { _ = exec.Command("bash", script(), "stop", d).Run() })
		if err != nil {
			return fmt.Errorf("scripts/kdc.sh start: %v\n%s", err, out)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
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
	err := retry(t, func() error {
		out, err := exec.Command("bash", script(), "skewed", k.Dir, offset, strconv.Itoa(FreePort(t))).CombinedOutput()
		if err != nil {
			return fmt.Errorf("scripts/kdc.sh skewed: %v\n%s", err, out)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
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

// retry runs start up to three times, logging each failure but the last,
// which it returns.
func retry(t testing.TB, start func() error) error {
	var err error
	for try := 1; try <= 3; try++ {
		if err = start(); err == nil {
			return nil
		}
		if try < 3 {
			t.Logf("try %d: %v", try, err)
		}
	}
	return err
}
