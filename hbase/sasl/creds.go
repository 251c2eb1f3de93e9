package sasl

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/jcmturner/gokrb5/v8/client"
	"github.com/jcmturner/gokrb5/v8/config"
	"github.com/jcmturner/gokrb5/v8/credentials"
	"github.com/jcmturner/gokrb5/v8/iana/errorcode"
	"github.com/jcmturner/gokrb5/v8/keytab"
	"github.com/jcmturner/gokrb5/v8/messages"
	"github.com/jcmturner/gokrb5/v8/types"
)

// ErrCredentials marks a client that cannot authenticate: no or bad
// credentials, a KDC that refuses them, a service principal it does not
// know. Commands exit 2 on it, as on an unreachable cluster.
var ErrCredentials = errors.New("kerberos")

// CredOptions say where a client's Kerberos credentials come from.
type CredOptions struct {
	Keytab    string // with Principal: log in from the keytab, and again whenever the TGT runs out
	Principal string // user@REALM, or user in the krb5.conf default realm
	Krb5Conf  string // default $KRB5_CONFIG, then /etc/krb5.conf
	CCache    string // without Keytab: default $KRB5CCNAME, then /tmp/krb5cc_UID
}

// Credentials are a client's Kerberos identity, safe for concurrent use.
// With a keytab, gokrb5 renews or re-obtains the TGT before it runs out; a
// ticket cache is read again when its TGT has expired, so a kinit (or
// kinit -R) in another terminal keeps a long run going.
type Credentials struct {
	o    CredOptions
	cfg  *config.Config
	conf string // path of the krb5.conf read

	mu sync.Mutex
	cl *client.Client
}

// Describe names the credentials without anything secret, for messages.
func (c *Credentials) Describe() string {
	if c.o.Keytab != "" {
		return fmt.Sprintf("keytab %s for %s", c.o.Keytab, c.o.Principal)
	}
	return "ticket cache " + c.o.CCache
}

// Realm is the krb5.conf default realm, used for a service principal
// given without one.
func (c *Credentials) Realm() string { return c.cfg.LibDefaults.DefaultRealm }

// NewCredentials loads the configuration and the credentials and logs in,
// so that missing or refused credentials are found before any connection.
func NewCredentials(o CredOptions) (*Credentials, error) {
	if o.Keytab != "" && o.Principal == "" {
		return nil, fmt.Errorf("%w: --hbase-keytab %s given without --hbase-principal: name the principal whose key it holds (klist -k %s lists them)", ErrCredentials, o.Keytab, o.Keytab)
	}
	if o.Principal != "" && o.Keytab == "" {
		return nil, fmt.Errorf("%w: --hbase-principal %s given without --hbase-keytab: pass the keytab holding its key, or drop both and kinit %s to use the ticket cache", ErrCredentials, o.Principal, o.Principal)
	}
	if o.Krb5Conf == "" {
		o.Krb5Conf = os.Getenv("KRB5_CONFIG")
	}
	if o.Krb5Conf == "" {
		o.Krb5Conf = "/etc/krb5.conf"
	}
	cfg, err := config.Load(o.Krb5Conf)
	if err != nil {
		// gokrb5 reports unsupported settings as an error yet loads the
		// rest; only a file it cannot read at all is fatal.
		var uv config.UnsupportedDirective
		if !errors.As(err, &uv) || cfg == nil {
			return nil, fmt.Errorf("%w: krb5.conf %s (--krb5-conf or KRB5_CONFIG): %v", ErrCredentials, o.Krb5Conf, err)
		}
	}
	if o.Keytab == "" && o.CCache == "" {
		o.CCache = strings.TrimPrefix(os.Getenv("KRB5CCNAME"), "FILE:")
		if o.CCache == "" {
			o.CCache = fmt.Sprintf("/tmp/krb5cc_%d", os.Getuid())
		}
	}
	c := &Credentials{o: o, cfg: cfg, conf: o.Krb5Conf}
	if err := c.login(); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *Credentials) login() error {
	if c.o.Keytab != "" {
		kt, err := keytab.Load(c.o.Keytab)
		if err != nil {
			return fmt.Errorf("%w: read keytab %s (--hbase-keytab): %v", ErrCredentials, c.o.Keytab, err)
		}
		user, realm := splitPrincipal(c.o.Principal, c.Realm())
		cl := client.NewWithKeytab(user, realm, kt, c.cfg, client.DisablePAFXFAST(true))
		if err := cl.Login(); err != nil {
			return c.explain("log in as "+user+"@"+realm+" with keytab "+c.o.Keytab, err)
		}
		c.cl = cl
		return nil
	}
	if _, err := os.Stat(c.o.CCache); err != nil {
		return fmt.Errorf("%w: no Kerberos credentials: no --hbase-keytab, and no ticket cache at %s (KRB5CCNAME): run kinit PRINCIPAL first, or pass --hbase-keytab and --hbase-principal", ErrCredentials, c.o.CCache)
	}
	cc, err := credentials.LoadCCache(c.o.CCache)
	if err != nil {
		return fmt.Errorf("%w: read ticket cache %s (KRB5CCNAME): %v; run kinit again", ErrCredentials, c.o.CCache, err)
	}
	cl, err := client.NewFromCCache(cc, c.cfg, client.DisablePAFXFAST(true))
	if err != nil {
		return fmt.Errorf("%w: ticket cache %s (KRB5CCNAME) holds no usable TGT for %s@%s: %v; run kinit again, or pass --hbase-keytab and --hbase-principal", ErrCredentials, c.o.CCache, cc.GetClientPrincipalName().PrincipalNameString(), cc.GetClientRealm(), err)
	}
	c.cl = cl
	return nil
}

