#!/bin/bash
# Installs the Debian packages named in the given list files (one package a
# line, '#' comments) that are not installed yet. Idempotent: when everything
# is present it only asks dpkg, which takes well under a second.
# Reads: DEPS_NO_INSTALL=1 to only report what is missing (exit 1 if any).
set -eu

usage() { echo "usage: deps.sh LIST.txt..." >&2; exit 2; }
[ $# -gt 0 ] || usage

wanted=()
for list in "$@"; do
	[ -r "$list" ] || { echo "ERROR: deps: cannot read package list '$list'" >&2; exit 2; }
	while read -r pkg _; do
		case "$pkg" in ''|'#'*) continue ;; esac
		wanted+=("$pkg")
	done < "$list"
done

missing=()
for pkg in $(printf '%s\n' "${wanted[@]}" | sort -u); do
	status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
	[ "$status" = "install ok installed" ] || missing+=("$pkg")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "${DEPS_NO_INSTALL:-0}" = 1 ]; then
	echo "ERROR: deps: missing packages: ${missing[*]}" >&2
	exit 1
fi
if [ "$(id -u)" != 0 ]; then
	echo "ERROR: deps: need root to install: ${missing[*]}" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}" >&2
# Installing must never start services on the machine that runs the build or
# the tests (tuned, for one, would retune it): while no policy-rc.d exists,
# put one in place that refuses every start, and remove it afterwards.
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
	printf '#!/bin/sh\n# mmbatch deps.sh: no service starts during installs\nexit 101\n' > "$policy"
	chmod 755 "$policy"
	trap 'rm -f "$policy"' EXIT
fi
# The package lists may be stale or absent on a fresh machine.
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
