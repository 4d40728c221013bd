#!/bin/bash
# The daemon mode against a fake tree: applies on start, reports state in
# status.json (--status) and a Prometheus textfile, reloads on SIGHUP (an
# invalid profile keeps the old settings), restores every original on SIGTERM
# and removes the journal; with rollback: never it leaves the values. A
# reload can switch exit drains off and change their method, keeping the
# exit watcher; it cannot switch them on (that needs a restart).
# Reads: MMBATCHD, TOP.
. "$(dirname "$0")/lib.sh"
setup

fake_knob proc/sys/vm/swappiness 60
fake_knob proc/sys/vm/dirty_ratio 20
fake_knob sys/kernel/mm/transparent_hugepage/enabled 'always [madvise] never'
cat > "$PROFILES/p.yaml" <<'P'
sysctl:
  vm.swappiness: 30
sysfs:
  /sys/kernel/mm/transparent_hugepage/enabled: never
P
start_daemon "$PROFILES/p.yaml" --metrics-file "$T/mmbatchd.prom"
expect_eq "swappiness while running" 30 "$(knob proc/sys/vm/swappiness)"
expect_eq "status applied" '[{"key":"vm.swappiness","value":"30","original":"60"},{"key":"/sys/kernel/mm/transparent_hugepage/enabled","value":"never","original":"madvise"}]' "$(status_field .applied)"
expect_eq "status profile/drains/overruns/error" "[\"$PROFILES/p.yaml\",0,0,null]" "$(status_field '[.profile,.drain.drains,.overruns,.last_error]')"
expect_eq "status.json mode" 600 "$(stat -c %a "$STATE/status.json")"
metric=$(grep "^mmbatchd_applied_keys " "$T/mmbatchd.prom" || true)
expect_eq "metrics textfile" "mmbatchd_applied_keys 2" "$metric"
expect_eq "metrics file mode (node_exporter reads it)" 644 "$(stat -c %a "$T/mmbatchd.prom")"

# SIGHUP with a changed profile: new key applied, dropped key restored.
cat > "$PROFILES/p.yaml" <<'P'
sysctl:
  vm.swappiness: 40
  vm.dirty_ratio: 5
P
kill -HUP "$DAEMON_PID"
wait_reloads 1
expect_eq "swappiness after reload" 40 "$(knob proc/sys/vm/swappiness)"
expect_eq "dirty_ratio after reload" 5 "$(knob proc/sys/vm/dirty_ratio)"
expect_eq "THP (dropped by the reload) restored" madvise "$(knob sys/kernel/mm/transparent_hugepage/enabled)"
expect_eq "journal after reload" "/proc/sys/vm/swappiness	60
/proc/sys/vm/dirty_ratio	20" "$(tail -n +4 "$STATE/mmbatchd/journal")"

# SIGHUP with an invalid profile: error logged and reported, nothing changes.
before=$(tree_sum "$ROOT")
printf 'sysctl:\n  vm.swappiness: 1\n  vm.nr_overcommit_hugepages: 2\n' > "$PROFILES/p.yaml"
kill -HUP "$DAEMON_PID"
wait_last_error
expect_eq "last_error after a bad reload" "\"$PROFILES/p.yaml:3:3: sysctl 'vm.nr_overcommit_hugepages' does not exist on the running kernel ($ROOT/proc/sys/vm/nr_overcommit_hugepages); mark it optional if that is expected\"" "$(status_field .last_error)"
expect_eq "tree after a bad reload" "$before" "$(tree_sum "$ROOT")"
logged=$(grep -c 'reload failed, keeping the previous settings' "$T/daemon.log" || true)
expect_eq "bad reload logged" 1 "$logged"