// Principal is the client's own name and realm.
func (c *Credentials) Principal() (types.PrincipalName, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cl.Credentials.CName(), c.cl.Credentials.Domain()
}

// ServiceTicket returns a ticket for spn ("service/host@REALM"). A cached
// one is reused while valid; after it runs out a new one is asked for, with
// a TGT renewed or re-obtained as needed.
func (c *Credentials) ServiceTicket(spn string) (messages.Ticket, types.EncryptionKey, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	name, _ := splitPrincipal(spn, c.Realm())
	tkt, key, err := c.cl.GetServiceTicket(name)
	if err != nil && c.o.Keytab == "" {
		// The cache's TGT may have run out while another kinit refreshed
		// the file: read it again once.
		if lerr := c.login(); lerr == nil {
			tkt, key, err = c.cl.GetServiceTicket(name)
		}
	}
	if err != nil {
		return tkt, key, c.explain("get a service ticket for "+spn+" (--hbase-service-principal)", err)
	}
	return tkt, key, nil
}

// explain turns a Kerberos failure into what to change. The KDC's error
// code decides; gokrb5's text is kept as the cause.
func (c *Credentials) explain(what string, err error) error {
	var ke messages.KRBError
	code := int32(-1)
	if errors.As(err, &ke) {
		code = ke.ErrorCode
	} else {
		for _, n := range []int32{errorcode.KRB_AP_ERR_SKEW, errorcode.KDC_ERR_S_PRINCIPAL_UNKNOWN, errorcode.KDC_ERR_C_PRINCIPAL_UNKNOWN, errorcode.KDC_ERR_PREAUTH_FAILED} {
			if strings.Contains(err.Error(), errorcode.Lookup(n)) {
				code = n
				break
			}
		}
	}
	var hint string
	switch code {
	case errorcode.KRB_AP_ERR_SKEW:
		hint = fmt.Sprintf("this machine's clock (%s) is further from the KDC's than the allowed skew: set the clock right (NTP) on this machine or the KDC", time.Now().UTC().Format(time.RFC3339))
	case errorcode.KDC_ERR_S_PRINCIPAL_UNKNOWN:
		hint = "the KDC knows no such service principal: give --hbase-service-principal as the cluster's servers run (hbase.regionserver.kerberos.principal, _HOST for each server's host name)"
	case errorcode.KDC_ERR_C_PRINCIPAL_UNKNOWN:
		hint = "the KDC knows no such user principal: check --hbase-principal and the realm"
	case errorcode.KDC_ERR_PREAUTH_FAILED:
		hint = "the KDC refused the keytab's key: the keytab is stale (the principal's key changed); export a fresh one"
	default:
		if strings.Contains(err.Error(), "cannot login") || strings.Contains(err.Error(), "no user credentials") {
			hint = "the ticket cache's TGT has expired: run kinit again, or pass --hbase-keytab and --hbase-principal so the harness logs in itself"
		} else {
			hint = fmt.Sprintf("check the KDC in %s is reachable and the names are right", c.conf)
		}
	}
	return fmt.Errorf("%w: %s: %s (%v)", ErrCredentials, what, hint, err)
}

// splitPrincipal splits "name@REALM", defaulting the realm.
func splitPrincipal(p, defRealm string) (string, string) {
	if i := strings.LastIndexByte(p, '@'); i >= 0 {
		return p[:i], p[i+1:]
	}
	return p, defRealm
}

// ServicePrincipal expands HBase's _HOST in pattern for host (lower-cased,
// as HBase's SecurityUtil does) and adds the default realm when none is
// given.
func ServicePrincipal(pattern, host, defRealm string) string {
	p := strings.ReplaceAll(pattern, "_HOST", strings.ToLower(host))
	if !strings.Contains(p, "@") && defRealm != "" {
		p += "@" + defRealm
	}
	return p
}
