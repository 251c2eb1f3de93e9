#!/usr/bin/env bash
# A throwaway MIT Kerberos realm on loopback, for the secured-cluster tests
# and for trying a kerberized minicluster by hand. Everything lives in DIR:
# the database, the configuration, the keytabs, the KDC's log and pid.
#   bash scripts/kdc.sh start DIR [PORT [REALM]]   (PORT default: a free one)
#   bash scripts/kdc.sh skewed DIR OFFSET PORT     (a second KDC on the same
#        database whose clock is OFFSET off, e.g. +2h; needs faketime)
#   bash scripts/kdc.sh stop DIR
# start writes DIR/env (REALM, PORT, KRB5_CONFIG=DIR/krb5.conf) and:
#   DIR/hbase.keytab   hbase/localhost@REALM, the test cluster's service key
#   DIR/user.keytab    cbuser@REALM, the harness's user
#   DIR/short.keytab   cbshort@REALM, whose tickets live 20 seconds, so a
#                      short run outlives several of them
# The realm's keys are random; nothing in DIR is worth anything once the
# KDC stops. Needs krb5-kdc and krb5-admin-server (scripts/prereqs.sh).
set -eu
cmd=${1:?usage: kdc.sh start|skewed|stop DIR ...}
dir=${2:?usage: kdc.sh start|skewed|stop DIR ...}
export PATH=$PATH:/usr/sbin:/sbin

free_port() {
	local p
	for _ in $(seq 50); do
		p=$((20000 + RANDOM % 40000))
		# A refused connection means nothing listens there on TCP.
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
			echo "$p"
			return
		fi
	done
	echo "kdc.sh: no free port found" >&2
	exit 1
}

# kdc_conf PORT writes the KDC's profile for this realm on PORT.
kdc_conf() {
	cat <<EOF
[kdcdefaults]
	kdc_ports = $1
	kdc_tcp_ports = $1

[realms]
	$realm = {
		database_name = $dir/principal
		key_stash_file = $dir/stash
		acl_file = $dir/kadm5.acl
		max_life = 10h
		max_renewable_life = 0
		master_key_type = aes256-cts-hmac-sha1-96
		supported_enctypes = aes256-cts-hmac-sha1-96:normal aes128-cts-hmac-sha1-96:normal
		kdc_ports = $1
		kdc_tcp_ports = $1
	}

[logging]
	kdc = FILE:$dir/kdc$2.log
EOF
}

# krb5_conf PORT writes a client profile that reaches the KDC on PORT over
# TCP only (udp_preference_limit 1), with no DNS look-ups.
krb5_conf() {
	cat <<EOF
[libdefaults]
	default_realm = $realm
	dns_lookup_kdc = false
	dns_lookup_realm = false
	rdns = false
	udp_preference_limit = 1
	ticket_lifetime = 10h
	forwardable = false
	default_tkt_enctypes = aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96
	default_tgs_enctypes = aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96
	permitted_enctypes = aes256-cts-hmac-sha1-96 aes128-cts-hmac-sha1-96

[realms]
	$realm = {
		kdc = 127.0.0.1:$1
	}

[domain_realm]
	localhost = $realm
	127.0.0.1 = $realm
EOF
}

# failed PORT LOG: krb5kdc exited before serving (a port taken since it
# was chosen, say); its reason is in its log, not on stderr.
failed() {
	echo "kdc.sh: krb5kdc did not start on 127.0.0.1:$1; its log:" >&2
	cat "$2" >&2 || true
	exit 1
}

# wait_up PORT LOG waits for the KDC to take TCP connections.
wait_up() {
	for _ in $(seq 100); do
		if (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; then
			return
		fi
		sleep 0.1
	done
	echo "kdc.sh: the KDC did not come up on 127.0.0.1:$1; its log:" >&2
	cat "$2" >&2 || true
	exit 1
}

case $cmd in
start)
	port=${3:-$(free_port)}
	realm=${4:-COMMENTBENCH.TEST}
	for b in krb5kdc kdb5_util kadmin.local; do
		if ! command -v $b >/dev/null 2>&1; then
			echo "kdc.sh: $b missing: install krb5-kdc and krb5-admin-server (make test does, as root)" >&2
			exit 1
		fi
	done
	mkdir -p "$dir"
	dir=$(cd "$dir" && pwd)
	kdc_conf "$port" "" >"$dir/kdc.conf"
	krb5_conf "$port" >"$dir/krb5.conf"
	: >"$dir/kadm5.acl"
	export KRB5_CONFIG=$dir/krb5.conf KRB5_KDC_PROFILE=$dir/kdc.conf
	# The master password only guards this throwaway database.
	kdb5_util create -s -r "$realm" -P "throwaway-$RANDOM$RANDOM" >/dev/null
	ka() { kadmin.local -r "$realm" -q "$1" >/dev/null; }
	ka "addprinc -randkey hbase/localhost@$realm"
	ka "addprinc -randkey +requires_preauth cbuser@$realm"
	ka "addprinc -randkey +requires_preauth -maxlife \"20 seconds\" cbshort@$realm"
	ka "ktadd -k $dir/hbase.keytab -norandkey hbase/localhost@$realm"
	ka "ktadd -k $dir/user.keytab -norandkey cbuser@$realm"
	ka "ktadd -k $dir/short.keytab -norandkey cbshort@$realm"
	# krb5kdc forks into the background and writes its pid file once it
	# serves.
	krb5kdc -P "$dir/kdc.pid" || failed "$port" "$dir/kdc.log"
	wait_up "$port" "$dir/kdc.log"
	cat >"$dir/env" <<EOF
REALM=$realm
PORT=$port
KRB5_CONFIG=$dir/krb5.conf
EOF
	echo "kdc.sh: realm $realm on 127.0.0.1:$port (KRB5_CONFIG=$dir/krb5.conf)"
	;;
skewed)
	offset=${3:?usage: kdc.sh skewed DIR OFFSET PORT}
	port=${4:?usage: kdc.sh skewed DIR OFFSET PORT}
	dir=$(cd "$dir" && pwd)
	# shellcheck disable=SC1091
	. "$dir/env"
	realm=$REALM
	if ! command -v faketime >/dev/null 2>&1; then
		echo "kdc.sh: faketime missing: install faketime (make test does, as root)" >&2
		exit 1
	fi
	mkdir -p "$dir/skewed"
	kdc_conf "$port" "-skewed" >"$dir/skewed/kdc.conf"
	krb5_conf "$port" >"$dir/skewed/krb5.conf"
	lib=$(find /usr/lib -name libfaketime.so.1 2>/dev/null | head -1)
	# Preloaded rather than run under the faketime command, which would
	# stay in the foreground waiting for the daemon it started.
	KRB5_CONFIG=$dir/skewed/krb5.conf KRB5_KDC_PROFILE=$dir/skewed/kdc.conf \
		LD_PRELOAD=$lib FAKETIME="$offset" krb5kdc -P "$dir/skewed/kdc.pid" || failed "$port" "$dir/kdc-skewed.log"
	wait_up "$port" "$dir/kdc-skewed.log"
	echo "kdc.sh: KDC with its clock $offset off on 127.0.0.1:$port (KRB5_CONFIG=$dir/skewed/krb5.conf)"
	;;
stop)
	for pidf in "$dir/kdc.pid" "$dir/skewed/kdc.pid"; do
		if [ -f "$pidf" ]; then
			kill "$(cat "$pidf")" 2>/dev/null || true
			rm -f "$pidf"
		fi
	done
	;;
*)
	echo "kdc.sh: unknown command $cmd (start, skewed or stop)" >&2
	exit 2
	;;
esac
