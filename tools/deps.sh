#!/bin/bash
# Installs the Debian packages named in the given list files (one package a
# line, '#' comments) that are not installed yet. Idempotent: when everything
# is present it only asks dpkg, which takes well under a second.
# Waits for the apt and dpkg locks instead of failing: a fresh Debian cloud
# host runs unattended-upgrades (apt-daily) at first boot, holding them for
# minutes. One note on stderr names the holder while it waits.
# Reads: DEPS_NO_INSTALL=1 to only report what is missing (exit 1 if any);
# DEPS_LOCK_TIMEOUT (default 600): seconds to wait for each lock.
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
lock_timeout=${DEPS_LOCK_TIMEOUT:-600}
[[ "$lock_timeout" =~ ^[0-9]+$ ]] || { echo "ERROR: deps: DEPS_LOCK_TIMEOUT='$lock_timeout' is not a number of seconds" >&2; exit 2; }
# What apt and dpkg lock (fcntl/POSIX locks, as /proc/locks lists them; a
# flock(1) lock on these files does not stop apt, so it does not count).
apt_locks=(/var/lib/dpkg/lock-frontend /var/lib/dpkg/lock /var/lib/apt/lists/lock /var/cache/apt/archives/lock)

# lock_holder: "FILE PID (COMM)" of the first held apt/dpkg lock, or nothing.
lock_holder() {
	local f dev ino id pid
	for f in "${apt_locks[@]}"; do
		[ -e "$f" ] || continue
		# /proc/locks names a file MAJ:MIN:INODE (major, minor in hex) of
		# its device number (stat %d, the kernel's encoding).
		read -r dev ino < <(stat -c '%d %i' "$f")
		id=$(printf '%02x:%02x:%s' $(((dev >> 8) & 0xfff | ((dev >> 32) & ~0xfff))) \
			$(((dev & 0xff) | ((dev >> 12) & ~0xff))) "$ino")
		pid=$(awk -v id="$id" '$2 != "->" && ($2 == "POSIX" || $2 == "OFDLCK") && $6 == id { print $5; exit }' /proc/locks)
		[ -n "$pid" ] || continue
		echo "$f $pid ($(cat "/proc/$pid/comm" 2>/dev/null || echo '?'))"
		return 0
	done
}

# wait_for_locks: returns once no apt/dpkg lock is held; after
# DEPS_LOCK_TIMEOUT seconds fails naming the holder.
wait_for_locks() {
	local holder deadline=$((SECONDS + lock_timeout)) noted=0
	while holder=$(lock_holder) && [ -n "$holder" ]; do
		if [ $noted = 0 ]; then
			echo "deps: ${holder%% *} is held by PID ${holder#* }; waiting up to $lock_timeout s (DEPS_LOCK_TIMEOUT)" >&2
			noted=1
		fi
		if [ $SECONDS -ge $deadline ]; then
			echo "ERROR: deps: ${holder%% *} still held by PID ${holder#* } after $lock_timeout s; try again when it is done" >&2
			return 1
		fi
		sleep 1
	done
	[ $noted = 0 ] || echo "deps: the lock is free, going on" >&2
}

# apt_run ARG...: apt-get ARG... once the locks are free. apt waits for the
# dpkg lock itself (DPkg::Lock::Timeout) if it is taken in between, but not
# for the lists lock of 'update': a run that lost that race waits and retries.
apt_run() {
	local rc try
	for try in 1 2 3; do
		wait_for_locks || return 1
		rc=0
		apt-get -o DPkg::Lock::Timeout="$lock_timeout" "$@" || rc=$?
		[ $rc -ne 0 ] && [ -n "$(lock_holder)" ] || return $rc
		echo "deps: apt-get $1 failed while a lock was taken (try $try of 3)" >&2
	done
	return $rc
}

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
apt_run update -qq
# --no-upgrade: a package listed as missing that is installed after all (a
# race, a stale answer) stays as it is.
DEBIAN_FRONTEND=noninteractive apt_run install -y -qq --no-install-recommends --no-upgrade "${missing[@]}" >/dev/null
