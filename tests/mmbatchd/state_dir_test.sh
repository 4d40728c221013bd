#!/bin/bash
# The state tree (security issue 41, statedir.h):
#  1. it is 0700 whoever created it: a 0755 one of root's is set to 0700
#     with a log line (by a start, --once and --rollback alike); one owned
#     by another user is refused before anything is written;
#  2. the journal is in <state>/mmbatchd/, which mmbatch-smoke.service cannot
#     reach; a symlink there is refused;
#  3. upgrade: a journal an earlier version left at <state>/journal is moved
#     there and restored once, at the first start after the upgrade; one
#     planted at the old place later (the smoke unit can write there) is
#     ignored with a warning, never restored.
# Reads: MMBATCHD, TOP. Needs root (chown).
. "$(dirname "$0")/lib.sh"
setup
[ "$(id -u)" = 0 ] || { echo "$TEST_NAME: needs root (chown), FAILING"; exit 1; }
fake_knob proc/sys/vm/swappiness 60
printf 'sysctl:\n  vm.swappiness: 10\n' > "$PROFILES/p.yaml"
run() { local rc=0 out; out=$(timeout -k 2 10 "$MMBATCHD" "$@" --root "$ROOT" --state-dir "$STATE" 2>&1) || rc=$?; echo "$rc $out"; }
# journal_of VALUE: a journal of this boot whose original swappiness is VALUE.
journal_of() { printf '# mmbatchd journal v2\nboot_id\t%s\nprofile\t/etc/mmbatch/old.yaml\n/proc/sys/vm/swappiness\t%s\n' "$FAKE_BOOT_ID" "$1"; }

# 1. Modes.
for mode in start once rollback; do
	chmod 0755 "$STATE" "$STATE/mmbatchd"
	case $mode in
	start) start_daemon "$PROFILES/p.yaml"; stop_daemon; out=$(cat "$T/daemon.log"); : > "$T/daemon.log" ;;
	once) out=$(run --once "$PROFILES/p.yaml") ;;
	rollback) out=$(run --rollback) ;;
	esac
	expect_eq "$mode: state dir mode" 700 "$(stat -c %a "$STATE")"
	expect_eq "$mode: journal dir mode" 700 "$(stat -c %a "$STATE/mmbatchd")"
	expect_contains "$mode: logged" "mmbatchd: state directory $STATE was mode 0755 (readable by others): set to 0700" "$out"
done
expect_eq "swappiness after --rollback" 60 "$(knob proc/sys/vm/swappiness)"
chown 65534 "$STATE"
before=$(tree_sum "$ROOT")
expect_eq "state dir of another user" "1 mmbatchd: refusing state directory $STATE: owned by uid 65534, not root" "$(run --once "$PROFILES/p.yaml")"
expect_eq "tree after the refusal" "$before" "$(tree_sum "$ROOT")"
chown 0 "$STATE"

# 2. A symlink as the journal's directory.
mv "$STATE/mmbatchd" "$T/elsewhere"
ln -s "$T/elsewhere" "$STATE/mmbatchd"
expect_eq "symlink as the journal dir" "1 mmbatchd: cannot open $STATE/mmbatchd: Not a directory" "$(run --once "$PROFILES/p.yaml")"
expect_eq "tree after that refusal" "$before" "$(tree_sum "$ROOT")"
rm "$STATE/mmbatchd"

# 3. The upgrade: no $STATE/mmbatchd yet, an old daemon's journal (killed
#    with swappiness at 10, its original 60).
fake_knob proc/sys/vm/swappiness 10
journal_of 60 > "$STATE/journal"; chmod 0600 "$STATE/journal"
printf 'sysctl:\n  vm.dirty_ratio: 5\n' > "$PROFILES/q.yaml"
fake_knob proc/sys/vm/dirty_ratio 20
start_daemon "$PROFILES/q.yaml"
expect_contains "old journal moved" "mmbatchd: moved the journal of an earlier mmbatchd from $STATE/journal to $STATE/mmbatchd/journal" "$(cat "$T/daemon.log")"
expect_eq "the old journal's value restored" 60 "$(knob proc/sys/vm/swappiness)"
expect_absent "nothing at the old place" "$STATE/journal"
stop_daemon
expect_eq "dirty_ratio after the stop" 20 "$(knob proc/sys/vm/dirty_ratio)"
# Planted later at the old place: ignored.
: > "$T/daemon.log"
journal_of 1 > "$STATE/journal"; chmod 0600 "$STATE/journal"
start_daemon "$PROFILES/q.yaml"
expect_contains "planted journal ignored" "mmbatchd: ignoring $STATE/journal: journals are kept in $STATE/mmbatchd" "$(cat "$T/daemon.log")"
expect_eq "swappiness (the planted value not restored)" 60 "$(knob proc/sys/vm/swappiness)"
stop_daemon
out=$(run --rollback)
expect_eq "--rollback with a planted journal at the old place" "0 mmbatchd: ignoring $STATE/journal: journals are kept in $STATE/mmbatchd, and one at the old place is taken only at the first start after an upgrade
mmbatchd: no journal of this boot in $STATE, nothing to roll back" "$out"
expect_eq "swappiness after that --rollback" 60 "$(knob proc/sys/vm/swappiness)"
# --rollback migrates too (the daemon never started after the upgrade).
rm -rf "$STATE/mmbatchd"
fake_knob proc/sys/vm/swappiness 10
journal_of 60 > "$STATE/journal"; chmod 0600 "$STATE/journal"
capture rc "$MMBATCHD" --rollback --root "$ROOT" --state-dir "$STATE"
# shellcheck disable=SC2154 # rc_out is set by capture (printf -v)
expect_ok "--rollback of an old journal" "$rc" "$rc_out"
expect_eq "swappiness after it" 60 "$(knob proc/sys/vm/swappiness)"
expect_absent "old journal gone" "$STATE/journal"
expect_absent "new journal gone" "$STATE/mmbatchd/journal"
