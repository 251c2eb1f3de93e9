#!/usr/bin/env bash
# Checks what `make test` needs beyond Go, before anything runs:
# Debian's zookeeper (it brings a Java runtime) for the HBase client's
# ZooKeeper tests, chromium to open the HTML reports headless, and node
# with npm for HdrHistogram's JavaScript port, MIT Kerberos and faketime
# for the secured-cluster tests, and Prometheus for the fleet test. As root (CI) it installs
# whatever is missing with apt; otherwise it names everything missing in
# one message, with the command that installs it, and fails.
set -eu
jar=/usr/share/java/zookeeper.jar
missing=() pkgs=()
if [ ! -f "$jar" ]; then
	missing+=("zookeeper (and the Java runtime it brings): the HBase client's ZooKeeper tests run a real one")
	pkgs+=(zookeeper)
fi
if ! command -v chromium >/dev/null 2>&1; then
	missing+=("chromium: the HTML report tests open the pages headless")
	pkgs+=(chromium)
fi
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
	missing+=("node and npm: the percentiles are checked against HdrHistogram's JavaScript port")
	pkgs+=(nodejs npm)
fi
if ! command -v krb5kdc >/dev/null 2>&1 && [ ! -x /usr/sbin/krb5kdc ] || ! command -v kinit >/dev/null 2>&1 || [ ! -x /usr/sbin/kadmin.local ]; then
	missing+=("MIT Kerberos (KDC, kadmin, kinit): the secured-cluster tests run a throwaway realm (scripts/kdc.sh)")
	pkgs+=(krb5-kdc krb5-admin-server krb5-user)
fi
if ! command -v faketime >/dev/null 2>&1; then
	missing+=("faketime: the clock-skew test runs a KDC whose clock is off")
	pkgs+=(faketime)
fi
if ! command -v prometheus >/dev/null 2>&1; then
	missing+=("prometheus: the fleet test has a real Prometheus scrape the members")
	pkgs+=(prometheus)
fi
[ ${#pkgs[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
	{
		echo "make test needs what this machine lacks:"
		printf '  - %s\n' "${missing[@]}"
		echo "Install them (Debian and Ubuntu package names), then run make test again:"
		echo "  sudo apt-get install ${pkgs[*]}"
		echo "(make test installs them itself when run as root, as CI does; make run needs Go alone.)"
	} >&2
	exit 1
fi
echo "make test: installing ${pkgs[*]} (apt)" >&2
apt-get update -qq >/dev/null
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${pkgs[@]}" >/dev/null
