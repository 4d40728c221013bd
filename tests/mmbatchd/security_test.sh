#!/bin/bash
# The findings of the security review, each tried as an attacker would (the
# parser limits, FIFO profiles and directory trust have their own tests):
#  1. kernel.core_pattern (a pipe runs a program as root) is refused by
#     --check, --plan and --once, and a hand-written journal naming
#     kernel/core_pattern writes nothing on --rollback (exit 2);
#  2. a metrics file in the state directory (named like the journal or the
#     lock) is refused before anything is written, from the command line, the
#     profile and a reload; the journal stays a journal;
#  3. a profile path holding a newline and a tab cannot inject a journal
#     entry that --rollback would write;
#  4. rollback is byte-exact for a sysctl text holding "[...]";
#  5. an original value holding a quote gives an undo line that, run by a
#     shell, restores the value and runs nothing else;
#  6. a newline in a process name or a path never starts a log line;
#  7. a FIFO planted as the journal neither hangs --rollback nor a start,
#     and timeout(1) can stop every one-shot mode;
#  8. a journal of another boot is discarded with a log line, never
#     restored (by a start, --rollback or --once), while one of this boot is.
# Reads: MMBATCHD, MEMTOUCH (default: mmbatchd-memtouch next to MMBATCHD),
#        TOP. Needs root (taskstats for 6).
# shellcheck disable=SC2154 # VAR_out is set by capture
. "$(dirname "$0")/lib.sh"
setup
[ "$(id -u)" = 0 ] || { echo "$TEST_NAME: needs root (taskstats), FAILING"; exit 1; }
MEMTOUCH=${MEMTOUCH:-$(dirname "$MMBATCHD")/mmbatchd-memtouch}

fake_knob proc/sys/vm/swappiness 60
fake_knob proc/sys/vm/dirty_ratio 20
fake_knob proc/sys/kernel/core_pattern core
# run ARGS...: exit status and output of one bounded run (a run that hangs is
# killed, and shows as 124 or 137).
run() { local rc=0 out; out=$(timeout -k 2 10 "$MMBATCHD" "$@" --root "$ROOT" --state-dir "$STATE" 2>&1) || rc=$?; echo "$rc $out"; }

# 1. The escape key, in every mode that reads a profile, and in a journal.
printf 'sysctl:\n  vm.swappiness: 10\n  kernel.core_pattern: "|/usr/local/sbin/x %%p"\n' > "$PROFILES/escape.yaml"
before=$(tree_sum "$ROOT")
want="2 $PROFILES/escape.yaml:3:3: invalid sysctl key 'kernel.core_pattern': not an mm tuning key (mmbatchd --list-keys lists them)"
expect_eq "--check with kernel.core_pattern" "$want" "$(run --check "$PROFILES/escape.yaml")"
expect_eq "--plan with kernel.core_pattern" "$want" "$(run --plan "$PROFILES/escape.yaml")"
expect_eq "--once with kernel.core_pattern" "$want" "$(run --once "$PROFILES/escape.yaml")"
expect_eq "daemon with kernel.core_pattern" "$want" "$(run --profile "$PROFILES/escape.yaml" --foreground)"
expect_eq "tree after the escape profile" "$before" "$(tree_sum "$ROOT")"
expect_absent "journal after the escape profile" "$STATE/mmbatchd/journal"
printf '# mmbatchd journal v2\nboot_id\t%s\nprofile\t/etc/mmbatch/mmbatchd.yaml\n/proc/sys/kernel/core_pattern\t|/usr/local/sbin/x %%p\n' \
	"$FAKE_BOOT_ID" > "$STATE/mmbatchd/journal"
chmod 0600 "$STATE/mmbatchd/journal"
expect_eq "--rollback of a journal naming kernel/core_pattern" \
	"2 $STATE/mmbatchd/journal:4:1: refusing journal entry '/proc/sys/kernel/core_pattern': not an mm tuning key (mmbatchd --list-keys lists them)" \
	"$(run --rollback)"
expect_eq "kernel.core_pattern after that rollback" core "$(knob proc/sys/kernel/core_pattern)"
rm -f "$STATE/mmbatchd/journal"

# 2. Metrics file aimed at the daemon's own state.
printf 'sysctl:\n  vm.swappiness: 10\n' > "$PROFILES/p.yaml"
for name in journal lock; do
	expect_eq "--metrics-file \$STATE/$name" \
		"2 mmbatchd: --metrics-file: '$STATE/$name' is inside the state directory (it would replace the journal, the lock or the canary's state)" \
		"$(run --profile "$PROFILES/p.yaml" --foreground --metrics-file "$STATE/$name")"
