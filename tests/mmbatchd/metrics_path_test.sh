#!/bin/bash
# Where the metrics textfile may go (security issue 41, metricsdir.h), each
# as --check and the daemon see it (they must agree):
#  1. anywhere inside the state tree is refused: metrics_file
#     <state>/canary/state once replaced an armed canary's state;
#  2. a directory on the path that its owner swaps for a symlink (to a
#     root-only directory) is refused, at start and at every later write;
#     a directory not root's above the last one is refused up front;
#  3. the collector's own last directory is fine: the file is root's 0644,
#     and a symlink planted at its name is replaced, never followed.
# Reads: MMBATCHD, TOP. Needs root (chown).
. "$(dirname "$0")/lib.sh"
setup
[ "$(id -u)" = 0 ] || { echo "$TEST_NAME: needs root (chown), FAILING"; exit 1; }
fake_knob proc/sys/vm/swappiness 60
run() { local rc=0 out; out=$(timeout -k 2 10 "$MMBATCHD" "$@" --root "$ROOT" --state-dir "$STATE" 2>&1) || rc=$?; echo "$rc $out"; }
# both NAME PATH WHY: --check and a start refuse metrics_file PATH with WHY.
both() {
	printf 'sysctl:\n  vm.swappiness: 10\nmetrics_file: %s\n' "$2" > "$PROFILES/m.yaml"
	expect_eq "--check, $1" "2 $PROFILES/m.yaml:3:15: metrics_file '$2' $3" "$(run --check "$PROFILES/m.yaml")"
	expect_eq "daemon, $1" "2 mmbatchd: $PROFILES/m.yaml:3:15: metrics_file '$2' $3" "$(run --profile "$PROFILES/m.yaml" --foreground)"
}

# 1. The state tree.
mkdir -p "$STATE/canary"
printf 'status=armed\nkernel=6.99\n' > "$STATE/canary/state"
inside="is inside the state directory (it would replace the journal, the lock or the canary's state)"
both "<state>/canary/state" "$STATE/canary/state" "$inside"
both "<state>/journal" "$STATE/journal" "$inside"
both "a '..' spelling of it" "$T/root/../state/canary/state" "must not hold a '.' or '..' component"
expect_eq "canary state after the refusals" "status=armed
kernel=6.99" "$(cat "$STATE/canary/state")"
expect_absent "no journal after the refusals" "$STATE/mmbatchd/journal"
expect_eq "--metrics-file <state>/canary/state with --check" \
	"2 --metrics-file: '$STATE/canary/state' $inside" \
	"$(run --check "$PROFILES/m.yaml" --metrics-file "$STATE/canary/state")"

# 2. Swaps. A directory of another user above the last one:
mkdir -p "$T/home/sub" "$T/rootonly"
chmod 0700 "$T/rootonly"
chown -R 65534:65534 "$T/home"
both "below a directory of another user" "$T/home/sub/m.prom" "has a directory not owned by root above its last one"
# ... that user swaps sub for a symlink to a root-only directory:
mv "$T/home/sub" "$T/home/old"; ln -s "$T/rootonly" "$T/home/sub"
both "through a swapped-in symlink" "$T/home/sub/m.prom" "has a directory not owned by root above its last one"
mkdir -p "$T/pub/dir"
ln -s "$T/rootonly" "$T/pub/link"
both "through a symlink in a root directory" "$T/pub/link/m.prom" "has a symlink on its directory path"
expect_eq "files in the root-only directory" "" "$(ls -A "$T/rootonly")"
# A swap after the start: every write checks again.
printf 'sysctl:\n  vm.swappiness: 10\nmetrics_file: %s\n' "$T/pub/dir/m.prom" > "$PROFILES/p.yaml"
expect_eq "--check, a good path" "0 $PROFILES/p.yaml: ok (1 keys, 0 optional absent)" "$(run --check "$PROFILES/p.yaml")"
start_daemon "$PROFILES/p.yaml"
expect_exists "metrics file written" "$T/pub/dir/m.prom"
mv "$T/pub/dir" "$T/pub/dir.old"; ln -s "$T/rootonly" "$T/pub/dir"
kill -HUP "$DAEMON_PID"
wait_last_error
expect_eq "the reload after the swap fails" "\"$PROFILES/p.yaml:3:15: metrics_file '$T/pub/dir/m.prom' has a symlink on its directory path\"" "$(status_field .last_error)"
expect_eq "files in the root-only directory after a swap and a write" "" "$(ls -A "$T/rootonly")"
expect_match "the refused write is logged" "cannot write metrics file $T/pub/dir/m.prom" "@$T/daemon.log"
stop_daemon

# 3. The collector's directory (Debian: /var/lib/prometheus/node-exporter,
#    owned by prometheus): fine, and its owner cannot redirect the write.
mkdir -p "$T/collector"
chown 65534:65534 "$T/collector"
echo secret > "$T/rootonly/victim"
ln -s "$T/rootonly/victim" "$T/collector/m.prom"
chown -h 65534:65534 "$T/collector/m.prom"
printf 'sysctl:\n  vm.swappiness: 10\nmetrics_file: %s\n' "$T/collector/m.prom" > "$PROFILES/c.yaml"
expect_eq "--check, the collector's directory" "0 $PROFILES/c.yaml: ok (1 keys, 0 optional absent)" "$(run --check "$PROFILES/c.yaml")"
start_daemon "$PROFILES/c.yaml"
expect_eq "metrics file: a regular file of root's, 0644" "regular file 0 644" "$(stat -c '%F %u %a' "$T/collector/m.prom")"
expect_eq "the planted symlink's target" secret "$(cat "$T/rootonly/victim")"
stop_daemon
expect_eq "swappiness after the stop" 60 "$(knob proc/sys/vm/swappiness)"
