#!/bin/bash
# Runs a load/apply/verify/rollback cycle, then the daemon with a SIGHUP
# reload and a SIGTERM rollback, all under valgrind against a fake tree.
# Fails on any memory error or leak (definite, indirect, possible).
# The daemon runs twice: with a profile reload and rollback, then with exit
# drains on until it has drained after a dd(1) with a 16 MiB buffer exited
# (method sysctl into the fake tree's drain_percpu: valgrind 3.19 does not
# know the migrate_pages syscall). Needs root (taskstats).
# Reads: MMBATCHD (the daemon binary, not a SAN=1 build), TOP.
set -eu

usage() { echo "usage: MMBATCHD=BIN valgrind.sh" >&2; exit 2; }
[ -n "${MMBATCHD:-}" ] && [ -x "$MMBATCHD" ] || usage
# Not in /tmp: mmbatchd refuses profiles in a world-writable directory.
tmp_base=${OUT:-$(cd "$(dirname "$0")/../.." && pwd)/out}/test-tmp
t=$(mkdir -p -m 0755 "$tmp_base" && mktemp -d "$tmp_base/valgrind.XXXXXX")
daemon_pid=
cleanup() { [ -n "$daemon_pid" ] && kill -9 "$daemon_pid" 2>/dev/null; rm -rf "$t"; }
trap cleanup EXIT

root=$t/root state=$t/state
mkdir -p "$root/proc/sys/vm" "$root/proc/sys/kernel/random" "$root/sys/kernel/mm/transparent_hugepage" "$state"
echo 0f5a3c9e-1b2d-4e6f-8a7b-9c0d1e2f3a4b > "$root/proc/sys/kernel/random/boot_id"
echo 60 > "$root/proc/sys/vm/swappiness"
echo 20 > "$root/proc/sys/vm/dirty_ratio"
echo 'always [madvise] never' > "$root/sys/kernel/mm/transparent_hugepage/enabled"
printf 'sysctl:\n  vm.swappiness: 10\n' > "$t/base.yaml"
printf 'include: base.yaml\nsysctl:\n  vm.dirty_ratio: 5\n  vm.nr_hugepages: {value: 1, optional: true}\nsysfs:\n  /sys/kernel/mm/transparent_hugepage/enabled: never\nsmoke:\n  threshold_pct: 3\n' > "$t/p.yaml"
printf 'sysctl:\n  vm.swappiness: [oops\n' > "$t/bad.yaml"

unset INVOCATION_ID NOTIFY_SOCKET WATCHDOG_USEC WATCHDOG_PID
vg=(valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect,possible --error-exitcode=99)
run() {
	local want=$1; shift
	local rc=0
	"${vg[@]}" "$MMBATCHD" "$@" >"$t/out" 2>&1 || rc=$?
	if [ "$rc" != "$want" ]; then
		cat "$t/out" >&2
		echo "ERROR: valgrind: 'mmbatchd $*' exited $rc, expected $want (99 = valgrind error)" >&2
		exit 1
	fi
	echo "valgrind: clean: mmbatchd $* (exit $rc)"
}

run 0 --check "$t/p.yaml" --root "$root"
run 0 --plan "$t/p.yaml" --root "$root"
run 2 --check "$t/bad.yaml" --root "$root"
run 0 --show-smoke "$t/p.yaml"
run 0 --once "$t/p.yaml" --root "$root" --state-dir "$state"
run 0 --verify "$t/p.yaml" --root "$root"
run 0 --rollback --root "$root" --state-dir "$state"
run 0 --status --state-dir "$state"
run 0 --list-keys
# A journal of another boot: read, refused, discarded.
printf '# mmbatchd journal v2\nboot_id\t11111111-2222-3333-4444-555555555555\nprofile\tx\n/proc/sys/vm/swappiness\t1\n' > "$state/journal"
chmod 0600 "$state/journal"
run 0 --rollback --root "$root" --state-dir "$state"
[ ! -e "$state/journal" ] || { echo "ERROR: valgrind: the other boot's journal was kept" >&2; exit 1; }

# The daemon: apply, reload (valid, then invalid), stop with rollback.
"${vg[@]}" "$MMBATCHD" --profile "$t/p.yaml" --root "$root" --state-dir "$state" --foreground \
	--metrics-file "$t/m.prom" >"$t/daemon.log" 2>&1 &
daemon_pid=$!
wait_for() { # wait_for JQ-FILTER VALUE
	local i
	for i in $(seq 600); do
		[ -e "$state/status.json" ] && [ "$(jq -c "$1" "$state/status.json")" = "$2" ] && return 0
		sleep 0.1
	done
	cat "$t/daemon.log" >&2; echo "ERROR: valgrind: daemon never reported $1 = $2" >&2; exit 1
}
wait_for .state '"running"'
printf 'sysctl:\n  vm.swappiness: 30\n' > "$t/base.yaml"
kill -HUP $daemon_pid
wait_for .reloads 1
cp "$t/bad.yaml" "$t/base.yaml"
kill -HUP $daemon_pid
wait_for '.last_error != null' true
kill -TERM $daemon_pid
rc=0; wait $daemon_pid || rc=$?; daemon_pid=
if [ $rc != 0 ]; then cat "$t/daemon.log" >&2; echo "ERROR: valgrind: daemon exited $rc" >&2; exit 1; fi
[ "$(cat "$root/proc/sys/vm/swappiness")" = 60 ] || { echo "ERROR: valgrind: swappiness not restored" >&2; exit 1; }
echo "valgrind: clean: daemon apply, SIGHUP (valid and invalid), SIGTERM rollback"

# The exit watcher and drainer: drain after a qualifying exit, then stop.
: > "$root/proc/sys/vm/drain_percpu"
chmod 0200 "$root/proc/sys/vm/drain_percpu"
printf 'MemFree: 1000 kB\n' > "$root/proc/meminfo"
printf 'drain:\n  on_exit: true\n  min_rss_mb: 8\n  max_per_second: 100\n  method: sysctl\n' > "$t/drain.yaml"
rm -f "$state/status.json"
"${vg[@]}" "$MMBATCHD" --profile "$t/drain.yaml" --root "$root" --state-dir "$state" --foreground >"$t/daemon.log" 2>&1 &
daemon_pid=$!
wait_for .state '"running"'
dd if=/dev/zero of=/dev/null bs=16M count=2 2>/dev/null
wait_for '.drain.drains >= 1' true
kill -TERM $daemon_pid
rc=0; wait $daemon_pid || rc=$?; daemon_pid=
if [ $rc != 0 ]; then cat "$t/daemon.log" >&2; echo "ERROR: valgrind: drain daemon exited $rc" >&2; exit 1; fi
[ "$(cat "$root/proc/sys/vm/drain_percpu")" = 1 ] || { echo "ERROR: valgrind: drain_percpu was not written" >&2; exit 1; }
echo "valgrind: clean: daemon with exit drains ($(jq .drain.drains "$state/status.json") drain(s))"