# SIGHUP cannot switch exit drains on: the exit watcher is opened at start
# only (CAP_NET_ADMIN is dropped after it, caps_test.sh); the reload fails
# and the settings stay.
: > "$ROOT/proc/sys/vm/drain_percpu"; chmod 0200 "$ROOT/proc/sys/vm/drain_percpu"
printf 'sysctl:\n  vm.swappiness: 40\ndrain:\n  on_exit: true\n  method: sysctl\n' > "$PROFILES/p.yaml"
: > "$T/daemon.log"
kill -HUP "$DAEMON_PID"
for _ in $(seq 200); do grep -q 'reload failed' "$T/daemon.log" && break; sleep 0.1; done
expect_eq "last_error after a reload that turns drains on" "\"$PROFILES/p.yaml: drain.on_exit: the exit watcher is opened at start only (CAP_NET_ADMIN is dropped after it): restart mmbatchd to turn exit drains on\"" "$(status_field .last_error)"
expect_eq "drain after that reload" '{"on_exit":false,"method":"auto"}' "$(status_field '.drain | {on_exit, method}')"
stop_daemon

# Started with drains on, a reload keeps the watcher's socket (the same one)
# and switches the method; a reload can switch drains off.
: > "$T/daemon.log"
start_daemon "$PROFILES/p.yaml"
sock() { find "/proc/$DAEMON_PID/fd" -lname 'socket:*' -printf '%l\n' | sort | paste -sd' '; }
socks=$(sock)
printf 'sysctl:\n  vm.swappiness: 40\ndrain:\n  on_exit: true\n  method: migrate_pages\n' > "$PROFILES/p.yaml"
fake_knob sys/devices/system/node/online "$(cat /sys/devices/system/node/online)"
kill -HUP "$DAEMON_PID"
wait_reloads 1
expect_eq "drain after a reload that changes the method" '{"on_exit":true,"method":"migrate_pages"}' "$(status_field '.drain | {on_exit, method}')"
expect_eq "sockets after that reload (the watcher kept)" "$socks" "$(sock)"
printf 'sysctl:\n  vm.swappiness: 40\n  vm.dirty_ratio: 5\n' > "$PROFILES/p.yaml"
kill -HUP "$DAEMON_PID"
wait_reloads 2
expect_eq "drain after a reload that disables it" '{"on_exit":false,"method":"auto"}' "$(status_field '.drain | {on_exit, method}')"

stop_daemon
expect_eq "daemon exit status" 0 "$DAEMON_RC"
expect_eq "swappiness after SIGTERM" 60 "$(knob proc/sys/vm/swappiness)"
expect_eq "dirty_ratio after SIGTERM (dropped by a reload)" 20 "$(knob proc/sys/vm/dirty_ratio)"
expect_absent "journal after SIGTERM" "$STATE/mmbatchd/journal"
expect_eq "status after SIGTERM" '"stopped"' "$(status_field .state)"
restored=$(grep -c "'vm.swappiness' (40) -> (60) restored" "$T/daemon.log" || true)
expect_eq "rollback logged" 1 "$restored"

# rollback: never leaves the values in place (and no journal behind).
printf 'rollback: never\nsysctl:\n  vm.swappiness: 25\n' > "$PROFILES/never.yaml"
start_daemon "$PROFILES/never.yaml"
stop_daemon
expect_eq "swappiness after stop with rollback: never" 25 "$(knob proc/sys/vm/swappiness)"
expect_absent "journal after stop with rollback: never" "$STATE/mmbatchd/journal"

# An invalid profile never starts the daemon and writes nothing.
before=$(tree_sum "$ROOT")
printf 'sysctl:\n  vm.swappiness: [1]\n' > "$PROFILES/bad.yaml"
rc=0; out=$(timeout 30 "$MMBATCHD" --profile "$PROFILES/bad.yaml" --root "$ROOT" --state-dir "$STATE" --foreground 2>&1) || rc=$?
expect_eq "bad profile at start" "2 $PROFILES/bad.yaml:2:18: 'vm.swappiness' must have a scalar value, not a list" "$rc $out"
expect_eq "tree after a refused start" "$before" "$(tree_sum "$ROOT")"
