#!/bin/bash
# CAP_NET_ADMIN only where the exit watcher needs it (security issue 41): run
# as root with exit drains on, the daemon opens and registers its taskstats
# socket and then holds CAP_NET_ADMIN in no set (CapEff, CapPrm, CapBnd of
# /proc/PID/status; NoNewPrivs 1), after start and after reloads (one that
# changes the drain policy, which keeps the socket); exits are still seen
# after them. With drains off it drops the capability too.
# Then the unit's way: `mmbatchd --open-exit-watcher` (ExecStartPre=+) hands
# a subscribed socket to a fake systemd fd store (mmbatchd-fdstore-listen:
# FDSTOREREMOVE, FDSTORE with the fd, a barrier it answers), which starts
# the daemon with it at fd 3 ($LISTEN_FDS) and without CAP_NET_ADMIN in any
# set, the bounding one included: exits are still seen and drained, after a
# reload too, and the daemon never calls capset(2) (strace), which the
# unit's SystemCallFilter= refuses. A passed fd that is not such a socket
# is refused with one line.
# Reads: MMBATCHD, MEMTOUCH (default: mmbatchd-memtouch next to MMBATCHD;
#        mmbatchd-fdstore-listen must sit next to MMBATCHD too), TOP.
#        Needs root (taskstats), setpriv(1), strace(1).
# shellcheck disable=SC2154 # VAR_out is set by capture
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
	local pid
	pid=$("$MEMTOUCH" "$1" 320)
	for _ in $(seq 100); do grep -q "qualifying exit of pid $pid " "$T/daemon.log" && return 0; sleep 0.1; done
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

# --- The unit's way: the socket from systemd's fd store ---------------------
fdstore=$(dirname "$MMBATCHD")/mmbatchd-fdstore-listen
[ -x "$fdstore" ] || { fail "missing $fdstore"; exit 1; }
no_net_admin=(setpriv --bounding-set -net_admin --inh-caps -net_admin --)
printf 'sysctl:\n  vm.swappiness: 10\ndrain:\n  on_exit: true\n  min_rss_mb: 256\n  method: migrate_pages\n' > "$PROFILES/p.yaml"
daemon_args=(--profile "$PROFILES/p.yaml" --root "$ROOT" --state-dir "$STATE" --foreground --log-level debug)

# store_and_start WRAPPER...: the fake fd store, then WRAPPER... with the
# daemon as its main process; --open-exit-watcher as its ExecStartPre=+.
store_and_start() {
	rm -f "$STATE/status.json" "$T/fdstore.sock" "$T/fdstore.log"
	"$fdstore" "$T/fdstore.sock" "$T/fdstore.log" "$@" >>"$T/daemon.log" 2>&1 &
	DAEMON_PID=$!
	for _ in $(seq 100); do [ -S "$T/fdstore.sock" ] && break; sleep 0.05; done
	capture pre_rc env NOTIFY_SOCKET="$T/fdstore.sock" "$MMBATCHD" --open-exit-watcher
	expect_ok "mmbatchd --open-exit-watcher (the unit's ExecStartPre=+)" "$pre_rc" "$pre_rc_out"
}

: > "$T/daemon.log"
store_and_start "${no_net_admin[@]}" "$MMBATCHD" "${daemon_args[@]}"
expect_eq "what the fd store got: remove the old socket, store the new one (with its fd), a barrier (with its fd)" \
	"$(printf '%s\n' FDSTOREREMOVE=1 FDNAME=exitwatch FDSTORE=1 FDNAME=exitwatch FDPOLL=0 '(fd)' BARRIER=1 '(fd)')" \
	"$(cat "$T/fdstore.log")"
wait_status running
expect_dropped "socket from the fd store, after start"
expect_eq "CapEff with the stored socket: CAP_SYS_ADMIN only (nothing ever held CAP_NET_ADMIN)" yes \
	"$(hex=$(awk '$1 == "CapEff:" { print $2 }' "/proc/$DAEMON_PID/status"); (( (16#$hex >> CAP_NET_ADMIN) & 1 )) && echo no || echo yes)"
