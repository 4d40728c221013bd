#!/bin/bash
# The systemd protocol and idleness: with NOTIFY_SOCKET set the daemon sends
# READY=1 and STATUS= after applying, RELOADING=1 then READY=1 on SIGHUP, and
# STOPPING=1 on SIGTERM; WATCHDOG=1 pings only when WATCHDOG_USEC is set.
# Without a watchdog and without drains the idle daemon never wakes up: its
# context-switch count stays the same while it sits idle.
# Reads: MMBATCHD (mmbatchd-notify-listen must sit next to it), TOP.
. "$(dirname "$0")/lib.sh"
setup
listen=$(dirname "$MMBATCHD")/mmbatchd-notify-listen
[ -x "$listen" ] || { fail "missing $listen"; exit 1; }

fake_knob proc/sys/vm/swappiness 60
printf 'sysctl:\n  vm.swappiness: 10\n' > "$PROFILES/p.yaml"
"$listen" "$T/notify.sock" "$T/notify.log" &
listener=$!
kill_all() { kill -9 $listener 2>/dev/null; wait $listener 2>/dev/null; kill_daemon_hook; }
# shellcheck disable=SC2034 # run by tests/lib/assert.sh's EXIT trap
cleanup_hook=kill_all
for _ in $(seq 100); do [ -S "$T/notify.sock" ] && break; sleep 0.05; done

wait_line() { # wait_line REGEX: until notify.log has a line matching REGEX
	for _ in $(seq 200); do
		grep -qE "$1" "$T/notify.log" 2>/dev/null && return 0
		sleep 0.1
	done
	fail "no notify message matching '$1'"
}

# 1. No watchdog: READY/STATUS, reload, stop, and no wake-ups when idle.
NOTIFY_SOCKET=$T/notify.sock start_daemon "$PROFILES/p.yaml"
wait_line '^READY=1$'
status_line=$(grep -m1 '^STATUS=' "$T/notify.log" || true)
expect_eq "STATUS= after start" "STATUS=$PROFILES/p.yaml: 1 keys applied, drain on exit off" "$status_line"
ctx() { awk '/^voluntary_ctxt_switches|^nonvoluntary_ctxt_switches/ {n += $2} END {print n}' "/proc/$DAEMON_PID/status"; }
c0=$(ctx); sleep 2; c1=$(ctx)
expect_eq "context switches while idle for 2 s (no periodic wake-ups)" "$c0" "$c1"
kill -HUP "$DAEMON_PID"
wait_reloads 1
seq_hup=$(grep -E '^(READY|RELOADING)=1$' "$T/notify.log" | tr '\n' ' ')
expect_eq "notify sequence after SIGHUP" "READY=1 RELOADING=1 READY=1 " "$seq_hup"
stop_daemon
wait_line '^STOPPING=1$'
watchdogs=$(grep -c '^WATCHDOG=1$' "$T/notify.log" || true)
expect_eq "WATCHDOG=1 pings without WATCHDOG_USEC" 0 "$watchdogs"

# 2. With WATCHDOG_USEC: pings keep coming.
: > "$T/notify.log"
NOTIFY_SOCKET=$T/notify.sock WATCHDOG_USEC=200000 start_daemon "$PROFILES/p.yaml"
for _ in $(seq 200); do
	[ "$(grep -c '^WATCHDOG=1$' "$T/notify.log" || true)" -ge 3 ] && break
	sleep 0.1
done
watchdogs=$(grep -c '^WATCHDOG=1$' "$T/notify.log" || true)
expect_eq "at least 3 WATCHDOG=1 pings with WATCHDOG_USEC=200000" yes "$([ "$watchdogs" -ge 3 ] && echo yes || echo "no ($watchdogs)")"
stop_daemon
expect_eq "daemon exit status" 0 "$DAEMON_RC"