done
ln -s "$STATE" "$T/state-link"
printf 'sysctl:\n  vm.swappiness: 10\nmetrics_file: %s\n' "$T/state-link/journal" > "$PROFILES/m.yaml"
expect_eq "metrics_file through a symlink to the state dir" \
	"2 mmbatchd: $PROFILES/m.yaml:3:15: metrics_file '$T/state-link/journal' has a symlink on its directory path" \
	"$(run --profile "$PROFILES/m.yaml" --foreground)"
expect_eq "tree after the refused metrics files" "$before" "$(tree_sum "$ROOT")"
expect_absent "journal after the refused metrics files" "$STATE/mmbatchd/journal"
# A reload to such a profile fails and keeps the journal a journal.
start_daemon "$PROFILES/p.yaml"
cp "$PROFILES/m.yaml" "$PROFILES/p.yaml"
kill -HUP "$DAEMON_PID"
wait_last_error
expect_eq "journal header after the refused reload" "# mmbatchd journal v2" "$(head -n1 "$STATE/mmbatchd/journal")"
kill -9 "$DAEMON_PID"; wait "$DAEMON_PID" 2>/dev/null || true; DAEMON_PID=
expect_eq "vm.swappiness after kill -9" 10 "$(knob proc/sys/vm/swappiness)"
rc=0; "$MMBATCHD" --rollback --root "$ROOT" --state-dir "$STATE" 2>/dev/null || rc=$?
expect_eq "--rollback after kill -9: exit" 0 "$rc"
expect_eq "vm.swappiness restored from that journal" 60 "$(knob proc/sys/vm/swappiness)"
printf 'sysctl:\n  vm.swappiness: 10\n' > "$PROFILES/p.yaml"

# 3. A profile path that carries a journal line of its own.
# (a directory named "p<newline>", then proc/sys/vm/, then a file named
# "dirty_ratio<tab>5": the path reads as a journal entry after the newline)
evil_name=$'p\n/proc/sys/vm/dirty_ratio\t5'
mkdir -p "$(dirname "$PROFILES/$evil_name")"
printf 'sysctl:\n  vm.swappiness: 10\n' > "$PROFILES/$evil_name"
rc=0; "$MMBATCHD" --once "$PROFILES/$evil_name" --root "$ROOT" --state-dir "$STATE" > "$T/once.log" 2>&1 || rc=$?
expect_eq "--once with a newline in the profile path: exit" 0 "$rc"
expect_eq "journal lines (header, boot id, profile, one entry)" 4 "$(wc -l < "$STATE/mmbatchd/journal")"
rc=0; "$MMBATCHD" --rollback --root "$ROOT" --state-dir "$STATE" 2>/dev/null || rc=$?
expect_eq "--rollback: exit" 0 "$rc"
expect_eq "vm.dirty_ratio after that rollback (no injected entry)" 20 "$(knob proc/sys/vm/dirty_ratio)"
expect_eq "vm.swappiness after that rollback" 60 "$(knob proc/sys/vm/swappiness)"
forged=$(grep -c '^/proc/sys/vm/dirty_ratio' "$T/once.log" || true)
expect_eq "log lines starting with the injected text" 0 "$forged"

# 4. Byte-exact rollback of a text with brackets (and a tab).
orig=$'/crash/core [%e] %p\tx'
fake_knob proc/sys/vm/numa_zonelist_order "$orig"
# (The one text sysctl; the file always reads "Node", its only value.)
printf 'sysctl:\n  vm.numa_zonelist_order: Node\n' > "$PROFILES/text.yaml"
capture rc "$MMBATCHD" --once "$PROFILES/text.yaml" --root "$ROOT" --state-dir "$STATE"
expect_ok "--once of a text value" "$rc" "$rc_out"
expect_eq "text value applied" "Node" "$(knob proc/sys/vm/numa_zonelist_order)"
capture rc "$MMBATCHD" --rollback --root "$ROOT" --state-dir "$STATE"
expect_ok "--rollback of a text value" "$rc" "$rc_out"
expect_eq "text value after rollback (byte-exact)" "$orig" "$(knob proc/sys/vm/numa_zonelist_order)"

# 5. An original with a quote: the logged undo line, run by sh, restores it
#    and runs nothing else.
orig="x'; touch $T/pwned; '"
fake_knob proc/sys/vm/numa_zonelist_order "$orig"
capture rc "$MMBATCHD" --once "$PROFILES/text.yaml" --root "$ROOT" --state-dir "$STATE"
expect_ok "--once with a quote in the original" "$rc" "$rc_out"
undo=$(printf '%s\n' "$rc_out" | sed -n 's/.* applied; undo: //p')
expect_eq "undo line" "echo 'x'\\''; touch $T/pwned; '\\''' > $ROOT/proc/sys/vm/numa_zonelist_order" "$undo"
capture rc sh -c "$undo"
expect_ok "the undo line runs ($undo)" "$rc" "$rc_out"
expect_absent "file touched by the undo line" "$T/pwned"
expect_eq "value after running the undo line" "$orig" "$(knob proc/sys/vm/numa_zonelist_order)"
rm -f "$STATE/mmbatchd/journal"

