#!/bin/bash
# Runs a load/apply/verify/rollback cycle, then the daemon with a SIGHUP
# reload and a SIGTERM rollback, all under valgrind against a fake tree.
# Fails on any memory error or leak (definite, indirect, possible).
# The daemon runs three times: with a profile reload and rollback, with exit
# drains on until it has drained after a dd(1) with a 16 MiB buffer exited
# (method sysctl into the fake tree's drain_percpu: valgrind 3.19 does not
# know the migrate_pages syscall), then once more with the exit watcher's
# socket from --open-exit-watcher through a fake fd store (mmbatchd-fdstore-
# listen next to MMBATCHD). Needs root (taskstats). Run by
# `tests/mmbatchd/run.sh valgrind` (make check-daemon-valgrind).
# Reads: MMBATCHD (the daemon binary, not a SAN=1 build), TOP.
# shellcheck disable=SC2154 # VAR_out is set by capture
set -eu

usage() { echo "usage: MMBATCHD=BIN valgrind.sh" >&2; exit 2; }
if [ -z "${MMBATCHD:-}" ] || [ ! -x "$MMBATCHD" ]; then usage; fi
. "$(dirname "$0")/lib.sh"
setup

fake_knob proc/sys/vm/swappiness 60
fake_knob proc/sys/vm/dirty_ratio 20
fake_knob sys/kernel/mm/transparent_hugepage/enabled 'always [madvise] never'
P=$PROFILES
printf 'sysctl:\n  vm.swappiness: 10\n' > "$P/base.yaml"
printf 'include: base.yaml\nsysctl:\n  vm.dirty_ratio: 5\n  vm.nr_hugepages: {value: 1, optional: true}\nsysfs:\n  /sys/kernel/mm/transparent_hugepage/enabled: never\nsmoke:\n  threshold_pct: 3\n' > "$P/p.yaml"
printf 'sysctl:\n  vm.swappiness: [oops\n' > "$P/bad.yaml"

# shellcheck disable=SC2054 # the commas are valgrind's
vg=(valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect,possible --error-exitcode=99)
# vg_run WANT ARGS...: mmbatchd ARGS under valgrind exits WANT (99: valgrind
# found an error).
vg_run() {
	local want=$1
	shift
	capture rc "${vg[@]}" "$MMBATCHD" "$@"
	expect_status "valgrind clean: mmbatchd $* (99 = valgrind error)" "$want" "$rc"
	[ "$rc" = "$want" ] || printf '%s\n' "$rc_out" | tail -n 30 | sed 's/^/      | /' >&2
}

vg_run 0 --check "$P/p.yaml" --root "$ROOT"
vg_run 0 --plan "$P/p.yaml" --root "$ROOT"
vg_run 2 --check "$P/bad.yaml" --root "$ROOT"
vg_run 0 --show-smoke "$P/p.yaml"
vg_run 0 --once "$P/p.yaml" --root "$ROOT" --state-dir "$STATE"
vg_run 0 --verify "$P/p.yaml" --root "$ROOT"
vg_run 0 --rollback --root "$ROOT" --state-dir "$STATE"
vg_run 0 --status --state-dir "$STATE"
vg_run 0 --list-keys
# A journal of another boot: read, refused, discarded.
printf '# mmbatchd journal v2\nboot_id\t11111111-2222-3333-4444-555555555555\nprofile\tx\n/proc/sys/vm/swappiness\t1\n' > "$STATE/mmbatchd/journal"
chmod 0600 "$STATE/mmbatchd/journal"
vg_run 0 --rollback --root "$ROOT" --state-dir "$STATE"
expect_absent "the other boot's journal after --rollback" "$STATE/mmbatchd/journal"

