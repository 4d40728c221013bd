# shellcheck shell=bash
# Shared fixtures for tests/mmbatchd/*_test.sh (sourced, not run); the
# assertions are tests/lib/assert.sh's, sourced here.
#
# setup          makes $T (a scratch dir, removed on exit), $ROOT (fake
#                /proc+/sys tree, with the boot id $FAKE_BOOT_ID), $STATE
#                (state dir, with the journal's directory $STATE/mmbatchd)
#                and $PROFILES (profile dir)
# fake_knob P V  creates $ROOT/P holding V (mode 0644)
# knob P         the contents of $ROOT/P
# start_daemon, wait_status, status_field, wait_reloads, wait_last_error,
# stop_daemon    the daemon in the background (see each)
# Reads: MMBATCHD (daemon binary under test), TOP (repo).
set -eu

: "${MMBATCHD:?MMBATCHD must name the daemon binary}"
: "${TOP:=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}"
# Run under a systemd unit (CI), the daemon would log to the journal and talk
# to the unit's notify socket: the tests want neither.
unset INVOCATION_ID NOTIFY_SOCKET WATCHDOG_USEC WATCHDOG_PID
# shellcheck source=../lib/assert.sh
. "$TOP/tests/lib/assert.sh"

setup() {
	# Under $OUT/test-tmp (root's, 0755): mmbatchd refuses profiles in a
	# group/world-writable directory such as /tmp.
	scratch
	ROOT=$T/root STATE=$T/state PROFILES=$T/profiles
	mkdir -p "$ROOT/proc/sys/vm" "$ROOT/proc/sys/kernel" "$ROOT/sys/kernel/mm/transparent_hugepage" \
		"$ROOT/sys/devices/system/node/node0" "$PROFILES"
	mkdir -m 0700 "$STATE" "$STATE/mmbatchd"
	# The journal records the boot id; a fixed one stands for this boot.
	fake_knob proc/sys/kernel/random/boot_id "$FAKE_BOOT_ID"
}

FAKE_BOOT_ID=0f5a3c9e-1b2d-4e6f-8a7b-9c0d1e2f3a4b

fake_knob() {
	mkdir -p "$(dirname "$ROOT/$1")"
	printf '%s\n' "$2" > "$ROOT/$1"
	chmod 0644 "$ROOT/$1"
}

knob() { cat "$ROOT/$1"; }

# start_daemon PROFILE [ARGS...]: runs the daemon in the foreground in the
# background, its log in $T/daemon.log, and waits until status.json says
# running (or the daemon died). Sets DAEMON_PID.
start_daemon() {
	local profile=$1; shift
	rm -f "$STATE/status.json"
	"$MMBATCHD" --profile "$profile" --root "$ROOT" --state-dir "$STATE" --foreground "$@" >>"$T/daemon.log" 2>&1 &
	DAEMON_PID=$!
	wait_status running
}

# wait_status STATE: polls status.json until its state is STATE; fails when
# the daemon exits first or after 20 s (a hang, not a timing assertion).
wait_status() {
	for _ in $(seq 200); do
		if [ -e "$STATE/status.json" ] && [ "$(jq -r .state "$STATE/status.json")" = "$1" ]; then return 0; fi
		if [ -n "${DAEMON_PID:-}" ] && ! kill -0 "$DAEMON_PID" 2>/dev/null; then break; fi
		sleep 0.1
	done
	fail "daemon did not reach state '$1'; log:"; cat "$T/daemon.log" >&2
	return 1
}

# status_field JQ: a field of the daemon's --status output.
status_field() { "$MMBATCHD" --status --state-dir "$STATE" | jq -c "$1"; }

# wait_reloads N: polls until the daemon counted N successful reloads, or
# its last_error changed from null (for failed reloads).
wait_reloads() {
	for _ in $(seq 200); do
		[ "$(status_field .reloads)" = "$1" ] && return 0
		sleep 0.1
	done
	fail "reload count did not reach $1"
}

wait_last_error() {
	for _ in $(seq 200); do
		[ "$(status_field .last_error)" != null ] && return 0
		sleep 0.1
	done
	fail "last_error stayed null"
}

# stop_daemon: SIGTERM, then wait (a daemon still there after 30 s is
# killed and the test fails). Sets DAEMON_RC.
stop_daemon() {
	kill -TERM "$DAEMON_PID"
	for _ in $(seq 300); do kill -0 "$DAEMON_PID" 2>/dev/null || break; sleep 0.1; done
	if kill -0 "$DAEMON_PID" 2>/dev/null; then
		fail "daemon ignored SIGTERM"; kill -9 "$DAEMON_PID"
	fi
	# shellcheck disable=SC2034 # DAEMON_RC is read by the tests
	{ DAEMON_RC=0; wait "$DAEMON_PID" || DAEMON_RC=$?; }
	DAEMON_PID=
}

kill_daemon_hook() { [ -n "${DAEMON_PID:-}" ] && kill -9 "$DAEMON_PID" 2>/dev/null; return 0; }
# shellcheck disable=SC2034 # run by tests/lib/assert.sh's EXIT trap
cleanup_hook=kill_daemon_hook