expect_match "the daemon took the stored socket" "took the registered socket 'exitwatch' from fd 3" "@$T/daemon.log"
if seen mbd-caps3; then pass "an exit is seen on the stored socket"; else fail "no qualifying exit seen on the stored socket"; fi
for _ in $(seq 100); do [ "$(status_field .drain.drains)" -ge 1 ] 2>/dev/null && break; sleep 0.1; done
expect_eq "a drain followed (status .drain.drains >= 1)" yes "$([ "$(status_field .drain.drains)" -ge 1 ] && echo yes || echo "no: $(status_field .drain)")"
printf 'sysctl:\n  vm.swappiness: 10\ndrain:\n  on_exit: true\n  min_rss_mb: 300\n  method: migrate_pages\n' > "$PROFILES/p.yaml"
kill -HUP "$DAEMON_PID"
wait_reloads 1
expect_dropped "socket from the fd store, after a reload"
if seen mbd-caps4; then pass "an exit is seen on the stored socket after the reload"; else fail "no qualifying exit seen on the stored socket after the reload"; fi
stop_daemon
expect_eq "exit status (stored socket)" 0 "$DAEMON_RC"
expect_match "on stop, the daemon asks the fd store to close its copy" '^FDSTOREREMOVE=1$' "@$T/fdstore.log"

# No capset(2) at all on this path: strace between the fake store and the
# daemon (a shell sets LISTEN_PID to the pid the daemon will have; setpriv
# itself calls capset before it execs the daemon in that same process).
: > "$T/daemon.log"
# LeakSanitizer (a SAN=1 build) cannot run under ptrace: off for this run.
store_and_start strace -f -qq -e trace=capset,execve -o "$T/capset.trace" \
	env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	bash -c 'export LISTEN_PID=$$; exec "$@"' _ "${no_net_admin[@]}" "$MMBATCHD" "${daemon_args[@]}"
wait_status running
main_pid=$(jq -r .pid "$STATE/status.json")
kill -TERM "$main_pid"
for _ in $(seq 300); do kill -0 "$DAEMON_PID" 2>/dev/null || break; sleep 0.1; done
{ rc=0; wait "$DAEMON_PID" || rc=$?; }
DAEMON_PID=
expect_eq "exit status (stored socket, under strace)" 0 "$rc"
expect_match "it used the stored socket" "took the registered socket 'exitwatch'" "@$T/daemon.log"
# The daemon's own calls: its pid's, after setpriv exec'd it.
awk -v pid="$main_pid" -v exe="execve(\"$MMBATCHD\"" '$1 == pid && index($0, exe) { daemon = 1; next }
	$1 == pid && daemon && /capset\(/' "$T/capset.trace" > "$T/capset.daemon"
expect_contains "strace saw the daemon's exec" "execve(\"$MMBATCHD\"" "@$T/capset.trace"
expect_eq "capset(2) calls of the daemon after its exec, with the stored socket (strace)" "" "$(cat "$T/capset.daemon")"

# A passed fd that is not the subscribed netlink socket: refused, one line.
for what in "/dev/null:not a socket" "/dev/udp/127.0.0.1/9:not an AF_NETLINK socket"; do
	: > "$T/daemon.log"
	# shellcheck disable=SC2016 # expanded by that shell
	capture rc bash -c 'export LISTEN_PID=$$ LISTEN_FDS=1 LISTEN_FDNAMES=exitwatch; f=$1; shift; exec "$@" 3<>"$f"' _ \
		"${what%%:*}" "${no_net_admin[@]}" "$MMBATCHD" "${daemon_args[@]}"
	expect_fails "fd 3 = ${what%%:*} as the stored socket" "fd 3 named 'exitwatch' is ${what#*:}, not the taskstats socket of --open-exit-watcher: refusing it" "$rc" "$rc_out"
	expect_eq "its error is one line" 1 "$(printf '%s\n' "$rc_out" | grep -c 'LISTEN_FDS')"
done
