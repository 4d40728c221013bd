#!/bin/bash
# CAP_NET_ADMIN only where the exit watcher needs it (security issue 41): run
# as root with exit drains on, the daemon opens and registers its taskstats
# socket and then holds CAP_NET_ADMIN in no set (CapEff, CapPrm, CapBnd of
# /proc/PID/status; NoNewPrivs 1), after start and after reloads (one that
# changes the drain policy, which keeps the socket); exits are still seen
# after them. With drains off it drops the capability too.
# Reads: MMBATCHD, MEMTOUCH (default: mmbatchd-memtouch next to MMBATCHD),
#        TOP. Needs root (taskstats).
. "$(dirname "$0")/lib.sh"
setup
[ "$(id -u)" = 0 ] || { echo "$TEST_NAME: needs root (taskstats), FAILING"; exit 1; }
MEMTOUCH=${MEMTOUCH:-$(dirname "$MMBATCHD")/mmbatchd-memtouch}
fake_knob proc/sys/vm/swappiness 60
fake_knob sys/devices/system/node/online "$(cat /sys/devices/system/node/online)"
fake_knob proc/meminfo "MemFree: 1000 kB"
CAP_NET_ADMIN=12

# has_net_admin FIELD: yes/no for CAP_NET_ADMIN in FIELD (CapEff, ...) of the daemon.
has_net_admin() {
	local hex
	hex=$(awk -v f="$1:" '$1 == f { print $2 }' "/proc/$DAEMON_PID/status")
	[ -n "$hex" ] || { echo "no $1"; return; }
	if (( (16#$hex >> CAP_NET_ADMIN) & 1 )); then echo yes; else echo no; fi
}
expect_dropped() {
	local f
	for f in CapEff CapPrm CapBnd CapInh CapAmb; do
		expect_eq "$1: CAP_NET_ADMIN in $f" no "$(has_net_admin "$f")"
	done
	expect_eq "$1: NoNewPrivs" 1 "$(awk '$1 == "NoNewPrivs:" { print $2 }' "/proc/$DAEMON_PID/status")"
	expect_eq "$1: CAP_SYS_ADMIN kept (kernel.numa_balancing)" yes \
		"$(hex=$(awk '$1 == "CapEff:" { print $2 }' "/proc/$DAEMON_PID/status"); (( (16#$hex >> 21) & 1 )) && echo yes || echo no)"
}
# seen NAME: waits until a qualifying exit of a process named NAME is logged.
seen() {
	local pid i
	pid=$("$MEMTOUCH" "$1" 320)
	for i in $(seq 100); do grep -q "qualifying exit of pid $pid " "$T/daemon.log" && return 0; sleep 0.1; done
	return 1
}

printf 'sysctl:\n  vm.swappiness: 10\ndrain:\n  on_exit: true\n  min_rss_mb: 256\n  method: migrate_pages\n' > "$PROFILES/p.yaml"
start_daemon "$PROFILES/p.yaml" --log-level debug
expect_dropped "after start"
if seen mbd-caps1; then pass "an exit is seen after the drop"; else fail "no qualifying exit seen after the drop"; fi

# A reload with another drain policy keeps the watcher; one with the same.
printf 'sysctl:\n  vm.swappiness: 10\ndrain:\n  on_exit: true\n  min_rss_mb: 300\n  method: migrate_pages\n' > "$PROFILES/p.yaml"
kill -HUP "$DAEMON_PID"
wait_reloads 1
kill -HUP "$DAEMON_PID"
wait_reloads 2
expect_dropped "after two reloads"
if seen mbd-caps2; then pass "an exit is seen after the reloads"; else fail "no qualifying exit seen after the reloads"; fi
stop_daemon
expect_eq "exit status" 0 "$DAEMON_RC"

printf 'sysctl:\n  vm.swappiness: 10\n' > "$PROFILES/off.yaml"
start_daemon "$PROFILES/off.yaml"
expect_dropped "drains off, after start"
stop_daemon
expect_eq "swappiness after the stop" 60 "$(knob proc/sys/vm/swappiness)"
