#!/bin/bash
# Checks systemd/mmbatchd.service: `systemd-analyze verify` in a scratch root
# (the host's units, a stand-in /usr/sbin/mmbatchd) must pass without a single
# warning; the lines the contracts and the issue fix must be there (ExecStart,
# Type=notify, WatchdogSec, ReadWritePaths, RestrictAddressFamilies, ...), the
# ones the daemon cannot live with must not (ProtectKernelTunables,
# PrivateNetwork, PrivateUsers); and `systemd-analyze security --offline`
# must rate it at most UNIT_MAX_EXPOSURE. Prints every check and the score.
# Works without systemd as PID 1.
# Reads: UNIT_MAX_EXPOSURE (default 3.0).
set -eu

usage() { echo "usage: verify-unit.sh UNIT_FILE" >&2; exit 2; }
[ $# -eq 1 ] || usage
unit=$1
[ -r "$unit" ] || { echo "ERROR: verify-unit: cannot read '$unit'" >&2; exit 2; }
max_exposure=${UNIT_MAX_EXPOSURE:-3.0}
name=$(basename "$unit")

tmp=$(mktemp -d "${TMPDIR:-/tmp}/verify-unit.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
failures=0
pass() { echo "  ok: $*"; }
fail() { echo "  FAIL: $*" >&2; failures=$((failures + 1)); }

echo "verify-unit: $unit"

# The scratch root: verify resolves dependencies (sysinit.target, ...) and
# checks that every Exec*= binary exists, under --root.
root=$tmp/root
mkdir -p "$root/lib/systemd/system" "$root/usr/sbin" "$root/bin" "$root/etc/mmbatch"
cp -a /lib/systemd/system/. "$root/lib/systemd/system/"
cp "$unit" "$root/lib/systemd/system/$name"
printf '#!/bin/sh\nexit 0\n' > "$root/usr/sbin/mmbatchd"
chmod 0755 "$root/usr/sbin/mmbatchd"
cp /bin/kill "$root/bin/kill"

if systemd-analyze verify --root="$root" "/lib/systemd/system/$name" > "$tmp/verify.out" 2>&1; then
	if [ -s "$tmp/verify.out" ]; then
		fail "systemd-analyze verify passed with warnings (expected none):"; sed 's/^/    /' "$tmp/verify.out" >&2
	else
		pass "systemd-analyze verify: no errors, no warnings"
	fi
else
	fail "systemd-analyze verify failed:"; sed 's/^/    /' "$tmp/verify.out" >&2
fi

# Lines that must be present, verbatim (contracts.md and the issue).
expect_line() {
	if grep -qxF -- "$1" "$unit"; then pass "has '$1'"; else fail "expected line '$1', not found"; fi
}
expect_line "ExecStart=/usr/sbin/mmbatchd --profile /etc/mmbatch/mmbatchd.yaml --foreground"
expect_line "Type=notify"
expect_line "After=systemd-sysctl.service"
expect_line "Restart=on-failure"
expect_line "ProtectSystem=strict"
expect_line "StateDirectory=mmbatch"
expect_line "NoNewPrivileges=yes"
expect_line "SystemCallArchitectures=native"
expect_line "RestrictAddressFamilies=AF_UNIX AF_NETLINK"
expect_line "ExecReload=/bin/kill -HUP \$MAINPID"

# Keys that must be set (any value).
for key in WatchdogSec CapabilityBoundingSet SystemCallFilter Documentation; do
	if grep -qE "^$key=." "$unit"; then pass "$key= set"; else fail "expected $key= to be set, it is not"; fi
done

rw=$(sed -n 's/^ReadWritePaths=//p' "$unit")
for path in /proc/sys/vm /proc/sys/kernel /sys/kernel/mm /sys/devices/system/node /var/lib/mmbatch; do
	found=no
	for p in $rw; do [ "$p" != "$path" ] || found=yes; done
	if [ $found = yes ]; then pass "ReadWritePaths has $path"; else fail "ReadWritePaths: expected $path, have: $rw"; fi
done

# Settings that would break the daemon: read-only /proc/sys, a private
# network namespace (no taskstats), a user namespace (no CAP_NET_ADMIN in the
# initial one).
for key in ProtectKernelTunables PrivateNetwork PrivateUsers; do
	val=$(sed -n "s/^$key=//p" "$unit")
	case "$val" in
	''|no|false|0) pass "$key not enabled" ;;
	*) fail "$key=$val would break the daemon (expected unset or no)" ;;
	esac
done

# The exposure score, printed and bounded.
if systemd-analyze security --offline=true --root="$root" "$name" > "$tmp/security.out" 2>&1; then :; fi
score=$(sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p' "$tmp/security.out")
if [ -z "$score" ]; then
	fail "systemd-analyze security printed no score:"; sed 's/^/    /' "$tmp/security.out" >&2
elif awk -v s="$score" -v m="$max_exposure" 'BEGIN { exit !(s <= m) }'; then
	pass "systemd-analyze security exposure $score (at most $max_exposure)"
else
	fail "systemd-analyze security exposure: expected at most $max_exposure, got $score"
fi

if [ $failures -ne 0 ]; then
	echo "verify-unit: $failures check(s) failed" >&2
	exit 1
fi
echo "verify-unit: all checks passed"
