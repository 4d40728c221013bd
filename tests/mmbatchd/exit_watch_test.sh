#!/bin/bash
# Exit watcher and drainer, for real: runs the daemon (as root, taskstats)
# against a fake --root tree with `method: migrate_pages` (a real syscall on
# this host that moves nothing; no setting touches the host), spawns processes
# that touch memory and exit, and asserts from the daemon's log and --status:
#  1. exits below min_rss_mb never qualify and never cause a drain; one
#     above it qualifies and is drained (a drain line with method, cost and
#     MemFree change follows);
#  2. a burst of qualifying exits spaced wider than the coalescing delay is
#     held to the rate limit: at most 1 + T * max_per_second drains in the T
#     seconds it took (drains are >= 1/max_per_second apart, so n drains span
#     >= (n-1)/max_per_second; this holds however slow the host is), fewer
#     drains than exits, every burst exit qualified, and the drain count in
#     --status equals the drain lines in the log.
# The host is busy (other builds): other processes' exits are seen too, so
# the assertions look only at our processes (by name) and bound counts that
# others could only raise by very large exits of their own.
# Reads: MMBATCHD (daemon), MEMTOUCH (helper; default: mmbatchd-memtouch next
#        to MMBATCHD), EXIT_TEST_MIN_RSS_MB (default 128), TOP.
set -eu
. "$(dirname "$0")/lib.sh"

usage() { echo "usage: MMBATCHD=BIN [MEMTOUCH=BIN] exit_watch_test.sh" >&2; exit 2; }
MEMTOUCH=${MEMTOUCH:-$(dirname "$MMBATCHD")/mmbatchd-memtouch}
[ -x "$MEMTOUCH" ] || { echo "ERROR: $TEST_NAME: helper '$MEMTOUCH' not built (make check-daemon builds it)" >&2; usage; }
[ "$(id -u)" = 0 ] || { echo "ERROR: $TEST_NAME: needs root (taskstats needs CAP_NET_ADMIN)" >&2; exit 1; }

min_rss=${EXIT_TEST_MIN_RSS_MB:-128}
big=$((min_rss + min_rss / 4))   # MiB touched by qualifying processes
small=$((min_rss / 4))           # ... and by the others
rate_num=1 rate_den=4            # max_per_second 0.25: drains >= 4 s apart
burst=10                         # qualifying exits in the burst
spacing_ms=150                   # > the 50 ms coalescing delay

setup
# migrate_pages needs a node list; the mask must name real memory nodes, since
# the syscall runs on this kernel.
fake_knob sys/devices/system/node/online "$(cat /sys/devices/system/node/online)"
if [ -r /sys/devices/system/node/has_memory ]; then
	fake_knob sys/devices/system/node/has_memory "$(cat /sys/devices/system/node/has_memory)"
fi
fake_knob proc/meminfo "MemFree: 1000 kB"
profile=$PROFILES/drain.yaml
cat > "$profile" <<EOF
drain:
  on_exit: true
  min_rss_mb: $min_rss
  max_per_second: $(awk -v n=$rate_num -v d=$rate_den 'BEGIN { print n / d }')
  method: migrate_pages
rollback: on_stop
EOF
chmod 0644 "$profile"
sum_before=$(tree_sum "$ROOT")

log=$T/daemon.log
daemon_pid=
stop_daemon() {
	[ -n "$daemon_pid" ] || return 0
	kill -TERM "$daemon_pid" 2>/dev/null || true
	wait "$daemon_pid" 2>/dev/null || true
	daemon_pid=
}
# shellcheck disable=SC2034 # run by tests/lib/assert.sh's EXIT trap
cleanup_hook=stop_daemon

# Under systemd (INVOCATION_ID) the daemon would log to the journal instead.
env -u INVOCATION_ID "$MMBATCHD" --profile "$profile" --root "$ROOT" --state-dir "$STATE" --foreground --verbose 2> "$log" &
daemon_pid=$!

# Counts lines of the log matching an extended regex (0 when none).
count_log() { local n; n=$(grep -cE -- "$1" "$log" || true); echo "${n:-0}"; }
# Waits (at most 20 s: a bound, not a timing assertion) until count_log $1 >= $2.
wait_log() {
	local i
	for i in $(seq 200); do
		[ "$(count_log "$1")" -ge "$2" ] && return 0
		kill -0 "$daemon_pid" 2>/dev/null || break
		sleep 0.1
	done
	return 1
}
status_field() { "$MMBATCHD" --status --state-dir "$STATE" | jq -r ".. | objects | .$1? // empty" | head -n1; }

echo "$TEST_NAME: min_rss_mb $min_rss, qualifying $big MiB, others $small MiB, max_per_second $rate_num/$rate_den"
if ! wait_log '^mmbatchd: applied ' 1; then
	fail "daemon did not start (expected an 'applied' line); log:"; sed 's/^/    /' "$log" >&2; exit 1