# 6. A newline in a process name (and in a path, 3. above) never starts a
#    log line: the exit shows it escaped. (min_rss_mb high enough that the
#    host's compilers do not qualify; the debug line names every qualifying
#    exit, whether it starts a drain or joins one.)
printf 'drain:\n  on_exit: true\n  min_rss_mb: 256\n  method: migrate_pages\n' > "$PROFILES/drain.yaml"
fake_knob sys/devices/system/node/online "$(cat /sys/devices/system/node/online)"
fake_knob proc/meminfo "MemFree: 1000 kB"
start_daemon "$PROFILES/drain.yaml" --log-level debug
pid=$("$MEMTOUCH" $'mbd\nFORGED-LINE' 320)
for _ in $(seq 100); do grep -q "qualifying exit of pid $pid " "$T/daemon.log" && break; sleep 0.1; done
expect_eq "log lines starting with the forged text" 0 "$(grep -c '^FORGED-LINE' "$T/daemon.log" || true)"
expect_eq "qualifying-exit lines naming the process, escaped" 1 \
	"$(grep -c "qualifying exit of pid $pid (mbd\\\\nFORGED-LINE)" "$T/daemon.log" || true)"
stop_daemon

# 7. A FIFO as the journal: refused at once, by --rollback and by a start.
mkfifo -m 0600 "$STATE/mmbatchd/journal"
expect_eq "FIFO journal, --rollback" "2 $STATE/mmbatchd/journal:1:1: refusing untrusted journal: not a regular file" "$(run --rollback)"
out=$(run --profile "$PROFILES/p.yaml" --foreground)
expect_eq "FIFO journal, daemon start: exit" 2 "${out%% *}"
rm -f "$STATE/mmbatchd/journal"
# timeout(1) stops a one-shot mode (they keep SIGTERM's default action).
mkfifo -m 0644 "$T/blocker"
rc=0; timeout -k 3 -s TERM 1 "$MMBATCHD" --check "$T/blocker" --root "$ROOT" > /dev/null 2>&1 || rc=$?
expect_match "--check on a FIFO ends by itself or by SIGTERM: exit status" '^(124|2)$' "$rc"

# 8. Journals of another boot are discarded; one of this boot is restored.
stale() {
	printf '# mmbatchd journal v2\nboot_id\t11111111-2222-3333-4444-555555555555\nprofile\t/etc/mmbatch/mmbatchd.yaml\n/proc/sys/vm/swappiness\t1\n' > "$STATE/mmbatchd/journal"
	chmod 0600 "$STATE/mmbatchd/journal"
}
fake_knob proc/sys/vm/swappiness 60
stale
out=$(run --rollback)
expect_eq "--rollback of another boot's journal" "0 mmbatchd: $STATE/mmbatchd/journal:2:1: journal is from another boot (boot id 11111111-2222-3333-4444-555555555555, this boot $FAKE_BOOT_ID); its values did not survive the reboot, discarding it
mmbatchd: no journal of this boot in $STATE, nothing to roll back" "$out"
expect_eq "vm.swappiness after it (not restored)" 60 "$(knob proc/sys/vm/swappiness)"
expect_absent "that journal after --rollback" "$STATE/mmbatchd/journal"
stale
capture rc "$MMBATCHD" --once "$PROFILES/p.yaml" --root "$ROOT" --state-dir "$STATE"
expect_ok "--once over another boot's journal" "$rc" "$rc_out"
expect_eq "--once over another boot's journal records this boot's original" "/proc/sys/vm/swappiness	60" "$(tail -n +4 "$STATE/mmbatchd/journal")"
capture rc "$MMBATCHD" --rollback --root "$ROOT" --state-dir "$STATE"
expect_ok "--rollback of this boot's journal" "$rc" "$rc_out"
stale
start_daemon "$PROFILES/p.yaml"
expect_eq "start over another boot's journal: discarded in the log" 1 "$(grep -c 'journal is from another boot.*discarding it' "$T/daemon.log" || true)"
expect_eq "start over another boot's journal: restore lines" 0 "$(grep -c 'restoring' "$T/daemon.log" || true)"
expect_eq "vm.swappiness applied" 10 "$(knob proc/sys/vm/swappiness)"
expect_eq "new journal: this boot, the true original" "boot_id	$FAKE_BOOT_ID /proc/sys/vm/swappiness	60" "$(sed -n 2p "$STATE/mmbatchd/journal") $(tail -n +4 "$STATE/mmbatchd/journal")"
stop_daemon
expect_eq "vm.swappiness after stop (this boot's original)" 60 "$(knob proc/sys/vm/swappiness)"
