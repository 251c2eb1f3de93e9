#!/usr/bin/env bash
# Prints the path of Debian's chromium, installing it first when it is
# missing, for the report's browser tests (COMMENTBENCH_CHROMIUM):
#   COMMENTBENCH_CHROMIUM=$(bash scripts/chromium.sh)
# Installing needs root, as CI has; without it the message says what to run.
set -eu
if ! command -v chromium >/dev/null 2>&1; then
	if [ "$(id -u)" != 0 ]; then
		echo "chromium: Debian's chromium package is missing, and installing it needs root:" >&2
		echo "  sudo apt-get install chromium    # then run make test again; CI runs as root and installs it" >&2
		exit 1
	fi
	echo "chromium: installing Debian's chromium package" >&2
	apt-get update -qq >/dev/null
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
command -v chromium