fi
pass "daemon started, watching exits"

# 1. Qualification. Small ones first, then one big one; its drain line
# follows.
small_pids=()
for i in 1 2 3 4; do small_pids+=("$("$MEMTOUCH" mbd-small "$small")"); done
big_pid=$("$MEMTOUCH" mbd-big "$big")
# Its drain is the first drain line after its qualifying line: it starts a
# drain, or joins one another process's exit started.
drain_after_line() {
	local at
	at=$(grep -nE "qualifying exit of pid $1 " "$log" | head -n1 | cut -d: -f1)
	[ -n "$at" ] || return 0
	tail -n +"$at" "$log" | grep -E '^mmbatchd: drain #[0-9]+: ' | head -n1 || true
}
drain_line=
for i in $(seq 200); do
	drain_line=$(drain_after_line "$big_pid")
	[ -z "$drain_line" ] || break
	sleep 0.1
done
case "$drain_line" in
*"method migrate_pages; cost "*" us; MemFree "*)
	pass "pid $big_pid ($big MiB) qualified and was drained: ${drain_line#mmbatchd: }" ;;
*) fail "expected a drain line (method migrate_pages; cost N us; MemFree ...) after pid $big_pid ($big MiB) qualified, got '$drain_line'; log:"
   sed 's/^/    /' "$log" >&2 ;;
esac
expect_eq "qualifying-exit lines for the $big MiB process" 1 "$(count_log "qualifying exit of pid $big_pid \(mbd-big\)")"
expect_eq "qualifying-exit lines for the $small MiB processes" 0 "$(count_log 'qualifying exit of pid [0-9]+ \(mbd-small\)')"
expect_eq "drain lines naming a $small MiB process" 0 "$(count_log 'drain #[0-9]+: exit of pid [0-9]+ \(mbd-small\)')"

# 2. The burst: $burst qualifying processes, exiting $spacing_ms ms apart.
drains_before=$(count_log '^mmbatchd: drain #[0-9]+: ')
t0=$(date +%s%N)
burst_pids=()
for i in $(seq 0 $((burst - 1))); do
	"$MEMTOUCH" mbd-burst "$big" $((i * spacing_ms)) > "$T/burst.$i" &
	burst_pids+=($!)
done
wait "${burst_pids[@]}"
wait_log 'qualifying exit of pid [0-9]+ \(mbd-burst\)' "$burst" || true
# The last pending drain is due at most 1/max_per_second after the one before.
sleep $(( rate_den / rate_num + 1 ))
t1=$(date +%s%N)
drains=$(( $(count_log '^mmbatchd: drain #[0-9]+: ') - drains_before ))
elapsed_ms=$(( (t1 - t0) / 1000000 ))
limit=$(( 1 + elapsed_ms * rate_num / (rate_den * 1000) ))
expect_eq "qualifying-exit lines for the burst" "$burst" "$(count_log 'qualifying exit of pid [0-9]+ \(mbd-burst\)')"
if [ "$drains" -ge 1 ] && [ "$drains" -le "$limit" ]; then
	pass "burst of $burst exits over ${elapsed_ms} ms: $drains drain(s), within 1..$limit (max_per_second $rate_num/$rate_den)"
else
	fail "burst of $burst exits over ${elapsed_ms} ms: expected 1..$limit drains (max_per_second $rate_num/$rate_den), got $drains"
fi
if [ "$drains" -lt "$burst" ]; then
	pass "rate limit held $burst exits spaced ${spacing_ms} ms apart to $drains drain(s)"
else
	fail "expected fewer drains than the $burst burst exits (spaced wider than the coalescing delay), got $drains"
fi

# 3. The status agrees with the log.
# Another process's large exit may add a drain between the two reads: read
# again (a few times) until both were taken at a quiet moment.
for i in $(seq 20); do
	status_drains=$(status_field drains)
	log_drains=$(count_log '^mmbatchd: drain #[0-9]+: ')
	[ "$status_drains" != "$log_drains" ] || break
	sleep 0.2
done
expect_eq "--status drains vs drain lines in the log" "$log_drains" "$status_drains"
qual=$(status_field exits_qualifying)
if [ -n "$qual" ] && [ "$qual" -ge $((burst + 1)) ]; then
	pass "--status exits_qualifying $qual (at least $((burst + 1)))"
else
	fail "--status exits_qualifying: expected at least $((burst + 1)), got '$qual'"
fi
expect_eq "--status overruns" 0 "$(status_field overruns)"
expect_eq "drain failures in the log" 0 "$(count_log 'drain #[0-9]+ failed')"

stop_daemon
expect_eq "fake tree unchanged" "$sum_before" "$(tree_sum "$ROOT")"
