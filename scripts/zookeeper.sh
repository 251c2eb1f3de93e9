#!/usr/bin/env bash
# Runs a throwaway ZooKeeper on a loopback port for the tests.
#   bash scripts/zookeeper.sh start DIR   # installs Debian's zookeeper if missing; writes DIR/addr
#   bash scripts/zookeeper.sh stop DIR
# The server keeps its data in DIR and listens on 127.0.0.1 only. The port
# being open does not mean sessions are accepted yet: tests wait on a real
# operation (hbasetest.PublishZooKeeper retries).
set -eu
cmd=$1 dir=$2
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }
jar=/usr/share/java/zookeeper.jar

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

case $cmd in
start)
	if [ ! -f "$jar" ] && [ "$(id -u)" != 0 ]; then
		echo "zookeeper: Debian's zookeeper package (it brings a Java runtime) is missing, and installing it needs root:" >&2
		echo "  sudo apt-get install zookeeper    # then run make test again; CI runs as root and installs it" >&2
		exit 1
	fi
	if [ ! -f "$jar" ]; then
		echo "zookeeper: installing Debian's zookeeper package" >&2
		apt-get update -qq >/dev/null
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq zookeeper >/dev/null
	fi
	mkdir -p "$dir/data"
	port=21810
	while ! port_free $port; do port=$((port + 1)); done
	cat >"$dir/zoo.cfg" <<CFG
tickTime=2000
dataDir=$dir/data
clientPort=$port
clientPortAddress=127.0.0.1
admin.enableServer=false
CFG
	java -cp "/etc/zookeeper/conf:$jar" -Dzookeeper.log.dir="$dir" \
		org.apache.zookeeper.server.ZooKeeperServerMain "$dir/zoo.cfg" >"$dir/zookeeper.log" 2>&1 &
	echo $! >"$dir/pid"
	i=0
	while port_free $port; do
		i=$((i + 1))
		if [ $i -gt 300 ] || ! kill -0 "$(cat "$dir/pid")" 2>/dev/null; then
			echo "zookeeper did not start; its log:" >&2
			cat "$dir/zookeeper.log" >&2
			exit 1
		fi
		sleep 0.1
	done
	echo "127.0.0.1:$port" >"$dir/addr"
	echo "zookeeper: listening on 127.0.0.1:$port" >&2
	;;
stop)
	if [ -f "$dir/pid" ]; then
		kill "$(cat "$dir/pid")" 2>/dev/null || true
		rm -f "$dir/pid"
	fi
	;;
*)
	echo "usage: $0 start|stop DIR" >&2
	exit 2
	;;
esac
