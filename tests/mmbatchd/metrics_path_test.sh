#!/bin/bash
# Where the metrics textfile may go (security issue 41, metricsdir.h), each
# as --check and the daemon see it (they must agree):
#  1. anywhere inside the state tree is refused: metrics_file
#     <state>/canary/state once replaced an armed canary's state;
#  2. a directory on the path that its owner swaps for a symlink (to a
#     root-only directory) is refused, at start and at every later write;
#     directories of two users other than root on the path are refused
#     up front;
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

# 2. Swaps. A directory of a second user below one of another user:
mkdir -p "$T/home/sub" "$T/rootonly"
chmod 0700 "$T/rootonly"
chown -R 65534:65534 "$T/home"
chown 65533:65533 "$T/home/sub"
both "a directory of a second user below another user's" "$T/home/sub/m.prom" "has directories of two users other than root on its path"
# ... the owner of home swaps sub for a symlink to a root-only directory:
mv "$T/home/sub" "$T/home/old"; ln -s "$T/rootonly" "$T/home/sub"
chown -h 65534:65534 "$T/home/sub"
both "through a swapped-in symlink" "$T/home/sub/m.prom" "has a symlink on its directory path"
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

# 3. A collector's own directory: fine, and its owner cannot redirect the
#    write. (Debian's layout, /var/lib/prometheus the collector's and
#    node-exporter root's below it, is the last case.)
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
mkdir -p "$T/prometheus/node-exporter"
chown 65534:65534 "$T/prometheus"
printf 'sysctl:\n  vm.swappiness: 10\nmetrics_file: %s\n' "$T/prometheus/node-exporter/m.prom" > "$PROFILES/d.yaml"
expect_eq "--check, Debian's layout (root's directory in the collector's)" "0 $PROFILES/d.yaml: ok (1 keys, 0 optional absent)" "$(run --check "$PROFILES/d.yaml")"
expect_eq "swappiness after the stop" 60 "$(knob proc/sys/vm/swappiness)"