# wait_for JQ-FILTER VALUE: until status.json's JQ-FILTER is VALUE (60 s:
# valgrind is slow); a daemon that never gets there ends the test.
wait_for() {
	for _ in $(seq 600); do
		[ -e "$STATE/status.json" ] && [ "$(jq -c "$1" "$STATE/status.json")" = "$2" ] && return 0
		sleep 0.1
	done
	fail "valgrind: the daemon never reported $1 = $2; log:"; tail -n 30 "$T/daemon.log" | sed 's/^/      | /' >&2
	exit 1
}
# vg_daemon PROFILE [ARGS...]: the daemon under valgrind, in the background.
vg_daemon() {
	local profile=$1
	shift
	rm -f "$STATE/status.json"
	"${vg[@]}" "$MMBATCHD" --profile "$profile" --root "$ROOT" --state-dir "$STATE" --foreground "$@" \
		> "$T/daemon.log" 2>&1 &
	DAEMON_PID=$!
}
# vg_stop WHAT: SIGTERM, and the exit status 0 (99: valgrind found an error).
vg_stop() {
	local rc=0
	kill -TERM "$DAEMON_PID"
	wait "$DAEMON_PID" || rc=$?
	DAEMON_PID=
	expect_ok "valgrind clean: $1, SIGTERM" "$rc" "@$T/daemon.log"
}

# The daemon: apply, reload (valid, then invalid), stop with rollback.
vg_daemon "$P/p.yaml" --metrics-file "$T/m.prom"
wait_for .state '"running"'
printf 'sysctl:\n  vm.swappiness: 30\n' > "$P/base.yaml"
kill -HUP "$DAEMON_PID"
wait_for .reloads 1
cp "$P/bad.yaml" "$P/base.yaml"
kill -HUP "$DAEMON_PID"
wait_for '.last_error != null' true
vg_stop "daemon apply, SIGHUP (valid and invalid)"
expect_eq "swappiness after the daemon's rollback" 60 "$(knob proc/sys/vm/swappiness)"

# The exit watcher and drainer: drain after a qualifying exit, then stop.
: > "$ROOT/proc/sys/vm/drain_percpu"
chmod 0200 "$ROOT/proc/sys/vm/drain_percpu"
fake_knob proc/meminfo 'MemFree: 1000 kB'
printf 'drain:\n  on_exit: true\n  min_rss_mb: 8\n  max_per_second: 100\n  method: sysctl\n' > "$P/drain.yaml"
vg_daemon "$P/drain.yaml"
wait_for .state '"running"'
dd if=/dev/zero of=/dev/null bs=16M count=2 2>/dev/null
wait_for '.drain.drains >= 1' true
drains=$(jq .drain.drains "$STATE/status.json")
vg_stop "daemon with exit drains ($drains drain(s))"
expect_eq "drain_percpu after the drains" 1 "$(knob proc/sys/vm/drain_percpu)"

# The same with the socket of --open-exit-watcher, through a fake systemd
# fd store (mmbatchd-fdstore-listen, next to MMBATCHD), which then runs the
# daemon with it at fd 3 (valgrind keeps the pid: LISTEN_PID holds).
fdstore=$(dirname "$MMBATCHD")/mmbatchd-fdstore-listen
"$fdstore" "$T/fdstore.sock" "$T/fdstore.log" \
	"${vg[@]}" "$MMBATCHD" --profile "$P/drain.yaml" --root "$ROOT" --state-dir "$STATE" --foreground \
	--log-level debug > "$T/daemon.log" 2>&1 &
DAEMON_PID=$!
rm -f "$STATE/status.json"
for _ in $(seq 100); do [ -S "$T/fdstore.sock" ] && break; sleep 0.05; done
NOTIFY_SOCKET=$T/fdstore.sock vg_run 0 --open-exit-watcher
wait_for .state '"running"'
dd if=/dev/zero of=/dev/null bs=16M count=2 2>/dev/null
wait_for '.drain.drains >= 1' true
expect_match "the daemon under valgrind took the stored socket" "took the registered socket 'exitwatch' from fd 3" "@$T/daemon.log"
vg_stop "daemon with the stored exit watcher socket"
