#!/bin/bash
# Crash safety: kill -9 the daemon after it applied, start it again (with a
# profile that sets other values), and check that it restored the originals
# from the journal before applying: the restore is logged before the new
# apply, the new journal holds the true originals (not the values the dead
# daemon set), and SIGTERM then brings every original back.
# Reads: MMBATCHD, TOP.
. "$(dirname "$0")/lib.sh"
setup

fake_knob proc/sys/vm/swappiness 60
fake_knob proc/sys/vm/dirty_ratio 20
fake_knob sys/kernel/mm/transparent_hugepage/enabled 'always [madvise] never'
printf 'sysctl:\n  vm.swappiness: 10\n  vm.dirty_ratio: 5\nsysfs:\n  /sys/kernel/mm/transparent_hugepage/enabled: never\n' > "$PROFILES/first.yaml"
printf 'sysctl:\n  vm.swappiness: 15\n' > "$PROFILES/second.yaml"

start_daemon "$PROFILES/first.yaml"
kill -KILL "$DAEMON_PID"; wait "$DAEMON_PID" 2>/dev/null || true; DAEMON_PID=
expect_eq "swappiness after kill -9" 10 "$(knob proc/sys/vm/swappiness)"
expect_exists "journal after kill -9" "$STATE/mmbatchd/journal"
expect_eq "--status after kill -9" '"dead"' "$(status_field .state)"

: > "$T/daemon.log"
start_daemon "$PROFILES/second.yaml"
expect_eq "swappiness after restart" 15 "$(knob proc/sys/vm/swappiness)"
expect_eq "dirty_ratio (only in the first profile) restored" 20 "$(knob proc/sys/vm/dirty_ratio)"
expect_eq "THP (only in the first profile) restored" madvise "$(knob sys/kernel/mm/transparent_hugepage/enabled)"
expect_eq "new journal holds the true original" "/proc/sys/vm/swappiness	60" "$(tail -n +4 "$STATE/mmbatchd/journal")"
order=$(grep -E -o "'vm.swappiness' \([0-9]+\) -> \([0-9]+\) (restored|applied)" "$T/daemon.log" | tr '\n' ';')
expect_eq "restore before apply" "'vm.swappiness' (10) -> (60) restored;'vm.swappiness' (60) -> (15) applied;" "$order"

stop_daemon
expect_eq "originals after SIGTERM" "60 20 madvise" "$(knob proc/sys/vm/swappiness) $(knob proc/sys/vm/dirty_ratio) $(knob sys/kernel/mm/transparent_hugepage/enabled)"
